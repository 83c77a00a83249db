/* Radiosity for style 0 (and, with ericw's _bouncestyled, for each other
 * style): patches of -chop units (whole luxel blocks), form factors by ray
 * casting, then Jacobi iterations, then the bounced light filtered from the
 * patches of each luxel's plane into the luxels. Brush models that cast
 * shadows are seen by the rays too (ericw: only they bounce).
 *
 * Why rays and not qrad3's patch-to-patch transfers: casting a fixed set of
 * cosine-distributed rays from each patch costs patches x rays instead of
 * patches^2 visibility tests, and the weights of a patch's transfers sum to
 * exactly the fraction of its hemisphere that sees lit geometry, so energy
 * is conserved by construction (a closed box converges to E/(1-r) exactly,
 * where area-based form factors of nearby patches overshoot). The transfers
 * are found once; every bounce is then a cheap sweep over them, so many
 * bounces cost almost nothing. The ray pattern is a stratified grid with a
 * per-patch rotation from an integer hash: fixed, never rand(). */
#include <stdlib.h>
#include <string.h>

#include "bounce.h"
#include "color.h"
#include "facegeom.h"
#include "keys.h"
#include "qrad.h"
#include "trace.h"
#include "../common/crmath.h"
#include "../common/dist.h"
#include "../common/mem.h"

struct transfer_t {
    int patch;
    int count;
};

static int patch_luxels(const qrad_opts_t *o)
{
    int p = (int)floor(o->chop / LIGHTMAP_SCALE + 0.5);
    return p < 1 ? 1 : p;
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

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* A patch's transfers as they travel between ranks (common/dist.h):
 * each its patch as the difference from the one before (from the patch's
 * own index for the first; the list is sorted, so the differences are
 * small), zigzag-coded, then its ray count less one, both as base-128
 * varints (a transfer in about 3 bytes instead of 8). */
typedef struct transfers_t {
    qrad_t *q;
    transfer_t **per; /* each patch's transfers, exactly numtransfers (NULL for none) */
} transfers_t;

static size_t varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) v >>= 7, n++;
    return n;
}

static uint8_t *varint_put(uint8_t *o, uint64_t v)
{
    while (v >= 0x80) *o++ = (uint8_t)(v | 0x80), v >>= 7;
    *o++ = (uint8_t)v;
    return o;
}

static const uint8_t *varint_get(const uint8_t *i, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; i < end && shift < 64; shift += 7) {
        uint8_t b = *i++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
    }
    return i;
}

static uint64_t zigzag(int64_t d) { return d < 0 ? ((uint64_t)(-(d + 1)) << 1) | 1 : (uint64_t)d << 1; }
static int64_t unzigzag(uint64_t z) { return z & 1 ? -(int64_t)(z >> 1) - 1 : (int64_t)(z >> 1); }

static size_t patch_transfers_size(void *ctx, long pi)
{
    const transfers_t *x = ctx;
    const patch_t *p = &x->q->patches[pi];
    const transfer_t *t = x->per[pi];
    size_t n = varint_size((uint64_t)p->numtransfers);
    if (x->q->opts->qrad3_transfers) n += varint_size((uint64_t)p->lit);
    for (int k = 0, prev = (int)pi; k < p->numtransfers; prev = t[k++].patch)
        n += varint_size(zigzag((int64_t)t[k].patch - prev)) + varint_size((uint64_t)(t[k].count - 1));
    return n;
}

static void patch_transfers_pack(void *ctx, long pi, uint8_t *out)
{
    const transfers_t *x = ctx;
    const patch_t *p = &x->q->patches[pi];
    const transfer_t *t = x->per[pi];
    out = varint_put(out, (uint64_t)p->numtransfers);
    if (x->q->opts->qrad3_transfers) out = varint_put(out, (uint64_t)p->lit);
    for (int k = 0, prev = (int)pi; k < p->numtransfers; prev = t[k++].patch) {
        out = varint_put(out, zigzag((int64_t)t[k].patch - prev));
        out = varint_put(out, (uint64_t)(t[k].count - 1));
    }
}

static void patch_transfers_unpack(void *ctx, long pi, const uint8_t *in, size_t size)
{
    transfers_t *x = ctx;
    patch_t *p = &x->q->patches[pi];
    const uint8_t *end = in + size;
    uint64_t n, v;
    in = varint_get(in, end, &n);
    /* at most one transfer per byte pair: a bad count cannot allocate more */
    if (n > size) n = size;
    free(x->per[pi]);
    transfer_t *t = x->per[pi] = n ? q2_malloc(sizeof(transfer_t) * (size_t)n) : NULL;
    p->firsttransfer = 0;
    p->numtransfers = (int)n;
    if (x->q->opts->qrad3_transfers) {
        in = varint_get(in, end, &v);
        p->lit = (int)v;
    }
    for (int k = 0, prev = (int)pi; k < (int)n; prev = t[k++].patch) {
        in = varint_get(in, end, &v);
        t[k].patch = (int)(prev + unzigzag(v));
        in = varint_get(in, end, &v);
        t[k].count = (int)v + 1;
    }
}

/* Rays per patch: bounce_rays rounded down to a square. */
static int patch_ray_side(const qrad_opts_t *o)
{
    int N = o->bounce_rays > 0 ? o->bounce_rays : 64;
    int S = (int)floor(sqrt((double)N));
    return S < 1 ? 1 : S;
}

/* -preset qrad3: a liquid face too large for a lightmap still has patches,
 * as every face has in qrad3 (patches.c MakePatches), which the bounces
 * light and which pass it on (qrad_bounce_setup); it gathers nothing. */
static bool qrad3_liquid_patches(const qrad_t *q, int fi)
{
    const rface_t *f = &q->faces[fi];
    return q->opts->qrad3_light && qrad_face_liquid(q, fi) && f->w > 0 && f->h > 0 &&
           f->area > DEGENERATE_EPSILON * DEGENERATE_EPSILON;
}

void qrad_bounce_layout(qrad_t *q)
{
    int P = patch_luxels(q->opts), S = patch_ray_side(q->opts);
    int total = 0;
    for (int fi = 0; fi < q->bsp->numfaces; fi++) {
        rface_t *f = &q->faces[fi];
        f->numpatches = 0;
        if (!f->lit && !qrad3_liquid_patches(q, fi)) continue;
        f->pw = (f->w + P - 1) / P;
        f->ph = (f->h + P - 1) / P;
        f->firstpatch = total;
        f->numpatches = f->pw * f->ph;
        total += f->numpatches;
    }
    q->numpatches = total;
    /* the rank's threads fill the patches (and so take the page faults of
     * the fresh memory), face by face */
    q->patches = q2_calloc(total > 0 ? total : 1, sizeof(patch_t));
    int nchunk = (q->bsp->numfaces + QRAD_LOCAL_CHUNK - 1) / QRAD_LOCAL_CHUNK;
    dist_local_t *lt = dist_local_begin(q->opts->dist, nchunk);
#pragma omp parallel for schedule(dynamic, 1) num_threads(q->opts->threads)
    for (int ch = 0; ch < nchunk; ch++) {
        double t0 = dist_local_start(lt);
        for (int fi = ch * QRAD_LOCAL_CHUNK; fi < q->bsp->numfaces && fi < (ch + 1) * QRAD_LOCAL_CHUNK; fi++) {
            const rface_t *f = &q->faces[fi];
            for (int b = 0; b < f->ph; b++)
                for (int a = 0; a < f->pw; a++) {
                    patch_t *p = &q->patches[f->firstpatch + b * f->pw + a];
                    p->face = fi;
                    p->normal = f->normal;
                    /* A patch cut short by its face's edge covers fewer luxels;
                     * it gets fewer rays (a smaller stratified grid), each
                     * weighing more. */
                    int cnt = ((b + 1) * P < f->h ? P : f->h - b * P) * ((a + 1) * P < f->w ? P : f->w - a * P);
                    int g = (int)ceil(S * sqrt((double)cnt / (P * P)));
                    p->raygrid = g < 4 ? (S < 4 ? S : 4) : g > S ? S : g;
                }
        }
        dist_local_done(lt, ch, t0);
    }
    dist_local_end(lt);
}

void qrad_patch_face(qrad_t *q, int fi)
{
    int P = patch_luxels(q->opts);
    rface_t *f = &q->faces[fi];
    for (int b = 0; b < f->ph; b++)
        for (int a = 0; a < f->pw; a++) {
            patch_t *p = &q->patches[f->firstpatch + b * f->pw + a];
            if (!f->lit) {
                /* a liquid face without a lightmap (qrad3_liquid_patches):
                 * the block's middle, on the face, a unit off it as qrad3's
                 * patch origins are */
                double s = f->ext.texturemins[0] + (a * P + fmin(P, f->w - a * P) * 0.5 - 0.5) * LIGHTMAP_SCALE;
                double t = f->ext.texturemins[1] + (b * P + fmin(P, f->h - b * P) * 0.5 - 0.5) * LIGHTMAP_SCALE;
                p->origin = vec_ma(rface_clamp(f, rface_tex_to_world(f, s, t)), SAMPLE_NUDGE, f->normal);
                p->direct = vec3(0, 0, 0);
                continue;
            }
            vec3_t o = vec3(0, 0, 0), d = vec3(0, 0, 0);
            int cnt = 0;
            for (int j = b * P; j < (b + 1) * P && j < f->h; j++)
                for (int i = a * P; i < (a + 1) * P && i < f->w; i++) {
                    int idx = j * f->w + i;
                    o = vec_add(o, f->samples[idx]);
                    const float *l = f->light + (size_t)idx * 3;
                    d = vec_add(d, vec3(l[0], l[1], l[2]));
                    if (f->nobounce) {
                        const float *nb = f->nobounce + (size_t)idx * 3;
                        d = vec_sub(d, vec3(nb[0], nb[1], nb[2]));
                    }
                    cnt++;
                }
            p->origin = vec_scale(o, 1.0 / cnt);
            p->direct = vec_scale(d, 1.0 / cnt);
            /* qrad3 gathers no direct light on a liquid face (BuildFacelights
             * skips warp faces), so its patches only pass on what the
             * bounces bring them (see qrad_bounce_setup). */
            if (q->opts->qrad3_light && qrad_face_liquid(q, fi)) p->direct = vec3(0, 0, 0);
        }
}

/* Per liquid face the face on the other side of its surface (same plane,
 * other side, the same centre), -1 for none or another face; a ray that
 * meets a liquid face from behind lights that one. Faces of a plane sorted
 * together, so a pair is found without comparing every two faces. */
static int cmp_plane_face(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

static int *liquid_twins(const qrad_t *q)
{
    int nf = q->bsp->numfaces, n = 0;
    int *twin = q2_malloc(sizeof(int) * (nf > 0 ? nf : 1));
    int *key = q2_malloc(sizeof(int) * 2 * (nf > 0 ? nf : 1));
    for (int fi = 0; fi < nf; fi++) {
        twin[fi] = -1;
        if (qrad_face_liquid(q, fi)) key[2 * n] = q->bsp->faces[fi].planenum, key[2 * n + 1] = fi, n++;
    }
    qsort(key, n, sizeof(int) * 2, cmp_plane_face);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n && key[2 * b] == key[2 * a]; b++) {
            int fa = key[2 * a + 1], fb = key[2 * b + 1];
            if (q->bsp->faces[fa].side == q->bsp->faces[fb].side) continue;
            if (vec_len(vec_sub(q->faces[fa].centroid, q->faces[fb].centroid)) > ON_EPSILON) continue;
            if (twin[fa] < 0) twin[fa] = fb;
            if (twin[fb] < 0) twin[fb] = fa;
        }
    free(key);
    return twin;
}

/* qrad3_transfers: at most this many faces a bounce ray passes through
 * are lit (more than maps stack), and the ray goes on this far past each. */
#define SEE_THROUGH_MAX 3
#define SEE_THROUGH_STEP 0.01

/* A patch's ray k of its S x S cosine-weighted grid, jittered by the hash
 * of its number kk and turned by rot, into the hemisphere of side * nrm. */
static vec3_t patch_ray_dir(uint32_t seed, int kk, int k, int S, double rot, vec3_t u, vec3_t v, vec3_t nrm,
                            double side)
{
    uint32_t hk = hash32(seed ^ (uint32_t)(kk * 0x9e3779b9U));
    double j1 = (hk & 0xffff) / 65536.0, j2 = (hk >> 16) / 65536.0;
    double u1 = ((k % S) + j1) / S, u2 = ((k / S) + j2) / S;
    double r = sqrt(u1), phi = 2 * M_PI * (u2 + rot), sphi, cphi;
    cr_sincos(phi, &sphi, &cphi);
    return vec_add(vec_add(vec_scale(u, r * cphi), vec_scale(v, r * sphi)), vec_scale(nrm, side * sqrt(fmax(0.0, 1 - u1))));
}

/* The patch of face fi that holds world point hp. */
static inline int hit_patch(const qrad_t *q, int P, int fi, vec3_t hp)
{
    const rface_t *g = &q->faces[fi];
    double s, t;
    rface_world_to_tex(q, fi, hp, &s, &t);
    int li = (int)floor((s - g->ext.texturemins[0]) / LIGHTMAP_SCALE + 0.5);
    int lj = (int)floor((t - g->ext.texturemins[1]) / LIGHTMAP_SCALE + 0.5);
    li = li < 0 ? 0 : li >= g->w ? g->w - 1 : li;
    lj = lj < 0 ? 0 : lj >= g->h ? g->h - 1 : lj;
    return g->firstpatch + (lj / P) * g->pw + li / P;
}

/* qrad3_transfers: the faces a ray from o along dir passes through before
 * end (see-through tracer st) that face it (front) or face away from it
 * (!front), other than skip, go to slots (at most SEE_THROUGH_MAX, -1 where
 * none); returns how many. */
static int see_through_ray(const qrad_t *q, const tracer_t *st, int P, vec3_t o, vec3_t dir, double end, bool front,
                           int skip, int *slots)
{
    int n = 0;
    double t0 = 0;
    for (int c = 0; c < SEE_THROUGH_MAX; c++) {
        slots[c] = -1;
        double ld;
        int hl = st->numtris ? trace_closest(st, vec_ma(o, t0, dir), dir, end - t0, &ld) : -1;
        if (hl < 0) continue;
        t0 += ld + SEE_THROUGH_STEP;
        double d = vec_dot(dir, q->faces[hl].normal);
        if (hl == skip || (front ? d >= 0 : d <= 0)) continue;
        n++;
        if (q->faces[hl].numpatches > 0) slots[c] = hit_patch(q, P, hl, vec_ma(o, t0, dir));
    }
    return n;
}

bool qrad_bounce_setup(qrad_t *q, q2err_t *err)
{
    if (!q->patches) {
        /* Not laid out before the direct pass (tests): the patches now. */
        qrad_bounce_layout(q);
        int nchunk = (q->bsp->numfaces + QRAD_LOCAL_CHUNK - 1) / QRAD_LOCAL_CHUNK;
        dist_local_t *lt = dist_local_begin(q->opts->dist, nchunk);
#pragma omp parallel for schedule(dynamic, 1) num_threads(q->opts->threads)
        for (int ch = 0; ch < nchunk; ch++) {
            double t0 = dist_local_start(lt);
            for (int fi = ch * QRAD_LOCAL_CHUNK; fi < q->bsp->numfaces && fi < (ch + 1) * QRAD_LOCAL_CHUNK; fi++)
                qrad_patch_face(q, fi);
            dist_local_done(lt, ch, t0);
        }
        dist_local_end(lt);
    }
    int P = patch_luxels(q->opts), total = q->numpatches;
    int S = patch_ray_side(q->opts), N = S * S;
    /* Transfers: N rays per patch into fixed slots, then merged
     * (qrad3_transfers: K slots a ray, and as many rays again into the
     * back of a see-through face). */
    const bool see = q->opts->qrad3_transfers;
    const int K = see ? SEE_THROUGH_MAX + 1 : 1;
    const int Nmax = N * K * (see ? 2 : 1);
    transfer_t **per = q2_calloc(total > 0 ? (size_t)total : 1, sizeof(transfer_t *));
    long rays = 0;
    transfers_t tx = {q, per};
    /* -preset qrad3: its liquid surfaces are patches like any face
     * (patches.c MakePatches) and its transfers weigh each patch by its
     * solid angle, so a floor a few units under water sends nearly all its
     * light to the water's underside and back, not up into the room
     * (base1-test's lit pools: the walls and ceiling above them got about
     * four times qrad3's bounce). Rays stop at a liquid surface seen from
     * either side: the face of the pair facing the ray (qbsp writes both
     * sides, coplanar) takes the hit. */
    tracer_t liquids, seethru;
    memset(&liquids, 0, sizeof liquids);
    memset(&seethru, 0, sizeof seethru);
    int *twin = NULL;
    if (see && !tracer_build_see_through(&seethru, q, err)) {
        free(per);
        return false;
    }
    if (q->opts->qrad3_light) {
        if (!tracer_build_liquids(&liquids, q, err)) {
            tracer_free(&seethru);
            free(per);
            return false;
        }
        twin = liquid_twins(q);
    }
    static const dist_codec_t codec = {patch_transfers_size, patch_transfers_pack, patch_transfers_unpack, false};
    dist_loop_t *dl = dist_loop_begin(q->opts->dist, total, &codec, &tx);
#pragma omp parallel num_threads(q->opts->threads) reduction(+ : rays)
    {
    /* a patch's ray slots: scratch of the thread, sorted into its
     * transfers (qrad3_transfers makes them 8 times the rays) */
    int *h = q2_malloc(sizeof(int) * (size_t)Nmax);
    transfer_t *out = q2_malloc(sizeof(transfer_t) * (size_t)Nmax);
    for (long item; dist_loop_next(dl, &item); dist_loop_finished(dl, item)) {
        int pi = (int)item;
        patch_t *p = &q->patches[pi];
        vec3_t nrm = p->normal;
        vec3_t up = fabs(nrm.z) < 0.9 ? vec3(0, 0, 1) : vec3(1, 0, 0);
        vec3_t u = vec_normalize(vec_cross(up, nrm), NULL), v = vec_cross(nrm, u);
        int S = p->raygrid, N = S * S, lit = 0;
        uint32_t seed = hash32((uint32_t)pi * 2654435761U + 12345U);
        double rot = (seed & 0xffffff) / 16777216.0;
        for (int k = 0; k < N; k++) {
            vec3_t dir = patch_ray_dir(seed, k, k, S, rot, u, v, nrm, 1);
            /* K is 1 without qrad3_transfers: one store, not a memset call per ray */
            if (K == 1) h[k] = -1;
            else
                for (int c = 0; c < K; c++) h[k * K + c] = -1;
            double dist;
            rays++;
            int hf = trace_closest(&q->tracer, p->origin, dir, 2 * WORLD_EXTENT, &dist);
            if (q->shadows.numnodes) {
                /* ericw: brush models that cast shadows (_shadow) reflect
                 * light too, unless "_bounce" "-1"; the others are not
                 * seen by the bounces at all. */
                double md;
                int hm = trace_closest(&q->shadows, p->origin, dir, hf >= 0 ? dist : 2 * WORLD_EXTENT, &md);
                if (hm >= 0) hf = hm, dist = md;
            }
            if (liquids.numtris) {
                double ld;
                int hl = trace_closest(&liquids, p->origin, dir, hf >= 0 ? dist : 2 * WORLD_EXTENT, &ld);
                if (hl >= 0 && vec_dot(dir, q->faces[hl].normal) >= 0) hl = twin[hl];
                if (hl >= 0) hf = hl, dist = ld;
            }
            if (see) {
                /* qrad3's MakeTransfers gives a patch a transfer to every
                 * patch facing it that no solid leaf of the world hides:
                 * windows and brush models do not stop it, and each face
                 * of theirs the ray passes facing it is lit too (before
                 * what stops the ray); each counts in the patch's share,
                 * as does the face that stops the ray, or the void. */
                lit += see_through_ray(q, &seethru, P, p->origin, dir, hf >= 0 ? dist : 2 * WORLD_EXTENT, true, -1,
                                       h + k * K);
                if (hf < 0 || vec_dot(dir, q->faces[hf].normal) < 0) lit++;
            }
            if (hf < 0) continue;
            const rface_t *g = &q->faces[hf];
            /* a face without a lightmap may still have patches
             * (qrad3_liquid_patches) */
            if (g->numpatches == 0 || vec_dot(dir, g->normal) >= 0) continue;
            h[k * K + K - 1] = hit_patch(q, P, hf, vec_ma(p->origin, dist, dir));
        }
        int nslots = N * K;
        if (see && qrad3_see_through(q, p->face)) {
            /* MakeTransfers also passes a patch behind the shooter's plane
             * that faces away from it (both cosines negative, their
             * product positive) when no solid leaf is between: the two
             * sides of a window pane, the faces of a brush model, light
             * each other. So a see-through face's patch casts as many
             * rays into its back, each lighting the window and brush
             * model faces it passes from behind (its own face left out),
             * up to what stops it in the world. */
            for (int k = 0; k < N; k++) {
                vec3_t dir = patch_ray_dir(seed, k + N, k, S, rot, u, v, nrm, -1);
                int *hb = h + nslots + k * K;
                hb[K - 1] = -1;
                double dist;
                rays++;
                int hf = trace_closest(&q->tracer, p->origin, dir, 2 * WORLD_EXTENT, &dist);
                lit += see_through_ray(q, &seethru, P, p->origin, dir, hf >= 0 ? dist : 2 * WORLD_EXTENT, false, p->face,
                                       hb);
            }
            nslots += N * K;
        }
        p->lit = lit;
        qsort(h, (size_t)nslots, sizeof(int), cmp_int);
        int nt = 0;
        for (int k = 0; k < nslots; k++) {
            if (h[k] < 0) continue;
            if (nt > 0 && out[nt - 1].patch == h[k]) out[nt - 1].count++;
            else out[nt++] = (transfer_t){h[k], 1};
        }
        per[pi] = nt ? q2_malloc(sizeof(transfer_t) * (size_t)nt) : NULL;
        if (nt) memcpy(per[pi], out, sizeof(transfer_t) * (size_t)nt);
        p->firsttransfer = 0;
        p->numtransfers = nt;
    }
    free(h);
    free(out);
    }
    dist_loop_end(dl);
    tracer_free(&liquids);
    tracer_free(&seethru);
    free(twin);
    dist_sum_long(q->opts->dist, &rays, 1);
    q->rays += rays;
    /* one array, each patch's transfers after the previous patch's (a
     * patch holds only what its rays found: qrad3_transfers' slots are 8
     * times the rays, which a fixed stride kept for every patch) */
    size_t used = 0;
    for (int pi = 0; pi < total; pi++) used += (size_t)q->patches[pi].numtransfers;
    transfer_t *tr = q2_malloc(sizeof(transfer_t) * (used > 0 ? used : 1));
    used = 0;
    for (int pi = 0; pi < total; pi++) {
        patch_t *p = &q->patches[pi];
        if (p->numtransfers > 0) memcpy(tr + used, per[pi], sizeof(transfer_t) * (size_t)p->numtransfers);
        free(per[pi]);
        p->firsttransfer = (int)used;
        used += (size_t)p->numtransfers;
    }
    free(per);
    q->transfers = tr;
    (void)err;
    return true;
}


/* The reflectivity a patch bounces with: the texture's, greyed by
 * saturated by _tex_saturation_boost, greyed by worldspawn's
 * _bouncecolorscale, times the bounce scales; none on a
 * bmodel with "_bounce" "-1". */
static vec3_t patch_reflect(const qrad_t *q, const patch_t *p)
{
    const rface_t *f = &q->faces[p->face];
    if (q->mkeys && q->mkeys[f->keys].nobounce) return vec3(0, 0, 0);
    vec3_t r = f->reflect;
    if (q->tex_saturation_boost > 0) r = qrad_saturation_boost(r, q->tex_saturation_boost);
    if (q->bouncecolorscale >= 0) {
        double grey = (r.x + r.y + r.z) / 3;
        r = vec_lerp(vec3(grey, grey, grey), r, q->bouncecolorscale);
    }
    return vec_scale(r, q->bouncescale);
}

/* The sweeps over the patches go to the rank's threads in chunks of this
 * many patches. */
#define SOLVE_CHUNK 256

void qrad_bounce_solve(qrad_t *q, int bounces)
{
    const transfer_t *tr = q->transfers;
    int np = q->numpatches, nchunk = (np + SOLVE_CHUNK - 1) / SOLVE_CHUNK;
    dist_t *d = q->opts->dist;
    vec3_t *rf = q2_malloc(sizeof(vec3_t) * (np > 0 ? np : 1));
    dist_local_t *lt = dist_local_begin(d, nchunk);
#pragma omp parallel for schedule(dynamic, 1) num_threads(q->opts->threads)
    for (int c = 0; c < nchunk; c++) {
        double t0 = dist_local_start(lt);
        for (int pi = c * SOLVE_CHUNK; pi < np && pi < (c + 1) * SOLVE_CHUNK; pi++) {
            patch_t *p = &q->patches[pi];
            rf[pi] = patch_reflect(q, p);
            p->incident = vec3(0, 0, 0);
            /* qrad3_transfers: qrad3 normalizes a patch's transfers so
             * all its light is shared among the patches it lights (more
             * than one per ray through windows and brush models) */
            if (q->opts->qrad3_transfers && p->lit > 0)
                rf[pi] = vec_scale(rf[pi], (double)(p->raygrid * p->raygrid) / p->lit);
            p->exitance = vec3(rf[pi].x * p->direct.x, rf[pi].y * p->direct.y, rf[pi].z * p->direct.z);
        }
        dist_local_done(lt, c, t0);
    }
    dist_local_end(lt);
    vec3_t *next = q2_malloc(sizeof(vec3_t) * (np > 0 ? np : 1));
    for (int b = 0; b < bounces; b++) {
        /* gather into next (reading every patch's exitance), then update */
        for (int pass = 0; pass < 2; pass++) {
            lt = dist_local_begin(d, nchunk);
#pragma omp parallel for schedule(dynamic, 1) num_threads(q->opts->threads)
            for (int c = 0; c < nchunk; c++) {
                double t0 = dist_local_start(lt);
                for (int pi = c * SOLVE_CHUNK; pi < np && pi < (c + 1) * SOLVE_CHUNK; pi++) {
                    patch_t *p = &q->patches[pi];
                    if (pass == 0) {
                        vec3_t h = vec3(0, 0, 0);
                        for (int k = 0; k < p->numtransfers; k++) {
                            const transfer_t *t = &tr[p->firsttransfer + k];
                            h = vec_ma(h, t->count, q->patches[t->patch].exitance);
                        }
                        next[pi] = vec_scale(h, 1.0 / (p->raygrid * p->raygrid));
                    } else {
                        p->incident = next[pi];
                        vec3_t tot = vec_add(p->direct, p->incident);
                        p->exitance = vec3(rf[pi].x * tot.x, rf[pi].y * tot.y, rf[pi].z * tot.z);
                    }
                }
                dist_local_done(lt, c, t0);
            }
            dist_local_end(lt);
        }
    }
    free(next);
    free(rf);
}

typedef struct face_key_t {
    int planenum, side, model, face;
} face_key_t;

static int cmp_face_key(const void *a, const void *b)
{
    const face_key_t *x = a, *y = b;
    if (x->model != y->model) return x->model - y->model;
    if (x->planenum != y->planenum) return x->planenum - y->planenum;
    if (x->side != y->side) return x->side - y->side;
    return x->face - y->face;
}

/* The keys (made in face order) sorted as cmp_face_key sorts them: two
 * stable counting passes, by plane and side, then by model, instead of a
 * comparison sort (a millisecond of base1-test's serial time); qsort for
 * keys outside the ranges of a valid bsp. */
static void sort_face_keys(const bsp_t *bsp, face_key_t *keys, int nk)
{
    int nb = 2 * bsp->numplanes, nm = bsp->nummodels;
    for (int k = 0; k < nk; k++)
        if (keys[k].planenum < 0 || keys[k].planenum >= bsp->numplanes || (keys[k].side != 0 && keys[k].side != 1) ||
            keys[k].model < 0 || keys[k].model >= nm || (k > 0 && keys[k].face <= keys[k - 1].face)) {
            qsort(keys, nk, sizeof *keys, cmp_face_key);
            return;
        }
    face_key_t *tmp = q2_malloc(sizeof *tmp * (nk > 0 ? nk : 1));
    int *at = q2_calloc((size_t)(nb > nm ? nb : nm) + 1, sizeof(int));
    for (int k = 0; k < nk; k++) at[keys[k].planenum * 2 + keys[k].side + 1]++;
    for (int b = 0; b < nb; b++) at[b + 1] += at[b];
    for (int k = 0; k < nk; k++) tmp[at[keys[k].planenum * 2 + keys[k].side]++] = keys[k];
    memset(at, 0, sizeof(int) * ((size_t)(nb > nm ? nb : nm) + 1));
    for (int k = 0; k < nk; k++) at[tmp[k].model + 1]++;
    for (int m = 0; m < nm; m++) at[m + 1] += at[m];
    for (int k = 0; k < nk; k++) keys[at[tmp[k].model]++] = tmp[k];
    free(at);
    free(tmp);
}

/* Bounced light reaches a luxel from the patches of every face in its
 * plane (qbsp splits a floor into many faces) within one patch size,
 * weighted by a tent of the distance and by each patch's ray count. So
 * neighbouring faces agree along their shared edges (no seams) and the
 * rays' noise is averaged over several patches (no splotches). */
/* A face's style-0 light with the bounces added, as it travels between
 * ranks (common/dist.h); nothing for a face without patches. */
static size_t face_bounce_size(void *ctx, long fi)
{
    const rface_t *f = &((qrad_t *)ctx)->faces[fi];
    return f->numpatches && f->lit ? sizeof(float) * 3 * (size_t)f->w * f->h : 0;
}

static void face_bounce_pack(void *ctx, long fi, uint8_t *out)
{
    const rface_t *f = &((qrad_t *)ctx)->faces[fi];
    memcpy(out, f->light, face_bounce_size(ctx, fi));
}

static void face_bounce_unpack(void *ctx, long fi, const uint8_t *in, size_t size)
{
    memcpy(((qrad_t *)ctx)->faces[fi].light, in, size);
}

/* Which patches may reach each face's luxels: faces of the same plane
 * (same model and side), sorted, with their boxes. */
typedef struct neighbours_t {
    face_key_t *keys;
    int *group_of, *group_end;
    aabb_t *boxes;
} neighbours_t;

static void face_box_key(const qrad_t *q, int fi, void *ctx)
{
    neighbours_t *nb = ctx;
    const rface_t *f = &q->faces[fi];
    nb->boxes[fi] = aabb_empty();
    for (int k = 0; k < f->numpoints; k++) aabb_add_point(&nb->boxes[fi], f->points[k]);
    nb->keys[fi] = (face_key_t){q->bsp->faces[fi].planenum, q->bsp->faces[fi].side, f->model, f->numpatches > 0 ? fi : -1};
}

static void neighbours_build(const qrad_t *q, neighbours_t *nb)
{
    int nf = q->bsp->numfaces;
    nb->keys = q2_malloc(sizeof(face_key_t) * (nf > 0 ? nf : 1));
    nb->boxes = q2_malloc(sizeof(aabb_t) * (nf > 0 ? nf : 1));
    /* Each face's box and key on the rank's threads (reading every face's
     * record and points is most of the time); the keys of faces without
     * patches are marked (face -1) and dropped after. */
    qrad_faces_parallel(q, face_box_key, nb);
    int nk = 0;
    for (int fi = 0; fi < nf; fi++)
        if (nb->keys[fi].face >= 0) nb->keys[nk++] = nb->keys[fi];
    sort_face_keys(q->bsp, nb->keys, nk);
    nb->group_of = q2_malloc(sizeof(int) * (nf > 0 ? nf : 1));
    nb->group_end = q2_malloc(sizeof(int) * (nk > 0 ? nk : 1));
    const face_key_t *keys = nb->keys;
    for (int k = 0; k < nk; k++) {
        int g = k;
        if (k > 0 && keys[k - 1].model == keys[k].model && keys[k - 1].planenum == keys[k].planenum &&
            keys[k - 1].side == keys[k].side)
            g = nb->group_of[keys[k - 1].face];
        nb->group_of[keys[k].face] = g;
    }
    for (int k = nk - 1; k >= 0; k--)
        nb->group_end[k] =
            (k + 1 < nk && nb->group_of[keys[k + 1].face] == nb->group_of[keys[k].face]) ? nb->group_end[k + 1] : k + 1;
}

static void neighbours_free(neighbours_t *nb)
{
    free(nb->keys);
    free(nb->group_of);
    free(nb->group_end);
    free(nb->boxes);
}

/* Adds the patches' incident light to one face's luxels (out: w*h*3). */
static void apply_face(const qrad_t *q, const neighbours_t *nb, int fi, float *out)
{
    int P = patch_luxels(q->opts);
    double R = P * (double)LIGHTMAP_SCALE;
    const rface_t *f = &q->faces[fi];
    const aabb_t *boxes = nb->boxes;
    /* Candidate patches: faces of the same plane whose box comes
     * within R of this face's box, in the group's (sorted) order. */
    int g = nb->group_of[fi], *cand = NULL, nc = 0, cap = 0;
    for (int k = g; k < nb->group_end[g]; k++) {
        int gf = nb->keys[k].face;
        bool near = true;
        for (int ax = 0; ax < 3; ax++)
            if (vec_comp(boxes[gf].mins, ax) > vec_comp(boxes[fi].maxs, ax) + R + 2 ||
                vec_comp(boxes[gf].maxs, ax) < vec_comp(boxes[fi].mins, ax) - R - 2)
                near = false;
        if (!near) continue;
        for (int pi = q->faces[gf].firstpatch; pi < q->faces[gf].firstpatch + q->faces[gf].numpatches; pi++)
            ARRAY_PUSH(cand, nc, cap, pi);
    }
    const patch_t *pp = q->patches + f->firstpatch;
    for (int j = 0; j < f->h; j++)
        for (int i = 0; i < f->w; i++) {
            vec3_t p = f->samples[j * f->w + i];
            vec3_t h = vec3(0, 0, 0);
            double wsum = 0;
            for (int c = 0; c < nc; c++) {
                const patch_t *pt = &q->patches[cand[c]];
                double d = vec_len(vec_sub(pt->origin, p));
                if (d >= R) continue;
                double w = (1 - d / R) * (1 - d / R) * pt->raygrid * pt->raygrid;
                h = vec_ma(h, w, pt->incident);
                wsum += w;
            }
            if (wsum > 0) {
                h = vec_scale(h, 1.0 / wsum);
            } else {
                /* No patch centre within reach (a sliver face): its own
                 * nearest patch. */
                int a = i / P, b = j / P;
                h = pp[(b < f->ph ? b : f->ph - 1) * f->pw + (a < f->pw ? a : f->pw - 1)].incident;
            }
            float *l = out + (size_t)(j * f->w + i) * 3;
            l[0] += (float)h.x;
            l[1] += (float)h.y;
            l[2] += (float)h.z;
        }
    free(cand);
}

struct qrad_gather_t {
    neighbours_t nb;
};

qrad_gather_t *qrad_gather_begin(const qrad_t *q)
{
    qrad_gather_t *g = q2_calloc(1, sizeof *g);
    neighbours_build(q, &g->nb);
    return g;
}

void qrad_gather_face(const qrad_t *q, const qrad_gather_t *g, int fi)
{
    rface_t *f = &q->faces[fi];
    if (f->numpatches > 0 && f->lit) apply_face(q, &g->nb, fi, f->light);
}

void qrad_gather_end(qrad_gather_t *g)
{
    if (!g) return;
    neighbours_free(&g->nb);
    free(g);
}

typedef struct apply_ctx_t {
    qrad_t *q;
    const neighbours_t *nb;
} apply_ctx_t;

static size_t face_bounce_size_ctx(void *ctx, long fi) { return face_bounce_size(((apply_ctx_t *)ctx)->q, fi); }
static void face_bounce_pack_ctx(void *ctx, long fi, uint8_t *out) { face_bounce_pack(((apply_ctx_t *)ctx)->q, fi, out); }
static void face_bounce_unpack_ctx(void *ctx, long fi, const uint8_t *in, size_t size)
{
    face_bounce_unpack(((apply_ctx_t *)ctx)->q, fi, in, size);
}

void qrad_bounce_apply(qrad_t *q)
{
    neighbours_t nb;
    neighbours_build(q, &nb);
    int nf = q->bsp->numfaces;
    apply_ctx_t ac = {q, &nb};
    static const dist_codec_t codec = {face_bounce_size_ctx, face_bounce_pack_ctx, face_bounce_unpack_ctx, false};
    dist_loop_t *dl = dist_loop_begin(q->opts->dist, nf, &codec, &ac);
#pragma omp parallel num_threads(q->opts->threads)
    for (long item; dist_loop_next(dl, &item); dist_loop_finished(dl, item)) {
        const int fi = (int)item;
        rface_t *f = &q->faces[fi];
        if (f->numpatches == 0 || !f->lit) continue;
        apply_face(q, &nb, fi, f->light);
    }
    dist_loop_end(dl);
    neighbours_free(&nb);
}

/* ericw's _bouncestyled: the light of each style other than 0 bounces
 * into that style, through the same transfers. Every rank computes every
 * face itself (the transfers are shared), so no face's styles travel. A
 * face gets the style's lightmap when the bounce brings it at least
 * LIGHT_CUTOFF somewhere and it has a free slot (MAXLIGHTMAPS). */
static void bounce_styles(qrad_t *q, int bounces)
{
    int styles[256], ns = 0;
    for (int i = 0; i < q->numlights; i++) {
        int st = q->lights[i].style;
        bool seen = st == 0;
        for (int k = 0; k < ns && !seen; k++) seen = styles[k] == st;
        if (!seen && ns < 256) styles[ns++] = st;
    }
    qsort(styles, ns, sizeof(int), cmp_int);
    if (ns == 0) return;
    int P = patch_luxels(q->opts);
    neighbours_t nb;
    neighbours_build(q, &nb);
    for (int si = 0; si < ns; si++) {
        int st = styles[si];
        /* The patches' direct light of this style. */
        bool any = false;
        for (int fi = 0; fi < q->bsp->numfaces; fi++) {
            rface_t *f = &q->faces[fi];
            int slot = -1;
            for (int k = 0; k < f->numstyles; k++)
                if (f->styles[k] == st) slot = k;
            int n = f->w * f->h;
            for (int b = 0; b < f->ph; b++)
                for (int a = 0; a < f->pw; a++) {
                    patch_t *p = &q->patches[f->firstpatch + b * f->pw + a];
                    vec3_t d = vec3(0, 0, 0);
                    int cnt = 0;
                    for (int j = b * P; j < (b + 1) * P && j < f->h; j++)
                        for (int i = a * P; i < (a + 1) * P && i < f->w; i++, cnt++) {
                            if (slot < 0) continue;
                            const float *l = f->light + ((size_t)slot * n + j * f->w + i) * 3;
                            d = vec_add(d, vec3(l[0], l[1], l[2]));
                        }
                    p->direct = cnt ? vec_scale(d, 1.0 / cnt) : vec3(0, 0, 0);
                    any |= slot >= 0;
                }
        }
        if (!any) continue;
        qrad_bounce_solve(q, bounces);
#pragma omp parallel for schedule(dynamic, 8) num_threads(q->opts->threads)
        for (int fi = 0; fi < q->bsp->numfaces; fi++) {
            rface_t *f = &q->faces[fi];
            if (f->numpatches == 0 || !f->lit) continue;
            int n = f->w * f->h;
            float *add = q2_calloc((size_t)n * 3, sizeof(float));
            apply_face(q, &nb, fi, add);
            float mx = 0;
            for (int k = 0; k < n * 3; k++) mx = fmaxf(mx, add[k]);
            int slot = -1;
            for (int k = 0; k < f->numstyles; k++)
                if (f->styles[k] == st) slot = k;
            if (slot < 0 && mx >= LIGHT_CUTOFF && f->numstyles < MAXLIGHTMAPS) {
                f->light = q2_realloc(f->light, sizeof(float) * (size_t)(f->numstyles + 1) * n * 3);
                memset(f->light + (size_t)f->numstyles * n * 3, 0, sizeof(float) * (size_t)n * 3);
                slot = f->numstyles;
                f->styles[f->numstyles++] = st;
            }
            if (slot >= 0)
                for (int k = 0; k < n * 3; k++) f->light[(size_t)slot * n * 3 + k] += add[k];
            free(add);
        }
    }
    neighbours_free(&nb);
}

void qrad_bounce_free(qrad_t *q)
{
    free(q->patches);
    q->patches = NULL;
    free(q->transfers);
    q->transfers = NULL;
    q->numpatches = 0;
}

bool qrad_bounce(qrad_t *q, q2err_t *err)
{
    if (q->bounces <= 0) return true;
    if (!qrad_bounce_setup(q, err)) return false;
    qrad_bounce_solve(q, q->bounces);
    /* else each face gathers its bounced light in qrad_finish, on the rank
     * that has its samples and light */
    if (!q->full_exchange) return true;
    qrad_bounce_apply(q);
    const entity_t *ws = qrad_worldspawn(q);
    int dflt = q->opts->bouncestyled >= 0 ? q->opts->bouncestyled : 0;
    if (ws ? qrad_key_int(q, ws, "_bouncestyled", dflt, 0, 1) : dflt) bounce_styles(q, q->bounces);
    return true;
}


