#include "keytable.h"

#include <string.h>

/* Shorthands for the table: one row per line. */
#define K KIND_KEY
#define C KIND_CLASS
#define T KIND_TEXTURE
#define O KIND_OPTION
#define W AT_WORLD
#define L AT_LIGHT
#define B AT_BMODEL
#define P AT_POINT
#define G AT_GROUP
#define ANY AT_ANY
#define QB BY_QBSP
#define QV BY_QVIS
#define QR BY_QRAD
#define GM BY_GAME
#define ED BY_EDITOR
#define HON KS_HONOURED
#define UNT KS_UNTESTED
#define NYT KS_NOT_YET
#define MNL KS_MEANINGLESS
#define QUI KS_QUIET

/* Columns: name, kind, where, read by, default, status, test, origin, note.
 * h-keys-qrad (issue 13, section 3) flips the qrad rows as it lands them. */
static const keyrow_t k_rows[] = {
    /* ---- TrenchBroom layers and groups (qbsp) ---- */
    {"_tb_layer_omit_from_export", K, W | B | G, QB, "0", HON, "test_key_tb_layer_omit", "TB", "1 on a layer (or on worldspawn, the default layer): its brushes, groups and entities are left out of the compile; the log says how many"},
    {"_tb_type", K, B | G, QB, "", HON, "test_key_tb_layer_omit", "TB", "_tb_layer or _tb_group: the func_group is a TrenchBroom layer or group; its brushes join the world"},
    {"_tb_id", K, B | G, QB, "", HON, "test_key_tb_layer_omit", "TB", "the layer's or group's number, named by _tb_layer and _tb_group"},
    {"_tb_layer", K, ANY, QB, "", HON, "test_key_tb_layer_omit", "TB", "the layer an entity or group is in"},
    {"_tb_group", K, ANY, QB, "", HON, "test_key_tb_group_merge", "TB", "the group an entity or group is in"},
    {"_tb_*", K, ANY, ED, "", QUI, "", "TB", "TrenchBroom bookkeeping (_tb_name, _tb_textures, _tb_def, _tb_mod, _tb_layer_sort_index, _tb_layer_locked, _tb_layer_hidden, _tb_layer_color, _tb_linked_group_id, _tb_transformation, _tb_protected_properties, ...): known and quiet; those on worldspawn are not written to the bsp (as ericw-tools leaves them out)"},
    /* ---- qbsp: inside faces, prefabs, omission ---- */
    {"_mirrorinside", K, B | G, QB, "by contents (ericw-tools' Quake 2)", HON, "test_key_mirrorinside_defaults", "ericw", "1 keeps the faces seen from inside the entity's non-solid brushes, 0 drops them. Without the key, as ericw-tools' qbsp in Quake 2 mode: on for liquids and mist, off for windows (translucent solids included), aux, func_detail_fence and func_detail_illusionary (q2map used to keep them for every non-solid contents)"},
    {"_noclipfaces", K, B | G, QB, "0", HON, "test_key_noclipfaces", "ericw", "1: the entity's brushes of one contents do not clip each other, and the faces between them are drawn"},
    {"_omitbrushes", K, B | G, QB, "0", HON, "test_key_omitbrushes", "ericw", "1: every brush of the entity is left out"},
    {"_external_map", K, P, QB, "", HON, "test_key_external_map", "ericw", "misc_external_map: the .map whose brushes are imported (relative to the including map's directory); a missing file is an error naming both files and the line"},
    {"_external_map_classname", K, P, QB, "func_group", HON, "test_key_external_map", "ericw", "the classname the misc_external_map becomes (func_group, func_detail, func_wall, ...)"},
    {"_external_map_angles", K, P, QB, "0 0 0", HON, "test_key_external_map", "ericw", "pitch yaw roll rotation of the prefab before it is moved to the entity's origin"},
    {"_external_map_angle", K, P, QB, "0", HON, "test_key_external_map", "ericw", "yaw only (used when _external_map_angles is absent)"},
    {"_external_map_scale", K, P, QB, "1", HON, "test_key_external_map", "ericw", "one scale or \"x y z\" scales; zero, negative or non-numbers warn and use 1"},
    {"_chop_order", K, B | G, QB, "0", HON, "test_key_chop_order", "ericw", "CSG priority: of two overlapping brushes that could each clip the other, the higher order clips the lower (equal orders: qbsp3's rule, the first brush usually wins); detail still never clips structure"},
    {"_chop", K, B | G, QB, "1", HON, "test_key_chop", "ericw", "0: CSG leaves the entity's brushes whole, neither clipping nor clipped (deprecated for _chop_order)"},
    {"_super_detail", K, B | G, 0, "0", MNL, "", "none", "no compiler reads it: ericw-tools' qbsp source and docs (qbsp.rst) have no _super_detail, nor do q2tools-220, arghrad or qrad3"},
    {"_hulls", K, B, 0, "0", MNL, "", "ericw", "Quake 1 clipping hulls; Quake 2 collides with brushes"},
    {"_lmscale", K, B | G, 0, "16", MNL, "", "ericw", "ericw-tools writes it as the BSPX LMSHIFT lump, which no Quake 2 engine reads (Q2PRO reads DECOUPLED_LM, Yamagi and the re-release neither; docs/formats.md): use _world_units_per_luxel, which qrad honours through DECOUPLED_LM"},
    {"_world_units_per_luxel", K, W | B | G, QR, "the option", HON, "test_entity_key", "ericw", "the decoupled lightmap (DECOUPLED_LM) density of this entity's faces; worldspawn's turns them on without qrad -world_units_per_luxel (ericw-tools' global setting), a brush entity's applies once they are on"},
    {"_lightgrid", K, W, QR, "0", HON, "test_lightgrid_keys", "ericw", "1: qrad writes the BSPX LIGHTGRID_OCTREE lump, as -lightgrid"},
    {"_lightgrid_dist", K, W, QR, "32 32 32", HON, "test_lightgrid_keys", "ericw", "the light grid's spacing (-lightgrid_dist wins)"},
    {"_lightgrid_hint", K, P, QR, "0", HON, "test_lightgrid_hint", "ericw", "1: the entity's origin bounds the light grid (with the other hints, when they span a box)"},
    {"_lightmap_scale", K, W, 0, "16", MNL, "", "ericw", "worldspawn's _lmscale for every model, as LMSHIFT: no Quake 2 engine reads that lump; use worldspawn _world_units_per_luxel (DECOUPLED_LM)"},
    /* ---- qrad: per brush model (the entity lump carries them; "model" "*N" names the model) ---- */
    {"_phong", K, W | B | G, QR, "0", HON, "test_phong", "ericw", "1: smooth normals over the model's edges up to _phong_angle (89); worldspawn's replaces -smooth's 44 for the world; -smooth/-nosmooth on the command line override"},
    {"_phong_angle", K, W | B | G, QR, "89", HON, "test_phong", "ericw", "largest angle smoothed"},
    {"_phong_angle_concave", K, W | B | G, QR, "0", HON, "test_phong_angle_concave", "ericw", "largest angle smoothed where the neighbouring face lies in front (an inside corner); 0: _phong_angle"},
    {"_phong_group", K, W | B | G, QR, "0", HON, "test_phong_group", "ericw", "models of one nonzero group are smoothed together"},
    {"_minlight", K, W | B | G, QR, "0", HON, "test_minlight", "ericw, qrad3", "least light (0..1 in Quake 2, 1 = 128)"},
    {"_minlight_color", K, W | B | G, QR, "255 255 255", HON, "test_minlight", "ericw", "colour of the minimum light"},
    {"_mincolor", K, W | B | G, QR, "255 255 255", HON, "test_model_key_aliases", "ericw", "alias of _minlight_color"},
    {"_minlight_exclude*", K, B | G, QR, "", HON, "test_minlight", "ericw", "texture that gets no minimum light (only _minlight_exclude is read)"},
    {"_minlight_mottle", K, W | B | G, QR, "0", HON, "test_minlight_mottle", "ericw", "1: a fixed value noise of 0..47 in world space (16-unit cells, hashed, no rand()) is added to the minimum light, as ericw's Mottle() replaces qrad3's rand() % 48. Off by default: ericw-tools' current docs and code default it to 0 (older docs said 1 in Quake 2), and the issue's uniform _minlight 0.2 = 25 is ericw's output"},
    {"_minlightMottle", K, W | B | G, QR, "0", HON, "test_minlight_mottle", "ericw", "alias of _minlight_mottle"},
    {"_minlight_dirt", K, W | B | G, QR, "_dirt", HON, "test_minlight_dirt", "ericw", "dirtmapping applies to the minimum light"},
    {"_maxlight", K, W | B | G, QR, "0", HON, "test_maxlight", "ericw", "brightest channel, 0..2 in Quake 2 (1 = 128, as _minlight), applied before -scale and _gamma, keeping the hue; worldspawn's is every model's default"},
    {"_shadow", K, B, QR, "0", HON, "test_bmodel_shadow", "ericw", "1: the model casts shadows (and on itself), traced at its origin (rotators with their origin brush); -1 (ericw: on func_detail/func_group, no shadows) is not honoured yet: their faces are the world's, traced through its BSP tree, and qbsp warns about the key there"},
    {"_shadowself", K, B, QR, "0", HON, "test_bmodel_shadow", "ericw", "the model shadows itself only"},
    {"_selfshadow", K, B, QR, "0", HON, "test_model_key_aliases", "ericw", "alias of _shadowself"},
    {"_shadowworldonly", K, B, QR, "0", HON, "test_shadow_worldonly", "ericw", "the model shadows the world only"},
    {"_switchableshadow", K, B, QR, "0", NYT, "", "ericw", "a shadow switched by a light style"},
    {"_lightignore", K, B | G, QR, "0", HON, "test_lightignore", "ericw", "1: the model gets its minimum light only (no lights, suns, domes or bounced light)"},
    {"_autominlight", K, B, QR, "0 (luxels in solid only)", HON, "test_autominlight_keys", "ericw", "under -preset ericw: a brush model's luxels in the world's solid take the light at the centre of its bounds; 1: every luxel of the model at least that; -1 or 0: off"},
    {"_autominlight_target", K, B, QR, "", HON, "test_autominlight_target", "ericw", "under -preset ericw: targetname of the entity whose origin is sampled instead of the model's centre"},
    {"_light_alpha", K, B | G, QR, "TRANS33 0.33, TRANS66 0.66", HON, "test_q2_light_translucency", "ericw", "how much of the light crossing the model's translucent (TRANS33/66) faces their texture tints, 0..1 (0: none, 1: all); a func_group's or func_detail's applies to its faces"},
    {"_light_twosided", K, B | G, QR, "1 on liquids and translucent faces", HON, "test_q2_light_translucency", "ericw", "1: the faces are lit from behind as from in front; 0: from in front only"},
    {"_object_channel_mask", K, B | G, QR, "1", HON, "test_light_channels", "ericw", "light channels the model belongs to"},
    {"_shadow_channel_mask", K, B | L, QR, "1", HON, "test_shadow_channel_mask", "ericw", "on a light: channels of the shadow-casting models that block it (default its _light_channel_mask); the world always blocks"},
    {"_surflight_group", K, B | L, QR, "0", HON, "test_surflight_group", "ericw", "on a _surface light template: it emits only from faces of brush entities of no group or of its own (ericw's rule); on a brush entity: its group (func_group and func_detail keys do not reach qrad)"},
    /* ---- qrad: worldspawn ---- */
    {"_sunlight", K, W, QR, "0", HON, "test_sun_and_spot", "ericw", "brightness of the sun seen through sky faces"},
    {"_sun_mangle", K, W, QR, "0 -90 0", HON, "test_sun_and_spot", "ericw", "sun direction: yaw pitch roll"},
    {"_sunlight_mangle", K, W, QR, "0 -90 0", HON, "test_sun_keys", "ericw", "alias of _sun_mangle"},
    {"_sunlight_color", K, W, QR, "255 255 255", HON, "test_sun_keys", "ericw", "sun colour"},
    {"_sunlight_penumbra", K, W | L, QR, "0", HON, "test_sun_penumbra_and_diffwait", "ericw", "penumbra width of the sun, degrees"},
    {"_sunlight2", K, W, QR, "0", HON, "test_sky_dome", "ericw", "brightness of the upper sky dome"},
    {"_sunlight2_color", K, W, QR, "255 255 255", HON, "test_dome_colors", "ericw", "upper dome colour"},
    {"_sunlight_color2", K, W, QR, "255 255 255", HON, "test_dome_colors", "ericw", "alias of _sunlight2_color"},
    {"_sunlight3", K, W, QR, "0", HON, "test_sunlight3", "ericw", "brightness of the lower sky dome"},
    {"_sunlight3_color", K, W, QR, "255 255 255", HON, "test_dome_colors", "ericw", "lower dome colour"},
    {"_sunlight_color3", K, W, QR, "255 255 255", HON, "test_dome_colors", "ericw", "alias of _sunlight3_color"},
    {"_sunlight_dirt", K, W, QR, "_dirt", HON, "test_sun_dirt", "ericw", "dirtmapping on the suns: 1 on, -1 off (a _sun light's _dirt is its own)"},
    {"_sunlight2_dirt", K, W, QR, "_dirt", HON, "test_sun_dirt", "ericw", "dirtmapping on the domes (_sunlight2 and _sunlight3): 1 on, -1 off"},
    {"_sun2", K, W, QR, "", HON, "test_sun_keys", "ericw", "a second sun (_sun2_mangle, _sun2_color); light entities with _sun 1 add suns too"},
    {"_sun2_*", K, W, QR, "", HON, "test_sun_keys", "ericw", "keys of the second sun (_sun2_light, _sun2_mangle, _sun2_angle, _sun2_vector, _sun2_color, _sun2_style)"},
    {"_sun", K, W | L, QR, "", HON, "test_sun_keys", "q2tools", "worldspawn: targetname of the entity the sun shines from (to its target); on a light, \"1\" makes it a sun (ericw)"},
    {"_sun_light", K, W, QR, "250", HON, "test_sun_keys", "q2tools", "sun brightness"},
    {"_sun_color", K, W, QR, "255 255 255", HON, "test_sun_keys", "q2tools", "sun colour"},
    {"_sun_ambient", K, W, QR, "0", HON, "test_sun_keys", "q2tools", "sky-dome brightness (as _sunlight2)"},
    {"_sun_angle", K, W, QR, "", HON, "test_several_suns", "arghrad", "sun direction as an angle key"},
    {"_sun_diffuse", K, W, QR, "0", HON, "test_sun_diffuse", "arghrad", "diffuse sky light"},
    {"_sun_diffwait", K, W, QR, "1", HON, "test_sun_diffuse", "arghrad", "diffuse sunlight fade (the spelling the spirit maps use; arghrad documents _sun_difwait)"},
    {"_sun_difwait", K, W, QR, "1", HON, "test_sun_penumbra_and_diffwait", "arghrad", "scales how fast the diffuse sunlight fades (about 64 units at 1)"},
    {"_sun_diffade", K, W, QR, "1", HON, "test_sun_penumbra_and_diffwait", "arghrad", "alias of _sun_difwait"},
    {"_sun_style", K, W, QR, "0", HON, "test_sun_keys", "arghrad", "light style of the worldspawn sun (_sunN_style for the others): its light goes to that style's lightmap"},
    {"_sun_target", K, W, QR, "", HON, "test_sun_keys", "arghrad", "as q2tools' worldspawn _sun: the entity the sun shines from, towards its target"},
    {"_sun_vector", K, W, QR, "", HON, "test_sun_keys", "arghrad", "the direction the sunlight travels, x y z; wins over _sun, _sun_mangle and _sun_angle (_sunN_vector for the others)"},
    {"_sun_surface", K, W, QR, "", NYT, "", "arghrad", "brightness (or r g b) of the light sky faces give off as surface lights (blarghrad also reads _sky_surface); not yet: it belongs with the surface lights"},
    {"_sun3_*", K, W, QR, "", HON, "test_several_suns", "arghrad", "third to ninth suns (_sun3_light, _sun3_mangle or _sun3_angle, _sun3_color; the same for 4..9)"},
    {"_sun4_*", K, W, QR, "", HON, "test_sun_keys", "arghrad", "as _sun3_*"},
    {"_sun5_*", K, W, QR, "", HON, "test_sun_keys", "arghrad", "as _sun3_*"},
    {"_sun6_*", K, W, QR, "", HON, "test_sun_keys", "arghrad", "as _sun3_*"},
    {"_sun7_*", K, W, QR, "", HON, "test_sun_keys", "arghrad", "as _sun3_*"},
    {"_sun8_*", K, W, QR, "", HON, "test_sun_keys", "arghrad", "as _sun3_*"},
    {"_sun9_*", K, W, QR, "", HON, "test_sun_keys", "arghrad", "as _sun3_*"},
    {"_ambient", K, W, QR, "0", HON, "test_arghrad_ambient", "arghrad", "light added to every style-0 luxel: one brightness or r g b (0..255)"},
    {"_dirt", K, W | L | B | G, QR, "-1", HON, "test_dirt", "ericw", "1: ambient occlusion (dirtmapping); on a light, its own setting; -1 on a model: none"},
    {"_dirtmode", K, W, QR, "0", HON, "test_dirt_world_keys", "ericw", "0 ordered, 1 jittered (deterministic) rays"},
    {"_dirtdepth", K, W, QR, "128", HON, "test_dirt_world_keys", "ericw", "occlusion ray length"},
    {"_dirtscale", K, W | L, QR, "1", HON, "test_dirt_light_keys", "ericw", "occlusion strength (worldspawn: test_dirt_world_keys; on a light its own)"},
    {"_dirtgain", K, W | L, QR, "1", HON, "test_dirt_light_keys", "ericw", "occlusion exponent (worldspawn: test_dirt_world_keys; on a light its own)"},
    {"_dirtangle", K, W, QR, "88", HON, "test_dirt_world_keys", "ericw", "occlusion cone, 1..90 degrees"},
    {"_bounce", K, W | B | G, QR, "8 (qrad's -bounce)", HON, "test_bounce_keys", "ericw", "worldspawn: the number of bounces (0 = none; -bounce wins); -1 on a model: it reflects no light into the bounces (test_bmodel_nobounce); a light's share of the bounces is its _bouncescale"},
    {"_bouncescale", K, W | L, QR, "1", HON, "test_bounce_keys", "ericw", "bounce brightness"},
    {"_bouncecolorscale", K, W, QR, "texture colour as is", HON, "test_bouncecolorscale", "ericw", "0: bounces grey (the texture's mean), 1: the texture's colour"},
    {"_bouncestyled", K, W, QR, "0 (ericw: 1; -preset ericw)", HON, "test_bouncestyled", "ericw", "1: the light of each style bounces into that style (a face gets the style's lightmap where the bounce brings light and a slot is free)"},
    {"_dist", K, W, QR, "1", HON, "test_world_light_scales", "ericw", "multiplies every light's wait (its fade distance scale); lights with a _falloff distance keep it"},
    {"_range", K, W, QR, "0.5", HON, "test_world_light_scales", "ericw", "scales every light entity's brightness, not its fade distance: 0.5 leaves it, 1 doubles it"},
    {"_gamma", K, W, QR, "1", HON, "test_world_light_scales", "ericw", "lightmap gamma on the byte scale: 255 (v / 255)^(1 / gamma), every style"},
    {"_anglescale", K, W | L, QR, "1 (qrad3's cosine; ericw 0.5)", HON, "test_falloff_delay", "ericw", "weight of the incidence angle: (1 - a) + a cos"},
    {"_anglesense", K, W | L, QR, "1", HON, "test_light_keys", "ericw", "alias of _anglescale"},
    {"_spotlightautofalloff", K, W, QR, "0", HON, "test_spotlightautofalloff", "ericw", "1: a linear spotlight aimed at a target, without a _falloff distance, reaches 0 at its target"},
    {"_surflightscale", K, W, QR, "1 (qrad's)", HON, "test_surflightscale", "ericw", "surface-light brightness, relative to qrad's -direct"},
    {"_surflightskyscale", K, W, QR, "1", HON, "test_surflightskyscale", "ericw", "brightness of sky faces that emit, relative to qrad's"},
    {"_surflight_radiosity", K, W, QR, "1 (Quake 2)", HON, "test_surface_template_q1", "ericw", "how _surface light templates light: 1 their faces emit as surface lights (ericw's Quake 2 default), 0 the light is copied in front of each piece of them (Quake 1 style)"},
    {"_surface_radiosity", K, L, QR, "worldspawn's _surflight_radiosity", HON, "test_surface_template_q1", "ericw", "_surflight_radiosity for one template"},
    {"_surflight_atten", K, W | L | B, QR, "1", HON, "test_surflight_atten", "ericw", "surface lights fade as if atten times as far (1/atten^2); worldspawn: SURF_LIGHT faces and templates, template light and brush entity: theirs"},
    {"_surflight_minlight_scale", K, W | B | L, QR, "0 (ericw: 1)", HON, "test_surflight_minlight_scale", "ericw", "an emitting face is lit at least value x scale in its colour (0.5 grey without textures); worldspawn for the world, brush entities their own, a template's times the face's"},
    {"_surflight_rescale", K, W | L | B, QR, "0 (ericw: 1 but on sky; -preset ericw)", HON, "test_surflight_rescale", "ericw", "1: surface light weighs both angles 0.5 + 0.5 cos (half at right angles, not none), its distance clamped at 16"},
    {"_tex_saturation_boost", K, W, QR, "0", HON, "test_tex_saturation_boost", "ericw", "0..1: texture colours (bounced and emitted) squared, doubled and mixed in, as ericw-tools emulates qrad3's saturation"},
    {"_compilerstyle_start", K, W, QR, "32", NYT, "", "ericw", "first light style given to switchable lights (qbsp assigns from 32 today)"},
    {"_compilerstyle_max", K, W, QR, "64", NYT, "", "ericw", "last such style"},
    /* ---- qrad: lights ---- */
    {"light", K, L, QR, "300", HON, "test_point_falloff", "id", "brightness"},
    {"_light", K, L, QR, "300", HON, "test_light_keys", "id", "alias of light"},
    {"_color", K, L, QR, "255 255 255", HON, "test_light_keys", "qrad3", "light colour (0..1 or 0..255)"},
    {"style", K, L, QR | QB, "0", HON, "test_sun_and_spot", "id", "light style; qbsp gives targeted lights 32+"},
    {"_style", K, L, QR, "0", HON, "test_light_keys", "q2tools", "alias of style"},
    {"_cone", K, L, QR, "10", HON, "test_sun_and_spot", "qrad3", "spotlight cone, degrees"},
    {"angle", K, L, QR, "0", HON, "test_sun_and_spot", "id", "light_spot direction (-1 up, -2 down); in ericw-tools it is the spotlight cone (40)"},
    {"target", K, L, QR, "", HON, "test_light_keys", "id", "spotlight aimed at this entity"},
    {"mangle", K, L, QR, "", HON, "test_light_keys", "ericw", "spotlight direction yaw pitch roll"},
    {"_mangle", K, L, QR, "", HON, "test_light_keys", "q2tools", "alias of mangle"},
    {"_falloff", K, L, QR, "0", HON, "test_falloff_delay", "q2tools", "0 linear, 1 inverse, 2 inverse square, 3 none (q2tools' meaning); above 3: ericw-tools' distance where a linear light reaches 0"},
    {"delay", K, L, QR, "0", HON, "test_falloff_delay", "ericw", "falloff type when _falloff is absent: 0 linear, 1 inverse, 2 inverse square, 3 none, 4 local minlight, 5 inverse square without the bright core"},
    {"wait", K, L, QR, "1", HON, "test_light_keys", "id", "scales the fade distance"},
    {"_wait", K, L, QR, "1", HON, "test_light_keys", "q2tools", "alias of wait"},
    {"_deviance", K, L, QR, "0", HON, "test_deviance", "ericw", "soft shadows: the light is spread over a sphere of this radius"},
    {"_samples", K, L, QR, "16", HON, "test_deviance", "ericw", "number of copies for _deviance"},
    {"_softangle", K, L, QR, "0", HON, "test_softangle", "ericw", "spotlight inner cone, full angle in degrees as ericw's (half of it inside _cone's half angle): full light inside, fading linearly in the cosine to 0 at _cone"},
    {"_light_channel_mask", K, L | B, QR, "1", HON, "test_light_channels", "ericw", "light channels the light lights (on models: the channels lighting them)"},
    {"_suntexture", K, L, QR, "", HON, "test_suntexture", "ericw", "a _sun light shines only through sky faces of this texture"},
    {"targetname", K, L, QB | QR, "", HON, "test_light_targetname_style", "id", "a targeted light is switchable: qbsp gives each light targetname a style from 32"},
    {"_nostaticlight", K, L, QR, "0", HON, "test_nostaticlight", "ericw", "1: the light (or sun) is not baked: for the engine's own dynamic lights"},
    {"_surface", K, L, QR, "", HON, "test_surface_template_radiosity", "ericw", "the light is a template: every face with this texture lights instead (see _surflight_radiosity); the light itself does not"},
    {"_surface_offset", K, L, QR, "2", HON, "test_surface_template_q1", "ericw", "Quake 1 style templates: distance of the copies from the face"},
    {"_surface_spotlight", K, L, QR, "0", HON, "test_surface_template_q1", "ericw", "Quake 1 style templates: the copies shine along the face normal (_cone)"},
    {"_surflight_color", K, B, QR, "texture colour", HON, "test_surflight_color_style", "ericw", "on a brush entity: the colour its faces emit from templates (a template's own colour is its _color)"},
    {"_surflight_style", K, B, QR, "the template's style", HON, "test_surflight_color_style", "ericw", "on a brush entity: the light style of what its faces emit from templates"},
    {"_surflight_targetname", K, B, QR, "", HON, "test_surflight_color_style", "ericw", "on a brush entity: its template surface lights take the style of the switchable lights of that name"},
    {"_project_texture", K, L, QR, "", NYT, "", "ericw", "texture projected by the light"},
    {"_project_mangle", K, L, QR, "", NYT, "", "ericw", "projection direction"},
    {"_project_fov", K, L, QR, "90", NYT, "", "ericw", "projection field of view"},
    {"_angwait", K, L, QR, "1", HON, "test_arghrad_light_keys", "q2tools", "angle falloff 0..2 as arghrad's _angfade: half of it is the light's _anglescale (ericw's -arghradcompat); q2tools-220 reads it but never uses it"},
    {"_fade", K, L, QR, "1", HON, "test_arghrad_light_keys", "arghrad", "arghrad's wait (used when wait/_wait are absent)"},
    {"_angfade", K, L, QR, "1", HON, "test_arghrad_light_keys", "arghrad", "arghrad's angle falloff 0..2: half of it is the light's _anglescale"},
    {"_distance", K, L, QR, "", HON, "test_arghrad_light_keys", "arghrad", "arghrad: the distance at which a linear light reaches 0 (as ericw's _falloff distance)"},
    /* ---- Quake 1 engine keys: nothing in Quake 2 reads them ---- */
    {"_wateralpha", K, W, 0, "", MNL, "", "Quake 1 engines", "liquid transparency is a texture flag in Quake 2 (SURF_TRANS33/66)"},
    {"_lavaalpha", K, W, 0, "", MNL, "", "Quake 1 engines", "liquid transparency is a texture flag in Quake 2"},
    {"_slimealpha", K, W, 0, "", MNL, "", "Quake 1 engines", "liquid transparency is a texture flag in Quake 2"},
    {"_telealpha", K, W, 0, "", MNL, "", "Quake 1 engines", "liquid transparency is a texture flag in Quake 2"},
    {"_fog", K, W, 0, "", MNL, "", "Quake 1 engines", "Quake 2 engines take fog from their own settings, not worldspawn"},
    {"_skyfog", K, W, 0, "", MNL, "", "Quake 1 engines", "as _fog"},
    /* ---- classnames ---- */
    {"func_group", C, 0, QB, "", HON, "test_key_tb_group_merge", "id", "brushes join the world; the entity is not written"},
    {"func_detail", C, 0, QB, "", HON, "test_detail", "ericw", "brushes join the world as detail"},
    {"func_detail_wall", C, 0, QB, "", HON, "test_detail_wall", "ericw", "solid detail that does not cut the world faces it stands on or against (they are drawn beneath it); its brushes do not clip each other"},
    {"func_detail_fence", C, 0, QB, "", HON, "test_detail_fence", "ericw", "detail window: see-through, solid"},
    {"func_detail_illusionary", C, 0, QB, "", HON, "test_key_mirrorinside", "ericw", "detail mist: no collision"},
    {"func_areaportal", C, 0, QB, "", HON, "test_areaportal", "id", "one brush; its number in \"style\""},
    {"misc_external_map", C, 0, QB, "", HON, "test_key_external_map", "ericw", "imports another .map's brushes (see _external_map)"},
    {"func_illusionary_visblocker", C, 0, QB, "", HON, "test_visblocker", "ericw", "brushes join the world as structural mist: walked through, drawn from both sides, and vis does not see through them"},
    {"light", C, 0, QR, "", HON, "test_point_falloff", "id", "point light; light_spot and target make spotlights"},
    {"light_spot", C, 0, QR, "", HON, "test_sun_and_spot", "id", "spotlight"},
    /* ---- textures ---- */
    {"region", T, 0, QB, "", HON, "test_key_region", "ericw", "a brush all of region: only world brushes touching its box are compiled"},
    {"antiregion", T, 0, QB, "", HON, "test_key_antiregion", "ericw", "world brushes touching an antiregion brush's box are left out"},
    {"origin", T, 0, QB, "", HON, "test_door", "id", "origin brush: the brush entity's origin"},
    {"hint", T, 0, QB, "", HON, "test_hint", "id", "SURF_HINT: splits the BSP, draws nothing"},
    {"skip", T, 0, QB, "", HON, "test_skip", "id", "SURF_SKIP: no face"},
    /* ---- options (the peer's spelling; q2map's in the note) ---- */
    {"-nofill", O, 0, QB, "", HON, "test_option_nofill_leaktest", "id, ericw", "qbsp -nofill"},
    {"-nodetail", O, 0, QB, "", HON, "test_option_omitdetail", "id, ericw", "qbsp -nodetail drops detail (ericw: treats it as structural, q2map's -fulldetail)"},
    {"-omitdetail", O, 0, QB, "", HON, "test_option_omitdetail", "ericw", "detail brushes left out: q2map's -nodetail, which -omitdetail names too"},
    {"-onlyents", O, 0, QB, "", HON, "test_option_onlyents_allowupgrade", "id, ericw", "qbsp -onlyents"},
    {"-leaktest", O, 0, QB, "", HON, "test_option_nofill_leaktest", "id, ericw", "qbsp -leaktest"},
    {"-nomerge", O, 0, QB, "", HON, "test_option_nomerge_subdivide", "id, ericw", "qbsp -nomerge"},
    {"-notjunc", O, 0, QB, "", HON, "test_tjunc_control", "id, ericw", "qbsp -notjunc"},
    {"-subdivide", O, 0, QB, "240", HON, "test_option_nomerge_subdivide", "ericw", "as q2map's -chop N; 0: no subdivision (-nosubdiv)"},
    {"-threads", O, 0, QB | QV | QR, "all", HON, "qbsp_determinism", "all", "threads; output is identical at any count"},
    {"-add", O, 0, QB, "", HON, "test_option_add", "ericw", "-add FILE: FILE's world brushes join the world and its other entities are appended (its worldspawn keys are not used); a missing FILE is an error naming it"},
    {"-convert", O, 0, QB, "", HON, "test_option_convert", "ericw", "-convert quake2|valve: writes MAP-FMT.map and stops; standard to Valve 220 is exact, Valve 220 to standard loses only sheared axes (ericw's quake and bp formats are not written)"},
    {"-includeskip", O, 0, QB, "", HON, "test_option_includeskip", "ericw", "skip and nodraw faces are written (Q2RTX); hint brushes' skip sides stay out"},
    {"-q2bsp", O, 0, QB, "", HON, "test_sample", "ericw", "Quake 2 output is q2map's only output"},
    {"-qbism", O, 0, QB, "", HON, "qbsp_qbism", "ericw", "always write the extended QBSP format"},
    {"-noallowupgrade", O, 0, QB, "", HON, "robust_limits", "ericw", "past an IBSP 38 limit: an error, not QBSP"},
    {"-allowupgrade", O, 0, QB, "", HON, "test_option_onlyents_allowupgrade", "ericw", "the default: past an IBSP 38 limit, write QBSP"},
    {"-wrbrushes", O, 0, 0, "", MNL, "", "ericw", "BSPX brush list: Quake 2 bsps carry brushes already"},
    {"-bsp2", O, 0, 0, "", MNL, "", "ericw", "Quake 1 format"},
    {"-hexen2", O, 0, 0, "", MNL, "", "ericw", "Hexen 2 format"},
    {"-noclip", O, 0, 0, "", MNL, "", "ericw", "Quake 1 clipping hulls"},
    {"-bounce", O, 0, QR, "8", HON, "test_qrad_options", "ericw, q2tools", "qrad -bounce N (0 = direct light only)"},
    {"-dirt", O, 0, QR, "", HON, "test_dirt", "ericw", "ambient occlusion"},
    {"-dirtdebug", O, 0, QR, "", HON, "test_q2_dirt_debug", "ericw", "qrad -dirtdebug: style 0 is the dirt factor alone (255 unoccluded, 0 fully occluded), no light; turns dirt on"},
    {"-minlight", O, 0, QR, "", HON, "test_minlight", "ericw", "minimum light"},
    {"-extra", O, 0, QR, "", HON, "test_qrad_scale_options", "ericw, id", "qrad -extra"},
    {"-soft", O, 0, QR, "0", HON, "test_qrad_options", "ericw", "qrad -soft [N]: each luxel the mean of the (2N+1)^2 luxels around it on its face (N 1 by default, 2 with -extra)"},
    {"-world_units_per_luxel", O, 0, QR, "", HON, "test_decoupled_density", "ericw", "BSPX DECOUPLED_LM lightmaps at N units per luxel"},
    {"-novanilla", O, 0, QR, "", HON, "qrad_bspx", "ericw", "with -world_units_per_luxel: no vanilla lightmaps"},
    {"-lightgrid", O, 0, QR, "", HON, "test_grid_agrees_with_lightmaps", "ericw", "BSPX LIGHTGRID_OCTREE"},
    {"-lightgrid_dist", O, 0, QR, "32 32 32", HON, "test_lightgrid_keys", "ericw", "the light grid's spacing"},
    {"-wrnormals", O, 0, QR, "", HON, "test_face_normals", "ericw", "BSPX FACENORMALS"},
    {"-lit", O, 0, 0, "", MNL, "", "ericw", "Quake 1 .lit: Quake 2 lightmaps are RGB already"},
    {"-ambient", O, 0, QR, "0", HON, "test_qrad_options", "id, q2tools", "qrad -ambient F: light added to every style-0 luxel, 0..255"},
    {"-maxlight", O, 0, QR, "196", HON, "test_qrad_options", "id, q2tools", "qrad -maxlight F: brightest channel, 0..255 (hue kept)"},
    {"-scale", O, 0, QR, "1", HON, "test_qrad_scale_options", "id, q2tools", "qrad -scale"},
    {"-direct", O, 0, QR, "0.4", HON, "test_direct_option", "id, q2tools", "qrad -direct: scale of the light SURF_LIGHT faces give off (qrad3's 0.4)"},
    {"-entity", O, 0, QR, "1", HON, "test_qrad_scale_options", "id, q2tools", "qrad -entity"},
    {"-smooth", O, 0, QR, "", HON, "test_phong_smooths_bend", "q2tools", "qrad -smooth"},
};

#undef K
#undef C
#undef T
#undef O
#undef W
#undef L
#undef B
#undef P
#undef G
#undef ANY

const keyrow_t *keytable_rows(int *count)
{
    *count = (int)(sizeof k_rows / sizeof k_rows[0]);
    return k_rows;
}

static bool row_matches(const keyrow_t *r, const char *name, bool prefix_rows)
{
    size_t n = strlen(r->name);
    bool star = n > 0 && r->name[n - 1] == '*';
    if (star != prefix_rows) return false;
    return star ? strncmp(r->name, name, n - 1) == 0 : strcmp(r->name, name) == 0;
}

const keyrow_t *keytable_find(const char *name, key_kind_t kind)
{
    int n;
    const keyrow_t *rows = keytable_rows(&n);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++)
            if (rows[i].kind == kind && row_matches(&rows[i], name, pass == 1)) return &rows[i];
    return NULL;
}

const char *keytable_status_name(key_status_t s)
{
    switch (s) {
    case KS_HONOURED: return "honoured";
    case KS_UNTESTED: return "honoured (no test yet)";
    case KS_NOT_YET: return "not yet";
    case KS_MEANINGLESS: return "meaningless in Quake 2";
    case KS_QUIET: return "editor bookkeeping (quiet)";
    }
    return "?";
}

/* func_group and the detail entities have brushes, but their brushes join
 * the world: only the keys marked AT_GROUP reach qrad from them (qbsp's
 * MAP.groupkeys side file). */
unsigned keytable_entity_kind(const char *cls, bool has_brushes)
{
    if (strcmp(cls, "worldspawn") == 0) return AT_WORLD;
    if (strncmp(cls, "light", 5) == 0) return AT_LIGHT;
    if (strcmp(cls, "func_group") == 0 || strncmp(cls, "func_detail", 11) == 0 ||
        strcmp(cls, "func_illusionary_visblocker") == 0)
        return AT_GROUP;
    if (has_brushes) return AT_BMODEL;
    return AT_POINT;
}

static const char *where_name(unsigned at, char *buf, size_t n)
{
    static const struct { unsigned bit; const char *name; } k[] = {
        {AT_WORLD, "worldspawn"}, {AT_LIGHT, "lights"}, {AT_BMODEL, "brush models"},
        {AT_GROUP, "func_group/func_detail"}, {AT_POINT, "point entities"}};
    buf[0] = 0;
    if ((at & AT_ANY) == AT_ANY) {
        snprintf(buf, n, "any entity");
        return buf;
    }
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        if (!(at & k[i].bit)) continue;
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s", len ? ", " : "", k[i].name);
    }
    return buf;
}

bool keytable_key_warning(const char *key, unsigned kind, char *why, size_t whysize)
{
    if (key[0] != '_') return false;
    const keyrow_t *r = keytable_find(key, KIND_KEY);
    if (!r) {
        snprintf(why, whysize, "no Quake 2 compiler reads it (not in docs/keys.md)");
        return true;
    }
    char where[96];
    switch (r->status) {
    case KS_QUIET: return false;
    case KS_MEANINGLESS: snprintf(why, whysize, "meaningless in Quake 2: %s", r->note); return true;
    case KS_NOT_YET: snprintf(why, whysize, "not honoured by q2map yet (%s's key; see docs/keys.md)", r->origin); return true;
    case KS_HONOURED:
    case KS_UNTESTED:
        if (r->at & kind) return false;
        snprintf(why, whysize, "read only on %s, so not here", where_name(r->at, where, sizeof where));
        return true;
    }
    return false;
}

static void md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|') fputs("\\|", f);
        else fputc(*s, f);
    }
}

void keytable_write_markdown(FILE *f)
{
    static const char *const kinds[] = {"Entity keys", "Classnames", "Textures", "Options"};
    int n;
    const keyrow_t *rows = keytable_rows(&n);
    fputs("# Map keys, classnames, textures and options\n\n"
          "Generated by `qbsp -keys` from formats/keytable.c (do not edit by hand; a unit test\n"
          "compares the two). One row per key of ericw-tools (Quake 2 mode first), q2tools-220,\n"
          "arghrad, qrad3 and TrenchBroom that changes what a compiler writes.\n\n"
          "- **status**: *honoured* (in effect, and the named test shows it), *honoured (no test\n"
          "  yet)*, *not yet* (meaningful in Quake 2, not implemented), *meaningless in Quake 2*\n"
          "  (the note says why), *editor bookkeeping (quiet)*.\n"
          "- **read by**: the q2map program that reads it (qbsp, qvis, qrad), `game` for keys\n"
          "  compilers pass through, `editor` for TrenchBroom's own.\n"
          "- **where**: W worldspawn, L lights, B brush models (func_wall, func_door, ...), G\n"
          "  func_group and func_detail* (their brushes join the world; qbsp passes their\n"
          "  lighting keys marked G to qrad per face, in the side file MAP.groupkeys),\n"
          "  P other point entities.\n\n"
          "qbsp warns once per key and entity, naming the entity's line, about every key with a\n"
          "leading `_` that no q2map program reads there: unknown keys, keys marked *not yet* or\n"
          "*meaningless*, and keys on an entity where they are not read. TrenchBroom's `_tb_*`\n"
          "keys are quiet. Brush entities keep all their keys in the bsp's entity lump, with\n"
          "`\"model\" \"*N\"` naming their model, which is how qrad (like ericw-tools' light)\n"
          "finds a model's keys.\n",
          f);
    for (int k = KIND_KEY; k <= KIND_OPTION; k++) {
        fprintf(f, "\n## %s\n\n", kinds[k]);
        if (k == KIND_KEY) fputs("| key | where | read by | default | status | test | from | note |\n|---|---|---|---|---|---|---|---|\n", f);
        else fputs("| name | read by | default | status | test | from | note |\n|---|---|---|---|---|---|---|\n", f);
        for (int i = 0; i < n; i++) {
            const keyrow_t *r = &rows[i];
            if ((int)r->kind != k) continue;
            fputs("| `", f);
            md_cell(f, r->name);
            fputs("` | ", f);
            if (k == KIND_KEY) {
                fprintf(f, "%s%s%s%s%s | ", r->at & AT_WORLD ? "W" : "", r->at & AT_LIGHT ? "L" : "",
                        r->at & AT_BMODEL ? "B" : "", r->at & AT_GROUP ? "G" : "", r->at & AT_POINT ? "P" : "");
            }
            const char *by[5];
            int nb = 0;
            if (r->readers & BY_QBSP) by[nb++] = "qbsp";
            if (r->readers & BY_QVIS) by[nb++] = "qvis";
            if (r->readers & BY_QRAD) by[nb++] = "qrad";
            if (r->readers & BY_GAME) by[nb++] = "game";
            if (r->readers & BY_EDITOR) by[nb++] = "editor";
            if (!nb) fputs("none", f);
            for (int j = 0; j < nb; j++) fprintf(f, "%s%s", j ? ", " : "", by[j]);
            fputs(" | ", f);
            md_cell(f, r->dflt);
            fprintf(f, " | %s | ", keytable_status_name(r->status));
            if (r->test[0]) fprintf(f, "`%s`", r->test);
            fputs(" | ", f);
            md_cell(f, r->origin);
            fputs(" | ", f);
            md_cell(f, r->note);
            fputs(" |\n", f);
        }
    }
}
