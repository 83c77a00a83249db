/* Full portal flow, after qvis3's PortalFlow: from each portal, a depth-first
 * walk through the cluster graph that carries the source winding and the
 * last passed portal (the "pass") and clips every candidate target portal
 * to the planes that separate source and pass. A target with nothing left is
 * invisible along that chain; anything left marks it visible and the walk
 * continues into the cluster behind it.
 *
 * Speed without giving up determinism:
 *  - windings live in fixed-size buffers in per-depth frames (no allocation
 *    during the walk);
 *  - the separating planes of a (source, pass) pair are found once per frame
 *    and reused for every target seen from that frame;
 *  - might-see vectors are 64-bit words; a target whose remaining might-see
 *    set adds nothing to what the portal already sees is skipped, and a walk
 *    stops when its might-see set is empty;
 *  - portals run in waves of increasing difficulty (fewest might-see portals
 *    first). A walk through portal p may narrow its might-see set to what p
 *    itself sees, but only when p finished in an earlier wave; otherwise to
 *    p's base (might-see) vector. Both are conservative for anything seen
 *    through p, and which one is used depends only on the wave plan, never on
 *    which thread finished first. Inside a wave the hardest portals start
 *    first and threads take portals dynamically. */
#include "qvis.h"

#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"

#define FLOW_WAVES 16

enum { VS_FRONT, VS_BACK, VS_ON };

/* A sphere around the original portal also bounds every clipped piece of
 * it, so most chops are settled without looking at the points. */
typedef struct sphere_t {
    vec3_t c;
    double r;
} sphere_t;

typedef struct frame_t {
    const vwind_t *source;
    const vwind_t *pass; /* NULL in the first frame */
    plane_t plane;       /* plane of the portal entered, facing into this frame's cluster */
    uint64_t *might; /* only words lo..hi-1 are meaningful */
    int lo, hi;
    bool seps_ready;
    int nsep[2];
    plane_t sep[2][VIS_MAXW];
    vwind_t sbuf[2], pbuf[2];
} frame_t;

typedef struct flow_t {
    const vis_t *vis;
    const uint64_t *const *mask; /* per portal: what may be seen through it */
    const vis_portal_t *base;
    sphere_t bs; /* around the base portal, so around every source */
    uint64_t *seen; /* the base portal's result */
    frame_t **frames;
    int nframes;
    long chains;
} flow_t;

/* Keeps the part of `in` in front of the plane (points within VIS_EPSILON
 * count as in front). Returns `in` itself when nothing is cut, NULL when
 * nothing remains, else `out`. */
static const vwind_t *chop(const vwind_t *in, const plane_t *pl, vwind_t *out)
{
    double dist[VIS_MAXW + 1];
    unsigned char side[VIS_MAXW + 1];
    int nf = 0, nb = 0, n = in->n;
    for (int i = 0; i < n; i++) {
        double d = vec_dot(in->p[i], pl->normal) - pl->dist;
        dist[i] = d;
        if (d > VIS_EPSILON) {
            side[i] = VS_FRONT;
            nf++;
        } else if (d < -VIS_EPSILON) {
            side[i] = VS_BACK;
            nb++;
        } else {
            side[i] = VS_ON;
        }
    }
    if (!nb) return in;
    if (!nf) return NULL;
    /* a cut adds at most one point; with no room, keeping all is safe */
    if (n >= VIS_MAXW) return in;
    dist[n] = dist[0];
    side[n] = side[0];
    int m = 0;
    for (int i = 0; i < n; i++) {
        vec3_t p1 = in->p[i];
        if (side[i] == VS_ON) {
            out->p[m++] = p1;
            continue;
        }
        if (side[i] == VS_FRONT) out->p[m++] = p1;
        if (side[i + 1] == VS_ON || side[i + 1] == side[i]) continue;
        vec3_t p2 = in->p[i + 1 == n ? 0 : i + 1];
        double t = dist[i] / (dist[i] - dist[i + 1]);
        out->p[m++] = vec_lerp(p1, p2, t);
    }
    out->n = m;
    return out;
}

/* Chops into whichever of the two buffers `in` does not occupy. */
static inline const vwind_t *chop2(const vwind_t *in, const plane_t *pl, const sphere_t *s, vwind_t buf[2])
{
    double d = vec_dot(s->c, pl->normal) - pl->dist;
    if (d - s->r > VIS_EPSILON) return in;
    if (d + s->r < -VIS_EPSILON) return NULL;
    return chop(in, pl, in == &buf[0] ? &buf[1] : &buf[0]);
}

/* The planes through an edge of a and a point of b that have all of a
 * behind and all of b in front (reversed when `flip`). Every line that meets
 * a and then b stays in front of each such plane beyond b, so a target is
 * clipped to their front (the flipped ones bound the lines coming back from
 * b through a). */
static int find_seps(const vwind_t *a, const vwind_t *b, bool flip, plane_t *out)
{
    int ns = 0;
    for (int i = 0; i < a->n; i++) {
        int l = i + 1 == a->n ? 0 : i + 1;
        vec3_t v1 = vec_sub(a->p[l], a->p[i]);
        for (int j = 0; j < b->n; j++) {
            vec3_t v2 = vec_sub(b->p[j], a->p[i]);
            vec3_t nrm = vec_cross(v1, v2);
            double len2 = vec_dot(nrm, nrm);
            if (len2 < VIS_EPSILON) continue; /* a's edge points at b's vertex */
            nrm = vec_scale(nrm, 1.0 / sqrt(len2));
            double dist = vec_dot(b->p[j], nrm);

            /* which side a lies on */
            int k;
            bool fliptest = false;
            for (k = 0; k < a->n; k++) {
                if (k == i || k == l) continue;
                double d = vec_dot(a->p[k], nrm) - dist;
                if (d < -VIS_EPSILON) {
                    fliptest = false;
                    break;
                }
                if (d > VIS_EPSILON) {
                    fliptest = true;
                    break;
                }
            }
            if (k == a->n) continue; /* coplanar with a */
            if (fliptest) {
                nrm = vec_neg(nrm);
                dist = -dist;
            }
            int cf = 0;
            for (k = 0; k < b->n; k++) {
                if (k == j) continue;
                double d = vec_dot(b->p[k], nrm) - dist;
                if (d < -VIS_EPSILON) break;
                if (d > VIS_EPSILON) cf++;
            }
            if (k != b->n) continue; /* b straddles it: not separating */
            if (!cf) continue;       /* b lies in it */
            if (flip) {
                nrm = vec_neg(nrm);
                dist = -dist;
            }
            out[ns].normal = nrm;
            out[ns].dist = dist;
            out[ns].type = PLANE_ANYZ;
            ns++;
            /* the supporting plane through this edge is unique */
            break;
        }
    }
    return ns;
}

static const vwind_t *clip_seps(const vwind_t *w, const plane_t *seps, int n, const sphere_t *s, vwind_t buf[2])
{
    for (int i = 0; i < n && w; i++) w = chop2(w, &seps[i], s, buf);
    return w;
}

static frame_t *get_frame(flow_t *f, int d)
{
    if (d >= f->nframes) {
        int n = f->nframes * 2 + 16;
        f->frames = q2_realloc(f->frames, (size_t)n * sizeof *f->frames);
        for (int i = f->nframes; i < n; i++) {
            f->frames[i] = q2_malloc(sizeof(frame_t));
            f->frames[i]->might = q2_malloc((size_t)f->vis->portalwords * sizeof(uint64_t));
        }
        f->nframes = n;
    }
    return f->frames[d];
}

static void recurse(flow_t *f, int leaf, int d)
{
    const vis_t *vis = f->vis;
    const int level = vis->level;
    frame_t *prev = get_frame(f, d);
    frame_t *st = get_frame(f, d + 1);
    prev->seps_ready = false;
    f->chains++;

    for (int k = vis->cluster_first[leaf]; k < vis->cluster_first[leaf + 1]; k++) {
        int pi = vis->cluster_list[k];
        int pw = pi >> 6;
        if (pw < prev->lo || pw >= prev->hi || !vbit_get(prev->might, pi)) continue;
        const vis_portal_t *p = &vis->portals[pi];

        /* the might-see set beyond p, and the range of its non-zero words */
        const uint64_t *test = f->mask[pi];
        uint64_t more = 0;
        int lo = prev->hi, hi = prev->lo;
        for (int w = prev->lo; w < prev->hi; w++) {
            uint64_t m = prev->might[w] & test[w];
            st->might[w] = m;
            if (m) {
                if (lo > w) lo = w;
                hi = w + 1;
                more |= m & ~f->seen[w];
            }
        }
        if (!more && vbit_get(f->seen, pi)) continue; /* nothing new beyond it */

        const sphere_t ps = {p->origin, p->radius};
        const vwind_t *pass = chop2(p->w, &f->base->plane, &ps, st->pbuf);
        if (!pass) continue;
        plane_t back = {vec_neg(p->plane.normal), -p->plane.dist, p->plane.type};
        const vwind_t *source = chop2(prev->source, &back, &f->bs, st->sbuf);
        if (!source) continue;

        if (prev->pass) {
            /* only a chain of three portals can block: the second cluster
             * is seen through the first portal whatever its shape */
            pass = chop2(pass, &prev->plane, &ps, st->pbuf);
            if (!pass) continue;
            if (level >= 1 && !prev->seps_ready) {
                prev->nsep[0] = find_seps(prev->source, prev->pass, false, prev->sep[0]);
                prev->nsep[1] = level >= 2 ? find_seps(prev->pass, prev->source, true, prev->sep[1]) : 0;
                prev->seps_ready = true;
            }
            if (level >= 1) {
                pass = clip_seps(pass, prev->sep[0], prev->nsep[0], &ps, st->pbuf);
                if (!pass) continue;
                pass = clip_seps(pass, prev->sep[1], prev->nsep[1], &ps, st->pbuf);
                if (!pass) continue;
            }
            if (level >= 3) {
                /* the part of the source that can see the target through
                 * the pass: narrows every deeper step */
                plane_t seps[VIS_MAXW];
                int n = find_seps(pass, prev->pass, false, seps);
                source = clip_seps(source, seps, n, &f->bs, st->sbuf);
                if (!source) continue;
                if (level >= 4) {
                    n = find_seps(prev->pass, pass, true, seps);
                    source = clip_seps(source, seps, n, &f->bs, st->sbuf);
                    if (!source) continue;
                }
            }
        }

        vbit_set(f->seen, pi);
        /* beyond p only portals of st->might can be marked: if all of them
         * are seen already, the walk would change nothing */
        if (!more) continue;
        st->lo = lo;
        st->hi = hi;
        st->source = source;
        st->pass = pass;
        st->plane = p->plane;
        recurse(f, p->leaf, d + 1);
        /* the deeper call reused the frames below; refetch ours */
        prev = f->frames[d];
        st = f->frames[d + 1];
    }
}

static void portal_flow(flow_t *f, int pi)
{
    const vis_t *vis = f->vis;
    const vis_portal_t *p = &vis->portals[pi];
    f->base = p;
    f->bs = (sphere_t){p->origin, p->radius};
    f->seen = vis->see + (size_t)pi * vis->portalwords;
    memset(f->seen, 0, (size_t)vis->portalwords * sizeof(uint64_t));
    frame_t *head = get_frame(f, 0);
    head->source = p->w;
    head->pass = NULL;
    head->plane = p->plane;
    memcpy(head->might, vis->flood + (size_t)pi * vis->portalwords, (size_t)vis->portalwords * sizeof(uint64_t));
    head->lo = 0;
    head->hi = vis->portalwords;
    recurse(f, p->leaf, 0);
}

typedef struct rank_t {
    int might, index;
} rank_t;

static int cmp_rank(const void *a, const void *b)
{
    const rank_t *x = a, *y = b;
    if (x->might != y->might) return x->might < y->might ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

void vis_flow(vis_t *vis, bool fast, log_t *log)
{
    int np = vis->numportals;
    size_t words = (size_t)vis->portalwords;
    if (fast) {
        memcpy(vis->see, vis->flood, (size_t)np * words * sizeof(uint64_t));
        for (int i = 0; i < np; i++) vis->portals[i].numsee = vis->portals[i].nummight;
        return;
    }
    rank_t *order = q2_malloc(((size_t)np + 1) * sizeof *order);
    for (int i = 0; i < np; i++) order[i] = (rank_t){vis->portals[i].nummight, i};
    qsort(order, (size_t)np, sizeof *order, cmp_rank);
    const uint64_t **mask = q2_malloc(((size_t)np + 1) * sizeof *mask);
    for (int i = 0; i < np; i++) mask[i] = vis->flood + (size_t)i * words;

    vis->waves = FLOW_WAVES;
    const int nwaves = vis->waves;
    long chains = 0, done = 0;
    progress_t prog;
    progress_begin(&prog, log, "portal flow", np);
    for (int wv = 0; wv < nwaves; wv++) {
        int lo = (int)((long)np * wv / nwaves), hi = (int)((long)np * (wv + 1) / nwaves);
#pragma omp parallel num_threads(vis->threads) reduction(+ : chains)
        {
            flow_t f = {.vis = vis, .mask = (const uint64_t *const *)mask};
#pragma omp for schedule(dynamic, 1)
            for (int r = hi - 1; r >= lo; r--) {
                int pi = order[r].index;
                portal_flow(&f, pi);
                vis->portals[pi].numsee = vbits_count(vis->see + (size_t)pi * words, (int)words);
                long dn;
#pragma omp atomic capture
                dn = ++done;
                progress_update(&prog, dn);
            }
            chains += f.chains;
            for (int i = 0; i < f.nframes; i++) {
                free(f.frames[i]->might);
                free(f.frames[i]);
            }
            free(f.frames);
        }
        /* results of this wave may narrow the walks of the next ones */
        for (int r = lo; r < hi; r++) mask[order[r].index] = vis->see + (size_t)order[r].index * words;
    }
    progress_end(&prog);
    vis->chains = chains;
    free(mask);
    free(order);
}
