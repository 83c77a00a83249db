#include "portals.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "../common/threads.h"
#include "../formats/q2defs.h"
#include "brushbsp.h"
#include "csg.h"

/* Clipping tolerances for portal windings (qbsp3's BASE_WINDING_EPSILON,
 * SPLIT_WINDING_EPSILON and the 0.1 used against the node's own portals):
 * small enough to keep real portals, large enough that a winding lying on
 * a clipping plane is not split into slivers. */
#define BASE_WINDING_EPSILON 0.001
#define SPLIT_WINDING_EPSILON 0.001
#define NODE_PORTAL_EPSILON 0.1
/* Only portal windings without area (qbsp_winding_tiny) are dropped. qbsp3
 * also dropped slivers with fewer than 3 edges longer than 0.2
 * (EDGE_LENGTH), but faces are made from portals: a sliver of wall between
 * brushes that came out as its own portal then had no face, a hole into
 * the void (lq_e3m4: a 0.17 x 0.9 triangle, seen by the crack check as a
 * key pixel). */

static void add_portal_to_nodes(portal_t *p, node_t *front, node_t *back)
{
    p->nodes[0] = front;
    p->next[0] = front->portals;
    front->portals = p;
    p->nodes[1] = back;
    p->next[1] = back->portals;
    back->portals = p;
}

static void remove_portal_from_node(portal_t *portal, node_t *l)
{
    portal_t **pp = &l->portals;
    while (*pp) {
        portal_t *t = *pp;
        if (t == portal) {
            *pp = t->nodes[0] == l ? t->next[0] : t->next[1];
            break;
        }
        pp = t->nodes[0] == l ? &t->next[0] : &t->next[1];
    }
    if (portal->nodes[0] == l) {
        portal->nodes[0] = NULL;
        portal->next[0] = NULL;
    } else if (portal->nodes[1] == l) {
        portal->nodes[1] = NULL;
        portal->next[1] = NULL;
    }
}

/* A tree's portals, their windings and _noclipfaces pairs live in its
 * pool (tree_t.portals): the portal builds split and drop them by the
 * hundred thousand, and the tree's portals go all at once, without a walk
 * over the tree and a free() for each. */
static size_t winding_bytes(int maxpoints) { return sizeof(winding_t) + sizeof(vec3_t) * (size_t)maxpoints; }

static winding_t *pool_winding(pool_t *pool, int maxpoints)
{
    winding_t *w = pool_alloc(pool, winding_bytes(maxpoints));
    w->numpoints = 0;
    w->maxpoints = maxpoints;
    return w;
}

static void pool_winding_free(pool_t *pool, winding_t *w)
{
    if (w) pool_free(pool, w, winding_bytes(w->maxpoints));
}

/* The points of w in a winding of the pool that fits them. */
static winding_t *pool_winding_copy(pool_t *pool, const winding_t *w)
{
    winding_t *c = pool_winding(pool, w->numpoints);
    c->numpoints = w->numpoints;
    memcpy(c->p, w->p, sizeof(vec3_t) * (size_t)w->numpoints);
    return c;
}

/* A malloc'd winding (from winding_split or a clip) moved into the pool. */
static winding_t *pool_winding_adopt(pool_t *pool, winding_t *w)
{
    if (!w) return NULL;
    winding_t *c = pool_winding_copy(pool, w);
    winding_free(w);
    return c;
}

/* A new portal, a copy of `from` or zeroed, on the live list. */
static portal_t *store_portal(portal_store_t *ps, const portal_t *from)
{
    portal_t *p = pool_alloc(&ps->pool, sizeof *p);
    if (from) *p = *from;
    else memset(p, 0, sizeof *p);
    ARRAY_PUSH(ps->live, ps->numlive, ps->caplive, p);
    p->live_index = ps->numlive - 1;
    return p;
}

/* Takes p off the store's live list (the last one takes its place). */
static void store_unlist(portal_store_t *ps, portal_t *p)
{
    portal_t *last = ps->live[--ps->numlive];
    ps->live[p->live_index] = last;
    last->live_index = p->live_index;
}

static void store_portal_free(portal_store_t *ps, portal_t *p)
{
    store_unlist(ps, p);
    pool_winding_free(&ps->pool, p->winding);
    if (p->noclip) pool_free(&ps->pool, p->noclip, sizeof *p->noclip);
    pool_free(&ps->pool, p, sizeof *p);
}

static void store_release(portal_store_t *ps)
{
    pool_release(&ps->pool);
    free(ps->live);
    free(ps->more);
    ps->live = ps->more = NULL;
    ps->numlive = ps->caplive = ps->nummore = 0;
}

/* Blocks of a tree's portal pool: far below the allocator's mmap
 * threshold, so they come from (and go back to) the heap. */
#define PORTAL_POOL_BLOCK ((size_t)64 << 10)

static void make_headnode_portals(tree_t *tree)
{
    portal_store_t *ps = &tree->portals;
    pool_t *pool = &ps->pool;
    node_t *node = tree->headnode;
    vec3_t lo = vec_sub(tree->bounds.mins, vec3(SIDESPACE, SIDESPACE, SIDESPACE));
    vec3_t hi = vec_add(tree->bounds.maxs, vec3(SIDESPACE, SIDESPACE, SIDESPACE));
    tree->outside_node.planenum = PLANENUM_LEAF;
    tree->outside_node.portals = NULL;
    tree->outside_node.contents = 0;
    tree->outside_node.cluster = -1;
    portal_t *portals[6];
    plane_t planes[6];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++) {
            int n = j * 3 + i;
            plane_t *pl = &planes[n];
            memset(pl, 0, sizeof *pl);
            if (j) {
                vec_set_comp(&pl->normal, i, -1);
                pl->dist = -vec_comp(hi, i);
            } else {
                vec_set_comp(&pl->normal, i, 1);
                pl->dist = vec_comp(lo, i);
            }
            pl->type = plane_type_for_normal(pl->normal);
            portal_t *p = store_portal(ps, NULL);
            p->plane = *pl;
            p->winding = winding_for_plane(pl->normal, pl->dist, WORLD_EXTENT);
            portals[n] = p;
            add_portal_to_nodes(p, node, &tree->outside_node);
        }
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            if (i == j || !portals[i]->winding) continue;
            portals[i]->winding = winding_clip(portals[i]->winding, planes[j].normal, planes[j].dist, ON_EPSILON, false);
        }
    for (int i = 0; i < 6; i++) portals[i]->winding = pool_winding_adopt(pool, portals[i]->winding);
}

static winding_t *base_winding_for_node(const qbsp_t *q, const node_t *node)
{
    const plane_t *p = plane_table_get(&q->planes, node->planenum);
    winding_t *w = qbsp_chain_for_plane(p->normal, p->dist);
    for (const node_t *n = node->parent; n && w; node = n, n = n->parent) {
        const plane_t *pl = plane_table_get(&q->planes, n->planenum);
        if (n->children[0] == node)
            w = qbsp_chain_clip(w, pl->normal, pl->dist, BASE_WINDING_EPSILON, false);
        else
            w = qbsp_chain_clip(w, vec_neg(pl->normal), -pl->dist, BASE_WINDING_EPSILON, false);
    }
    return w;
}

static void make_node_portal(const qbsp_t *q, blockcache_t *bc, portal_store_t *ps, node_t *node,
                             portal_stats_t *st)
{
    winding_t *w = node->portal_base ? qbsp_chain_copy_bc(bc, node->portal_base) : base_winding_for_node(q, node);
    int side = 0;
    /* Most of the node's portals bound its region, so they do not cut the
     * new portal (which spans it). Against an axial plane (an exact unit
     * axis, plane_snap) a point's distance is +-coordinate - dist, monotone
     * in the coordinate even rounded, so the winding's bounds give its
     * nearest and farthest points' distances exactly: with none behind the
     * epsilon and some in front of it, qbsp_chain_clip would hand w back
     * as it is. The bounds are taken again after a clip. */
    aabb_t wb;
    bool have_wb = false;
    for (portal_t *p = node->portals; p && w; p = p->next[side]) {
        side = p->nodes[0] == node ? 0 : 1;
        vec3_t normal = side == 0 ? p->plane.normal : vec_neg(p->plane.normal);
        double dist = side == 0 ? p->plane.dist : -p->plane.dist;
        if (p->plane.type < 3 && w->numpoints > 0) {
            if (!have_wb) {
                wb = aabb_empty();
                for (int i = 0; i < w->numpoints; i++) {
                    const vec3_t pt = w->p[i];
                    if (pt.x < wb.mins.x) wb.mins.x = pt.x;
                    if (pt.x > wb.maxs.x) wb.maxs.x = pt.x;
                    if (pt.y < wb.mins.y) wb.mins.y = pt.y;
                    if (pt.y > wb.maxs.y) wb.maxs.y = pt.y;
                    if (pt.z < wb.mins.z) wb.mins.z = pt.z;
                    if (pt.z > wb.maxs.z) wb.maxs.z = pt.z;
                }
                have_wb = true;
            }
            int axis = p->plane.type;
            double sgn = vec_comp(normal, axis);
            double lo = vec_comp(wb.mins, axis) * sgn - dist, hi = vec_comp(wb.maxs, axis) * sgn - dist;
            double nearest = sgn > 0 ? lo : hi, farthest = sgn > 0 ? hi : lo;
            if (!(nearest < -NODE_PORTAL_EPSILON) && farthest > NODE_PORTAL_EPSILON) continue;
        }
        w = qbsp_chain_clip(w, normal, dist, NODE_PORTAL_EPSILON, false);
        have_wb = false;
    }
    if (!w) return;
    if (qbsp_winding_tiny(w)) {
        st->tiny++;
        bc_winding_free(bc, w);
        return;
    }
    portal_t *np = store_portal(ps, NULL);
    st->portals++;
    np->plane = *plane_table_get(&q->planes, node->planenum);
    np->onnode = node;
    np->winding = pool_winding_copy(&ps->pool, w);
    bc_winding_free(bc, w);
    add_portal_to_nodes(np, node->children[0], node->children[1]);
}

/* Where winding_split(w, normal, dist, eps) would put all of w: SIDE_FRONT
 * or SIDE_BACK, by the same tests; SIDE_CROSS when it would cut it. */
static int winding_whole_side(const winding_t *w, vec3_t normal, double dist, double eps)
{
    int side = winding_on_side(w, normal, dist, eps);
    if (side != SIDE_ON) return side;
    vec3_t wn;
    double wd;
    winding_plane(w, &wn, &wd);
    return vec_dot(wn, normal) > 0 ? SIDE_FRONT : SIDE_BACK;
}

/* winding_split(w, normal, dist, eps) for a winding winding_whole_side
 * found crossing the plane, its halves taken from the pool. */
static void split_crossing(pool_t *pool, const winding_t *w, vec3_t normal, double dist, double eps,
                           winding_t **front, winding_t **back)
{
    enum { MAXP = 64 };
    int n = w->numpoints;
    double dists[MAXP + 1];
    int sides[MAXP + 1], counts[3];
    if (n + 1 <= MAXP) {
        winding_classify(w->p, n, normal, dist, eps, dists, sides, counts);
        if (counts[SIDE_FRONT] && counts[SIDE_BACK]) {
            int crossings = winding_crossings(sides, n);
            *front = pool_winding(pool, counts[SIDE_FRONT] + counts[SIDE_ON] + crossings);
            *back = pool_winding(pool, counts[SIDE_BACK] + counts[SIDE_ON] + crossings);
            winding_split_sides_into(w, normal, dist, dists, sides, *front, *back);
            return;
        }
    }
    winding_split(w, normal, dist, eps, front, back);
    *front = pool_winding_adopt(pool, *front);
    *back = pool_winding_adopt(pool, *back);
}

/* What becomes of a portal's winding w at a node's plane: -1 it is dropped
 * (too small, whole or in both halves), 0 or 1 it goes whole to the front
 * or back child (where only that half of a cut is big enough, w is kept
 * and the half dropped), 2 it is cut into *fw and *bw (from the pool).
 * *tiny counts the windings and halves dropped as too small. Shared by the
 * walk (split_node_portals) and the back half's forecast (half_sim_r). */
static inline int cut_portal(pool_t *pool, const winding_t *w, const plane_t *plane, winding_t **fw, winding_t **bw,
                             int *tiny)
{
    *fw = *bw = NULL;
    int whole = winding_whole_side(w, plane->normal, plane->dist, SPLIT_WINDING_EPSILON);
    if (whole != SIDE_CROSS) {
        /* What winding_split would copy to one side, kept as it is. */
        if (qbsp_winding_tiny(w)) {
            (*tiny)++;
            return -1;
        }
        return whole == SIDE_FRONT ? 0 : 1;
    }
    winding_t *f, *b;
    split_crossing(pool, w, plane->normal, plane->dist, SPLIT_WINDING_EPSILON, &f, &b);
    if (f && qbsp_winding_tiny(f)) {
        pool_winding_free(pool, f);
        f = NULL;
        (*tiny)++;
    }
    if (b && qbsp_winding_tiny(b)) {
        pool_winding_free(pool, b);
        b = NULL;
        (*tiny)++;
    }
    if (!f && !b) return -1;
    if (!f || !b) {
        pool_winding_free(pool, f ? f : b);
        return f ? 0 : 1;
    }
    *fw = f;
    *bw = b;
    return 2;
}

/* A portal cut_portal cut in two: p keeps the front half, the copy it
 * returns the back. */
static portal_t *split_off(portal_store_t *ps, portal_t *p, winding_t *fw, winding_t *bw)
{
    portal_t *np = store_portal(ps, p);
    np->winding = bw;
    pool_winding_free(&ps->pool, p->winding);
    p->winding = fw;
    return np;
}

static void split_node_portals(const qbsp_t *q, portal_store_t *ps, node_t *node, portal_stats_t *st)
{
    pool_t *pool = &ps->pool;
    const plane_t *plane = plane_table_get(&q->planes, node->planenum);
    node_t *f = node->children[0], *b = node->children[1];
    portal_t *next;
    int tiny = 0;
    for (portal_t *p = node->portals; p; p = next) {
        int side = p->nodes[0] == node ? 0 : 1;
        next = p->next[side];
        node_t *other = p->nodes[!side];
        remove_portal_from_node(p, p->nodes[0]);
        remove_portal_from_node(p, p->nodes[1]);

        winding_t *fw, *bw;
        int c = cut_portal(pool, p->winding, plane, &fw, &bw, &tiny);
        if (c < 0) {
            store_portal_free(ps, p);
            st->portals--;
            continue;
        }
        if (c < 2) {
            node_t *to = c == 0 ? f : b;
            if (side == 0)
                add_portal_to_nodes(p, to, other);
            else
                add_portal_to_nodes(p, other, to);
            continue;
        }
        portal_t *np = split_off(ps, p, fw, bw);
        st->portals++;
        if (side == 0) {
            add_portal_to_nodes(p, f, other);
            add_portal_to_nodes(np, b, other);
        } else {
            add_portal_to_nodes(p, other, f);
            add_portal_to_nodes(np, other, b);
        }
    }
    st->tiny += tiny;
    node->portals = NULL;
}

static void make_tree_portals_r(const qbsp_t *q, blockcache_t *bc, portal_store_t *ps, node_t *node,
                                bool stop_at_detail, portal_stats_t *st)
{
    if (node->planenum == PLANENUM_LEAF) return;
    if (stop_at_detail && node->detail_seperator) return;
    make_node_portal(q, bc, ps, node, st);
    split_node_portals(q, ps, node, st);
    make_tree_portals_r(q, bc, ps, node->children[0], stop_at_detail, st);
    make_tree_portals_r(q, bc, ps, node->children[1], stop_at_detail, st);
}

/* --- The root's two halves at once -------------------------------------------
 *
 * The walk above makes the front half's portals, then the back half's, and
 * the halves meet in few places: the root's own portal (on both children's
 * lists, split by the front half's planes before the back half sees its
 * pieces), the outside node (whose list both halves' outer portals are
 * on), and the front half's end nodes that hold the root portal's pieces
 * (which the back half splits further). So with two threads the back half
 * is made beside the front one, from what it would receive:
 *
 * - the root portal's pieces as the front half leaves them are worked out
 *   first on the back half's thread (half_sim_r: the same splits of the
 *   same windings at the same nodes, in the same order), and so is their
 *   order on the back child's list (each prepended there whenever the
 *   front half moves it, so the last moved comes first);
 * - the front half works on the root portal itself with a stand-in for the
 *   back child; the back half's portals lead to stand-ins for the outside
 *   and for the front half's end nodes; each half has its own portal store
 *   and cache;
 * - afterwards the front half's pieces of the root portal give way to the
 *   back half's (which went on from the same pieces), and the outside's and
 *   each end node's list becomes the back half's prepends onto its
 *   stand-in, then its own list (without the front half's root pieces): a
 *   list is its members in the reverse of the order they were last
 *   prepended, the back half's after the front half's, and the back half
 *   moves every portal its child's list held (the child splits its whole
 *   list), so none stays where it stood.
 *
 * The portals, their windings and every list come out as the walk's
 * (test_qbsp_stages compares them list by list); which memory holds them
 * differs. Taken outside a parallel region, where the root and both
 * children are split nodes and the tree has HALVES_MIN_NODES split nodes or
 * more (qbsp_options_t.halves_min_nodes where set): a choice, not a
 * measured optimum, that leaves brush models and small maps to the walk. */
#define HALVES_MIN_NODES 2048

static bool ends_walk(const node_t *n, bool stop_at_detail)
{
    return n->planenum == PLANENUM_LEAF || (stop_at_detail && n->detail_seperator);
}

/* The tree's split nodes, counted up to about `need` (the walk stops there). */
static int count_nodes_upto(const node_t *n, int need)
{
    if (n->planenum == PLANENUM_LEAF || need <= 0) return 0;
    int c = 1 + count_nodes_upto(n->children[0], need - 1);
    return c + count_nodes_upto(n->children[1], need - c);
}

static node_t *stand_in(void)
{
    node_t *d = q2_calloc(1, sizeof *d);
    d->planenum = PLANENUM_LEAF;
    d->cluster = -1;
    d->outputnumber = -1;
    return d;
}

/* Moves p from one store's live list to another's (its memory stays). */
static void store_move(portal_store_t *from, portal_store_t *to, portal_t *p)
{
    store_unlist(from, p);
    ARRAY_PUSH(to->live, to->numlive, to->caplive, p);
    p->live_index = to->numlive - 1;
}

/* A piece of the root portal and when it was last prepended onto the back
 * child's list. */
typedef struct half_piece_t {
    portal_t *p;
    long stamp;
} half_piece_t;

typedef struct half_end_t {
    node_t *end, *stand;
} half_end_t;

typedef struct half_sim_t {
    const qbsp_t *q;
    portal_store_t *ps; /* the back half's */
    bool stop_at_detail;
    long stamp;
    half_piece_t *out; /* the pieces at the front half's end nodes */
    int nout, capout;
    half_end_t *ends; /* those end nodes, each with its stand-in */
    int nends, capends;
} half_sim_t;

/* split_node_portals and make_tree_portals_r on the root portal's pieces
 * alone: list holds node's pieces in its list's order. */
static void half_sim_r(half_sim_t *s, node_t *node, half_piece_t *list, int n)
{
    if (n == 0) return;
    if (ends_walk(node, s->stop_at_detail)) {
        node_t *d = stand_in();
        half_end_t e = {node, d};
        ARRAY_PUSH(s->ends, s->nends, s->capends, e);
        for (int i = 0; i < n; i++) {
            list[i].p->nodes[0] = d;
            ARRAY_PUSH(s->out, s->nout, s->capout, list[i]);
        }
        return;
    }
    pool_t *pool = &s->ps->pool;
    const plane_t *plane = plane_table_get(&s->q->planes, node->planenum);
    half_piece_t *kid[2] = {q2_malloc(sizeof(half_piece_t) * (size_t)n), q2_malloc(sizeof(half_piece_t) * (size_t)n)};
    int nk[2] = {0, 0};
    int tiny = 0; /* (counted by the front half's walk) */
    for (int i = 0; i < n; i++) {
        portal_t *p = list[i].p;
        winding_t *fw, *bw;
        int c = cut_portal(pool, p->winding, plane, &fw, &bw, &tiny);
        if (c < 0) {
            store_portal_free(s->ps, p);
            continue;
        }
        if (c < 2) {
            kid[c][nk[c]++] = (half_piece_t){p, ++s->stamp};
            continue;
        }
        portal_t *np = split_off(s->ps, p, fw, bw);
        kid[0][nk[0]++] = (half_piece_t){p, ++s->stamp};
        kid[1][nk[1]++] = (half_piece_t){np, ++s->stamp};
    }
    /* each child's list: the last prepended first */
    for (int c = 0; c < 2; c++)
        for (int i = 0, j = nk[c] - 1; i < j; i++, j--) {
            half_piece_t t = kid[c][i];
            kid[c][i] = kid[c][j];
            kid[c][j] = t;
        }
    half_sim_r(s, node->children[0], kid[0], nk[0]);
    half_sim_r(s, node->children[1], kid[1], nk[1]);
    free(kid[0]);
    free(kid[1]);
}

static int cmp_stamp_desc(const void *a, const void *b)
{
    long x = ((const half_piece_t *)a)->stamp, y = ((const half_piece_t *)b)->stamp;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The back half on its thread: the root portal's pieces as the front half
 * will leave them put at the head of the back child's list, then its walk. */
static void back_half(const qbsp_t *q, blockcache_t *bc, half_sim_t *sim, portal_t *root_copy, node_t *front,
                      node_t *back, portal_stats_t *st)
{
    if (root_copy) {
        half_piece_t first = {root_copy, 0};
        half_sim_r(sim, front, &first, 1);
    }
    qsort(sim->out, (size_t)sim->nout, sizeof *sim->out, cmp_stamp_desc);
    for (int i = sim->nout - 1; i >= 0; i--) {
        portal_t *p = sim->out[i].p;
        add_portal_to_nodes(p, p->nodes[0], back);
    }
    make_tree_portals_r(q, bc, sim->ps, back, sim->stop_at_detail, st);
}

/* node's list becomes the back half's prepends onto its stand-in (relinked
 * to node), then node's own: the walk's order (above). */
static void join_stand_in(node_t *node, node_t *stand)
{
    portal_t *rest = node->portals, **tail = &node->portals;
    for (portal_t *p = stand->portals; p;) {
        int s = p->nodes[0] == stand ? 0 : 1;
        p->nodes[s] = node;
        *tail = p;
        tail = &p->next[s];
        p = p->next[s];
    }
    *tail = rest;
}

static void make_halves(const qbsp_t *q, blockcache_t *bc, tree_t *tree, bool stop_at_detail, portal_stats_t *st)
{
    portal_store_t *psa = &tree->portals;
    node_t *root = tree->headnode, *front = root->children[0], *back = root->children[1];
    node_t *outside = &tree->outside_node;
    make_node_portal(q, bc, psa, root, st);
    split_node_portals(q, psa, root, st);

    /* The root portal: on the front child's list with the back child. */
    portal_t *rootp = NULL;
    for (portal_t *p = front->portals; p; p = p->next[p->nodes[1] == front])
        if (p->nodes[0] == front && p->nodes[1] == back) rootp = p;
    node_t *back_stand = stand_in(), *out_b = stand_in();
    if (rootp) {
        remove_portal_from_node(rootp, back);
        rootp->nodes[1] = back_stand;
        rootp->next[1] = NULL;
        back_stand->portals = rootp;
    }
    /* The back half's store takes the portals on the back child's list
     * (the root portal is off it now; the rest lead to the outside, whose
     * stand-in they move to: their order there does not matter, the back
     * child's split takes each off again). */
    portal_store_t psb;
    memset(&psb, 0, sizeof psb);
    pool_init(&psb.pool, PORTAL_POOL_BLOCK);
    for (portal_t *p = back->portals; p; p = p->next[p->nodes[1] == back]) {
        store_move(psa, &psb, p);
        int s = p->nodes[0] == back ? 1 : 0;
        remove_portal_from_node(p, outside);
        p->nodes[s] = out_b;
        p->next[s] = out_b->portals;
        out_b->portals = p;
    }
    portal_t *root_copy = NULL;
    if (rootp) {
        root_copy = store_portal(&psb, rootp);
        root_copy->winding = pool_winding_copy(&psb.pool, rootp->winding);
        root_copy->next[0] = root_copy->next[1] = NULL;
    }
    half_sim_t sim;
    memset(&sim, 0, sizeof sim);
    sim.q = q;
    sim.ps = &psb;
    sim.stop_at_detail = stop_at_detail;
    portal_stats_t stb;
    memset(&stb, 0, sizeof stb);
    blockcache_t bcb;
    memset(&bcb, 0, sizeof bcb);
#pragma omp parallel sections num_threads(2) default(none) \
    shared(q, bc, bcb, psa, front, back, root_copy, sim, stop_at_detail, st, stb)
    {
#pragma omp section
        make_tree_portals_r(q, bc, psa, front, stop_at_detail, st);
#pragma omp section
        back_half(q, &bcb, &sim, root_copy, front, back, &stb);
    }
    bc_release(&bcb);

    /* The front half's pieces of the root portal give way to the back's. */
    for (portal_t *p = back_stand->portals, *next; p; p = next) {
        next = p->next[1];
        remove_portal_from_node(p, p->nodes[0]);
        store_portal_free(psa, p);
    }
    for (int i = 0; i < sim.nends; i++) {
        join_stand_in(sim.ends[i].end, sim.ends[i].stand);
        free(sim.ends[i].stand);
    }
    join_stand_in(outside, out_b);
    free(back_stand);
    free(out_b);
    free(sim.out);
    free(sim.ends);

    /* One store again. */
    pool_absorb(&psa->pool, &psb.pool);
    psa->more = psb.live;
    psa->nummore = psb.numlive;
    st->portals += stb.portals;
    st->tiny += stb.tiny;
}

void portals_make_tree(const qbsp_t *q, tree_t *tree, bool stop_at_detail, portal_stats_t *stats)
{
    portal_stats_t st;
    memset(&st, 0, sizeof st);
    /* (the tree has no portals: a new one, or after portals_free_tree) */
    store_release(&tree->portals);
    pool_init(&tree->portals.pool, PORTAL_POOL_BLOCK);
    make_headnode_portals(tree);
    st.portals = 6;
    blockcache_t bc;
    memset(&bc, 0, sizeof bc);
    const node_t *root = tree->headnode;
    const int need = q->opt.halves_min_nodes > 0 ? q->opt.halves_min_nodes : HALVES_MIN_NODES;
    if (q->opt.threads > 1 && !threads_in_team() && !ends_walk(root, stop_at_detail) &&
        !ends_walk(root->children[0], stop_at_detail) && !ends_walk(root->children[1], stop_at_detail) &&
        count_nodes_upto(root, need) >= need)
        make_halves(q, &bc, tree, stop_at_detail, &st);
    else
        make_tree_portals_r(q, &bc, &tree->portals, tree->headnode, stop_at_detail, &st);
    bc_release(&bc);
    if (stats) *stats = st;
}

static void clear_portal_lists_r(node_t *node)
{
    node->portals = NULL;
    if (node->planenum != PLANENUM_LEAF) {
        clear_portal_lists_r(node->children[0]);
        clear_portal_lists_r(node->children[1]);
    }
}

void portals_free_tree(tree_t *tree)
{
    store_release(&tree->portals);
    if (tree->headnode) clear_portal_lists_r(tree->headnode);
    tree->outside_node.portals = NULL;
}

void portals_release(tree_t *tree) { store_release(&tree->portals); }

int visible_contents(int c)
{
    for (int i = 1; i <= LAST_VISIBLE_CONTENTS; i <<= 1)
        if (c & i) return i;
    return 0;
}

/* --- Flood ------------------------------------------------------------------ */

/* -nodetailseal: detail solid does not seal the map, as in ericw-tools
 * (where a structural brush overlaps it, the leaf is structural). */
static bool flood_passes(const qbsp_t *q, const node_t *n)
{
    return !(n->contents & CONTENTS_SOLID) || (q->opt.nodetailseal && n->detail_fill);
}

static bool portal_entity_flood(const qbsp_t *q, const portal_t *p)
{
    return flood_passes(q, p->nodes[0]) && flood_passes(q, p->nodes[1]);
}

/* Every node of the tree under head, a level at a time: the nodes of a
 * level are independent loads, where a recursive walk waits on memory at
 * each node (they are allocated one by one). For passes that touch every
 * node and whose result does not depend on the order. Returns the count;
 * *out is the caller's to free. */
static int tree_nodes(node_t *head, node_t ***out)
{
    int n = 0, cap = 1024;
    node_t **all = q2_malloc(sizeof *all * (size_t)cap);
    all[n++] = head;
    for (int lo = 0; lo < n;) {
        const int hi = n;
        for (int i = lo; i < hi; i++) {
            const node_t *x = all[i];
            if (x->planenum == PLANENUM_LEAF) continue;
            if (n + 2 > cap) {
                cap *= 2;
                all = q2_realloc(all, sizeof *all * (size_t)cap);
            }
            for (int c = 0; c < 2; c++) {
                __builtin_prefetch(x->children[c]);
                all[n++] = x->children[c];
            }
        }
        lo = hi;
    }
    *out = all;
    return n;
}

static void clear_occupied(node_t *head)
{
    node_t **all;
    const int n = tree_nodes(head, &all);
    for (int i = 0; i < n; i++) {
        all[i]->occupied = 0;
        all[i]->occupant = NULL;
        all[i]->occupant_index = -1;
    }
    free(all);
}

void portals_gather(portal_batch_t *pb, node_t *const *leafs, int n, const node_t *skip)
{
    portal_t *cur[PORTAL_BATCH];
    int walking = 0;
    for (int b = 0; b < n; b++) {
        cur[b] = leafs[b] == skip ? NULL : leafs[b]->portals;
        pb->len[b] = 0;
        walking += cur[b] != NULL;
    }
    while (walking > 0)
        for (int b = 0; b < n; b++) {
            portal_t *p = cur[b];
            if (!p) continue;
            if (pb->len[b] == pb->cap[b]) {
                pb->cap[b] = pb->cap[b] ? 2 * pb->cap[b] : 32;
                pb->list[b] = q2_realloc(pb->list[b], sizeof *pb->list[b] * (size_t)pb->cap[b]);
            }
            pb->list[b][pb->len[b]++] = p;
            const int s = p->nodes[1] == leafs[b];
            __builtin_prefetch(p->nodes[!s]);
            cur[b] = p->next[s];
            walking -= cur[b] == NULL;
        }
}

void portal_batch_free(portal_batch_t *pb)
{
    for (int b = 0; b < PORTAL_BATCH; b++) free(pb->list[b]);
    memset(pb, 0, sizeof *pb);
}

int portals_flood_entities(qbsp_t *q, tree_t *tree)
{
    clear_occupied(tree->headnode);
    tree->outside_node.occupied = 0;
    tree->outside_node.occupant = NULL;
    tree->outside_node.occupant_index = -1;
    q->leaked_entity = -1;

    node_t **queue = NULL;
    int qn = 0, qcap = 0, placed = 0;
    for (int e = 1; e < q->map.numentities; e++) {
        const map_entity_t *me = &q->map.entities[e];
        vec3_t origin;
        if (!entity_get_vec3(&me->ent, "origin", &origin)) continue;
        if (origin.x == 0 && origin.y == 0 && origin.z == 0) continue;
        origin.z += 1; /* objects resting on the floor are inside */
        node_t *leaf = NULL;
        bool start = strcmp(entity_classname(&me->ent), "info_player_start") == 0;
        /* A player start slightly inside a wall is still tried nearby, so
         * the flood has a start point for the player's box. */
        for (int dx = 0; dx < (start ? 3 : 1) && !leaf; dx++)
            for (int dy = 0; dy < (start ? 3 : 1) && !leaf; dy++) {
                vec3_t p = origin;
                static const double offs[3] = {0, -16, 16};
                p.x += offs[dx];
                p.y += offs[dy];
                node_t *l = tree_point_leaf(q, tree->headnode, p);
                if (!(l->contents & CONTENTS_SOLID)) leaf = l;
            }
        if (!leaf) continue;
        placed++;
        if (leaf->occupied) continue;
        leaf->occupied = 1;
        leaf->occupant = me;
        leaf->occupant_index = e;
        ARRAY_PUSH(queue, qn, qcap, leaf);
    }
    /* Breadth first, in the queue's order, the next PORTAL_BATCH queued
     * leafs' lists gathered at once (base1-test: 3-4 ms for its 2,700
     * inside leafs one list at a time) and the leafs then taken in order:
     * the same visits in the same order (no list changes during the
     * flood). */
    portal_batch_t pb = {0};
    for (int head = 0; head < qn;) {
        const int nb = qn - head < PORTAL_BATCH ? qn - head : PORTAL_BATCH;
        portals_gather(&pb, queue + head, nb, &tree->outside_node);
        for (int b = 0; b < nb; b++) {
            node_t *n = queue[head + b];
            for (int k = 0; k < pb.len[b]; k++) {
                portal_t *p = pb.list[b][k];
                const int s = p->nodes[1] == n;
                node_t *other = p->nodes[!s];
                if (other->occupied || !portal_entity_flood(q, p)) continue;
                other->occupied = n->occupied + 1;
                other->occupant = n->occupant;
                other->occupant_index = n->occupant_index;
                ARRAY_PUSH(queue, qn, qcap, other);
            }
        }
        head += nb;
    }
    portal_batch_free(&pb);
    free(queue);
    if (tree->outside_node.occupied) q->leaked_entity = tree->outside_node.occupant_index;
    return placed;
}

int portals_fill_outside(tree_t *tree)
{
    node_t **all;
    const int n = tree_nodes(tree->headnode, &all);
    int filled = 0;
    for (int i = 0; i < n; i++) {
        node_t *x = all[i];
        if (x->planenum != PLANENUM_LEAF || x->occupied) continue;
        filled += !(x->contents & CONTENTS_SOLID);
        x->contents = CONTENTS_SOLID;
    }
    free(all);
    return filled;
}

/* --- Visible sides ------------------------------------------------------------- */

/* The side on PLANENUM of a brush in LEAF holding contents C; a
 * _noclipfaces brush first. */
static side_t *leaf_side_on_plane(const node_t *leaf, int c, int planenum, const mapbrush_t **brushout)
{
    for (int pass = 0; pass < 2; pass++)
        for (const bspbrush_t *bb = leaf->brushlist; bb; bb = bb->next) {
            mapbrush_t *brush = bb->original;
            if (brush->noclipfaces != (pass == 0) || !(brush->contents & c)) continue;
            for (int i = 0; i < brush->numsides; i++) {
                side_t *side = &brush->original_sides[i];
                if (side->bevel || side->texinfo == TEXINFO_NODE || (side->planenum & ~1) != planenum) continue;
                *brushout = brush;
                return side;
            }
        }
    return NULL;
}

static bool leaf_has_noclip(const node_t *leaf, int c)
{
    for (const bspbrush_t *bb = leaf->brushlist; bb; bb = bb->next)
        if (bb->original->noclipfaces && (bb->original->contents & c)) return true;
    return false;
}

/* Where both leaves hold the same visible contents and a brush of a
 * _noclipfaces entity is in either: the faces between the brushes are
 * drawn (ericw-tools' _noclipfaces). Each leaf's brush shows its own side
 * to the other leaf; a brush without _noclipfaces meeting one with it is
 * treated as if it had it too, as ericw-tools does. With a side on the
 * plane in one leaf only, that side is drawn both ways. */
static bool noclip_portal_side(pool_t *pool, portal_t *p, int planenum)
{
    int c = visible_contents(p->nodes[0]->contents);
    if (!c || c != visible_contents(p->nodes[1]->contents)) return false;
    if (!leaf_has_noclip(p->nodes[0], c) && !leaf_has_noclip(p->nodes[1], c)) return false;
    const mapbrush_t *brush[2] = {NULL, NULL};
    side_t *side[2];
    for (int j = 0; j < 2; j++) side[j] = leaf_side_on_plane(p->nodes[j], c, planenum, &brush[j]);
    int j = side[0] && (brush[0]->noclipfaces || !side[1] || !brush[1]->noclipfaces) ? 0 : 1;
    if (!side[j]) return false;
    p->side = side[j];
    p->sidebrush = brush[j];
    p->inside = (signed char)j;
    if (side[0] && side[1]) {
        if (!p->noclip) p->noclip = pool_alloc(pool, sizeof *p->noclip);
        for (int s = 0; s < 2; s++) {
            p->noclip->side[s] = side[!s];
            p->noclip->brush[s] = brush[!s];
        }
    }
    return true;
}

/* qbsp3's FindPortalSide: the side of a brush in either leaf, of the
 * strongest visible contents that changes across the portal, lying on the
 * portal's plane (or failing that the closest in direction). */
static void find_portal_side(const qbsp_t *q, pool_t *pool, portal_t *p)
{
    int viscontents = visible_contents(p->nodes[0]->contents ^ p->nodes[1]->contents);
    p->sidefound = true;
    p->side = NULL;
    p->sidebrush = NULL;
    p->inside = -1;
    int planenum = p->onnode->planenum;
    if (!viscontents) {
        if (q->any_noclipfaces) noclip_portal_side(pool, p, planenum);
        return;
    }
    /* The node holding the contents that change is inside the brush. */
    signed char inside = (p->nodes[0]->contents & viscontents) ? 0 : 1;
    const plane_t *p1 = plane_table_get(&q->planes, planenum);
    side_t *bestside = NULL;
    const mapbrush_t *bestbrush = NULL;
    double bestdot = 0;
    for (int j = 0; j < 2; j++) {
        const node_t *n = p->nodes[j];
        for (const bspbrush_t *bb = n->brushlist; bb; bb = bb->next) {
            mapbrush_t *brush = bb->original;
            if (!(brush->contents & viscontents)) continue;
            for (int i = 0; i < brush->numsides; i++) {
                side_t *side = &brush->original_sides[i];
                if (side->bevel || side->texinfo == TEXINFO_NODE) continue;
                if ((side->planenum & ~1) == planenum) {
                    p->side = side;
                    p->sidebrush = brush;
                    p->inside = inside;
                    return;
                }
                const plane_t *p2 = plane_table_get(&q->planes, side->planenum & ~1);
                double dot = vec_dot(p1->normal, p2->normal);
                if (dot > bestdot) {
                    bestdot = dot;
                    bestside = side;
                    bestbrush = brush;
                }
            }
        }
    }
    p->side = bestside;
    p->sidebrush = bestbrush;
    p->inside = bestside ? inside : -1;
}

void portals_mark_visible_sides(qbsp_t *q, tree_t *tree, int first, int count)
{
    for (int i = first; i < first + count; i++) {
        mapbrush_t *mb = &q->mapbrushes[i];
        for (int j = 0; j < mb->numsides; j++) mb->original_sides[j].visible = false;
    }
    /* qbsp3 walks the leafs and, in each that holds contents (an empty
     * leaf is never a boundary), its portals that lie on a node. What a
     * portal yields depends on it alone and the marks are only ever set,
     * so the same portals are taken from the live list instead, in whose
     * order their loads do not wait on one another as a leaf's list's do
     * (a third of the stage was the wait for the next portal of a list).
     * After a full build every live portal lies between two leafs, or a
     * leaf and the outside node, which is in no leaf walk. */
    const node_t *outside = &tree->outside_node;
    int missing = 0;
    portal_store_t *ps = &tree->portals;
    for (int i = 0; i < ps->numlive + ps->nummore; i++) {
        portal_t *p = i < ps->numlive ? ps->live[i] : ps->more[i - ps->numlive];
        if (!p->onnode) continue;
        const node_t *n0 = p->nodes[0], *n1 = p->nodes[1];
        if (!((n0 != outside && n0->contents) || (n1 != outside && n1->contents))) continue;
        if (!p->sidefound) {
            find_portal_side(q, &ps->pool, p);
            if (!p->side && visible_contents(n0->contents ^ n1->contents)) missing++;
        }
        if (p->side) p->side->visible = true;
        for (int k = 0; k < 2; k++)
            if (portal_noclip_side(p, k)) portal_noclip_side(p, k)->visible = true;
    }
    if (missing) log_verbose(q->log, "%d portals with no side to draw them", missing);
}

/* --- Clusters ------------------------------------------------------------------ */

int portals_cluster_contents(const node_t *node)
{
    if (node->planenum == PLANENUM_LEAF) return node->contents;
    int c1 = portals_cluster_contents(node->children[0]);
    int c2 = portals_cluster_contents(node->children[1]);
    int c = c1 | c2;
    /* a cluster may include solid detail and still be seen into */
    if (!(c1 & CONTENTS_SOLID) || !(c2 & CONTENTS_SOLID)) c &= ~CONTENTS_SOLID;
    return c;
}

static void fill_cluster_r(node_t *n, int c)
{
    if (n->planenum == PLANENUM_LEAF) {
        n->cluster = (n->contents & CONTENTS_SOLID) ? -1 : c;
        return;
    }
    n->cluster = c;
    fill_cluster_r(n->children[0], c);
    fill_cluster_r(n->children[1], c);
}

static void number_clusters_r(node_t *n, int *count, bool world)
{
    if (!world) {
        n->cluster = -1;
        if (n->planenum != PLANENUM_LEAF) {
            number_clusters_r(n->children[0], count, world);
            number_clusters_r(n->children[1], count, world);
        }
        return;
    }
    if (n->planenum != PLANENUM_LEAF && !n->detail_seperator) {
        n->cluster = -99;
        number_clusters_r(n->children[0], count, world);
        number_clusters_r(n->children[1], count, world);
        return;
    }
    if (portals_cluster_contents(n) & CONTENTS_SOLID) {
        fill_cluster_r(n, -1);
        return;
    }
    fill_cluster_r(n, (*count)++);
}

/* What lies below a node, for split_walled_clusters_r. */
enum { BELOW_OPEN = 1, BELOW_WALL = 2 };

/* A detail separator makes one cluster of everything below it, which is
 * right for detail but not for a structural wall: the second tree splits
 * on hidden and void-facing structural sides only after the visible
 * detail ones (and then as detail separators too), so a room's last
 * cluster could take in a structural wall and the sealed void behind it,
 * and its portals then lay on the far side of the wall, where the next
 * room starts (ericw-tools' q2_detail_leak_test: two rooms whose PVS saw
 * each other through the wall behind a detail brush). A separator with
 * open leaves and structural solid (a wall, or void filled after the
 * flood) below it is made structural again, so clusters stop at the wall;
 * only the flags change, not the tree. Leaves filled by detail alone stay
 * inside their cluster. */
static int split_walled_clusters_r(node_t *n)
{
    if (n->planenum == PLANENUM_LEAF) {
        if (!(n->contents & CONTENTS_SOLID)) return BELOW_OPEN;
        return n->detail_fill ? 0 : BELOW_WALL;
    }
    int below = split_walled_clusters_r(n->children[0]) | split_walled_clusters_r(n->children[1]);
    if (n->detail_seperator && below == (BELOW_OPEN | BELOW_WALL)) n->detail_seperator = false;
    return below;
}

int portals_number_clusters(tree_t *tree, bool world)
{
    int count = 0;
    if (world) split_walled_clusters_r(tree->headnode);
    number_clusters_r(tree->headnode, &count, world);
    return count;
}
