/* qvis filters (single-precision pretests, separating-plane filter, base
 * flood) checked on synthetic portal files built in memory, through the
 * public stages only:
 *  - a grid of box cells whose walls hold convex portals of many shapes
 *    (axial rectangles, triangles, random convex polygons, slits, whole
 *    walls, and windings with duplicate, near-duplicate and collinear
 *    points). Lines through the portals are traced through the grid by an
 *    independent reference: two cells joined by a line that crosses every
 *    wall between them inside its portal must see each other;
 *  - the same map within VIS_FLOAT_RANGE (the float pretests run, near the
 *    origin and far from it) and moved beyond it (the double fallbacks
 *    run) must give identical base and flow vectors, as must 1 and 2
 *    threads;
 *  - flow results stay within the base vectors, and a chain that no line
 *    can pass (a zig-zag) is found blocked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../common/mem.h"
#include "../../common/winding.h"
#include "qvis.h"

#define CELL 64.0
#define MAXHULL 16

/* A deterministic generator (xorshift64*), so every run builds the same maps. */
typedef struct rng_t {
    uint64_t s;
} rng_t;

static uint64_t rng_next(rng_t *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1DULL;
}

static double rng_unit(rng_t *r) { return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0); }
static int rng_int(rng_t *r, int n) { return (int)(rng_next(r) % (uint64_t)n); }
/* A coordinate in [lo, hi] on the 1/8 grid: such points move exactly by
 * integer offsets, so a moved map has the very same geometry. */
static double rng_coord(rng_t *r, double lo, double hi) { return lo + (double)rng_int(r, (int)((hi - lo) * 8) + 1) / 8.0; }

static double axis_get(vec3_t v, int a) { return a == 0 ? v.x : a == 1 ? v.y : v.z; }
static void axis_set(vec3_t *v, int a, double x)
{
    if (a == 0)
        v->x = x;
    else if (a == 1)
        v->y = x;
    else
        v->z = x;
}

/* A wall portal in the wall's own coordinates (u, v) = axes (a+1, a+2) of
 * the wall with normal axis a, relative to the lower cell's corner. `hull`
 * is the convex polygon (counter-clockwise) the reference tests against;
 * `pts` the winding written to the portal file (the hull, possibly with
 * extra duplicate, near-duplicate or collinear points). */
typedef struct face_t {
    bool has;
    int nhull, npts;
    double hu[MAXHULL], hv[MAXHULL];
    double pu[2 * MAXHULL], pv[2 * MAXHULL];
} face_t;

typedef struct map_t {
    int n[3];
    int ncells;
    face_t *face[3]; /* per wall axis, indexed by the lower cell */
} map_t;

static int cell_index(const map_t *m, const int c[3]) { return c[0] + m->n[0] * (c[1] + m->n[1] * c[2]); }

static double cross2(double ax, double ay, double bx, double by, double cx, double cy)
{
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

static int cmp_pt(const void *a, const void *b)
{
    const double *p = a, *q = b;
    if (p[0] != q[0]) return p[0] < q[0] ? -1 : 1;
    return (p[1] > q[1]) - (p[1] < q[1]);
}

/* Convex hull (monotone chain, counter-clockwise, no collinear points). */
static int hull2(double (*pts)[2], int n, double *hu, double *hv)
{
    qsort(pts, (size_t)n, sizeof pts[0], cmp_pt);
    double h[2 * MAXHULL + 2][2];
    int k = 0;
    for (int i = 0; i < n; i++) {
        while (k >= 2 && cross2(h[k - 2][0], h[k - 2][1], h[k - 1][0], h[k - 1][1], pts[i][0], pts[i][1]) <= 0) k--;
        h[k][0] = pts[i][0];
        h[k][1] = pts[i][1];
        k++;
    }
    for (int i = n - 2, t = k + 1; i >= 0; i--) {
        while (k >= t && cross2(h[k - 2][0], h[k - 2][1], h[k - 1][0], h[k - 1][1], pts[i][0], pts[i][1]) <= 0) k--;
        h[k][0] = pts[i][0];
        h[k][1] = pts[i][1];
        k++;
    }
    k--; /* the last point repeats the first */
    if (k > MAXHULL) k = 0;
    for (int i = 0; i < k; i++) {
        hu[i] = h[i][0];
        hv[i] = h[i][1];
    }
    return k;
}

static double hull_area(const face_t *f)
{
    double a = 0;
    for (int i = 0; i < f->nhull; i++) {
        int j = (i + 1) % f->nhull;
        a += f->hu[i] * f->hv[j] - f->hu[j] * f->hv[i];
    }
    return a / 2;
}

/* On the 16-unit lattice (see map_make's `aligned`). */
static double rng_lattice(rng_t *r) { return 16.0 * rng_int(r, 5); }

/* One wall portal of a random kind. */
static void make_face(rng_t *r, face_t *f, bool aligned)
{
    double pts[MAXHULL][2];
    static const int aligned_kinds[4] = {0, 1, 3, 6};
    int kind = aligned ? aligned_kinds[rng_int(r, 4)] : rng_int(r, 7);
    for (int tries = 0; tries < 100; tries++) {
        int n = 0;
        if (aligned && kind != 6) {
            n = kind == 1 ? 3 : 4;
            for (int i = 0; i < n; i++) {
                pts[i][0] = rng_lattice(r);
                pts[i][1] = rng_lattice(r);
            }
        } else if (kind == 0 || kind == 5) { /* axial rectangle, or a slit */
            double u0 = rng_coord(r, 0, 48), v0 = rng_coord(r, 0, 48);
            double du = kind == 5 ? rng_coord(r, 0.5, 1.5) : rng_coord(r, 4, CELL - u0);
            double dv = rng_coord(r, 4, CELL - v0);
            if (kind == 5 && rng_int(r, 2)) {
                double t = du;
                du = dv;
                dv = t;
            }
            if (u0 + du > CELL || v0 + dv > CELL) continue;
            double c[4][2] = {{u0, v0}, {u0 + du, v0}, {u0 + du, v0 + dv}, {u0, v0 + dv}};
            memcpy(pts, c, sizeof c);
            n = 4;
        } else if (kind == 1) { /* triangle */
            for (; n < 3; n++) {
                pts[n][0] = rng_coord(r, 0, CELL);
                pts[n][1] = rng_coord(r, 0, CELL);
            }
        } else if (kind == 6) { /* the whole wall */
            double c[4][2] = {{0, 0}, {CELL, 0}, {CELL, CELL}, {0, CELL}};
            memcpy(pts, c, sizeof c);
            n = 4;
        } else { /* random convex polygon, possibly with extra points below */
            double cu = rng_coord(r, 8, 56), cv = rng_coord(r, 8, 56);
            double ru = rng_coord(r, 3, 20), rv = rng_coord(r, 3, 20);
            n = 4 + rng_int(r, 8);
            for (int i = 0; i < n; i++) {
                double u = cu + ru * (2 * rng_unit(r) - 1), v = cv + rv * (2 * rng_unit(r) - 1);
                pts[i][0] = floor(u * 8) / 8;
                pts[i][1] = floor(v * 8) / 8;
                if (pts[i][0] < 0) pts[i][0] = 0;
                if (pts[i][0] > CELL) pts[i][0] = CELL;
                if (pts[i][1] < 0) pts[i][1] = 0;
                if (pts[i][1] > CELL) pts[i][1] = CELL;
            }
        }
        f->nhull = hull2(pts, n, f->hu, f->hv);
        if (f->nhull < 3 || hull_area(f) < 2.0) continue;
        break;
    }
    if (f->nhull < 3 || hull_area(f) < 2.0) { /* give up on the kind: a plain square */
        double c[4][2] = {{16, 16}, {48, 16}, {48, 48}, {16, 48}};
        memcpy(pts, c, sizeof c);
        f->nhull = hull2(pts, 4, f->hu, f->hv);
    }
    f->npts = 0;
    for (int i = 0; i < f->nhull; i++) {
        int j = (i + 1) % f->nhull;
        f->pu[f->npts] = f->hu[i];
        f->pv[f->npts++] = f->hv[i];
        if (kind >= 3 && kind <= 4) {
            /* kind 3: an exact duplicate of a vertex, a point 1/256 of the
             * edge along it (a near-duplicate) and the edge's midpoint (a
             * collinear point); all exact on the 1/2048 grid */
            int what = rng_int(r, 4);
            double eu = f->hu[j] - f->hu[i], ev = f->hv[j] - f->hv[i];
            if (what == 1) {
                f->pu[f->npts] = f->hu[i];
                f->pv[f->npts++] = f->hv[i];
            } else if (what == 2) {
                f->pu[f->npts] = f->hu[i] + eu / 256;
                f->pv[f->npts++] = f->hv[i] + ev / 256;
            } else if (what == 3) {
                f->pu[f->npts] = f->hu[i] + eu / 2;
                f->pv[f->npts++] = f->hv[i] + ev / 2;
            }
        }
    }
    f->has = true;
}

/* `aligned`: every portal point on a 16-unit lattice, so edges of different
 * portals line up and separating planes pass exactly through other
 * portals' edges: the filters' decisions then sit right at VIS_EPSILON,
 * where a float test with too small a margin would differ from the double
 * one. */
static void map_make(map_t *m, uint64_t seed, int nx, int ny, int nz, int open_percent, bool aligned)
{
    rng_t r = {seed * 0x9E3779B97F4A7C15ULL + 1};
    m->n[0] = nx;
    m->n[1] = ny;
    m->n[2] = nz;
    m->ncells = nx * ny * nz;
    for (int a = 0; a < 3; a++) {
        m->face[a] = q2_calloc((size_t)m->ncells, sizeof(face_t));
        for (int ci = 0; ci < m->ncells; ci++) {
            int c[3] = {ci % nx, ci / nx % ny, ci / nx / ny};
            if (c[a] + 1 >= m->n[a]) continue;
            if (rng_int(&r, 100) >= open_percent) continue;
            make_face(&r, &m->face[a][ci], aligned);
        }
    }
}

static void map_free(map_t *m)
{
    for (int a = 0; a < 3; a++) free(m->face[a]);
}

/* The portal file of the map moved by `off`. Windings face the lower cell,
 * which is listed first (the qbsp3 convention, see formats/prt.h). */
static void map_prt(const map_t *m, vec3_t off, prt_t *prt)
{
    int n = 0;
    for (int a = 0; a < 3; a++)
        for (int ci = 0; ci < m->ncells; ci++) n += m->face[a][ci].has;
    memset(prt, 0, sizeof *prt);
    prt->numclusters = m->ncells;
    prt->numportals = n;
    prt->portals = q2_calloc((size_t)n + 1, sizeof *prt->portals);
    int k = 0;
    for (int a = 0; a < 3; a++) {
        int ua = (a + 1) % 3, va = (a + 2) % 3;
        for (int ci = 0; ci < m->ncells; ci++) {
            const face_t *f = &m->face[a][ci];
            if (!f->has) continue;
            int c[3] = {ci % m->n[0], ci / m->n[0] % m->n[1], ci / m->n[0] / m->n[1]};
            int hi[3] = {c[0], c[1], c[2]};
            hi[a]++;
            winding_t *w = winding_alloc(f->npts);
            w->numpoints = f->npts;
            for (int i = 0; i < f->npts; i++) {
                vec3_t p;
                axis_set(&p, a, (c[a] + 1) * CELL + axis_get(off, a));
                axis_set(&p, ua, c[ua] * CELL + f->pu[i] + axis_get(off, ua));
                axis_set(&p, va, c[va] * CELL + f->pv[i] + axis_get(off, va));
                w->p[i] = p;
            }
            vec3_t nrm;
            double d;
            winding_plane(w, &nrm, &d);
            if (axis_get(nrm, a) > 0) {
                winding_t *rv = winding_reverse(w);
                winding_free(w);
                w = rv;
            }
            prt->portals[k].cluster[0] = ci;
            prt->portals[k].cluster[1] = cell_index(m, hi);
            prt->portals[k].winding = w;
            k++;
        }
    }
}

/* Whether (u, v) lies inside the counter-clockwise hull, by at least margin. */
static bool inside_hull(const face_t *f, double u, double v, double margin)
{
    for (int i = 0; i < f->nhull; i++) {
        int j = (i + 1) % f->nhull;
        double eu = f->hu[j] - f->hu[i], ev = f->hv[j] - f->hv[i];
        double c = eu * (v - f->hv[i]) - ev * (u - f->hu[i]);
        if (c < margin * sqrt(eu * eu + ev * ev)) return false;
    }
    return true;
}

typedef struct cross_t {
    double t;
    int a, k;
} cross_t;

static int cmp_cross(const void *x, const void *y)
{
    const cross_t *p = x, *q = y;
    return (p->t > q->t) - (p->t < q->t);
}

static void mark_run(const int *run, int n, int nc, bool *req)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) req[(size_t)run[i] * nc + run[j]] = true;
}

/* Traces the line through A and B across the whole grid (in the map's own
 * coordinates): the cells it passes between blocked walls see each other. */
static void trace_line(const map_t *m, vec3_t A, vec3_t B, bool *req)
{
    vec3_t d = vec_sub(B, A);
    double t0 = -1e30, t1 = 1e30;
    for (int a = 0; a < 3; a++) {
        double da = axis_get(d, a), pa = axis_get(A, a), lim = m->n[a] * CELL;
        if (fabs(da) < 1e-12) {
            if (pa <= 0 || pa >= lim) return;
            continue;
        }
        double ta = (0 - pa) / da, tb = (lim - pa) / da;
        if (ta > tb) {
            double t = ta;
            ta = tb;
            tb = t;
        }
        if (ta > t0) t0 = ta;
        if (tb < t1) t1 = tb;
    }
    if (t0 >= t1) return;
    cross_t cr[64];
    int ncr = 0;
    for (int a = 0; a < 3; a++) {
        double da = axis_get(d, a), pa = axis_get(A, a);
        if (fabs(da) < 1e-12) continue;
        for (int k = 1; k < m->n[a]; k++) {
            double t = (k * CELL - pa) / da;
            if (t > t0 && t < t1) cr[ncr++] = (cross_t){t, a, k};
        }
    }
    qsort(cr, (size_t)ncr, sizeof cr[0], cmp_cross);
    double tstart = ncr ? (t0 + cr[0].t) / 2 : (t0 + t1) / 2;
    vec3_t s = vec_ma(A, tstart, d);
    int c[3];
    for (int a = 0; a < 3; a++) {
        c[a] = (int)floor(axis_get(s, a) / CELL);
        if (c[a] < 0) c[a] = 0;
        if (c[a] >= m->n[a]) c[a] = m->n[a] - 1;
    }
    int run[64], nrun = 0;
    run[nrun++] = cell_index(m, c);
    for (int i = 0; i < ncr; i++) {
        int a = cr[i].a, ua = (a + 1) % 3, va = (a + 2) % 3;
        int step = axis_get(d, a) > 0 ? 1 : -1;
        int lo[3] = {c[0], c[1], c[2]};
        if (step < 0) lo[a]--;
        if (lo[a] != cr[i].k - 1) fail_msg("reference walk lost its cell");
        bool open = true;
        /* two walls crossed at once (an edge of the grid): not a clear line */
        if ((i > 0 && cr[i].t - cr[i - 1].t < 1e-6) || (i + 1 < ncr && cr[i + 1].t - cr[i].t < 1e-6)) open = false;
        if (open) {
            const face_t *f = &m->face[a][cell_index(m, lo)];
            vec3_t x = vec_ma(A, cr[i].t, d);
            open = f->has &&
                   inside_hull(f, axis_get(x, ua) - lo[ua] * CELL, axis_get(x, va) - lo[va] * CELL, 1e-3);
        }
        c[a] += step;
        if (c[a] < 0 || c[a] >= m->n[a]) break;
        if (!open) {
            mark_run(run, nrun, m->ncells, req);
            nrun = 0;
        }
        run[nrun++] = cell_index(m, c);
    }
    mark_run(run, nrun, m->ncells, req);
}

/* A random point of a face's portal, in map coordinates. */
static vec3_t face_point(const map_t *m, rng_t *r, int a, int ci)
{
    const face_t *f = &m->face[a][ci];
    int c[3] = {ci % m->n[0], ci / m->n[0] % m->n[1], ci / m->n[0] / m->n[1]};
    double w[MAXHULL], sum = 0, u = 0, v = 0;
    for (int i = 0; i < f->nhull; i++) {
        w[i] = rng_unit(r);
        w[i] = w[i] * w[i] * w[i]; /* favour points near a vertex */
        sum += w[i];
    }
    for (int i = 0; i < f->nhull; i++) {
        u += f->hu[i] * w[i] / sum;
        v += f->hv[i] * w[i] / sum;
    }
    vec3_t p;
    int ua = (a + 1) % 3, va = (a + 2) % 3;
    axis_set(&p, a, (c[a] + 1) * CELL);
    axis_set(&p, ua, c[ua] * CELL + u);
    axis_set(&p, va, c[va] * CELL + v);
    return p;
}

/* Cell pairs some sampled line of sight joins. */
static bool *required_pairs(const map_t *m, uint64_t seed, int samples, int *nonadjacent)
{
    int nc = m->ncells;
    bool *req = q2_calloc((size_t)nc * nc, sizeof *req);
    int nf = 0;
    int(*fl)[2] = q2_malloc((size_t)(3 * nc + 1) * sizeof *fl);
    for (int a = 0; a < 3; a++)
        for (int ci = 0; ci < nc; ci++)
            if (m->face[a][ci].has) {
                fl[nf][0] = a;
                fl[nf][1] = ci;
                nf++;
            }
    rng_t r = {seed * 0xD1B54A32D192ED03ULL + 7};
    for (int s = 0; s < samples && nf >= 2; s++) {
        int i = rng_int(&r, nf), j = rng_int(&r, nf);
        if (i == j) continue;
        vec3_t A = face_point(m, &r, fl[i][0], fl[i][1]);
        vec3_t B = face_point(m, &r, fl[j][0], fl[j][1]);
        if (vec_len(vec_sub(A, B)) < 1) continue;
        trace_line(m, A, B, req);
    }
    free(fl);
    *nonadjacent = 0;
    for (int a = 0; a < nc; a++)
        for (int b = 0; b < nc; b++) {
            if (!req[(size_t)a * nc + b] || a == b) continue;
            int ca[3] = {a % m->n[0], a / m->n[0] % m->n[1], a / m->n[0] / m->n[1]};
            int cb[3] = {b % m->n[0], b / m->n[0] % m->n[1], b / m->n[0] / m->n[1]};
            int dist = abs(ca[0] - cb[0]) + abs(ca[1] - cb[1]) + abs(ca[2] - cb[2]);
            if (dist > 1) (*nonadjacent)++;
        }
    return req;
}

typedef struct result_t {
    int np, words, nc, rowbytes;
    uint64_t *flood, *see;
    uint8_t *pvs;
    bool float_base, float_flow; /* whether the single-precision paths ran */
} result_t;

static void result_free(result_t *r)
{
    free(r->flood);
    free(r->see);
    free(r->pvs);
}

/* The base vector of every portal computed straight from the definition,
 * point by point in double precision (no spheres, no float pretest): j is a
 * candidate of p when a point of j lies more than VIS_EPSILON in front of
 * p's plane and a point of p more than VIS_EPSILON behind j's plane; the
 * base vector holds the candidates leading out of the clusters reachable
 * from p through candidates. Must equal vis_base's result bit for bit. */
static void check_base(const vis_t *vis, const char *what)
{
    const int np = vis->numportals;
    bool *cand = q2_calloc((size_t)np * np + 1, sizeof *cand);
    for (int i = 0; i < np; i++)
        for (int j = 0; j < np; j++) {
            if (i == j) continue;
            const vis_portal_t *p = &vis->portals[i], *t = &vis->portals[j];
            bool front = false, back = false;
            for (int k = 0; k < t->w->n; k++)
                if (vec_dot(t->w->p[k], p->plane.normal) - p->plane.dist > VIS_EPSILON) front = true;
            for (int k = 0; k < p->w->n; k++)
                if (vec_dot(p->w->p[k], t->plane.normal) - t->plane.dist < -VIS_EPSILON) back = true;
            cand[(size_t)i * np + j] = front && back;
        }
    bool *reach = q2_malloc((size_t)vis->numclusters + 1);
    for (int i = 0; i < np; i++) {
        memset(reach, 0, (size_t)vis->numclusters);
        reach[vis->portals[i].leaf] = true;
        for (bool grew = true; grew;) {
            grew = false;
            for (int j = 0; j < np; j++)
                if (cand[(size_t)i * np + j] && reach[vis->portals[j].owner] && !reach[vis->portals[j].leaf])
                    reach[vis->portals[j].leaf] = grew = true;
        }
        for (int j = 0; j < np; j++) {
            bool want = cand[(size_t)i * np + j] && reach[vis->portals[j].owner];
            if (vis_row_bit(vis, vis_row(vis, vis->flood, i), i, j) != want)
                fail_msg("%s: base vector of portal %d %s portal %d, the point-by-point definition %s", what, i,
                         want ? "lacks" : "holds", j, want ? "keeps it" : "does not");
        }
    }
    free(reach);
    free(cand);
}

/* split_chains > 0: walks hand branches to other threads after that many
 * steps (portalflow.c's split_branch); *handovers gets how many they did. */
static bool g_reverse; /* walks take each cluster's portals last to first */

/* vis_t.row_hook: keeps each portal's flow row as a whole vector. */
static void keep_row(void *ctx, const vis_t *vis, int portal, const uint64_t *row)
{
    vis_row_expand(vis, row, portal, (uint64_t *)ctx + (size_t)portal * vis->portalwords);
}

static void run_vis_split(const prt_t *prt, int threads, int level, long split_chains, long *handovers, result_t *out)
{
    vis_t vis;
    q2err_t err;
    if (!vis_init(&vis, prt, threads, level, NULL, NULL, &err)) fail_msg("%s", err.msg);
    vis.split_chains = split_chains;
    vis.reverse = g_reverse;
    /* the conditions portalflow.c and basevis.c test (see VIS_FLOAT_RANGE) */
    out->float_base = out->float_flow = true;
    for (int i = 0; i < vis.numportals; i++) {
        const vis_portal_t *p = &vis.portals[i];
        double l1 = fabs(p->origin.x) + fabs(p->origin.y) + fabs(p->origin.z);
        if (l1 + p->radius > VIS_FLOAT_RANGE) out->float_base = false;
        vec3_t h = {0, 0, 0};
        for (int k = 0; k < p->w->n; k++) {
            vec3_t e = vec_sub(p->w->p[k], p->origin);
            h = vec_max(h, (vec3_t){fabs(e.x), fabs(e.y), fabs(e.z)});
        }
        if (l1 + h.x + h.y + h.z > VIS_FLOAT_RANGE) out->float_flow = false;
    }
    vis_base(&vis, NULL);
    check_base(&vis, out->float_base ? "base (float pretest)" : "base (double pretest)");
    out->np = vis.numportals;
    out->words = vis.portalwords;
    size_t n = (size_t)vis.numportals * vis.portalwords;
    out->flood = q2_malloc((n + 1) * sizeof(uint64_t));
    out->see = q2_malloc((n + 1) * sizeof(uint64_t));
    /* before the flow, which narrows the base vectors in place */
    for (int i = 0; i < vis.numportals; i++)
        vis_row_expand(&vis, vis_row(&vis, vis.flood, i), i, out->flood + (size_t)i * vis.portalwords);
    memset(out->see, 0xff, n * sizeof(uint64_t)); /* a row never handed over fails the comparisons */
    vis.row_hook = keep_row;
    vis.row_hook_ctx = out->see;
    vis_flow(&vis, false, NULL);
    if (handovers) *handovers = vis.handovers;
    vis_result_t res;
    vis_cluster_rows(&vis, &res);
    out->nc = res.numclusters;
    out->rowbytes = res.rowbytes;
    out->pvs = q2_malloc((size_t)res.numclusters * res.rowbytes + 1);
    memcpy(out->pvs, res.pvs, (size_t)res.numclusters * res.rowbytes);
    vis_result_free(&res);
    vis_free(&vis);
}

static void run_vis(const prt_t *prt, int threads, int level, result_t *out)
{
    run_vis_split(prt, threads, level, 0, NULL, out);
}

static bool row_bit(const result_t *r, int a, int b) { return (r->pvs[(size_t)a * r->rowbytes + (b >> 3)] >> (b & 7)) & 1; }

static void assert_same(const result_t *x, const result_t *y, const char *what)
{
    assert_int_equal(x->np, y->np);
    assert_int_equal(x->words, y->words);
    size_t n = (size_t)x->np * x->words;
    for (int p = 0; p < x->np; p++)
        for (int w = 0; w < x->words; w++) {
            size_t i = (size_t)p * x->words + w;
            if (x->flood[i] != y->flood[i])
                fail_msg("%s: base vector of portal %d differs (word %d: %016llx vs %016llx)", what, p, w,
                         (unsigned long long)x->flood[i], (unsigned long long)y->flood[i]);
            if (x->see[i] != y->see[i])
                fail_msg("%s: flow vector of portal %d differs (word %d: %016llx vs %016llx)", what, p, w,
                         (unsigned long long)x->see[i], (unsigned long long)y->see[i]);
        }
    (void)n;
    assert_memory_equal(x->pvs, y->pvs, (size_t)x->nc * x->rowbytes);
}

/* Every sampled line of sight is kept, flow stays within base, rows are
 * symmetric and hold the cell itself and its neighbours through portals. */
static void check_result(const map_t *m, const prt_t *prt, const bool *req, const result_t *r, const char *what)
{
    int nc = m->ncells;
    for (int a = 0; a < nc; a++)
        for (int b = 0; b < nc; b++) {
            if (req[(size_t)a * nc + b] && !row_bit(r, a, b))
                fail_msg("%s: a line of sight joins clusters %d and %d but the PVS of %d lacks %d", what, a, b, a, b);
            if (row_bit(r, a, b) != row_bit(r, b, a)) fail_msg("%s: PVS not symmetric for %d, %d", what, a, b);
        }
    for (int a = 0; a < nc; a++) assert_true(row_bit(r, a, a));
    for (int i = 0; i < prt->numportals; i++)
        assert_true(row_bit(r, prt->portals[i].cluster[0], prt->portals[i].cluster[1]));
    for (size_t i = 0; i < (size_t)r->np * r->words; i++)
        if (r->see[i] & ~r->flood[i]) fail_msg("%s: flow sees a portal outside its base vector", what);
}

/* Offsets: near the origin, far out but within VIS_FLOAT_RANGE, and beyond
 * it. Integers, so the 1/2048-grid points move exactly. */
static const vec3_t offsets[3] = {{-96, -64, -32}, {9000, -4000, 2500}, {17000, -4000, 2500}};

static void check_map(uint64_t seed, int nx, int ny, int nz, int open_percent, bool aligned, int level)
{
    map_t m;
    map_make(&m, seed, nx, ny, nz, open_percent, aligned);
    int nonadj;
    bool *req = required_pairs(&m, seed, 20000, &nonadj);
    /* the reference must find lines longer than one wall, or the check
     * below would only repeat what vis_cluster_rows does by construction */
    assert_true(nonadj > 0);
    result_t base;
    prt_t prt0;
    map_prt(&m, offsets[0], &prt0);
    run_vis(&prt0, 1, level, &base);
    assert_true(base.float_base && base.float_flow);
    char what[128];
    snprintf(what, sizeof what, "seed %llu, offset 0, 1 thread", (unsigned long long)seed);
    check_result(&m, &prt0, req, &base, what);

    /* two threads on a few maps only: on a busy machine every parallel
     * region's barrier can wait a whole time slice */
    if (seed % 10 == 1) {
        result_t two;
        run_vis(&prt0, 2, level, &two);
        snprintf(what, sizeof what, "seed %llu: 1 vs 2 threads", (unsigned long long)seed);
        assert_same(&base, &two, what);
        result_free(&two);
    }
    /* a walk's result must not depend on the order in which it takes a
     * cluster's portals (what makes handing branches to other threads safe;
     * see recurse in portalflow.c) */
    {
        result_t rev;
        g_reverse = true;
        run_vis(&prt0, 1, level, &rev);
        g_reverse = false;
        snprintf(what, sizeof what, "seed %llu: portals walked in reverse order", (unsigned long long)seed);
        assert_same(&base, &rev, what);
        result_free(&rev);
    }

    for (int o = 1; o < 3; o++) {
        prt_t prt;
        map_prt(&m, offsets[o], &prt);
        result_t moved;
        run_vis(&prt, 1, level, &moved);
        /* offset 1 keeps the float paths, offset 2 must take the double ones */
        assert_true(moved.float_base == (o == 1));
        assert_true(moved.float_flow == (o == 1));
        snprintf(what, sizeof what, "seed %llu: offset 0 vs offset %d (%s)", (unsigned long long)seed, o,
                 o == 1 ? "float, far out" : "double");
        check_result(&m, &prt, req, &moved, what);
        assert_same(&base, &moved, what);
        result_free(&moved);
        prt_free(&prt);
    }
    result_free(&base);
    prt_free(&prt0);
    free(req);
    map_free(&m);
}

/* A corridor of cells (many portals per chain, partial batches of four in
 * the filter as the candidate counts vary). */
static void test_corridor(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 6; seed++) check_map(seed, 6, 1, 1, 100, false, VIS_LEVEL_DEFAULT);
    for (uint64_t seed = 31; seed <= 34; seed++) check_map(seed, 6, 1, 1, 100, true, VIS_LEVEL_DEFAULT);
}

/* A 3D grid: branching chains, portals of every kind. */
static void test_grid(void **state)
{
    (void)state;
    for (uint64_t seed = 11; seed <= 14; seed++) check_map(seed, 3, 3, 2, 85, false, VIS_LEVEL_DEFAULT);
    for (uint64_t seed = 41; seed <= 44; seed++) check_map(seed, 3, 3, 2, 85, true, VIS_LEVEL_DEFAULT);
}

/* The deepest level (source narrowing by both separator sets). */
static void test_grid_level4(void **state)
{
    (void)state;
    for (uint64_t seed = 21; seed <= 23; seed++) check_map(seed, 4, 2, 2, 85, false, VIS_LEVEL_MAX);
    for (uint64_t seed = 51; seed <= 52; seed++) check_map(seed, 4, 2, 2, 85, true, VIS_LEVEL_MAX);
}

/* Zig-zag: walls at x = 64, 128, 192 open at y < 8, y > 56, y < 8. A line is
 * linear in x, so it cannot be below 8 at 64 and 192 and above 56 at 128:
 * cells 0 and 3 are blocked, while 0 and 2 (and 1 and 3) are joined. Run at
 * each offset, so the float and double filters must both find it. */
static void test_zigzag(void **state)
{
    (void)state;
    map_t m = {{4, 1, 1}, 4, {NULL, NULL, NULL}};
    for (int a = 0; a < 3; a++) m.face[a] = q2_calloc(4, sizeof(face_t));
    for (int k = 0; k < 3; k++) {
        face_t *f = &m.face[0][k];
        double v0 = k == 1 ? 56 : 0, v1 = k == 1 ? 64 : 8; /* u is y, v is z: put the opening in y */
        double pts[4][2] = {{v0, 0}, {v1, 0}, {v1, CELL}, {v0, CELL}};
        f->nhull = hull2(pts, 4, f->hu, f->hv);
        f->npts = f->nhull;
        memcpy(f->pu, f->hu, sizeof f->hu);
        memcpy(f->pv, f->hv, sizeof f->hv);
        f->has = true;
    }
    int nonadj;
    bool *req = required_pairs(&m, 5, 4000, &nonadj);
    assert_true(req[0 * 4 + 2] && req[1 * 4 + 3]);
    assert_false(req[0 * 4 + 3]);
    for (int o = 0; o < 3; o++)
        for (int level = 1; level <= VIS_LEVEL_MAX; level++) {
            prt_t prt;
            map_prt(&m, offsets[o], &prt);
            result_t r;
            run_vis(&prt, 1, level, &r);
            char what[64];
            snprintf(what, sizeof what, "zigzag offset %d level %d", o, level);
            check_result(&m, &prt, req, &r, what);
            if (row_bit(&r, 0, 3) || row_bit(&r, 3, 0)) fail_msg("%s: cells 0 and 3 are blocked but seen", what);
            result_free(&r);
            prt_free(&prt);
        }
    free(req);
    map_free(&m);
}

/* A target that touches a separating plane from behind: walls at x = 64,
 * 128, 192 open at y in [0, 32] (source), [32, 64] (pass) and
 * [16, 32 - gap] (target). The plane y = 32 through the source's top edge
 * and the pass's bottom edge separates them, and lines through both stay
 * at y >= 32 beyond the pass: with gap >= 0 the target is reached only by
 * grazing lines, at VIS_EPSILON's edge, and whatever the filters decide
 * there must not depend on the precision they ran in: the map within
 * VIS_FLOAT_RANGE (float filter, near the origin and far out) and beyond
 * it (double) must give identical base and flow vectors, at every level.
 * With gap <= -0.125 the target reaches past the plane by more than
 * VIS_EPSILON, and a line joins cells 0 and 3: from (64, 32 + gap / 5) to
 * (192, 32 - gap * 4 / 5) it is inside all three openings by at least
 * -gap / 5 (at x = 128 it is at 32 - gap * 3 / 10). */
static void test_touching(void **state)
{
    (void)state;
    static const double gaps[] = {-1, -0.5, -0.25, -0.125, 0, 0.0625, 0.125, 0.1875, 0.25};
    for (int gi = 0; gi < 9; gi++)
        for (int level = 1; level <= VIS_LEVEL_MAX; level++) {
            map_t m = {{4, 1, 1}, 4, {NULL, NULL, NULL}};
            for (int a = 0; a < 3; a++) m.face[a] = q2_calloc(4, sizeof(face_t));
            const double lo[3] = {0, 32, 16}, hi[3] = {32, 64, 32 - gaps[gi]};
            for (int k = 0; k < 3; k++) {
                face_t *f = &m.face[0][k];
                double pts[4][2] = {{lo[k], 0}, {hi[k], 0}, {hi[k], CELL}, {lo[k], CELL}};
                f->nhull = hull2(pts, 4, f->hu, f->hv);
                f->npts = f->nhull;
                memcpy(f->pu, f->hu, sizeof f->hu);
                memcpy(f->pv, f->hv, sizeof f->hv);
                f->has = true;
            }
            result_t r[3];
            for (int o = 0; o < 3; o++) {
                prt_t prt;
                map_prt(&m, offsets[o], &prt);
                run_vis(&prt, 1, level, &r[o]);
                assert_true(r[o].float_flow == (o < 2));
                prt_free(&prt);
            }
            char what[96];
            for (int o = 1; o < 3; o++) {
                snprintf(what, sizeof what, "touching gap %g level %d: offset 0 vs %d", gaps[gi], level, o);
                assert_same(&r[0], &r[o], what);
            }
            if (gaps[gi] <= -0.125)
                for (int o = 0; o < 3; o++)
                    if (!row_bit(&r[o], 0, 3) || !row_bit(&r[o], 3, 0))
                        fail_msg("touching gap %g level %d offset %d: cells 0 and 3 are joined by a line but not seen",
                                 gaps[gi], level, o);
            for (int o = 0; o < 3; o++) result_free(&r[o]);
            map_free(&m);
        }
}

/* A portal that reaches only a little way past another's plane, shaped so
 * that its bounding sphere is tight there: a long, one unit wide slit
 * perpendicular to the plane. Portal A (cluster 0 -> 1) is the square
 * x = 0, 0 <= y, z <= 64; portal B (cluster 1 -> 2) the slit y = 10,
 * -64 <= x <= delta, 0 <= z <= 1, leading towards -y. The line from
 * (0, 30, 0.5) to (delta / 2, 10, 0.5) crosses A into 1 and then B into
 * 2, so 0 and 2 see each other whenever delta exceeds VIS_EPSILON; the
 * sphere pretests of both directions (B in front of A, and A's reverse
 * behind B's reverse) are within a hundredth of a unit of their bound. */
static void test_sliver(void **state)
{
    (void)state;
    static const double deltas[] = {0.125, 0.25, 0.375, 1.0};
    for (int di = 0; di < 4; di++)
        for (int o = 0; o < 3; o++) {
            double dl = deltas[di];
            vec3_t off = offsets[o];
            prt_t prt = {.numclusters = 3, .numportals = 2, .portals = q2_calloc(2, sizeof(prt_portal_t))};
            const vec3_t a[4] = {{0, 0, 0}, {0, 0, 64}, {0, 64, 64}, {0, 64, 0}};
            const vec3_t b[4] = {{-64, 10, 0}, {dl, 10, 0}, {dl, 10, 1}, {-64, 10, 1}};
            for (int k = 0; k < 2; k++) {
                winding_t *w = winding_alloc(4);
                w->numpoints = 4;
                for (int i = 0; i < 4; i++) w->p[i] = vec_add(k ? b[i] : a[i], off);
                /* the winding faces the first cluster: -x for A, +y for B */
                vec3_t nrm;
                double d;
                winding_plane(w, &nrm, &d);
                if ((k == 0 && nrm.x > 0) || (k == 1 && nrm.y < 0)) {
                    winding_t *rv = winding_reverse(w);
                    winding_free(w);
                    w = rv;
                }
                prt.portals[k].cluster[0] = k;
                prt.portals[k].cluster[1] = k + 1;
                prt.portals[k].winding = w;
            }
            result_t r;
            run_vis(&prt, 1, VIS_LEVEL_DEFAULT, &r);
            assert_true(r.float_base == (o < 2));
            if (!row_bit(&r, 0, 2) || !row_bit(&r, 2, 0))
                fail_msg("sliver delta %g, offset %d: clusters 0 and 2 are joined by a line but not seen", dl, o);
            result_free(&r);
            prt_free(&prt);
        }
}

/* No portals, one portal, and chains of two and three: the filters' loops
 * over groups of four see no full group at all. */
static void test_few_portals(void **state)
{
    (void)state;
    for (int n = 1; n <= 4; n++)
        for (int o = 0; o < 3; o++) {
            map_t m;
            map_make(&m, 100 + (uint64_t)n, n, 1, 1, 100, false);
            prt_t prt;
            map_prt(&m, offsets[o], &prt);
            assert_int_equal(prt.numportals, n - 1);
            bool *req = q2_calloc((size_t)n * n, sizeof *req);
            result_t r;
            run_vis(&prt, 1, VIS_LEVEL_DEFAULT, &r);
            check_result(&m, &prt, req, &r, "few portals");
            result_free(&r);
            free(req);
            prt_free(&prt);
            map_free(&m);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_few_portals),
        cmocka_unit_test(test_zigzag),
        cmocka_unit_test(test_sliver),
        cmocka_unit_test(test_touching),
        cmocka_unit_test(test_corridor),
        cmocka_unit_test(test_grid),
        cmocka_unit_test(test_grid_level4),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
