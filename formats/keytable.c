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
    {"_tb_*", K, ANY, ED, "", QUI, "", "TB", "TrenchBroom bookkeeping (_tb_name, _tb_textures, _tb_def, _tb_mod, _tb_layer_sort_index, _tb_layer_locked, _tb_layer_hidden, _tb_layer_color, _tb_linked_group_id, _tb_transformation, _tb_protected_properties, ...): known and quiet"},
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
    {"_world_units_per_luxel", K, W | B | G, QR, "the option", HON, "test_entity_key", "ericw", "with qrad -world_units_per_luxel: the decoupled lightmap density of this entity's faces (worldspawn: the world's)"},
    {"_lightgrid", K, W, QR, "0", HON, "test_lightgrid_keys", "ericw", "1: qrad writes the BSPX LIGHTGRID_OCTREE lump, as -lightgrid"},
    {"_lightgrid_dist", K, W, QR, "32 32 32", HON, "test_lightgrid_keys", "ericw", "the light grid's spacing (-lightgrid_dist wins)"},
    {"_lightgrid_hint", K, P, QR, "0", UNT, "", "ericw", "1: the entity's origin bounds the light grid (with the other hints, when they span a box)"},
    {"_lightmap_scale", K, W, 0, "16", MNL, "", "ericw", "worldspawn's _lmscale for every model, as LMSHIFT: no Quake 2 engine reads that lump; use worldspawn _world_units_per_luxel (DECOUPLED_LM)"},
    /* ---- qrad: per brush model (the entity lump carries them; "model" "*N" names the model) ---- */
    {"_phong", K, W | B | G, QR, "0", HON, "test_phong", "ericw", "1: smooth normals over the model's edges up to _phong_angle (89); worldspawn's replaces -smooth's 44 for the world; -smooth/-nosmooth on the command line override"},
    {"_phong_angle", K, W | B | G, QR, "89", HON, "test_phong", "ericw", "largest angle smoothed"},
    {"_phong_angle_concave", K, W | B, QR, "0", NYT, "", "ericw", "largest angle smoothed at concave edges (0: _phong_angle)"},
    {"_phong_group", K, B | G, QR, "0", UNT, "", "ericw", "models of one nonzero group are smoothed together"},
    {"_minlight", K, W | B | G, QR, "0", HON, "test_minlight", "ericw", "least light (0..1 in Quake 2, 1 = 128)"},
    {"_minlight_color", K, W | B | G, QR, "255 255 255", HON, "test_minlight", "ericw", "colour of the minimum light"},
    {"_mincolor", K, W | B | G, QR, "255 255 255", UNT, "", "ericw", "alias of _minlight_color"},
    {"_minlight_exclude*", K, B | G, QR, "", HON, "test_minlight", "ericw", "texture that gets no minimum light (only _minlight_exclude is read)"},
    {"_minlight_mottle", K, B, QR, "1 (Quake 2)", NYT, "", "ericw", "mottled minimum light"},
    {"_minlightMottle", K, B, QR, "1 (Quake 2)", NYT, "", "ericw", "alias of _minlight_mottle"},
    {"_minlight_dirt", K, W | B | G, QR, "_dirt", HON, "test_minlight_dirt", "ericw", "dirtmapping applies to the minimum light"},
    {"_maxlight", K, W | B, QR, "0", NYT, "", "ericw", "light is clamped to this"},
    {"_shadow", K, B, QR, "0", HON, "test_bmodel_shadow", "ericw", "1: the model casts shadows (and on itself), traced at its origin (rotators with their origin brush); -1 on func_detail/func_group: no shadows"},
    {"_shadowself", K, B, QR, "0", HON, "test_bmodel_shadow", "ericw", "the model shadows itself only"},
    {"_selfshadow", K, B, QR, "0", UNT, "", "ericw", "alias of _shadowself"},
    {"_shadowworldonly", K, B, QR, "0", HON, "test_shadow_worldonly", "ericw", "the model shadows the world only"},
    {"_switchableshadow", K, B, QR, "0", NYT, "", "ericw", "a shadow switched by a light style"},
    {"_lightignore", K, B, QR, "0", NYT, "", "ericw", "the model gets minimum light only"},
    {"_light_alpha", K, B, QR, "", NYT, "", "ericw", "how much light passes through the model"},
    {"_object_channel_mask", K, B | G, QR, "1", HON, "test_light_channels", "ericw", "light channels the model belongs to"},
    {"_shadow_channel_mask", K, B | L, QR, "1", UNT, "", "ericw", "on a light: channels of the shadow-casting models that block it (default its _light_channel_mask); the world always blocks"},
    {"_surflight_group", K, B, QR, "0", NYT, "", "ericw", "surface lights of one group"},
    /* ---- qrad: worldspawn ---- */
    {"_sunlight", K, W, QR, "0", HON, "test_sun_and_spot", "ericw", "brightness of the sun seen through sky faces"},
    {"_sun_mangle", K, W, QR, "0 -90 0", HON, "test_sun_and_spot", "ericw", "sun direction: yaw pitch roll"},
    {"_sunlight_mangle", K, W, QR, "0 -90 0", UNT, "", "ericw", "alias of _sun_mangle"},
    {"_sunlight_color", K, W, QR, "255 255 255", UNT, "", "ericw", "sun colour"},
    {"_sunlight_penumbra", K, W | L, QR, "0", UNT, "", "ericw", "penumbra width of the sun, degrees"},
    {"_sunlight2", K, W, QR, "0", HON, "test_sky_dome", "ericw", "brightness of the upper sky dome"},
    {"_sunlight2_color", K, W, QR, "255 255 255", UNT, "", "ericw", "upper dome colour"},
    {"_sunlight_color2", K, W, QR, "255 255 255", UNT, "", "ericw", "alias of _sunlight2_color"},
    {"_sunlight3", K, W, QR, "0", HON, "test_sunlight3", "ericw", "brightness of the lower sky dome"},
    {"_sunlight3_color", K, W, QR, "255 255 255", UNT, "", "ericw", "lower dome colour"},
    {"_sunlight_color3", K, W, QR, "255 255 255", UNT, "", "ericw", "alias of _sunlight3_color"},
    {"_sunlight_dirt", K, W, QR, "_dirt", NYT, "", "ericw", "dirtmapping on sunlight"},
    {"_sunlight2_dirt", K, W, QR, "_dirt", NYT, "", "ericw", "dirtmapping on the domes"},
    {"_sun2", K, W, QR, "", UNT, "", "ericw", "a second sun (_sun2_mangle, _sun2_color); light entities with _sun 1 add suns too"},
    {"_sun2_*", K, W, QR, "", UNT, "", "ericw", "keys of the second sun (_sun2_light, _sun2_mangle, _sun2_angle, _sun2_color)"},
    {"_sun", K, W | L, QR, "", UNT, "", "q2tools", "worldspawn: targetname of the entity the sun shines from (to its target); on a light, \"1\" makes it a sun (ericw)"},
    {"_sun_light", K, W, QR, "250", UNT, "", "q2tools", "sun brightness"},
    {"_sun_color", K, W, QR, "255 255 255", UNT, "", "q2tools", "sun colour"},
    {"_sun_ambient", K, W, QR, "0", UNT, "", "q2tools", "sky-dome brightness (as _sunlight2)"},
    {"_sun_angle", K, W, QR, "", HON, "test_several_suns", "arghrad", "sun direction as an angle key"},
    {"_sun_diffuse", K, W, QR, "0", HON, "test_sun_diffuse", "arghrad", "diffuse sky light"},
    {"_sun_diffwait", K, W, QR, "1", HON, "test_sun_diffuse", "arghrad", "diffuse sunlight fade (the spelling the spirit maps use; arghrad documents _sun_difwait)"},
    {"_sun_difwait", K, W, QR, "1", UNT, "", "arghrad", "scales how fast the diffuse sunlight fades (about 64 units at 1)"},
    {"_sun_diffade", K, W, QR, "1", UNT, "", "arghrad", "alias of _sun_difwait"},
    {"_sun_style", K, W, QR, "0", NYT, "", "arghrad", "light style of the sun"},
    {"_sun_target", K, W, QR, "", NYT, "", "arghrad", "as _sun: the sun shines from the named entity to its target"},
    {"_sun_vector", K, W, QR, "", NYT, "", "arghrad", "sun direction as a vector"},
    {"_sun_surface", K, W, QR, "", NYT, "", "arghrad", "1: sun colour from the sky surfaces, or r g b"},
    {"_sun3_*", K, W, QR, "", HON, "test_several_suns", "arghrad", "third to ninth suns (_sun3_light, _sun3_mangle or _sun3_angle, _sun3_color; the same for 4..9)"},
    {"_sun4_*", K, W, QR, "", UNT, "", "arghrad", "as _sun3_*"},
    {"_sun5_*", K, W, QR, "", UNT, "", "arghrad", "as _sun3_*"},
    {"_sun6_*", K, W, QR, "", UNT, "", "arghrad", "as _sun3_*"},
    {"_sun7_*", K, W, QR, "", UNT, "", "arghrad", "as _sun3_*"},
    {"_sun8_*", K, W, QR, "", UNT, "", "arghrad", "as _sun3_*"},
    {"_sun9_*", K, W, QR, "", UNT, "", "arghrad", "as _sun3_*"},
    {"_ambient", K, W, QR, "0", HON, "test_arghrad_ambient", "arghrad", "light added to every style-0 luxel: one brightness or r g b (0..255)"},
    {"_dirt", K, W | L | B | G, QR, "-1", HON, "test_dirt", "ericw", "1: ambient occlusion (dirtmapping); on a light, its own setting; -1 on a model: none"},
    {"_dirtmode", K, W, QR, "0", HON, "qrad_keys", "ericw", "0 ordered, 1 jittered (deterministic) rays"},
    {"_dirtdepth", K, W, QR, "128", HON, "test_minlight_dirt", "ericw", "occlusion ray length"},
    {"_dirtscale", K, W | L, QR, "1", UNT, "", "ericw", "occlusion strength (worldspawn; per light not yet)"},
    {"_dirtgain", K, W | L, QR, "1", UNT, "", "ericw", "occlusion exponent (worldspawn; per light not yet)"},
    {"_dirtangle", K, W, QR, "88", UNT, "", "ericw", "occlusion cone, 1..90 degrees"},
    {"_bounce", K, W | L | B | G, QR, "8 (qrad's -bounce)", HON, "test_bounce_keys", "ericw", "worldspawn: the number of bounces (0 = none; -bounce wins); -1 on a model: it reflects no light into the bounces"},
    {"_bouncescale", K, W | L, QR, "1", HON, "test_bounce_keys", "ericw", "bounce brightness"},
    {"_bouncecolorscale", K, W, QR, "texture colour as is", UNT, "", "ericw", "0: bounces grey (the texture's mean), 1: the texture's colour"},
    {"_bouncestyled", K, W, QR, "0", NYT, "", "ericw", "styled lights bounce too"},
    {"_dist", K, W, QR, "1", NYT, "", "ericw", "scales every light's fade distance"},
    {"_range", K, W, QR, "0.5", NYT, "", "ericw", "scales every light's brightness"},
    {"_gamma", K, W, QR, "1", NYT, "", "ericw", "lightmap gamma"},
    {"_anglescale", K, W | L, QR, "1 (qrad3's cosine; ericw 0.5)", HON, "test_falloff_delay", "ericw", "weight of the incidence angle: (1 - a) + a cos"},
    {"_anglesense", K, W | L, QR, "1", UNT, "", "ericw", "alias of _anglescale"},
    {"_spotlightautofalloff", K, W, QR, "0", NYT, "", "ericw", "spotlight falloff from the target's distance"},
    {"_surflightscale", K, W, QR, "1 (qrad's)", HON, "test_surflightscale", "ericw", "surface-light brightness, relative to qrad's -direct"},
    {"_surflightskyscale", K, W, QR, "1", UNT, "", "ericw", "brightness of sky faces that emit, relative to qrad's"},
    {"_surflight_radiosity", K, W, QR, "1 (Quake 2)", NYT, "", "ericw", "Quake 2 style surface lights"},
    {"_surflight_atten", K, W | L, QR, "1", NYT, "", "ericw", "surface-light attenuation"},
    {"_surflight_minlight_scale", K, W, QR, "", NYT, "", "ericw", "minimum light from surface lights"},
    {"_surflight_rescale", K, L, QR, "1", NYT, "", "ericw", "surface light from a light template is rescaled"},
    {"_tex_saturation_boost", K, W, QR, "0", NYT, "", "ericw", "texture colour saturation for bounce"},
    {"_compilerstyle_start", K, W, QR, "32", NYT, "", "ericw", "first light style given to switchable lights (qbsp assigns from 32 today)"},
    {"_compilerstyle_max", K, W, QR, "64", NYT, "", "ericw", "last such style"},
    /* ---- qrad: lights ---- */
    {"light", K, L, QR, "300", HON, "test_point_falloff", "id", "brightness"},
    {"_light", K, L, QR, "300", UNT, "", "id", "alias of light"},
    {"_color", K, L, QR, "255 255 255", UNT, "", "qrad3", "light colour (0..1 or 0..255)"},
    {"style", K, L, QR | QB, "0", HON, "test_sun_and_spot", "id", "light style; qbsp gives targeted lights 32+"},
    {"_style", K, L, QR, "0", UNT, "", "q2tools", "alias of style"},
    {"_cone", K, L, QR, "10", HON, "test_sun_and_spot", "qrad3", "spotlight cone, degrees"},
    {"angle", K, L, QR, "0", HON, "test_sun_and_spot", "id", "light_spot direction (-1 up, -2 down); in ericw-tools it is the spotlight cone (40)"},
    {"target", K, L, QR, "", UNT, "", "id", "spotlight aimed at this entity"},
    {"mangle", K, L, QR, "", UNT, "", "ericw", "spotlight direction yaw pitch roll"},
    {"_mangle", K, L, QR, "", UNT, "", "q2tools", "alias of mangle"},
    {"_falloff", K, L, QR, "0", HON, "test_falloff_delay", "q2tools", "0 linear, 1 inverse, 2 inverse square, 3 none (q2tools' meaning); above 3: ericw-tools' distance where a linear light reaches 0"},
    {"delay", K, L, QR, "0", HON, "test_falloff_delay", "ericw", "falloff type when _falloff is absent: 0 linear, 1 inverse, 2 inverse square, 3 none, 4 local minlight, 5 inverse square without the bright core"},
    {"wait", K, L, QR, "1", UNT, "", "id", "scales the fade distance"},
    {"_wait", K, L, QR, "1", UNT, "", "q2tools", "alias of wait"},
    {"_deviance", K, L, QR, "0", HON, "test_deviance", "ericw", "soft shadows: the light is spread over a sphere of this radius"},
    {"_samples", K, L, QR, "16", HON, "test_deviance", "ericw", "number of copies for _deviance"},
    {"_softangle", K, L, QR, "0", NYT, "", "ericw", "spotlight inner cone"},
    {"_light_channel_mask", K, L | B, QR, "1", HON, "test_light_channels", "ericw", "light channels the light lights (on models: the channels lighting them)"},
    {"_suntexture", K, L, QR, "", NYT, "", "ericw", "a _sun light shines only from sky faces of this texture"},
    {"targetname", K, L, QB | QR, "", HON, "test_light_targetname_style", "id", "a targeted light is switchable: qbsp gives each light targetname a style from 32"},
    {"_nostaticlight", K, L, QR, "0", NYT, "", "ericw", "the light is not baked"},
    {"_surface", K, L, QR, "", NYT, "", "ericw", "the light is copied onto every face with this texture"},
    {"_surface_offset", K, L, QR, "2", NYT, "", "ericw", "distance of those copies from the face"},
    {"_surface_spotlight", K, L, QR, "0", NYT, "", "ericw", "those copies shine along the face normal"},
    {"_surflight_color", K, L, QR, "", NYT, "", "ericw", "colour of a surface-light template"},
    {"_surflight_style", K, L, QR, "", NYT, "", "ericw", "style of a surface-light template"},
    {"_surflight_targetname", K, L, QR, "", NYT, "", "ericw", "switchable surface lights"},
    {"_project_texture", K, L, QR, "", NYT, "", "ericw", "texture projected by the light"},
    {"_project_mangle", K, L, QR, "", NYT, "", "ericw", "projection direction"},
    {"_project_fov", K, L, QR, "90", NYT, "", "ericw", "projection field of view"},
    {"_angwait", K, L, QR, "", NYT, "", "q2tools", "angle falloff"},
    {"_fade", K, L, QR, "", NYT, "", "arghrad", "arghrad's wait"},
    {"_angfade", K, L, QR, "", NYT, "", "arghrad", "arghrad's angle falloff"},
    {"_distance", K, L, QR, "", NYT, "", "arghrad", "arghrad's falloff distance"},
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
    {"-bounce", O, 0, QR, "", NYT, "", "ericw, q2tools", "light/qrad bounces"},
    {"-dirt", O, 0, QR, "", HON, "test_dirt", "ericw", "ambient occlusion"},
    {"-minlight", O, 0, QR, "", HON, "test_minlight", "ericw", "minimum light"},
    {"-extra", O, 0, QR, "", UNT, "", "ericw, id", "qrad -extra"},
    {"-soft", O, 0, QR, "", NYT, "", "ericw", "lightmap smoothing"},
    {"-world_units_per_luxel", O, 0, QR, "", HON, "test_decoupled_density", "ericw", "BSPX DECOUPLED_LM lightmaps at N units per luxel"},
    {"-novanilla", O, 0, QR, "", HON, "qrad_bspx", "ericw", "with -world_units_per_luxel: no vanilla lightmaps"},
    {"-lightgrid", O, 0, QR, "", HON, "test_grid_agrees_with_lightmaps", "ericw", "BSPX LIGHTGRID_OCTREE"},
    {"-lightgrid_dist", O, 0, QR, "32 32 32", HON, "test_lightgrid_keys", "ericw", "the light grid's spacing"},
    {"-wrnormals", O, 0, QR, "", HON, "test_face_normals", "ericw", "BSPX FACENORMALS"},
    {"-lit", O, 0, 0, "", MNL, "", "ericw", "Quake 1 .lit: Quake 2 lightmaps are RGB already"},
    {"-ambient", O, 0, QR, "", NYT, "", "id, q2tools", "light added everywhere"},
    {"-maxlight", O, 0, QR, "", NYT, "", "id, q2tools", "clamp"},
    {"-scale", O, 0, QR, "1", UNT, "", "id, q2tools", "qrad -scale"},
    {"-direct", O, 0, QR, "1", UNT, "", "id, q2tools", "qrad -direct"},
    {"-entity", O, 0, QR, "1", UNT, "", "id, q2tools", "qrad -entity"},
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
 * Q2MAP_GROUPKEYS lump). */
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
          "  lighting keys marked G to qrad per face, in the bsp's Q2MAP_GROUPKEYS BSPX lump),\n"
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
