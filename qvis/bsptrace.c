#include "qvis.h"

#include "../formats/q2defs.h"

static double plane_side(const bsp_t *bsp, int planenum, vec3_t p)
{
    const dplane_t *pl = &bsp->planes[planenum];
    return pl->normal[0] * p.x + pl->normal[1] * p.y + pl->normal[2] * p.z - pl->dist;
}

static bool valid_node(const bsp_t *bsp, int node)
{
    return node >= 0 && node < bsp->numnodes && bsp->nodes[node].planenum >= 0 &&
           bsp->nodes[node].planenum < bsp->numplanes;
}

int bsp_point_leaf(const bsp_t *bsp, vec3_t p)
{
    if (bsp->numnodes == 0) return bsp->numleafs > 0 ? 0 : -1;
    int node = bsp->nummodels > 0 ? bsp->models[0].headnode : 0;
    /* a well-formed tree is acyclic; the step limit guards malformed input */
    for (int steps = 0; steps <= bsp->numnodes; steps++) {
        if (node < 0) {
            int leaf = -node - 1;
            return leaf < bsp->numleafs ? leaf : -1;
        }
        if (!valid_node(bsp, node)) return -1;
        const dnode_t *n = &bsp->nodes[node];
        node = n->children[plane_side(bsp, n->planenum, p) >= 0 ? 0 : 1];
    }
    return -1;
}

static bool leaf_blocks(const bsp_t *bsp, int leaf)
{
    if (leaf < 0 || leaf >= bsp->numleafs) return true;
    const dleaf_t *l = &bsp->leafs[leaf];
    return (l->contents & CONTENTS_SOLID) || l->cluster < 0;
}

/* The contents that make a boundary opaque to vis, as qbsp3 decides which
 * portals are vis portals: translucent and detail volumes count as empty,
 * and a change of visible contents (air to non-translucent water, say)
 * blocks sight like a wall. */
static int vis_contents(int contents)
{
    if (contents & (CONTENTS_TRANSLUCENT | CONTENTS_DETAIL)) return 0;
    return contents & (LAST_VISIBLE_CONTENTS * 2 - 1);
}

typedef struct trace_t {
    int last; /* visible contents of the previous leaf, -1 before the first */
    int *leafs; /* when not NULL, the leafs visited are recorded here */
    int max, count;
} trace_t;

static bool seg_r(const bsp_t *bsp, trace_t *tr, int node, vec3_t a, vec3_t b, int depth)
{
    if (depth > bsp->numnodes + 1) return false;
    if (node < 0) {
        int leaf = -node - 1;
        if (tr->leafs && tr->count < tr->max) tr->leafs[tr->count] = leaf;
        tr->count++;
        if (leaf_blocks(bsp, leaf)) return false;
        int c = vis_contents(bsp->leafs[leaf].contents);
        if (tr->last >= 0 && c != tr->last) return false;
        tr->last = c;
        return true;
    }
    if (!valid_node(bsp, node)) return false;
    const dnode_t *n = &bsp->nodes[node];
    const double e = VIS_CHECK_CLEARANCE;
    double da = plane_side(bsp, n->planenum, a), db = plane_side(bsp, n->planenum, b);
    if (da >= e && db >= e) return seg_r(bsp, tr, n->children[0], a, b, depth + 1);
    if (da < -e && db < -e) return seg_r(bsp, tr, n->children[1], a, b, depth + 1);
    /* within the clearance of the plane: both sides get the part of the
     * segment that lies within the clearance of their half-space */
    vec3_t fa = a, fb = b, ba = a, bb = b;
    if (da < -e) fa = vec_lerp(a, b, (da + e) / (da - db));
    if (db < -e) fb = vec_lerp(a, b, (da + e) / (da - db));
    if (da > e) ba = vec_lerp(a, b, (da - e) / (da - db));
    if (db > e) bb = vec_lerp(a, b, (da - e) / (da - db));
    return seg_r(bsp, tr, n->children[0], fa, fb, depth + 1) && seg_r(bsp, tr, n->children[1], ba, bb, depth + 1);
}

bool bsp_segment_clear(const bsp_t *bsp, vec3_t a, vec3_t b)
{
    if (bsp->numnodes == 0) return false;
    int head = bsp->nummodels > 0 ? bsp->models[0].headnode : 0;
    trace_t tr = {-1, NULL, 0, 0};
    return seg_r(bsp, &tr, head, a, b, 0);
}

int bsp_segment_leafs(const bsp_t *bsp, vec3_t a, vec3_t b, int *leafs, int max)
{
    if (bsp->numnodes == 0) return 0;
    int head = bsp->nummodels > 0 ? bsp->models[0].headnode : 0;
    trace_t tr = {-1, leafs, max, 0};
    seg_r(bsp, &tr, head, a, b, 0);
    return tr.count;
}
