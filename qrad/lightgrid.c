/* LIGHTGRID_OCTREE: light samples on a regular grid over the playable space,
 * which engines (Q2PRO, the re-release) use to light models instead of the
 * lightmap under their feet. Layout, bounds, sample placement and the
 * octree are ericw-tools' (light/lightgrid.cc; docs/formats.md, "BSPX"):
 *
 *  - bounds: the origins of `_lightgrid_hint` entities if they span a box,
 *    else the world model's face vertices; grid_size = ceil(extent / dist)
 *    points per axis, point (x, y, z) at mins + (x, y, z) * dist;
 *  - a point in solid is moved to an open point within LG_FIX_DIST if
 *    there is one, else stored as occluded;
 *  - octree: octants split at mins + size/2, a leaf when an axis has fewer
 *    than 4 points, at depth 5, or when fewer than 8 points are occluded;
 *    a wholly occluded octant is a flag instead of a leaf.
 *
 * A sample is the light arriving at the point from all directions, per
 * style: every light and the sun as if the point faced it (no cosine), the
 * sky dome as an upward-facing floor sees it, and, with bounces, the light
 * the surrounding surfaces reflect (the lit lightmaps times reflectivity,
 * over a fixed set of directions). Bytes are qrad_final_color's, as the
 * lightmaps', so a sample matches the luxels near it.
 *
 * Options: -lightgrid, -lightgrid_dist X Y Z (default 32 32 32); the
 * worldspawn keys "_lightgrid" "1" and "_lightgrid_dist" "X Y Z" (ericw-tools
 * reads worldspawn keys as its options with a leading underscore; the
 * command line wins). Work is per sample, written to its own slot; the
 * ranks share it out row by row (common/dist.h), each pass's samples going
 * to every rank (the next pass interpolates between them) and the last
 * pass's to rank 0 only, which alone builds the octree. */
#include <stdlib.h>
#include <string.h>

#include "lightgrid.h"
#include "color.h"
#include "direct.h"
#include "facegeom.h"
#include "qrad.h"
#include "trace.h"
#include "../common/crmath.h"
#include "../common/dist.h"
#include "../common/mem.h"
#include "../formats/bspx.h"

#define LG_DEFAULT_DIST 32.0
/* How far a sample in solid may move to reach open space (ericw-tools'
 * FixLightOnFace radius for the grid). */
#define LG_FIX_DIST 2.0
#define LG_OCTREE_MAX_DEPTH 5
#define LG_MIN_NODE_DIMENSION 4
#define LG_LEAF_BELOW_OCCLUDED 8
/* Rays that gather reflected light: straight down and up, to the floor and
 * the ceiling, which hold most of what a room reflects; reflected light is
 * smooth, and each ray through the BVH costs as much as several shadow
 * rays. */
#define LG_GATHER_RAYS 2
#define LG_DOME_RAYS 16
/* A light adding less than this (luxel units, before -scale) to a sample
 * is not traced: samples are one byte a channel and light models, not
 * surfaces, and the many dim surface-light pieces of a big map would
 * otherwise take most of the grid's shadow rays. Four times the lightmaps'
 * LIGHT_CUTOFF: one byte step. */
#define LG_CUTOFF (4 * LIGHT_CUTOFF)
/* Distinct styles one sample may collect before the weakest is dropped. */
#define LG_STYLE_SLOTS 8

typedef struct lg_acc_t {
    int n;
    int style[LG_STYLE_SLOTS];
    double rgb[LG_STYLE_SLOTS][3];
} lg_acc_t;

static void acc_add(lg_acc_t *a, int style, vec3_t c)
{
    int k = 0;
    while (k < a->n && a->style[k] != style) k++;
    if (k == a->n) {
        if (a->n == LG_STYLE_SLOTS) return;
        a->style[a->n] = style;
        a->rgb[a->n][0] = a->rgb[a->n][1] = a->rgb[a->n][2] = 0;
        a->n++;
    }
    a->rgb[k][0] += c.x;
    a->rgb[k][1] += c.y;
    a->rgb[k][2] += c.z;
}

/* The falloff of direct.c's point lights, at full facing. */
static double point_falloff(const light_t *l, double dist, vec3_t dir)
{
    if (l->type == LIGHT_SPOT && -vec_dot(dir, l->dir) <= l->stopdot) return 0;
    double d = dist * l->wait;
    switch (l->falloff) {
    case FALLOFF_LINEAR: return l->intensity - d;
    case FALLOFF_INVERSE: return d > 128 ? l->intensity * 128.0 / d : l->intensity;
    case FALLOFF_INVERSE2: return d > 128 ? l->intensity * (128.0 / d) * (128.0 / d) : l->intensity;
    default: return l->intensity;
    }
}

static vec3_t sphere_dir(int k, int n)
{
    double z = 1.0 - 2.0 * (k + 0.5) / n, r = sqrt(fmax(0.0, 1 - z * z)), a = k * 2.39996322972865332;
    return vec3(r * cr_cos(a), r * cr_sin(a), z);
}

/* Per PVS cluster, the lights it can see (the list the samples of that
 * cluster walk instead of every light). */
typedef struct cluster_lights_t {
    int *first; /* numclusters + 1 offsets into list */
    int *list;
    int *all;   /* every light, for samples outside any cluster */
} cluster_lights_t;

static void cluster_lights_build(const qrad_t *q, cluster_lights_t *cl)
{
    int nc = q->pvs ? q->numclusters : 0;
    cl->first = q2_calloc((size_t)nc + 1, sizeof(int));
    /* each cluster's count on the threads, the offsets, then the lists */
    int *count = q2_calloc((size_t)nc + 1, sizeof(int));
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            long n = 0;
            for (int c = 0; c < nc; c++) {
                cl->first[c] = (int)n;
                n += count[c];
            }
            cl->first[nc] = (int)n;
            cl->list = q2_malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
        }
        dist_local_t *lt = dist_local_begin(q->opts->dist, nc);
#pragma omp parallel for schedule(dynamic, 16) num_threads(q->opts->threads)
        for (int c = 0; c < nc; c++) {
            double t0 = dist_local_start(lt);
            int k = 0;
            for (int i = 0; i < q->numlights; i++) {
                if (!qrad_cluster_visible(q, c, q->lights[i].cluster)) continue;
                if (pass == 1) cl->list[cl->first[c] + k] = i;
                k++;
            }
            count[c] = k;
            dist_local_done(lt, c, t0);
        }
        dist_local_end(lt);
    }
    free(count);
    cl->all = q2_malloc(sizeof(int) * (size_t)(q->numlights > 0 ? q->numlights : 1));
    for (int i = 0; i < q->numlights; i++) cl->all[i] = i;
}

static void cluster_lights_free(cluster_lights_t *cl)
{
    free(cl->first);
    free(cl->list);
    free(cl->all);
}

static void sample_point(const qrad_t *q, const cluster_lights_t *cl, vec3_t p, lg_acc_t *acc, long *rays)
{
    int cluster = qrad_point_cluster(q->bsp, p);
    const int *lights = cl->all;
    int nl = q->numlights;
    if (q->pvs && cluster >= 0 && cluster < q->numclusters) {
        lights = cl->list + cl->first[cluster];
        nl = cl->first[cluster + 1] - cl->first[cluster];
    }
    for (int li = 0; li < nl; li++) {
        const light_t *l = &q->lights[lights[li]];
        vec3_t target = l->type == LIGHT_SURFACE ? vec_ma(l->origin, SAMPLE_NUDGE, l->dir) : l->origin;
        vec3_t delta = vec_sub(target, p);
        double dist = vec_len(delta);
        if (dist < 1e-9 || dist > l->range + 2) continue;
        vec3_t dir = vec_scale(delta, 1.0 / dist);
        vec3_t add;
        if (l->type == LIGHT_SURFACE) {
            if (vec_dot(l->dir, vec_sub(p, l->origin)) <= 0) continue;
            double ff;
            if (dist * dist < 16.0 * l->area) ff = polygon_irradiance(l->points, l->numpoints, p, dir);
            else {
                double dot2 = -vec_dot(dir, l->dir);
                if (dot2 <= 0) continue;
                ff = l->area * dot2 / (M_PI * dist * dist);
            }
            if (ff * l->intensity < LG_CUTOFF) continue;
            add = vec_scale(l->color, ff);
        } else {
            double v = point_falloff(l, dist, dir);
            if (v <= LG_CUTOFF) continue;
            add = vec_scale(l->color, v);
        }
        if (!qrad_cluster_visible(q, cluster, l->cluster)) continue;
        (*rays)++;
        if (trace_occluded(q, p, target)) continue;
        acc_add(acc, l->style, add);
    }
    const sun_t *s = &q->sun;
    if (s->on) {
        (*rays)++;
        if (trace_sky(&q->tracer, p, s->dir, 2 * WORLD_EXTENT, NULL) >= 0) acc_add(acc, 0, vec_scale(s->color, s->intensity));
    }
    if (s->dome > 0) {
        double got = 0, norm = 0;
        for (int k = 0; k < LG_DOME_RAYS; k++) {
            vec3_t d = sphere_dir(k, 2 * LG_DOME_RAYS); /* the upper half */
            norm += d.z;
            (*rays)++;
            if (trace_sky(&q->tracer, p, d, 2 * WORLD_EXTENT, NULL) >= 0) got += d.z;
        }
        if (norm > 0) acc_add(acc, 0, vec_scale(s->dome_color, s->dome * got / norm));
    }
    if (q->bounces > 0) {
        vec3_t sum = vec3(0, 0, 0);
        static const vec3_t axes[LG_GATHER_RAYS] = {{0, 0, -1}, {0, 0, 1}};
        for (int k = 0; k < LG_GATHER_RAYS; k++) {
            vec3_t d = axes[k];
            double dist;
            (*rays)++;
            int hf = trace_closest(&q->tracer, p, d, 2 * WORLD_EXTENT, &dist);
            if (hf < 0) continue;
            const rface_t *g = &q->faces[hf];
            if (!g->lit || !g->light || vec_dot(d, g->normal) >= 0) continue;
            double s_, t_;
            rface_world_to_tex(q, hf, vec_ma(p, dist, d), &s_, &t_);
            int i = (int)floor((s_ - g->ext.texturemins[0]) / LIGHTMAP_SCALE + 0.5);
            int j = (int)floor((t_ - g->ext.texturemins[1]) / LIGHTMAP_SCALE + 0.5);
            i = i < 0 ? 0 : i >= g->w ? g->w - 1 : i;
            j = j < 0 ? 0 : j >= g->h ? g->h - 1 : j;
            const float *l = g->light + (size_t)(j * g->w + i) * 3;
            sum = vec_add(sum, vec3(l[0] * g->reflect.x, l[1] * g->reflect.y, l[2] * g->reflect.z));
        }
        acc_add(acc, 0, vec_scale(sum, q->opts->bouncescale / LG_GATHER_RAYS));
    }
}

/* Style 0 first (it carries -ambient), then the others by style number;
 * at most LG_MAX_STYLES, and a style that never reaches a visible level is
 * left out as the lightmaps leave it out. */
static void finish_sample(const qrad_t *q, const lg_acc_t *a, lg_sample_t *out)
{
    memset(out, 0, sizeof *out);
    int order[LG_STYLE_SLOTS], n = 0;
    for (int k = 0; k < a->n; k++) order[n++] = k;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && a->style[order[j]] < a->style[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    bool have0 = false;
    for (int k = 0; k < a->n; k++) have0 |= a->style[k] == 0;
    if (!have0 && q->opts->ambient > 0) {
        float zero[3] = {0, 0, 0};
        out->style[0] = 0;
        qrad_final_color(q->opts, zero, true, out->rgb[0]);
        out->count = 1;
    }
    for (int i = 0; i < n && out->count < LG_MAX_STYLES; i++) {
        int k = order[i];
        float c[3] = {(float)a->rgb[k][0], (float)a->rgb[k][1], (float)a->rgb[k][2]};
        if (a->style[k] != 0 && fmax(c[0], fmax(c[1], c[2])) * q->opts->scale < 0.5) continue;
        out->style[out->count] = (uint8_t)a->style[k];
        qrad_final_color(q->opts, c, a->style[k] == 0, out->rgb[out->count]);
        out->count++;
    }
}

typedef struct lg_build_t {
    const int32_t *size;
    const uint8_t *occluded;
    lightgrid_t *g;
    int capnodes, capleafs;
    const lg_sample_t *grid;
} lg_build_t;

static void count_occ(const lg_build_t *b, const int mins[3], const int size[3], long *occ, long *open)
{
    *occ = *open = 0;
    for (int z = mins[2]; z < mins[2] + size[2]; z++)
        for (int y = mins[1]; y < mins[1] + size[1]; y++)
            for (int x = mins[0]; x < mins[0] + size[0]; x++) {
                if (b->occluded[((size_t)z * b->size[1] + y) * b->size[0] + x]) (*occ)++;
                else (*open)++;
            }
}

static uint32_t build_octree(lg_build_t *b, const int mins[3], const int size[3], int depth)
{
    long occ, open;
    count_occ(b, mins, size, &occ, &open);
    if (!open) return LGNODE_OCCLUDED;
    bool leaf = size[0] < LG_MIN_NODE_DIMENSION || size[1] < LG_MIN_NODE_DIMENSION ||
                size[2] < LG_MIN_NODE_DIMENSION || depth == LG_OCTREE_MAX_DEPTH || occ < LG_LEAF_BELOW_OCCLUDED;
    lightgrid_t *g = b->g;
    if (leaf) {
        if (g->numleafs == b->capleafs) {
            b->capleafs = b->capleafs * 2 + 16;
            g->leafs = q2_realloc(g->leafs, sizeof(lg_leaf_t) * (size_t)b->capleafs);
        }
        lg_leaf_t *l = &g->leafs[g->numleafs];
        memcpy(l->mins, mins, sizeof l->mins);
        memcpy(l->size, size, sizeof l->size);
        size_t count = (size_t)size[0] * size[1] * size[2];
        l->firstsample = g->numsamples;
        g->samples = q2_realloc(g->samples, sizeof(lg_sample_t) * (g->numsamples + count));
        for (int z = mins[2]; z < mins[2] + size[2]; z++)
            for (int y = mins[1]; y < mins[1] + size[1]; y++)
                for (int x = mins[0]; x < mins[0] + size[0]; x++)
                    g->samples[g->numsamples++] = b->grid[((size_t)z * b->size[1] + y) * b->size[0] + x];
        return LGNODE_LEAF | (uint32_t)g->numleafs++;
    }
    int div[3];
    for (int a = 0; a < 3; a++) div[a] = mins[a] + size[a] / 2;
    uint32_t children[8];
    for (int i = 0; i < 8; i++) {
        int cm[3], cs[3];
        for (int a = 0; a < 3; a++) {
            int bit = a == 0 ? 4 : a == 1 ? 2 : 1;
            if (i & bit) {
                cm[a] = div[a];
                cs[a] = mins[a] + size[a] - div[a];
            } else {
                cm[a] = mins[a];
                cs[a] = div[a] - mins[a];
            }
        }
        children[i] = build_octree(b, cm, cs, depth + 1);
    }
    if (g->numnodes == b->capnodes) {
        b->capnodes = b->capnodes * 2 + 16;
        g->nodes = q2_realloc(g->nodes, sizeof(lg_node_t) * (size_t)b->capnodes);
    }
    lg_node_t *n = &g->nodes[g->numnodes];
    memcpy(n->division, div, sizeof div);
    memcpy(n->children, children, sizeof children);
    return (uint32_t)g->numnodes++;
}

static const entity_t *worldspawn(const qrad_t *q)
{
    for (int i = 0; i < q->ents.count; i++)
        if (!strcmp(entity_classname(&q->ents.ents[i]), "worldspawn")) return &q->ents.ents[i];
    return NULL;
}

static bool grid_bounds(const qrad_t *q, vec3_t *mins, vec3_t *maxs)
{
    aabb_t hint = aabb_empty();
    int nhints = 0;
    for (int i = 0; i < q->ents.count; i++) {
        const entity_t *e = &q->ents.ents[i];
        vec3_t o = vec3(0, 0, 0);
        if (entity_get_float(e, "_lightgrid_hint", 0) == 0) continue;
        entity_get_vec3(e, "origin", &o);
        aabb_add_point(&hint, o);
        nhints++;
    }
    if (nhints && hint.maxs.x > hint.mins.x && hint.maxs.y > hint.mins.y && hint.maxs.z > hint.mins.z) {
        *mins = hint.mins;
        *maxs = hint.maxs;
        return true;
    }
    aabb_t b = aabb_empty();
    const dmodel_t *m = &q->bsp->models[0];
    for (int f = m->firstface; f < m->firstface + m->numfaces && f < q->bsp->numfaces; f++)
        for (int k = 0; k < q->faces[f].numpoints; k++) aabb_add_point(&b, q->faces[f].points[k]);
    if (!(b.maxs.x >= b.mins.x)) return false;
    *mins = b.mins;
    *maxs = b.maxs;
    return true;
}

static const double lg_fix[6][3] = {{0, 0, LG_FIX_DIST},  {0, 0, -LG_FIX_DIST}, {LG_FIX_DIST, 0, 0},
                                    {-LG_FIX_DIST, 0, 0}, {0, LG_FIX_DIST, 0},  {0, -LG_FIX_DIST, 0}};

static bool leaf_open(const bsp_t *bsp, int n, vec3_t p)
{
    int guard = 0;
    while (n >= 0) {
        if (n >= bsp->numnodes || ++guard > 100000) return true;
        const dnode_t *node = &bsp->nodes[n];
        const dplane_t *pl = &bsp->planes[node->planenum];
        double d = p.x * pl->normal[0] + p.y * pl->normal[1] + p.z * pl->normal[2] - pl->dist;
        n = node->children[d >= 0 ? 0 : 1];
    }
    int leaf = -1 - n;
    return !(leaf < bsp->numleafs && (bsp->leafs[leaf].contents & CONTENTS_SOLID));
}

/* The first open point of p and its six moves of LG_FIX_DIST (what
 * qrad_point_solid would say of each in turn), in one walk down the tree
 * while the seven points are on one side of every plane: a move changes a
 * plane's distance by at most LG_FIX_DIST, so they part only where the
 * centre is that close. Most grid points are deep in solid, where this
 * saves six walks. */
bool qrad_fix_point(const bsp_t *bsp, vec3_t *p)
{
    if (bsp->numnodes == 0 || bsp->nummodels == 0) return true;
    int n = bsp->models[0].headnode, guard = 0;
    while (n >= 0 && n < bsp->numnodes && ++guard <= 100000) {
        const dnode_t *node = &bsp->nodes[n];
        const dplane_t *pl = &bsp->planes[node->planenum];
        double d = p->x * pl->normal[0] + p->y * pl->normal[1] + p->z * pl->normal[2] - pl->dist;
        if (fabs(d) <= LG_FIX_DIST + ON_EPSILON) break;
        n = node->children[d >= 0 ? 0 : 1];
    }
    for (int k = 0; k < 7; k++) {
        vec3_t t = k == 0 ? *p : vec_add(*p, vec3(lg_fix[k - 1][0], lg_fix[k - 1][1], lg_fix[k - 1][2]));
        if (leaf_open(bsp, n, t)) {
            *p = t;
            return true;
        }
    }
    return false;
}

/* The open neighbours of a later-pass point agree when they hold the same
 * styles and each channel is within LG_AGREE bytes (or 10%) of the others. */
#define LG_AGREE 3

static bool interpolate(const lightgrid_t *g, const lg_sample_t *grid, const uint8_t *occluded, const int c[3],
                        int step, lg_sample_t *out)
{
    int odd[3], nodd = 0;
    for (int a = 0; a < 3; a++)
        if (c[a] & step) odd[nodd++] = a;
    const lg_sample_t *nb[8];
    int nn = 0;
    for (int m = 0; m < 1 << nodd; m++) {
        int p[3] = {c[0], c[1], c[2]};
        for (int k = 0; k < nodd; k++) p[odd[k]] += (m >> k) & 1 ? step : -step;
        bool inside = true;
        for (int a = 0; a < 3; a++) inside &= p[a] >= 0 && p[a] < g->size[a];
        if (!inside) continue;
        size_t i = ((size_t)p[2] * g->size[1] + p[1]) * g->size[0] + p[0];
        if (!occluded[i]) nb[nn++] = &grid[i];
    }
    /* Neighbours in solid (a wall between) say nothing; two open ones that
     * agree are enough. */
    if (nn < 2) return false;
    memset(out, 0, sizeof *out);
    out->count = nb[0]->count;
    for (int s = 0; s < nb[0]->count; s++) {
        out->style[s] = nb[0]->style[s];
        for (int ch = 0; ch < 3; ch++) {
            int lo = 255, hi = 0, sum = 0;
            for (int m = 0; m < nn; m++) {
                if (nb[m]->count != nb[0]->count || nb[m]->style[s] != nb[0]->style[s]) return false;
                int v = nb[m]->rgb[s][ch];
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
                sum += v;
            }
            if (hi - lo > LG_AGREE && hi - lo > hi / 10) return false;
            out->rgb[s][ch] = (uint8_t)((sum + nn / 2) / nn);
        }
    }
    return true;
}

/* One pass over the grid, a row of points along x per item. */
typedef struct lg_pass_t {
    const qrad_t *q;
    const lightgrid_t *g;
    const cluster_lights_t *cl;
    lg_sample_t *grid;
    uint8_t *occluded;
    int pass;
} lg_pass_t;

/* Three passes, as the direct pass lights luxels in two: first the points
 * whose coordinates are all multiples of 4, then those of 2, then the
 * rest; each later point lies between 2, 4 or 8 points of the pass before
 * (step 2, then 1 away), and one whose neighbours are all open and agree
 * takes their mean, any other is traced. */
static int point_pass(int x, int y, int z)
{
    int any = x | y | z;
    return (any & 1) ? 2 : (any & 2) ? 1 : 0;
}

static void light_row(const lg_pass_t *x, long row, long *rays, long *traced)
{
    const lightgrid_t *g = x->g;
    int y = (int)(row % g->size[1]), z = (int)(row / g->size[1]);
    for (int cx = 0; cx < g->size[0]; cx++) {
        if (point_pass(cx, y, z) != x->pass) continue;
        int c[3] = {cx, y, z};
        size_t idx = (size_t)row * g->size[0] + cx;
        vec3_t p = vec3(g->mins[0] + c[0] * (double)g->dist[0], g->mins[1] + c[1] * (double)g->dist[1],
                        g->mins[2] + c[2] * (double)g->dist[2]);
        if (!qrad_fix_point(x->q->bsp, &p)) {
            x->occluded[idx] = 1;
            x->grid[idx].count = LG_OCCLUDED_MARK;
        } else if (x->pass > 0 && interpolate(g, x->grid, x->occluded, c, x->pass == 1 ? 2 : 1, &x->grid[idx])) {
            /* taken from the neighbours */
        } else {
            lg_acc_t acc = {0};
            long r = 0;
            sample_point(x->q, x->cl, p, &acc, &r);
            *rays += r;
            (*traced)++;
            finish_sample(x->q, &acc, &x->grid[idx]);
        }
    }
}

/* A row's samples as they travel: per point of the pass, its count byte
 * (LG_OCCLUDED_MARK: occluded), then, when open, the rest of the sample as
 * it is in memory (unused slots zero), so every rank holds the same bytes. */
#define LG_SAMPLE_REST (sizeof(lg_sample_t) - 1)

static size_t row_size(void *ctx, long row)
{
    const lg_pass_t *x = ctx;
    const lightgrid_t *g = x->g;
    int y = (int)(row % g->size[1]), z = (int)(row / g->size[1]);
    size_t n = 0;
    for (int cx = 0; cx < g->size[0]; cx++)
        if (point_pass(cx, y, z) == x->pass)
            n += 1 + (x->occluded[(size_t)row * g->size[0] + cx] ? 0 : LG_SAMPLE_REST);
    return n;
}

static void row_pack(void *ctx, long row, uint8_t *out)
{
    const lg_pass_t *x = ctx;
    const lightgrid_t *g = x->g;
    int y = (int)(row % g->size[1]), z = (int)(row / g->size[1]);
    for (int cx = 0; cx < g->size[0]; cx++) {
        if (point_pass(cx, y, z) != x->pass) continue;
        size_t idx = (size_t)row * g->size[0] + cx;
        const lg_sample_t *sm = &x->grid[idx];
        *out++ = x->occluded[idx] ? LG_OCCLUDED_MARK : sm->count;
        if (x->occluded[idx]) continue;
        memcpy(out, sm->style, sizeof sm->style);
        memcpy(out + sizeof sm->style, sm->rgb, sizeof sm->rgb);
        out += LG_SAMPLE_REST;
    }
}

static void row_unpack(void *ctx, long row, const uint8_t *in, size_t size)
{
    const lg_pass_t *x = ctx;
    const lightgrid_t *g = x->g;
    const uint8_t *end = in + size;
    int y = (int)(row % g->size[1]), z = (int)(row / g->size[1]);
    for (int cx = 0; cx < g->size[0] && in < end; cx++) {
        if (point_pass(cx, y, z) != x->pass) continue;
        size_t idx = (size_t)row * g->size[0] + cx;
        lg_sample_t *sm = &x->grid[idx];
        memset(sm, 0, sizeof *sm);
        sm->count = *in++;
        x->occluded[idx] = sm->count == LG_OCCLUDED_MARK;
        if (x->occluded[idx] || (size_t)(end - in) < LG_SAMPLE_REST) continue;
        memcpy(sm->style, in, sizeof sm->style);
        memcpy(sm->rgb, in + sizeof sm->style, sizeof sm->rgb);
        in += LG_SAMPLE_REST;
    }
}

bool qrad_lightgrid(qrad_t *q, q2err_t *err)
{
    const entity_t *world = worldspawn(q);
    bool on = q->opts->lightgrid || (world && entity_get_float(world, "_lightgrid", 0) != 0);
    if (!on) return true;
    double dist[3] = {LG_DEFAULT_DIST, LG_DEFAULT_DIST, LG_DEFAULT_DIST};
    vec3_t wd;
    if (q->opts->lightgrid_dist_set) memcpy(dist, q->opts->lightgrid_dist, sizeof dist);
    else if (world && entity_get_vec3(world, "_lightgrid_dist", &wd)) {
        dist[0] = wd.x;
        dist[1] = wd.y;
        dist[2] = wd.z;
    }
    for (int a = 0; a < 3; a++)
        if (!(dist[a] >= 1 && dist[a] <= 4096))
            return q2err_set(err, NULL, 0, 0, "light grid spacing %g on axis %d: expected 1..4096", dist[a], a);
    vec3_t mins, maxs;
    if (!grid_bounds(q, &mins, &maxs)) {
        log_warn(q->log, "no world faces: no light grid written");
        return true;
    }
    lightgrid_t g;
    memset(&g, 0, sizeof g);
    for (int a = 0; a < 3; a++) {
        g.dist[a] = (float)dist[a];
        g.mins[a] = (float)vec_comp(mins, a);
        double n = ceil((vec_comp(maxs, a) - vec_comp(mins, a)) / dist[a]);
        g.size[a] = n < 1 ? 1 : (int32_t)n;
    }
    size_t total = (size_t)g.size[0] * g.size[1] * g.size[2];
    if (total > (size_t)64 << 20)
        return q2err_set(err, NULL, 0, 0, "light grid of %d x %d x %d points is too large; raise -lightgrid_dist",
                         g.size[0], g.size[1], g.size[2]);
    lg_sample_t *grid = q2_calloc(total, sizeof *grid);
    uint8_t *occluded = q2_calloc(total, 1);
    long rays = 0;
    cluster_lights_t cl;
    cluster_lights_build(q, &cl);
    progress_t pr;
    progress_begin(&pr, q->log, "lightgrid", 3 * (long)g.size[1] * g.size[2]);
    long traced = 0;
    long rows = (long)g.size[1] * g.size[2];
    static const dist_codec_t codec = {row_size, row_pack, row_unpack, true};
    for (int pass = 0; pass < 3; pass++) {
        lg_pass_t x = {q, &g, &cl, grid, occluded, pass};
        /* the next pass reads this one's samples; only rank 0 reads the last */
        dist_loop_t *dl = pass < 2 ? dist_loop_begin(q->opts->dist, rows, &codec, &x)
                                   : dist_loop_begin_to_root(q->opts->dist, rows, &codec, &x);
#pragma omp parallel num_threads(q->opts->threads) reduction(+ : rays, traced)
        for (long row; dist_loop_next(dl, &row);) {
            light_row(&x, row, &rays, &traced);
            progress_update(&pr, pass * rows + dist_loop_finished(dl, row));
        }
        dist_loop_end(dl);
    }
    progress_end(&pr);
    cluster_lights_free(&cl);
    long sums[2] = {rays, traced};
    dist_sum_long(q->opts->dist, sums, 2);
    q->rays += sums[0];
    traced = sums[1];
    if (!dist_is_root(q->opts->dist)) {
        /* rank 0 alone has every sample, and alone writes */
        free(grid);
        free(occluded);
        return true;
    }
    for (size_t k = 0; k < total; k++)
        if (!occluded[k] && grid[k].count > g.numstyles) g.numstyles = grid[k].count;
    lg_build_t b = {g.size, occluded, &g, 0, 0, grid};
    int m0[3] = {0, 0, 0}, s0[3] = {g.size[0], g.size[1], g.size[2]};
    g.root = build_octree(&b, m0, s0, 0);
    free(grid);
    free(occluded);
    uint8_t *data;
    size_t size;
    bool ok = lightgrid_encode(&g, &data, &size, err);
    if (ok) {
        log_verbose(q->log, "light grid: %d x %d x %d points (%ld traced, the rest interpolated or in solid), %d nodes, "
                            "%d leafs, %zu bytes",
                    g.size[0], g.size[1], g.size[2], traced, g.numnodes, g.numleafs, size);
        ok = bspx_put_lump(q->bsp, "LIGHTGRID_OCTREE", data, size, err);
        free(data);
    }
    lightgrid_free(&g);
    return ok;
}

bool qrad_drop_stale_lumps(qrad_t *q, q2err_t *err)
{
    const entity_t *world = worldspawn(q);
    bool grid = q->opts->lightgrid || (world && entity_get_float(world, "_lightgrid", 0) != 0);
    struct {
        const char *name;
        bool written;
    } lumps[] = {{"LIGHTGRID_OCTREE", grid},
                 {"FACENORMALS", q->opts->wrnormals},
                 {"DECOUPLED_LM", q->world_upl > 0}};
    for (size_t i = 0; i < sizeof lumps / sizeof lumps[0]; i++)
        if (!lumps[i].written && bspx_has_lump(q->bsp, lumps[i].name) &&
            !bspx_put_lump(q->bsp, lumps[i].name, NULL, 0, err))
            return false;
    return true;
}
