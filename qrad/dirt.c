/* Dirtmapping (ambient occlusion), as ericw-tools borrowed it from q3map2:
 * from each luxel, rays in a cone of _dirtangle degrees around the face's
 * normal look up to _dirtdepth units for geometry; each hit at distance d
 * adds 1 - d/depth, the sum is averaged over the rays, and the luxel's
 * factor is 1 - _dirtscale * average^_dirtgain, clamped to 0..1. Lights that
 * use dirt are multiplied by it; a light with its own _dirtscale/_dirtgain
 * (ericw) applies them to the same average, which is then kept per luxel.
 * The suns follow _sunlight_dirt and the domes _sunlight2_dirt (default:
 * worldspawn's _dirt). As in ericw-tools, a face is dirtied by what shares
 * a light channel with it (_object_channel_mask): the world's faces (its
 * func_groups' masks) and the shadow-casting bmodels'.
 *
 * The directions are a fixed pattern (DIRT_ANGLES around the normal times
 * DIRT_ELEVATIONS rings, plus the normal); _dirtmode 1 turns each ring by an
 * integer hash of the face and luxel instead of rand(), so the output stays
 * the same on every run and thread count. Occlusion is smooth, so as the
 * dome light, it is traced at every other luxel and a luxel whose traced
 * neighbours agree (within DIRT_AGREE) takes their mean. 5 directions on 3
 * rings (16 rays with the normal) keep base1 with -dirt within 1.5x of its
 * time without (scripts/bench_qrad_keys); -preset ericw traces ericw-tools'
 * (q3map2's) 16 directions per ring (49 rays). */
#include <stdlib.h>
#include <string.h>

#include "dirt.h"
#include "facegeom.h"
#include "keys.h"
#include "qrad.h"
#include "trace.h"
#include "../common/crmath.h"
#include "../common/mem.h"

#define DIRT_ANGLES 5
#define DIRT_ELEVATIONS 3
/* Neighbours that agree within this (of the 0..1 factor) are averaged. */
#define DIRT_AGREE 0.25

void qrad_dirt_setup(qrad_t *q)
{
    dirt_t *d = &q->dirt;
    memset(d, 0, sizeof *d);
    d->depth = 128;
    d->scale = 1;
    d->gain = 1;
    d->angle = 88;
    const entity_t *ws = qrad_worldspawn(q);
    int wd = 0;
    if (ws) {
        wd = qrad_key_int(q, ws, "_dirt", 0, -1, 1);
        d->mode = qrad_key_int(q, ws, "_dirtmode", 0, 0, 1);
        d->depth = qrad_key_float(q, ws, "_dirtdepth", 128, 1, 65536);
        d->scale = qrad_key_float(q, ws, "_dirtscale", 1, 0, 100);
        d->gain = qrad_key_float(q, ws, "_dirtgain", 1, 0.01, 100);
        d->angle = qrad_key_float(q, ws, "_dirtangle", 88, 1, 90);
    }
    d->global = q->opts->dirt > 0 || (q->opts->dirt == 0 && wd > 0);
    d->on = d->global;
    /* ericw's _sunlight2_dirt: the domes (_sunlight2 and _sunlight3) follow
     * _dirt unless it says otherwise; -nodirt turns them off too.
     * _sunlight_dirt is read with the suns (lights.c). */
    int dd = ws ? qrad_key_int(q, ws, "_sunlight2_dirt", 0, -1, 1) : 0;
    d->dome = q->opts->dirt >= 0 && (dd > 0 || (dd == 0 && d->global));
    if (d->dome) d->on = true;
}

/* 1 - scale * occlusion^gain, clamped to 0..1 (q3map2's formula). */
static double dirt_curve(double gather, double scale, double gain)
{
    if (gather <= 0) return 1.0;
    double r = 1.0 - scale * cr_pow(gather, gain);
    return r < 0 ? 0 : r > 1 ? 1 : r;
}

double qrad_dirt_factor(const qrad_t *q, const rface_t *f, int idx, double scale, double gain)
{
    if (!f->dirtmap) return 1.0;
    if ((scale < 0 && gain < 0) || !f->dirtraw) return f->dirtmap[idx];
    return dirt_curve(f->dirtraw[idx], scale < 0 ? q->dirt.scale : scale, gain < 0 ? q->dirt.gain : gain);
}

static uint32_t hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

static double dirt_at(const qrad_t *q, const rface_t *f, vec3_t p, uint32_t seed, long *rays)
{
    const dirt_t *d = &q->dirt;
    vec3_t n = f->normal;
    vec3_t up = fabs(n.z) < 0.9 ? vec3(0, 0, 1) : vec3(1, 0, 0);
    vec3_t u = vec_normalize(vec_cross(up, n), NULL), v = vec_cross(n, u);
    double estep = d->angle * M_PI / 180.0 / DIRT_ELEVATIONS;
    int mask = q->mkeys[f->keys].object_mask;
    bool channels = mask != 1 || q->world_channels || q->shadows.numnodes > 0;
    double gather = 0;
    int count = 0;
    const int na = q->opts->dirt_angles > 0 ? q->opts->dirt_angles : DIRT_ANGLES;
    /* each ring's elevation, and each direction's turn of the fixed
     * pattern (mode 0), once a sample rather than once a ray (cr_sincos
     * gives cr_sin's and cr_cos's bits) */
    double se[DIRT_ELEVATIONS], ce[DIRT_ELEVATIONS];
    for (int e = 0; e < DIRT_ELEVATIONS; e++) cr_sincos((e + 0.5) * estep, &se[e], &ce[e]);
    for (int k = 0; k <= na * DIRT_ELEVATIONS; k++) {
        vec3_t dir = n;
        if (k > 0) {
            int a = (k - 1) % na, e = (k - 1) / na;
            double turn = 0;
            if (d->mode == 1) turn = (hash32(seed ^ (uint32_t)(e * 0x9e3779b9U)) & 0xffff) / 65536.0;
            double ang = (a + turn) * 2 * M_PI / na, sa, ca;
            cr_sincos(ang, &sa, &ca);
            dir = vec_add(vec_scale(n, ce[e]), vec_add(vec_scale(u, se[e] * ca), vec_scale(v, se[e] * sa)));
        }
        double dist;
        (*rays)++;
        count++;
        int hit;
        if (!channels) {
            hit = trace_closest(&q->tracer, p, dir, d->depth, &dist);
        } else {
            /* ericw-tools: what shares a channel with the face dirties it,
             * the world's faces and the shadow-casting bmodels'. */
            hit = trace_closest_channels(q, &q->tracer, p, dir, d->depth, mask, &dist);
            double md;
            int hm = q->shadows.numnodes
                         ? trace_closest_channels(q, &q->shadows, p, dir, hit >= 0 ? dist : d->depth, mask, &md)
                         : -1;
            if (hm >= 0) hit = hm, dist = md;
        }
        if (hit >= 0 && !q->faces[hit].sky) gather += 1.0 - dist / d->depth;
    }
    return gather / count;
}

float *qrad_dirt_face(const qrad_t *q, int fi, const rface_t *f, long *rays, float **rawp)
{
    if (rawp) *rawp = NULL;
    if (!q->dirt.on || !f->lit || q->mkeys[f->keys].nodirt) return NULL;
    int n = f->w * f->h;
    float *out = q2_malloc(sizeof(float) * (n > 0 ? n : 1));
    /* The occlusion itself, kept for lights with their own scale and gain;
     * where the factors are interpolated, so is it. */
    float *raw = q->dirt.custom && rawp ? q2_malloc(sizeof(float) * (n > 0 ? n : 1)) : NULL;
    for (int pass = 0; pass < 2; pass++)
        for (int j = 0; j < f->h; j++)
            for (int i = 0; i < f->w; i++) {
                bool even = !(i & 1) && !(j & 1);
                if (even != (pass == 0)) continue;
                int idx = j * f->w + i;
                if (pass == 1) {
                    int nb[4], nn = qrad_traced_neighbours(f, i, j, nb);
                    double lo = 2, hi = -1, sum = 0;
                    for (int k = 0; k < nn; k++) {
                        double x = out[nb[k]];
                        lo = x < lo ? x : lo;
                        hi = x > hi ? x : hi;
                        sum += x;
                    }
                    /* One neighbour (a face's odd last row or column) is
                     * taken as it is: small faces are most of a map's, and
                     * tracing their every luxel would double the cost. */
                    if (nn >= 1 && hi - lo <= DIRT_AGREE) {
                        out[idx] = (float)(sum / nn);
                        if (raw) {
                            double rs = 0;
                            for (int k = 0; k < nn; k++) rs += raw[nb[k]];
                            raw[idx] = (float)(rs / nn);
                        }
                        continue;
                    }
                }
                uint32_t seed = hash32((uint32_t)fi * 2654435761U ^ (uint32_t)idx * 0x85ebca6bU);
                double g = dirt_at(q, f, f->samples[idx], seed, rays);
                out[idx] = (float)dirt_curve(g, q->dirt.scale, q->dirt.gain);
                if (raw) raw[idx] = (float)g;
            }
    if (rawp) *rawp = raw;
    return out;
}
