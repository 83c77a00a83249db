/* Portals between the leaves of a tree, the flood from entities, filling
 * the outside, visible sides and clusters (qbsp3's portals.c).
 *
 * Order for the world: portals_make_tree, portals_flood_entities (a leak
 * when an entity's flood reaches tree->outside_node), portals_fill_outside
 * when sealed, portals_mark_visible_sides, portals_number_clusters. Brush
 * models skip the flood and the fill. */
#ifndef Q2M_QBSP_PORTALS_H
#define Q2M_QBSP_PORTALS_H

#include <stdbool.h>

#include "qbsp.h"

typedef struct portal_stats_t {
    int portals;      /* between leafs (and the outside) */
    int tiny;         /* dropped as too small */
} portal_stats_t;

/* Builds portals down to the leafs (or, with stop_at_detail, down to the
 * detail separators only: one "leaf" per cluster, as the .prt needs), six
 * outer portals joining the tree to tree->outside_node. The tree has none
 * yet (a new tree, or one after portals_free_tree). The portals, their
 * windings and noclip pairs are the tree's (tree_t.portals): nothing
 * else frees or grows them. */
void portals_make_tree(const qbsp_t *q, tree_t *tree, bool stop_at_detail, portal_stats_t *stats);

/* Frees every portal of the tree and clears the node lists. */
void portals_free_tree(tree_t *tree);
/* Frees every portal of a tree about to be freed, leaving the node lists
 * as they are (tree_free). */
void portals_release(tree_t *tree);

/* The strongest visible contents bit of c (SOLID..MIST), 0 if none. */
int visible_contents(int c);

/* Floods from every entity with an origin (entities other than the world;
 * origins nudged 1 unit up; info_player_start also tried at nearby points)
 * through non-solid leafs. Sets node->occupied (flood distance, 1 at the
 * entity), occupant and occupant_index. Returns the number of entities
 * placed in open space. When the flood reaches the outside, sets
 * q->leaked_entity (else -1). */
int portals_flood_entities(qbsp_t *q, tree_t *tree);

/* Makes every leaf the flood did not reach solid; returns how many
 * non-solid leafs were filled. */
int portals_fill_outside(tree_t *tree);

/* The portal lists of up to PORTAL_BATCH leafs, for the floods (the
 * entities' in portals.c, the areas' in areas.c): a leaf's list is linked through its portals, and walking one
 * waits on memory at every portal, so the lists of a batch are walked side
 * by side, their loads overlapping; list[b] holds leafs[b]'s portals in
 * list order (none for `skip`, the outside node). */
#define PORTAL_BATCH 16
typedef struct portal_batch_t {
    portal_t **list[PORTAL_BATCH];
    int len[PORTAL_BATCH], cap[PORTAL_BATCH];
} portal_batch_t;

void portals_gather(portal_batch_t *pb, node_t *const *leafs, int n, const node_t *skip);
void portal_batch_free(portal_batch_t *pb);

/* Clears `visible` on the sides of map brushes first..first+count-1, then
 * finds for every portal between different contents the map brush side
 * that draws it (portal->side) and marks that side visible. */
void portals_mark_visible_sides(qbsp_t *q, tree_t *tree, int first, int count);

/* Numbers the clusters: every non-solid leaf is a cluster, except that all
 * leafs below a detail separator share one; a separator with both open
 * leafs and structural solid (a wall, filled void) below it is first made
 * structural, so no cluster reaches past a wall. Solid leafs get -1. Returns
 * the number of clusters. With world == false every leaf gets -1 (brush
 * models are not part of the PVS). */
int portals_number_clusters(tree_t *tree, bool world);

/* Contents of a cluster node (a leaf or a detail separator): the union of
 * its leafs, without SOLID unless every part is solid. */
int portals_cluster_contents(const node_t *node);

#endif
