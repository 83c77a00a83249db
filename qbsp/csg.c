#include "csg.h"

#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "../formats/q2defs.h"

/* A split fragment reaching this far is a numerical runaway, not a piece of
 * any brush inside the world. */
#define BOGUS_EXTENT (WORLD_EXTENT * 0.5)

bspbrush_t *brush_alloc(int numsides)
{
    bspbrush_t *b = q2_calloc(1, sizeof(bspbrush_t) + (size_t)numsides * sizeof(side_t));
    b->maxsides = numsides;
    return b;
}

/* Blocks a cache holds at most of each size: enough for the bursts of a
 * split, little next to the fragments themselves. */
#define BC_MAX_FREE 4096

winding_t *bc_winding_alloc(blockcache_t *bc, int maxpoints)
{
    if (bc && maxpoints >= 0 && maxpoints <= BC_MAX_POINTS && bc->windings[maxpoints]) {
        winding_t *w = bc->windings[maxpoints];
        bc->windings[maxpoints] = *(void **)w;
        bc->nwindings[maxpoints]--;
        w->numpoints = 0;
        w->maxpoints = maxpoints;
        return w;
    }
    return winding_alloc(maxpoints);
}

void bc_winding_free(blockcache_t *bc, winding_t *w)
{
    if (!w) return;
    int m = w->maxpoints;
    if (!bc || m < 0 || m > BC_MAX_POINTS || bc->nwindings[m] >= BC_MAX_FREE) {
        winding_free(w);
        return;
    }
    *(void **)w = bc->windings[m];
    bc->windings[m] = w;
    bc->nwindings[m]++;
}

winding_t *bc_winding_copy(blockcache_t *bc, const winding_t *w)
{
    winding_t *c = bc_winding_alloc(bc, w->numpoints);
    c->numpoints = w->numpoints;
    memcpy(c->p, w->p, sizeof(vec3_t) * (size_t)w->numpoints);
    return c;
}

static winding_t *bc_winding_reverse(blockcache_t *bc, const winding_t *w)
{
    winding_t *c = bc_winding_alloc(bc, w->numpoints);
    c->numpoints = w->numpoints;
    for (int i = 0; i < w->numpoints; i++) c->p[i] = w->p[w->numpoints - 1 - i];
    return c;
}

bspbrush_t *bc_brush_alloc(blockcache_t *bc, int numsides)
{
    if (bc && numsides >= 0 && numsides <= BC_MAX_SIDES && bc->brushes[numsides]) {
        bspbrush_t *b = bc->brushes[numsides];
        bc->brushes[numsides] = *(void **)b;
        bc->nbrushes[numsides]--;
        memset(b, 0, sizeof(bspbrush_t) + (size_t)numsides * sizeof(side_t));
        b->maxsides = numsides;
        return b;
    }
    return brush_alloc(numsides);
}

void bc_brush_free(blockcache_t *bc, bspbrush_t *b)
{
    if (!b) return;
    for (int i = 0; i < b->numsides; i++) bc_winding_free(bc, b->sides[i].winding);
    int m = b->maxsides;
    if (!bc || m < b->numsides || m > BC_MAX_SIDES || bc->nbrushes[m] >= BC_MAX_FREE) {
        free(b);
        return;
    }
    *(void **)b = bc->brushes[m];
    bc->brushes[m] = b;
    bc->nbrushes[m]++;
}

/* Frees a cached block list (each block's first word links the next). */
static void free_block_list(void *head)
{
    while (head) {
        void *next = *(void **)head;
        free(head);
        head = next;
    }
}

void bc_release(blockcache_t *bc)
{
    for (int i = 0; i <= BC_MAX_POINTS; i++) {
        free_block_list(bc->windings[i]);
        bc->windings[i] = NULL;
        bc->nwindings[i] = 0;
    }
    for (int i = 0; i <= BC_MAX_SIDES; i++) {
        free_block_list(bc->brushes[i]);
        bc->brushes[i] = NULL;
        bc->nbrushes[i] = 0;
    }
}

void brush_plane_extremes(const bspbrush_t *b, const plane_t *p, double *front, double *back)
{
    double d_front = 0, d_back = 0;
    for (int i = 0; i < b->numsides; i++) {
        const winding_t *w = b->sides[i].winding;
        if (!w) continue;
        for (int j = 0; j < w->numpoints; j++) {
            double d = plane_point_dist(p, w->p[j]);
            if (d > d_front) d_front = d;
            if (d < d_back) d_back = d;
        }
    }
    *front = d_front;
    *back = d_back;
}

void brush_free(bspbrush_t *b)
{
    if (!b) return;
    for (int i = 0; i < b->numsides; i++) winding_free(b->sides[i].winding);
    free(b);
}

void brush_list_free(bspbrush_t *list)
{
    while (list) {
        bspbrush_t *next = list->next;
        brush_free(list);
        list = next;
    }
}

bspbrush_t *brush_copy(const bspbrush_t *b)
{
    bspbrush_t *n = brush_alloc(b->numsides);
    memcpy(n, b, sizeof(bspbrush_t) + (size_t)b->numsides * sizeof(side_t));
    n->maxsides = b->numsides;
    n->next = NULL;
    for (int i = 0; i < b->numsides; i++)
        if (b->sides[i].winding) n->sides[i].winding = winding_copy(b->sides[i].winding);
    return n;
}

int brush_list_count(const bspbrush_t *list)
{
    int n = 0;
    for (; list; list = list->next) n++;
    return n;
}

static void bound_winding(aabb_t *b, const winding_t *w)
{
    for (int j = 0; j < w->numpoints; j++) aabb_add_point(b, w->p[j]);
}

void brush_bound(bspbrush_t *b)
{
    b->bounds = aabb_empty();
    for (int i = 0; i < b->numsides; i++)
        if (b->sides[i].winding) bound_winding(&b->bounds, b->sides[i].winding);
}

double brush_volume(const qbsp_t *q, const bspbrush_t *b)
{
    const winding_t *w = NULL;
    for (int i = 0; i < b->numsides && !w; i++) w = b->sides[i].winding;
    if (!w) return 0;
    vec3_t apex = w->p[0];
    double volume = 0;
    for (int i = 0; i < b->numsides; i++) {
        const winding_t *sw = b->sides[i].winding;
        if (!sw) continue;
        const plane_t *p = plane_table_get(&q->planes, b->sides[i].planenum);
        double d = -plane_dist_to(p, apex);
        volume += d * winding_area(sw);
    }
    return volume / 3.0;
}

/* brush_volume(q, b) < limit, without the area of every side where the
 * answer is plainly no. brush_volume sums d * area over the sides, d the
 * apex's depth behind the side's plane: at least 0 but for rounding (the
 * apex is a point of the brush). The sides with d > 0 alone, their areas
 * taken one at a time, give a lower bound; a side with d < 0 takes off at
 * most |d| times the square of the bounds' diagonal (more than any polygon
 * inside them has, and b's bounds hold all its points); once the bound
 * clears 3 * limit with a margin far above the rounding of either sum,
 * brush_volume could not be below the limit. Else it is computed. */
static bool brush_volume_below(const qbsp_t *q, const bspbrush_t *b, double limit)
{
    const winding_t *w = NULL;
    for (int i = 0; i < b->numsides && !w; i++) w = b->sides[i].winding;
    if (!w || b->numsides > 64) return brush_volume(q, b) < limit;
    vec3_t apex = w->p[0];
    vec3_t ext = vec_sub(b->bounds.maxs, b->bounds.mins);
    double diag2 = vec_dot(ext, ext);
    double d[64], negative = 0;
    for (int i = 0; i < b->numsides; i++) {
        if (!b->sides[i].winding) continue;
        const plane_t *p = plane_table_get(&q->planes, b->sides[i].planenum);
        d[i] = -plane_dist_to(p, apex);
        if (d[i] < 0) negative += -d[i] * diag2 * 1.000001;
    }
    double need = 3.0 * limit * (1 + 1e-9) + 1e-9 + negative * (1 + 1e-9);
    double lower = 0;
    for (int i = 0; i < b->numsides; i++) {
        if (!b->sides[i].winding || !(d[i] > 0)) continue;
        lower += d[i] * winding_area(b->sides[i].winding);
        if (lower > need) return false;
    }
    return brush_volume(q, b) < limit;
}

bool brush_contains_point(const qbsp_t *q, const bspbrush_t *b, vec3_t pt, double eps)
{
    for (int i = 0; i < b->numsides; i++) {
        const plane_t *p = plane_table_get(&q->planes, b->sides[i].planenum);
        if (plane_dist_to(p, pt) > eps) return false;
    }
    return true;
}

static int brush_mostly_on_side(const bspbrush_t *b, const plane_t *p)
{
    double max = 0;
    int side = PSIDE_FRONT;
    for (int i = 0; i < b->numsides; i++) {
        const winding_t *w = b->sides[i].winding;
        if (!w) continue;
        for (int j = 0; j < w->numpoints; j++) {
            double d = plane_point_dist(p, w->p[j]);
            if (d > max) {
                max = d;
                side = PSIDE_FRONT;
            }
            if (-d > max) {
                max = -d;
                side = PSIDE_BACK;
            }
        }
    }
    return side;
}

/* Spare room a chain winding gets when it grows: a convex cut adds at most
 * one point. */
#define CHAIN_SLACK 8
/* Chains hand longer polygons to winding_clip (they only come from invalid,
 * non-convex input). */
#define CHAIN_MAX_POINTS 128

winding_t *qbsp_chain_start(winding_t *w)
{
    w = q2_realloc(w, sizeof *w + sizeof(vec3_t) * (size_t)(w->numpoints + CHAIN_SLACK));
    w->maxpoints = w->numpoints + CHAIN_SLACK;
    return w;
}

winding_t *qbsp_chain_for_plane(vec3_t normal, double dist)
{
    winding_t *w = winding_alloc(4 + CHAIN_SLACK);
    w->numpoints = 4;
    winding_for_plane_points(normal, dist, WORLD_EXTENT, w->p);
    return w;
}

winding_t *qbsp_chain_copy_bc(blockcache_t *bc, const winding_t *w)
{
    winding_t *c = bc_winding_alloc(bc, w->numpoints + CHAIN_SLACK);
    c->numpoints = w->numpoints;
    memcpy(c->p, w->p, sizeof(vec3_t) * (size_t)w->numpoints);
    return c;
}

winding_t *qbsp_chain_copy(const winding_t *w) { return qbsp_chain_copy_bc(NULL, w); }

winding_t *qbsp_chain_fit_bc(blockcache_t *bc, winding_t *w)
{
    if (!w || w->maxpoints == w->numpoints) return w;
    winding_t *c = bc_winding_copy(bc, w);
    bc_winding_free(bc, w);
    return c;
}

winding_t *qbsp_chain_fit(winding_t *w) { return qbsp_chain_fit_bc(NULL, w); }

winding_t *qbsp_chain_clip(winding_t *w, vec3_t normal, double dist, double eps, bool keep_on)
{
    int n = w->numpoints;
    if (n + 1 > CHAIN_MAX_POINTS) return winding_clip(w, normal, dist, eps, keep_on);
    /* winding_on_side's and winding_split's classification, once. */
    double dists[CHAIN_MAX_POINTS + 1];
    int sides[CHAIN_MAX_POINTS + 1], counts[3];
    winding_classify(w->p, n, normal, dist, eps, dists, sides, counts);
    bool front = counts[SIDE_FRONT] > 0, back = counts[SIDE_BACK] > 0;
    if (!back && (front || keep_on)) return w;
    if (!back || !front) {
        winding_free(w);
        return NULL;
    }
    vec3_t out[CHAIN_MAX_POINTS * 2];
    int m = winding_front_points(w->p, n, normal, dist, dists, sides, out);
    if (m > w->maxpoints) {
        winding_free(w);
        w = winding_alloc(m + CHAIN_SLACK);
    }
    w->numpoints = m;
    memcpy(w->p, out, sizeof(vec3_t) * (size_t)m);
    return w;
}

/* The largest polygon clip_front handles on the stack. */
#define CLIP_MAX_POINTS 64

/* winding_clip(w, normal, dist, 0, false) on n points in pts (room for
 * CLIP_MAX_POINTS), in place, with the same arithmetic in the same order
 * (so the same points): returns the new count, 0 when nothing is left,
 * -1 (pts unchanged) when the result would not fit. */
static int clip_front(vec3_t *pts, int n, vec3_t normal, double dist)
{
    double dists[CLIP_MAX_POINTS + 1];
    int sides[CLIP_MAX_POINTS + 1], counts[3];
    winding_classify(pts, n, normal, dist, 0, dists, sides, counts);
    if (!counts[SIDE_BACK]) return counts[SIDE_FRONT] ? n : 0; /* in front, or on the plane: dropped */
    if (!counts[SIDE_FRONT]) return 0;
    /* At most a point and a crossing per point: counted only where that
     * could overflow (only for non-convex input). */
    if (2 * n > CLIP_MAX_POINTS) {
        int need = 0;
        for (int i = 0; i < n; i++) {
            if (sides[i] != SIDE_BACK) need++;
            if (sides[i] != SIDE_ON && sides[i + 1] != SIDE_ON && sides[i + 1] != sides[i]) need++;
        }
        if (need > CLIP_MAX_POINTS) return -1;
    }
    vec3_t out[CLIP_MAX_POINTS];
    int m = winding_front_points(pts, n, normal, dist, dists, sides, out);
    memcpy(pts, out, sizeof(vec3_t) * (size_t)m);
    return m;
}

/* The split plane clipped by the brush's sides: the face both halves get.
 * Clipped on the stack (one allocation instead of one per side) when the
 * polygon cannot outgrow the buffer: a convex clip adds at most a point. */
static winding_t *split_face(const qbsp_t *q, blockcache_t *bc, const bspbrush_t *b, const plane_t *plane)
{
    if (4 + b->numsides > CLIP_MAX_POINTS) {
        winding_t *w = winding_for_plane(plane->normal, plane->dist, WORLD_EXTENT);
        for (int i = 0; i < b->numsides && w; i++) {
            const plane_t *p2 = plane_table_get(&q->planes, b->sides[i].planenum);
            w = winding_clip(w, vec_neg(p2->normal), -p2->dist, 0, false);
        }
        return w;
    }
    vec3_t pts[CLIP_MAX_POINTS];
    int n = 4;
    winding_for_plane_points(plane->normal, plane->dist, WORLD_EXTENT, pts);
    int i = 0;
    for (; i < b->numsides && n > 0; i++) {
        const plane_t *p2 = plane_table_get(&q->planes, b->sides[i].planenum);
        int m = clip_front(pts, n, vec_neg(p2->normal), -p2->dist);
        if (m < 0) break;
        n = m;
    }
    if (n == 0) return NULL;
    winding_t *w = bc_winding_alloc(bc, n);
    w->numpoints = n;
    memcpy(w->p, pts, sizeof(vec3_t) * (size_t)n);
    for (; i < b->numsides && w; i++) {
        const plane_t *p2 = plane_table_get(&q->planes, b->sides[i].planenum);
        w = winding_clip(w, vec_neg(p2->normal), -p2->dist, 0, false);
    }
    return w;
}

/* winding_split(w, normal, dist, 0, front, back) with the same arithmetic,
 * except that a winding wholly on one side is not copied: returns
 * SIDE_FRONT or SIDE_BACK with w itself in *front or *back, or -1 when
 * both are new windings (or NULL). */
static int split_side_winding(blockcache_t *bc, const winding_t *w, vec3_t normal, double dist, winding_t **front,
                              winding_t **back)
{
    int n = w->numpoints;
    *front = *back = NULL;
    if (n <= 0) return -1;
    if (n + 1 > CHAIN_MAX_POINTS) {
        winding_split(w, normal, dist, 0, front, back);
        return -1;
    }
    double dists[CHAIN_MAX_POINTS + 1];
    int sides[CHAIN_MAX_POINTS + 1], counts[3];
    winding_classify(w->p, n, normal, dist, 0, dists, sides, counts);
    if (counts[SIDE_FRONT] == 0 && counts[SIDE_BACK] == 0) {
        winding_split(w, normal, dist, 0, front, back); /* on the plane: by its facing */
        return -1;
    }
    if (counts[SIDE_FRONT] == 0) {
        *back = (winding_t *)w;
        return SIDE_BACK;
    }
    if (counts[SIDE_BACK] == 0) {
        *front = (winding_t *)w;
        return SIDE_FRONT;
    }
    int crossings = winding_crossings(sides, n);
    *front = bc_winding_alloc(bc, counts[SIDE_FRONT] + counts[SIDE_ON] + crossings);
    *back = bc_winding_alloc(bc, counts[SIDE_BACK] + counts[SIDE_ON] + crossings);
    winding_split_sides_into(w, normal, dist, dists, sides, *front, *back);
    return -1;
}

/* The brush handed on unsplit: itself when owned, else a copy. */
static bspbrush_t *whole(const bspbrush_t *b, bspbrush_t *own)
{
    if (!own) return brush_copy(b);
    own->next = NULL;
    return own;
}

/* brush_split; with `own` (== b) the input is consumed: handed on
 * whole where brush_split would hand on a copy, freed otherwise. */
static void split_impl(const qbsp_t *q, blockcache_t *bc, const bspbrush_t *b, bspbrush_t *own, int planenum,
                       bspbrush_t **front, bspbrush_t **back)
{
    *front = *back = NULL;
    const plane_t *plane = plane_table_get(&q->planes, planenum);

    double d_front = 0, d_back = 0;
    if (plane->type < 3) {
        /* A fragment's bounds are its windings' extremes exactly (brush_bound
         * here, load's for a map brush's), and on an axial plane a point's
         * distance is +-coordinate - dist, monotone in the coordinate even
         * rounded: the pass below would find these two. */
        int axis = plane->type;
        double s = vec_comp(plane->normal, axis);
        double hi = vec_comp(b->bounds.maxs, axis) * s - plane->dist;
        double lo = vec_comp(b->bounds.mins, axis) * s - plane->dist;
        if (s < 0) {
            double t = hi;
            hi = lo;
            lo = t;
        }
        if (hi > d_front) d_front = hi;
        if (lo < d_back) d_back = lo;
    } else {
        brush_plane_extremes(b, plane, &d_front, &d_back);
    }
    if (d_front < PLANESIDE_EPSILON) {
        *back = whole(b, own);
        return;
    }
    if (d_back > -PLANESIDE_EPSILON) {
        *front = whole(b, own);
        return;
    }

    /* The new face on the split plane: the plane clipped by the brush. */
    winding_t *mid = split_face(q, bc, b, plane);
    if (!mid || qbsp_winding_tiny(mid)) {
        bc_winding_free(bc, mid);
        if (brush_mostly_on_side(b, plane) == PSIDE_FRONT)
            *front = whole(b, own);
        else
            *back = whole(b, own);
        return;
    }

    bspbrush_t *r[2];
    for (int i = 0; i < 2; i++) {
        r[i] = bc_brush_alloc(bc, b->numsides + 1);
        r[i]->original = b->original;
    }
    /* src[j][k]: the side of b whose own winding side k of r[j] borrows
     * (a side wholly on one side of the plane), -1 for a new winding.
     * Borrowed windings are handed over (own) or copied (not own) once
     * the split is sure to go ahead. */
    int srcbuf[2 * 64];
    int *src[2];
    src[0] = b->numsides <= 64 ? srcbuf : q2_malloc(sizeof(int) * 2 * (size_t)b->numsides);
    src[1] = src[0] + (b->numsides <= 64 ? 64 : b->numsides);
    for (int i = 0; i < b->numsides; i++) {
        const side_t *s = &b->sides[i];
        if (!s->winding) continue;
        winding_t *cw[2];
        int whole_side = split_side_winding(bc, s->winding, plane->normal, plane->dist, &cw[0], &cw[1]);
        for (int j = 0; j < 2; j++) {
            if (!cw[j]) continue;
            bool borrowed = whole_side >= 0;
            if (qbsp_winding_tiny(cw[j])) {
                if (!borrowed) bc_winding_free(bc, cw[j]);
                continue;
            }
            src[j][r[j]->numsides] = borrowed ? i : -1;
            side_t *cs = &r[j]->sides[r[j]->numsides++];
            *cs = *s;
            cs->winding = cw[j];
            cs->tested = false;
        }
    }
    bool ok[2];
    for (int i = 0; i < 2; i++) {
        brush_bound(r[i]);
        ok[i] = r[i]->numsides >= 3;
        for (int k = 0; k < 3 && ok[i]; k++)
            if (vec_comp(r[i]->bounds.mins, k) < -BOGUS_EXTENT || vec_comp(r[i]->bounds.maxs, k) > BOGUS_EXTENT)
                ok[i] = false;
    }
    if (!ok[0] || !ok[1]) {
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < r[j]->numsides; k++)
                if (src[j][k] >= 0) r[j]->sides[k].winding = NULL;
        if (src[0] != srcbuf) free(src[0]);
        if (ok[0]) *front = whole(b, own);
        if (ok[1]) *back = whole(b, own);
        if (own && !ok[0] && !ok[1]) bc_brush_free(bc, own);
        bc_brush_free(bc, r[0]);
        bc_brush_free(bc, r[1]);
        bc_winding_free(bc, mid);
        return;
    }
    for (int j = 0; j < 2; j++)
        for (int k = 0; k < r[j]->numsides; k++) {
            if (src[j][k] < 0) continue;
            if (own)
                own->sides[src[j][k]].winding = NULL;
            else
                r[j]->sides[k].winding = bc_winding_copy(bc, r[j]->sides[k].winding);
        }
    if (src[0] != srcbuf) free(src[0]);
    for (int i = 0; i < 2; i++) {
        side_t *cs = &r[i]->sides[r[i]->numsides++];
        memset(cs, 0, sizeof *cs);
        cs->planenum = planenum ^ i ^ 1;
        cs->texinfo = TEXINFO_NODE;
        cs->winding = i == 0 ? bc_winding_reverse(bc, mid) : mid;
    }
    /* r[0] (front) gets the side facing back into it: plane^1 whose winding
     * is the reverse of mid; r[1] gets the plane itself. The bounds so far
     * are those of the other sides; the new side's points are added. */
    for (int i = 0; i < 2; i++) {
        bound_winding(&r[i]->bounds, r[i]->sides[r[i]->numsides - 1].winding);
        if (brush_volume_below(q, r[i], MIN_FRAGMENT_VOLUME)) {
            bc_brush_free(bc, r[i]);
            r[i] = NULL;
        }
    }
    *front = r[0];
    *back = r[1];
    bc_brush_free(bc, own);
}

void brush_split(const qbsp_t *q, blockcache_t *bc, const bspbrush_t *b, int planenum, bspbrush_t **front,
                 bspbrush_t **back)
{
    split_impl(q, bc, b, NULL, planenum, front, back);
}

void brush_split_consume(const qbsp_t *q, blockcache_t *bc, bspbrush_t *b, int planenum, bspbrush_t **front,
                         bspbrush_t **back)
{
    split_impl(q, bc, b, b, planenum, front, back);
}

bspbrush_t *brush_from_bounds(qbsp_t *q, vec3_t mins, vec3_t maxs)
{
    bspbrush_t *b = brush_alloc(6);
    b->numsides = 6;
    for (int i = 0; i < 3; i++) {
        vec3_t n = vec3(0, 0, 0);
        vec_set_comp(&n, i, 1);
        b->sides[i].planenum = plane_table_find(&q->planes, n, vec_comp(maxs, i));
        vec_set_comp(&n, i, -1);
        b->sides[i + 3].planenum = plane_table_find(&q->planes, n, -vec_comp(mins, i));
    }
    for (int i = 0; i < 6; i++) {
        b->sides[i].texinfo = TEXINFO_NODE;
        const plane_t *p = plane_table_get(&q->planes, b->sides[i].planenum);
        winding_t *w = qbsp_chain_for_plane(p->normal, p->dist);
        for (int j = 0; j < 6 && w; j++) {
            if (j == i) continue;
            const plane_t *pj = plane_table_get(&q->planes, b->sides[j].planenum);
            w = qbsp_chain_clip(w, vec_neg(pj->normal), -pj->dist, 0, false);
        }
        b->sides[i].winding = qbsp_chain_fit(w);
    }
    brush_bound(b);
    return b;
}

bspbrush_t *brush_list_copy(const bspbrush_t *list)
{
    bspbrush_t *head = NULL, **tail = &head;
    for (; list; list = list->next) {
        *tail = brush_copy(list);
        tail = &(*tail)->next;
    }
    return head;
}

static bool side_starts_visible(const side_t *s, bool original_visible)
{
    if (s->surf & SURF_HINT) return true;
    return original_visible && s->texinfo != TEXINFO_NODE && !(s->surf & SURF_SKIP);
}

void csg_refresh_visible(bspbrush_t *list)
{
    for (; list; list = list->next)
        for (int i = 0; i < list->numsides; i++) {
            side_t *s = &list->sides[i];
            /* Sides made by splits lie on split planes and never draw. */
            if (s->original) s->visible = side_starts_visible(s, s->original->visible);
        }
}

bspbrush_t *csg_make_brushes(const qbsp_t *q, int first, int count)
{
    bspbrush_t *head = NULL, **tail = &head;
    for (int i = first; i < first + count; i++) {
        mapbrush_t *mb = &q->mapbrushes[i];
        int n = 0;
        for (int j = 0; j < mb->numsides; j++)
            if (!mb->original_sides[j].bevel) n++;
        if (n == 0) continue;
        bspbrush_t *b = brush_alloc(n);
        b->original = mb;
        for (int j = 0; j < mb->numsides; j++) {
            const side_t *ms = &mb->original_sides[j];
            if (ms->bevel) continue;
            side_t *s = &b->sides[b->numsides++];
            *s = *ms;
            s->original = (side_t *)ms;
            s->winding = ms->winding ? winding_copy(ms->winding) : NULL;
            s->tested = false;
            /* ms->visible is load's "not skip" on the first BSP and, on
             * the world's second, whether the side bounds a reachable leaf. */
            s->visible = side_starts_visible(s, ms->visible);
        }
        b->bounds = mb->bounds;
        *tail = b;
        tail = &b->next;
    }
    return head;
}

/* --- CSG ---------------------------------------------------------------- */

static bool brushes_disjoint(const bspbrush_t *a, const bspbrush_t *b)
{
    for (int i = 0; i < 3; i++)
        if (vec_comp(a->bounds.mins, i) >= vec_comp(b->bounds.maxs, i) - ON_EPSILON ||
            vec_comp(a->bounds.maxs, i) <= vec_comp(b->bounds.mins, i) + ON_EPSILON)
            return true;
    for (int i = 0; i < a->numsides; i++)
        for (int j = 0; j < b->numsides; j++)
            if (a->sides[i].planenum == (b->sides[j].planenum ^ 1)) return true;
    return false;
}

/* True if b1 may bite (be subtracted from) b2's volume, i.e. b1 wins the
 * overlap: solid beats everything, detail never bites structure. */
static bool brush_ge(const bspbrush_t *b1, const bspbrush_t *b2)
{
    int c1 = b1->original->contents, c2 = b2->original->contents;
    if ((c1 & CONTENTS_DETAIL) && !(c2 & CONTENTS_DETAIL)) return false;
    return (c1 & CONTENTS_SOLID) != 0;
}

static void bc_brush_list_free(blockcache_t *bc, bspbrush_t *list)
{
    while (list) {
        bspbrush_t *next = list->next;
        bc_brush_free(bc, list);
        list = next;
    }
}

bspbrush_t *csg_subtract_brush(const qbsp_t *q, blockcache_t *bc, bspbrush_t *a, const bspbrush_t *b)
{
    bspbrush_t *out = NULL, *in = a;
    for (int i = 0; i < b->numsides && in; i++) {
        bspbrush_t *front, *back;
        if (in == a)
            brush_split(q, bc, in, b->sides[i].planenum, &front, &back);
        else
            brush_split_consume(q, bc, in, b->sides[i].planenum, &front, &back);
        if (front) {
            front->next = out;
            out = front;
        }
        in = back;
    }
    if (in) {
        bc_brush_free(bc, in);
        return out;
    }
    /* Nothing of a was inside b: a is unchanged. */
    bc_brush_list_free(bc, out);
    return a;
}

/* The work list of csg_chop_brushes: list order in an array, with the
 * bounds inline so the scan for overlaps stays in cache. Removed entries
 * are NULL. */
typedef struct chop_entry_t {
    aabb_t bounds;
    bspbrush_t *b;
} chop_entry_t;

/* Entries per block of the work list: the scan for overlaps skips a block
 * whose bounds (the union of its entries', removed ones included) are
 * disjoint from the brush's, as bounds_disjoint with the union implies it
 * with each entry (the bounds only move the tests' sides one way, and
 * rounding is monotone). */
#define CHOP_BLOCK_SHIFT 5
#define CHOP_BLOCK (1 << CHOP_BLOCK_SHIFT)

typedef struct chop_list_t {
    chop_entry_t *e;
    int n, cap;
    aabb_t *block; /* union of the bounds of entries [i * CHOP_BLOCK, (i + 1) * CHOP_BLOCK) */
    int blockcap;
} chop_list_t;

static void chop_append(chop_list_t *l, bspbrush_t *list)
{
    while (list) {
        bspbrush_t *next = list->next;
        list->next = NULL;
        l->e = q2_grow(l->e, sizeof *l->e, &l->cap, l->n + 1);
        l->e[l->n].bounds = list->bounds;
        l->e[l->n].b = list;
        int bi = l->n >> CHOP_BLOCK_SHIFT;
        if ((l->n & (CHOP_BLOCK - 1)) == 0) {
            l->block = q2_grow(l->block, sizeof *l->block, &l->blockcap, bi + 1);
            l->block[bi] = list->bounds;
        } else {
            aabb_t *u = &l->block[bi];
            const aabb_t *a = &list->bounds;
            if (a->mins.x < u->mins.x) u->mins.x = a->mins.x;
            if (a->mins.y < u->mins.y) u->mins.y = a->mins.y;
            if (a->mins.z < u->mins.z) u->mins.z = a->mins.z;
            if (a->maxs.x > u->maxs.x) u->maxs.x = a->maxs.x;
            if (a->maxs.y > u->maxs.y) u->maxs.y = a->maxs.y;
            if (a->maxs.z > u->maxs.z) u->maxs.z = a->maxs.z;
        }
        l->n++;
        list = next;
    }
}

static bool bounds_disjoint(const aabb_t *a, const aabb_t *b)
{
    return a->mins.x >= b->maxs.x - ON_EPSILON || a->maxs.x <= b->mins.x + ON_EPSILON ||
           a->mins.y >= b->maxs.y - ON_EPSILON || a->maxs.y <= b->mins.y + ON_EPSILON ||
           a->mins.z >= b->maxs.z - ON_EPSILON || a->maxs.z <= b->mins.z + ON_EPSILON;
}

/* _noclipfaces: brushes of one entity and one contents leave each other
 * whole, so the faces between them survive. */
static bool keep_faces_between(const bspbrush_t *a, const bspbrush_t *b)
{
    const mapbrush_t *x = a->original, *y = b->original;
    return x->noclipfaces && y->noclipfaces && x->entitynum == y->entitynum && x->contents == y->contents;
}

static bspbrush_t *chop_group(const qbsp_t *q, blockcache_t *bc, bspbrush_t *head)
{
    /* qbsp3's ChopBrushes: the first brush is compared with every later
     * one; a bitten brush is replaced by its pieces at the end of the list;
     * once the first brush overlaps nothing it is kept. The result is a
     * pure function of the input order. */
    chop_list_t l = {0};
    chop_append(&l, head);
    bspbrush_t *keep = NULL, **keeptail = &keep;

    for (int h = 0; h < l.n; h++) {
        bspbrush_t *b1 = l.e[h].b;
        if (!b1) continue;
        bool b1_gone = false;
        for (int j = h + 1; j < l.n && !b1_gone; j++) {
            if ((j & (CHOP_BLOCK - 1)) == 0 && bounds_disjoint(&l.e[h].bounds, &l.block[j >> CHOP_BLOCK_SHIFT])) {
                j += CHOP_BLOCK - 1;
                continue;
            }
            bspbrush_t *b2 = l.e[j].b;
            if (!b2 || bounds_disjoint(&l.e[h].bounds, &l.e[j].bounds)) continue;
            if (brushes_disjoint(b1, b2)) continue;
            if (keep_faces_between(b1, b2)) continue;
            /* _chop 0: the entity's brushes are left whole; func_detail_wall
             * brushes do not clip each other (ericw-tools). */
            if (b1->original->nochop || b2->original->nochop) continue;
            if (b1->original->detail_wall && b2->original->detail_wall) continue;
            bool ge21 = brush_ge(b2, b1), ge12 = brush_ge(b1, b2);
            /* _chop_order: of two brushes that could each bite the other,
             * the higher order bites (ericw-tools); equal orders keep
             * qbsp3's rule (whichever leaves fewer pieces). */
            int o1 = b1->original->chop_order, o2 = b2->original->chop_order;
            if (ge21 && ge12 && o1 != o2) {
                if (o1 > o2) ge21 = false;
                else ge12 = false;
            }
            bspbrush_t *sub = NULL, *sub2 = NULL;
            int c1 = 999999, c2 = 999999;
            if (ge21) {
                sub = csg_subtract_brush(q, bc, b1, b2);
                if (sub == b1) continue; /* did not really intersect */
                if (!sub) {              /* b1 swallowed by b2 */
                    bc_brush_free(bc, b1);
                    l.e[h].b = NULL;
                    b1_gone = true;
                    break;
                }
                c1 = brush_list_count(sub);
            }
            if (ge12) {
                sub2 = csg_subtract_brush(q, bc, b2, b1);
                if (sub2 == b2) {
                    bc_brush_list_free(bc, sub);
                    continue;
                }
                c2 = sub2 ? brush_list_count(sub2) : 0;
            }
            if (!sub && c2 == 999999) continue; /* neither can bite */
            if (c1 < c2) {
                /* b1 is replaced by its pieces */
                bc_brush_list_free(bc, sub2);
                bc_brush_free(bc, b1);
                l.e[h].b = NULL;
                chop_append(&l, sub);
                b1_gone = true;
                break;
            }
            /* b2 is replaced by its pieces (none when b1 swallows it); b1
             * is unchanged and goes on against the rest. */
            bc_brush_list_free(bc, sub);
            bc_brush_free(bc, b2);
            l.e[j].b = NULL;
            chop_append(&l, sub2);
        }
        if (b1_gone) continue;
        l.e[h].b = NULL;
        *keeptail = b1;
        keeptail = &b1->next;
    }
    free(l.e);
    free(l.block);
    return keep;
}

static int uf_find(int *parent, int i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

static void uf_union(int *parent, int a, int b)
{
    a = uf_find(parent, a);
    b = uf_find(parent, b);
    /* the smaller index is the root, so roots do not depend on the order
     * of unions */
    if (a < b)
        parent[b] = a;
    else if (b < a)
        parent[a] = b;
}

typedef struct sort_key_t {
    double minx;
    int index;
} sort_key_t;

static int cmp_key(const void *a, const void *b)
{
    const sort_key_t *x = a, *y = b;
    if (x->minx < y->minx) return -1;
    if (x->minx > y->minx) return 1;
    return x->index - y->index;
}

bspbrush_t *csg_chop_brushes(const qbsp_t *q, bspbrush_t *head, int *numfragments)
{
    /* Brushes only bite brushes whose bounds they overlap, and pieces stay
     * inside their brush's bounds, so the groups of brushes connected by
     * overlapping bounds are chopped independently (and in parallel). Each
     * group keeps the input order and the groups are joined in the order
     * of their first brush: the result is the same for any thread count. */
    int n = brush_list_count(head);
    if (n == 0) {
        if (numfragments) *numfragments = 0;
        return NULL;
    }
    bspbrush_t **arr = q2_malloc(sizeof *arr * (size_t)n);
    int k = 0;
    for (bspbrush_t *b = head; b; b = b->next) arr[k++] = b;
    for (int i = 0; i < n; i++) arr[i]->next = NULL;

    int *parent = q2_malloc(sizeof(int) * (size_t)n);
    sort_key_t *keys = q2_malloc(sizeof *keys * (size_t)n);
    for (int i = 0; i < n; i++) {
        parent[i] = i;
        keys[i].minx = arr[i]->bounds.mins.x;
        keys[i].index = i;
    }
    qsort(keys, (size_t)n, sizeof *keys, cmp_key);
    for (int a = 0; a < n; a++) {
        const aabb_t *ba = &arr[keys[a].index]->bounds;
        for (int b = a + 1; b < n && keys[b].minx < ba->maxs.x - ON_EPSILON; b++) {
            const aabb_t *bb = &arr[keys[b].index]->bounds;
            if (!bounds_disjoint(ba, bb)) uf_union(parent, keys[a].index, keys[b].index);
        }
    }
    free(keys);

    /* Groups in order of their first brush, each a list in input order. */
    int *group_of = q2_malloc(sizeof(int) * (size_t)n);
    bspbrush_t **groups = q2_calloc((size_t)n, sizeof *groups);
    bspbrush_t ***tails = q2_malloc(sizeof *tails * (size_t)n);
    int ngroups = 0;
    for (int i = 0; i < n; i++) {
        int r = uf_find(parent, i);
        if (r == i) {
            group_of[i] = ngroups;
            tails[ngroups] = &groups[ngroups];
            ngroups++;
        }
        int g = group_of[r];
        *tails[g] = arr[i];
        tails[g] = &arr[i]->next;
    }
    free(tails);
    free(group_of);
    free(parent);
    free(arr);

    int threads = q->opt.threads > 0 ? q->opt.threads : 1;
    bool par = threads > 1 && n >= 64;
#pragma omp parallel num_threads(threads) if (par) default(none) shared(q, groups, ngroups)
    {
        /* Each thread's own cache, released before the region ends. */
        blockcache_t bc;
        memset(&bc, 0, sizeof bc);
#pragma omp for schedule(dynamic, 1)
        for (int g = 0; g < ngroups; g++)
            if (groups[g]->next) groups[g] = chop_group(q, &bc, groups[g]);
        bc_release(&bc);
    }

    bspbrush_t *keep = NULL, **tail = &keep;
    int count = 0;
    for (int g = 0; g < ngroups; g++) {
        *tail = groups[g];
        while (*tail) {
            tail = &(*tail)->next;
            count++;
        }
    }
    free(groups);
    if (numfragments) *numfragments = count;
    return keep;
}
