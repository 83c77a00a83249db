#include "winding.h"

#include <stdlib.h>
#include <string.h>

#include "mem.h"

winding_t *winding_alloc(int maxpoints)
{
    winding_t *w = q2_malloc(sizeof *w + sizeof(vec3_t) * (size_t)maxpoints);
    w->numpoints = 0;
    w->maxpoints = maxpoints;
    return w;
}

void winding_free(winding_t *w) { free(w); }

winding_t *winding_copy(const winding_t *w)
{
    winding_t *c = winding_alloc(w->numpoints);
    c->numpoints = w->numpoints;
    memcpy(c->p, w->p, sizeof(vec3_t) * (size_t)w->numpoints);
    return c;
}

winding_t *winding_reverse(const winding_t *w)
{
    winding_t *c = winding_alloc(w->numpoints);
    c->numpoints = w->numpoints;
    for (int i = 0; i < w->numpoints; i++) c->p[i] = w->p[w->numpoints - 1 - i];
    return c;
}

void winding_for_plane_points(vec3_t normal, double dist, double extent, vec3_t out[4])
{
    /* Pick the world axis least aligned with the normal as "up" so the cross
     * products below are well conditioned. */
    double ax = fabs(normal.x), ay = fabs(normal.y), az = fabs(normal.z);
    vec3_t up;
    if (az >= ax && az >= ay)
        up = vec3(1, 0, 0);
    else
        up = vec3(0, 0, 1);
    up = vec_ma(up, -vec_dot(up, normal), normal);
    up = vec_normalize(up, NULL);
    vec3_t right = vec_cross(up, normal);
    vec3_t org = vec_scale(normal, dist);
    up = vec_scale(up, extent);
    right = vec_scale(right, extent);

    out[0] = vec_add(vec_sub(org, right), up);
    out[1] = vec_add(vec_add(org, right), up);
    out[2] = vec_sub(vec_add(org, right), up);
    out[3] = vec_sub(vec_sub(org, right), up);
}

winding_t *winding_for_plane(vec3_t normal, double dist, double extent)
{
    winding_t *w = winding_alloc(4);
    w->numpoints = 4;
    winding_for_plane_points(normal, dist, extent, w->p);
    return w;
}

int winding_on_side(const winding_t *w, vec3_t normal, double dist, double eps)
{
    bool front = false, back = false;
    for (int i = 0; i < w->numpoints; i++) {
        double d = vec_dot(w->p[i], normal) - dist;
        if (d > eps) front = true;
        else if (d < -eps) back = true;
        if (front && back) return SIDE_CROSS;
    }
    if (front) return SIDE_FRONT;
    if (back) return SIDE_BACK;
    return SIDE_ON;
}

static int axial_index(vec3_t n)
{
    if (n.x == 1.0 || n.x == -1.0) return 0;
    if (n.y == 1.0 || n.y == -1.0) return 1;
    if (n.z == 1.0 || n.z == -1.0) return 2;
    return -1;
}

void winding_classify(const vec3_t *p, int n, vec3_t normal, double dist, double eps, double *dists, int *sides,
                      int counts[3])
{
    counts[SIDE_FRONT] = counts[SIDE_BACK] = counts[SIDE_ON] = 0;
    for (int i = 0; i < n; i++) {
        double d = vec_dot(p[i], normal) - dist;
        dists[i] = d;
        sides[i] = d > eps ? SIDE_FRONT : d < -eps ? SIDE_BACK : SIDE_ON;
        counts[sides[i]]++;
    }
    if (n > 0) {
        dists[n] = dists[0];
        sides[n] = sides[0];
    }
}

int winding_front_points(const vec3_t *p, int n, vec3_t normal, double dist, const double *dists, const int *sides,
                         vec3_t *out)
{
    int axis = axial_index(normal);
    int m = 0;
    for (int i = 0; i < n; i++) {
        vec3_t p1 = p[i];
        if (sides[i] == SIDE_ON) {
            out[m++] = p1;
            continue;
        }
        if (sides[i] == SIDE_FRONT) out[m++] = p1;
        if (sides[i + 1] == SIDE_ON || sides[i + 1] == sides[i]) continue;
        vec3_t p2 = p[(i + 1) % n];
        double t = dists[i] / (dists[i] - dists[i + 1]);
        vec3_t mid = vec_lerp(p1, p2, t);
        if (axis >= 0) vec_set_comp(&mid, axis, vec_comp(normal, axis) * dist);
        out[m++] = mid;
    }
    return m;
}

int winding_crossings(const int *sides, int n)
{
    /* Counted rather than assumed (one per side) so that the buffers are
     * exact even for (invalid) non-convex input. */
    int crossings = 0;
    for (int i = 0; i < n; i++)
        if (sides[i] != SIDE_ON && sides[i + 1] != SIDE_ON && sides[i + 1] != sides[i]) crossings++;
    return crossings;
}

void winding_split_sides_into(const winding_t *w, vec3_t normal, double dist, const double *dists, const int *sides,
                              winding_t *f, winding_t *b)
{
    int n = w->numpoints;
    int axis = axial_index(normal);
    f->numpoints = b->numpoints = 0;
    for (int i = 0; i < n; i++) {
        vec3_t p1 = w->p[i];
        if (sides[i] == SIDE_ON) {
            f->p[f->numpoints++] = p1;
            b->p[b->numpoints++] = p1;
            continue;
        }
        if (sides[i] == SIDE_FRONT) f->p[f->numpoints++] = p1;
        if (sides[i] == SIDE_BACK) b->p[b->numpoints++] = p1;
        if (sides[i + 1] == SIDE_ON || sides[i + 1] == sides[i]) continue;
        vec3_t p2 = w->p[(i + 1) % n];
        double t = dists[i] / (dists[i] - dists[i + 1]);
        vec3_t mid = vec_lerp(p1, p2, t);
        if (axis >= 0) vec_set_comp(&mid, axis, vec_comp(normal, axis) * dist);
        f->p[f->numpoints++] = mid;
        b->p[b->numpoints++] = mid;
    }
}

void winding_split_sides(const winding_t *w, vec3_t normal, double dist, const double *dists, const int *sides,
                         const int counts[3], winding_t **front, winding_t **back)
{
    int crossings = winding_crossings(sides, w->numpoints);
    winding_t *f = winding_alloc(counts[SIDE_FRONT] + counts[SIDE_ON] + crossings);
    winding_t *b = winding_alloc(counts[SIDE_BACK] + counts[SIDE_ON] + crossings);
    winding_split_sides_into(w, normal, dist, dists, sides, f, b);
    *front = f;
    *back = b;
}

void winding_split(const winding_t *w, vec3_t normal, double dist, double eps, winding_t **front,
                   winding_t **back)
{
    int n = w->numpoints;
    *front = *back = NULL;
    if (n <= 0) return;
    /* Not zeroed: every entry up to n is written before it is read, and
     * clearing 768 bytes per call was a tenth of the split's cost. */
    double stackd[64];
    int stacks[64];
    double *dists = n + 1 <= 64 ? stackd : q2_malloc(sizeof(double) * (size_t)(n + 1));
    int *sides = n + 1 <= 64 ? stacks : q2_malloc(sizeof(int) * (size_t)(n + 1));
    int counts[3];
    winding_classify(w->p, n, normal, dist, eps, dists, sides, counts);

    if (counts[SIDE_FRONT] == 0 && counts[SIDE_BACK] == 0) {
        vec3_t wn;
        double wd;
        winding_plane(w, &wn, &wd);
        if (vec_dot(wn, normal) > 0)
            *front = winding_copy(w);
        else
            *back = winding_copy(w);
    } else if (counts[SIDE_FRONT] == 0) {
        *back = winding_copy(w);
    } else if (counts[SIDE_BACK] == 0) {
        *front = winding_copy(w);
    } else {
        winding_split_sides(w, normal, dist, dists, sides, counts, front, back);
    }
    if (dists != stackd) free(dists);
    if (sides != stacks) free(sides);
}

winding_t *winding_clip(winding_t *w, vec3_t normal, double dist, double eps, bool keep_on)
{
    int side = winding_on_side(w, normal, dist, eps);
    if (side == SIDE_FRONT) return w;
    if (side == SIDE_ON) {
        if (keep_on) return w;
        winding_free(w);
        return NULL;
    }
    if (side == SIDE_BACK) {
        winding_free(w);
        return NULL;
    }
    winding_t *f, *b;
    winding_split(w, normal, dist, eps, &f, &b);
    winding_free(w);
    if (b) winding_free(b);
    return f;
}

double winding_area(const winding_t *w)
{
    double total = 0;
    for (int i = 2; i < w->numpoints; i++) {
        vec3_t c = vec_cross(vec_sub(w->p[i - 1], w->p[0]), vec_sub(w->p[i], w->p[0]));
        total += 0.5 * vec_len(c);
    }
    return total;
}

vec3_t winding_center(const winding_t *w)
{
    vec3_t c = vec3(0, 0, 0);
    if (w->numpoints == 0) return c;
    for (int i = 0; i < w->numpoints; i++) c = vec_add(c, w->p[i]);
    return vec_scale(c, 1.0 / w->numpoints);
}

aabb_t winding_bounds(const winding_t *w)
{
    aabb_t b = aabb_empty();
    for (int i = 0; i < w->numpoints; i++) aabb_add_point(&b, w->p[i]);
    return b;
}

void winding_plane(const winding_t *w, vec3_t *normal, double *dist)
{
    /* Newell's method sums edge contributions, so one short edge cannot tip
     * the normal. The sign matches the clockwise convention. */
    vec3_t n = vec3(0, 0, 0);
    for (int i = 0; i < w->numpoints; i++) {
        vec3_t a = w->p[i], b = w->p[(i + 1) % w->numpoints];
        n.x += (a.y - b.y) * (a.z + b.z);
        n.y += (a.z - b.z) * (a.x + b.x);
        n.z += (a.x - b.x) * (a.y + b.y);
    }
    n = vec_neg(vec_normalize(n, NULL));
    *normal = n;
    *dist = vec_dot(winding_center(w), n);
}

bool winding_is_tiny(const winding_t *w)
{
    if (w->numpoints < 3) return true;
    return winding_area(w) < DEGENERATE_EPSILON * DEGENERATE_EPSILON;
}

bool winding_check(const winding_t *w, q2err_t *err)
{
    if (w->numpoints < 3) return q2err_set(err, NULL, 0, 0, "winding has %d points", w->numpoints);
    if (winding_area(w) < DEGENERATE_EPSILON * DEGENERATE_EPSILON)
        return q2err_set(err, NULL, 0, 0, "winding has no area");
    vec3_t n;
    double d;
    winding_plane(w, &n, &d);
    for (int i = 0; i < w->numpoints; i++) {
        vec3_t p = w->p[i];
        if (!vec_is_finite(p)) return q2err_set(err, NULL, 0, 0, "point %d is not finite", i);
        if (fabs(p.x) > WORLD_EXTENT || fabs(p.y) > WORLD_EXTENT || fabs(p.z) > WORLD_EXTENT)
            return q2err_set(err, NULL, 0, 0, "point %d is outside the world", i);
        double pd = vec_dot(p, n) - d;
        if (fabs(pd) > ON_EPSILON) return q2err_set(err, NULL, 0, 0, "point %d is %g off the plane", i, pd);
        vec3_t q = w->p[(i + 1) % w->numpoints];
        vec3_t edge = vec_sub(q, p);
        double len = vec_len(edge);
        if (len < DEGENERATE_EPSILON) return q2err_set(err, NULL, 0, 0, "edge %d is degenerate", i);
        /* Every other point must be behind the plane that contains this edge
         * and faces out of the polygon. */
        vec3_t en = vec_normalize(vec_cross(n, edge), NULL);
        double ed = vec_dot(p, en);
        for (int j = 0; j < w->numpoints; j++) {
            if (j == i || j == (i + 1) % w->numpoints) continue;
            if (vec_dot(w->p[j], en) - ed > ON_EPSILON)
                return q2err_set(err, NULL, 0, 0, "winding is not convex at point %d", j);
        }
    }
    return true;
}

winding_t *winding_remove_colinear(winding_t *w, double eps)
{
    int n = w->numpoints;
    vec3_t *tmp = q2_malloc(sizeof(vec3_t) * (size_t)(n > 0 ? n : 1));
    int out = 0;
    for (int i = 0; i < n; i++) {
        vec3_t prev = w->p[(i + n - 1) % n], cur = w->p[i], next = w->p[(i + 1) % n];
        vec3_t d1 = vec_sub(cur, prev), d2 = vec_sub(next, cur);
        double l1 = vec_len(d1), l2 = vec_len(d2);
        if (l1 < eps) continue; /* duplicate of the previous point */
        if (l2 >= eps) {
            /* Distance of cur from the line prev-next decides collinearity. */
            vec3_t pn = vec_sub(next, prev);
            double lpn = vec_len(pn);
            if (lpn > eps) {
                double off = vec_len(vec_cross(vec_sub(cur, prev), pn)) / lpn;
                if (off < eps && vec_dot(d1, d2) > 0) continue;
            }
        }
        tmp[out++] = cur;
    }
    memcpy(w->p, tmp, sizeof(vec3_t) * (size_t)out);
    w->numpoints = out;
    free(tmp);
    return w;
}
