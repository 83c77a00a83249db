/* Emission of qbsp's results into the bsp_t being built. */
#include "writebsp.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../common/mem.h"
#include "brushbsp.h"
#include "csg.h"
#include "emit.h"
#include "groupkeys.h"

#define GROW(arr, capfield, need) ((arr) = q2_grow((arr), sizeof *(arr), &(capfield), (need)))

/* Whole units, rounded outwards: IBSP stores them as shorts (the writer
 * clamps; bsp_format_excesses reports what does not fit), QBSP as floats
 * (ceil(-0.5) is -0.0: float_for_file). */
static void bounds_to_units(const aabb_t *b, float mins[3], float maxs[3])
{
    for (int i = 0; i < 3; i++) {
        mins[i] = float_for_file(floor(vec_comp(b->mins, i)));
        maxs[i] = float_for_file(ceil(vec_comp(b->maxs, i)));
    }
}

void writebsp_begin(qbsp_t *q)
{
    qbsp_emit_t *em = emit_get(q);
    bsp_t *bsp = &q->bsp;
    /* Leaf 0 is the solid leaf engines point at for "nothing here". */
    GROW(bsp->leafs, em->cap_leafs, 1);
    memset(&bsp->leafs[0], 0, sizeof bsp->leafs[0]);
    bsp->leafs[0].contents = CONTENTS_SOLID;
    bsp->leafs[0].cluster = -1;
    bsp->numleafs = 1;
    /* Edge 0 cannot be used: its negation marks direction. */
    GROW(bsp->edges, em->cap_edges, 1);
    memset(&bsp->edges[0], 0, sizeof bsp->edges[0]);
    bsp->numedges = 1;
    /* Vertex 0 as id's tools leave it, unused. */
    if (bsp->numvertexes == 0) {
        emit_vertex(q, vec3(0, 0, 0), true);
        em->vertex0_reserved = true;
    }
}

void writebsp_free(qbsp_t *q)
{
    qbsp_emit_t *em = q->emit;
    if (!em) return;
    emit_free_faces(q, NULL);
    free(em->fa.faces);
    free(em->fa.blocks);
    free(em->vnum_blocks);
    free(em->vpos);
    free(em->vhash_head);
    free(em->vhash_next);
    free(em->ehash_head);
    free(em->ehash_next);
    free(em->edgefaces);
    free(em->ent_portalnum);
    free(em->ent_portalareas);
    free(em);
    q->emit = NULL;
}

/* ---------------------------------------------------------------- brushes */

static bool brush_emitted(const mapbrush_t *b)
{
    return b->numsides > 0 && !(b->contents & CONTENTS_ORIGIN);
}

static void number_brushes(qbsp_t *q)
{
    qbsp_emit_t *em = emit_get(q);
    if (em->brushes_numbered) return;
    int n = 0;
    for (int i = 0; i < q->nummapbrushes; i++) {
        mapbrush_t *b = &q->mapbrushes[i];
        b->outputnumber = brush_emitted(b) ? n++ : -1;
    }
    em->numbrushes_out = n;
    em->brushes_numbered = true;
}

typedef struct bside_t {
    vec3_t normal;
    double dist;
    int planenum;
    int texside; /* the map brush side whose texinfo it takes, -1 none */
    winding_t *w;
    bool borrowed; /* w is the map brush side's own (load_make_brush_windings) */
} bside_t;

static bool plane_matches(const bside_t *s, vec3_t normal, double dist)
{
    return fabs(s->normal.x - normal.x) < NORMAL_EPSILON && fabs(s->normal.y - normal.y) < NORMAL_EPSILON &&
           fabs(s->normal.z - normal.z) < NORMAL_EPSILON && fabs(s->dist - dist) < DIST_EPSILON;
}

static void push_side(bsp_t *bsp, qbsp_emit_t *em, int planenum, int texinfo)
{
    GROW(bsp->brushsides, em->cap_brushsides, bsp->numbrushsides + 1);
    bsp->brushsides[bsp->numbrushsides].planenum = (uint32_t)planenum;
    bsp->brushsides[bsp->numbrushsides].texinfo = (int32_t)texinfo;
    bsp->numbrushsides++;
}

/* One side of a collision brush as plan_brush decides it: its plane's
 * values and number (-1 for a bevel, which the plane table gives when the
 * brush is written) and the map brush side whose texinfo it takes. */
typedef struct plan_side_t {
    vec3_t normal;
    double dist;
    int planenum;
    int texside;
} plan_side_t;

struct brushplan_t {
    int *first; /* per map brush: its sides are sides[first[i]] .. sides[first[i + 1]] */
    plan_side_t *sides;
    int count, cap;
};

static void plan_push(brushplan_t *bp, const bside_t *s)
{
    bp->sides = q2_grow(bp->sides, sizeof *bp->sides, &bp->cap, bp->count + 1);
    bp->sides[bp->count++] = (plan_side_t){s->normal, s->dist, s->planenum, s->texside};
}

/* Collision brushes get extra "bevel" planes so that an axis-aligned box
 * traced against them stops where the brush's Minkowski sum with the box
 * would: every axial plane of the bounds, and planes through each
 * non-axial edge parallel to an axis, when they touch the brush without
 * cutting it. Which sides, in which order, depends on the brush and its
 * planes' values alone (a bevel's plane is left to the table, whose
 * refusals plane_table_accepts foretells), so the plan of every brush can
 * be made on another thread before the brushes are written. */
static void plan_brush(const plane_table_t *planes, const mapbrush_t *mb, brushplan_t *bp)
{
    int cap = mb->numsides + 6;
    bside_t *s = q2_calloc(cap, sizeof *s);
    int ns = 0;
    for (int i = 0; i < mb->numsides; i++) {
        const side_t *sd = &mb->original_sides[i];
        if (sd->bevel) continue;
        const plane_t *pl = plane_table_get(planes, sd->planenum);
        s[ns].normal = pl->normal;
        s[ns].dist = pl->dist;
        s[ns].planenum = sd->planenum;
        s[ns].texside = i;
        /* The loaded winding is this clip of the side's plane by the
         * others, made the same way in the same order; only where the load
         * dropped it (clipped away, or too thin) is it made again here. */
        s[ns].w = sd->winding;
        s[ns].borrowed = sd->winding != NULL;
        ns++;
    }
    int nreal = ns;
    aabb_t bounds = aabb_empty();
    for (int i = 0; i < nreal; i++) {
        winding_t *w = s[i].w;
        if (!s[i].borrowed) {
            w = qbsp_chain_for_plane(s[i].normal, s[i].dist);
            for (int j = 0; j < nreal && w; j++) {
                if (j == i) continue;
                w = qbsp_chain_clip(w, vec_neg(s[j].normal), -s[j].dist, ON_EPSILON, false);
            }
            s[i].w = w;
        }
        if (w)
            for (int k = 0; k < w->numpoints; k++) aabb_add_point(&bounds, w->p[k]);
    }
    int deftex = nreal > 0 ? s[0].texside : -1;

    if (!aabb_is_empty(&bounds)) {
        for (int axis = 0; axis < 3; axis++)
            for (int dir = -1; dir <= 1; dir += 2) {
                vec3_t normal = vec3(0, 0, 0);
                vec_set_comp(&normal, axis, dir);
                double dist = dir < 0 ? -vec_comp(bounds.mins, axis) : vec_comp(bounds.maxs, axis);
                /* Bounds come from clipped windings; snap like the plane table. */
                if (fabs(dist - floor(dist + 0.5)) < DIST_EPSILON) dist = floor(dist + 0.5);
                bool have = false;
                for (int i = 0; i < ns; i++)
                    if (plane_matches(&s[i], normal, dist)) have = true;
                if (have || !plane_table_accepts(normal, dist)) continue;
                if (ns == cap) s = q2_grow(s, sizeof *s, &cap, ns + 1);
                s[ns] = (bside_t){normal, dist, -1, deftex, NULL, false};
                ns++;
            }

        for (int i = 0; i < nreal; i++) {
            winding_t *w = s[i].w;
            if (!w || (fabs(s[i].normal.x) == 1 || fabs(s[i].normal.y) == 1 || fabs(s[i].normal.z) == 1))
                continue;
            for (int j = 0; j < w->numpoints; j++) {
                double len;
                vec3_t vec = vec_normalize(vec_sub(w->p[j], w->p[(j + 1) % w->numpoints]), &len);
                if (len < 0.5) continue;
                bool axial = false;
                for (int a = 0; a < 3; a++)
                    if (fabs(fabs(vec_comp(vec, a)) - 1.0) < NORMAL_EPSILON) axial = true;
                if (axial) continue;
                for (int axis = 0; axis < 3; axis++)
                    for (int dir = -1; dir <= 1; dir += 2) {
                        vec3_t ax = vec3(0, 0, 0);
                        vec_set_comp(&ax, axis, dir);
                        double nl;
                        vec3_t normal = vec_normalize(vec_cross(vec, ax), &nl);
                        if (nl < 0.5) continue;
                        double dist = vec_dot(w->p[j], normal);
                        vec3_t sn = normal;
                        double sd = dist;
                        plane_snap(&sn, &sd);
                        bool skip = false;
                        for (int k = 0; k < ns && !skip; k++) {
                            if (plane_matches(&s[k], sn, sd)) skip = true;
                            else if (s[k].w)
                                for (int l = 0; l < s[k].w->numpoints; l++)
                                    if (vec_dot(s[k].w->p[l], normal) - dist > BEVEL_EPSILON) {
                                        skip = true;
                                        break;
                                    }
                        }
                        if (skip || !plane_table_accepts(sn, sd)) continue;
                        if (ns == cap) s = q2_grow(s, sizeof *s, &cap, ns + 1);
                        s[ns] = (bside_t){sn, sd, -1, s[i].texside, NULL, false};
                        ns++;
                    }
            }
        }
    }
    for (int i = 0; i < ns; i++) plan_push(bp, &s[i]);
    for (int i = 0; i < ns; i++)
        if (!s[i].borrowed) winding_free(s[i].w);
    free(s);
}

brushplan_t *writebsp_plan_brushes(const qbsp_t *q, const plane_table_t *planes)
{
    brushplan_t *bp = q2_calloc(1, sizeof *bp);
    bp->first = q2_malloc(sizeof(int) * ((size_t)q->nummapbrushes + 1));
    for (int i = 0; i < q->nummapbrushes; i++) {
        bp->first[i] = bp->count;
        if (brush_emitted(&q->mapbrushes[i])) plan_brush(planes, &q->mapbrushes[i], bp);
    }
    bp->first[q->nummapbrushes] = bp->count;
    return bp;
}

void writebsp_plan_free(brushplan_t *bp)
{
    if (!bp) return;
    free(bp->first);
    free(bp->sides);
    free(bp);
}

/* Writes map brush i as its plan says, bevels' planes from the table. */
static void emit_brush(qbsp_t *q, const brushplan_t *bp, int i)
{
    qbsp_emit_t *em = q->emit;
    bsp_t *bsp = &q->bsp;
    const mapbrush_t *mb = &q->mapbrushes[i];
    GROW(bsp->brushes, em->cap_brushes, bsp->numbrushes + 1);
    dbrush_t *db = &bsp->brushes[bsp->numbrushes++];
    db->firstside = bsp->numbrushsides;
    db->contents = mb->contents;
    for (int k = bp->first[i]; k < bp->first[i + 1]; k++) {
        const plan_side_t *ps = &bp->sides[k];
        int pn = ps->planenum >= 0 ? ps->planenum : plane_table_find(&q->planes, ps->normal, ps->dist);
        push_side(bsp, em, pn, ps->texside >= 0 ? mb->original_sides[ps->texside].texinfo : -1);
    }
    db->numsides = bsp->numbrushsides - db->firstside;
}

/* ------------------------------------------------------------------ faces */

static void ehash_reset(qbsp_emit_t *em, int firstedge)
{
    em->firstmodeledge = firstedge;
    if (!em->ehash_head) {
        em->ehash_size = 1 << 16;
        em->ehash_head = q2_malloc(sizeof(int) * em->ehash_size);
    }
    for (int i = 0; i < em->ehash_size; i++) em->ehash_head[i] = -1;
}

static uint32_t edge_hash(int a, int b)
{
    int lo = a < b ? a : b, hi = a < b ? b : a;
    uint32_t h = (uint32_t)lo * 2654435761u ^ (uint32_t)hi * 40503u;
    return h ^ (h >> 16);
}

static int get_edge(qbsp_t *q, int v1, int v2, const face_t *f)
{
    qbsp_emit_t *em = q->emit;
    bsp_t *bsp = &q->bsp;
    uint32_t h = edge_hash(v1, v2) & (em->ehash_size - 1);
    if (!q->opt.noshare) {
        for (int i = em->ehash_head[h]; i >= 0; i = em->ehash_next[i]) {
            if (bsp->edges[i].v[0] == (uint32_t)v2 && bsp->edges[i].v[1] == (uint32_t)v1 && !em->edgefaces[2 * i + 1] &&
                em->edgefaces[2 * i]->contents == f->contents) {
                em->edgefaces[2 * i + 1] = f;
                return -i;
            }
        }
    }
    int n = bsp->numedges;
    GROW(bsp->edges, em->cap_edges, n + 1);
    GROW(em->ehash_next, em->cap_ehash_next, n + 1);
    em->edgefaces = q2_grow(em->edgefaces, 2 * sizeof *em->edgefaces, &em->cap_edgefaces, n + 1);
    bsp->edges[n].v[0] = (uint32_t)v1;
    bsp->edges[n].v[1] = (uint32_t)v2;
    em->edgefaces[2 * n] = f;
    em->edgefaces[2 * n + 1] = NULL;
    em->ehash_next[n] = em->ehash_head[h];
    em->ehash_head[h] = n;
    bsp->numedges = n + 1;
    return n;
}

static void emit_face(qbsp_t *q, face_t *f)
{
    qbsp_emit_t *em = q->emit;
    bsp_t *bsp = &q->bsp;
    f->outputnumber = -1;
    if (!face_is_final(f) || f->numpoints < 3) return;
    f->outputnumber = bsp->numfaces;
    GROW(bsp->faces, em->cap_faces_out, bsp->numfaces + 1);
    dface_t *df = &bsp->faces[bsp->numfaces++];
    memset(df, 0, sizeof *df);
    df->planenum = (uint32_t)(f->planenum & ~1);
    df->side = (int32_t)(f->planenum & 1);
    df->firstedge = bsp->numsurfedges;
    df->numedges = (int32_t)f->numpoints;
    df->texinfo = (int32_t)f->texinfo;
    df->styles[0] = 0;
    df->styles[1] = df->styles[2] = df->styles[3] = 255;
    df->lightofs = -1;
    groupkeys_note_face(q, f->outputnumber, f);
    for (int i = 0; i < f->numpoints; i++) {
        int e = get_edge(q, f->vertexnums[i], f->vertexnums[(i + 1) % f->numpoints], f);
        GROW(bsp->surfedges, em->cap_surfedges, bsp->numsurfedges + 1);
        bsp->surfedges[bsp->numsurfedges++] = e;
    }
}

/* The half-spaces of a leaf: the planes of its ancestors, each turned to
 * face into the leaf. */
typedef struct leafpath_t {
    vec3_t normal[256];
    double dist[256];
    int n;
} leafpath_t;

static void leaf_path(const qbsp_t *q, const node_t *leaf, leafpath_t *lp)
{
    lp->n = 0;
    for (const node_t *c = leaf; c->parent && lp->n < 256; c = c->parent) {
        const node_t *par = c->parent;
        const plane_t *pl = plane_table_get(&q->planes, par->planenum);
        bool back = par->children[1] == c;
        lp->normal[lp->n] = back ? vec_neg(pl->normal) : pl->normal;
        lp->dist[lp->n] = back ? -pl->dist : pl->dist;
        lp->n++;
    }
}

/* Adds the final faces that replaced `f` to the current leaf's list. A
 * face merged with neighbours and then subdivided has pieces far from the
 * leaf; only pieces that reach into the leaf's region are listed (each
 * piece still reaches some leaf), so leafs do not draw what they cannot
 * see. */
static void emit_mark_face(qbsp_t *q, int first, const face_t *orig, const face_t *f, const leafpath_t *lp)
{
    while (f->merged) f = f->merged;
    if (f->split[0] || f->split[1]) {
        if (f->split[0]) emit_mark_face(q, first, orig, f->split[0], lp);
        if (f->split[1]) emit_mark_face(q, first, orig, f->split[1], lp);
        return;
    }
    int n = f->outputnumber;
    if (n < 0) return;
    if (lp && f != orig) {
        /* A piece belongs to the leaf when some of its area is inside. */
        const qbsp_emit_t *em = q->emit;
        winding_t *w = winding_alloc(f->numpoints);
        w->numpoints = f->numpoints;
        for (int i = 0; i < f->numpoints; i++) w->p[i] = em->vpos[f->vertexnums[i]];
        w = qbsp_chain_start(w);
        for (int j = 0; j < lp->n && w; j++) w = qbsp_chain_clip(w, lp->normal[j], lp->dist[j], ON_EPSILON, true);
        bool inside = w && !qbsp_winding_tiny(w);
        winding_free(w);
        if (!inside) return;
    }
    bsp_t *bsp = &q->bsp;
    for (int i = first; i < bsp->numleaffaces; i++)
        if (bsp->leaffaces[i] == (uint32_t)n) return;
    GROW(bsp->leaffaces, q->emit->cap_leaffaces, bsp->numleaffaces + 1);
    bsp->leaffaces[bsp->numleaffaces++] = (uint32_t)n;
}

/* ------------------------------------------------------------------ tree */

typedef struct emit_ctx_t {
    qbsp_t *q;
    int entity;
    const aabb_t *fallback;
} emit_ctx_t;

/* The brushes of every leaf below NODE, each once. */
static void emit_leaf_brushes_r(emit_ctx_t *c, const node_t *node, int first)
{
    qbsp_t *q = c->q;
    bsp_t *bsp = &q->bsp;
    if (node->planenum != PLANENUM_LEAF) {
        emit_leaf_brushes_r(c, node->children[0], first);
        emit_leaf_brushes_r(c, node->children[1], first);
        return;
    }
    for (const bspbrush_t *b = node->brushlist; b; b = b->next) {
        if (!b->original || b->original->outputnumber < 0) continue;
        int bn = b->original->outputnumber;
        bool dup = false;
        for (int i = first; i < bsp->numleafbrushes; i++)
            if (bsp->leafbrushes[i] == (uint32_t)bn) dup = true;
        if (dup) continue;
        GROW(bsp->leafbrushes, q->emit->cap_leafbrushes, bsp->numleafbrushes + 1);
        bsp->leafbrushes[bsp->numleafbrushes++] = (uint32_t)bn;
    }
}

/* NODE is a leaf, or (merged) a subtree of solid leaves of CONTENTS. */
static int emit_leaf(emit_ctx_t *c, node_t *node, int contents)
{
    qbsp_t *q = c->q;
    bsp_t *bsp = &q->bsp;
    GROW(bsp->leafs, q->emit->cap_leafs, bsp->numleafs + 1);
    int idx = bsp->numleafs++;
    dleaf_t *lf = &bsp->leafs[idx];
    memset(lf, 0, sizeof *lf);
    lf->contents = contents;
    lf->cluster = (int32_t)(c->entity == 0 ? node->cluster : -1);
    if (contents & CONTENTS_SOLID) lf->cluster = -1;
    lf->area = (int32_t)(c->entity == 0 && node->planenum == PLANENUM_LEAF ? node->area : 0);
    bounds_to_units(aabb_is_empty(&node->bounds) ? c->fallback : &node->bounds, lf->mins, lf->maxs);
    node->outputnumber = idx;

    lf->firstleafbrush = (uint32_t)bsp->numleafbrushes;
    int first = bsp->numleafbrushes;
    emit_leaf_brushes_r(c, node, first);
    lf = &bsp->leafs[idx];
    lf->numleafbrushes = (uint32_t)(bsp->numleafbrushes - first);

    lf->firstleafface = (uint32_t)bsp->numleaffaces;
    if (contents & CONTENTS_SOLID) return idx;
    int firstf = bsp->numleaffaces;
    leafpath_t lp;
    bool have_path = false;
    for (face_t *f = node->leaffaces; f; f = f->leafnext) {
        if (!have_path) {
            leaf_path(q, node, &lp);
            have_path = true;
        }
        emit_mark_face(q, firstf, f, f, &lp);
    }
    /* The face records are freed once the model is written. */
    node->leaffaces = NULL;
    lf = &bsp->leafs[idx];
    lf->numleaffaces = (uint32_t)(bsp->numleaffaces - firstf);
    return idx;
}

static int emit_node_r(emit_ctx_t *c, node_t *node)
{
    qbsp_t *q = c->q;
    bsp_t *bsp = &q->bsp;
    if (node->planenum == PLANENUM_LEAF) return -(emit_leaf(c, node, brushbsp_written_contents(node)) + 1);
    int merged;
    if (c->entity == 0 && !q->opt.noprune && brushbsp_solid_subtree(node, &merged))
        return -(emit_leaf(c, node, merged) + 1);
    GROW(bsp->nodes, q->emit->cap_nodes, bsp->numnodes + 1);
    int idx = bsp->numnodes++;
    dnode_t *dn = &bsp->nodes[idx];
    memset(dn, 0, sizeof *dn);
    /* Engines test axial planes as p[type] - dist, which needs the even
     * (positive) plane of the pair. */
    dn->planenum = node->planenum & ~1;
    bounds_to_units(aabb_is_empty(&node->bounds) ? c->fallback : &node->bounds, dn->mins, dn->maxs);
    node->outputnumber = idx;
    int firstface = bsp->numfaces;
    for (face_t *f = node->faces; f; f = f->next) emit_face(q, f);
    dn = &bsp->nodes[idx];
    dn->firstface = (uint32_t)firstface;
    dn->numfaces = (uint32_t)(bsp->numfaces - firstface);
    for (int i = 0; i < 2; i++) {
        int child = emit_node_r(c, node->children[i]);
        bsp->nodes[idx].children[i] = child;
    }
    node->faces = NULL; /* every leaf below has listed them */
    return idx;
}

bool writebsp_model(qbsp_t *q, int entity, tree_t *tree, q2err_t *err)
{
    qbsp_emit_t *em = emit_get(q);
    bsp_t *bsp = &q->bsp;
    if (bsp->numleafs == 0) writebsp_begin(q);
    number_brushes(q);
    /* The IBSP limit is checked with the others once the format is chosen. */
    if (bsp->nummodels >= MAX_MAP_MODELS_QBSP)
        return q2err_set(err, q->map.path, 0, 0, "MAX_MAP_MODELS exceeded: more than %d models (QBSP format)",
                         MAX_MAP_MODELS_QBSP);
    GROW(bsp->models, em->cap_models, bsp->nummodels + 1);
    int mi = bsp->nummodels++;
    dmodel_t *m = &bsp->models[mi];
    memset(m, 0, sizeof *m);

    aabb_t b = aabb_empty();
    if (q->ent_firstbrush && q->ent_numbrushes && entity >= 0 && entity < q->map.numentities) {
        int first = q->ent_firstbrush[entity], nb = q->ent_numbrushes[entity];
        for (int i = first; i < first + nb && i < q->nummapbrushes; i++) {
            const mapbrush_t *mb = &q->mapbrushes[i];
            if (!brush_emitted(mb) || aabb_is_empty(&mb->bounds)) continue;
            aabb_add_point(&b, mb->bounds.mins);
            aabb_add_point(&b, mb->bounds.maxs);
        }
    }
    if (aabb_is_empty(&b) && tree && !aabb_is_empty(&tree->bounds)) b = tree->bounds;
    if (!aabb_is_empty(&b))
        for (int i = 0; i < 3; i++) {
            m->mins[i] = float_for_file(vec_comp(b.mins, i));
            m->maxs[i] = float_for_file(vec_comp(b.maxs, i));
        }
    if (entity > 0 && q->ent_origin) {
        m->origin[0] = float_for_file(q->ent_origin[entity].x);
        m->origin[1] = float_for_file(q->ent_origin[entity].y);
        m->origin[2] = float_for_file(q->ent_origin[entity].z);
    }
    if (entity > 0 && entity < q->map.numentities) {
        char buf[16];
        snprintf(buf, sizeof buf, "*%d", mi);
        entity_set(&q->map.entities[entity].ent, "model", buf);
    }

    m->firstface = bsp->numfaces;
    ehash_reset(em, bsp->numedges);
    aabb_t fallback = b;
    if (aabb_is_empty(&fallback)) fallback = (aabb_t){vec3(0, 0, 0), vec3(0, 0, 0)};
    emit_ctx_t c = {q, entity, &fallback};
    if (tree && tree->headnode) {
        bsp->models[mi].headnode = emit_node_r(&c, tree->headnode);
    } else {
        /* A model with no tree: one empty leaf. */
        node_t leaf;
        memset(&leaf, 0, sizeof leaf);
        leaf.planenum = PLANENUM_LEAF;
        leaf.cluster = -1;
        leaf.bounds = fallback;
        bsp->models[mi].headnode = emit_node_r(&c, &leaf);
    }
    bsp->models[mi].numfaces = bsp->numfaces - bsp->models[mi].firstface;
    /* Emission cleared every reference to the faces from the tree. */
    emit_free_faces(q, NULL);
    return true;
}

/* -------------------------------------------------------------- finishing */

static bool set_light_styles(qbsp_t *q, q2err_t *err)
{
    const int max_switched = MAX_LIGHTSTYLES - 32;
    const char **targets = q2_calloc(max_switched, sizeof *targets);
    int n = 0;
    for (int e = 1; e < q->map.numentities; e++) {
        entity_t *ent = &q->map.entities[e].ent;
        if (strncasecmp(entity_classname(ent), "light", 5) != 0) continue;
        const char *t = entity_get(ent, "targetname");
        if (!t || !t[0]) continue;
        int j;
        for (j = 0; j < n; j++)
            if (strcmp(targets[j], t) == 0) break;
        if (j == n) {
            if (n == max_switched) {
                free(targets);
                return q2err_set(err, q->map.path, ent->line, 0,
                                 "too many switchable lights: more than %d different light targetnames "
                                 "(styles 32..%d, MAX_LIGHTSTYLES %d)",
                                 max_switched, MAX_LIGHTSTYLES - 1, MAX_LIGHTSTYLES);
            }
            targets[n++] = t;
        }
        char buf[16];
        snprintf(buf, sizeof buf, "%d", 32 + j);
        entity_set(ent, "style", buf);
    }
    free(targets);
    return true;
}

bool writebsp_entities(qbsp_t *q, q2err_t *err)
{
    if (!set_light_styles(q, err)) return false;
    /* Without areas_flood (-onlyents), areaportals are numbered the same
     * way so doors keep controlling the right portal. */
    if (!q->emit || !q->emit->areas_done) {
        int n = 0;
        for (int e = 0; e < q->map.numentities; e++) {
            entity_t *ent = &q->map.entities[e].ent;
            if (strcmp(entity_classname(ent), "func_areaportal") != 0) continue;
            char buf[16];
            snprintf(buf, sizeof buf, "%d", ++n);
            entity_set(ent, "style", buf);
        }
    }
    entity_list_t list = {0};
    list.ents = q2_calloc(q->map.numentities > 0 ? q->map.numentities : 1, sizeof *list.ents);
    for (int e = 0; e < q->map.numentities; e++) {
        entity_t *ent = &q->map.entities[e].ent;
        /* These entities' brushes joined the world; the entities mean
         * nothing to the game (which would complain about them). */
        const char *cls = entity_classname(ent);
        if (e > 0 && (strcmp(cls, "func_group") == 0 || strncmp(cls, "func_detail", 11) == 0 ||
                      strcmp(cls, "func_illusionary_visblocker") == 0))
            continue;
        if (q->ent_emptied && q->ent_emptied[e]) continue;
        list.ents[list.count++] = *ent; /* shallow: pairs stay owned by the map */
    }
    char *text = entities_unparse(&list);
    free(list.ents);
    bsp_set_entities(&q->bsp, text);
    free(text);
    return true;
}

bool writebsp_finish(qbsp_t *q, const brushplan_t *plan, q2err_t *err)
{
    qbsp_emit_t *em = emit_get(q);
    bsp_t *bsp = &q->bsp;
    if (bsp->numleafs == 0) writebsp_begin(q);
    number_brushes(q);

    brushplan_t *own = plan ? NULL : writebsp_plan_brushes(q, &q->planes);
    for (int i = 0; i < q->nummapbrushes; i++)
        if (q->mapbrushes[i].outputnumber >= 0) emit_brush(q, plan ? plan : own, i);
    writebsp_plan_free(own);

    /* Planes after the brushes: bevels add planes. */
    free(bsp->planes);
    bsp->numplanes = q->planes.count;
    bsp->planes = q2_calloc(bsp->numplanes > 0 ? bsp->numplanes : 1, sizeof *bsp->planes);
    for (int i = 0; i < q->planes.count; i++) {
        const plane_t *p = plane_table_get(&q->planes, i);
        /* A plane's back half is the front negated: its zero components
         * are -0.0 until float_for_file. */
        bsp->planes[i].normal[0] = float_for_file(p->normal.x);
        bsp->planes[i].normal[1] = float_for_file(p->normal.y);
        bsp->planes[i].normal[2] = float_for_file(p->normal.z);
        bsp->planes[i].dist = float_for_file(p->dist);
        bsp->planes[i].type = p->type;
    }

    free(bsp->texinfo);
    bsp->numtexinfo = q->numtexinfo;
    bsp->texinfo = q2_calloc(q->numtexinfo > 0 ? q->numtexinfo : 1, sizeof *bsp->texinfo);
    if (q->numtexinfo > 0) memcpy(bsp->texinfo, q->texinfo, sizeof *bsp->texinfo * q->numtexinfo);

    /* Areas as engines read them: area 0 and areaportal 0 are unused; each
     * area lists one record per portal it touches. */
    int numareas = q->numareas > 0 ? q->numareas : 0;
    free(bsp->areas);
    free(bsp->areaportals);
    bsp->numareas = numareas + 1;
    bsp->areas = q2_calloc(bsp->numareas, sizeof *bsp->areas);
    int capap = 0;
    bsp->areaportals = NULL;
    bsp->numareaportals = 0;
    GROW(bsp->areaportals, capap, 1);
    memset(&bsp->areaportals[0], 0, sizeof bsp->areaportals[0]);
    bsp->numareaportals = 1;
    for (int a = 1; a <= numareas; a++) {
        bsp->areas[a].firstareaportal = bsp->numareaportals;
        for (int e = 0; e < em->numentities && em->ent_portalnum; e++) {
            if (!em->ent_portalnum[e]) continue;
            const int *pa = em->ent_portalareas[e];
            int other = pa[0] == a ? pa[1] : pa[1] == a ? pa[0] : -1;
            if (other <= 0) continue;
            GROW(bsp->areaportals, capap, bsp->numareaportals + 1);
            bsp->areaportals[bsp->numareaportals].portalnum = em->ent_portalnum[e];
            bsp->areaportals[bsp->numareaportals].otherarea = other;
            bsp->numareaportals++;
        }
        bsp->areas[a].numareaportals = bsp->numareaportals - bsp->areas[a].firstareaportal;
    }

    if (!writebsp_entities(q, err) || !groupkeys_write(q, err)) return false;
    log_verbose(q->log, "%6d models, %d nodes, %d leafs, %d faces, %d brushes, %d brushsides", bsp->nummodels,
                bsp->numnodes, bsp->numleafs, bsp->numfaces, bsp->numbrushes, bsp->numbrushsides);
    return writebsp_choose_format(q, err);
}

bool writebsp_choose_format(qbsp_t *q, q2err_t *err)
{
    bsp_t *bsp = &q->bsp;
    const char *name = q->map.path ? q->map.path : "map";
    if (q->opt.qbism) {
        bsp->format = BSP_FORMAT_QBSP;
    } else {
        bsp->format = BSP_FORMAT_IBSP;
        enum { MAX_LISTED = 32 };
        bsp_excess_t ex[MAX_LISTED];
        int n = bsp_format_excesses(bsp, BSP_FORMAT_IBSP, ex, MAX_LISTED);
        if (n > 0) {
            /* Past a limit that QBSP does not raise, upgrading cannot help:
             * the error below names it either way. */
            bsp_excess_t qx;
            bool fits_qbsp = bsp_format_excesses(bsp, BSP_FORMAT_QBSP, &qx, 1) == 0;
            if (q->opt.noallowupgrade || !fits_qbsp) {
                if (q->opt.noallowupgrade && fits_qbsp)
                    for (int i = 1; i < n && i < MAX_LISTED; i++)
                        log_warn(q->log, "%s: also %s exceeded: %lld > %lld", name, ex[i].name, ex[i].count,
                                 ex[i].limit);
                if (!fits_qbsp) bsp->format = BSP_FORMAT_QBSP;
                q2err_t e2;
                q2err_clear(&e2);
                bsp_check_limits(bsp, &e2);
                return q2err_set(err, name, 0, 0, "%s%s", e2.msg,
                                 fits_qbsp ? " (the QBSP format would hold it; -noallowupgrade refuses it)" : "");
            }
            for (int i = 0; i < n && i < MAX_LISTED; i++)
                log_info(q->log, "note: %s: %s exceeded: %lld > %lld (by %lld)", name, ex[i].name, ex[i].count,
                         ex[i].limit, ex[i].count - ex[i].limit);
            log_info(q->log, "note: %s: limits of IBSP 38 exceeded: writing the extended QBSP format, which "
                             "Q2PRO loads and id's Quake 2 does not (-noallowupgrade refuses)",
                     name);
            bsp->format = BSP_FORMAT_QBSP;
        }
    }
    if (!bsp_check_limits(bsp, err)) return q2err_wrap(err, "%s", name);
    return true;
}
