/* Areas: flood fill of the world's reachable leafs, stopping at
 * func_areaportal brushes. */
#include "areas.h"

#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "emit.h"
#include "portals.h"

typedef struct area_ctx_t {
    qbsp_t *q;
    qbsp_emit_t *em;
    int area;
    node_t **queue;
    int nqueue, cap;
    portal_batch_t pb;
} area_ctx_t;

static int leaf_portal_entity(const qbsp_t *q, const node_t *leaf)
{
    for (const bspbrush_t *b = leaf->brushlist; b; b = b->next)
        if (b->original && (b->original->contents & CONTENTS_AREAPORTAL)) {
            int e = b->original->entitynum;
            if (e >= 0 && e < q->map.numentities) return e;
        }
    return -1;
}

static bool is_portal_leaf(const node_t *n)
{
    return (n->contents & CONTENTS_AREAPORTAL) && !(n->contents & CONTENTS_SOLID);
}

/* An areaportal leaf is only ever flooded into: it records the area that
 * reached it and stops the fill. */
static void touch_portal(area_ctx_t *c, node_t *leaf)
{
    int e = leaf_portal_entity(c->q, leaf);
    if (e < 0) return;
    int *pa = c->em->ent_portalareas[e];
    if (pa[0] == c->area || pa[1] == c->area) return;
    if (pa[0] == 0) pa[0] = c->area;
    else if (pa[1] == 0) pa[1] = c->area;
    else pa[1] = -1; /* a third area: reported by the caller */
}

/* Which leafs an area holds and which areaportals it touches do not
 * depend on the order they are reached in (a portal touched twice by one
 * area records it once), so the leafs are taken breadth first, the
 * portal lists of PORTAL_BATCH of them at once (portals_gather). */
static void flood_area(area_ctx_t *c, node_t *start)
{
    c->nqueue = 0;
    start->area = c->area;
    ARRAY_PUSH(c->queue, c->nqueue, c->cap, start);
    for (int head = 0; head < c->nqueue;) {
        const int nb = c->nqueue - head < PORTAL_BATCH ? c->nqueue - head : PORTAL_BATCH;
        portals_gather(&c->pb, c->queue + head, nb, NULL);
        for (int b = 0; b < nb; b++) {
            node_t *node = c->queue[head + b];
            for (int k = 0; k < c->pb.len[b]; k++) {
                const portal_t *p = c->pb.list[b][k];
                int s = p->nodes[1] == node;
                node_t *other = p->nodes[!s];
                if (!other || other->planenum != PLANENUM_LEAF) continue;
                if ((other->contents | node->contents) & CONTENTS_SOLID) continue;
                if (is_portal_leaf(other)) {
                    touch_portal(c, other);
                    continue;
                }
                if (other->area) continue;
                other->area = c->area;
                ARRAY_PUSH(c->queue, c->nqueue, c->cap, other);
            }
        }
        head += nb;
    }
}

static void find_areas_r(area_ctx_t *c, node_t *node)
{
    if (node->planenum != PLANENUM_LEAF) {
        find_areas_r(c, node->children[0]);
        find_areas_r(c, node->children[1]);
        return;
    }
    if (node->area || (node->contents & CONTENTS_SOLID) || !node->occupied || is_portal_leaf(node)) return;
    c->area++;
    flood_area(c, node);
}

static void set_portal_leaf_areas_r(area_ctx_t *c, node_t *node)
{
    if (node->planenum != PLANENUM_LEAF) {
        set_portal_leaf_areas_r(c, node->children[0]);
        set_portal_leaf_areas_r(c, node->children[1]);
        return;
    }
    if (!is_portal_leaf(node) || node->area) return;
    int e = leaf_portal_entity(c->q, node);
    if (e >= 0 && c->em->ent_portalareas[e][0] > 0) node->area = c->em->ent_portalareas[e][0];
}

bool areas_flood(qbsp_t *q, tree_t *tree, q2err_t *err)
{
    qbsp_emit_t *em = emit_get(q);
    int ne = q->map.numentities;
    free(em->ent_portalnum);
    free(em->ent_portalareas);
    em->ent_portalnum = q2_calloc(ne > 0 ? ne : 1, sizeof(int));
    em->ent_portalareas = q2_calloc(ne > 0 ? ne : 1, sizeof *em->ent_portalareas);
    em->numentities = ne;
    em->numareaportals = 0;
    for (int e = 0; e < ne; e++) {
        entity_t *ent = &q->map.entities[e].ent;
        if (strcmp(entity_classname(ent), "func_areaportal") != 0) continue;
        em->ent_portalnum[e] = ++em->numareaportals;
        char buf[16];
        snprintf(buf, sizeof buf, "%d", em->ent_portalnum[e]);
        entity_set(ent, "style", buf);
    }

    area_ctx_t c = {.q = q, .em = em};
    if (tree && tree->headnode) {
        find_areas_r(&c, tree->headnode);
        set_portal_leaf_areas_r(&c, tree->headnode);
    }
    free(c.queue);
    portal_batch_free(&c.pb);
    q->numareas = c.area;
    em->areas_done = true;
    log_verbose(q->log, "%6d areas, %d areaportals", c.area, em->numareaportals);

    for (int e = 0; e < ne; e++) {
        if (!em->ent_portalnum[e]) continue;
        const int *pa = em->ent_portalareas[e];
        if (pa[0] > 0 && pa[1] > 0) continue;
        /* A leaked map floods the void too; its bsp is only for looking at
         * the leak, so areas are not worth failing it for. */
        if (q->leaked_entity >= 0) {
            log_warn(q->log, "func_areaportal entity %d (line %d) does not separate two areas (the map leaks)", e,
                     q->map.entities[e].ent.line);
            continue;
        }
        const entity_t *ent = &q->map.entities[e].ent;
        const char *org = entity_get(ent, "origin");
        const char *why = pa[1] < 0 ? "touches more than two areas"
                          : pa[0] > 0 ? "touches only one area"
                                      : "touches no area (it is inside solid or outside the map)";
        return q2err_set(err, q->map.path, ent->line, 0,
                         "func_areaportal (entity %d%s%s) %s; an areaportal must separate exactly two areas", e,
                         org ? ", origin " : "", org ? org : "", why);
    }
    if (c.area > MAX_MAP_AREAS - 1)
        return q2err_set(err, q->map.path, 0, 0, "MAX_MAP_AREAS exceeded: %d > %d", c.area + 1, MAX_MAP_AREAS);
    return true;
}
