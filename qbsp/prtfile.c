#include "prtfile.h"

#include <stdlib.h>

#include "../common/mem.h"
#include "../formats/prt.h"
#include "../formats/q2defs.h"
#include "portals.h"

/* Whether vis can see between clusters of contents c1 and c2 (qbsp3's
 * Portal_VisFlood): never through solid; translucent and detail contents do
 * not block; otherwise only where the visible contents agree. */
static bool contents_vis_flood(int c1, int c2)
{
    if (!visible_contents(c1 ^ c2)) return true;
    if (c1 & (CONTENTS_TRANSLUCENT | CONTENTS_DETAIL)) c1 = 0;
    if (c2 & (CONTENTS_TRANSLUCENT | CONTENTS_DETAIL)) c2 = 0;
    if ((c1 | c2) & CONTENTS_SOLID) return false;
    if (!(c1 ^ c2)) return true;
    if (!visible_contents(c1 ^ c2)) return true;
    return false;
}

/* The contents of a cluster's structural leafs (those no detail brush
 * reaches), or -1 when every leaf of it is detail. */
static int structural_contents_r(const node_t *node)
{
    if (node->planenum == PLANENUM_LEAF) return (node->contents & CONTENTS_DETAIL) ? -1 : node->contents;
    int c1 = structural_contents_r(node->children[0]);
    int c2 = structural_contents_r(node->children[1]);
    if (c1 < 0) return c2;
    if (c2 < 0) return c1;
    int c = c1 | c2;
    if (!(c1 & CONTENTS_SOLID) || !(c2 & CONTENTS_SOLID)) c &= ~CONTENTS_SOLID;
    return c;
}

/* Never through a portal into the void. qbsp3's rule on the whole cluster's
 * contents counts a cluster that holds any detail leaf as contentless, so a
 * water cluster with a detail brush standing in it stopped matching the
 * water cluster beside it and the portal between them was dropped (lq_e3m4:
 * a water channel cut off from vis). The portal is now also kept when the
 * two clusters' structural contents agree; the old rule still applies, so
 * no portal that qbsp3 keeps is lost. */
static bool portal_vis_flood(const portal_t *p)
{
    if (!p->onnode) return false;
    if (contents_vis_flood(portals_cluster_contents(p->nodes[0]), portals_cluster_contents(p->nodes[1])))
        return true;
    int s1 = structural_contents_r(p->nodes[0]), s2 = structural_contents_r(p->nodes[1]);
    return s1 >= 0 && s2 >= 0 && contents_vis_flood(s1, s2);
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
