/* Per-model lighting settings from entity keys, as ericw-tools' light reads
 * them: worldspawn's for the world (model 0) and as the default of every
 * bmodel, then each brush entity's own ("model" "*N") keys.
 *
 *   _phong, _phong_angle, _phong_group   smoothing (the world's default is
 *                                        -smooth's 44 degrees; bmodels are
 *                                        flat unless asked); -smooth/-nosmooth
 *                                        given on the command line win
 *   _minlight (0..1, 1 = 128), _minlight_color/_mincolor, _minlight_exclude,
 *   _minlight_dirt                       the floor under style 0; -minlight
 *                                        overrides worldspawn's
 *   _shadow, _shadowself/_selfshadow, _shadowworldonly
 *   _object_channel_mask, _dirt -1, _bounce -1
 *   _light_alpha, _light_twosided          translucent faces (trace.c, direct.c)
 *   _phong_angle_concave, _maxlight (0..2 as _minlight, 1 = 128),
 *   _lightignore, _minlight_mottle/_minlightMottle
 *
 * The keys of func_group and func_detail entities, whose faces are the
 * world's, come in qbsp's MAP.groupkeys side file (formats/groupkeys.h): each
 * keyset is the world's settings with the entity's keys over them, given to
 * the faces that came from it (ericw-tools' per-face "extended flags").
 * Lit after ericw-tools' qbsp, the same keys come per texinfo in its
 * MAP.texinfo.json (formats/texinfojson.h). */
#include <stdlib.h>
#include <string.h>

#include "models.h"
#include "keys.h"
#include "qrad.h"
#include "../common/mem.h"
#include "../formats/bspx.h"
#include "../formats/groupkeys.h"
#include "../formats/texinfojson.h"

#define PHONG_DEFAULT_ANGLE 89.0 /* ericw-tools' angle for "_phong" "1" */
#define MASK_MAX 0x7fffffff

static void read_model_keys(const qrad_t *q, const entity_t *e, model_keys_t *k, bool world)
{
    int phong = qrad_key_int(q, e, "_phong", -1, 0, 1);
    double angle = qrad_key_float(q, e, "_phong_angle", 0, 0, 180);
    if (phong == 0) k->phong_angle = 0;
    else if (angle > 0) k->phong_angle = angle;
    else if (phong == 1) k->phong_angle = PHONG_DEFAULT_ANGLE;
    else if (!world) k->phong_angle = 0;
    k->phong_group = qrad_key_int(q, e, "_phong_group", k->phong_group, 0, MASK_MAX);
    if (entity_get(e, "_phong_angle_concave"))
        k->phong_concave = qrad_key_float(q, e, "_phong_angle_concave", k->phong_concave, 0, 180);
    if (entity_get(e, "_maxlight"))
        k->maxlight = qrad_key_float(q, e, "_maxlight", k->maxlight / Q2_MINLIGHT_SCALE, 0, 2) * Q2_MINLIGHT_SCALE;
    const char *mk = entity_get(e, "_minlight_mottle") ? "_minlight_mottle" : "_minlightMottle";
    if (entity_get(e, mk)) k->mottle = qrad_key_int(q, e, mk, k->mottle, 0, 1) == 1;
    if (entity_get(e, "_minlight"))
        k->minlight = qrad_key_float(q, e, "_minlight", k->minlight / Q2_MINLIGHT_SCALE, 0, 1e6) * Q2_MINLIGHT_SCALE;
    vec3_t c;
    if (qrad_key_color(q, e, "_minlight_color", &c) || qrad_key_color(q, e, "_mincolor", &c)) k->minlight_color = c;
    const char *ex = entity_get(e, "_minlight_exclude");
    if (ex) snprintf(k->minlight_exclude, sizeof k->minlight_exclude, "%s", ex);
    int md = qrad_key_int(q, e, "_minlight_dirt", 0, -1, 1);
    if (md) k->minlight_dirt = md > 0;
    k->object_mask = qrad_key_int(q, e, "_object_channel_mask", world ? 1 : k->object_mask, 0, MASK_MAX);
    /* ericw-tools' per-face alpha and two-sidedness (light/trace_embree.cc
     * Face_Alpha, light/ltface.cc Lightsurf_Init): a set _light_alpha wins
     * over the face's TRANS33/66, 0 included (no tint) */
    if (entity_get(e, "_light_alpha")) k->light_alpha = qrad_key_float(q, e, "_light_alpha", 1, 0, 1);
    if (entity_get(e, "_light_twosided")) k->light_twosided = qrad_key_int(q, e, "_light_twosided", 0, 0, 1);
    if (world) return; /* worldspawn's _dirt and _bounce are global (dirt.c, below) */
    int shadow = qrad_key_int(q, e, "_shadow", 0, -1, 1);
    int self = qrad_key_int(q, e, "_shadowself", qrad_key_int(q, e, "_selfshadow", 0, 0, 1), 0, 1);
    int worldonly = qrad_key_int(q, e, "_shadowworldonly", 0, 0, 1);
    /* ericw-tools: a bmodel on channels of its own casts shadows on them
     * (its q2_light_group pillar on channel 2 shades itself). */
    bool channels = k->object_mask != 1 && shadow != -1;
    k->shadow = shadow == 1 || worldonly || channels;
    k->shadowself = shadow == 1 || self || channels;
    k->shadowworldonly = worldonly;
    k->nodirt = qrad_key_int(q, e, "_dirt", 0, -1, 1) < 0;
    k->nobounce = qrad_key_int(q, e, "_bounce", 0, -1, 1000) < 0;
    k->lightignore = qrad_key_int(q, e, "_lightignore", 0, 0, 1) == 1;
}

/* A keyset's settings: the world's with the keyset's keys over them. */
static void read_keyset(qrad_t *q, const entity_t *e, const model_keys_t *world, model_keys_t *mk)
{
    *mk = *world;
    read_model_keys(q, e, mk, true);
    mk->nodirt = qrad_key_int(q, e, "_dirt", 0, -1, 1) < 0;
    mk->nobounce = qrad_key_int(q, e, "_bounce", 0, -1, 1000) < 0;
    mk->upl = qrad_key_float(q, e, "_world_units_per_luxel", 0, 0, 1e6);
}

static bool keys_equal(const model_keys_t *a, const model_keys_t *b)
{
    return a->phong_angle == b->phong_angle && a->phong_group == b->phong_group && a->minlight == b->minlight &&
           a->minlight_color.x == b->minlight_color.x && a->minlight_color.y == b->minlight_color.y &&
           a->minlight_color.z == b->minlight_color.z && !strcmp(a->minlight_exclude, b->minlight_exclude) &&
           a->minlight_dirt == b->minlight_dirt && a->shadow == b->shadow && a->shadowself == b->shadowself &&
           a->shadowworldonly == b->shadowworldonly && a->object_mask == b->object_mask && a->nodirt == b->nodirt &&
           a->nobounce == b->nobounce && a->maxlight == b->maxlight && a->lightignore == b->lightignore &&
           a->mottle == b->mottle && a->phong_concave == b->phong_concave && a->upl == b->upl &&
           a->light_alpha == b->light_alpha && a->light_twosided == b->light_twosided;
}

/* The keysets of the MAP.groupkeys side file after the models' keys; a
 * broken file, or one of another compile, is an error. */
static bool read_groupkeys_file(qrad_t *q, const model_keys_t *world, q2err_t *err)
{
    groupkeys_t g;
    if (!groupkeys_file_decode(q->opts->groupkeys, q->opts->groupkeys_size, q->bsp, q->opts->groupkeys_name, &g, err))
        return false;
    int nm = q->nummkeys, ns = g.sets.count;
    q->mkeys = q2_realloc(q->mkeys, sizeof(model_keys_t) * (size_t)(nm + ns));
    for (int k = 0; k < ns; k++) {
        read_keyset(q, &g.sets.ents[k], world, &q->mkeys[nm + k]);
        if (q->mkeys[nm + k].object_mask != 1) q->world_channels = true;
    }
    q->nummkeys = nm + ns;
    q->face_keys = q2_malloc(sizeof(int) * (size_t)(q->bsp->numfaces > 0 ? q->bsp->numfaces : 1));
    for (int f = 0; f < q->bsp->numfaces; f++) q->face_keys[f] = g.set[f] ? nm + g.set[f] - 1 : -1;
    log_verbose(q->log, "%6d func_group/func_detail keysets from qbsp", ns);
    groupkeys_lump_free(&g);
    return true;
}

/* ericw-tools' MAP.texinfo.json: a keyset per texinfo, given to the world's
 * faces of that texinfo. The faces of brush entities keep their model's
 * keys, which qrad reads from the entity itself: ericw-tools' light lets a
 * brush entity's own keys win over the file's, and its qbsp wrote them from
 * that same entity. A keyset that comes out as the world's settings (most
 * entries only repeat worldspawn's keys) is the world's, so that such faces
 * still smooth with the rest of the world (facegeom.c). */
static bool read_texinfo_json(qrad_t *q, const model_keys_t *world, q2err_t *err)
{
    const qrad_opts_t *o = q->opts;
    const bsp_t *bsp = q->bsp;
    texinfojson_t t;
    if (!texinfojson_decode(o->texinfojson, o->texinfojson_size, bsp->numtexinfo, o->texinfojson_name, &t, err))
        return false;
    if (t.numentries != bsp->numtexinfo)
        log_warn(q->log, "%s has %d texinfo entries and the bsp %d texinfos (ericw-tools' qbsp writes one for each): "
                 "is it of another compile?", o->texinfojson_name, t.numentries, bsp->numtexinfo);
    int ns = t.sets.count, nm = q->nummkeys, used = 0;
    int *index = q2_malloc(sizeof(int) * (size_t)(ns > 0 ? ns : 1)); /* keyset -> mkeys index, -2: unread yet */
    for (int k = 0; k < ns; k++) index[k] = -2;
    q->face_keys = q2_malloc(sizeof(int) * (size_t)(bsp->numfaces > 0 ? bsp->numfaces : 1));
    for (int f = 0; f < bsp->numfaces; f++) q->face_keys[f] = -1;
    int first = 0, last = 0;
    if (bsp->nummodels > 0) {
        first = bsp->models[0].firstface;
        last = first + bsp->models[0].numfaces;
        if (first < 0 || first > bsp->numfaces) first = bsp->numfaces;
        if (last < first || last > bsp->numfaces) last = bsp->numfaces;
    }
    for (int f = first; f < last; f++) {
        int k = t.set[bsp->faces[f].texinfo] - 1;
        if (k < 0) continue;
        if (index[k] == -2) {
            model_keys_t mk;
            read_keyset(q, &t.sets.ents[k], world, &mk);
            index[k] = keys_equal(&mk, world) ? -1 : nm + used;
            for (int j = nm; j < nm + used && index[k] == nm + used; j++)
                if (keys_equal(&mk, &q->mkeys[j])) index[k] = j;
            if (index[k] == nm + used) {
                q->mkeys = q2_realloc(q->mkeys, sizeof(model_keys_t) * (size_t)(nm + used + 1));
                q->mkeys[nm + used++] = mk;
                if (mk.object_mask != 1) q->world_channels = true;
            }
        }
        q->face_keys[f] = index[k];
    }
    q->nummkeys = nm + used;
    free(index);
    char unread[256] = "";
    for (int i = 0; i < TEXINFOJSON_NUNREAD; i++)
        if (t.unread_line[i] && strlen(unread) + 64 < sizeof unread)
            snprintf(unread + strlen(unread), sizeof unread - strlen(unread), "%s%s (line %d)", unread[0] ? ", " : "",
                     texinfojson_unread_name(i), t.unread_line[i]);
    if (unread[0])
        log_verbose(q->log, "%s: qrad takes %s from entity keys only, not per texinfo", o->texinfojson_name, unread);
    log_verbose(q->log, "%6d keysets for the world's faces from %s", used, o->texinfojson_name);
    texinfojson_free(&t);
    return true;
}

/* The func_group/func_detail keys: q2map's MAP.groupkeys, or ericw-tools'
 * MAP.texinfo.json. A .groupkeys whose fingerprint matches the bsp was
 * written by q2map's qbsp for this very bsp, so it wins over a .texinfo.json
 * left by an earlier ericw-tools compile; one of another compile gives way
 * to the .texinfo.json (ericw-tools' qbsp leaves a .groupkeys alone), and
 * without one it is an error as before. */
static bool read_group_keys(qrad_t *q, const model_keys_t *world, q2err_t *err)
{
    const qrad_opts_t *o = q->opts;
    if (!o->groupkeys && !o->texinfojson) return true;
    if (o->tool_keys == QRAD_TOOL_QRAD3) {
        /* qrad3 reads no func_group keys (toolkeys.c) */
        log_warn(q->log, "-preset qrad3: qrad3 does not read the func_group keys of %s; ignored",
                 o->groupkeys ? o->groupkeys_name : o->texinfojson_name);
        return true;
    }
    if (o->groupkeys && o->texinfojson) {
        if (groupkeys_file_belongs(o->groupkeys, o->groupkeys_size, q->bsp)) {
            log_warn(q->log, "%s ignored: %s, which q2map's qbsp wrote for this bsp, gives the func_group keys",
                     o->texinfojson_name, o->groupkeys_name);
            return read_groupkeys_file(q, world, err);
        }
        log_warn(q->log, "%s ignored: it belongs to another compile of the map; the func_group keys come from %s",
                 o->groupkeys_name, o->texinfojson_name);
        return read_texinfo_json(q, world, err);
    }
    return o->groupkeys ? read_groupkeys_file(q, world, err) : read_texinfo_json(q, world, err);
}

bool qrad_models_setup(qrad_t *q, q2err_t *err)
{
    int nm = q->bsp->nummodels;
    q->mkeys = q2_calloc(nm > 0 ? nm : 1, sizeof(model_keys_t));
    model_keys_t world;
    memset(&world, 0, sizeof world);
    world.phong_angle = q->opts->smooth;
    world.minlight_color = vec3(1, 1, 1);
    world.object_mask = 1;
    world.light_alpha = -1;
    world.light_twosided = -1;
    const entity_t *ws = qrad_worldspawn(q);
    if (ws) read_model_keys(q, ws, &world, true);
    if (q->opts->minlight >= 0) world.minlight = q->opts->minlight * Q2_MINLIGHT_SCALE;
    /* Worldspawn's bounce settings (ericw-tools' names; -bounce wins). */
    q->bounces = q->opts->bounce;
    q->bouncescale = q->opts->bouncescale;
    q->bouncecolorscale = -1;
    if (ws) {
        if (!q->opts->bounce_set) q->bounces = qrad_key_int(q, ws, "_bounce", q->bounces, 0, 1000);
        q->bouncescale *= qrad_key_float(q, ws, "_bouncescale", 1, 0, 100);
        if (entity_get(ws, "_bouncecolorscale"))
            q->bouncecolorscale = qrad_key_float(q, ws, "_bouncecolorscale", 1, 0, 1);
    }
    int md = ws ? qrad_key_int(q, ws, "_minlight_dirt", 0, -1, 1) : 0;
    if (md == 0) world.minlight_dirt = q->dirt.global;
    /* Bmodels inherit the world's floor and colour, not its smoothing. */
    q->nummkeys = nm;
    for (int m = 0; m < nm; m++) {
        q->mkeys[m] = world;
        if (m > 0) q->mkeys[m].phong_angle = 0;
        /* qrad3 reads _minlight from the model's own entity alone */
        if (m > 0 && q->opts->qrad3_minlight) q->mkeys[m].minlight = 0;
    }
    for (int i = 0; i < q->ents.count; i++) {
        const entity_t *e = &q->ents.ents[i];
        const char *model = entity_get(e, "model");
        if (!model || model[0] != '*') continue;
        int m = atoi(model + 1);
        if (m <= 0 || m >= nm) continue;
        read_model_keys(q, e, &q->mkeys[m], false);
    }
    if (!read_group_keys(q, &world, err)) return false;
    for (int m = 0; m < q->nummkeys; m++) {
        model_keys_t *k = &q->mkeys[m];
        if (q->opts->smooth_set && (m == 0 || k->phong_angle > 0)) k->phong_angle = q->opts->smooth;
        if (k->object_mask != 1) q->any_channels = true;
        if (k->minlight_dirt && k->minlight > 0) q->dirt.on = true;
    }
    return true;
}

void qrad_models_free(qrad_t *q)
{
    free(q->mkeys);
    q->mkeys = NULL;
    free(q->face_keys);
    q->face_keys = NULL;
    q->nummkeys = 0;
}

bool qrad_model_blocks(const qrad_t *q, int caster, int recv, int shadow_mask)
{
    const model_keys_t *k = &q->mkeys[caster];
    if (!(k->object_mask & shadow_mask)) return false;
    if (caster == recv) return k->shadowself;
    if (!k->shadow) return false;
    return !k->shadowworldonly || recv == 0;
}
