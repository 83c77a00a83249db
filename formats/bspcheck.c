#include "bspcheck.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/dist.h"
#include "../common/mem.h"
#include "bspx.h"
#include "entities.h"
#include "lightmap.h"
#include "visrle.h"

/* A plane normal read from a file is single precision and was normalized in
 * single or double precision by the compiler; anything further from unit
 * length than this was not produced by normalization. */
#define BSPCHECK_NORMAL_LENGTH_EPSILON 0.001

typedef struct checker_t {
    const bsp_t *bsp;
    bsp_report_fn report;
    void *ctx;
    int max;
    int count;
    dist_t *dist; /* with threads: where the face checks run (bsp_validate_threads) */
    int threads;
} checker_t;

__attribute__((format(printf, 2, 3))) static void problem(checker_t *c, const char *fmt, ...)
{
    c->count++;
    if (!c->report || (c->max > 0 && c->count > c->max)) return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    c->report(c->ctx, buf);
}

/* An empty range reads nothing, wherever it starts. */
static bool range_ok(long long first, long long num, long long total)
{
    return first >= 0 && num >= 0 && (num == 0 || first + num <= total);
}

static bool floats_finite(const float *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) return false;
    return true;
}

static void check_entities(checker_t *c)
{
    const bsp_t *b = c->bsp;
    if (b->entities_size == 0) {
        problem(c, "entities: the lump is empty (a map needs at least worldspawn)");
        return;
    }
    if (memchr(b->entities, 0, (size_t)b->entities_size) == NULL)
        problem(c, "entities: the lump is not NUL-terminated");
    entity_list_t list;
    q2err_t err;
    if (!entities_parse(b->entities, "entities", &list, &err)) {
        problem(c, "%s", err.msg);
        return;
    }
    if (list.count == 0 || strcmp(entity_classname(&list.ents[0]), "worldspawn") != 0)
        problem(c, "entities: the first entity is not worldspawn");

    entities_free(&list);
}

static void check_planes(checker_t *c)
{
    const bsp_t *b = c->bsp;
    for (int i = 0; i < b->numplanes; i++) {
        const dplane_t *p = &b->planes[i];
        if (!floats_finite(p->normal, 3) || !isfinite(p->dist)) {
            problem(c, "plane %d: not finite", i);
            continue;
        }
        double len = sqrt((double)p->normal[0] * p->normal[0] + (double)p->normal[1] * p->normal[1] +
                          (double)p->normal[2] * p->normal[2]);
        if (fabs(len - 1) > BSPCHECK_NORMAL_LENGTH_EPSILON)
            problem(c, "plane %d: normal length %g is not 1", i, len);
        if (p->type < 0 || p->type > 5) problem(c, "plane %d: type %d is not 0..5", i, p->type);
    }
}

static void check_vertexes_edges(checker_t *c)
{
    const bsp_t *b = c->bsp;
    for (int i = 0; i < b->numvertexes; i++)
        if (!floats_finite(b->vertexes[i].point, 3)) problem(c, "vertex %d: not finite", i);
    for (int i = 0; i < b->numedges; i++)
        for (int k = 0; k < 2; k++)
            if (b->edges[i].v[k] >= (uint32_t)b->numvertexes)
                problem(c, "edge %d: vertex %u out of range (%d vertexes)", i, (unsigned)b->edges[i].v[k], b->numvertexes);
    for (int i = 0; i < b->numsurfedges; i++) {
        int32_t se = b->surfedges[i];
        if (se == INT32_MIN || (se < 0 ? -se : se) >= b->numedges)
            problem(c, "surfedge %d: edge %d out of range (%d edges)", i, se, b->numedges);
    }
}

/* nexttexinfo chains: each either ends at -1 or is an animation cycle that
 * comes back to where it started. A chain that runs into a loop not
 * containing its start would make an engine's animation walk never reach
 * the frame it began with. */
static void check_texinfo(checker_t *c)
{
    const bsp_t *b = c->bsp;
    for (int i = 0; i < b->numtexinfo; i++) {
        const dtexinfo_t *t = &b->texinfo[i];
        if (!floats_finite(&t->vecs[0][0], 8)) problem(c, "texinfo %d: texture vectors not finite", i);
        if (t->nexttexinfo < -1 || t->nexttexinfo >= b->numtexinfo) {
            problem(c, "texinfo %d: nexttexinfo %d out of range (%d texinfos)", i, t->nexttexinfo, b->numtexinfo);
            continue;
        }
    }
    for (int i = 0; i < b->numtexinfo; i++) {
        int cur = b->texinfo[i].nexttexinfo, steps = 0;
        while (cur >= 0 && cur < b->numtexinfo && cur != i && steps <= b->numtexinfo) {
            cur = b->texinfo[cur].nexttexinfo;
            steps++;
        }
        if (steps > b->numtexinfo)
            problem(c, "texinfo %d: nexttexinfo chain enters a loop that does not return to it", i);
    }
}

static void check_nodes(checker_t *c)
{
    const bsp_t *b = c->bsp;
    for (int i = 0; i < b->numnodes; i++) {
        const dnode_t *n = &b->nodes[i];
        if (n->planenum < 0 || n->planenum >= b->numplanes)
            problem(c, "node %d: plane %d out of range (%d planes)", i, n->planenum, b->numplanes);
        for (int k = 0; k < 2; k++) {
            int ch = n->children[k];
            if (ch >= 0 && ch >= b->numnodes)
                problem(c, "node %d: child %d is node %d, out of range (%d nodes)", i, k, ch, b->numnodes);
            else if (ch < 0 && (long long)-(long long)ch - 1 >= b->numleafs)
                problem(c, "node %d: child %d is leaf %lld, out of range (%d leafs)", i, k,
                        -(long long)ch - 1, b->numleafs);
        }
        if (!range_ok(n->firstface, n->numfaces, b->numfaces))
            problem(c, "node %d: faces %d..%lld out of range (%d faces)", i, n->firstface,
                    (long long)n->firstface + n->numfaces - 1, b->numfaces);
    }
}

/* The node graph must be a set of trees, one per model: a node reached twice
 * (a cycle or a shared subtree) would send traversals into loops. */
static void check_tree(checker_t *c)
{
    const bsp_t *b = c->bsp;
    if (b->numnodes == 0) return;
    unsigned char *seen = q2_calloc((size_t)b->numnodes, 1);
    int *stack = q2_malloc(sizeof *stack * (size_t)b->numnodes);
    for (int m = 0; m < b->nummodels; m++) {
        int head = b->models[m].headnode;
        if (head < 0 || head >= b->numnodes) continue; /* reported by check_models */
        int sp = 0;
        if (seen[head]) {
            problem(c, "model %d: head node %d also belongs to another tree", m, head);
            continue;
        }
        seen[head] = 1;
        stack[sp++] = head;
        while (sp > 0) {
            const dnode_t *n = &b->nodes[stack[--sp]];
            for (int k = 0; k < 2; k++) {
                int ch = n->children[k];
                if (ch < 0 || ch >= b->numnodes) continue;
                if (seen[ch]) {
                    problem(c, "node %d is reached twice in the tree of model %d (a cycle or shared subtree)", ch,
                            m);
                    continue;
                }
                seen[ch] = 1;
                stack[sp++] = ch;
            }
        }
    }
    free(stack);
    free(seen);
}

/* Texture coordinates so large that luxel counts overflow an int (a
 * corrupt texinfo or vertex) cannot be sized; engines evaluate them in
 * single precision, where 2^24 is already past exact integers. */
#define BSPCHECK_MAX_TEXCOORD 16777216.0

/* Call only for faces whose surfedges, edges and texinfo are in range. */
static bool face_texcoords_sane(const bsp_t *b, const dface_t *f)
{
    const dtexinfo_t *t = &b->texinfo[f->texinfo];
    for (int k = 0; k < f->numedges; k++) {
        int32_t se = b->surfedges[f->firstedge + k];
        const dedge_t *e = &b->edges[se < 0 ? -se : se];
        const float *p = b->vertexes[se < 0 ? e->v[1] : e->v[0]].point;
        for (int i = 0; i < 2; i++) {
            double v = (double)p[0] * t->vecs[i][0] + (double)p[1] * t->vecs[i][1] + (double)p[2] * t->vecs[i][2] +
                       t->vecs[i][3];
            if (!(fabs(v) < BSPCHECK_MAX_TEXCOORD)) return false;
        }
    }
    return true;
}

/* One face's checks (reads only the bsp: safe on several threads with
 * checkers of their own). */
static void check_face(checker_t *c, int i)
{
    const bsp_t *b = c->bsp;
    const dface_t *f = &b->faces[i];
    bool ok = true;
    if (f->planenum >= (uint32_t)b->numplanes) problem(c, "face %d: plane %d out of range (%d planes)", i, f->planenum,
                                             b->numplanes);
    if (f->side != 0 && f->side != 1) problem(c, "face %d: side %d is not 0 or 1", i, f->side);
    if (f->texinfo < 0 || f->texinfo >= b->numtexinfo) {
        problem(c, "face %d: texinfo %d out of range (%d texinfos)", i, f->texinfo, b->numtexinfo);
        ok = false;
    }
    if (f->numedges < 3) {
        problem(c, "face %d: %d edges (at least 3 needed)", i, f->numedges);
        return;
    }
    if (!range_ok(f->firstedge, f->numedges, b->numsurfedges)) {
        problem(c, "face %d: surfedges %d..%lld out of range (%d surfedges)", i, f->firstedge,
                (long long)f->firstedge + f->numedges - 1, b->numsurfedges);
        return;
    }
    /* Each edge must start where the previous one ended, and the last
     * end where the first starts. */
    long long first_start = -1, prev_end = -1;
    bool edges_ok = true;
    for (int k = 0; k < f->numedges; k++) {
        int32_t se = b->surfedges[f->firstedge + k];
        if (se == INT32_MIN || (se < 0 ? -se : se) >= b->numedges) {
            edges_ok = false; /* reported with the surfedges */
            break;
        }
        const dedge_t *e = &b->edges[se < 0 ? -se : se];
        /* long long: QBSP's vertex numbers are 32-bit unsigned */
        long long v0 = se < 0 ? e->v[1] : e->v[0], v1 = se < 0 ? e->v[0] : e->v[1];
        if (v0 >= b->numvertexes || v1 >= b->numvertexes) {
            edges_ok = false;
            break;
        }
        if (k == 0)
            first_start = v0;
        else if (v0 != prev_end) {
            problem(c, "face %d: edge %d starts at vertex %lld but the previous edge ended at %lld (not a closed loop)",
                    i, k, v0, prev_end);
            edges_ok = false;
            break;
        }
        prev_end = v1;
    }
    if (edges_ok && prev_end != first_start)
        problem(c, "face %d: the last edge ends at vertex %lld, not at the first vertex %lld (not a closed loop)", i,
                prev_end, first_start);
    if (!edges_ok || !ok) return;

    /* Lightmaps. */
    const dtexinfo_t *t = &b->texinfo[f->texinfo];
    if (!face_texcoords_sane(b, f)) {
        problem(c, "face %d: texture coordinates are not finite or beyond +-%.0f", i, BSPCHECK_MAX_TEXCOORD);
        return;
    }
    face_extents_t ext;
    q2err_t err;
    if (!bsp_face_extents(b, i, &ext, &err)) return;
    bool warp_sky = (t->flags & (SURF_WARP | SURF_SKY)) != 0;
    if (!warp_sky && (ext.size[0] > MAX_LIGHTMAP_DIM || ext.size[1] > MAX_LIGHTMAP_DIM))
        problem(c, "face %d: lightmap %dx%d is larger than %dx%d (texture '%s')", i, ext.size[0], ext.size[1],
                MAX_LIGHTMAP_DIM, MAX_LIGHTMAP_DIM, t->texture);
    int numstyles = 0;
    while (numstyles < MAXLIGHTMAPS && f->styles[numstyles] != 255) numstyles++;
    for (int s = numstyles; s < MAXLIGHTMAPS; s++)
        if (f->styles[s] != 255) {
            problem(c, "face %d: light style slot %d is used after an unused slot", i, s);
            break;
        }
    /* Engines never read lightmaps of warped and sky surfaces (qrad3
     * leaves them pointing at offset 0), so their offsets are not
     * checked. */
    if (warp_sky || f->lightofs == -1 || numstyles == 0 || bsp_is_unlit(b)) return;
    if (f->lightofs < 0) {
        problem(c, "face %d: lightofs %d is negative (only -1 means none)", i, f->lightofs);
        return;
    }
    if (ext.size[0] < 1 || ext.size[1] < 1) return; /* degenerate extents, covered by the size check */
    long long need = (long long)ext.size[0] * ext.size[1] * 3 * numstyles;
    if ((long long)f->lightofs + need > b->lightdatasize)
        problem(c, "face %d: lightmap at %d (%lld bytes, %dx%d x %d styles) runs past the %d-byte lighting lump",
                i, f->lightofs, need, ext.size[0], ext.size[1], numstyles, b->lightdatasize);
}

/* Faces: with threads, a pass on them finds the faces with any problem
 * (a checker that only counts), then those faces are checked again in face
 * order with the report, so the problems, their order and their count are
 * those of one pass. */
#define CHECK_FACES_CHUNK 64

static void check_faces(checker_t *c)
{
    const bsp_t *b = c->bsp;
    if (!c->dist && c->threads <= 1) {
        for (int i = 0; i < b->numfaces; i++) check_face(c, i);
        return;
    }
    int nf = b->numfaces, nchunk = (nf + CHECK_FACES_CHUNK - 1) / CHECK_FACES_CHUNK;
    uint8_t *bad = q2_malloc((size_t)nf + 1);
    dist_local_t *lt = dist_local_begin(c->dist, nchunk);
#pragma omp parallel for schedule(dynamic, 1) num_threads(c->threads > 0 ? c->threads : 1)
    for (int ch = 0; ch < nchunk; ch++) {
        double t0 = dist_local_start(lt);
        for (int i = ch * CHECK_FACES_CHUNK; i < nf && i < (ch + 1) * CHECK_FACES_CHUNK; i++) {
            checker_t count = {b, NULL, NULL, 0, 0, NULL, 1};
            check_face(&count, i);
            bad[i] = count.count > 0;
        }
        dist_local_done(lt, ch, t0);
    }
    dist_local_end(lt);
    for (int i = 0; i < nf; i++)
        if (bad[i]) check_face(c, i);
    free(bad);
}

static void check_leafs(checker_t *c, int numclusters)
{
    const bsp_t *b = c->bsp;
    if (b->numleafs == 0) {
        problem(c, "leafs: none (leaf 0 must exist and be solid)");
        return;
    }
    if (!(b->leafs[0].contents & CONTENTS_SOLID))
        problem(c, "leaf 0: contents 0x%x is not solid (engines treat leaf 0 as the outside)",
                (unsigned)b->leafs[0].contents);
    for (int i = 0; i < b->numleafs; i++) {
        const dleaf_t *l = &b->leafs[i];
        if (l->cluster < -1 || (numclusters > 0 && l->cluster >= numclusters))
            problem(c, "leaf %d: cluster %d out of range (%d clusters)", i, l->cluster, numclusters);
        if (l->area < 0 || (b->numareas > 0 && l->area >= b->numareas))
            problem(c, "leaf %d: area %d out of range (%d areas)", i, l->area, b->numareas);
        if (!range_ok(l->firstleafface, l->numleaffaces, b->numleaffaces))
            problem(c, "leaf %d: leaffaces %d..%lld out of range (%d leaffaces)", i, l->firstleafface,
                    (long long)l->firstleafface + l->numleaffaces - 1, b->numleaffaces);
        if (!range_ok(l->firstleafbrush, l->numleafbrushes, b->numleafbrushes))
            problem(c, "leaf %d: leafbrushes %d..%lld out of range (%d leafbrushes)", i, l->firstleafbrush,
                    (long long)l->firstleafbrush + l->numleafbrushes - 1, b->numleafbrushes);
    }
    for (int i = 0; i < b->numleaffaces; i++)
        if (b->leaffaces[i] >= (uint32_t)b->numfaces)
            problem(c, "leafface %d: face %d out of range (%d faces)", i, b->leaffaces[i], b->numfaces);
    for (int i = 0; i < b->numleafbrushes; i++)
        if (b->leafbrushes[i] >= (uint32_t)b->numbrushes)
            problem(c, "leafbrush %d: brush %d out of range (%d brushes)", i, b->leafbrushes[i], b->numbrushes);
}

static void check_brushes(checker_t *c)
{
    const bsp_t *b = c->bsp;
    for (int i = 0; i < b->numbrushes; i++)
        if (!range_ok(b->brushes[i].firstside, b->brushes[i].numsides, b->numbrushsides))
            problem(c, "brush %d: sides %d..%lld out of range (%d brushsides)", i, b->brushes[i].firstside,
                    (long long)b->brushes[i].firstside + b->brushes[i].numsides - 1, b->numbrushsides);
    for (int i = 0; i < b->numbrushsides; i++) {
        const dbrushside_t *s = &b->brushsides[i];
        if (s->planenum >= (uint32_t)b->numplanes)
            problem(c, "brushside %d: plane %d out of range (%d planes)", i, s->planenum, b->numplanes);
        /* Bevel sides may have no texinfo (-1). */
        if (s->texinfo < -1 || s->texinfo >= b->numtexinfo)
            problem(c, "brushside %d: texinfo %d out of range (%d texinfos)", i, s->texinfo, b->numtexinfo);
    }
}

static void check_models(checker_t *c)
{
    const bsp_t *b = c->bsp;
    if (b->nummodels == 0) problem(c, "models: none (model 0 is the world)");
    for (int i = 0; i < b->nummodels; i++) {
        const dmodel_t *m = &b->models[i];
        if (m->headnode < 0 || m->headnode >= b->numnodes)
            problem(c, "model %d: head node %d out of range (%d nodes)", i, m->headnode, b->numnodes);
        if (!range_ok(m->firstface, m->numfaces, b->numfaces))
            problem(c, "model %d: faces %d..%lld out of range (%d faces)", i, m->firstface,
                    (long long)m->firstface + m->numfaces - 1, b->numfaces);
        if (!floats_finite(m->mins, 3) || !floats_finite(m->maxs, 3) || !floats_finite(m->origin, 3))
            problem(c, "model %d: bounds or origin not finite", i);
    }
}

/* With threads the clusters are checked on them (a local loop) and the
 * first failing one, in order, checked again for vis_lump_check's message. */
static bool vis_check_threads(checker_t *c, q2err_t *err)
{
    const bsp_t *b = c->bsp;
    if (!vis_lump_check_header(b->visdata, b->visdatasize, err)) return false;
    int n = bsp_num_clusters(b), nchunk = (n + CHECK_FACES_CHUNK - 1) / CHECK_FACES_CHUNK, first = n;
    dist_local_t *lt = dist_local_begin(c->dist, nchunk);
#pragma omp parallel for schedule(dynamic, 1) num_threads(c->threads > 0 ? c->threads : 1) reduction(min : first)
    for (int ch = 0; ch < nchunk; ch++) {
        double t0 = dist_local_start(lt);
        for (int k = ch * CHECK_FACES_CHUNK; k < n && k < (ch + 1) * CHECK_FACES_CHUNK; k++) {
            q2err_t e;
            if (!vis_lump_check_cluster(b->visdata, b->visdatasize, k, &e) && k < first) first = k;
        }
        dist_local_done(lt, ch, t0);
    }
    dist_local_end(lt);
    return first == n || vis_lump_check_cluster(b->visdata, b->visdatasize, first, err);
}

static int check_vis(checker_t *c)
{
    const bsp_t *b = c->bsp;
    if (b->visdatasize == 0) return 0;
    q2err_t err;
    bool ok = c->dist || c->threads > 1 ? vis_check_threads(c, &err) : vis_lump_check(b->visdata, b->visdatasize, &err);
    if (!ok) {
        problem(c, "%s", err.msg);
        return 0;
    }
    return bsp_num_clusters(b);
}

/* Area 0 is the "no area" slot; every portal listed by area a leading to
 * area b must be listed by b leading back to a with the same number, or the
 * engine's flood fill would open a door in one direction only. */
static void check_areas(checker_t *c)
{
    const bsp_t *b = c->bsp;
    if (b->numareas > 0 && b->areas[0].numareaportals != 0)
        problem(c, "area 0: has %d portals (area 0 is reserved)", b->areas[0].numareaportals);
    for (int a = 0; a < b->numareas; a++) {
        const darea_t *ar = &b->areas[a];
        if (!range_ok(ar->firstareaportal, ar->numareaportals, b->numareaportals)) {
            problem(c, "area %d: portals %d..%lld out of range (%d areaportals)", a, ar->firstareaportal,
                    (long long)ar->firstareaportal + ar->numareaportals - 1, b->numareaportals);
            continue;
        }
        for (int k = 0; k < ar->numareaportals; k++) {
            const dareaportal_t *p = &b->areaportals[ar->firstareaportal + k];
            if (p->portalnum < 0 || p->portalnum >= MAX_MAP_AREAPORTALS)
                problem(c, "area %d: portal number %d out of range (0..%d)", a, p->portalnum,
                        MAX_MAP_AREAPORTALS - 1);
            if (p->otherarea < 1 || p->otherarea >= b->numareas) {
                problem(c, "area %d: portal %d leads to area %d, out of range (1..%d)", a, p->portalnum,
                        p->otherarea, b->numareas - 1);
                continue;
            }
            if (p->otherarea == a) problem(c, "area %d: portal %d leads back into the same area", a, p->portalnum);
            const darea_t *other = &b->areas[p->otherarea];
            if (!range_ok(other->firstareaportal, other->numareaportals, b->numareaportals)) continue;
            bool found = false;
            for (int j = 0; j < other->numareaportals && !found; j++) {
                const dareaportal_t *q = &b->areaportals[other->firstareaportal + j];
                found = q->portalnum == p->portalnum && q->otherarea == a;
            }
            if (!found)
                problem(c, "area %d: portal %d to area %d has no matching portal from area %d back", a, p->portalnum,
                        p->otherarea, p->otherarea);
        }
    }
}

static void check_limits(checker_t *c)
{
    q2err_t err;
    if (!bsp_check_limits(c->bsp, &err)) problem(c, "%s", err.msg);
}

/* The checks that read one lump or a few, independent of the others'
 * results: with threads they run side by side (a local loop) with
 * checkers that only count, and then only those that found problems run
 * again, in bsp_check's order, with the report; the faces and the
 * visibility spread over the threads themselves. */
typedef void (*check_fn)(checker_t *c);
enum { T_ENTITIES, T_PLANES, T_VERTEXES, T_TEXINFO, T_NODES, T_MODELS, T_TREE, T_BRUSHES, T_AREAS, T_LIMITS, T_COUNT };
static const check_fn side_checks[T_COUNT] = {check_entities, check_planes, check_vertexes_edges, check_texinfo,
                                              check_nodes,    check_models, check_tree,           check_brushes,
                                              check_areas,    check_limits};

static int check_all(const bsp_t *bsp, int max_problems, bsp_report_fn report, void *ctx, dist_t *dist, int threads)
{
    checker_t c = {bsp, report, ctx, max_problems, 0, dist, threads};
    int found[T_COUNT];
    bool threaded = dist || threads > 1;
    if (threaded) {
        dist_local_t *lt = dist_local_begin(dist, T_COUNT);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads > 0 ? threads : 1)
        for (int t = 0; t < T_COUNT; t++) {
            double t0 = dist_local_start(lt);
            checker_t count = {bsp, NULL, NULL, 0, 0, NULL, 1};
            side_checks[t](&count);
            found[t] = count.count;
            dist_local_done(lt, t, t0);
        }
        dist_local_end(lt);
    }
#define SIDE(t) \
    if (!threaded || found[t]) side_checks[t](&c)
    SIDE(T_ENTITIES);
    SIDE(T_PLANES);
    SIDE(T_VERTEXES);
    SIDE(T_TEXINFO);
    SIDE(T_NODES);
    SIDE(T_MODELS);
    SIDE(T_TREE);
    check_faces(&c);
    int numclusters = check_vis(&c);
    check_leafs(&c, numclusters);
    SIDE(T_BRUSHES);
    SIDE(T_AREAS);
    SIDE(T_LIMITS);
#undef SIDE
    c.count += bspx_check(bsp, c.report && (c.max <= 0 || c.count < c.max) ? c.report : NULL, c.ctx);
    return c.count;
}

int bsp_check(const bsp_t *bsp, int max_problems, bsp_report_fn report, void *ctx)
{
    return check_all(bsp, max_problems, report, ctx, NULL, 1);
}

/* Peculiarities that leave a bsp usable: other compilers' files have them
 * and engines load them, so they are reported apart from problems. Call
 * only on a bsp that bsp_check passed. */
int bsp_check_notes(const bsp_t *b, bsp_report_fn report, void *ctx)
{
    checker_t c = {b, report, ctx, 0, 0, NULL, 1};
    if (bsp_is_unlit(b)) {
        int styled = 0;
        for (int i = 0; i < b->numfaces; i++) styled += b->faces[i].styles[0] != 255;
        if (styled)
            problem(&c, "unlit: no lighting lump, %d of %d faces list light styles (as qbsp3 and q2tools-220 leave "
                    "them); engines draw it fullbright, a light stage lays the lightmaps out anew", styled,
                    b->numfaces);
    }
    int degenerate = 0;
    for (int i = 1; i < b->numedges; i++) degenerate += b->edges[i].v[0] == b->edges[i].v[1];
    if (degenerate) problem(&c, "%d edges start and end at the same vertex (never walked by a face loop)", degenerate);

    unsigned char *used = q2_calloc(b->numplanes ? (size_t)b->numplanes : 1, 1);
    for (int i = 0; i < b->numnodes; i++) used[b->nodes[i].planenum] = 1;
    for (int i = 0; i < b->numfaces; i++) used[b->faces[i].planenum] = 1;
    for (int i = 0; i < b->numbrushsides; i++) used[b->brushsides[i].planenum] = 1;
    int unused = 0;
    /* Planes come in pairs (a plane and its flip); only a pair with neither
     * half used is dead weight. */
    for (int i = 0; i + 1 < b->numplanes; i += 2) unused += !used[i] && !used[i + 1];
    free(used);
    if (unused) problem(&c, "%d plane pairs are used by no node, face or brush side", unused);

    long long model_faces = 0;
    for (int i = 0; i < b->nummodels; i++) model_faces += b->models[i].numfaces;
    if (model_faces != b->numfaces)
        problem(&c, "the models own %lld faces of %d (the rest are drawn by no model)", model_faces, b->numfaces);
    return c.count;
}

static int popcount_row(const uint8_t *row, int rowbytes, int numclusters)
{
    int n = 0;
    for (int i = 0; i < rowbytes; i++)
        for (int bit = 0; bit < 8; bit++)
            if ((row[i] >> bit & 1) && i * 8 + bit < numclusters) n++;
    return n;
}

/* bsp_face_extents trusts the sign of each surfedge; refuse the one value
 * whose negation overflows before calling it. */
static bool face_surfedges_sane(const bsp_t *bsp, const dface_t *f)
{
    if (f->numedges < 3 || !range_ok(f->firstedge, f->numedges, bsp->numsurfedges)) return false;
    for (int k = 0; k < f->numedges; k++) {
        int32_t se = bsp->surfedges[f->firstedge + k];
        if (se == INT32_MIN || (se < 0 ? -se : se) >= bsp->numedges) return false;
        const dedge_t *e = &bsp->edges[se < 0 ? -se : se];
        if (e->v[0] >= (uint32_t)bsp->numvertexes || e->v[1] >= (uint32_t)bsp->numvertexes) return false;
    }
    return f->texinfo >= 0 && f->texinfo < bsp->numtexinfo && face_texcoords_sane(bsp, f);
}

/* avg_visible_faces. A cluster's figure is counted once (a stamp per face
 * says it was met from this cluster already) and weighed by its leaves.
 * Leaves whose face list runs out of the lump, and faces out of range, are
 * left out: bsp_check reports them. */
static void visible_faces(const bsp_t *bsp, int numclusters, int rowbytes, uint8_t *row, bsp_stats_t *out)
{
    if (numclusters <= 0 || bsp->numfaces <= 0) return;
    /* the faces of each cluster's leaves, as one list per cluster */
    int *start = q2_calloc((size_t)numclusters + 1, sizeof *start);
    for (int i = 0; i < bsp->numleafs; i++) {
        const dleaf_t *l = &bsp->leafs[i];
        if (l->cluster >= 0 && l->cluster < numclusters && range_ok(l->firstleafface, l->numleaffaces, bsp->numleaffaces))
            start[l->cluster + 1] += (int)l->numleaffaces;
    }
    for (int c = 0; c < numclusters; c++) start[c + 1] += start[c];
    int *fill = q2_malloc((size_t)numclusters * sizeof *fill);
    memcpy(fill, start, (size_t)numclusters * sizeof *fill);
    uint32_t *faces = q2_malloc(((size_t)start[numclusters] + 1) * sizeof *faces);
    long long leaves = 0;
    for (int i = 0; i < bsp->numleafs; i++) {
        const dleaf_t *l = &bsp->leafs[i];
        if (l->cluster < 0 || l->cluster >= numclusters) continue;
        leaves++;
        if (!range_ok(l->firstleafface, l->numleaffaces, bsp->numleaffaces)) continue;
        for (uint32_t k = 0; k < l->numleaffaces; k++) faces[fill[l->cluster]++] = bsp->leaffaces[l->firstleafface + k];
    }
    int *stamp = q2_malloc((size_t)bsp->numfaces * sizeof *stamp);
    for (int f = 0; f < bsp->numfaces; f++) stamp[f] = -1;
    long long *seen = q2_calloc((size_t)numclusters, sizeof *seen);
    for (int c = 0; c < numclusters; c++) {
        if (!vis_lump_row(bsp->visdata, bsp->visdatasize, c, 0, row)) continue;
        for (int v = 0; v < numclusters && v / 8 < rowbytes; v++) {
            if (!(row[v >> 3] >> (v & 7) & 1)) continue;
            for (int k = start[v]; k < start[v + 1]; k++) {
                uint32_t f = faces[k];
                if (f < (uint32_t)bsp->numfaces && stamp[f] != c) stamp[f] = c, seen[c]++;
            }
        }
    }
    long long total = 0;
    for (int i = 0; i < bsp->numleafs; i++) {
        const dleaf_t *l = &bsp->leafs[i];
        if (l->cluster >= 0 && l->cluster < numclusters) total += seen[l->cluster];
    }
    if (leaves) out->avg_visible_faces = (double)total / (double)leaves;
    free(seen);
    free(stamp);
    free(faces);
    free(fill);
    free(start);
}

void bsp_compute_stats(const bsp_t *bsp, bsp_stats_t *out)
{
    memset(out, 0, sizeof *out);
    q2err_t err;
    if (bsp->visdatasize > 0 && vis_lump_check(bsp->visdata, bsp->visdatasize, &err)) {
        out->have_vis = true;
        out->numclusters = bsp_num_clusters(bsp);
        int rowbytes = vis_row_bytes(out->numclusters);
        uint8_t *row = q2_malloc((size_t)rowbytes + 1);
        long long total[2] = {0, 0};
        int maxv[2] = {0, 0};
        for (int cl = 0; cl < out->numclusters; cl++)
            for (int w = 0; w < 2; w++) {
                if (!vis_lump_row(bsp->visdata, bsp->visdatasize, cl, w, row)) continue;
                int n = popcount_row(row, rowbytes, out->numclusters);
                total[w] += n;
                if (n > maxv[w]) maxv[w] = n;
            }
        visible_faces(bsp, out->numclusters, rowbytes, row, out);
        free(row);
        if (out->numclusters > 0) {
            out->avg_visible = (double)total[0] / out->numclusters;
            out->avg_hearable = (double)total[1] / out->numclusters;
        }
        out->max_visible = maxv[0];
        out->max_hearable = maxv[1];
    }
    if (bsp->nummodels > 0) out->worldfaces = bsp->models[0].numfaces;
    for (int i = 0; i < bsp->numfaces; i++) {
        const dface_t *f = &bsp->faces[i];
        int numstyles = 0;
        while (numstyles < MAXLIGHTMAPS && f->styles[numstyles] != 255) numstyles++;
        if (f->lightofs < 0 || numstyles == 0) continue;
        if (f->texinfo < 0 || f->texinfo >= bsp->numtexinfo ||
            (bsp->texinfo[f->texinfo].flags & (SURF_WARP | SURF_SKY)))
            continue; /* no lightmap in engines, whatever lightofs says */
        face_extents_t ext;
        if (!face_surfedges_sane(bsp, f) || !bsp_face_extents(bsp, i, &ext, &err)) continue;
        out->faces_with_lightmaps++;
        out->lightmap_styles += numstyles;
        out->lightmap_bytes += (long long)ext.size[0] * ext.size[1] * 3 * numstyles;
        if (ext.size[0] >= 1 && ext.size[0] <= BSP_STATS_MAX_DIM && ext.size[1] >= 1 &&
            ext.size[1] <= BSP_STATS_MAX_DIM)
            out->hist[ext.size[0] - 1][ext.size[1] - 1]++;
        else
            out->hist_larger++;
    }
}

typedef struct first_problem_t {
    char msg[Q2ERR_MSG_MAX];
    bool have;
} first_problem_t;

static void keep_first(void *ctx, const char *problem)
{
    first_problem_t *f = ctx;
    if (f->have) return;
    snprintf(f->msg, sizeof f->msg, "%s", problem);
    f->have = true;
}

bool bsp_validate_threads(const bsp_t *bsp, const char *name, dist_t *dist, int threads, q2err_t *err)
{
    first_problem_t first = {{0}, false};
    int n = check_all(bsp, 1000, keep_first, &first, dist, threads);
    if (n == 0) return true;
    return q2err_set(err, name, 0, 0, "not a valid .bsp: %s (%d problem%s; bspinfo --check lists them)", first.msg,
                     n, n == 1 ? "" : "s");
}

bool bsp_validate(const bsp_t *bsp, const char *name, q2err_t *err)
{
    return bsp_validate_threads(bsp, name, NULL, 1, err);
}
