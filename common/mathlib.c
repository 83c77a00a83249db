#include "mathlib.h"

vec3_t vec_normalize(vec3_t a, double *len)
{
    double l = vec_len(a);
    if (len) *len = l;
    if (l == 0.0) return a;
    return vec_scale(a, 1.0 / l);
}

int plane_type_for_normal(vec3_t n)
{
    if (n.x == 1.0 || n.x == -1.0) return PLANE_X;
    if (n.y == 1.0 || n.y == -1.0) return PLANE_Y;
    if (n.z == 1.0 || n.z == -1.0) return PLANE_Z;
    double ax = fabs(n.x), ay = fabs(n.y), az = fabs(n.z);
    if (ax >= ay && ax >= az) return PLANE_ANYX;
    if (ay >= ax && ay >= az) return PLANE_ANYY;
    return PLANE_ANYZ;
}

bool plane_from_points(vec3_t p0, vec3_t p1, vec3_t p2, plane_t *out)
{
    if (!vec_is_finite(p0) || !vec_is_finite(p1) || !vec_is_finite(p2)) return false;
    vec3_t n = vec_cross(vec_sub(p0, p1), vec_sub(p2, p1));
    double len;
    n = vec_normalize(n, &len);
    /* Relative test: collinearity must not depend on how far apart the
     * designer placed the three points. */
    double scale = vec_len(vec_sub(p0, p1)) * vec_len(vec_sub(p2, p1));
    if (len == 0.0 || !(len > scale * 1e-9)) return false;
    out->normal = n;
    out->dist = vec_dot(p1, n);
    out->type = plane_type_for_normal(n);
    return true;
}

aabb_t aabb_empty(void)
{
    return (aabb_t){{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
}

bool aabb_is_empty(const aabb_t *b)
{
    return !(b->mins.x <= b->maxs.x && b->mins.y <= b->maxs.y && b->mins.z <= b->maxs.z);
}

bool mat3_invert(const double m[3][3], double out[3][3])
{
    double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                 m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    if (fabs(det) < MAT3_SINGULAR_EPSILON) return false;
    double id = 1.0 / det;
    out[0][0] = (m[1][1] * m[2][2] - m[1][2] * m[2][1]) * id;
    out[0][1] = (m[0][2] * m[2][1] - m[0][1] * m[2][2]) * id;
    out[0][2] = (m[0][1] * m[1][2] - m[0][2] * m[1][1]) * id;
    out[1][0] = (m[1][2] * m[2][0] - m[1][0] * m[2][2]) * id;
    out[1][1] = (m[0][0] * m[2][2] - m[0][2] * m[2][0]) * id;
    out[1][2] = (m[0][2] * m[1][0] - m[0][0] * m[1][2]) * id;
    out[2][0] = (m[1][0] * m[2][1] - m[1][1] * m[2][0]) * id;
    out[2][1] = (m[0][1] * m[2][0] - m[0][0] * m[2][1]) * id;
    out[2][2] = (m[0][0] * m[1][1] - m[0][1] * m[1][0]) * id;
    return true;
}
