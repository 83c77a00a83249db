/* A table of unique planes, stored in pairs as Quake 2 writes them.
 *
 * Plane i and plane i^1 are opposites. The even plane of each pair faces
 * "positive": its component along its dominant axis is positive. BSP nodes
 * must use even planes only, because engines test axial planes with the fast
 * path `p[type] - dist`, which assumes a +1 normal; brush sides and faces may
 * use either.
 *
 * Two planes are the same when every normal component differs by at most
 * NORMAL_EPSILON and the distances by at most DIST_EPSILON (see mathlib.h).
 * Normals within NORMAL_EPSILON of an axis are snapped onto it and distances
 * within DIST_EPSILON of an integer are snapped to it before lookup, so that
 * planes made from the same integer points always match exactly. */
#ifndef Q2M_PLANES_H
#define Q2M_PLANES_H

#include "mathlib.h"

typedef struct plane_table_t {
    plane_t *planes;
    int count, capacity;
    int *hash_head; /* bucket -> first plane index, -1 ends */
    int *hash_next; /* plane index -> next in bucket */
    int hash_size;
} plane_table_t;

void plane_table_init(plane_table_t *t);
void plane_table_free(plane_table_t *t);

/* Snaps normal and dist as described above. */
void plane_snap(vec3_t *normal, double *dist);

/* Whether plane_table_find takes this plane (a finite, unit normal and a
 * finite distance) rather than returning -1. */
bool plane_table_accepts(vec3_t normal, double dist);

/* Index of the plane (adding the pair if it is new). Returns -1 if the
 * normal is not unit length or not finite. */
int plane_table_find(plane_table_t *t, vec3_t normal, double dist);

static inline const plane_t *plane_table_get(const plane_table_t *t, int i) { return &t->planes[i]; }

#endif
