/* Surface lights, as ericw-tools' light makes them in Quake 2 mode:
 *
 *   - SURF_LIGHT faces of the world: the texinfo's value is the light,
 *     times the texture's reflectivity (qrad3's rule), cut into area lights
 *     of uniform exitance; worldspawn's _surflightscale and
 *     _surflightskyscale scale them, _surflight_atten fades them faster
 *     (1/atten^2, ericw's atten * distance), _surflight_rescale 1 weighs
 *     both angles as ericw does, 0.5 + 0.5 cos (faces at right angles to
 *     the light get half, not nothing);
 *   - light templates: a light entity with "_surface" "TEXTURE" is copied
 *     onto every face with that texture instead of lighting by itself.
 *     Quake 2 style (_surflight_radiosity 1, ericw's Quake 2 default, or the
 *     light's _surface_radiosity): each face emits like a SURF_LIGHT face
 *     of value "light" (its _color, else the texture's), on any model, with
 *     the template's style, _surflight_atten and _surflight_rescale, and
 *     only faces of brush entities with the template's _surflight_group
 *     when both have one. Quake 1 style (0): the light itself is copied,
 *     _surface_offset (2) units in front of the centre of every piece of
 *     the world's faces cut at surflight_subdivide (128) units, shining
 *     along the face's normal with _surface_spotlight 1;
 *   - brush entities' _surflight_color, _surflight_style (or the style of
 *     the switchable lights named by _surflight_targetname), _surflight_atten,
 *     _surflight_rescale for what their faces emit from a template;
 *   - _tex_saturation_boost (worldspawn, 0..1): texture colours (emitted
 *     here, bounced in bounce.c) more saturated, as ericw emulates qrad3;
 *   - _surflight_minlight_scale (worldspawn, brush entities): an emitting
 *     face is lit at least value * scale in its colour (applied with the
 *     other floors, after the bounces).
 * Without any of these keys every surface light is exactly what it was:
 * qrad3's model (exact polygon form factors). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "surflights.h"
#include "color.h"
#include "facegeom.h"
#include "keys.h"
#include "qrad.h"
#include "trace.h"
#include "../common/crmath.h"
#include "../common/dist.h"
#include "../common/mem.h"

/* ericw-tools' surflight_subdivide: Quake 1 style template copies are made
 * on pieces of this size. */
#define Q1_SUBDIVIDE 128.0
/* ericw's GLQuake subdivision keeps a piece whole when either side of the
 * cut would be thinner than this. */
#define Q1_MIN_PIECE 8.0
/* ericw clamps a surface light's distance at this many units (no hotspot
 * under a light piece) in its rescaled model. */
#define SURF_HOTSPOT_CLAMP 16.0
/* ericw's LIGHT_ANGLE_EPSILON: a receiver this little behind the emitter's
 * plane (cosine) still counts as beside it. */
#define SURF_ANGLE_EPSILON 0.01


/* Brush-entity settings of a face's model (worldspawn's for the world). */
typedef struct face_keys_t {
    int group;       /* _surflight_group; 0 = none */
    double atten;    /* < 0: the light's */
    int rescale;     /* -1: the light's */
    int style;       /* -1: the light's */
    bool has_color;
    vec3_t color;
    double minlight_scale;
} face_keys_t;

/* The settings of one emitter: a SURF_LIGHT face or a template. */
typedef struct emitter_t {
    double value;
    bool has_color;
    vec3_t color; /* 0..1 */
    int style;
    double atten;
    bool rescale;
    double scale;
} emitter_t;

static int model_entity(const qrad_t *q, int model)
{
    if (model == 0) return -1;
    char want[16];
    snprintf(want, sizeof want, "*%d", model);
    for (int i = 0; i < q->ents.count; i++) {
        const char *m = entity_get(&q->ents.ents[i], "model");
        if (m && !strcmp(m, want)) return i;
    }
    return -1;
}

static void read_face_keys(const qrad_t *q, const entity_t *e, face_keys_t *k, const face_keys_t *dflt)
{
    *k = *dflt;
    if (!e) return;
    k->group = qrad_key_int(q, e, "_surflight_group", dflt->group, 0, 0x7fffffff);
    if (entity_get(e, "_surflight_atten")) k->atten = qrad_key_float(q, e, "_surflight_atten", 1, 0.01, 100);
    if (entity_get(e, "_surflight_rescale")) k->rescale = qrad_key_int(q, e, "_surflight_rescale", 1, 0, 1);
    if (entity_get(e, "_surflight_style")) k->style = qrad_key_int(q, e, "_surflight_style", 0, 0, 254);
    const char *tn = entity_get(e, "_surflight_targetname");
    if (tn && tn[0]) {
        /* ericw: the style of the switchable lights of that name (qbsp gave
         * them one from 32), so they switch together. */
        int style = -1;
        for (int i = 0; i < q->ents.count && style < 0; i++) {
            const entity_t *l = &q->ents.ents[i];
            const char *n = entity_get(l, "targetname");
            if (n && !strcmp(n, tn) && !strncmp(entity_classname(l), "light", 5))
                style = qrad_key_int(q, l, "style", 0, 0, 254);
        }
        if (style > 0) k->style = style;
        else
            log_warn(q->log, "entity %d (%s, line %d): \"_surflight_targetname\" \"%s\": no switchable light of that "
                     "name; its surface lights are not switched", (int)(e - q->ents.ents), entity_classname(e),
                     qrad_key_line(e, "_surflight_targetname"), tn);
    }
    vec3_t c;
    if (qrad_key_color(q, e, "_surflight_color", &c)) k->has_color = true, k->color = c;
    if (entity_get(e, "_surflight_minlight_scale"))
        k->minlight_scale = qrad_key_float(q, e, "_surflight_minlight_scale", dflt->minlight_scale, 0, 510);
}

/* qrad3's reflectivity of an emitting texture and its hue: the brightest
 * channel raised to at most twice the average (1 at most), 0.5 for a
 * texture it cannot load. A .wal_json "color" is the colour of a texture
 * without an image, as ericw-tools reads it (its q2_light_group: orange
 * light from baselt_5's 255 128 64). */
static double texture_emission(const qrad_t *q, const char *tex, vec3_t *hue, vec3_t *avg)
{
    double rgb[3] = {1, 1, 1}, refl = 0.5;
    *avg = vec3(0.5, 0.5, 0.5);
    bool found = q->texdb && texdb_has_color(q->texdb, tex);
    if (found) {
        texdb_average_color(q->texdb, tex, rgb);
        if (q->tex_saturation_boost > 0) {
            vec3_t b = qrad_saturation_boost(vec3(rgb[0], rgb[1], rgb[2]), q->tex_saturation_boost);
            rgb[0] = b.x, rgb[1] = b.y, rgb[2] = b.z;
        }
        double mx = fmax(rgb[0], fmax(rgb[1], rgb[2]));
        refl = mx < 0.5 ? 2 * mx : 1.0;
        *avg = vec3(rgb[0], rgb[1], rgb[2]);
    }
    if (q->opts->surflight_texcolor) {
        /* ericw-tools: the light is value x the texture's average colour
         * (its brightest channel); a texture it cannot load gives none, as
         * its light showed on a bsp lit without textures (docs/qrad.md). */
        refl = found ? fmax(rgb[0], fmax(rgb[1], rgb[2])) : 0;
        if (!found) *avg = vec3(0, 0, 0);
    }
    double m = fmax(rgb[0], fmax(rgb[1], rgb[2]));
    *hue = m > 0 ? vec3(rgb[0] / m, rgb[1] / m, rgb[2] / m) : vec3(1, 1, 1);
    return refl;
}

/* A piece of a bmodel's surface light partly in a solid (its light face
 * reaching into a wall, ericw-tools' q2_surface_lights_culling) is cut in
 * halves on its longest axis down to this size, so only the part inside
 * the level emits: a piece whose corners and centre (lifted off the face,
 * pulled SURF_CULL_INSET towards the centre) are all in a solid is dropped,
 * one with some of them in a solid is cut, and one of this size is kept
 * when its centre is not in a solid. */
#define SURF_CULL_PIECE 2.0
#define SURF_CULL_INSET 0.5

/* How many of the piece's corners and centre are in a solid (of n + 1). */
static int piece_in_solid(const qrad_t *q, const winding_t *w, vec3_t normal, bool *centre)
{
    vec3_t c = winding_center(w);
    int count = 0;
    *centre = qrad_point_solid(q->bsp, vec_ma(c, SAMPLE_NUDGE, normal));
    count += *centre;
    for (int k = 0; k < w->numpoints; k++) {
        double len;
        vec3_t in = vec_normalize(vec_sub(c, w->p[k]), &len);
        vec3_t p = vec_ma(w->p[k], fmin(SURF_CULL_INSET, 0.5 * len), in);
        count += qrad_point_solid(q->bsp, vec_ma(p, SAMPLE_NUDGE, normal));
    }
    return count;
}

/* Cuts the face into pieces no larger than chop on each world axis; each
 * piece is an area light of uniform exitance. */
/* The pieces go to (*out, *n, *cap): made on the rank's threads, then
 * appended to the lights in face order. */
static void emit_face(const qrad_t *q, int fi, const emitter_t *em, double chop, light_t **out, int *n, int *cap)
{
    const rface_t *f = &q->faces[fi];
    const dtexinfo_t *ti = &q->bsp->texinfo[q->bsp->faces[fi].texinfo];
    vec3_t col, avg;
    double refl = texture_emission(q, ti->texture, &col, &avg);
    (void)avg;
    if (em->has_color) {
        double m = fmax(em->color.x, fmax(em->color.y, em->color.z));
        col = m > 0 ? vec_scale(em->color, 1.0 / m) : vec3(1, 1, 1);
        refl = 1;
    }
    /* qrad3's emit_surface: irradiance = value * direct_scale * area *
     * cos * cos / d^2, which is a uniform emitter of exitance
     * value * direct_scale * pi. The colour keeps its hue at the
     * brightest channel's level, as qrad3's ColorNormalize. ericw's atten
     * multiplies the distance: 1/atten^2 of the light everywhere beyond its
     * hotspot clamp. */
    double exitance = em->value * refl * q->opts->direct * M_PI * em->scale / (em->atten * em->atten);
    if (!(exitance > 0)) return;
    winding_t *queue[1024];
    int nq = 0;
    winding_t *w = winding_alloc(f->numpoints);
    w->numpoints = f->numpoints;
    for (int k = 0; k < f->numpoints; k++) w->p[k] = f->points[k];
    queue[nq++] = w;
    while (nq > 0) {
        winding_t *cur = queue[--nq];
        aabb_t b = winding_bounds(cur);
        bool split = false;
        /* Split on axial planes at multiples of chop. */
        for (int ax = 0; ax < 3 && !split; ax++) {
            double lo = vec_comp(b.mins, ax), hi = vec_comp(b.maxs, ax);
            if (hi - lo <= chop + ON_EPSILON) continue;
            double cut = floor((lo + chop) / chop) * chop;
            if (cut <= lo + ON_EPSILON) cut += chop;
            if (cut >= hi - ON_EPSILON || nq + 2 > 1024) continue;
            vec3_t n = vec3(0, 0, 0);
            vec_set_comp(&n, ax, 1);
            winding_t *fr, *bk;
            winding_split(cur, n, cut, ON_EPSILON, &fr, &bk);
            if (fr && bk) {
                winding_free(cur);
                queue[nq++] = fr;
                queue[nq++] = bk;
                split = true;
            } else {
                winding_free(fr);
                winding_free(bk);
            }
        }
        if (split) continue;
        /* Only a bmodel's light faces reach into walls (qbsp clips the
         * world's to the level). */
        bool centre = false;
        int solid = f->model != 0 ? piece_in_solid(q, cur, f->normal, &centre) : 0;
        if (solid > 0) {
            int ax = 0;
            double ext[3];
            for (int k = 0; k < 3; k++) ext[k] = vec_comp(b.maxs, k) - vec_comp(b.mins, k);
            for (int k = 1; k < 3; k++)
                if (ext[k] > ext[ax]) ax = k;
            bool small = ext[ax] <= SURF_CULL_PIECE + ON_EPSILON;
            winding_t *fr = NULL, *bk = NULL;
            if (small && !centre) goto emit;
            if (!small && solid <= cur->numpoints && nq + 2 <= 1024) {
                vec3_t nn = vec3(0, 0, 0);
                vec_set_comp(&nn, ax, 1);
                winding_split(cur, nn, 0.5 * (vec_comp(b.mins, ax) + vec_comp(b.maxs, ax)), ON_EPSILON, &fr, &bk);
            }
            winding_free(cur);
            if (fr && bk) {
                queue[nq++] = fr;
                queue[nq++] = bk;
            } else {
                winding_free(fr);
                winding_free(bk);
            }
            continue;
        }
    emit:;
        double area = winding_area(cur);
        if (area > DEGENERATE_EPSILON) {
            light_t l;
            memset(&l, 0, sizeof l);
            l.type = LIGHT_SURFACE;
            l.face = fi;
            l.dir = f->normal;
            l.area = area;
            l.origin = winding_center(cur);
            l.color = vec_scale(col, exitance);
            l.intensity = exitance;
            l.style = em->style;
            l.light_mask = l.shadow_mask = 1;
            l.dirt = q->dirt.global;
            l.bouncescale = 1;
            l.anglescale = 1;
            l.rescale = em->rescale;
            l.numpoints = cur->numpoints;
            l.points = q2_malloc(sizeof(vec3_t) * cur->numpoints);
            memcpy(l.points, cur->p, sizeof(vec3_t) * cur->numpoints);
            /* Rescaled pieces never exceed the unrescaled light beyond the
             * clamp, so the same range bounds both. */
            l.range = sqrt(exitance * area / (M_PI * LIGHT_CUTOFF));
            l.cluster = qrad_point_cluster(q->bsp, vec_ma(l.origin, SAMPLE_NUDGE, f->normal));
            ARRAY_PUSH(*out, *n, *cap, l);
        }
        winding_free(cur);
    }
}

/* qrad3's DIRECT_LIGHT: a light face whose emission (value times its
 * texture's reflectivity, per channel) reaches this in any channel has that
 * emission added to its own style-0 lightmap (its BuildFacelights: "the
 * texture itself should still be full bright"), and only such a face's
 * patches become direct lights (its CreateDirectLights). */
#define QRAD3_DIRECT_LIGHT 3.0

/* qrad3's base light of a light face (value times its texture's
 * reflectivity, per channel); whether it reaches QRAD3_DIRECT_LIGHT. */
static bool qrad3_base_light(const qrad_t *q, const dtexinfo_t *ti, double value, vec3_t *base)
{
    vec3_t hue, avg;
    double refl = texture_emission(q, ti->texture, &hue, &avg);
    *base = vec_scale(hue, refl * value);
    return base->x >= QRAD3_DIRECT_LIGHT || base->y >= QRAD3_DIRECT_LIGHT || base->z >= QRAD3_DIRECT_LIGHT;
}

/* -preset qrad3: its surface lights (lightmap.c CreateDirectLights and
 * GatherSampleLight, patches.c MakePatchForFace and DicePatch). The face's
 * winding, collinear points removed, is diced by the global grid of -chop
 * units: a piece is cut, on the first axis where it does, at the first grid
 * line past its mins when (mins + 1) and (maxs - 1) fall in different grid
 * cells. Each piece is a point a unit in front of the mean of its points,
 * giving base light * area * -direct * cos * cos / d^2 (area at least 1),
 * where the base light is value times the texture's reflectivity; a face
 * whose base light is under 3 in every channel sends nothing, and a piece
 * whose point is in a solid leaf is in no cluster and lights nothing. */
static void emit_face_qrad3(const qrad_t *q, int fi, const emitter_t *em, double chop, light_t **out, int *n, int *cap)
{
    const rface_t *f = &q->faces[fi];
    const dtexinfo_t *ti = &q->bsp->texinfo[q->bsp->faces[fi].texinfo];
    vec3_t base;
    if (!qrad3_base_light(q, ti, em->value, &base)) return;
    vec3_t col = vec_scale(base, q->opts->direct * em->scale);
    winding_t *queue[1024];
    int nq = 0;
    winding_t *w = winding_alloc(f->numpoints);
    w->numpoints = f->numpoints;
    for (int k = 0; k < f->numpoints; k++) w->p[k] = f->points[k];
    queue[nq++] = winding_remove_colinear(w, ON_EPSILON);
    while (nq > 0) {
        winding_t *cur = queue[--nq];
        aabb_t b = winding_bounds(cur);
        int ax = 0;
        for (; ax < 3; ax++)
            if (floor((vec_comp(b.mins, ax) + 1) / chop) < floor((vec_comp(b.maxs, ax) - 1) / chop)) break;
        if (ax < 3 && nq + 2 <= 1024) {
            vec3_t nn = vec3(0, 0, 0);
            vec_set_comp(&nn, ax, 1);
            winding_t *fr, *bk;
            winding_split(cur, nn, chop * (1 + floor((vec_comp(b.mins, ax) + 1) / chop)), ON_EPSILON, &fr, &bk);
            if (fr && bk) {
                winding_free(cur);
                queue[nq++] = fr;
                queue[nq++] = bk;
                continue;
            }
            winding_free(fr);
            winding_free(bk);
        }
        double area = winding_area(cur);
        light_t l;
        memset(&l, 0, sizeof l);
        l.type = LIGHT_SURFACE;
        l.point_emitter = true;
        l.face = fi;
        l.dir = f->normal;
        l.area = area > 1 ? area : 1;
        l.origin = winding_center(cur);
        l.color = col;
        l.intensity = fmax(col.x, fmax(col.y, col.z));
        l.style = em->style;
        l.light_mask = l.shadow_mask = 1;
        l.bouncescale = 1;
        l.anglescale = 1;
        l.numpoints = cur->numpoints;
        l.points = q2_malloc(sizeof(vec3_t) * cur->numpoints);
        memcpy(l.points, cur->p, sizeof(vec3_t) * cur->numpoints);
        l.range = 2 * WORLD_EXTENT; /* no falloff cut: it lights all it sees */
        l.cluster = qrad_point_cluster(q->bsp, vec_ma(l.origin, SAMPLE_NUDGE, f->normal));
        winding_free(cur);
        if (q->pvs && l.cluster < 0) {
            free(l.points);
            continue;
        }
        ARRAY_PUSH(*out, *n, *cap, l);
    }
}

/* _surflight_minlight_scale: an emitting face is lit at least value *
 * scale in its colour (ericw: the texture's average; 0.5 grey without
 * textures, as ericw's 127). */
/* One face's share of qrad_surface_lights: its pieces and the two floors
 * it may ask for (a bmodel's emitter's, a world emitter's). */
typedef struct face_emission_t {
    light_t *pieces;
    int npieces, cap;
    double floor_level[2];
    vec3_t floor_color[2];
    vec3_t self; /* qrad3: its emission, added to its own lightmap */
} face_emission_t;


static void add_floor(qrad_t *q, int fi, double level, vec3_t color)
{
    if (!(level > 0)) return;
    if (!q->surf_floor) q->surf_floor = q2_calloc(q->bsp->numfaces > 0 ? q->bsp->numfaces : 1, sizeof(vec3_t));
    vec3_t *fl = &q->surf_floor[fi];
    *fl = vec_max(*fl, vec_scale(color, level));
}

/* GLQuake's SubdividePolygon as ericw-tools uses it for Quake 1 style
 * templates: cut at the multiple of size nearest the middle, on each axis
 * in turn, unless a side would be thinner than Q1_MIN_PIECE; each final
 * piece gets a copy of the template's light. */
typedef struct q1copy_t {
    qrad_t *q;
    const light_t *proto;
    int nproto;
    vec3_t proto_origin;
    vec3_t normal;
    double offset;
    bool spotlight;
    double stopdot;
} q1copy_t;

static void q1_subdivide(const q1copy_t *c, winding_t *w, int depth)
{
    aabb_t b = winding_bounds(w);
    for (int ax = 0; ax < 3 && depth < 64; ax++) {
        double lo = vec_comp(b.mins, ax), hi = vec_comp(b.maxs, ax);
        double m = Q1_SUBDIVIDE * floor((lo + hi) * 0.5 / Q1_SUBDIVIDE + 0.5);
        if (hi - m < Q1_MIN_PIECE || m - lo < Q1_MIN_PIECE) continue;
        vec3_t n = vec3(0, 0, 0);
        vec_set_comp(&n, ax, 1);
        winding_t *fr, *bk;
        winding_split(w, n, m, ON_EPSILON, &fr, &bk);
        if (fr && bk) {
            q1_subdivide(c, fr, depth + 1);
            q1_subdivide(c, bk, depth + 1);
            winding_free(fr);
            winding_free(bk);
            return;
        }
        winding_free(fr);
        winding_free(bk);
    }
    vec3_t at = vec_ma(winding_center(w), c->offset, c->normal);
    for (int k = 0; k < c->nproto; k++) {
        light_t l = c->proto[k];
        l.origin = vec_add(at, vec_sub(l.origin, c->proto_origin));
        if (c->spotlight) {
            l.type = LIGHT_SPOT;
            l.dir = c->normal;
            l.stopdot = c->stopdot;
        }
        l.cluster = qrad_point_cluster(c->q->bsp, l.origin);
        ARRAY_PUSH(c->q->lights, c->q->numlights, c->q->caplights, l);
    }
}

static bool face_emits_template(const qrad_t *q, int fi, const char *tex, int group, const face_keys_t *fk)
{
    const rface_t *f = &q->faces[fi];
    if (f->numpoints < 3 || f->sky || !f->lit) return false;
    if (strcasecmp(q->bsp->texinfo[q->bsp->faces[fi].texinfo].texture, tex)) return false;
    /* ericw: a face of a group lights only from templates of no group or
     * of its own; a face of no group from every template. */
    return !(fk->group && group && fk->group != group);
}

static void templates(qrad_t *q, const face_keys_t *fkeys, double chop, bool radiosity_default,
                      const emitter_t *world)
{
    for (int i = 0; i < q->ents.count; i++) {
        const entity_t *e = &q->ents.ents[i];
        if (!qrad_surface_template(e)) continue;
        const char *tex = entity_get(e, "_surface");
        int radiosity = qrad_key_int(q, e, "_surface_radiosity", radiosity_default ? 1 : 0, 0, 1);
        int group = qrad_key_int(q, e, "_surflight_group", 0, 0, 0x7fffffff);
        int matched = 0;
        if (radiosity) {
            emitter_t em = *world;
            double light = qrad_key_float(q, e, "light", qrad_key_float(q, e, "_light", 300, -1e6, 1e6), -1e6, 1e6);
            em.value = light;
            em.has_color = qrad_key_color(q, e, "_color", &em.color);
            em.style = qrad_key_int(q, e, "style", qrad_key_int(q, e, "_style", 0, 0, 254), 0, 254);
            if (entity_get(e, "_surflight_atten")) em.atten = qrad_key_float(q, e, "_surflight_atten", 1, 0.01, 100);
            if (entity_get(e, "_surflight_rescale"))
                em.rescale = qrad_key_int(q, e, "_surflight_rescale", 1, 0, 1) != 0;
            else em.rescale = world->rescale;
            double mscale = qrad_key_float(q, e, "_surflight_minlight_scale", 1, 0, 510);
            for (int fi = 0; fi < q->bsp->numfaces; fi++) {
                const face_keys_t *fk = &fkeys[q->faces[fi].model];
                if (!face_emits_template(q, fi, tex, group, fk)) continue;
                emitter_t fe = em;
                if (fk->atten > 0) fe.atten = fk->atten;
                if (fk->rescale >= 0) fe.rescale = fk->rescale != 0;
                if (fk->style >= 0) fe.style = fk->style;
                if (fk->has_color) fe.has_color = true, fe.color = fk->color;
                int before = q->numlights;
                emit_face(q, fi, &fe, chop, &q->lights, &q->numlights, &q->caplights);
                q->surface_pieces += q->numlights - before;
                vec3_t hue, avg;
                texture_emission(q, q->bsp->texinfo[q->bsp->faces[fi].texinfo].texture, &hue, &avg);
                if (fe.style == 0) add_floor(q, fi, fe.value * mscale * fk->minlight_scale, fe.has_color ? fe.color : avg);
                matched++;
            }
        } else {
            /* Quake 1 style: the template's own light, copied. */
            int before = q->numlights;
            if (!qrad_light_from_entity(q, e, i)) continue;
            int n = q->numlights - before;
            if (n <= 0) continue;
            light_t *proto = q2_malloc(sizeof(light_t) * n);
            memcpy(proto, q->lights + before, sizeof(light_t) * n);
            q->numlights = before;
            q1copy_t c = {q, proto, n, vec3(0, 0, 0), vec3(0, 0, 1), 2, false, 0};
            entity_get_vec3(e, "origin", &c.proto_origin);
            c.offset = qrad_key_float(q, e, "_surface_offset", 2, -1e4, 1e4);
            if (c.offset == 0) c.offset = 2; /* ericw: 0 is its default */
            c.spotlight = qrad_key_int(q, e, "_surface_spotlight", 0, 0, 1) != 0;
            double cone = qrad_key_float(q, e, "_cone", 10, 0, 180);
            c.stopdot = cr_cos((cone > 0 ? cone : 10) * M_PI / 180.0);
            for (int fi = 0; fi < q->bsp->numfaces; fi++) {
                const rface_t *f = &q->faces[fi];
                /* ericw makes these from the world's leaves' faces only. */
                if (f->model != 0 || !face_emits_template(q, fi, tex, group, &fkeys[0])) continue;
                c.normal = f->normal;
                winding_t *w = winding_alloc(f->numpoints);
                w->numpoints = f->numpoints;
                for (int k = 0; k < f->numpoints; k++) w->p[k] = f->points[k];
                q1_subdivide(&c, w, 0);
                winding_free(w);
                matched++;
            }
            free(proto);
        }
        if (!matched)
            log_warn(q->log, "entity %d (%s, line %d): \"_surface\" \"%s\": no face has that texture", i,
                     entity_classname(e), qrad_key_line(e, "_surface"), tex);
    }
}

/* What one face emits and the floors it gets, for surface-light setup on
 * the rank's threads. */
typedef struct emission_job_t {
    const face_keys_t *fkeys, *none;
    const emitter_t *world;
    face_emission_t *fe;
    double chop, surfscale, skyscale;
    bool sky_rescale;
} emission_job_t;

static void face_emission(const qrad_t *q, int fi, void *ctx)
{
    const emission_job_t *x = ctx;
    const rface_t *f = &q->faces[fi];
    const dtexinfo_t *ti = &q->bsp->texinfo[q->bsp->faces[fi].texinfo];
    face_emission_t *e = &x->fe[fi];
    if ((ti->flags & SURF_LIGHT) && ti->value > 0 && f->model != 0 && x->fkeys[f->model].minlight_scale > 0 &&
        f->lit) {
        /* qrad3: only the world's faces emit; a bmodel's still gets
         * its floor when asked. */
        vec3_t hue;
        texture_emission(q, ti->texture, &hue, &e->floor_color[0]);
        e->floor_level[0] = ti->value * x->fkeys[f->model].minlight_scale;
    }
    if (q->opts->surflight_selflit && (ti->flags & SURF_LIGHT) && ti->value > 0 && f->model == 0 && f->lit) {
        /* only the world's patches carry a base light in qrad3 */
        vec3_t base;
        if (qrad3_base_light(q, ti, ti->value, &base)) e->self = base;
    }
    /* -preset ericw: a bmodel's light faces emit too (ericw-tools'
     * q2_surface_lights_culling lights its room from a func_wall). */
    if (!f->emits || (f->model != 0 && !q->opts->surflight_bmodels) || f->numpoints < 3) return;
    emitter_t em = *x->world;
    em.value = ti->value;
    em.scale = f->sky ? x->skyscale : x->surfscale;
    /* ericw: sky faces are never rescaled unless asked. */
    if (f->sky && !x->sky_rescale) em.rescale = false;
    if (q->opts->qrad3_light && f->model == 0)
        emit_face_qrad3(q, fi, &em, q->opts->chop > 1 ? q->opts->chop : 64, &e->pieces, &e->npieces, &e->cap);
    else
        emit_face(q, fi, &em, x->chop, &e->pieces, &e->npieces, &e->cap);
    if (f->lit && f->model == 0 && x->none->minlight_scale > 0) {
        vec3_t hue;
        texture_emission(q, ti->texture, &hue, &e->floor_color[1]);
        e->floor_level[1] = ti->value * x->none->minlight_scale;
    }
}

void qrad_surface_lights(qrad_t *q)
{
    /* Emitters are cut coarser than bounce patches (as ericw-tools'
     * surflight_subdivide 128): the polygon formula is exact at any size, and
     * fewer pieces mean fewer shadow rays. */
    double chop = 2 * (q->opts->chop > 1 ? q->opts->chop : 64);
    /* ericw-tools' worldspawn scales of surface lights (here relative to
     * qrad3's -direct, so 1 keeps today's brightness). */
    const entity_t *ws = qrad_worldspawn(q);
    double surfscale = ws ? qrad_key_float(q, ws, "_surflightscale", 1, 0, 1000) : 1;
    double skyscale = ws ? qrad_key_float(q, ws, "_surflightskyscale", 1, 0, 1000) : 1;
    /* ericw's texture colour boost, for the emitted and the bounced colour. */
    q->tex_saturation_boost = ws ? qrad_key_float(q, ws, "_tex_saturation_boost", 0, 0, 1) : 0;
    /* A preset gives ericw's defaults; worldspawn's keys still win. */
    int rescale_dflt = q->opts->surflight_rescale >= 0 ? q->opts->surflight_rescale != 0 : 0;
    double mscale_dflt = q->opts->surflight_minlight_scale >= 0 ? q->opts->surflight_minlight_scale : 0;
    emitter_t world = {0, false, {1, 1, 1}, 0, 1, rescale_dflt != 0, surfscale};
    if (ws) {
        world.atten = qrad_key_float(q, ws, "_surflight_atten", 1, 0.01, 100);
        world.rescale = qrad_key_int(q, ws, "_surflight_rescale", rescale_dflt, 0, 1) != 0;
    }
    bool radiosity = ws ? qrad_key_int(q, ws, "_surflight_radiosity", 1, 0, 1) != 0 : true;
    /* Per model: worldspawn's for the world; brush entities their own, with
     * worldspawn's minlight scale as the default. */
    int nm = q->bsp->nummodels;
    face_keys_t *fkeys = q2_calloc(nm > 0 ? nm : 1, sizeof *fkeys);
    face_keys_t none = {0, -1, -1, -1, false, {1, 1, 1}, mscale_dflt};
    if (ws) none.minlight_scale = qrad_key_float(q, ws, "_surflight_minlight_scale", mscale_dflt, 0, 510);
    fkeys[0] = none;
    for (int m = 1; m < nm; m++) {
        int ei = model_entity(q, m);
        read_face_keys(q, ei >= 0 ? &q->ents.ents[ei] : NULL, &fkeys[m], &none);
    }
    /* Each face's pieces and floors on the rank's threads (the textures
     * were all looked up in the face setup, so the lookups here only read
     * the table); then, in face order, the pieces join the lights and the
     * floors are applied as one pass would. */
    int nf = q->bsp->numfaces;
    face_emission_t *fe = q2_calloc((size_t)(nf > 0 ? nf : 1), sizeof *fe);
    emission_job_t job = {fkeys, &none, &world, fe, chop, surfscale, skyscale, ws && entity_get(ws, "_surflight_rescale")};
    qrad_faces_parallel(q, face_emission, &job);
    for (int fi = 0; fi < nf; fi++) {
        face_emission_t *e = &fe[fi];
        add_floor(q, fi, e->floor_level[0], e->floor_color[0]);
        for (int k = 0; k < e->npieces; k++) ARRAY_PUSH(q->lights, q->numlights, q->caplights, e->pieces[k]);
        q->surface_pieces += e->npieces;
        free(e->pieces);
        add_floor(q, fi, e->floor_level[1], e->floor_color[1]);
        if (e->self.x > 0 || e->self.y > 0 || e->self.z > 0) {
            if (!q->surf_self) q->surf_self = q2_calloc((size_t)nf, sizeof(vec3_t));
            q->surf_self[fi] = e->self;
        }
    }
    free(fe);
    templates(q, fkeys, chop, radiosity, &world);
    free(fkeys);
}

double qrad_surflight_rescaled(const light_t *l, double dist, double dot, vec3_t dir)
{
    /* ericw's GetSurfaceLighting for a directional emitter: both cosines
     * mapped to 0.5 + 0.5 cos, the distance clamped at its hotspot size,
     * as a form factor of the piece (times pi in the exitance). */
    double dot2 = -vec_dot(dir, l->dir);
    if (dot < -SURF_ANGLE_EPSILON || dot2 < -SURF_ANGLE_EPSILON) return 0;
    double d = fmax(dist, SURF_HOTSPOT_CLAMP);
    return l->area * (0.5 + 0.5 * dot) * (0.5 + 0.5 * dot2) / (M_PI * d * d);
}

void qrad_surflights_floor_face(qrad_t *q, int fi)
{
    rface_t *f = &q->faces[fi];
    if (q->surf_self && f->lit && f->light) {
        vec3_t c = q->surf_self[fi];
        for (int i = 0; i < f->w * f->h; i++) {
            float *o = f->light + (size_t)i * 3;
            o[0] += (float)c.x;
            o[1] += (float)c.y;
            o[2] += (float)c.z;
        }
    }
    if (!q->surf_floor) return;
    vec3_t c = q->surf_floor[fi];
    if (!f->lit || !f->light || (c.x <= 0 && c.y <= 0 && c.z <= 0)) return;
    int n = f->w * f->h;
    for (int i = 0; i < n; i++) {
        float *o = f->light + (size_t)i * 3;
        o[0] = fmaxf(o[0], (float)c.x);
        o[1] = fmaxf(o[1], (float)c.y);
        o[2] = fmaxf(o[2], (float)c.z);
    }
}

void qrad_surflights_floor(qrad_t *q)
{
    if (!q->surf_floor && !q->surf_self) return;
    for (int fi = 0; fi < q->bsp->numfaces; fi++) qrad_surflights_floor_face(q, fi);
}

void qrad_surflights_free(qrad_t *q)
{
    free(q->surf_floor);
    q->surf_floor = NULL;
    free(q->surf_self);
    q->surf_self = NULL;
}
