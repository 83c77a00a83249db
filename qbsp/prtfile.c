#include "prtfile.h"

#include <stdlib.h>

#include "../common/mem.h"
#include "../formats/prt.h"
#include "../formats/q2defs.h"
#include "portals.h"

/* Whether vis can see through a portal (qbsp3's Portal_VisFlood): never
 * through solid or into the void; translucent and detail contents do not
 * block; otherwise only through portals whose visible contents agree. */
static bool portal_vis_flood(const portal_t *p)
{
    if (!p->onnode) return false;
    int c1 = portals_cluster_contents(p->nodes[0]);
    int c2 = portals_cluster_contents(p->nodes[1]);
    if (!visible_contents(c1 ^ c2)) return true;
    if (c1 & (CONTENTS_TRANSLUCENT | CONTENTS_DETAIL)) c1 = 0;
    if (c2 & (CONTENTS_TRANSLUCENT | CONTENTS_DETAIL)) c2 = 0;
    if ((c1 | c2) & CONTENTS_SOLID) return false;
    if (!(c1 ^ c2)) return true;
    if (!visible_contents(c1 ^ c2)) return true;
    return false;
}

static void collect_r(node_t *node, prt_t *prt, int *cap)
{
    if (node->planenum != PLANENUM_LEAF && !node->detail_seperator) {
        collect_r(node->children[0], prt, cap);
        collect_r(node->children[1], prt, cap);
        return;
    }
    if (node->cluster < 0) return;
    int s;
    for (portal_t *p = node->portals; p; p = p->next[s]) {
        s = p->nodes[1] == node;
        if (s != 0 || !p->winding) continue;
        if (!portal_vis_flood(p)) continue;
        int c0 = p->nodes[0]->cluster, c1 = p->nodes[1]->cluster;
        if (c0 < 0 || c1 < 0 || c0 == c1) continue;
        /* The winding's own plane normal must point from cluster A into B;
         * near an axis change the winding can come out turned around. */
        vec3_t normal;
        double dist;
        winding_plane(p->winding, &normal, &dist);
        prt_portal_t pp;
        if (vec_dot(p->plane.normal, normal) < 0.99) {
            pp.cluster[0] = c1;
            pp.cluster[1] = c0;
        } else {
            pp.cluster[0] = c0;
            pp.cluster[1] = c1;
        }
        pp.winding = p->winding;
        prt->portals = q2_grow(prt->portals, sizeof *prt->portals, cap, prt->numportals + 1);
        prt->portals[prt->numportals++] = pp;
    }
}

bool prtfile_write(const qbsp_t *q, tree_t *tree, int numclusters, const char *path, int *numportals, q2err_t *err)
{
    portals_free_tree(tree);
    portals_make_tree(q, tree, true, NULL);
    prt_t prt = {0};
    prt.numclusters = numclusters;
    int cap = 0;
    collect_r(tree->headnode, &prt, &cap);
    bool ok = prt_write_file(path, &prt, err);
    if (numportals) *numportals = prt.numportals;
    free(prt.portals); /* the windings belong to the tree */
    return ok;
}
