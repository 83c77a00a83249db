/* ericw-tools' bounce (-preset ericw): not radiosity between patches but
 * one point light per face and style ("bounce light"), made from the mean
 * of the light the face received, that lights every other face as a
 * Quake 2 surface light does. What its light (2.0.0-alpha11) does, and
 * where:
 *
 *  - which faces emit (light/bounce.cc, Face_ShouldBounce): faces with a
 *    lightmap of the world or of a bmodel that casts shadows (_shadow),
 *    not textured "skip", not "_bounce" "-1", not a light-emitting face,
 *    on object channel 1 only; of area 1 at least;
 *  - its colour (MakeBounceLightsThread): per style (style 0 only unless
 *    _bouncestyled, on by default in Quake 2), the light the face's
 *    lightmap got in the pass before (ltface.cc adds each ray's colour to
 *    the lightmap's bounce_color: entity lights, suns, surface lights, not
 *    minlight), unclamped, divided by the number of luxels (the mean,
 *    occluded luxels counting as 0), times mix(127, texture average,
 *    _bouncecolorscale) / 255, where _bouncecolorscale is 0.5 in Quake 2;
 *  - its strength (MakeBounceLight): the brightest channel of that colour
 *    times the face's area; the colour is divided by that channel when it
 *    is above 1;
 *  - its place: one point (the default -emissivequality LOW), the mean of
 *    the face's vertices (colinear ones removed) lifted 1 unit along the
 *    normal;
 *  - how it lights a luxel (IndirectLightFace, LightFace_SurfaceLight,
 *    GetSurfaceLighting): with the incidence cosines dp1 (at the light)
 *    and dp2 (at the luxel's phong normal), nothing when either is below
 *    -0.01, else colour * strength * max(0, dp1 dp2) * bouncescale * 0.5 /
 *    max(d * _dist, 128)^2: no rescale of the cosines, the 128-unit clamp
 *    (a surface light's is 16); a luxel is skipped (not traced) when every
 *    channel of that is at most 0.01; a clear line from the light, times
 *    the luxel's dirt factor (dirt applies whenever it is on);
 *  - culling: a face is skipped for a light whose leaf (not solid nor
 *    liquid) none of the face's clusters sees, and when the light's whole
 *    strength at the far side of the face's bounding sphere, times the
 *    surface-light scale (0.65 in Quake 2), is at most 0.01 per channel
 *    (SurfaceLight_SphereCull);
 *  - styles: the light of a style goes into that style's lightmap.
 * Its Quake 2 bouncescale 0.85 times the 0.5 of IndirectLightFace is
 * qrad's q->bouncescale (0.425 under the preset).
 *
 * Determinism: the lights are made in face order; each face sums them in
 * that order and writes only its own light, so threads and ranks give the
 * same bytes. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bouncelights.h"
#include "rounds.h"
#include "keys.h"
#include "trace.h"
#include "../common/cpu.h"
#include "../common/dist.h"
#include "../common/mem.h"
#include "../formats/q2defs.h"

/* ericw's clamp of the bounce light's distance (its hotspot_clamp). */
#define BOUNCE_CLAMP 128.0
/* A luxel (or a whole face, from the light's full strength) is skipped
 * below this per channel (ericw's surflight_gate). */
#define BOUNCE_GATE 0.01
/* Cosines below this count as behind (ericw's LIGHT_ANGLE_EPSILON). */
#define BOUNCE_ANGLE_EPSILON 0.01
/* ericw's default _bouncecolorscale in Quake 2. */
#define Q2_BOUNCECOLORSCALE 0.5

typedef struct blight_t {
    vec3_t pos, normal, color;
    double strength; /* brightest channel times the face's area */
    int style, cluster;
    bool shared; /* another style's light of the same face stands at pos */
} blight_t;

/* The light a face received in one pass, summed over its luxels, per
 * style: what its bounce lights of the next pass are made from. */
typedef struct received_t {
    int n;
    int styles[MAXLIGHTMAPS];
    vec3_t sum[MAXLIGHTMAPS];
} received_t;

typedef struct bl_pass_t {
    qrad_t *q;
    const blight_t *lights;
    int nlights;
    received_t *recv;
    bool *changed;  /* per face: this rank added light to it in the pass */
    double scale;   /* ericw's bouncescale * 0.5 */
    double cull_scale; /* ericw's surflightscale, in its sphere cull */
    double scaledist;
    /* per light, bounds on the distance from its place to a face's centre
     * within which each of gather_face's two strength culls can let it
     * through, less and plus the face's radius (make_reach) */
    double *reach_cull, *reach_near;
    double *lpos; /* the lights' places, x of every light, then y, then z */
    double *lnrm; /* the lights' normals, the same way */
    /* per light, where its cluster's bit lies in a face's row of seen
     * clusters (gather_face's sees): the byte and the bit's mask; a light
     * the PVS never culls points at the row's last byte, all ones */
    int *lbyte;
    uint8_t *lmask;
    bool avx2; /* the AVX2 forms (luxel_values_avx2, facing_mask_avx2) may run here */
} bl_pass_t;

static bool face_may_emit(const qrad_t *q, int fi, const bool *surface_lit)
{
    const rface_t *f = &q->faces[fi];
    if (!f->lit || f->numpoints < 3 || f->area < 1) return false;
    if (f->texflags & (SURF_WARP | SURF_NODRAW | SURF_SKY)) return false;
    if (f->model > 0 && !q->mkeys[f->model].shadow) return false;
    if (q->mkeys[f->model].nobounce || q->mkeys[f->keys].nobounce) return false;
    if (q->mkeys[f->model].object_mask != 1 || q->mkeys[f->keys].object_mask != 1) return false;
    if (f->emits || surface_lit[fi]) return false;
    /* ericw compares the whole name, so only a texture named just "skip" */
    return strcasecmp(q->bsp->texinfo[q->bsp->faces[fi].texinfo].texture, "skip") != 0;
}

/* ericw's winding centre: the mean of the vertices left after dropping
 * those on a straight line between their neighbours. */
static vec3_t winding_centre(const rface_t *f)
{
    vec3_t c = vec3(0, 0, 0);
    int n = 0;
    for (int k = 0; k < f->numpoints; k++) {
        vec3_t prev = f->points[(k + f->numpoints - 1) % f->numpoints], next = f->points[(k + 1) % f->numpoints];
        vec3_t a = vec_normalize(vec_sub(f->points[k], prev), NULL), b = vec_normalize(vec_sub(next, f->points[k]), NULL);
        if (vec_dot(a, b) > 0.999) continue;
        c = vec_add(c, f->points[k]);
        n++;
    }
    if (n == 0) return f->centroid;
    return vec_scale(c, 1.0 / n);
}

static int light_cluster(const bsp_t *bsp, vec3_t p)
{
    int l = qrad_point_leaf(bsp, p);
    /* ericw never culls a light in solid or in a liquid (the PVS does not
     * see through opaque liquids, but light does) */
    if (l < 0 || (bsp->leafs[l].contents & (CONTENTS_SOLID | CONTENTS_LAVA | CONTENTS_SLIME | CONTENTS_WATER))) return -1;
    return bsp->leafs[l].cluster;
}

/* The bounce lights of a pass, in face order, from what each face received. */
static blight_t *make_lights(const qrad_t *q, const received_t *recv, bool styled, double bcs, int *count)
{
    const bsp_t *bsp = q->bsp;
    bool *surface_lit = q2_calloc((size_t)(bsp->numfaces > 0 ? bsp->numfaces : 1), sizeof(bool));
    for (int i = 0; i < q->numlights; i++)
        if (q->lights[i].type == LIGHT_SURFACE && q->lights[i].face >= 0 && q->lights[i].face < bsp->numfaces)
            surface_lit[q->lights[i].face] = true;
    blight_t *out = NULL;
    int n = 0, cap = 0;
    for (int fi = 0; fi < bsp->numfaces; fi++) {
        const received_t *r = &recv[fi];
        if (r->n == 0 || !face_may_emit(q, fi, surface_lit)) continue;
        const rface_t *f = &q->faces[fi];
        const double grey = 127.0 / 255.0;
        /* a texture ericw cannot load averages black: without textures
         * the bounce is the grey half alone (spirit2dm1 lit by its light
         * with and without the bounce: 22 of its mean 57; with qrad's 0.5
         * grey 47) */
        const char *tex = bsp->texinfo[bsp->faces[fi].texinfo].texture;
        vec3_t avg = q->texdb && texdb_has_color(q->texdb, tex) ? f->reflect : vec3(0, 0, 0);
        vec3_t blend = vec_lerp(vec3(grey, grey, grey), avg, bcs);
        vec3_t pos = vec_ma(winding_centre(f), 1.0, f->normal);
        int cl = light_cluster(bsp, pos);
        const int first = n;
        for (int k = 0; k < r->n; k++) {
            if (r->styles[k] != 0 && !styled) continue;
            vec3_t mean = vec_scale(r->sum[k], 1.0 / ((double)f->w * f->h));
            vec3_t c = vec3(mean.x * blend.x, mean.y * blend.y, mean.z * blend.z);
            double top = fmax(c.x, fmax(c.y, c.z));
            if (top <= 0) continue;
            if (top > 1) c = vec_scale(c, 1.0 / top);
            blight_t b = {pos, f->normal, c, top * f->area, r->styles[k], cl, false};
            ARRAY_PUSH(out, n, cap, b);
        }
        /* (a face's lights are consecutive, each at the face's pos) */
        for (int i = first; i < n; i++) out[i].shared = n - first > 1;
    }
    free(surface_lit);
    *count = n;
    return out;
}

/* Per style the bounced light a face gathers, before it joins f->light. */
typedef struct gathered_t {
    int style;
    float *add;
} gathered_t;

static float *gathered_for(gathered_t **g, int *ng, int *cap, int style, size_t floats)
{
    for (int k = 0; k < *ng; k++)
        if ((*g)[k].style == style) return (*g)[k].add;
    gathered_t x = {style, q2_calloc(floats, sizeof(float))};
    ARRAY_PUSH(*g, *ng, *cap, x);
    return x.add;
}

static int cmp_gathered(const void *a, const void *b)
{
    return ((const gathered_t *)a)->style - ((const gathered_t *)b)->style;
}

/* A light gets through gather_face's sphere cull only where
 * (|centre - pos| + radius) * scaledist < sqrt(cmax * strength *
 * cull_scale / gate), and through its near cull only where the face's box
 * is nearer than sqrt(cmax * strength * scale / gate) / scaledist, which
 * it is not unless |centre - pos| - radius is (the box lies in the
 * sphere). Those bounds, widened by far more than their rounding (a
 * relative 1e-6 and 1e-3 units), let a face drop a light from its centre's
 * squared distance alone; the culls themselves still decide the rest. A
 * light no face could get is given a negative reach. */
static double reach_of(double v, double scaledist)
{
    if (scaledist <= 0 || !(v == v)) return INFINITY;
    if (v <= 0) return -1;
    return sqrt(v) / scaledist * (1 + 1e-6) + 1e-3;
}

static void make_reach(bl_pass_t *x)
{
    x->reach_cull = q2_malloc(sizeof(double) * (size_t)x->nlights);
    x->reach_near = q2_malloc(sizeof(double) * (size_t)x->nlights);
    x->lpos = q2_malloc(sizeof(double) * 3 * (size_t)x->nlights);
    x->lnrm = q2_malloc(sizeof(double) * 3 * (size_t)x->nlights);
    x->lbyte = q2_malloc(sizeof(int) * (size_t)(x->nlights > 0 ? x->nlights : 1));
    x->lmask = q2_malloc((size_t)(x->nlights > 0 ? x->nlights : 1));
    const int rowbytes = x->q->pvs_rowbytes > 0 ? x->q->pvs_rowbytes : 0;
    for (int li = 0; li < x->nlights; li++) {
        const blight_t *b = &x->lights[li];
        double cmax = fmax(b->color.x, fmax(b->color.y, b->color.z));
        x->reach_cull[li] = reach_of(cmax * b->strength * x->cull_scale / BOUNCE_GATE, x->scaledist);
        x->reach_near[li] = reach_of(cmax * b->strength * x->scale / BOUNCE_GATE, x->scaledist);
        x->lpos[li] = b->pos.x;
        x->lpos[x->nlights + li] = b->pos.y;
        x->lpos[2 * x->nlights + li] = b->pos.z;
        x->lnrm[li] = b->normal.x;
        x->lnrm[x->nlights + li] = b->normal.y;
        x->lnrm[2 * x->nlights + li] = b->normal.z;
        bool culls = b->cluster >= 0 && (b->cluster >> 3) < rowbytes;
        x->lbyte[li] = culls ? b->cluster >> 3 : rowbytes;
        x->lmask[li] = culls ? (uint8_t)(1u << (b->cluster & 7)) : 0xff;
    }
}

/* What luxel_values reads: the face's luxels component by component and
 * one light's place, normal and factors. */
typedef struct val_args_t {
    const double *sx, *sy, *sz, *nx, *ny, *nz;
    double px, py, pz, bx, by, bz, k, sd2, clamp2, eps2, cmax;
} val_args_t;

/* Each luxel's light from a light it does not stand at (none where the
 * cosines or the gate drop it): every value computed and the answer
 * selected, without branches, so the loop vectorises (an operation or
 * comparison under a condition, which could trap, keeps gcc from it; no
 * divisor is below 1e-4). The cosines' signs and the epsilon test are
 * compared squared (no square root), the falloff taken from the squared
 * distance. Written once and compiled twice where the compiler can (for
 * SSE2 and for AVX2): the same operations on each luxel, so the same bits. */
#define LUXEL_VALUES_BODY                                                                                              \
    const double *restrict sx = a->sx, *restrict sy = a->sy, *restrict sz = a->sz, *restrict nx = a->nx,              \
                           *restrict ny = a->ny, *restrict nz = a->nz;                                                 \
    const double px = a->px, py = a->py, pz = a->pz, bx = a->bx, by = a->by, bz = a->bz, k = a->k, sd2 = a->sd2,      \
                 clamp2 = a->clamp2, eps2 = a->eps2, cmax = a->cmax;                                                   \
    for (int idx = 0; idx < n; idx++) {                                                                               \
        double dx = sx[idx] - px, dy = sy[idx] - py, dz = sz[idx] - pz;                                               \
        double len2 = dx * dx + dy * dy + dz * dz;                                                                    \
        /* the cosines times the distance */                                                                          \
        double a1 = bx * dx + by * dy + bz * dz, a2 = -(dx * nx[idx] + dy * ny[idx] + dz * nz[idx]);                  \
        double e = eps2 * len2;                                                                                       \
        int behind = ((a1 < 0) & (a1 * a1 > e)) | ((a2 < 0) & (a2 * a2 > e));                                         \
        double prod = a1 * a2;                                                                                        \
        double d2 = len2 < 1e-4 ? 1e-4 : len2;                                                                        \
        double t = d2 * sd2;                                                                                          \
        double f2 = t > clamp2 ? t : clamp2;                                                                          \
        double v = k * prod / (d2 * f2);                                                                              \
        double lum = cmax * v;                                                                                        \
        int keep = !behind & (prod > 0) & !(lum <= BOUNCE_GATE);                                                      \
        val[idx] = keep ? v : 0.0;                                                                                    \
    }

static void luxel_values(const val_args_t *a, double *restrict val, int n) { LUXEL_VALUES_BODY }

/* (where common/cpu.h says the AVX2 forms are built) */
#ifdef Q2_AVX2_FORMS
__attribute__((target("avx2"))) static void luxel_values_avx2(const val_args_t *a, double *restrict val, int n)
{
    LUXEL_VALUES_BODY
}
#endif

/* What facing_mask reads: the face's box corners, its normal, whether it
 * is flat, and the lights' places and normals (make_reach). */
typedef struct facing_args_t {
    double cx[8], cy[8], cz[8];
    double fx, fy, fz;
    bool flat;
    const double *lx, *ly, *lz, *nx, *ny, *nz;
} facing_args_t;

/* ok[c] = 1 where some corner of the face's box is in front of light
 * cand[c] (the light's cosine there above 0) and, for a flat face, the
 * light is in front of the face's plane through some corner; else 0. The tests gather_face made
 * corner by corner until both held, on the same values (d = corner -
 * place, then each dot product in vec_dot's order), for every corner and
 * without a branch, so the loop runs on vector registers: the same
 * answers. Written once and compiled twice as LUXEL_VALUES_BODY is. */
#define FACING_MASK_BODY                                                                                               \
    const double *restrict lx = a->lx, *restrict ly = a->ly, *restrict lz = a->lz, *restrict nx = a->nx,              \
                           *restrict ny = a->ny, *restrict nz = a->nz;                                                 \
    const double fx = a->fx, fy = a->fy, fz = a->fz;                                                                   \
    const int facing0 = !a->flat;                                                                                      \
    for (int c = 0; c < n; c++) {                                                                                      \
        const int li = cand[c];                                                                                        \
        const double px = lx[li], py = ly[li], pz = lz[li], bx = nx[li], by = ny[li], bz = nz[li];                     \
        int front = 0, facing = facing0;                                                                               \
        for (int k = 0; k < 8; k++) {                                                                                  \
            double dx = a->cx[k] - px, dy = a->cy[k] - py, dz = a->cz[k] - pz;                                         \
            front |= bx * dx + by * dy + bz * dz > 0;                                                                  \
            facing |= fx * dx + fy * dy + fz * dz < 0;                                                                 \
        }                                                                                                              \
        ok[c] = (unsigned char)(front & facing);                                                                       \
    }

static void facing_mask(const facing_args_t *a, const int *restrict cand, unsigned char *restrict ok, int n)
{
    FACING_MASK_BODY
}

#ifdef Q2_AVX2_FORMS
__attribute__((target("avx2"))) static void facing_mask_avx2(const facing_args_t *a, const int *restrict cand,
                                                             unsigned char *restrict ok, int n)
{
    FACING_MASK_BODY
}
#endif

/* Rays of one pair (a face's luxels to one light) waiting to be walked
 * together. */
typedef struct packet_t {
    int idx[TRACE_PACKET];
    vec3_t a[TRACE_PACKET];
    int n, start, model; /* model: the face's, for the models' shadows; -1 none */
    vec3_t light;
} packet_t;

/* The witnesses a pair's ray tries (trace_witness_blocks): first the
 * solid leaf that blocked a blocked neighbour of the round before (the
 * blocker nearest to it), then the last two distinct leaves that blocked
 * the pair's rays, the latest first. Which ray a witness spares depends on
 * them, never an answer. spirit2dm1 under -preset ericw, one thread: 2.92
 * million rays walked instead of 3.74 million, for 7.16 million tests
 * instead of 4.92; with the witnesses' planes cut down (witness_reduce)
 * the bounce stage 0.952-0.959 of its time with the last blocker alone
 * (31-41 alternated runs, three series), 0.975 with the whole ways. A
 * third recent leaf, or the recent ones tried after a clear ray too, did
 * not pay. */
#define RECENT_WITNESSES 2

/* leaf to the front of the recent witnesses, once */
static inline void witness_push(int wit[RECENT_WITNESSES], int leaf)
{
    int k = 0;
    while (k < RECENT_WITNESSES - 1 && wit[k] != leaf) k++;
    for (; k > 0; k--) wit[k] = wit[k - 1];
    wit[0] = leaf;
}

/* The first recent witness other than skip that proves the ray s-l
 * blocked (moved to the front), or -1. */
static inline int witness_recent(const qrad_t *q, int start, int wit[RECENT_WITNESSES], int skip, vec3_t s, vec3_t l)
{
    for (int k = 0; k < RECENT_WITNESSES && wit[k] >= 0; k++)
        if (wit[k] != skip && trace_witness_blocks(q, start, wit[k], s, l)) {
            int w = wit[k];
            witness_push(wit, w);
            return w;
        }
    return -1;
}

/* The leaf that blocked the first blocked neighbour of the round before
 * whose blocker is known (bleaf: a face's luxels' last blocker, -1 none),
 * or -1. */
static inline int neighbour_witness(const lorder_t *lo, const uint8_t *vis, const int *bleaf)
{
    for (int k = 0; k < lo->nn; k++)
        if (vis[lo->nb[k]] == VIS_BLOCKED && bleaf[lo->nb[k]] >= 0) return bleaf[lo->nb[k]];
    return -1;
}

/* The witness that proves the ray s-l of a luxel (its order entry lo)
 * blocked, or -1: its neighbour's blocker, then the recent ones unless the
 * pair's last walked ray was clear. */
static inline int pair_witness(const qrad_t *q, int start, const lorder_t *lo, const uint8_t *vis, const int *bleaf,
                               int wit[RECENT_WITNESSES], bool last_clear, vec3_t s, vec3_t l)
{
    int nbw = neighbour_witness(lo, vis, bleaf);
    if (nbw >= 0 && trace_witness_blocks(q, start, nbw, s, l)) {
        witness_push(wit, nbw);
        return nbw;
    }
    return last_clear ? -1 : witness_recent(q, start, wit, nbw, s, l);
}

/* Walks the packet's rays and gives each luxel its answer (and keep, where
 * the light shares its place) and its blocker; the blockers become the
 * recent witnesses. */
static void packet_walk(const qrad_t *q, packet_t *pk, uint8_t *vis, uint8_t *keep, int wit[RECENT_WITNESSES],
                        bool *last_clear, int *bleaf)
{
    int leaf[TRACE_PACKET];
    trace_blocking_leaves_from(q, pk->start, pk->light, pk->n, pk->a, leaf);
    for (int k = 0; k < pk->n; k++) {
        bool blocked =
            leaf[k] >= 0 || (pk->model >= 0 && trace_occluded_models(q, pk->a[k], pk->light, pk->model, 1));
        if (leaf[k] >= 0) witness_push(wit, leaf[k]);
        *last_clear = !blocked;
        vis[pk->idx[k]] = blocked ? VIS_BLOCKED : VIS_CLEAR;
        bleaf[pk->idx[k]] = leaf[k];
        if (keep) keep[pk->idx[k]] = vis[pk->idx[k]];
    }
    pk->n = 0;
}

/* Face fi gathers the pass's bounce lights into its light; returns the rays. */
static long gather_face(bl_pass_t *x, int fi)
{
    qrad_t *q = x->q;
    rface_t *f = &q->faces[fi];
    received_t *r = &x->recv[fi];
    r->n = 0;
    if (!f->lit || !f->samples || q->mkeys[f->keys].lightignore) return 0;
    int n = f->w * f->h;
    aabb_t box = aabb_empty();
    for (int k = 0; k < n; k++) aabb_add_point(&box, f->samples[k]);
    vec3_t centre = vec_scale(vec_add(box.mins, box.maxs), 0.5);
    double radius = 0.5 * vec_len(vec_sub(box.maxs, box.mins));
    /* The clusters any of the face's luxels sees: the union of their PVS
     * rows, so a light's cluster is one bit (ncl: how many luxels have a
     * cluster, without which nothing is culled by the PVS). */
    int ncl = 0;
    uint8_t *sees = NULL;
    if (q->pvs) {
        /* (one more byte, all ones, for the lights the PVS never culls) */
        sees = q2_calloc((size_t)(q->pvs_rowbytes > 0 ? q->pvs_rowbytes : 0) + 1, 1);
        sees[q->pvs_rowbytes > 0 ? q->pvs_rowbytes : 0] = 0xff;
        int last = -1;
        for (int k = 0; k < n; k++) {
            int c = f->clusters[k];
            if (c < 0) continue;
            ncl++;
            if (c == last || c >= q->numclusters) continue;
            last = c;
            const uint8_t *row = q->pvs + (size_t)c * q->pvs_rowbytes;
            for (int i = 0; i < q->pvs_rowbytes; i++) sees[i] |= row[i];
        }
    }
    /* The luxels' positions and normals component by component, so the
     * per-luxel loop below runs on vector registers (the same operations
     * in the same order as on vec3_t: the same bits). */
    double *soa = q2_malloc(sizeof(double) * (size_t)n * 7);
    double *sx = soa, *sy = sx + n, *sz = sy + n, *nx = sz + n, *ny = nx + n, *nz = ny + n, *val = nz + n;
    for (int k = 0; k < n; k++) {
        vec3_t nrm = f->lnormals ? f->lnormals[k] : f->normal;
        sx[k] = f->samples[k].x;
        sy[k] = f->samples[k].y;
        sz[k] = f->samples[k].z;
        nx[k] = nrm.x;
        ny[k] = nrm.y;
        nz[k] = nrm.z;
    }
    gathered_t *g = NULL;
    int ng = 0, gcap = 0;
    long rays = 0;
    uint8_t *vis = q2_malloc((size_t)n);
    lorder_t *order = NULL; /* made when a light first reaches the rounds */
    /* A face's styles make lights at one place (make_lights), one after
     * another: a luxel's ray to that place has one answer, kept here for
     * the next of them (0 none yet, else vis's 1 or 2); only for lights
     * that share their place, the others gain nothing from it. */
    uint8_t *traced = NULL;
    vec3_t traced_pos = vec3(0, 0, 0);
    const bool models = qrad_any_model_shadows(q);
    /* The solid leaves that blocked the face's last blocked rays, tried
     * by the next ray after its neighbour's blocker (pair_witness): most
     * of a pair's blocked rays are blocked by one of the rays' before, and
     * a pair's first by the face's blockers for the light before (by what
     * stands around the face). Not after a clear ray of the pair: the ray
     * after one is mostly clear too, and the test then only costs
     * (spirit2dm1 under -preset ericw: of 1.95 million such rays 1.61
     * million are clear and the witness settles 0.22 million). bleaf:
     * each luxel's blocker, for the luxels of the rounds after (kept from
     * light to light, where a luxel takes its answer without a ray: any
     * solid leaf is a sound witness, only the spared walks depend on it). */
    int wit[RECENT_WITNESSES];
    for (int k = 0; k < RECENT_WITNESSES; k++) wit[k] = -1;
    int *bleaf = q2_malloc(sizeof(int) * (size_t)n);
    for (int k = 0; k < n; k++) bleaf[k] = -1;
    /* First the bound of make_reach, a few operations that drop most pairs
     * before the tests below decide exactly: over every light at once, in
     * a loop without branches that runs on vector registers (no value is
     * NaN, so the selects are fmin's), then the survivors in light order. */
    const int nl = x->nlights;
    /* (flags as doubles: gcc vectorises the loop only so) */
    double *near_enough = q2_malloc(sizeof(double) * (size_t)(nl > 0 ? nl : 1));
    int *cand = q2_malloc(sizeof(int) * (size_t)(nl > 0 ? nl : 1));
    {
        const double *restrict rc = x->reach_cull, *restrict rn = x->reach_near, *restrict lx = x->lpos,
                               *restrict ly = lx + nl, *restrict lz = ly + nl;
        double *restrict ne = near_enough;
        const double ox = centre.x, oy = centre.y, oz = centre.z, r = radius;
        for (int li = 0; li < nl; li++) {
            double r1 = rc[li] - r, r2 = rn[li] + r;
            double reach = r1 < r2 ? r1 : r2;
            double cx = ox - lx[li], cy = oy - ly[li], cz = oz - lz[li];
            int keep = (reach >= 0) & (cx * cx + cy * cy + cz * cz <= reach * reach);
            ne[li] = keep ? 1.0 : 0.0;
        }
    }
    /* then the PVS (a face's luxels see none of the light's cluster) */
    int ncand = 0;
    if (sees && ncl > 0) {
        const int *restrict lbyte = x->lbyte;
        const uint8_t *restrict lmask = x->lmask;
        for (int li = 0; li < nl; li++) {
            cand[ncand] = li;
            ncand += (near_enough[li] > 0) & ((sees[lbyte[li]] & lmask[li]) != 0);
        }
    } else {
        for (int li = 0; li < nl; li++) {
            cand[ncand] = li;
            ncand += near_enough[li] > 0;
        }
    }
    /* Faces wholly behind the light, and lights wholly behind a flat face,
     * give nothing (at most a product of two cosines each within -0.01 of
     * 0, which ericw lets through: under 1e-4 of the light): that test
     * first, for every candidate at once (it drops most of them: 57% of
     * E1M1-edited-ents'), then the two strength culls below. */
    {
        facing_args_t fa;
        for (int k = 0; k < 8; k++) {
            fa.cx[k] = k & 1 ? box.maxs.x : box.mins.x;
            fa.cy[k] = k & 2 ? box.maxs.y : box.mins.y;
            fa.cz[k] = k & 4 ? box.maxs.z : box.mins.z;
        }
        fa.fx = f->normal.x;
        fa.fy = f->normal.y;
        fa.fz = f->normal.z;
        fa.flat = f->lnormals == NULL;
        fa.lx = x->lpos;
        fa.ly = x->lpos + nl;
        fa.lz = x->lpos + 2 * nl;
        fa.nx = x->lnrm;
        fa.ny = x->lnrm + nl;
        fa.nz = x->lnrm + 2 * nl;
        /* (near_enough, done with, holds nl >= ncand doubles) */
        unsigned char *ok = (unsigned char *)near_enough;
#ifdef Q2_AVX2_FORMS
        if (x->avx2)
            facing_mask_avx2(&fa, cand, ok, ncand);
        else
#endif
            facing_mask(&fa, cand, ok, ncand);
        int m = 0;
        for (int ci = 0; ci < ncand; ci++) {
            cand[m] = cand[ci];
            m += ok[ci];
        }
        ncand = m;
    }
    for (int ci = 0; ci < ncand; ci++) {
        const int li = cand[ci];
        const blight_t *b = &x->lights[li];
        /* nor does a face whose nearest point is so far that the light's
         * strength there, at full cosines, is under the gate */
        double far = max_of((vec_len(vec_sub(centre, b->pos)) + radius) * x->scaledist, BOUNCE_CLAMP);
        double whole = b->strength * x->cull_scale / (far * far);
        if (b->color.x * whole <= BOUNCE_GATE && b->color.y * whole <= BOUNCE_GATE && b->color.z * whole <= BOUNCE_GATE)
            continue;
        vec3_t gap = vec3(max_of(max_of(box.mins.x - b->pos.x, b->pos.x - box.maxs.x), 0),
                          max_of(max_of(box.mins.y - b->pos.y, b->pos.y - box.maxs.y), 0),
                          max_of(max_of(box.mins.z - b->pos.z, b->pos.z - box.maxs.z), 0));
        double near = max_of(vec_len(gap) * x->scaledist, BOUNCE_CLAMP);
        double top = b->strength * x->scale * max_of(b->color.x, max_of(b->color.y, b->color.z)) / (near * near);
        if (top <= BOUNCE_GATE) continue;
        /* Each luxel's light first (none where the cosines or the gate
         * drop it), then its visibility. */
        /* (no square root: the cosines' signs and the epsilon test are
         * compared squared, the falloff from the squared distance) */
        const double k = b->strength * x->scale, sd2 = x->scaledist * x->scaledist, clamp2 = BOUNCE_CLAMP * BOUNCE_CLAMP;
        const double eps2 = BOUNCE_ANGLE_EPSILON * BOUNCE_ANGLE_EPSILON;
        const double cmax = b->color.x > b->color.y ? (b->color.x > b->color.z ? b->color.x : b->color.z)
                                                    : (b->color.y > b->color.z ? b->color.y : b->color.z);
        const double px = b->pos.x, py = b->pos.y, pz = b->pos.z, bx = b->normal.x, by = b->normal.y, bz = b->normal.z;
        /* A luxel at the light itself (within 1e-3 on each axis, far more
         * than it takes for the squared distance to be above 0) has the
         * light's cosine alone: where none can be, every value is
         * computed and the answer selected, without branches, so the loop
         * vectorises (an operation or comparison under a condition, which
         * could trap, keeps gcc from it; no divisor is below 1e-4). */
        const double m = 1e-3;
        bool inside = px >= box.mins.x - m && px <= box.maxs.x + m && py >= box.mins.y - m && py <= box.maxs.y + m &&
                      pz >= box.mins.z - m && pz <= box.maxs.z + m;
        if (!inside) {
            const val_args_t va = {sx, sy, sz, nx, ny, nz, px, py, pz, bx, by, bz, k, sd2, clamp2, eps2, cmax};
#ifdef Q2_AVX2_FORMS
            if (x->avx2)
                luxel_values_avx2(&va, val, n);
            else
#endif
                luxel_values(&va, val, n);
        } else {
            for (int idx = 0; idx < n; idx++) {
                double dx = sx[idx] - px, dy = sy[idx] - py, dz = sz[idx] - pz;
                double len2 = dx * dx + dy * dy + dz * dz;
                double v = 0;
                if (len2 == 0) {
                    double dp1 = bx * nx[idx] + by * ny[idx] + bz * nz[idx];
                    if (dp1 > 0) v = k * dp1 / clamp2;
                } else {
                    double a1 = bx * dx + by * dy + bz * dz, a2 = -(dx * nx[idx] + dy * ny[idx] + dz * nz[idx]);
                    bool behind = (a1 < 0 && a1 * a1 > eps2 * len2) || (a2 < 0 && a2 * a2 > eps2 * len2);
                    double prod = a1 * a2;
                    if (!behind && prod > 0) {
                        double d2 = len2 < 1e-4 ? 1e-4 : len2;
                        double f2 = d2 * sd2 > clamp2 ? d2 * sd2 : clamp2;
                        v = k * prod / (d2 * f2);
                    }
                }
                if (cmax * v <= BOUNCE_GATE) v = 0;
                val[idx] = v;
            }
        }
        bool anylit = false;
        for (int idx = 0; idx < n && !anylit; idx++) anylit = val[idx] > 0;
        if (!anylit) continue;
        /* where every ray of this pair enters the world's tree */
        int start = trace_start_node(q, box, b->pos);
        float *add = NULL;
        /* Visibility in three rounds, as direct.c finds a surface light's
         * in two: the luxels on a grid of step 4 are traced, then those of
         * step 2, then the rest; one whose neighbours of the round before
         * (2 or 4, half a step away) all agree takes their answer, so only
         * the cells a shadow edge crosses are traced finer. A bounce light
         * is one of hundreds: a thin shadow missed between luxels 4 apart
         * is a sliver of one of them. vis: VIS_NONE and so on. */
        memset(vis, VIS_NONE, (size_t)n);
        if (!order) order = rounds_order(f->w, f->h);
        uint8_t *keep = NULL; /* traced, for a light that shares its place */
        bool last_clear = false; /* the pair's last ray walked */
        if (b->shared) {
            if (!traced) traced = q2_calloc((size_t)n, 1);
            else if (memcmp(&traced_pos, &b->pos, sizeof traced_pos) != 0) memset(traced, 0, (size_t)n);
            traced_pos = b->pos;
            keep = traced;
        }
        /* The rays still needed after the agreements and the witness
         * wait in a packet (vis VIS_WAITING), walked together when it
         * holds TRACE_PACKET, when a luxel's coarser neighbour waits in it
         * (a luxel needs only those neighbours' answers), or at the end:
         * trace_blocking_leaves_from, the walk's answers. So the witness
         * and last_clear follow the packets' answers, which changes which
         * rays a witness spares, never an answer. After the first round
         * the cells it settles are filled (rounds_fill_cells) and passed. */
        const bool tree_alone = trace_tree_alone(q, start);
        packet_t pk = {.n = 0, .start = start, .light = b->pos, .model = models ? f->model : -1};
        const int n1 = rounds_first(f->w, f->h);
        for (int e = 0; e < n; e++) {
            if (e == n1) {
                if (pk.n > 0) packet_walk(q, &pk, vis, keep, wit, &last_clear, bleaf);
                rounds_fill_cells(f->w, f->h, val, vis);
            }
            const lorder_t *lo = &order[e];
            const int idx = lo->idx;
            if (val[idx] <= 0 || vis[idx] != VIS_NONE) continue;
            if (pk.n > 0)
                for (int k = 0; k < lo->nn; k++)
                    if (vis[lo->nb[k]] == VIS_WAITING) {
                        packet_walk(q, &pk, vis, keep, wit, &last_clear, bleaf);
                        break;
                    }
            const uint8_t agreed = rounds_agreed(lo, vis);
            if (agreed != VIS_NONE) {
                vis[idx] = agreed;
                if (vis[idx] == VIS_BLOCKED) bleaf[idx] = bleaf[lo->nb[0]];
            } else if (keep && keep[idx]) {
                vis[idx] = keep[idx];
            } else {
                vec3_t s = f->samples[idx];
                int w;
                rays++;
                if (!tree_alone) {
                    bool blocked = trace_occluded_channels_from(q, start, s, b->pos, 1, NULL) ||
                                   (models && trace_occluded_models(q, s, b->pos, f->model, 1));
                    vis[idx] = blocked ? VIS_BLOCKED : VIS_CLEAR;
                    if (keep) keep[idx] = vis[idx];
                } else if ((w = pair_witness(q, start, lo, vis, bleaf, wit, last_clear, s, b->pos)) >= 0) {
                    vis[idx] = VIS_BLOCKED;
                    bleaf[idx] = w;
                    if (keep) keep[idx] = VIS_BLOCKED;
                } else {
                    vis[idx] = VIS_WAITING;
                    pk.idx[pk.n] = idx;
                    pk.a[pk.n++] = s;
                    if (pk.n == TRACE_PACKET) packet_walk(q, &pk, vis, keep, wit, &last_clear, bleaf);
                }
            }
        }
        if (pk.n > 0) packet_walk(q, &pk, vis, keep, wit, &last_clear, bleaf);
        /* the light of the clear luxels (one sum per luxel, so in any order) */
        for (int idx = 0; idx < n; idx++) {
            if (val[idx] <= 0 || vis[idx] != VIS_CLEAR) continue;
            vec3_t c = vec_scale(b->color, val[idx]);
            if (f->dirtmap) c = vec_scale(c, f->dirtmap[idx]);
            if (!add) add = gathered_for(&g, &ng, &gcap, b->style, (size_t)n * 3);
            float *o = add + (size_t)idx * 3;
            o[0] += (float)c.x;
            o[1] += (float)c.y;
            o[2] += (float)c.z;
        }
    }
    free(vis);
    free(bleaf);
    free(order);
    free(traced);
    free(near_enough);
    free(cand);
    free(soa);
    free(sees);
    /* into the face's lightmaps, styles in ascending order; a style the
     * face lacks gets a slot where it brings a visible level and one of
     * the MAXLIGHTMAPS is free */
    if (ng > 1) qsort(g, ng, sizeof *g, cmp_gathered);
    for (int k = 0; k < ng; k++) {
        int slot = -1;
        for (int s = 0; s < f->numstyles; s++)
            if (f->styles[s] == g[k].style) slot = s;
        if (slot < 0) {
            float mx = 0;
            for (int i = 0; i < n * 3; i++) mx = fmaxf(mx, g[k].add[i]);
            if (mx >= LIGHT_CUTOFF && f->numstyles < MAXLIGHTMAPS) {
                f->light = q2_realloc(f->light, sizeof(float) * (size_t)(f->numstyles + 1) * n * 3);
                memset(f->light + (size_t)f->numstyles * n * 3, 0, sizeof(float) * (size_t)n * 3);
                slot = f->numstyles;
                f->styles[f->numstyles++] = g[k].style;
            }
        }
        if (slot >= 0) {
            float *l = f->light + (size_t)slot * n * 3;
            vec3_t sum = vec3(0, 0, 0);
            for (int i = 0; i < n; i++) {
                l[i * 3] += g[k].add[i * 3];
                l[i * 3 + 1] += g[k].add[i * 3 + 1];
                l[i * 3 + 2] += g[k].add[i * 3 + 2];
                sum = vec_add(sum, vec3(g[k].add[i * 3], g[k].add[i * 3 + 1], g[k].add[i * 3 + 2]));
            }
            if (r->n < MAXLIGHTMAPS) {
                r->styles[r->n] = g[k].style;
                r->sum[r->n++] = sum;
            }
            x->changed[fi] = true;
        }
        free(g[k].add);
    }
    free(g);
    return rays;
}

/* A face's light after a pass, as it travels between ranks: its styles,
 * what it received, then numstyles * w*h * 3 floats; nothing for a face
 * the pass left alone. */
#define BL_HEAD (sizeof(int) * (2 + 2 * MAXLIGHTMAPS) + sizeof(vec3_t) * MAXLIGHTMAPS)

static size_t bl_size(void *ctx, long fi)
{
    const bl_pass_t *x = ctx;
    const rface_t *f = &x->q->faces[fi];
    if (!x->changed[fi]) return 0;
    return BL_HEAD + sizeof(float) * (size_t)f->numstyles * f->w * f->h * 3;
}

static void bl_pack(void *ctx, long fi, uint8_t *out)
{
    const bl_pass_t *x = ctx;
    const rface_t *f = &x->q->faces[fi];
    const received_t *r = &x->recv[fi];
    if (!x->changed[fi]) return; /* its size was 0 */
    int head[2 + 2 * MAXLIGHTMAPS] = {f->numstyles, r->n};
    memcpy(head + 2, f->styles, sizeof(int) * MAXLIGHTMAPS);
    memcpy(head + 2 + MAXLIGHTMAPS, r->styles, sizeof(int) * MAXLIGHTMAPS);
    memcpy(out, head, sizeof head);
    memcpy(out + sizeof head, r->sum, sizeof(vec3_t) * MAXLIGHTMAPS);
    memcpy(out + BL_HEAD, f->light, sizeof(float) * (size_t)f->numstyles * f->w * f->h * 3);
}

static void bl_unpack(void *ctx, long fi, const uint8_t *in, size_t size)
{
    bl_pass_t *x = ctx;
    if (size < BL_HEAD) return;
    x->changed[fi] = true;
    rface_t *f = &x->q->faces[fi];
    received_t *r = &x->recv[fi];
    int head[2 + 2 * MAXLIGHTMAPS];
    memcpy(head, in, sizeof head);
    f->numstyles = head[0];
    r->n = head[1];
    memcpy(f->styles, head + 2, sizeof(int) * MAXLIGHTMAPS);
    memcpy(r->styles, head + 2 + MAXLIGHTMAPS, sizeof(int) * MAXLIGHTMAPS);
    memcpy(r->sum, in + sizeof head, sizeof(vec3_t) * MAXLIGHTMAPS);
    size_t floats = (size_t)f->numstyles * f->w * f->h * 3;
    f->light = q2_realloc(f->light, sizeof(float) * (floats > 0 ? floats : 1));
    memcpy(f->light, in + BL_HEAD, sizeof(float) * floats);
}

bool qrad_bouncelights(qrad_t *q, q2err_t *err)
{
    (void)err;
    const bsp_t *bsp = q->bsp;
    int nf = bsp->numfaces;
    const entity_t *ws = qrad_worldspawn(q);
    int dflt = q->opts->bouncestyled >= 0 ? q->opts->bouncestyled : 0;
    bool styled = ws ? qrad_key_int(q, ws, "_bouncestyled", dflt, 0, 1) : dflt;
    double bcs = q->bouncecolorscale >= 0 ? q->bouncecolorscale : Q2_BOUNCECOLORSCALE;
    double cull = ws ? qrad_key_float(q, ws, "_surflightscale", q->opts->direct, 0, 1000) : q->opts->direct;
    received_t *recv = q2_calloc((size_t)(nf > 0 ? nf : 1), sizeof(received_t));
    /* The first pass's lights come from the direct light (less what lights
     * with _bouncescale keep out of the bounces). */
    for (int fi = 0; fi < nf; fi++) {
        const rface_t *f = &q->faces[fi];
        if (!f->lit || !f->light) continue;
        int n = f->w * f->h;
        for (int s = 0; s < f->numstyles && s < MAXLIGHTMAPS; s++) {
            vec3_t sum = vec3(0, 0, 0);
            const float *l = f->light + (size_t)s * n * 3;
            for (int i = 0; i < n; i++) {
                sum = vec_add(sum, vec3(l[i * 3], l[i * 3 + 1], l[i * 3 + 2]));
                if (s == 0 && f->nobounce)
                    sum = vec_sub(sum, vec3(f->nobounce[i * 3], f->nobounce[i * 3 + 1], f->nobounce[i * 3 + 2]));
            }
            recv[fi].styles[recv[fi].n] = f->styles[s];
            recv[fi].sum[recv[fi].n++] = sum;
        }
    }
    bool *changed = q2_malloc(sizeof(bool) * (size_t)(nf > 0 ? nf : 1));
    long rays = 0;
    for (int pass = 0; pass < q->bounces; pass++) {
        int nl = 0;
        blight_t *lights = make_lights(q, recv, styled, bcs, &nl);
        log_verbose(q->log, "bounce pass %d: %d bounce lights", pass, nl);
        if (nl == 0) {
            free(lights);
            break;
        }
        memset(changed, 0, sizeof(bool) * (size_t)(nf > 0 ? nf : 1));
        bl_pass_t x = {.q = q,
                       .lights = lights,
                       .nlights = nl,
                       .recv = recv,
                       .changed = changed,
                       .scale = q->bouncescale,
                       .cull_scale = cull,
                       .scaledist = q->world_light_keys.dist};
        make_reach(&x);
        x.avx2 = cpu_has_avx2();
        static const dist_codec_t codec = {bl_size, bl_pack, bl_unpack, false};
        dist_loop_t *dl = dist_loop_begin(q->opts->dist, nf, &codec, &x);
#pragma omp parallel num_threads(q->opts->threads) reduction(+ : rays)
        for (long item; dist_loop_next(dl, &item); dist_loop_finished(dl, item)) rays += gather_face(&x, (int)item);
        dist_loop_end(dl);
        free(x.reach_cull);
        free(x.reach_near);
        free(x.lpos);
        free(x.lnrm);
        free(x.lbyte);
        free(x.lmask);
        /* a face no rank changed received nothing in this pass */
        for (int fi = 0; fi < nf; fi++)
            if (!changed[fi]) recv[fi].n = 0;
        free(lights);
    }
    dist_sum_long(q->opts->dist, &rays, 1);
    q->rays += rays;
    free(changed);
    free(recv);
    return true;
}
