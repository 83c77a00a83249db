#include "planes.h"

#include <stdlib.h>
#include <string.h>

#include "mem.h"

#define PLANE_HASH_SIZE 4096

void plane_table_init(plane_table_t *t)
{
    memset(t, 0, sizeof *t);
    t->hash_size = PLANE_HASH_SIZE;
    t->hash_head = q2_malloc(sizeof(int) * PLANE_HASH_SIZE);
    for (int i = 0; i < PLANE_HASH_SIZE; i++) t->hash_head[i] = -1;
}

void plane_table_free(plane_table_t *t)
{
    free(t->planes);
    free(t->hash_head);
    free(t->hash_next);
    memset(t, 0, sizeof *t);
}

void plane_snap(vec3_t *normal, double *dist)
{
    for (int i = 0; i < 3; i++) {
        double c = vec_comp(*normal, i);
        if (fabs(c - 1.0) < NORMAL_EPSILON) {
            *normal = vec3(0, 0, 0);
            vec_set_comp(normal, i, 1.0);
            break;
        }
        if (fabs(c + 1.0) < NORMAL_EPSILON) {
            *normal = vec3(0, 0, 0);
            vec_set_comp(normal, i, -1.0);
            break;
        }
    }
    double r = floor(*dist + 0.5);
    if (fabs(*dist - r) < DIST_EPSILON) *dist = r;
}

static int bucket_of(double dist, int size)
{
    /* Buckets of one unit of |dist|: a plane's match is always in its own
     * bucket or a neighbour, since DIST_EPSILON is below one unit. */
    /* Converting a distance beyond long's range is undefined behaviour;
     * such planes (far outside any world) share one bucket. */
    if (!(fabs(dist) < 1e15)) return size - 1;
    long b = (long)floor(fabs(dist));
    return (int)(b % size);
}

static bool same_plane(const plane_t *p, vec3_t n, double d)
{
    return fabs(p->normal.x - n.x) < NORMAL_EPSILON && fabs(p->normal.y - n.y) < NORMAL_EPSILON &&
           fabs(p->normal.z - n.z) < NORMAL_EPSILON && fabs(p->dist - d) < DIST_EPSILON;
}

static void hash_insert(plane_table_t *t, int index)
{
    int b = bucket_of(t->planes[index].dist, t->hash_size);
    t->hash_next[index] = t->hash_head[b];
    t->hash_head[b] = index;
}

bool plane_table_accepts(vec3_t normal, double dist)
{
    return vec_is_finite(normal) && isfinite(dist) && !(fabs(vec_len(normal) - 1.0) > 0.001);
}

int plane_table_find(plane_table_t *t, vec3_t normal, double dist)
{
    if (!plane_table_accepts(normal, dist)) return -1;
    plane_snap(&normal, &dist);

    int b = bucket_of(dist, t->hash_size);
    for (int k = -1; k <= 1; k++) {
        int bb = (b + k + t->hash_size) % t->hash_size;
        for (int i = t->hash_head[bb]; i >= 0; i = t->hash_next[i])
            if (same_plane(&t->planes[i], normal, dist)) return i;
    }

    int type = plane_type_for_normal(normal);
    int axis = type < 3 ? type : type - 3;
    plane_t pos = {normal, dist, type};
    plane_t neg = {vec_neg(normal), -dist, type};
    bool flipped = vec_comp(normal, axis) < 0;
    if (flipped) {
        plane_t tmp = pos;
        pos = neg;
        neg = tmp;
    }
    int cap_before = t->capacity;
    t->planes = q2_grow(t->planes, sizeof *t->planes, &t->capacity, t->count + 2);
    if (t->capacity != cap_before) t->hash_next = q2_realloc(t->hash_next, sizeof(int) * (size_t)t->capacity);
    int first = t->count;
    t->planes[first] = pos;
    t->planes[first + 1] = neg;
    t->count += 2;
    hash_insert(t, first);
    hash_insert(t, first + 1);
    return flipped ? first + 1 : first;
}
