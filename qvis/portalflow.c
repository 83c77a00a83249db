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
 *    and reused for every target seen from that frame, and to drop from the
 *    frame's might-see set every unseen portal wholly behind one of them;
 *  - each step also narrows the might-see set by the passage it crossed
 *    (see passage_t) and by the reverse portals' finished results (see
 *    narrow_masks);
 *  - might-see vectors are 64-bit words; a target whose remaining might-see
 *    set adds nothing to what the portal already sees is skipped, and a walk
 *    stops when nothing unseen is left in its might-see set;
 *  - portals run in waves of increasing difficulty (fewest might-see portals
 *    first). A walk through portal p may narrow its might-see set to what p
 *    itself sees, but only when p finished in an earlier wave; otherwise to
 *    p's base (might-see) vector. Both are conservative for anything seen
 *    through p, and which one is used depends only on the wave plan, never on
 *    which thread finished first. Inside a wave the hardest portals start
 *    first and threads take portals dynamically;
 *  - a walk's result is the same in whatever order its chains are followed
 *    (see recurse), so a long walk hands branches to this rank's other
 *    threads as it goes (split_branch), and they take those before new
 *    walks: one walk of a few hundred ms no longer holds up a wave on a
 *    machine of many cores, nor the other hosts of an MPI job. */
#include "qvis.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/dist.h"
#include "../common/mem.h"
#include "../common/os.h"
#include "../formats/visrle.h"

#define FLOW_WAVES 16

/* A walk offers a branch to other threads only after this many steps of
 * its own since it began or last handed one over (about half a millisecond):
 * short walks never pay for a split, and each branch handed over re-walks
 * its FLOW_MAX_SPLIT_DEPTH or fewer first steps (on retrojam1 at 8 threads
 * 1.4% more steps in all; at 1000, 0.75%, but a wave's end then waits for
 * pieces of work twice as long). */
#define FLOW_SPLIT_CHAINS 500
#define FLOW_MAX_SPLIT_DEPTH 32
/* A thread with no walk left waits for its rank's running branches (which
 * may hand over more) in naps from 20 us doubling to 1 ms: short enough
 * to pick up a branch soon, long enough not to take a core from a thread
 * of another rank on the same host. */
#define FLOW_NAP_MIN_NS 20000L
#define FLOW_NAP_MAX_NS 1000000L
/* With other ranks, a rank whose threads all have branches waiting hands
 * one more to another rank at most this often (spill_due). */
#define FLOW_SPILL_GAP_S 0.0001
/* A walk this many steps long (about 12 ms) spills even before the wave's
 * tail: it is among the few that would hold the wave up. */
#define FLOW_LONG_WALK 10000

enum { VS_FRONT, VS_BACK, VS_ON };

/* A sphere centre (x, y, z) and radius (w), packed for the filter loops. */
typedef struct vec4_t {
    double x, y, z, w;
} vec4_t;

/* A sphere and a box around the original portal also bound every clipped
 * piece of it, so most chops are settled without looking at the points
 * (the box is the tighter bound for the many axial portals, which it holds
 * flat). */
typedef struct sphere_t {
    vec3_t c;
    double r;
    vec3_t bc, be; /* box centre and half-size */
} sphere_t;

static inline sphere_t bound_of(const vis_portal_t *p) { return (sphere_t){p->origin, p->radius, p->bmid, p->bhalf}; }

typedef struct frame_t {
    const vwind_t *source;
    const vwind_t *pass; /* NULL in the first frame */
    plane_t plane;       /* plane of the portal entered, facing into this frame's cluster */
    uint64_t *might; /* only words lo..hi-1 are meaningful */
    uint64_t *exempt; /* portals of might that this frame's drop left out because they were seen */
    int lo, hi;
    int k;    /* the cluster_list position of the portal this frame's walk entered next */
    int step, stop; /* its step in the frame's loop, and where the loop ends (a spill cuts it short) */
    int last; /* portal entered into this frame's cluster (the base portal in the first frame) */
    int nsep[2];
    plane_t sep[2][VIS_MAXW];
    vwind_t sbuf[2], pbuf[2];
} frame_t;

/* A passage is a pair of portals q, p where p leads out of the cluster q
 * leads into. Its vector holds the portals that some line through q and
 * then p could reach: those not wholly behind a plane separating q and p.
 * Found once from the whole windings, it bounds every walk that passes q
 * and then p, however much those windings were clipped on the way.
 *
 * The vector lies within the might-see vectors of q and p ANDed, and a walk
 * ANDs it only with sets that lie within them too (the walk's set beyond q
 * and p's mask), so only the words where it differs from that AND are kept:
 * its exceptions, the word's index and the passage's word there. Every
 * other word of lo..hi-1 passes the walk's set unchanged. On base1-test
 * 208 K of the 1.2 M words between the passages' first and last non-zero
 * ones are exceptions (9.6 MB of words before, 2.5 MB now). */
typedef struct passage_t {
    int lo, hi; /* its non-zero words */
    int x, nx;  /* its exceptions: xw/xv[x .. x + nx) of its portal q, by increasing word */
} passage_t;

typedef struct passages_t {
    size_t *first;   /* per portal q: index of passage (q, first portal of q's leaf) */
    passage_t *pass;
    /* per portal q: the exceptions of q's passages, their words and values
     * (xw points into the same allocation as xv) */
    uint64_t **xv;
    uint32_t **xw;
    /* per portal q computed here: its passages as they travel to other
     * ranks (passages_encode), freed after the exchange */
    uint8_t **enc;
    size_t *enclen;
} passages_t;

typedef struct flow_t {
    const vis_t *vis;
    const uint64_t *mask; /* per portal, portalwords each: what may be seen through it */
    const vis_portal_t *base;
    sphere_t bs; /* around the base portal, so around every source */
    uint64_t *seen; /* the base portal's result: its row in vis->see */
    int seen_lo;    /* the row's first word (vis_row_t.lo); the walk reads no other words */
    frame_t **frames;
    int nframes;
    long chains;
    const passages_t *pg;
    const struct filter_t *ft;
    struct pack_t *pk; /* the filter's planes (one frame at a time) */
    int *idx;          /* the filter's portals */
    /* a branch of a walk (split_branch): at depth d < plen - 1 only the
     * portal at cluster_list position path[d] is entered, at depth plen - 1
     * the `span` portals from path[plen - 1] on, in the loop's order */
    int path[FLOW_MAX_SPLIT_DEPTH];
    int plen, span;
    struct wave_t *wave; /* for handing branches to other threads */
    long start;          /* f->chains when this walk or branch began, or at its last hand-over */
    long item;           /* the walk's item in its wave (for spilling a branch to another rank) */
    long began;          /* f->chains when this walk or branch began */
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
    d = vec_dot(s->bc, pl->normal) - pl->dist;
    double r = fabs(pl->normal.x) * s->be.x + fabs(pl->normal.y) * s->be.y + fabs(pl->normal.z) * s->be.z;
    if (d - r > VIS_EPSILON) return in;
    if (d + r < -VIS_EPSILON) return NULL;
    return chop(in, pl, in == &buf[0] ? &buf[1] : &buf[0]);
}

/* SEP_SAME_EPSILON: how close to a plane both ends of an edge must lie for
 * the edge to count as lying in it (see find_seps). The planes concerned
 * agree to about 1e-12 in practice; this only has to tell them from
 * planes that merely pass near the edge. */
#define SEP_SAME_EPSILON 1e-6

/* Whether edge p0-p1 of a lies in one of the known planes. Each known
 * plane was built through one point of this winding (knownv: its index),
 * and a plane holding a whole edge but not lying in the winding passes
 * through that edge's ends only, so just the planes built through p0 or p1
 * are tested, each at the other end. */
static bool edge_in_plane(const vwind_t *a, int p0, int p1, const plane_t *known, const int *knownv, int nknown)
{
    for (int k = 0; k < nknown; k++) {
        int o = knownv[k] == p0 ? p1 : knownv[k] == p1 ? p0 : -1;
        if (o >= 0 && fabs(vec_dot(a->p[o], known[k].normal) - known[k].dist) < SEP_SAME_EPSILON) return true;
    }
    return false;
}

/* The planes through an edge of a and a point of b that have all of a
 * behind and all of b in front (reversed when `flip`). Every line that meets
 * a and then b stays in front of each such plane beyond b, so a target is
 * clipped to their front (the flipped ones bound the lines coming back from
 * b through a).
 *
 * `known`: when the flipped set is found after the other, the other, with
 * knownv the point of this a each was built through. An edge of a that
 * lies in one of those planes needs no search: the plane has a on one side
 * and b on the other, so it is the one supporting plane through that edge,
 * already in the set. A third of the flipped planes are such repeats (where
 * a and b have parallel edges, as axial portals often do), and clipping or
 * testing by the same plane twice changes nothing. bvert (or NULL)
 * receives per plane found the index of the point of b it goes through. */
static int find_seps(const vwind_t *a, const vwind_t *b, bool flip, plane_t *out, const plane_t *known,
                     const int *knownv, int nknown, int *bvert)
{
    /* Candidate normals stay unnormalized until one is kept: a distance d
     * along a normal of squared length len2 is more than VIS_EPSILON off
     * the plane when d * d > VIS_EPSILON^2 * len2, which saves a square
     * root and a division on every candidate that is rejected. */
    int ns = 0;
    for (int i = 0; i < a->n; i++) {
        int l = i + 1 == a->n ? 0 : i + 1;
        if (nknown && edge_in_plane(a, i, l, known, knownv, nknown)) continue;
        vec3_t v1 = vec_sub(a->p[l], a->p[i]);
        for (int j = 0; j < b->n; j++) {
            vec3_t v2 = vec_sub(b->p[j], a->p[i]);
            vec3_t nrm = vec_cross(v1, v2);
            double len2 = vec_dot(nrm, nrm);
            if (len2 < VIS_EPSILON) continue; /* a's edge points at b's vertex */
            const double thr2 = VIS_EPSILON * VIS_EPSILON * len2;
            double dist = vec_dot(b->p[j], nrm);

            /* which side a lies on */
            int k;
            bool fliptest = false;
            for (k = 0; k < a->n; k++) {
                if (k == i || k == l) continue;
                double d = vec_dot(a->p[k], nrm) - dist;
                if (d * d > thr2) {
                    fliptest = d > 0;
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
                if (d * d > thr2) {
                    if (d < 0) break;
                    cf++;
                }
            }
            if (k != b->n) continue; /* b straddles it: not separating */
            if (!cf) continue;       /* b lies in it */
            double inv = 1.0 / sqrt(len2);
            nrm = vec_scale(nrm, flip ? -inv : inv);
            dist = vec_dot(b->p[j], nrm);
            out[ns].normal = nrm;
            out[ns].dist = dist;
            out[ns].type = PLANE_ANYZ;
            if (bvert) bvert[ns] = j;
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
            f->frames[i]->exempt = q2_malloc((size_t)f->vis->portalwords * sizeof(uint64_t));
        }
        f->nframes = n;
    }
    return f->frames[d];
}

/* Whether every point of t lies more than VIS_EPSILON behind the plane. */
static inline bool points_behind(const vis_portal_t *t, const plane_t *pl)
{
    for (int i = 0; i < t->w->n; i++)
        if (vec_dot(t->w->p[i], pl->normal) - pl->dist >= -VIS_EPSILON) return false;
    return true;
}

static bool wholly_behind(const vis_portal_t *t, const plane_t *pl)
{
    double d = vec_dot(t->origin, pl->normal) - pl->dist;
    if (d + t->radius < -VIS_EPSILON) return true;
    if (d - t->radius >= -VIS_EPSILON) return false;
    d = vec_dot(t->bmid, pl->normal) - pl->dist;
    double r = fabs(pl->normal.x) * t->bhalf.x + fabs(pl->normal.y) * t->bhalf.y + fabs(pl->normal.z) * t->bhalf.z;
    if (d + r < -VIS_EPSILON) return true;
    if (d - r >= -VIS_EPSILON) return false;
    return points_behind(t, pl);
}

/* Whether t lies wholly behind one of the n planes, in double precision:
 * the filter for maps beyond VIS_FLOAT_RANGE. The spheres are read from a
 * compact array first. */
static bool behind_any(const vis_t *vis, const vec4_t *sph, int u, const plane_t *const *pl, int n)
{
    const vec4_t s = sph[u];
    for (int i = 0; i < n; i++) {
        double d = s.x * pl[i]->normal.x + s.y * pl[i]->normal.y + s.z * pl[i]->normal.z - pl[i]->dist;
        if (d - s.w >= -VIS_EPSILON) continue;
        if (d + s.w < -VIS_EPSILON || wholly_behind(&vis->portals[u], pl[i])) return true;
    }
    return false;
}

/* The filter of each walk step tests dozens of portal boxes against a few
 * planes, four portals at a time in single precision. Float rounding within
 * VIS_FLOAT_RANGE is below FILTER_MARGIN, so a box found behind a plane by
 * more than VIS_EPSILON + FILTER_MARGIN in floats is behind by more than
 * VIS_EPSILON in exact arithmetic; only the boxes near a plane go to the
 * double-precision test of the points. */
#define FILTER_MARGIN 0.05f
#define PACK_MAX (2 * VIS_MAXW)

/* Planes for the filter, each component repeated across the four lanes. */
typedef struct pack_t {
    int n;
    struct {
        v4f nx, ny, nz, nd, ax, ay, az; /* normal, distance, |normal| for the box extents */
    } v[PACK_MAX];
    const plane_t *pl[PACK_MAX];
} pack_t;

/* A box around a portal in single precision, centred on its origin (the
 * mean of its points): a box rather than the sphere because most portals
 * are axial rectangles, which it fits exactly. With the box wholly behind
 * a plane so is the portal; the origin's distance from a plane is the mean
 * of the points' distances, so with the origin in front some point is too,
 * and the points are read only for the few portals whose origin lies
 * behind (or within the margin) and whose box does not. */
typedef struct fbox_t {
    float cx, cy, cz, hx, hy, hz;
} fbox_t;

/* What the filter reads of every portal, fixed for a whole run. */
typedef struct filter_t {
    const vis_t *vis;
    const vec4_t *sph;  /* spheres, for the double-precision path */
    const fbox_t *fbox; /* boxes, for the single-precision path */
    bool use_float;     /* every box within VIS_FLOAT_RANGE */
} filter_t;

static void pack_planes(pack_t *pk, const plane_t *a, int na, const plane_t *b, int nb)
{
    pk->n = na + nb;
    for (int i = 0; i < pk->n; i++) {
        const plane_t *pl = i < na ? &a[i] : &b[i - na];
        pk->pl[i] = pl;
        pk->v[i].nx = v4_splat(pl->normal.x);
        pk->v[i].ny = v4_splat(pl->normal.y);
        pk->v[i].nz = v4_splat(pl->normal.z);
        pk->v[i].nd = v4_splat(pl->dist);
        /* |x| rounds to the float |(float)x|: clear the sign bits */
        const v4i abs = {0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff};
        pk->v[i].ax = (v4f)((v4i)pk->v[i].nx & abs);
        pk->v[i].ay = (v4f)((v4i)pk->v[i].ny & abs);
        pk->v[i].az = (v4f)((v4i)pk->v[i].nz & abs);
    }
}

/* Clears in v the bits of the portals idx[0..n) (distinct) that lie wholly
 * behind one of the packed planes, and returns how many: each plane is
 * tested against four boxes at once, and the points are read only for a
 * box near a plane and behind none. idx has room for n + 3: the last group
 * is filled up with copies of its last portal, whose lanes are ignored. */
static int drop_behind(const filter_t *ft, const pack_t *pk, int *idx, int n, uint64_t *v)
{
    if (n <= 0) return 0;
    int dropped = 0;
    if (!ft->use_float) {
        for (int i = 0; i < n; i++)
            if (behind_any(ft->vis, ft->sph, idx[i], pk->pl, pk->n)) {
                v[idx[i] >> 6] &= ~((uint64_t)1 << (idx[i] & 63));
                dropped++;
            }
        return dropped;
    }
    const fbox_t *fbox = ft->fbox;
    const vis_portal_t *portals = ft->vis->portals;
    idx[n] = idx[n + 1] = idx[n + 2] = idx[n - 1];
    const v4f behind = v4_splat(-VIS_EPSILON - FILTER_MARGIN), front = v4_splat(-VIS_EPSILON + FILTER_MARGIN);
    int nearm[PACK_MAX];
    for (int i = 0; i < n; i += 4) {
        const int valid = n - i >= 4 ? 15 : (1 << (n - i)) - 1;
        const int *u = idx + i;
        const fbox_t *b0 = &fbox[u[0]], *b1 = &fbox[u[1]], *b2 = &fbox[u[2]], *b3 = &fbox[u[3]];
        const v4f x = {b0->cx, b1->cx, b2->cx, b3->cx}, y = {b0->cy, b1->cy, b2->cy, b3->cy};
        const v4f z = {b0->cz, b1->cz, b2->cz, b3->cz}, hx = {b0->hx, b1->hx, b2->hx, b3->hx};
        const v4f hy = {b0->hy, b1->hy, b2->hy, b3->hy}, hz = {b0->hz, b1->hz, b2->hz, b3->hz};
        v4i far = {0, 0, 0, 0};
        int anynear = 0;
        for (int k = 0; k < pk->n; k++) {
            v4f d = x * pk->v[k].nx + y * pk->v[k].ny + z * pk->v[k].nz - pk->v[k].nd;
            v4f r = hx * pk->v[k].ax + hy * pk->v[k].ay + hz * pk->v[k].az;
            far |= (d + r) < behind;
            anynear |= nearm[k] = v4_mask(d < front);
        }
        int drop = v4_mask(far) & valid;
        int check = anynear & valid & ~drop;
        while (check) {
            int l = __builtin_ctz(check);
            check &= check - 1;
            const vis_portal_t *t = &portals[u[l]];
            for (int k = 0; k < pk->n; k++) {
                if (!((nearm[k] >> l) & 1)) continue;
                if (points_behind(t, pk->pl[k])) {
                    drop |= 1 << l;
                    break;
                }
            }
        }
        while (drop) {
            int l = __builtin_ctz(drop);
            drop &= drop - 1;
            v[u[l] >> 6] &= ~((uint64_t)1 << (u[l] & 63));
            dropped++;
        }
    }
    return dropped;
}

/* A walk's result row is shared by the branches of the walk that run at
 * once on this rank's threads: each marks with an atomic or and reads it
 * without ordering. Whatever a branch reads is a subset of the final row,
 * which is all the pruning needs. */
static inline uint64_t seen_word(const flow_t *f, int w)
{
    return __atomic_load_n(&f->seen[w - f->seen_lo], __ATOMIC_RELAXED);
}
static inline bool seen_bit(const flow_t *f, int i) { return (seen_word(f, i >> 6) >> (i & 63)) & 1; }
static inline void seen_set(flow_t *f, int i)
{
    if (!seen_bit(f, i)) __atomic_fetch_or(&f->seen[(i >> 6) - f->seen_lo], (uint64_t)1 << (i & 63), __ATOMIC_RELAXED);
}

/* Whether portal pi, seen and in frame d's set, would have been dropped by
 * one of frames 1..d-1 had it not been seen then: it is tested against the
 * separators of each frame that left it out, once per frame (the answer is
 * kept: dropped from that frame and the ones below it, or no longer
 * exempt). Frame d itself needs no test: entering pi clips it to frame d's
 * separators, which leaves nothing of a portal wholly behind one of them. */
static bool dropped_on_chain(flow_t *f, int d, int pi)
{
    const vis_portal_t *t = &f->vis->portals[pi];
    const int w = pi >> 6;
    const uint64_t bit = (uint64_t)1 << (pi & 63);
    for (int j = 1; j < d; j++) {
        frame_t *fr = f->frames[j];
        if (!(fr->exempt[w] & bit)) continue;
        fr->exempt[w] &= ~bit;
        for (int s = 0; s < 2; s++)
            for (int i = 0; i < fr->nsep[s]; i++)
                if (wholly_behind(t, &fr->sep[s][i])) {
                    for (int k = j; k <= d; k++) f->frames[k]->might[w] &= ~bit;
                    return true;
                }
    }
    return false;
}

static void split_branch(flow_t *f, int d);

static void recurse(flow_t *f, int leaf, int d)
{
    const vis_t *vis = f->vis;
    const int level = vis->level;
    frame_t *prev = get_frame(f, d);
    frame_t *st = get_frame(f, d + 1);
    f->chains++;
    if (prev->pass && level >= 1) {
        /* Every line through the source and the pass stays in front of the
         * planes that separate them, so a portal wholly behind one of them
         * cannot be seen along this chain. Dropping such portals from the
         * might-see set here, once per frame, ends most walks long before
         * their windings would have been clipped away step by step. Only
         * portals not yet seen are tested here: they are what keeps a walk
         * going. A seen one left in the set must still not lead the walk on
         * where a drop would have stopped it, or the result would depend on
         * what the walk (or another branch of it) happened to see first:
         * the frame notes it as exempt and it is tested when the walk would
         * enter it (dropped_on_chain). So the result is what dropping every
         * portal would give, the same in whatever order, and on however
         * many threads, the chains are followed. */
        int passv[VIS_MAXW];
        prev->nsep[0] = find_seps(prev->source, prev->pass, false, prev->sep[0], NULL, NULL, 0, passv);
        prev->nsep[1] = level >= 2 ? find_seps(prev->pass, prev->source, true, prev->sep[1], prev->sep[0], passv,
                                               prev->nsep[0], NULL)
                                   : 0;
        pack_planes(f->pk, prev->sep[0], prev->nsep[0], prev->sep[1], prev->nsep[1]);
        int n = 0;
        for (int w = prev->lo; w < prev->hi; w++) {
            uint64_t sw = seen_word(f, w);
            uint64_t bits = prev->might[w] & ~sw;
            prev->exempt[w] = prev->might[w] & sw;
            while (bits) {
                f->idx[n++] = w * 64 + __builtin_ctzll(bits);
                bits &= bits - 1;
            }
        }
        /* idx holds every portal of the set unseen when it was filled: some
         * are left unless all of them were dropped */
        bool left = drop_behind(f->ft, f->pk, f->idx, n, prev->might) < n;
        if (!left) return; /* nothing new can be found beyond */
    }

    const int k0 = vis->cluster_first[leaf], k1 = vis->cluster_first[leaf + 1];
    int first = 0;
    prev->stop = k1 - k0;
    if (d < f->plen) {
        first = vis->reverse ? k1 - 1 - f->path[d] : f->path[d] - k0;
        int n = d == f->plen - 1 ? f->span : 1;
        if (first + n < prev->stop) prev->stop = first + n;
    }
    /* prev->stop is read at every step: a deeper split_branch may cut the
     * loop short, handing the steps after this one to another rank */
    for (int step = first; step < prev->stop; step++) {
        const int k = vis->reverse ? k1 - 1 - step : k0 + step;
        prev->step = step;
        int pi = vis->cluster_list[k];
        int pw = pi >> 6;
        if (pw < prev->lo || pw >= prev->hi || !vbit_get(prev->might, pi)) continue;
        const vis_portal_t *p = &vis->portals[pi];

        /* the might-see set beyond p, and the range of its non-zero words */
        /* (lo..hi below lies within the passage's non-zero words, so within
         * pi's row) */
        const uint64_t *test = vis_row(vis, f->mask, pi);
        const int tlo = vis->rows[pi].lo;
        const passage_t *pas = &f->pg->pass[f->pg->first[prev->last] + (size_t)(k - vis->cluster_first[leaf])];
        int lo = prev->lo > pas->lo ? prev->lo : pas->lo;
        int hi = prev->hi < pas->hi ? prev->hi : pas->hi;
        uint64_t more = 0;
        {
            /* the words between the passage's exceptions pass unchanged */
            const uint64_t *xv = f->pg->xv[prev->last] + pas->x;
            const uint32_t *xw = f->pg->xw[prev->last] + pas->x;
            const int nx = pas->nx;
            int e = 0;
            while (e < nx && (int)xw[e] < lo) e++;
            const uint64_t *pm = prev->might;
            uint64_t *sm = st->might;
            for (int w = lo; w < hi;) {
                const int stop = e < nx && (int)xw[e] < hi ? (int)xw[e] : hi;
                for (; w < stop; w++) {
                    uint64_t m = pm[w] & test[w - tlo];
                    sm[w] = m;
                    more |= m & ~seen_word(f, w);
                }
                if (w < hi) {
                    uint64_t m = pm[w] & test[w - tlo] & xv[e++];
                    sm[w] = m;
                    more |= m & ~seen_word(f, w);
                    w++;
                }
            }
        }
        if (!more && seen_bit(f, pi)) continue; /* nothing new beyond it */
        /* a seen portal may have escaped a frame's drop (see above) */
        if (level >= 1 && d >= 2 && seen_bit(f, pi) && dropped_on_chain(f, d, pi)) continue;

        const sphere_t ps = bound_of(p);
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
            if (level >= 1) { /* the frame's separators, found on entry */
                pass = clip_seps(pass, prev->sep[0], prev->nsep[0], &ps, st->pbuf);
                if (!pass) continue;
                pass = clip_seps(pass, prev->sep[1], prev->nsep[1], &ps, st->pbuf);
                if (!pass) continue;
            }
            if (level >= 3) {
                /* the part of the source that can see the target through
                 * the pass: narrows every deeper step */
                plane_t seps[VIS_MAXW];
                int n = find_seps(pass, prev->pass, false, seps, NULL, NULL, 0, NULL);
                source = clip_seps(source, seps, n, &f->bs, st->sbuf);
                if (!source) continue;
                if (level >= 4) {
                    n = find_seps(prev->pass, pass, true, seps, NULL, NULL, 0, NULL);
                    source = clip_seps(source, seps, n, &f->bs, st->sbuf);
                    if (!source) continue;
                }
            }
        }

        seen_set(f, pi);
        /* beyond p only portals of st->might can be marked: if all of them
         * are seen already, the walk would change nothing */
        if (!more) continue;
        while (!st->might[lo]) lo++; /* more != 0: some word in lo..hi-1 is set */
        while (!st->might[hi - 1]) hi--;
        st->lo = lo;
        st->hi = hi;
        st->source = source;
        st->pass = pass;
        st->plane = p->plane;
        st->last = pi;
        prev->k = k;
        split_branch(f, d); /* another thread may take the steps after this one */
        recurse(f, p->leaf, d + 1);
        /* the deeper call reused the frames below; refetch ours */
        prev = f->frames[d];
        st = f->frames[d + 1];
    }
}

/* The walk from portal pi, or the branch of it that f->path selects: marks
 * what it sees in pi's row (cleared before the wave), which the walk's
 * other branches may share. */
static void portal_flow(flow_t *f, int pi)
{
    const vis_t *vis = f->vis;
    const vis_portal_t *p = &vis->portals[pi];
    f->base = p;
    f->bs = bound_of(p);
    const vis_row_t *row = &vis->rows[pi];
    f->seen = vis->see + vis->see_at[pi];
    f->seen_lo = row->lo;
    f->start = f->began = f->chains;
    frame_t *head = get_frame(f, 0);
    head->source = p->w;
    head->pass = NULL;
    head->plane = p->plane;
    /* the walk reads only words within the base portal's row */
    memcpy(head->might + row->lo, vis_row(vis, f->mask, pi), (size_t)(row->hi - row->lo) * sizeof(uint64_t));
    head->lo = row->lo;
    head->hi = row->hi;
    head->last = pi;
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

/* Portal q's passages as they travel between ranks (common/dist.h): lo and
 * hi of each, then for each its words lo..hi-1 coded two bits apiece
 * against the candidates the receiver has (the might-see words of q and p
 * ANDed, which a passage's words lie within): zero, the candidate word
 * itself (70% of the non-zero words on retrojam1: nothing behind the
 * separators), or a word that follows, and those words. The codes are
 * packed 32 to a uint64, each passage's starting on a new one. */
enum { PASS_ZERO = 0, PASS_SAME = 1, PASS_WORD = 2 };

typedef struct passage_ctx_t {
    const vis_t *vis;
    passages_t *pg;
} passage_ctx_t;

/* The portal of q's k-th passage (p leads out of the cluster q leads into). */
static int passage_portal(const vis_t *vis, int q, size_t k)
{
    int c = vis->portals[q].leaf;
    return vis->cluster_list[vis->cluster_first[c] + (int)k];
}

/* Word w of q's passage ps, c being the might-see words of q and p ANDed
 * there; e: the passage's next exception at or after w (advanced past w). */
static inline uint64_t passage_word(const passages_t *pg, int q, const passage_t *ps, int w, uint64_t c, int *e)
{
    if (*e < ps->nx && (int)pg->xw[q][ps->x + *e] == w) return pg->xv[q][ps->x + (*e)++];
    return c;
}

/* The might-see words w of q and p ANDed. */
static inline uint64_t might_and(const vis_t *vis, int q, int p, int w)
{
    return vis_row_word(vis, vis_row(vis, vis->flood, q), q, w) & vis_row_word(vis, vis_row(vis, vis->flood, p), p, w);
}

static void passages_encode(const vis_t *vis, passages_t *pg, int q)
{
    const size_t nk = pg->first[q + 1] - pg->first[q];
    size_t n = nk * 2 * sizeof(int32_t);
    for (size_t k = 0; k < nk; k++) {
        const passage_t *ps = &pg->pass[pg->first[q] + k];
        size_t m = (size_t)(ps->hi - ps->lo);
        n += (m + 31) / 32 * sizeof(uint64_t);
        /* a literal word is an exception that is not zero */
        for (int e = 0; e < ps->nx; e++)
            if (pg->xv[q][ps->x + e]) n += sizeof(uint64_t);
    }
    uint8_t *out = pg->enc[q] = q2_malloc(n + 1), *o = out;
    pg->enclen[q] = n;
    for (size_t k = 0; k < nk; k++) {
        const passage_t *ps = &pg->pass[pg->first[q] + k];
        int32_t lh[2] = {ps->lo, ps->hi};
        memcpy(o, lh, sizeof lh);
        o += sizeof lh;
    }
    for (size_t k = 0; k < nk; k++) {
        const passage_t *ps = &pg->pass[pg->first[q] + k];
        const int p = passage_portal(vis, q, k);
        size_t m = (size_t)(ps->hi - ps->lo), ncode = (m + 31) / 32;
        uint8_t *codes = o, *lit = o + ncode * sizeof(uint64_t);
        memset(codes, 0, ncode * sizeof(uint64_t));
        int e = 0;
        for (size_t i = 0; i < m; i++) {
            const int w = ps->lo + (int)i;
            uint64_t c = might_and(vis, q, p, w), b = passage_word(pg, q, ps, w, c, &e);
            uint64_t code = !b ? PASS_ZERO : b == c ? PASS_SAME : PASS_WORD;
            uint64_t cw;
            memcpy(&cw, codes + (i / 32) * sizeof cw, sizeof cw);
            cw |= code << (2 * (i % 32));
            memcpy(codes + (i / 32) * sizeof cw, &cw, sizeof cw);
            if (code == PASS_WORD) {
                memcpy(lit, &b, sizeof b);
                lit += sizeof b;
            }
        }
        o = lit;
    }
}

static size_t passages_size(void *ctx, long q)
{
    const passages_t *pg = ((passage_ctx_t *)ctx)->pg;
    return pg->enclen[q];
}

static void passages_pack(void *ctx, long q, uint8_t *out)
{
    const passages_t *pg = ((passage_ctx_t *)ctx)->pg;
    memcpy(out, pg->enc[q], pg->enclen[q]);
}

/* Room for nx exceptions of portal q. */
static void passages_alloc(passages_t *pg, int q, size_t nx)
{
    pg->xv[q] = q2_malloc((nx + 1) * (sizeof(uint64_t) + sizeof(uint32_t)));
    pg->xw[q] = (uint32_t *)(pg->xv[q] + nx + 1);
}

/* Decodes portal q's passages (on any thread: q's own slots only). A
 * buffer that does not decode is a bug, not bad input: every rank runs the
 * same program. */
static void passages_unpack(void *ctx, long q, const uint8_t *in, size_t size)
{
    const vis_t *vis = ((passage_ctx_t *)ctx)->vis;
    passages_t *pg = ((passage_ctx_t *)ctx)->pg;
    const size_t words = (size_t)vis->portalwords, nk = pg->first[q + 1] - pg->first[q];
    const uint8_t *end = in + size, *p = in;
    if ((size_t)(end - p) < nk * 2 * sizeof(int32_t)) abort();
    for (size_t k = 0; k < nk; k++) {
        int32_t lh[2];
        memcpy(lh, p + k * sizeof lh, sizeof lh);
        if (lh[0] < 0 || lh[1] < lh[0] || (size_t)lh[1] > words) abort();
        pg->pass[pg->first[q] + k].lo = lh[0];
        pg->pass[pg->first[q] + k].hi = lh[1];
    }
    p += nk * 2 * sizeof(int32_t);
    /* twice over the codes: first to count the exceptions, then to store
     * them (a zero where the candidate word is not zero is one) */
    const uint8_t *start = p;
    size_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        p = start;
        if (pass == 1) passages_alloc(pg, (int)q, total);
        int x = 0;
        for (size_t k = 0; k < nk; k++) {
            passage_t *ps = &pg->pass[pg->first[q] + k];
            const int pk = passage_portal(vis, q, k);
            size_t m = (size_t)(ps->hi - ps->lo), ncode = (m + 31) / 32;
            if ((size_t)(end - p) < ncode * sizeof(uint64_t)) abort();
            const uint8_t *codes = p;
            p += ncode * sizeof(uint64_t);
            ps->x = x;
            for (size_t i = 0; i < m; i++) {
                const int w = ps->lo + (int)i;
                uint64_t cw;
                memcpy(&cw, codes + (i / 32) * sizeof cw, sizeof cw);
                unsigned code = (unsigned)(cw >> (2 * (i % 32))) & 3;
                uint64_t v = 0, c = might_and(vis, (int)q, pk, w);
                if (code == PASS_SAME) {
                    continue;
                } else if (code == PASS_WORD) {
                    if ((size_t)(end - p) < sizeof v) abort();
                    memcpy(&v, p, sizeof v);
                    p += sizeof v;
                } else if (code != PASS_ZERO) {
                    abort();
                } else if (!c) {
                    continue;
                }
                if (pass == 1) {
                    pg->xv[q][x] = v;
                    pg->xw[q][x] = (uint32_t)w;
                }
                x++;
            }
            ps->nx = x - ps->x;
        }
        total = (size_t)x;
    }
    if (p != end) abort();
}

static void build_passages(const vis_t *vis, const filter_t *ft, passages_t *pg)
{
    const int np = vis->numportals;
    const size_t words = (size_t)vis->portalwords;
    pg->first = q2_malloc(((size_t)np + 1) * sizeof *pg->first);
    size_t n = 0;
    for (int q = 0; q < np; q++) {
        pg->first[q] = n;
        int c = vis->portals[q].leaf;
        n += (size_t)(vis->cluster_first[c + 1] - vis->cluster_first[c]);
    }
    pg->first[np] = n;
    pg->pass = q2_calloc(n + 1, sizeof *pg->pass);
    pg->xv = q2_calloc((size_t)np + 1, sizeof *pg->xv);
    pg->xw = q2_calloc((size_t)np + 1, sizeof *pg->xw);
    pg->enc = q2_calloc((size_t)np + 1, sizeof *pg->enc);
    pg->enclen = q2_calloc((size_t)np + 1, sizeof *pg->enclen);
    int deg = 0; /* most portals leading out of one cluster */
    for (int c = 0; c < vis->numclusters; c++)
        if (vis->cluster_first[c + 1] - vis->cluster_first[c] > deg) deg = vis->cluster_first[c + 1] - vis->cluster_first[c];
    static const dist_codec_t codec = {passages_size, passages_pack, passages_unpack, true};
    passage_ctx_t pc = {vis, pg};
    dist_loop_t *dl = dist_loop_begin(vis->dist, np, &codec, &pc);
#pragma omp parallel num_threads(vis->threads)
    {
        plane_t seps[2 * VIS_MAXW];
        uint64_t *tmp = q2_calloc((size_t)deg * words + 1, sizeof *tmp);
        pack_t *pk = q2_malloc(sizeof *pk);
        int *idx = q2_malloc(((size_t)np + 4) * sizeof *idx);
        for (long item; dist_loop_next(dl, &item); dist_loop_finished(dl, item)) {
            const int q = (int)item;
            const vis_portal_t *pq = &vis->portals[q];
            const vis_row_t *rq = &vis->rows[q];
            const uint64_t *fq = vis_row(vis, vis->flood, q);
            int c = pq->leaf, c0 = vis->cluster_first[c], nk = vis->cluster_first[c + 1] - c0;
            memset(tmp, 0, (size_t)nk * words * sizeof *tmp);
            for (int k = 0; k < nk; k++) {
                int p = vis->cluster_list[c0 + k];
                uint64_t *out = tmp + (size_t)k * words;
                if (!vis_row_bit(vis, fq, q, p)) continue; /* never walked */
                const vis_portal_t *pp = &vis->portals[p];
                int ppv[VIS_MAXW];
                int ns = find_seps(pq->w, pp->w, false, seps, NULL, NULL, 0, ppv);
                int nb = find_seps(pp->w, pq->w, true, seps + ns, seps, ppv, ns, NULL);
                const vis_row_t *rp = &vis->rows[p];
                const uint64_t *fp = vis_row(vis, vis->flood, p);
                pack_planes(pk, seps, ns, seps + ns, nb);
                int n = 0;
                const int w0 = rq->lo > rp->lo ? rq->lo : rp->lo, w1 = rq->hi < rp->hi ? rq->hi : rp->hi;
                for (int w = w0; w < w1; w++) {
                    uint64_t bits = out[w] = fq[w - rq->lo] & fp[w - rp->lo];
                    while (bits) {
                        idx[n++] = w * 64 + __builtin_ctzll(bits);
                        bits &= bits - 1;
                    }
                }
                drop_behind(ft, pk, idx, n, out);
            }
            /* keep the words between the first and last non-zero one, and
             * of those only the ones the separators changed (they lie
             * within the rows of both portals) */
            size_t total = 0;
            for (int k = 0; k < nk; k++) {
                const uint64_t *v = tmp + (size_t)k * words;
                const int p = vis->cluster_list[c0 + k];
                int lo = 0, hi = (int)words;
                while (lo < hi && !v[lo]) lo++;
                while (hi > lo && !v[hi - 1]) hi--;
                passage_t *ps = &pg->pass[pg->first[q] + (size_t)k];
                ps->lo = lo;
                ps->hi = hi;
                ps->x = (int)total;
                for (int w = lo; w < hi; w++) total += v[w] != might_and(vis, q, p, w);
                ps->nx = (int)total - ps->x;
            }
            passages_alloc(pg, q, total);
            for (int k = 0; k < nk; k++) {
                const uint64_t *v = tmp + (size_t)k * words;
                const int p = vis->cluster_list[c0 + k];
                const passage_t *ps = &pg->pass[pg->first[q] + (size_t)k];
                int x = ps->x;
                for (int w = ps->lo; w < ps->hi; w++)
                    if (v[w] != might_and(vis, q, p, w)) {
                        pg->xv[q][x] = v[w];
                        pg->xw[q][x++] = (uint32_t)w;
                    }
            }
            /* for the other ranks (and the trace's byte count) */
            if (dist_size(vis->dist) > 1 || dist_tracing(vis->dist)) passages_encode(vis, pg, q);
        }
        free(tmp);
        free(pk);
        free(idx);
    }
    dist_loop_end(dl);
    for (int q = 0; q < np; q++) free(pg->enc[q]);
    free(pg->enc);
    free(pg->enclen);
    pg->enc = NULL;
    pg->enclen = NULL;
}

/* After a wave, the masks of every portal narrow by what its portals found.
 * For a portal p that ran: beyond p only what p sees. For every portal p and
 * every portal d that ran: a line of sight through p and then through d's
 * reverse, reversed, passes d and then p's reverse, so d's reverse stays in
 * p's mask only if d saw p's reverse. Both rules hold for conservative
 * results, and both read only results of finished waves. */
static void narrow_masks(const vis_t *vis, uint64_t *mask, const rank_t *order, int lo, int hi)
{
    const int np = vis->numportals;
    const size_t words = (size_t)vis->portalwords;
    for (int r = lo; r < hi; r++) {
        const vis_row_t *row = &vis->rows[order[r].index];
        uint64_t *m = mask + row->at;
        const uint64_t *see = vis->see + vis->see_at[order[r].index];
        for (int i = 0; i < row->hi - row->lo; i++) m[i] &= see[i];
    }
    /* rev: the reverses of this wave's portals; only they can be cleared */
    uint64_t *rev = q2_calloc(words + 1, sizeof *rev);
    for (int r = lo; r < hi; r++) vbit_set(rev, order[r].index ^ 1);
    /* in pieces of NARROW_PIECE portals: one portal is too little work to
     * time on its own for the trace */
    enum { NARROW_PIECE = 64 };
    const int npieces = (np + NARROW_PIECE - 1) / NARROW_PIECE;
    dist_local_t *lt = dist_local_begin(vis->dist, npieces);
#pragma omp parallel for num_threads(vis->threads) schedule(dynamic)
    for (int piece = 0; piece < npieces; piece++) {
        double t0 = dist_local_start(lt);
        for (int p = piece * NARROW_PIECE; p < np && p < (piece + 1) * NARROW_PIECE; p++) {
            const vis_row_t *row = &vis->rows[p];
            uint64_t *m = mask + row->at;
            const int prev = p ^ 1;
            for (int w = row->lo; w < row->hi; w++) {
                uint64_t bits = m[w - row->lo] & rev[w];
                while (bits) {
                    int t = w * 64 + __builtin_ctzll(bits);
                    bits &= bits - 1;
                    if (!vis_row_bit(vis, vis->see + vis->see_at[t ^ 1], t ^ 1, prev)) m[w - row->lo] &= ~((uint64_t)1 << (t & 63));
                }
            }
        }
        dist_local_done(lt, piece, t0);
    }
    dist_local_end(lt);
    free(rev);
}

/* A wave's results as they travel between ranks: each portal's see row. */
typedef struct branch_t {
    int portal, plen, span; /* as flow_t's */
    long item;              /* the walk's item in its wave */
    int path[FLOW_MAX_SPLIT_DEPTH];
} branch_t;

typedef struct wave_t {
    vis_t *vis;
    const rank_t *order;
    int hi;
    long n; /* walks in the wave: item k is order[hi - 1 - k] */
    /* what every walk reads */
    const uint64_t *mask;
    const passages_t *pg;
    const struct filter_t *ft;
    /* branch hand-over (split_branch): this rank's queue of branches
     * handed over and not yet taken (a stack: which one a thread takes
     * changes no result), and how many are queued or running (atomic; a
     * thread leaves the wave only when the loop has no more walks for it
     * and this is zero) */
    pthread_mutex_t lock;
    branch_t **queue;
    int nqueue, capqueue;
    int outstanding;
    /* MPI: threads walking a walk or a part another rank spilled (atomic;
     * with outstanding, whether this rank has work running), and the
     * parts this rank spilled */
    int walking;
    long spills;
    long long last_spill_ns; /* when this rank last spilled (atomic) */
    dist_loop_t *dl;
    long chains;    /* steps of the handed-over branches (atomic) */
    long handovers; /* branches handed over (atomic) */
    long split_chains;
} wave_t;

static void flow_init(flow_t *f, wave_t *w)
{
    memset(f, 0, sizeof *f);
    f->vis = w->vis;
    f->mask = w->mask;
    f->pg = w->pg;
    f->ft = w->ft;
    f->wave = w;
    f->pk = q2_malloc(sizeof *f->pk);
    f->idx = q2_malloc(((size_t)w->vis->numportals + 4) * sizeof *f->idx);
}

static void flow_free(flow_t *f)
{
    for (int i = 0; i < f->nframes; i++) {
        free(f->frames[i]->might);
        free(f->frames[i]->exempt);
        free(f->frames[i]);
    }
    free(f->frames);
    free(f->pk);
    free(f->idx);
}

/* A branch handed over, walked by whichever thread took it: it re-walks
 * the chain to its first step by its path, then goes on from there. */
static void walk_branch(wave_t *w, flow_t *f, branch_t *b)
{
    long before = f->chains;
    memcpy(f->path, b->path, sizeof f->path);
    f->plen = b->plen;
    f->span = b->span;
    f->item = b->item;
    portal_flow(f, b->portal);
    f->plen = 0;
    __atomic_fetch_add(&w->chains, f->chains - before, __ATOMIC_RELAXED);
    f->chains = before;
    free(b);
    __atomic_fetch_sub(&w->outstanding, 1, __ATOMIC_RELEASE);
}

static int wave_portal(const wave_t *w, long k);

/* A spilled part: the walk's item, plen and span, the path, the row. */
enum { SPILL_HEAD = 3 };

/* Whether this rank may spill a branch now: at most one per
 * FLOW_SPILL_GAP_S, so that a rank busy with a long walk offers work to
 * the others a few hundred times a second and not at every step. Rank 0
 * hands spilled parts out only once the wave's walks have all been handed
 * out, so a part spilled early waits there for the tail. */
static bool spill_due(wave_t *w)
{
    long long now = os_monotonic_ns();
    long long last = __atomic_load_n(&w->last_spill_ns, __ATOMIC_RELAXED);
    if (last && now - last < (long long)(FLOW_SPILL_GAP_S * 1e9)) return false;
    return __atomic_compare_exchange_n(&w->last_spill_ns, &last, now, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* A branch as it travels to another rank (dist_loop_spill): the walk's
 * item in the wave, the path, and the walk's row as it stands (its packed
 * words: every rank has the same rows), so that the branch is pruned by
 * what the walk has seen so far. */
static void spill_branch(wave_t *w, flow_t *f, const branch_t *b)
{
    const vis_row_t *row = &w->vis->rows[f->base - w->vis->portals];
    const size_t words = (size_t)(row->hi - row->lo);
    const size_t nh = SPILL_HEAD + (size_t)b->plen;
    size_t len = sizeof(int32_t) * nh + words * sizeof(uint64_t);
    uint8_t *buf = q2_malloc(len);
    int32_t head[SPILL_HEAD + FLOW_MAX_SPLIT_DEPTH];
    head[0] = (int32_t)f->item;
    head[1] = b->plen;
    head[2] = b->span;
    for (int j = 0; j < b->plen; j++) head[SPILL_HEAD + j] = b->path[j];
    memcpy(buf, head, sizeof(int32_t) * nh);
    for (size_t i = 0; i < words; i++) {
        uint64_t v = seen_word(f, row->lo + (int)i);
        memcpy(buf + sizeof(int32_t) * nh + i * sizeof v, &v, sizeof v);
    }
    dist_loop_spill(w->dl, buf, len);
    free(buf);
    __atomic_fetch_add(&w->spills, 1, __ATOMIC_RELAXED);
}

/* A part another rank spilled: its walk's row gets the bits that came with
 * it, then the branch is walked here; this rank's row for the item goes
 * to the exchange with the rank's own (dist_loop_contribute), where the
 * rows are ORed: the walk's result is the same however its chains were
 * shared out (see recurse). */
static bool walk_spilled(wave_t *w, flow_t *f, const uint8_t *part, size_t len)
{
    int32_t head[SPILL_HEAD];
    if (len < sizeof head) return false;
    memcpy(head, part, sizeof head);
    long k = head[0];
    int plen = head[1], span = head[2];
    if (k < 0 || k >= w->n || plen < 1 || plen >= FLOW_MAX_SPLIT_DEPTH || span < 1) return false;
    int pi = wave_portal(w, k);
    const size_t words = (size_t)(w->vis->rows[pi].hi - w->vis->rows[pi].lo);
    if (len != sizeof(int32_t) * (SPILL_HEAD + (size_t)plen) + words * sizeof(uint64_t)) return false;
    int32_t path[FLOW_MAX_SPLIT_DEPTH];
    memcpy(path, part + SPILL_HEAD * sizeof(int32_t), sizeof(int32_t) * (size_t)plen);
    uint64_t *row = w->vis->see + w->vis->see_at[pi];
    const uint8_t *bits = part + sizeof(int32_t) * (SPILL_HEAD + (size_t)plen);
    for (size_t i = 0; i < words; i++) {
        uint64_t v;
        memcpy(&v, bits + i * sizeof v, sizeof v);
        if (v) __atomic_fetch_or(&row[i], v, __ATOMIC_RELAXED);
    }
    dist_loop_contribute(w->dl, k);
    long before = f->chains;
    for (int j = 0; j < plen; j++) f->path[j] = path[j];
    f->plen = plen;
    f->span = span;
    f->item = k;
    portal_flow(f, pi);
    f->plen = 0;
    __atomic_fetch_add(&w->chains, f->chains - before, __ATOMIC_RELAXED);
    f->chains = before;
    return true;
}

static branch_t *take_branch(wave_t *w)
{
    if (__atomic_load_n(&w->nqueue, __ATOMIC_RELAXED) == 0) return NULL;
    pthread_mutex_lock(&w->lock);
    branch_t *b = w->nqueue > 0 ? w->queue[--w->nqueue] : NULL;
    pthread_mutex_unlock(&w->lock);
    return b;
}

/* Called at frame d before the walk enters the step at hand: once this
 * walk has run long enough to be worth splitting, hands the steps still
 * ahead in its shallowest unfinished frame to this rank's other threads
 * while few branches wait, or else (with other ranks, in the wave's tail
 * or from a long walk) to another rank. A thread that finishes a walk
 * takes a waiting branch before it asks for a new walk, so one long walk
 * is shared by all the rank's threads as soon as it proves long, not only
 * at the end of the wave. The branch marks into the same row (another
 * rank's into its copy, ORed at the exchange). Whether a branch is handed
 * over depends on timing, but the row does not (see recurse). */
static void split_branch(flow_t *f, int d)
{
    wave_t *w = f->wave;
    /* a branch re-walking its own path hands nothing over there: the step
     * at path[d] is the branch itself */
    if (!w || d < f->plen || d + 1 >= FLOW_MAX_SPLIT_DEPTH || f->chains - f->start < w->split_chains) return;
    /* one thread has nobody to share with (split_force, for tests, hands
     * over anyway: the branches wait for the end of the walk) */
    const bool ranks = dist_size(w->vis->dist) > 1;
    if (w->vis->threads < 2 && !w->vis->split_force && !ranks) return;
    /* one waiting branch per thread keeps every thread fed (with
     * split_force, four); with more waiting, in the wave's tail, the
     * branch goes to another rank instead, if one asks for work */
    int cap = w->vis->threads * (w->vis->split_force ? 4 : 1);
    bool spill = ranks && dist_spill_test(w->vis->dist);
    if (!spill && __atomic_load_n(&w->nqueue, __ATOMIC_RELAXED) >= cap) {
        /* only in the wave's tail, or from a walk long enough to hold the
         * wave up: spilling earlier would only move work about */
        if (!ranks || !(f->chains - f->began > FLOW_LONG_WALK || dist_loop_in_tail(w->dl)) || !spill_due(w))
            return;
        spill = true;
    }
    /* The part handed over: the steps still ahead in the walk's shallowest
     * frame that has any (the most work, for one re-walk of a short path),
     * which this walk then leaves out; it goes on into the step at hand. */
    int j = 0;
    while (j <= d && f->frames[j]->step + 1 >= f->frames[j]->stop) j++;
    if (j > d) return;
    branch_t *b = q2_malloc(sizeof *b);
    b->portal = (int)(f->base - w->vis->portals);
    b->item = f->item;
    frame_t *fj = f->frames[j];
    const int c = w->vis->portals[fj->last].leaf; /* the cluster frame j walks out of */
    const int k0 = w->vis->cluster_first[c], k1 = w->vis->cluster_first[c + 1];
    const int s1 = fj->step + 1;
    for (int i = 0; i < j; i++) b->path[i] = f->frames[i]->k;
    b->path[j] = w->vis->reverse ? k1 - 1 - s1 : k0 + s1;
    b->plen = j + 1;
    b->span = fj->stop - s1;
    fj->stop = s1;
    /* the next hand-over only after as many steps again: each branch
     * handed over costs the re-walk of its path */
    f->start = f->chains;
    if (spill) {
        spill_branch(w, f, b);
        free(b);
        return;
    }
    __atomic_fetch_add(&w->outstanding, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&w->handovers, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&w->lock);
    ARRAY_PUSH(w->queue, w->nqueue, w->capqueue, b);
    pthread_mutex_unlock(&w->lock);
    return;
}

static int wave_portal(const wave_t *w, long k) { return w->order[w->hi - 1 - k].index; }

static size_t wave_row_size(void *ctx, long k)
{
    const wave_t *w = ctx;
    const vis_row_t *row = &w->vis->rows[wave_portal(w, k)];
    return (size_t)(row->hi - row->lo) * sizeof(uint64_t);
}

static void wave_row_pack(void *ctx, long k, uint8_t *out)
{
    const wave_t *w = ctx;
    memcpy(out, w->vis->see + w->vis->see_at[wave_portal(w, k)], wave_row_size(ctx, k));
}

/* A row of another length is a bug, not bad input: every rank has the
 * same rows. */
static void wave_row_unpack(void *ctx, long k, const uint8_t *in, size_t size)
{
    wave_t *w = ctx;
    int pi = wave_portal(w, k);
    uint64_t *row = w->vis->see + w->vis->see_at[pi];
    if (size != wave_row_size(ctx, k)) abort();
    /* ORed: several ranks may send parts of one walk's row (spilled
     * branches); a row this rank had no part of is zero here. Its count is
     * taken after the exchange, with the rank's own rows. */
    for (size_t i = 0; i < size / sizeof(uint64_t); i++) {
        uint64_t v;
        memcpy(&v, in + i * sizeof v, sizeof v);
        row[i] |= v;
    }
}

/* Portal p's final flow row, into its cluster's reach: the cluster behind
 * p and those behind every portal p sees. */
static void reach_add(vis_t *vis, int p, const uint64_t *row)
{
    const vis_row_t *r = &vis->rows[p];
    uint8_t *out = vis->reach + (size_t)vis->portals[p].owner * (size_t)vis_row_bytes(vis->numclusters);
    int leaf = vis->portals[p].leaf;
    out[leaf >> 3] |= (uint8_t)(1u << (leaf & 7));
    for (int w = r->lo; w < r->hi; w++) {
        uint64_t bits = row[w - r->lo];
        while (bits) {
            leaf = vis->portals[w * 64 + __builtin_ctzll(bits)].leaf;
            bits &= bits - 1;
            out[leaf >> 3] |= (uint8_t)(1u << (leaf & 7));
        }
    }
    if (vis->row_hook) vis->row_hook(vis->row_hook_ctx, vis, p, row);
}

void vis_flow(vis_t *vis, bool fast, log_t *log)
{
    int np = vis->numportals;
    free(vis->reach);
    vis->reach = q2_calloc((size_t)vis->numclusters * (size_t)vis_row_bytes(vis->numclusters) + 1, 1);
    if (fast) {
        for (int i = 0; i < np; i++) {
            vis->portals[i].numsee = vis->portals[i].nummight;
            reach_add(vis, i, vis_row(vis, vis->flood, i));
        }
        return;
    }
    rank_t *order = q2_malloc(((size_t)np + 1) * sizeof *order);
    for (int i = 0; i < np; i++) order[i] = (rank_t){vis->portals[i].nummight, i};
    qsort(order, (size_t)np, sizeof *order, cmp_rank);
    /* the masks start as the might-see rows and narrow in place: once the
     * passages are built nothing else reads those (a copy was 8.2 MB on
     * base1-test) */
    uint64_t *mask = vis->flood;

    passages_t pg;
    vec4_t *sph = q2_malloc(((size_t)np + 1) * sizeof *sph);
    for (int i = 0; i < np; i++)
        sph[i] = (vec4_t){vis->portals[i].origin.x, vis->portals[i].origin.y, vis->portals[i].origin.z, vis->portals[i].radius};
    fbox_t *fbox = q2_malloc(((size_t)np + 1) * sizeof *fbox);
    bool float_filter = true;
    for (int i = 0; i < np; i++) {
        const vis_portal_t *p = &vis->portals[i];
        vec3_t h = {0, 0, 0};
        for (int k = 0; k < p->w->n; k++) {
            vec3_t e = vec_sub(p->w->p[k], p->origin);
            h = vec_max(h, (vec3_t){fabs(e.x), fabs(e.y), fabs(e.z)});
        }
        fbox[i] = (fbox_t){(float)p->origin.x, (float)p->origin.y, (float)p->origin.z, (float)h.x, (float)h.y, (float)h.z};
        if (fabs(p->origin.x) + fabs(p->origin.y) + fabs(p->origin.z) + h.x + h.y + h.z > VIS_FLOAT_RANGE)
            float_filter = false;
    }
    const filter_t ft = {vis, sph, fbox, float_filter};
    build_passages(vis, &ft, &pg);
    vis->waves = FLOW_WAVES;
    const int nwaves = vis->waves;
    /* room for the flow rows of the largest wave */
    size_t seewords = 0;
    for (int wv = 0; wv < nwaves; wv++) {
        size_t n = 0;
        for (int r = (int)((long)np * wv / nwaves); r < (int)((long)np * (wv + 1) / nwaves); r++)
            n += (size_t)(vis->rows[order[r].index].hi - vis->rows[order[r].index].lo);
        if (n > seewords) seewords = n;
    }
    free(vis->see);
    free(vis->see_at);
    vis->see = q2_malloc((seewords + 1) * sizeof *vis->see);
    vis->see_at = q2_calloc((size_t)np + 1, sizeof *vis->see_at);
    long chains = 0, done = 0, handovers = 0, spills = 0;
    progress_t prog;
    progress_begin(&prog, log, "portal flow", np);
    static const dist_codec_t codec = {wave_row_size, wave_row_pack, wave_row_unpack, false};
    for (int wv = 0; wv < nwaves; wv++) {
        int lo = (int)((long)np * wv / nwaves), hi = (int)((long)np * (wv + 1) / nwaves);
        /* item k of the wave is order[hi - 1 - k]: the hardest portals first */
        wave_t wave;
        memset(&wave, 0, sizeof wave);
        wave.vis = vis;
        wave.order = order;
        wave.hi = hi;
        wave.mask = mask;
        wave.pg = &pg;
        wave.ft = &ft;
        wave.split_chains = vis->split_chains > 0 ? vis->split_chains : FLOW_SPLIT_CHAINS;
        pthread_mutex_init(&wave.lock, NULL);
        size_t at = 0;
        for (int r = lo; r < hi; r++) {
            vis->see_at[order[r].index] = at;
            at += (size_t)(vis->rows[order[r].index].hi - vis->rows[order[r].index].lo);
        }
        memset(vis->see, 0, at * sizeof *vis->see);
        wave.n = hi - lo;
        dist_loop_t *dl = wave.dl = dist_loop_begin_spilling(vis->dist, hi - lo, &codec, &wave);
        bool bad_part = false;
#pragma omp parallel num_threads(vis->threads) reduction(+ : chains) reduction(|| : bad_part)
        {
            flow_t f;
            flow_init(&f, &wave);
            bool more = true;
            for (long nap_ns = FLOW_NAP_MIN_NS;;) {
                branch_t *b = take_branch(&wave);
                if (b) {
                    walk_branch(&wave, &f, b);
                    nap_ns = FLOW_NAP_MIN_NS;
                    continue;
                }
                if (more) {
                    /* walking first, then outstanding: a walk hands a branch
                     * over (outstanding) before it stops walking */
                    bool busy = __atomic_load_n(&wave.walking, __ATOMIC_SEQ_CST) > 0 ||
                                __atomic_load_n(&wave.outstanding, __ATOMIC_SEQ_CST) > 0;
                    long k;
                    uint8_t *part = NULL;
                    size_t len = 0;
                    dist_next_t got = dist_loop_next_ex(dl, busy, &k, &part, &len);
                    if (got == DIST_ITEM || got == DIST_SPILL) {
                        __atomic_fetch_add(&wave.walking, 1, __ATOMIC_SEQ_CST);
                        if (got == DIST_ITEM) {
                            int pi = order[hi - 1 - k].index;
                            f.plen = 0;
                            f.item = k;
                            portal_flow(&f, pi);
                            progress_update(&prog, done + dist_loop_finished(dl, k));
                        } else {
                            if (!walk_spilled(&wave, &f, part, len)) bad_part = true;
                            free(part);
                            dist_loop_part_done(dl);
                        }
                        __atomic_fetch_sub(&wave.walking, 1, __ATOMIC_SEQ_CST);
                        nap_ns = FLOW_NAP_MIN_NS;
                        continue;
                    }
                    if (got == DIST_DONE) more = false;
                }
                /* no walks left for this rank: wait for the branches still
                 * running, which may hand over more (or, with other ranks,
                 * for their spilled parts, until every rank is done) */
                if (!more && __atomic_load_n(&wave.outstanding, __ATOMIC_ACQUIRE) == 0) break;
                os_sleep_ns(nap_ns);
                if (nap_ns < FLOW_NAP_MAX_NS) nap_ns *= 2;
            }
            chains += f.chains;
            flow_free(&f);
        }
        /* a part from another rank of this job that does not parse is a
         * bug, not bad input: every rank runs the same program */
        if (bad_part) abort();
        pthread_mutex_destroy(&wave.lock);
        free(wave.queue);
        chains += wave.chains;
        handovers += wave.handovers;
        spills += wave.spills;
        dist_loop_end(dl);
        /* a walk's branches may end after it, so its count waits until now */
        for (int r = lo; r < hi; r++) {
            const vis_row_t *row = &vis->rows[order[r].index];
            vis->portals[order[r].index].numsee = vbits_count(vis->see + vis->see_at[order[r].index], row->hi - row->lo);
        }
        done += hi - lo;
        /* results of this wave may narrow the walks of the next ones */
        narrow_masks(vis, mask, order, lo, hi);
        /* and then only the clusters they reach are kept */
        for (int r = lo; r < hi; r++) reach_add(vis, order[r].index, vis->see + vis->see_at[order[r].index]);
    }
    free(vis->see);
    free(vis->see_at);
    vis->see = NULL;
    vis->see_at = NULL;
    progress_end(&prog);
    dist_sum_long(vis->dist, &chains, 1);
    vis->chains = chains;
    vis->handovers = handovers;
    dist_sum_long(vis->dist, &spills, 1);
    vis->spills = spills;
    for (int i = 0; i < np; i++) free(pg.xv[i]);
    free(pg.xv);
    free(pg.xw);
    free(pg.pass);
    free(pg.first);
    free(sph);
    free(fbox);
    free(order);
}
