/* Direct light per luxel: point and spot lights with qrad3's linear falloff
 * (or inverse / inverse-square), surface-light pieces as exact polygon
 * emitters, the sun through sky faces with a penumbra from a fixed disk
 * pattern, and the sky dome from a fixed set of directions.
 *
 * Work is per face: each face keeps its own buffers, so threads never share
 * an accumulator and the result does not depend on scheduling. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "direct.h"
#include "bounce.h"
#include "decoupled.h"
#include "dirt.h"
#include "facegeom.h"
#include "qrad.h"
#include "surflights.h"
#include "trace.h"
#include "../common/crmath.h"
#include "../common/dist.h"
#include "../common/log.h"
#include "../common/mem.h"

#define SUN_SAMPLES_SOFT 16
#define DOME_SAMPLES 48
/* How far behind a face's plane one of ericw-tools' suns may stand and still
 * light it, at its grazing share: its LightFace_Sky tests
 * LIGHT_ANGLE_EPSILON (0.01) for flat faces only, which the dome follows;
 * the edge-on sun rule was written from a reading of ANGLE_EPSILON (0.001)
 * and keeps it until the two are measured against the peer together (0.01
 * there moves 1592 bytes of spirit2dm4-ericwkeys, its figure 1.001 / 0.988
 * to 1.002 / 0.988). */
#define ERICW_DOME_ANGLE_EPSILON 0.01
#define ERICW_SUN_ANGLE_EPSILON 0.001
/* Offset of -extra sub-samples from the luxel centre, texture units. */
#define EXTRA_OFFSET 4.0

typedef struct sun_pattern_t {
    const sun_t *sun;
    vec3_t dirs[SUN_SAMPLES_SOFT];
    trace_dir_t tdirs[SUN_SAMPLES_SOFT]; /* dirs as traced */
    int count;
} sun_pattern_t;

typedef struct direct_ctx_t {
    sun_pattern_t suns[1 + MAX_EXTRA_SUNS]; /* [0]: q->sun, when on */
    int nsuns;
    vec3_t *dome_dirs; /* towards the sky */
    trace_dir_t *dome_tdirs[2]; /* dome_dirs as traced: [1] mirrored (_sunlight3) */
    int ndome;
    bool dome_ring;   /* ericw-tools' ring of suns (opts->dome_suns), not qrad's lattice */
    double dome_norm; /* qrad: sum of dome_dirs[k].z, so an open floor sees `dome`; ring: the sun count */
    uint8_t *sees_sky; /* per cluster: its PVS holds a cluster with a sky face; NULL: unknown */
} direct_ctx_t;

/* Sun and dome rays can only reach a sky face from a cluster whose PVS
 * holds one, so luxels elsewhere skip them (as qrad3 culls by the PVS). */
static uint8_t *sky_clusters(const qrad_t *q)
{
    if (!q->pvs || q->numclusters <= 0) return NULL;
    uint8_t *has = q2_calloc(q->numclusters, 1);
    bool any = false;
    for (int f = 0; f < q->bsp->numfaces; f++) {
        const rface_t *rf = &q->faces[f];
        if (!rf->sky || rf->model != 0 || rf->numpoints < 3) continue;
        int c = qrad_point_cluster(q->bsp, vec_ma(rf->centroid, SAMPLE_NUDGE, rf->normal));
        if (c < 0 || c >= q->numclusters) {
            free(has);
            return NULL; /* a sky face we cannot place: no culling */
        }
        has[c] = 1;
        any = true;
    }
    uint8_t *sees = q2_calloc(q->numclusters, 1);
    if (any)
        for (int a = 0; a < q->numclusters; a++)
            for (int b = 0; b < q->numclusters && !sees[a]; b++)
                if (has[b] && qrad_cluster_visible(q, a, b)) sees[a] = 1;
    free(has);
    return sees;
}

static inline bool may_see_sky(const qrad_t *q, const direct_ctx_t *dc, int cluster)
{
    return !dc->sees_sky || cluster < 0 || cluster >= q->numclusters || dc->sees_sky[cluster];
}

double polygon_irradiance(const vec3_t *pts, int n, vec3_t p, vec3_t normal)
{
    /* Clip to the receiver's hemisphere (Sutherland-Hodgman). */
    vec3_t buf[72];
    int m = 0;
    if (n > 64) n = 64;
    for (int i = 0; i < n; i++) {
        vec3_t a = pts[i], b = pts[(i + 1) % n];
        double da = vec_dot(normal, vec_sub(a, p)), db = vec_dot(normal, vec_sub(b, p));
        if (da >= 0) buf[m++] = a;
        if ((da >= 0) != (db >= 0)) {
            double t = da / (da - db);
            buf[m++] = vec_lerp(a, b, t);
        }
    }
    if (m < 3) return 0;
    double sum = 0;
    vec3_t r[72];
    for (int i = 0; i < m; i++) {
        /* vec_normalize's operations, in line: it is called for every
         * corner of every near surface light at every luxel */
        vec3_t d = vec_sub(buf[i], p);
        double len = sqrt(vec_dot(d, d));
        if (len < 1e-9) return 0;
        r[i] = vec_scale(d, 1.0 / len);
    }
    for (int i = 0; i < m; i++) {
        vec3_t a = r[i], b = r[(i + 1) % m];
        double c = vec_dot(a, b);
        c = c > 1 ? 1 : c < -1 ? -1 : c;
        double ang = cr_acos(c);
        vec3_t g = vec_cross(a, b);
        double gl = vec_len(g);
        if (gl < 1e-12) continue;
        sum += ang * vec_dot(normal, g) / gl;
    }
    return fabs(sum) / (2.0 * M_PI);
}

static void sun_pattern(const sun_t *s, sun_pattern_t *sp)
{
    /* A Vogel (golden-angle) spiral over the sun's disk: evenly spread and
     * fixed, so the penumbra is smooth and identical on every run. */
    sp->sun = s;
    vec3_t d = s->dir;
    vec3_t up = fabs(d.z) < 0.9 ? vec3(0, 0, 1) : vec3(1, 0, 0);
    vec3_t u = vec_normalize(vec_cross(up, d), NULL), v = vec_cross(d, u);
    if (s->penumbra > 0) {
        double rad = cr_tan(s->penumbra * M_PI / 180.0);
        sp->count = SUN_SAMPLES_SOFT;
        for (int k = 0; k < SUN_SAMPLES_SOFT; k++) {
            double r = rad * sqrt((k + 0.5) / SUN_SAMPLES_SOFT), a = k * 2.39996322972865332;
            sp->dirs[k] = vec_normalize(vec_add(d, vec_add(vec_scale(u, r * cr_cos(a)), vec_scale(v, r * cr_sin(a)))), NULL);
        }
    } else {
        sp->count = 1;
        sp->dirs[0] = d;
    }
    for (int k = 0; k < sp->count; k++) trace_dir_init(&sp->tdirs[k], sp->dirs[k]);
}

/* ericw-tools' sky dome (its SetupSkyDome, after q3map2): rings of suns at
 * evenly spaced elevations, 4 per ring per ring count, each ring turned by a
 * further 1/rings of a step, and one straight overhead; about `samples`
 * suns in all (its -sunsamples, 64: 4 rings of 16 and the zenith, 65).
 * Each sun carries 1/count of _sunlight2 and lights as its suns do: times
 * (1 - anglescale) + anglescale cos, so an open floor gets about 0.78 of
 * _sunlight2 where qrad's cosine-weighted lattice gives all of it. The
 * angles go through crmath, so every platform gets the same directions. */
static double cr_cos_deg(double d) { return cr_cos(d * (M_PI / 180.0)); }
static double cr_sin_deg(double d) { return cr_sin(d * (M_PI / 180.0)); }

vec3_t *qrad_dome_ring_dirs(int samples, int *count)
{
    int iterations = (int)floor(sqrt((samples - 1) / 4.0) + 0.5) + 1;
    if (iterations < 2) iterations = 2;
    int rings = iterations - 1, steps = rings * 4;
    double estep = 90.0 / (rings + 1), astep = 360.0 / steps;
    *count = steps * rings + 1;
    vec3_t *dirs = q2_malloc(sizeof(vec3_t) * (size_t)*count);
    int n = 0;
    double angle = 0, elev = estep * 0.5;
    for (int i = 0; i < rings; i++) {
        for (int j = 0; j < steps; j++) {
            double ca = cr_cos_deg(angle), sa = cr_sin_deg(angle), ce = cr_cos_deg(elev), se = cr_sin_deg(elev);
            /* the sun's light travels along (ca ce, sa ce, -se); the sky is
             * the other way */
            dirs[n++] = vec3(-ca * ce, -sa * ce, se);
            angle += astep;
        }
        elev += estep;
        angle += astep / rings;
    }
    dirs[n++] = vec3(0, 0, 1);
    return dirs;
}

static void dome_ring(int samples, direct_ctx_t *dc)
{
    dc->dome_dirs = qrad_dome_ring_dirs(samples, &dc->ndome);
    dc->dome_norm = dc->ndome;
}

static void make_patterns(const qrad_t *q, direct_ctx_t *dc)
{
    dc->nsuns = 0;
    if (q->sun.on) sun_pattern(&q->sun, &dc->suns[dc->nsuns++]);
    for (int k = 0; k < q->numsuns; k++)
        if (q->suns[k].on) sun_pattern(&q->suns[k], &dc->suns[dc->nsuns++]);
    dc->dome_norm = 0;
    dc->dome_ring = q->opts->dome_suns > 0;
    if (dc->dome_ring) {
        dome_ring(q->opts->dome_suns, dc);
        return;
    }
    dc->ndome = DOME_SAMPLES;
    dc->dome_dirs = q2_malloc(sizeof(vec3_t) * DOME_SAMPLES);
    for (int k = 0; k < DOME_SAMPLES; k++) {
        /* Uniform over the upper hemisphere (Fibonacci lattice). */
        double z = 1.0 - (k + 0.5) / DOME_SAMPLES, r = sqrt(1 - z * z), a = k * 2.39996322972865332;
        dc->dome_dirs[k] = vec3(r * cr_cos(a), r * cr_sin(a), z);
        dc->dome_norm += z;
    }
}

/* Normals this close (1 - cos) are the same facing. */
#define FLUSH_EPSILON 1e-6

/* ericw-tools' rule for one of its suns (the sun and each sun of its dome,
 * LightFace_Sky): a face whose plane the sun stands behind by more than eps
 * is skipped (false) when check_plane; otherwise the cosine at the sample
 * counts from 0, so a sun at or past grazing still gives its
 * (1 - anglescale) share. */
static bool ericw_sun_cos(vec3_t d, vec3_t nrm, vec3_t fnrm, bool check_plane, double eps, double *dot)
{
    if (check_plane && vec_dot(d, fnrm) < -eps) return false;
    double c = vec_dot(d, nrm);
    *dot = c > 0 ? c : 0;
    return true;
}

static bool light_reaches_face(const qrad_t *q, const light_t *l, int fi, const rface_t *f, const aabb_t *fb)
{
    if (!(q->mkeys[f->keys].object_mask & l->light_mask)) return false;
    /* Sphere of the light's range against the face's box (fb, already
     * grown by 2 for the sample nudge): first, as it is the cheapest test and rules out most
     * pairs before the loops over corners below. */
    double d2 = 0;
    for (int ax = 0; ax < 3; ax++) {
        double c = vec_comp(l->origin, ax), lo = vec_comp(fb->mins, ax), hi = vec_comp(fb->maxs, ax);
        double e = c < lo ? lo - c : c > hi ? c - hi : 0;
        d2 += e * e;
    }
    if (!(d2 <= l->range * l->range)) return false;
    if (l->type == LIGHT_SURFACE && l->point_emitter) {
        /* qrad3's emit_surface is a point: a face it can light has the
         * point in front of its plane (samples lie a unit off it). */
        if (l->face == fi) return false;
        if (vec_dot(f->normal, vec_ma(l->origin, SAMPLE_NUDGE, l->dir)) - f->dist <= 0) return false;
    } else if (l->type == LIGHT_SURFACE) {
        /* ericw's rescaled light reaches at right angles (0.5 + 0.5 cos),
         * so faces in the light's own plane facing its way, its own face
         * included, are lit through their samples lifted off the plane
         * (ericw-tools' q2_light_divzero: a light face lit by its own
         * light). qrad3's exact form factor gives them nothing. */
        bool flush = l->rescale && vec_dot(f->normal, l->dir) > 1 - FLUSH_EPSILON &&
                     fabs(vec_dot(l->dir, vec_sub(f->centroid, l->origin))) <= ON_EPSILON;
        if (l->face == fi && !flush) return false;
        bool front = flush;
        for (int k = 0; k < f->numpoints && !front; k++)
            if (vec_dot(l->dir, vec_sub(f->points[k], l->origin)) > ON_EPSILON) front = true;
        if (!front) return false;
        bool lfront = flush;
        for (int k = 0; k < l->numpoints && !lfront; k++)
            if (vec_dot(f->normal, l->points[k]) - vec_dot(f->normal, f->centroid) > ON_EPSILON) lfront = true;
        if (!lfront) return false;
    } else if (!f->twosided && vec_dot(f->normal, l->origin) - vec_dot(f->normal, f->centroid) <= 0) {
        return false;
    }
    return true;
}

double qrad_point_light_value(const light_t *l, double dist, double dot, vec3_t dir)
{
    double v;
    if (l->type == LIGHT_SPOT) {
        double c = -vec_dot(dir, l->dir);
        if (c <= l->stopdot) return 0;
        /* _softangle: linear in the cosine from the inner cone's edge. */
        if (l->softdot > 0 && c < l->softdot) dot *= (c - l->stopdot) / (l->softdot - l->stopdot);
    }
    double d = dist * l->wait;
    switch (l->falloff) {
    case FALLOFF_LINEAR: v = l->fade_dist > 0 ? l->intensity * (1 - dist / l->fade_dist) : l->intensity - d; break;
    case FALLOFF_INVERSE2B: v = l->intensity * (128.0 / (d + 128.0)) * (128.0 / (d + 128.0)); break;
    case FALLOFF_INVERSE: v = d > 128 ? l->intensity * 128.0 / d : l->intensity; break;
    case FALLOFF_INVERSE2: v = d > 128 ? l->intensity * (128.0 / d) * (128.0 / d) : l->intensity; break;
    default: v = l->intensity; break;
    }
    return v * dot;
}

/* Sample point for texture coordinates (s, t): on the face's polygon, a
 * unit inside it, lifted off it. */
static vec3_t sub_sample(const rface_t *f, double s, double t)
{
    vec3_t p = rface_clamp(f, rface_tex_to_world(f, s, t));
    double len;
    vec3_t d = vec_normalize(vec_sub(f->centroid, p), &len);
    p = vec_ma(p, len < 2.0 ? len * 0.5 : 1.0, d);
    return vec_ma(p, SAMPLE_NUDGE, f->normal);
}

/* A candidate light's point that luxels aim at, and how far it reaches
 * (its range and 2): the same for every luxel of the face, so worked out
 * once a face (light_face). */
typedef struct cand_target_t {
    vec3_t target;
    double reach;
} cand_target_t;

/* vis (may be NULL): per candidate, 0 = trace (and record the answer for
 * surface lights), 1 = known visible, 2 = known blocked. wit: per
 * candidate, the solid leaf that blocked the face's last ray to it (-1
 * none), tried first (trace_occluded_channels_from). sunseen: per sun
 * pattern and direction, what blocked the face's last ray along it
 * (trace_sky_dir's seen; only which walks are spared depends on it). */
static void gather(const qrad_t *q, const direct_ctx_t *dc, const rface_t *f, const int *cand,
                   const cand_target_t *ct, int ncand,
                   const int *slot, const int *sunslot, vec3_t p, int cluster, double weight, float *out, int n,
                   int idx, long *rays, uint8_t *vis, int *wit, trace_hit_t *sunseen, const float *dirt,
                   float *localmin, float *nobounce,
                   float *negative)
{
    /* Phong: the luxel's smoothed normal shades; the face's plane still
     * decides what is in front. */
    vec3_t nrm = f->lnormals ? f->lnormals[idx] : f->normal;
    /* Read once: the stores to vis (bytes, which may alias anything) and
     * to *rays would otherwise make every luxel's every light load these
     * again (base1-test: about 150M instructions at default settings). */
    const bool twosided = f->twosided, filter = q->filter.numnodes > 0, model_shadows = qrad_any_model_shadows(q);
    const int model = f->model, head = trace_head_node(q);
    long nrays = 0;
    for (int c = 0; c < ncand; c++) {
        const light_t *l = &q->lights[cand[c]];
        const bool surface = l->type == LIGHT_SURFACE;
        double dist;
        vec3_t target = ct[c].target;
        vec3_t delta = vec_sub(target, p);
        dist = sqrt(vec_dot(delta, delta));
        if (dist < 1e-9) continue;
        vec3_t dir = vec_scale(delta, 1.0 / dist);
        if (dist > ct[c].reach) continue;
        double dot = vec_dot(dir, nrm);
        vec3_t add;
        if (surface) {
            if (l->point_emitter) {
                /* qrad3's GatherSampleLight for emit_surface: both cosines
                 * above 0.001, no distance clamp, every share added */
                double dot2 = -vec_dot(dir, l->dir);
                if (dot <= 0.001 || dot2 <= 0.001) continue;
                add = vec_scale(l->color, l->area * dot * dot2 / (dist * dist));
            } else {
                if (vec_dot(l->dir, vec_sub(p, l->origin)) <= 0) continue;
                double ff;
                if (l->rescale) ff = qrad_surflight_rescaled(l, dist, dot, dir);
                else if (dist * dist < 16.0 * l->area) ff = polygon_irradiance(l->points, l->numpoints, p, nrm);
                else {
                    double dot2 = -vec_dot(dir, l->dir);
                    if (dot <= 0 || dot2 <= 0) continue;
                    ff = l->area * dot * dot2 / (M_PI * dist * dist);
                }
                if (ff * l->intensity < LIGHT_CUTOFF) continue;
                add = vec_scale(l->color, ff);
            }
        } else {
            /* a liquid or translucent face takes light from behind as from
             * in front (ericw-tools' twosided lightsurf: the cosine's
             * magnitude) */
            if (twosided && dot < 0) dot = -dot;
            if (l->falloff == FALLOFF_LOCALMIN) {
                /* ericw's delay 4: a floor at the light's level for what it
                 * sees, no falloff, never added (see minlight.c). */
                if (!localmin || dot <= 0.001 || slot[c] != 0) continue;
                if (l->type == LIGHT_SPOT && -vec_dot(dir, l->dir) <= l->stopdot) continue;
                add = vec_scale(l->color, l->intensity);
            } else {
                if (dot <= 0.001) continue;
                if (l->negative && (!negative || slot[c] != 0)) continue;
                /* ericw's _anglescale weighs the cosine; 1 is qrad3's. */
                double ang = l->anglescale == 1 ? dot : (1 - l->anglescale) + l->anglescale * dot;
                double v = qrad_point_light_value(l, dist, ang, dir);
                if (v <= LIGHT_CUTOFF) continue;
                add = vec_scale(l->color, v);
            }
        }
        if (!qrad_cluster_visible(q, cluster, l->cluster)) continue;
        if (vis && vis[c]) {
            if (vis[c] == 2) continue;
        } else {
            nrays++;
            bool blocked = trace_occluded_channels_from(q, head, p, target, l->shadow_mask, &wit[c]);
            if (!blocked && model_shadows) blocked = trace_occluded_models(q, p, target, model, l->shadow_mask);
            if (vis && surface) vis[c] = blocked ? 2 : 1;
            if (blocked) continue;
        }
        /* what the tree let through, alpha-tested faces may stop and
         * translucent ones tint (trace.c); every luxel asks, as a
         * neighbour's answer above is the tree's alone */
        if (filter) {
            vec3_t tint = vec3(1, 1, 1);
            if (!trace_filter(q, p, target, &tint)) continue;
            add = vec3(add.x * tint.x, add.y * tint.y, add.z * tint.z);
        }
        if (dirt && l->dirt)
            add = vec_scale(add, l->dirtcustom ? qrad_dirt_factor(q, f, idx, l->dirtscale, l->dirtgain) : dirt[idx]);
        if (l->falloff == FALLOFF_LOCALMIN && !surface) {
            float *m = localmin + (size_t)idx * 3;
            m[0] = fmaxf(m[0], (float)add.x);
            m[1] = fmaxf(m[1], (float)add.y);
            m[2] = fmaxf(m[2], (float)add.z);
            continue;
        }
        if (l->negative) {
            float *m = negative + (size_t)idx * 3;
            m[0] += (float)(add.x * weight);
            m[1] += (float)(add.y * weight);
            m[2] += (float)(add.z * weight);
            continue;
        }
        if (nobounce && slot[c] == 0 && l->bouncescale != 1) {
            /* _bouncescale: this share of the light stays out of the bounces. */
            float *b = nobounce + (size_t)idx * 3;
            double k = (1 - l->bouncescale) * weight;
            b[0] += (float)(add.x * k);
            b[1] += (float)(add.y * k);
            b[2] += (float)(add.z * k);
        }
        float *o = out + ((size_t)slot[c] * n + idx) * 3;
        o[0] += (float)(add.x * weight);
        o[1] += (float)(add.y * weight);
        o[2] += (float)(add.z * weight);
    }
    *rays += nrays;
    /* Suns (and the sky dome) are on light channel 1, as in ericw-tools. */
    if (dc->nsuns > 0 && (q->mkeys[f->keys].object_mask & 1) && may_see_sky(q, dc, cluster)) {
        for (int si = 0; si < dc->nsuns; si++) {
            const sun_pattern_t *sp = &dc->suns[si];
            if (sunslot[si] < 0) continue;
            const char *stex = sp->sun->texture;
            const double sa = q->sun_anglescale;
            vec3_t acc = vec3(0, 0, 0);
            for (int k = 0; k < sp->count; k++) {
                double dot = vec_dot(sp->dirs[k], nrm);
                if (f->twosided) {
                    /* as ericw-tools' LightFace_Sky for a twosided face:
                     * no plane test, the cosine's magnitude */
                    dot = fabs(dot);
                    if (!q->opts->sun_grazing && dot <= 0) continue;
                } else if (q->opts->sun_grazing) {
                    if (!ericw_sun_cos(sp->dirs[k], nrm, f->normal, !f->lnormals, ERICW_SUN_ANGLE_EPSILON, &dot))
                        continue;
                } else if (dot <= 0) {
                    continue;
                }
                (*rays)++;
                double hd;
                int hit = trace_sky_dir(&q->tracer, p, &sp->tdirs[k], 2 * WORLD_EXTENT, &hd,
                                        &sunseen[si * SUN_SAMPLES_SOFT + k]);
                if (hit < 0) continue;
                if (stex[0] && strcasecmp(q->bsp->texinfo[q->bsp->faces[hit].texinfo].texture, stex)) continue;
                if (qrad_any_model_shadows(q) && trace_occluded_models(q, p, vec_ma(p, hd, sp->dirs[k]), f->model, 1))
                    continue;
                /* ericw's _anglescale weighs the suns' cosine too; 1 is qrad3's. */
                double w = sa == 1 ? dot : (1 - sa) + sa * dot;
                vec3_t tint = vec3(1, 1, 1);
                if (q->filter.numnodes && !trace_filter(q, p, vec_ma(p, hd, sp->dirs[k]), &tint)) continue;
                acc = vec3(acc.x + w * tint.x, acc.y + w * tint.y, acc.z + w * tint.z);
            }
            double scale = sp->sun->intensity / sp->count * weight;
            acc = vec3(acc.x * scale, acc.y * scale, acc.z * scale);
            if (dirt && sp->sun->dirt) acc = vec3(acc.x * dirt[idx], acc.y * dirt[idx], acc.z * dirt[idx]);
            float *o = out + ((size_t)sunslot[si] * n + idx) * 3;
            o[0] += (float)(acc.x * sp->sun->color.x);
            o[1] += (float)(acc.y * sp->sun->color.y);
            o[2] += (float)(acc.z * sp->sun->color.z);
        }
    }
}

/* arghrad's _sun_diffuse: sunlight diffused by haze glows around what the
 * sun lights, fading within about SUN_DIFFUSE_RADIUS units (divided by
 * _sun_difwait). Here each luxel looks at SUN_DIFFUSE_SAMPLES fixed points
 * on a disk of that radius in its face's plane (a Vogel spiral): the glow
 * is _sun_diffuse times the tent-weighted share of them the sun reaches.
 * The points cross face boundaries, so a floor split by qbsp glows evenly. */
#define SUN_DIFFUSE_RADIUS 64.0
#define SUN_DIFFUSE_SAMPLES 16

static void sun_diffuse(const qrad_t *q, rface_t *f, long *rays)
{
    const sun_t *s = &q->sun;
    double R = SUN_DIFFUSE_RADIUS / s->diffwait;
    vec3_t n = f->normal;
    vec3_t up = fabs(n.z) < 0.9 ? vec3(0, 0, 1) : vec3(1, 0, 0);
    vec3_t u = vec_normalize(vec_cross(up, n), NULL), v = vec_cross(n, u);
    /* the spiral's offsets are the same for every luxel: once a face */
    double rs[SUN_DIFFUSE_SAMPLES], cs[SUN_DIFFUSE_SAMPLES], sn[SUN_DIFFUSE_SAMPLES];
    for (int k = 0; k < SUN_DIFFUSE_SAMPLES; k++) {
        double a = k * 2.39996322972865332;
        rs[k] = R * sqrt((k + 0.5) / SUN_DIFFUSE_SAMPLES);
        cs[k] = cr_cos(a);
        sn[k] = cr_sin(a);
    }
    for (int idx = 0; idx < f->w * f->h; idx++) {
        vec3_t nrm = f->lnormals ? f->lnormals[idx] : n;
        double dot = vec_dot(s->dir, nrm);
        if (dot <= 0) continue;
        double sum = 0, wsum = 0;
        for (int k = 0; k < SUN_DIFFUSE_SAMPLES; k++) {
            double r = rs[k];
            double w = 1 - r / R;
            wsum += w;
            vec3_t p = vec_add(f->samples[idx], vec_add(vec_scale(u, r * cs[k]), vec_scale(v, r * sn[k])));
            (*rays)++;
            if (trace_sky(&q->tracer, p, s->dir, 2 * WORLD_EXTENT, NULL) >= 0) sum += w;
        }
        double val = s->diffuse * dot * sum / wsum;
        float *o = f->light + (size_t)idx * 3;
        o[0] += (float)(val * s->color.x);
        o[1] += (float)(val * s->color.y);
        o[2] += (float)(val * s->color.z);
    }
}

/* Sky dome light at p: the weighted share of the fixed directions that
 * reach a sky face, times _sunlight2. */
static double dome_at(const qrad_t *q, const direct_ctx_t *dc, vec3_t p, vec3_t nrm, vec3_t fnrm, long *rays,
                      bool lower, trace_hit_t *seen)
{
    double acc = 0;
    const double sa = q->sun_anglescale;
    /* read once, and the rays counted locally: qrad's own lattice (the
     * default) then runs a loop without the ring's tests; [1] is the
     * mirrored lower hemisphere of _sunlight3 */
    const trace_dir_t *tdirs = dc->dome_tdirs[lower];
    const int nd = dc->ndome;
    const bool ring = dc->dome_ring;
    long nrays = 0;
    for (int k = 0; k < nd; k++) {
        vec3_t d = tdirs[k].d;
        double dot = vec_dot(d, nrm);
        if (ring) {
            if (!ericw_sun_cos(d, nrm, fnrm, true, ERICW_DOME_ANGLE_EPSILON, &dot)) continue;
        } else if (dot <= 0) {
            continue;
        }
        nrays++;
        if (trace_sky_dir(&q->tracer, p, &tdirs[k], 2 * WORLD_EXTENT, NULL, &seen[k]) < 0) continue;
        acc += ring ? (1 - sa) + sa * dot : dot;
    }
    *rays += nrays;
    return acc * (lower ? q->sun.dome3 : q->sun.dome) / dc->dome_norm;
}



/* Dome light is smooth: it is traced at every other luxel, and a luxel
 * whose traced neighbours agree within DOME_AGREE (or 10%) takes their
 * mean. */
#define DOME_AGREE 2.0

static void dome_face(const qrad_t *q, const direct_ctx_t *dc, rface_t *f, long *rays, bool lower)
{
    if (!(q->mkeys[f->keys].object_mask & 1)) return;
    bool any = false;
    for (int k = 0; k < f->w * f->h && !any; k++) any = may_see_sky(q, dc, f->clusters[k]);
    if (!any) return;
    int n = f->w * f->h;
    double *v = q2_malloc(sizeof(double) * n);
    /* per direction, what blocked the face's last ray of it */
    trace_hit_t *seen = q2_malloc(sizeof(trace_hit_t) * (size_t)(dc->ndome > 0 ? dc->ndome : 1));
    for (int k = 0; k < dc->ndome; k++) seen[k] = (trace_hit_t){-1, -1, 0};
    for (int pass = 0; pass < 2; pass++)
        for (int j = 0; j < f->h; j++)
            for (int i = 0; i < f->w; i++) {
                bool even = !(i & 1) && !(j & 1);
                if (even != (pass == 0)) continue;
                int idx = j * f->w + i;
                if (pass == 1) {
                    double lo = INFINITY, hi = -INFINITY, sum = 0;
                    int nb[4], nn = qrad_traced_neighbours(f, i, j, nb);
                    for (int k = 0; k < nn; k++) {
                        double x = v[nb[k]];
                        lo = x < lo ? x : lo;
                        hi = x > hi ? x : hi;
                        sum += x;
                    }
                    if (nn >= 2 && hi - lo <= fmax(DOME_AGREE, 0.1 * hi)) {
                        v[idx] = sum / nn;
                        continue;
                    }
                }
                v[idx] = may_see_sky(q, dc, f->clusters[idx])
                             ? dome_at(q, dc, f->samples[idx], f->lnormals ? f->lnormals[idx] : f->normal, f->normal, rays,
                                       lower, seen)
                             : 0;
            }
    vec3_t col = lower ? q->sun.dome3_color : q->sun.dome_color;
    for (int k = 0; k < n; k++) {
        if (f->dirtmap && q->dirt.dome) v[k] *= f->dirtmap[k];
        float *o = f->light + (size_t)k * 3;
        o[0] += (float)(v[k] * col.x);
        o[1] += (float)(v[k] * col.y);
        o[2] += (float)(v[k] * col.z);
    }
    free(seen);
    free(v);
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* Lights f, face fi's vanilla rface or its decoupled one (decoupled.c:
 * both have fi's geometry and keys); returns the number of styles that
 * were dropped. */
static int light_face(const qrad_t *q, const direct_ctx_t *dc, int fi, rface_t *f, long *rays)
{
    int n = f->w * f->h;
    f->numstyles = 1;
    f->styles[0] = 0;
    if (!f->lit) {
        f->light = q2_calloc((size_t)n * 3, sizeof(float));
        return 0;
    }
    aabb_t fb = aabb_empty();
    for (int k = 0; k < f->numpoints; k++) aabb_add_point(&fb, f->points[k]);
    /* grown once here, not for every light (light_reaches_face) */
    fb.mins = vec3(fb.mins.x - 2, fb.mins.y - 2, fb.mins.z - 2);
    fb.maxs = vec3(fb.maxs.x + 2, fb.maxs.y + 2, fb.maxs.z + 2);
    int *cand = q2_malloc(sizeof(int) * (q->numlights + 1));
    int *slot = q2_malloc(sizeof(int) * (q->numlights + 1));
    int ncand = 0;
    int styles[256], nst = 0;
    /* _lightignore: the model gets its minimum light only (minlight.c
     * clears what the bounces bring). */
    bool ignore = q->mkeys[f->keys].lightignore;
    for (int i = 0; i < q->numlights && !ignore; i++) {
        if (!light_reaches_face(q, &q->lights[i], fi, f, &fb)) continue;
        cand[ncand++] = i;
        int st = q->lights[i].style;
        if (st == 0) continue;
        bool seen = false;
        for (int k = 0; k < nst; k++) seen |= styles[k] == st;
        if (!seen && nst < 256) styles[nst++] = st;
    }
    /* Styled suns (arghrad's _sun_style, a _sun light's style). */
    for (int si = 0; si < dc->nsuns && !ignore; si++) {
        int st = dc->suns[si].sun->style;
        bool seen = st == 0;
        for (int k = 0; k < nst; k++) seen |= styles[k] == st;
        if (!seen && nst < 256) styles[nst++] = st;
    }
    qsort(styles, nst, sizeof(int), cmp_int);
    int dropped = 0;
    for (int k = 0; k < nst; k++) {
        if (f->numstyles < MAXLIGHTMAPS) f->styles[f->numstyles++] = styles[k];
        else dropped++;
    }
    /* Map candidates to style slots; lights of dropped styles are skipped. */
    int keep = 0;
    for (int c = 0; c < ncand; c++) {
        int st = q->lights[cand[c]].style, s = -1;
        for (int k = 0; k < f->numstyles; k++)
            if (f->styles[k] == st) s = k;
        if (s < 0) continue;
        cand[keep] = cand[c];
        slot[keep++] = s;
    }
    ncand = keep;
    cand_target_t *ct = q2_malloc(sizeof(cand_target_t) * (ncand > 0 ? ncand : 1));
    for (int c = 0; c < ncand; c++) {
        const light_t *l = &q->lights[cand[c]];
        ct[c].target = l->type == LIGHT_SURFACE ? vec_ma(l->origin, SAMPLE_NUDGE, l->dir) : l->origin;
        ct[c].reach = l->range + 2;
    }
    int sunslot[1 + MAX_EXTRA_SUNS];
    for (int si = 0; si < dc->nsuns; si++) {
        sunslot[si] = -1;
        for (int k = 0; k < f->numstyles && !ignore; k++)
            if (f->styles[k] == dc->suns[si].sun->style) sunslot[si] = k;
    }
    f->light = q2_calloc((size_t)f->numstyles * n * 3, sizeof(float));
    f->dirtmap = ignore ? NULL : qrad_dirt_face(q, fi, f, rays, &f->dirtraw);
    if (q->any_localmin) f->localmin = q2_calloc((size_t)n * 3, sizeof(float));
    if (q->any_bouncescale) f->nobounce = q2_calloc((size_t)n * 3, sizeof(float));
    if (q->any_negative) f->negative = q2_calloc((size_t)n * 3, sizeof(float));
    int *wit = q2_malloc(sizeof(int) * (size_t)(ncand > 0 ? ncand : 1));
    for (int c = 0; c < ncand; c++) wit[c] = -1;
    const int nseen = dc->nsuns * SUN_SAMPLES_SOFT;
    trace_hit_t *sunseen = q2_malloc(sizeof(trace_hit_t) * (size_t)(nseen > 0 ? nseen : 1));
    for (int k = 0; k < nseen; k++) sunseen[k] = (trace_hit_t){-1, -1, 0};
    if (!q->opts->extra) {
        /* Surface lights cast soft shadows, so their visibility is traced
         * at every other luxel first; a luxel between traced neighbours
         * that all agree takes their answer, any disagreement (or a
         * neighbour that was not traced) traces it. Point lights, whose
         * shadows are sharp, are always traced. */
        uint8_t *vis = q2_calloc((size_t)n * (ncand > 0 ? ncand : 1), 1);
        /* the surface lights among the candidates, found once a face, not
         * at every luxel of the second pass */
        int *scand = q2_malloc(sizeof(int) * (ncand > 0 ? ncand : 1)), nscand = 0;
        for (int c = 0; c < ncand; c++)
            if (q->lights[cand[c]].type == LIGHT_SURFACE) scand[nscand++] = c;
        for (int pass = 0; pass < 2; pass++)
            for (int j = 0; j < f->h; j++)
                for (int i = 0; i < f->w; i++) {
                    bool even = !(i & 1) && !(j & 1);
                    if (even != (pass == 0)) continue;
                    int idx = j * f->w + i;
                    uint8_t *v = vis + (size_t)idx * ncand;
                    if (pass == 1) {
                        int nb[4], nn = qrad_traced_neighbours(f, i, j, nb);
                        if (nn >= 2)
                            for (int sc = 0; sc < nscand; sc++) {
                                int c = scand[sc];
                                uint8_t first = vis[(size_t)nb[0] * ncand + c];
                                bool agree = first != 0;
                                for (int k = 1; k < nn && agree; k++) agree = vis[(size_t)nb[k] * ncand + c] == first;
                                if (agree) v[c] = first;
                            }
                    }
                    /* qrad3's PvsForOrigin finds no PVS for a sample in a
                     * leaf without a cluster, and it gathers nothing */
                    if (f->model > 0 && q->opts->qrad3_model_pvs && q->pvs && f->clusters[idx] < 0) continue;
                    gather(q, dc, f, cand, ct, ncand, slot, sunslot, f->samples[idx], f->clusters[idx], 1.0, f->light, n,
                           idx, rays, v, wit, sunseen, f->dirtmap, f->localmin, f->nobounce, f->negative);
                }
        free(vis);
        free(scand);
    } else {
        for (int j = 0; j < f->h; j++)
            for (int i = 0; i < f->w; i++) {
                int idx = j * f->w + i;
                double s0 = f->ext.texturemins[0] + i * LIGHTMAP_SCALE, t0 = f->ext.texturemins[1] + j * LIGHTMAP_SCALE;
                static const double offs[4][2] = {{-1, -1}, {1, -1}, {-1, 1}, {1, 1}};
                for (int k = 0; k < 4; k++) {
                    vec3_t p = sub_sample(f, s0 + offs[k][0] * EXTRA_OFFSET, t0 + offs[k][1] * EXTRA_OFFSET);
                    /* a sub-sample in solid takes the luxel's own sample,
                     * whose cluster facegeom.c found the same way */
                    int cl = -1;
                    if (f->model == 0) {
                        int leaf = trace_point_leaf(q, p);
                        if (qrad_leaf_solid(q->bsp, leaf)) {
                            p = f->samples[idx];
                            cl = f->clusters[idx];
                        } else {
                            cl = qrad_leaf_cluster(q->bsp, leaf);
                        }
                    }
                    gather(q, dc, f, cand, ct, ncand, slot, sunslot, p, cl, 0.25, f->light, n, idx, rays, NULL, wit,
                           sunseen, f->dirtmap, f->localmin, f->nobounce, f->negative);
                }
            }
    }
    free(wit);
    free(sunseen);
    free(cand);
    free(slot);
    free(ct);
    /* The occlusion itself served the lights with their own dirt scale
     * and gain; nothing after the direct pass reads it. */
    free(f->dirtraw);
    f->dirtraw = NULL;
    if (!ignore) {
        if (q->sun.on && q->sun.diffuse > 0 && (q->mkeys[f->keys].object_mask & 1)) sun_diffuse(q, f, rays);
        if (q->sun.dome > 0) dome_face(q, dc, f, rays, false);
        if (q->sun.dome3 > 0) dome_face(q, dc, f, rays, true);
    }
    /* Styles other than 0 that never reach a visible level are dropped
     * (they would only cost lightmap space). */
    for (int s = f->numstyles - 1; s >= 1; s--) {
        float mx = 0;
        const float *lp = f->light + (size_t)s * n * 3;
        for (int k = 0; k < n * 3; k++) mx = lp[k] > mx ? lp[k] : mx;
        if (mx * q->opts->scale >= 0.5) continue;
        memmove(f->light + (size_t)s * n * 3, f->light + (size_t)(s + 1) * n * 3,
                sizeof(float) * (size_t)(f->numstyles - s - 1) * n * 3);
        memmove(&f->styles[s], &f->styles[s + 1], sizeof(int) * (f->numstyles - s - 1));
        f->numstyles--;
    }
    return dropped;
}

/* A face's direct light as it travels between ranks (common/dist.h): its
 * style count, styles, which of the key features' buffers follow (dirt
 * factors, the local-minlight floor, the light kept out of the bounces),
 * then numstyles * w*h * 3 floats and those buffers. */
#define FACE_LIGHT_HEAD (sizeof(int) * (5 + MAXLIGHTMAPS))

static size_t face_light_size(const rface_t *f)
{
    size_t n = (size_t)f->w * f->h;
    return FACE_LIGHT_HEAD + sizeof(float) * n *
                                 ((size_t)f->numstyles * 3 + (f->dirtmap ? 1 : 0) + (f->localmin ? 3 : 0) +
                                  (f->nobounce ? 3 : 0) + (f->negative ? 3 : 0));
}

static void face_light_pack(const rface_t *f, uint8_t *out)
{
    size_t n = (size_t)f->w * f->h;
    int head[5 + MAXLIGHTMAPS] = {f->numstyles, f->dirtmap != NULL, f->localmin != NULL, f->nobounce != NULL,
                                  f->negative != NULL};
    memcpy(head + 5, f->styles, sizeof(int) * MAXLIGHTMAPS);
    memcpy(out, head, FACE_LIGHT_HEAD);
    uint8_t *p = out + FACE_LIGHT_HEAD;
    memcpy(p, f->light, sizeof(float) * (size_t)f->numstyles * n * 3);
    p += sizeof(float) * (size_t)f->numstyles * n * 3;
    if (f->dirtmap) memcpy(p, f->dirtmap, sizeof(float) * n), p += sizeof(float) * n;
    if (f->localmin) memcpy(p, f->localmin, sizeof(float) * n * 3), p += sizeof(float) * n * 3;
    if (f->nobounce) memcpy(p, f->nobounce, sizeof(float) * n * 3), p += sizeof(float) * n * 3;
    if (f->negative) memcpy(p, f->negative, sizeof(float) * n * 3);
}

static float *unpack_floats(const uint8_t **p, size_t count)
{
    float *v = q2_malloc(sizeof(float) * (count > 0 ? count : 1));
    memcpy(v, *p, sizeof(float) * count);
    *p += sizeof(float) * count;
    return v;
}

static void face_light_unpack(rface_t *f, const uint8_t *in)
{
    size_t n = (size_t)f->w * f->h;
    int head[5 + MAXLIGHTMAPS];
    memcpy(head, in, FACE_LIGHT_HEAD);
    f->numstyles = head[0];
    memcpy(f->styles, head + 5, sizeof(int) * MAXLIGHTMAPS);
    const uint8_t *p = in + FACE_LIGHT_HEAD;
    free(f->light);
    f->light = unpack_floats(&p, (size_t)f->numstyles * n * 3);
    free(f->dirtmap);
    f->dirtmap = head[1] ? unpack_floats(&p, n) : NULL;
    free(f->localmin);
    f->localmin = head[2] ? unpack_floats(&p, n * 3) : NULL;
    free(f->nobounce);
    f->nobounce = head[3] ? unpack_floats(&p, n * 3) : NULL;
    free(f->negative);
    f->negative = head[4] ? unpack_floats(&p, n * 3) : NULL;
}

/* What a face's item of the direct pass sends: its samples (made in the
 * item) and light when every rank needs them (q->full_exchange), and its
 * patches' origins and direct light (every rank's bounces read them); its
 * decoupled light never travels. */
typedef struct direct_pass_t {
    qrad_t *q;
    bool samples, light, patches;
} direct_pass_t;

#define PATCH_BYTES (2 * sizeof(vec3_t))

static size_t direct_size(void *ctx, long fi)
{
    const direct_pass_t *x = ctx;
    const rface_t *f = &x->q->faces[fi];
    return (x->samples ? qrad_samples_size(f) : 0) + (x->light ? face_light_size(f) : 0) +
           (x->patches ? PATCH_BYTES * (size_t)f->numpatches : 0);
}

static void direct_pack(void *ctx, long fi, uint8_t *out)
{
    const direct_pass_t *x = ctx;
    const rface_t *f = &x->q->faces[fi];
    if (x->samples) {
        qrad_samples_pack(f, out);
        out += qrad_samples_size(f);
    }
    if (x->light) {
        face_light_pack(f, out);
        out += face_light_size(f);
    }
    for (int k = 0; x->patches && k < f->numpatches; k++, out += PATCH_BYTES) {
        const patch_t *p = &x->q->patches[f->firstpatch + k];
        memcpy(out, &p->origin, sizeof(vec3_t));
        memcpy(out + sizeof(vec3_t), &p->direct, sizeof(vec3_t));
    }
}

static void direct_unpack(void *ctx, long fi, const uint8_t *in, size_t size)
{
    const direct_pass_t *x = ctx;
    rface_t *f = &x->q->faces[fi];
    (void)size;
    if (x->samples) {
        qrad_samples_unpack(f, in);
        in += qrad_samples_size(f);
    }
    if (x->light) {
        face_light_unpack(f, in);
        in += face_light_size(f);
    }
    for (int k = 0; x->patches && k < f->numpatches; k++, in += PATCH_BYTES) {
        patch_t *p = &x->q->patches[f->firstpatch + k];
        memcpy(&p->origin, in, sizeof(vec3_t));
        memcpy(&p->direct, in + sizeof(vec3_t), sizeof(vec3_t));
    }
}

bool qrad_direct(qrad_t *q, q2err_t *err)
{
    direct_ctx_t dc;
    make_patterns(q, &dc);
    for (int l = 0; l < 2; l++) {
        dc.dome_tdirs[l] = q2_malloc(sizeof(trace_dir_t) * (size_t)(dc.ndome > 0 ? dc.ndome : 1));
        for (int k = 0; k < dc.ndome; k++) {
            vec3_t d = dc.dome_dirs[k];
            if (l) d.z = -d.z;
            trace_dir_init(&dc.dome_tdirs[l][k], d);
        }
    }
    dc.sees_sky = (dc.nsuns > 0 || q->sun.dome > 0 || q->sun.dome3 > 0) ? sky_clusters(q) : NULL;
    progress_t pr;
    progress_begin(&pr, q->log, "direct", q->bsp->numfaces);
    long rays = 0, dropped_faces = 0;
    bool patches = q->patches != NULL;
    direct_pass_t x = {q, q->full_exchange, q->full_exchange, patches};
    static const dist_codec_t codec = {direct_size, direct_pack, direct_unpack, false};
    dist_loop_t *dl = dist_loop_begin(q->opts->dist, q->bsp->numfaces, &codec, &x);
#pragma omp parallel num_threads(q->opts->threads) reduction(+ : rays, dropped_faces)
    {
        long fi;
        while (dist_loop_next(dl, &fi)) {
            long r = 0;
            rface_t *f = &q->faces[fi];
            if (f->lit && !f->samples) {
                if (q->opts->qrad3_samples) qrad3_face_samples(q, f);
                else qrad_face_samples(q, f);
            }
            if (light_face(q, &dc, (int)fi, f, &r) > 0) dropped_faces++;
            if (patches && f->numpatches > 0) qrad_patch_face(q, (int)fi);
            /* The decoupled lightmap's direct light, in the same item (it
             * stays on this rank, which finishes the face). Its dropped
             * styles are the vanilla face's, counted once. */
            rface_t *d = qrad_decoupled_face(q, (int)fi);
            if (d && d->lit) {
                qrad_decoupled_keep_face(q, (int)fi);
                qrad_face_samples(q, d);
                light_face(q, &dc, (int)fi, d, &r);
            }
            rays += r;
            progress_update(&pr, dist_loop_finished(dl, fi));
        }
    }
    /* the faces this rank lit keep their samples and light (and their
     * decoupled light): it finishes them */
    if (!q->full_exchange || q->decoupled) {
        dist_items_free(q->direct_items);
        q->direct_items = dist_loop_items(dl);
    }
    dist_loop_end(dl);
    progress_end(&pr);
    free(dc.sees_sky);
    free(dc.dome_dirs);
    free(dc.dome_tdirs[0]);
    free(dc.dome_tdirs[1]);
    long sums[2] = {rays, dropped_faces};
    dist_sum_long(q->opts->dist, sums, 2);
    rays = sums[0];
    dropped_faces = sums[1];
    q->rays += rays;
    if (dropped_faces)
        log_warn(q->log, "%ld faces are reached by more than %d light styles; the highest styles were dropped",
                 dropped_faces, MAXLIGHTMAPS);
    (void)err;
    return true;
}
