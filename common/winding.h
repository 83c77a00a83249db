/* Windings: convex polygons in 3D, in double precision.
 *
 * Points go clockwise when seen from the front of the winding's plane (the
 * Quake convention, so that plane_from_points on three consecutive points
 * gives the winding's plane). Windings are malloc'ed with their points
 * inline; functions that return a new winding never modify their input unless
 * they say they consume it. */
#ifndef Q2M_WINDING_H
#define Q2M_WINDING_H

#include <stdbool.h>

#include "error.h"
#include "mathlib.h"

typedef struct winding_t {
    int numpoints;
    int maxpoints;
    vec3_t p[];
} winding_t;

enum { SIDE_FRONT = 0, SIDE_BACK = 1, SIDE_ON = 2, SIDE_CROSS = 3 };

winding_t *winding_alloc(int maxpoints);
void winding_free(winding_t *w);
winding_t *winding_copy(const winding_t *w);
/* The same polygon facing the other way. */
winding_t *winding_reverse(const winding_t *w);

/* A square of half-size `extent` on the plane, centred on the point of the
 * plane closest to the origin. */
winding_t *winding_for_plane(vec3_t normal, double dist, double extent);
/* winding_for_plane's four points, written to out (for callers that clip
 * them on the stack). */
void winding_for_plane_points(vec3_t normal, double dist, double extent, vec3_t out[4]);

/* Which side of the plane the winding is on, with points within eps counted
 * as on it: SIDE_FRONT, SIDE_BACK, SIDE_ON (all points on) or SIDE_CROSS. */
int winding_on_side(const winding_t *w, vec3_t normal, double dist, double eps);

/* Splits w by the plane. *front receives the part in front (or NULL when
 * nothing is), *back the part behind. A winding lying entirely on the plane
 * goes to the side its own normal faces: front if it faces the same way as
 * the plane, back otherwise. Points on axial planes are snapped exactly onto
 * them so that repeated splits do not drift. */
void winding_split(const winding_t *w, vec3_t normal, double dist, double eps, winding_t **front,
                   winding_t **back);

/* winding_split's classification of the points p[0..n): dists[i] their
 * distances from the plane, sides[i] SIDE_FRONT or SIDE_BACK beyond eps,
 * else SIDE_ON; counts[side] how many points have each side. Both arrays
 * hold n + 1 entries: when n > 0, entry n repeats entry 0. */
void winding_classify(const vec3_t *p, int n, vec3_t normal, double dist, double eps, double *dists, int *sides,
                      int counts[3]);

/* winding_split's cut, for callers that classified the points themselves
 * with winding_classify. Both counts of SIDE_FRONT and SIDE_BACK must be
 * non-zero. */
void winding_split_sides(const winding_t *w, vec3_t normal, double dist, const double *dists, const int *sides,
                         const int counts[3], winding_t **front, winding_t **back);

/* The number of edges of p[0..n) that cross the plane (both ends off it,
 * on opposite sides), from winding_classify's sides: each adds a point to
 * both halves of a split. */
int winding_crossings(const int *sides, int n);

/* winding_split_sides into windings the caller allocated: f with room for
 * counts[SIDE_FRONT] + counts[SIDE_ON] + crossings points, b with room for
 * counts[SIDE_BACK] + counts[SIDE_ON] + crossings. */
void winding_split_sides_into(const winding_t *w, vec3_t normal, double dist, const double *dists, const int *sides,
                              winding_t *f, winding_t *b);

/* The points of the part of the polygon p[0..n) in front of the plane, as
 * winding_split_sides makes its front half (the same points, in the same
 * order), written to out; returns their count. dists and sides from
 * winding_classify. */
int winding_front_points(const vec3_t *p, int n, vec3_t normal, double dist, const double *dists, const int *sides,
                         vec3_t *out);

/* Keeps the part of w in front of the plane; consumes w (frees it unless it
 * is returned unchanged). Returns NULL when nothing remains. A winding lying
 * on the plane is kept when keep_on is true. */
winding_t *winding_clip(winding_t *w, vec3_t normal, double dist, double eps, bool keep_on);

double winding_area(const winding_t *w);
vec3_t winding_center(const winding_t *w);
aabb_t winding_bounds(const winding_t *w);
/* The plane of the winding from its points (Newell's method, robust to
 * nearly-collinear neighbours). */
void winding_plane(const winding_t *w, vec3_t *normal, double *dist);
/* True if the polygon is degenerate: fewer than 3 points or area below
 * DEGENERATE_EPSILON squared. */
bool winding_is_tiny(const winding_t *w);
/* Validity check: at least 3 points, all finite and inside the world,
 * no degenerate edges, every point on the winding's plane and the polygon
 * convex. Returns false with a description in *err. */
bool winding_check(const winding_t *w, q2err_t *err);
/* Removes consecutive points closer than eps and points collinear with their
 * neighbours; returns the same winding shrunk in place. */
winding_t *winding_remove_colinear(winding_t *w, double eps);

#endif
