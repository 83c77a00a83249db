#include "leak.h"

#include <stdio.h>
#include <stdlib.h>

#include "../common/mem.h"
#include "../formats/pointfile.h"

bool leak_path(const qbsp_t *q, const tree_t *tree, vec3_t **pts, int *n, int *entity)
{
    *pts = NULL;
    *n = 0;
    *entity = -1;
    const node_t *node = &tree->outside_node;
    if (!node->occupied) return false;
    vec3_t *path = NULL;
    int count = 0, cap = 0;
    /* Walk back from the void along strictly decreasing flood distances:
     * with a breadth-first flood this is a shortest path, and taking the
     * first best portal in list order keeps it deterministic. */
    while (node->occupied > 1) {
        const portal_t *best = NULL;
        const node_t *bestnode = NULL;
        int s;
        for (const portal_t *p = node->portals; p; p = p->next[s]) {
            s = p->nodes[1] == node;
            const node_t *other = p->nodes[!s];
            if (!other->occupied || other->occupied >= node->occupied) continue;
            if (!bestnode || other->occupied < bestnode->occupied) {
                best = p;
                bestnode = other;
            }
        }
        if (!best) break;
        ARRAY_PUSH(path, count, cap, winding_center(best->winding));
        node = bestnode;
    }
    *entity = node->occupant_index;
    vec3_t origin = vec3(0, 0, 0);
    if (node->occupant) entity_get_vec3(&node->occupant->ent, "origin", &origin);
    ARRAY_PUSH(path, count, cap, origin);
    /* Entity first, void last. */
    for (int i = 0; i < count / 2; i++) {
        vec3_t t = path[i];
        path[i] = path[count - 1 - i];
        path[count - 1 - i] = t;
    }
    *pts = path;
    *n = count;
    (void)q;
    return true;
}

bool leak_write(const qbsp_t *q, const tree_t *tree, const char *pts_path, const char *lin_path, char *desc,
                size_t descsz, q2err_t *err)
{
    vec3_t *pts;
    int n, e;
    if (!leak_path(q, tree, &pts, &n, &e)) return q2err_set(err, NULL, 0, 0, "no leak to write");
    if (e >= 0 && e < q->map.numentities) {
        const map_entity_t *me = &q->map.entities[e];
        const char *org = entity_get(&me->ent, "origin");
        snprintf(desc, descsz, "entity %d (%s) at (%s), line %d", e, entity_classname(&me->ent), org ? org : "",
                 me->ent.line);
    } else {
        snprintf(desc, descsz, "an unknown entity");
    }
    bool ok = pointfile_write_pts(pts_path, pts, n, LEAK_PTS_SPACING, err) &&
              pointfile_write_lin(lin_path, pts, n, err);
    free(pts);
    return ok;
}
