/* Double-precision vector and plane math shared by every stage.
 *
 * All geometry in the compilers is done in double precision; only the .bsp
 * writer narrows to float, because that is what the file format stores. */
#ifndef Q2M_MATHLIB_H
#define Q2M_MATHLIB_H

#include <math.h>
#include <stdbool.h>

typedef struct vec3_t {
    double x, y, z;
} vec3_t;

/* Named epsilons. Every geometric comparison in the project uses one of
 * these, so that tolerances can be reasoned about in one place.
 *
 * ON_EPSILON: a point closer than this to a plane is "on" it. Map coordinates
 *   are usually integers and brushes are at most a few thousand units across;
 *   0.01 units absorbs the rounding of three-point plane construction while
 *   staying far below the 1-unit grid designers work on (qbsp3 uses 0.1 for
 *   splitting, which visibly welds distinct vertices on 0.125 grids).
 * NORMAL_EPSILON: two unit normals whose components differ by less than this
 *   are the same direction (about 0.0006 degrees).
 * DIST_EPSILON: two planes with the same normal whose distances differ by
 *   less than this are the same plane.
 * DEGENERATE_EPSILON: winding edges shorter than this are considered
 *   degenerate; a polygon with an area below DEGENERATE_EPSILON^2 is empty. */
#define ON_EPSILON 0.01
#define NORMAL_EPSILON 0.00001
#define DIST_EPSILON 0.01
#define DEGENERATE_EPSILON 0.001

/* Half-size of the cube that contains every legal map coordinate. Quake 2
 * sends coordinates over the network as shorts of 1/8 units, which limits the
 * world to +-4096; windings built from planes start a little larger so that
 * clipping against the world's brushes always shrinks them. */
#define WORLD_EXTENT 65536.0
#define MAX_WORLD_COORD 4096.0

static inline vec3_t vec3(double x, double y, double z) { return (vec3_t){x, y, z}; }
static inline vec3_t vec_add(vec3_t a, vec3_t b) { return (vec3_t){a.x + b.x, a.y + b.y, a.z + b.z}; }
static inline vec3_t vec_sub(vec3_t a, vec3_t b) { return (vec3_t){a.x - b.x, a.y - b.y, a.z - b.z}; }
static inline vec3_t vec_scale(vec3_t a, double s) { return (vec3_t){a.x * s, a.y * s, a.z * s}; }
static inline vec3_t vec_ma(vec3_t a, double s, vec3_t b) { return (vec3_t){a.x + s * b.x, a.y + s * b.y, a.z + s * b.z}; }
static inline vec3_t vec_neg(vec3_t a) { return (vec3_t){-a.x, -a.y, -a.z}; }
static inline double vec_dot(vec3_t a, vec3_t b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline vec3_t vec_cross(vec3_t a, vec3_t b) {
    return (vec3_t){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline double vec_len(vec3_t a) { return sqrt(vec_dot(a, a)); }
static inline vec3_t vec_lerp(vec3_t a, vec3_t b, double t) { return vec_ma(a, t, vec_sub(b, a)); }
static inline double vec_comp(vec3_t a, int i) { return i == 0 ? a.x : i == 1 ? a.y : a.z; }
static inline void vec_set_comp(vec3_t *a, int i, double v) {
    if (i == 0) a->x = v; else if (i == 1) a->y = v; else a->z = v;
}
/* fmin and fmax by a compare the compiler keeps inline, where it calls
 * the library for them (the bounds of every fragment, triangle and sample
 * go through here: a tenth to a fifth of qbsp's tree build and qrad's
 * hierarchy build were those calls). The same values for finite operands
 * and a NaN second one (a point added to a bound is dropped, as fmin drops
 * it), but for the sign of a zero between -0.0 and +0.0, which C leaves to
 * the library (glibc on x86-64 and arm64 already differ there) and which
 * no bound is read for (see float_for_file). Every caller's first operand
 * is a finite value or a bound that starts at an infinity. */
static inline double min_of(double a, double b) { return b < a ? b : a; }
static inline double max_of(double a, double b) { return b > a ? b : a; }
static inline vec3_t vec_min(vec3_t a, vec3_t b) { return (vec3_t){min_of(a.x, b.x), min_of(a.y, b.y), min_of(a.z, b.z)}; }
static inline vec3_t vec_max(vec3_t a, vec3_t b) { return (vec3_t){max_of(a.x, b.x), max_of(a.y, b.y), max_of(a.z, b.z)}; }
static inline bool vec_equal_eps(vec3_t a, vec3_t b, double eps) {
    return fabs(a.x - b.x) <= eps && fabs(a.y - b.y) <= eps && fabs(a.z - b.z) <= eps;
}
static inline bool vec_is_finite(vec3_t a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }

/* Returns the normalized vector and stores the original length in *len (may
 * be NULL). A zero vector stays zero with length 0. */
vec3_t vec_normalize(vec3_t a, double *len);

/* Plane types as Quake 2 stores them: 0..2 axial along X, Y, Z; 3..5 "any"
 * plane whose dominant axis is X, Y or Z. */
enum { PLANE_X = 0, PLANE_Y = 1, PLANE_Z = 2, PLANE_ANYX = 3, PLANE_ANYY = 4, PLANE_ANYZ = 5 };

typedef struct plane_t {
    vec3_t normal;
    double dist;
    int type;
} plane_t;

int plane_type_for_normal(vec3_t normal);
static inline double plane_dist_to(const plane_t *p, vec3_t pt) { return vec_dot(p->normal, pt) - p->dist; }

/* Plane through three points with Quake's winding convention: the normal is
 * normalize((p0 - p1) x (p2 - p1)). Returns false if the points are
 * collinear or not finite. */
bool plane_from_points(vec3_t p0, vec3_t p1, vec3_t p2, plane_t *out);

/* Axis-aligned bounding box helpers. */
typedef struct aabb_t {
    vec3_t mins, maxs;
} aabb_t;

/* out = m^-1; false (out untouched) when m is singular: |det| below
 * MAT3_SINGULAR_EPSILON, as for texture axes parallel to a face's plane. */
#define MAT3_SINGULAR_EPSILON 1e-12
bool mat3_invert(const double m[3][3], double out[3][3]);

aabb_t aabb_empty(void);
static inline void aabb_add_point(aabb_t *b, vec3_t p)
{
    b->mins = vec_min(b->mins, p);
    b->maxs = vec_max(b->maxs, p);
}
bool aabb_is_empty(const aabb_t *b);

/* A double narrowed to the float a file stores, a zero always as +0.0.
 * Why: the sign of a computed zero is an accident of the operations that
 * made it (vec_neg of an axial normal, floor(-0.0), ceil(-0.5), and fmin
 * or fmax of -0.0 and +0.0, which C lets return either), so the same map
 * gave -0.0 in one build and +0.0 in another, and the files differed
 * (issue 37). The addition comes after the narrowing because a tiny
 * negative double narrows to -0.0f; -0.0f + 0.0f is +0.0f when rounding to
 * nearest, and every other value is left as it is. Compilers keep the
 * addition unless told signed zeros do not matter (-ffast-math), which no
 * build here is. */
static inline float float_for_file(double v) { return (float)v + 0.0f; }

#endif
