/* Per-face geometry: the face's polygon, facing plane, lightmap extents (from
 * formats/lightmap.h, so sizes are exactly the engines') and the world
 * position of every luxel sample.
 *
 * A luxel's texture-space point can lie outside its face (the lightmap grid
 * covers the face's bounding rectangle), and for faces at a room's edge that
 * point is inside the wall or in the room behind it. Every sample is
 * therefore moved to the nearest point of the face's own polygon, pulled a
 * unit inside it, lifted SAMPLE_NUDGE off the plane and, should it still be
 * in a solid leaf of the bsp tree, walked towards the face's centre. Faces
 * meeting at an edge then sample the same edge points, so there is no seam. */
#include <stdlib.h>
#include <string.h>

#include "facegeom.h"
#include "qrad.h"
#include "trace.h"
#include "../common/crmath.h"
#include "../common/dist.h"
#include "../common/mem.h"

/* The vertex at corner k of a face: a negative surfedge walks its edge
 * backwards. */
static int face_vertex(const bsp_t *bsp, const dface_t *df, int k)
{
    int se = bsp->surfedges[df->firstedge + k];
    return se < 0 ? bsp->edges[-se].v[1] : bsp->edges[se].v[0];
}

static int face_model(const bsp_t *bsp, int f)
{
    for (int m = 0; m < bsp->nummodels; m++)
        if (f >= bsp->models[m].firstface && f < bsp->models[m].firstface + bsp->models[m].numfaces) return m;
    return 0;
}

/* Origins of bmodels whose entity has an "origin" (rotating brushes built
 * around an origin brush are stored around 0,0,0). */
static void model_offsets(const qrad_t *q, vec3_t *offs)
{
    for (int m = 0; m < q->bsp->nummodels; m++) offs[m] = vec3(0, 0, 0);
    for (int e = 0; e < q->ents.count; e++) {
        const char *model = entity_get(&q->ents.ents[e], "model");
        if (!model || model[0] != '*') continue;
        int m = atoi(model + 1);
        vec3_t o;
        if (m > 0 && m < q->bsp->nummodels && entity_get_vec3(&q->ents.ents[e], "origin", &o)) offs[m] = o;
    }
}


vec3_t rface_tex_to_world(const rface_t *f, double s, double t)
{
    const double(*m)[4] = f->tex_to_world;
    return vec3(m[0][0] * s + m[0][1] * t + m[0][2], m[1][0] * s + m[1][1] * t + m[1][2],
                m[2][0] * s + m[2][1] * t + m[2][2]);
}

void rface_world_to_tex(const qrad_t *q, int face, vec3_t p, double *s, double *t)
{
    const rface_t *f = &q->faces[face];
    const dtexinfo_t *ti = &q->bsp->texinfo[q->bsp->faces[face].texinfo];
    vec3_t l = vec_sub(p, f->offset);
    *s = l.x * ti->vecs[0][0] + l.y * ti->vecs[0][1] + l.z * ti->vecs[0][2] + ti->vecs[0][3];
    *t = l.x * ti->vecs[1][0] + l.y * ti->vecs[1][1] + l.z * ti->vecs[1][2] + ti->vecs[1][3];
}

static vec3_t closest_on_segment(vec3_t a, vec3_t b, vec3_t p)
{
    vec3_t e = vec_sub(b, a);
    double l2 = vec_dot(e, e);
    double t = l2 > 0 ? vec_dot(vec_sub(p, a), e) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return vec_ma(a, t, e);
}

vec3_t rface_clamp(const rface_t *f, vec3_t p)
{
    if (f->numpoints < 3) return f->centroid;
    p = vec_ma(p, -(vec_dot(f->normal, p) - vec_dot(f->normal, f->centroid)), f->normal);
    bool inside = true;
    for (int i = 0; i < f->numpoints; i++) {
        vec3_t a = f->points[i], b = f->points[(i + 1) % f->numpoints];
        vec3_t in = vec_cross(f->normal, vec_sub(b, a));
        if (vec_dot(in, vec_sub(f->centroid, a)) < 0) in = vec_neg(in);
        if (vec_dot(in, vec_sub(p, a)) < 0) {
            inside = false;
            break;
        }
    }
    if (inside) return p;
    double best = INFINITY;
    vec3_t bp = f->centroid;
    for (int i = 0; i < f->numpoints; i++) {
        vec3_t c = closest_on_segment(f->points[i], f->points[(i + 1) % f->numpoints], p);
        double d = vec_len(vec_sub(c, p));
        if (d < best) {
            best = d;
            bp = c;
        }
    }
    return bp;
}

/* Pull a point on the polygon a unit towards the centre (less for tiny faces). */
static vec3_t pull_inside(const rface_t *f, vec3_t p)
{
    double len;
    vec3_t d = vec_normalize(vec_sub(f->centroid, p), &len);
    double step = len < 2.0 ? len * 0.5 : 1.0;
    return vec_ma(p, step, d);
}

/* Barycentric interpolation of the vertex normals over the fan triangle
 * that holds p (a point on the face's polygon). */
static vec3_t luxel_normal(const rface_t *f, vec3_t p)
{
    for (int k = 1; k + 1 < f->numpoints; k++) {
        vec3_t a = f->points[0], b = f->points[k], c = f->points[k + 1];
        vec3_t n = vec_cross(vec_sub(b, a), vec_sub(c, a));
        double area2 = vec_dot(n, n);
        if (area2 < 1e-12) continue;
        double wa = vec_dot(vec_cross(vec_sub(b, p), vec_sub(c, p)), n) / area2;
        double wb = vec_dot(vec_cross(vec_sub(c, p), vec_sub(a, p)), n) / area2;
        double wc = 1 - wa - wb;
        if (wa >= -1e-6 && wb >= -1e-6 && wc >= -1e-6) {
            vec3_t r = vec_add(vec_add(vec_scale(f->vnormals[0], wa), vec_scale(f->vnormals[k], wb)),
                               vec_scale(f->vnormals[k + 1], wc));
            double len;
            r = vec_normalize(r, &len);
            return len > 0 && vec_dot(r, f->normal) > 0 ? r : f->normal;
        }
    }
    return f->normal;
}

/* qrad3's leaf of a point (its PointInLeafnum): a point on a node's plane
 * goes to the back child, where qrad_point_leaf sends it to the front. The
 * lightmap grid lies on the 16-unit grid, as do most walls, so texel corners
 * are often exactly on a plane and the side decides solid or open. */
static int qrad3_leaf(const bsp_t *bsp, vec3_t p) { return qrad_point_leaf_side(bsp, p, true); }

/* A sample's cluster: the world's by qrad's own leaf (given: the caller
 * has it); a brush model's none (-1: it sees every light), or under
 * qrad3_model_pvs the cluster qrad3 finds there (it culls every sample by
 * its PVS, brush models' too). */
static int sample_cluster(const qrad_t *q, const rface_t *f, vec3_t p, int worldleaf)
{
    if (f->model == 0) return qrad_leaf_cluster(q->bsp, worldleaf);
    if (!q->opts->qrad3_model_pvs) return -1;
    return qrad_leaf_cluster(q->bsp, qrad3_leaf(q->bsp, p));
}

void qrad_face_samples(const qrad_t *q, rface_t *f)
{
    int n = f->w * f->h;
    f->samples = q2_malloc(sizeof(vec3_t) * n);
    f->clusters = q2_malloc(sizeof(int) * n);
    f->lnormals = f->vnormals ? q2_malloc(sizeof(vec3_t) * n) : NULL;
    vec3_t safe = vec_ma(f->centroid, SAMPLE_NUDGE, f->normal);
    /* the points first, then their leaves from the deepest node all of
     * their walks pass through (trace_point_start) */
    aabb_t box = aabb_empty();
    for (int j = 0; j < f->h; j++)
        for (int i = 0; i < f->w; i++) {
            double s = f->ext.texturemins[0] + i * LIGHTMAP_SCALE, t = f->ext.texturemins[1] + j * LIGHTMAP_SCALE;
            vec3_t p = rface_tex_to_world(f, s, t);
            p = pull_inside(f, rface_clamp(f, p));
            if (f->vnormals) f->lnormals[j * f->w + i] = luxel_normal(f, p);
            p = vec_ma(p, SAMPLE_NUDGE, f->normal);
            f->samples[j * f->w + i] = p;
            aabb_add_point(&box, p);
        }
    const int start = f->model == 0 ? trace_point_start(q, box) : -1;
    for (int j = 0; j < f->h; j++)
        for (int i = 0; i < f->w; i++) {
            vec3_t p = f->samples[j * f->w + i];
            /* Still in solid (a face touching a brush it was not clipped
             * against): walk towards the centre, which qbsp guarantees is in
             * the open for a visible face. One walk down the tree gives both
             * whether p is solid and, where it is not, its cluster. */
            int leaf = f->model == 0 ? trace_point_leaf_from(q, start, p) : -1;
            if (qrad_leaf_solid(q->bsp, leaf)) {
                vec3_t from = p;
                for (int k = 1; k <= 4; k++) {
                    p = vec_lerp(from, safe, k / 4.0);
                    leaf = trace_point_leaf(q, p);
                    if (!qrad_leaf_solid(q->bsp, leaf)) break;
                }
            }
            f->samples[j * f->w + i] = p;
            f->clusters[j * f->w + i] = sample_cluster(q, f, p, leaf);
        }
}

/* qrad3's lift off the plane: a unit of plane distance along the line that
 * keeps s and t (qrad3's CalcFaceVectors projects its texture origin that
 * way); qrad3_grid_point adds it to texture point (s, t). */
static vec3_t qrad3_lift(const rface_t *f)
{
    vec3_t lift = vec3(f->tex_to_world[0][3], f->tex_to_world[1][3], f->tex_to_world[2][3]);
    double k = vec_dot(lift, f->normal);
    return fabs(k) > 1e-9 ? vec_scale(lift, 1.0 / k) : f->normal;
}

static vec3_t qrad3_grid_point(const rface_t *f, vec3_t lift, double s, double t)
{
    return vec_add(rface_tex_to_world(f, s, t), lift);
}

void qrad3_face_samples(const qrad_t *q, rface_t *f)
{
    /* qrad3's CalcPoints (lightmap.c): each luxel samples its texel corner
     * as it is, even off the face's polygon (no clamp); only a corner in a
     * solid leaf, or one the face's middle cannot see through the world's
     * solid leaves, is moved towards the middle of the face's texture
     * extents, 8 texture units at a time on t then s in turn (never past
     * the middle), tested at most 6 times: the sixth point stays even if
     * it fails. Every face does this, brush models' too (their origin
     * added), against the world alone. */
    const bsp_t *bsp = q->bsp;
    int n = f->w * f->h;
    f->samples = q2_malloc(sizeof(vec3_t) * n);
    f->clusters = q2_malloc(sizeof(int) * n);
    f->lnormals = f->vnormals ? q2_malloc(sizeof(vec3_t) * n) : NULL;
    double mids = (f->ext.mins[0] + f->ext.maxs[0]) * 0.5, midt = (f->ext.mins[1] + f->ext.maxs[1]) * 0.5;
    const vec3_t lift = qrad3_lift(f);
    vec3_t mid = qrad3_grid_point(f, lift, mids, midt);
    for (int j = 0; j < f->h; j++)
        for (int i = 0; i < f->w; i++) {
            double us = f->ext.texturemins[0] + i * LIGHTMAP_SCALE, ut = f->ext.texturemins[1] + j * LIGHTMAP_SCALE;
            vec3_t p = mid;
            for (int k = 0; k < 6; k++) {
                p = qrad3_grid_point(f, lift, us, ut);
                int leaf = qrad3_leaf(bsp, p);
                if ((leaf < 0 || bsp->leafs[leaf].contents != CONTENTS_SOLID) && !trace_occluded(q, mid, p)) break;
                double *u = (k & 1) ? &us : &ut, m = (k & 1) ? mids : midt;
                *u = *u > m ? fmax(*u - 8, m) : fmin(*u + 8, m);
            }
            f->samples[j * f->w + i] = p;
            f->clusters[j * f->w + i] = sample_cluster(q, f, p, f->model == 0 ? trace_point_leaf(q, p) : -1);
            /* qrad3 has no phong; -smooth after the preset shades by the
             * polygon's point nearest the sample */
            if (f->vnormals) f->lnormals[j * f->w + i] = luxel_normal(f, rface_clamp(f, p));
        }
}

/* Phong: each vertex of a smoothed face gets the area-weighted mean normal
 * of the faces sharing that bsp vertex whose normals are within its
 * model's angle (-smooth for the world, _phong/_phong_angle per entity) of
 * its own, among the faces of its model or of models in its _phong_group;
 * faces whose vertex normals all equal their plane's stay flat (no
 * per-luxel normals). */
static bool phong_face(const qrad_t *q, const rface_t *f)
{
    return f->lit && q->mkeys[f->keys].phong_angle > 0;
}

static bool phong_partners(const qrad_t *q, const rface_t *f, const rface_t *g)
{
    if (f->model == g->model && f->keys == g->keys) return true;
    int a = q->mkeys[f->keys].phong_group, b = q->mkeys[g->keys].phong_group;
    return a != 0 && a == b;
}

static void phong_setup(qrad_t *q)
{
    const bsp_t *bsp = q->bsp;
    int nv = bsp->numvertexes, nf = bsp->numfaces;
    int nchunk = (nf + QRAD_LOCAL_CHUNK - 1) / QRAD_LOCAL_CHUNK;
    /* The smoothed faces' vertices in face order (reading the faces is most
     * of the time: on the rank's threads, counted, then filled), then per
     * vertex the faces that use it, in face order. */
    int *start = q2_malloc(sizeof(int) * ((size_t)nf + 1));
    start[0] = 0;
    dist_local_t *lt = dist_local_begin(q->opts->dist, nchunk);
#pragma omp parallel for schedule(dynamic, 1) num_threads(q->opts->threads)
    for (int ch = 0; ch < nchunk; ch++) {
        double t0 = dist_local_start(lt);
        for (int fi = ch * QRAD_LOCAL_CHUNK; fi < nf && fi < (ch + 1) * QRAD_LOCAL_CHUNK; fi++)
            start[fi + 1] = phong_face(q, &q->faces[fi]) ? q->faces[fi].numpoints : 0;
        dist_local_done(lt, ch, t0);
    }
    dist_local_end(lt);
    for (int fi = 0; fi < nf; fi++) start[fi + 1] += start[fi];
    int nuse = start[nf];
    int *verts = q2_malloc(sizeof(int) * (nuse > 0 ? nuse : 1));
    lt = dist_local_begin(q->opts->dist, nchunk);
#pragma omp parallel for schedule(dynamic, 1) num_threads(q->opts->threads)
    for (int ch = 0; ch < nchunk; ch++) {
        double t0 = dist_local_start(lt);
        for (int fi = ch * QRAD_LOCAL_CHUNK; fi < nf && fi < (ch + 1) * QRAD_LOCAL_CHUNK; fi++)
            for (int k = 0; k < start[fi + 1] - start[fi]; k++) verts[start[fi] + k] = face_vertex(bsp, &bsp->faces[fi], k);
        dist_local_done(lt, ch, t0);
    }
    dist_local_end(lt);
    int *count = q2_calloc(nv + 1, sizeof(int));
    for (int e = 0; e < nuse; e++) count[verts[e] + 1]++;
    for (int v = 0; v < nv; v++) count[v + 1] += count[v];
    int *list = q2_malloc(sizeof(int) * (count[nv] > 0 ? count[nv] : 1));
    int *fill = q2_calloc(nv, sizeof(int));
    for (int fi = 0; fi < nf; fi++)
        for (int e = start[fi]; e < start[fi + 1]; e++) {
            int v = verts[e];
            list[count[v] + fill[v]++] = fi;
        }
    free(start);
    free(verts);
    /* each face's vertex normals read only the lists and other faces' planes */
    lt = dist_local_begin(q->opts->dist, nchunk);
#pragma omp parallel for schedule(dynamic, 1) num_threads(q->opts->threads)
    for (int ch = 0; ch < nchunk; ch++) {
        double t0 = dist_local_start(lt);
        for (int fi = ch * QRAD_LOCAL_CHUNK; fi < bsp->numfaces && fi < (ch + 1) * QRAD_LOCAL_CHUNK; fi++) {
            rface_t *f = &q->faces[fi];
            if (!phong_face(q, f)) continue;
            double mincos = cr_cos(q->mkeys[f->keys].phong_angle * M_PI / 180.0);
            /* ericw's _phong_angle_concave: the limit where the neighbour lies
             * in front of this face (an inside corner). */
            double concave = q->mkeys[f->keys].phong_concave;
            double mincos_cc = concave > 0 ? cr_cos(concave * M_PI / 180.0) : mincos;
            vec3_t *vn = q2_malloc(sizeof(vec3_t) * f->numpoints);
            bool curved = false;
            for (int k = 0; k < f->numpoints; k++) {
                int v = face_vertex(bsp, &bsp->faces[fi], k);
                vec3_t sum = vec_scale(f->normal, f->area);
                for (int e = count[v]; e < count[v + 1]; e++) {
                    const rface_t *g = &q->faces[list[e]];
                    if (list[e] == fi || !phong_partners(q, f, g)) continue;
                    double c = vec_dot(g->normal, f->normal);
                    double lim = mincos;
                    if (concave > 0 && vec_dot(f->normal, vec_sub(g->centroid, f->centroid)) > ON_EPSILON) lim = mincos_cc;
                    /* Coplanar neighbours change nothing; facing ones never blend. */
                    if (c >= lim && c < 1 - NORMAL_EPSILON) sum = vec_ma(sum, g->area, g->normal);
                }
                vn[k] = vec_normalize(sum, NULL);
                if (vec_dot(vn[k], f->normal) < 1 - NORMAL_EPSILON) curved = true;
            }
            if (curved) f->vnormals = vn;
            else free(vn);
        }
        dist_local_done(lt, ch, t0);
    }
    dist_local_end(lt);
    free(count);
    free(list);
    free(fill);
}

void qrad_faces_parallel(const qrad_t *q, void (*fn)(const qrad_t *q, int fi, void *ctx), void *ctx)
{
    int nf = q->bsp->numfaces, nchunk = (nf + QRAD_LOCAL_CHUNK - 1) / QRAD_LOCAL_CHUNK;
    dist_t *d = q->opts ? q->opts->dist : NULL;
    dist_local_t *lt = dist_local_begin(d, nchunk);
#pragma omp parallel for schedule(dynamic, 1) num_threads(q->opts ? q->opts->threads : 1)
    for (int ch = 0; ch < nchunk; ch++) {
        double t0 = dist_local_start(lt);
        for (int fi = ch * QRAD_LOCAL_CHUNK; fi < nf && fi < (ch + 1) * QRAD_LOCAL_CHUNK; fi++) fn(q, fi, ctx);
        dist_local_done(lt, ch, t0);
    }
    dist_local_end(lt);
}

bool qrad_faces_setup(qrad_t *q, q2err_t *err)
{
    const bsp_t *bsp = q->bsp;
    q->faces = q2_calloc(bsp->numfaces > 0 ? bsp->numfaces : 1, sizeof(rface_t));
    vec3_t *offs = q2_malloc(sizeof(vec3_t) * (bsp->nummodels > 0 ? bsp->nummodels : 1));
    model_offsets(q, offs);
    /* Faces are independent: the rank's threads set them up; a face that
     * cannot be (the first in face order) is reported after the loop. */
    int nf = bsp->numfaces, bad = nf;
    int nchunk = (nf + QRAD_LOCAL_CHUNK - 1) / QRAD_LOCAL_CHUNK;
    dist_local_t *lt = dist_local_begin(q->opts->dist, nchunk);
#pragma omp parallel for schedule(dynamic, 1) num_threads(q->opts->threads) reduction(min : bad)
    for (int ch = 0; ch < nchunk; ch++) {
        double t0 = dist_local_start(lt);
        for (int fi = ch * QRAD_LOCAL_CHUNK; fi < nf && fi < (ch + 1) * QRAD_LOCAL_CHUNK; fi++) {
            rface_t *f = &q->faces[fi];
            const dface_t *df = &bsp->faces[fi];
            q2err_t ferr;
            if (!bsp_face_extents(bsp, fi, &f->ext, &ferr) || df->planenum >= (uint32_t)bsp->numplanes) {
                bad = fi < bad ? fi : bad;
                continue;
            }
            const dtexinfo_t *ti = &bsp->texinfo[df->texinfo];
            f->model = face_model(bsp, fi);
            f->keys = q->face_keys && q->face_keys[fi] >= 0 ? q->face_keys[fi] : f->model;
            f->offset = f->model > 0 ? offs[f->model] : vec3(0, 0, 0);
            f->texflags = ti->flags;
            f->sky = (ti->flags & SURF_SKY) != 0;
            f->emits = (ti->flags & SURF_LIGHT) && ti->value > 0;
            const dplane_t *pl = &bsp->planes[df->planenum];
            vec3_t pn = vec3(pl->normal[0], pl->normal[1], pl->normal[2]);
            double pd = pl->dist;
            f->normal = df->side ? vec_neg(pn) : pn;
            f->dist = df->side ? -pd : pd;
            f->numpoints = df->numedges;
            f->points = q2_malloc(sizeof(vec3_t) * f->numpoints);
            for (int k = 0; k < df->numedges; k++) {
                int v = face_vertex(bsp, df, k);
                f->points[k] = vec_add(vec3(bsp->vertexes[v].point[0], bsp->vertexes[v].point[1], bsp->vertexes[v].point[2]),
                                       f->offset);
            }
            f->area = 0;
            vec3_t c = vec3(0, 0, 0);
            for (int k = 0; k < f->numpoints; k++) c = vec_add(c, f->points[k]);
            c = vec_scale(c, 1.0 / f->numpoints);
            /* Area-weighted centroid of the fan, robust to uneven vertex spacing. */
            vec3_t ac = vec3(0, 0, 0);
            for (int k = 1; k + 1 < f->numpoints; k++) {
                vec3_t a = f->points[0], b = f->points[k], d = f->points[k + 1];
                double ar = 0.5 * vec_len(vec_cross(vec_sub(b, a), vec_sub(d, a)));
                f->area += ar;
                ac = vec_ma(ac, ar / 3.0, vec_add(vec_add(a, b), d));
            }
            f->centroid = f->area > 0 ? vec_scale(ac, 1.0 / f->area) : c;
            f->w = f->ext.size[0];
            f->h = f->ext.size[1];
            /* (s, t, n.p) -> local point, then + offset */
            double m[3][3] = {{ti->vecs[0][0], ti->vecs[0][1], ti->vecs[0][2]},
                              {ti->vecs[1][0], ti->vecs[1][1], ti->vecs[1][2]},
                              {pn.x, pn.y, pn.z}};
            double inv[3][3];
            if (!mat3_invert(m, inv)) {
                /* Texture axes parallel to the plane's normal: every luxel maps
                 * to the centre. */
                memset(f->tex_to_world, 0, sizeof f->tex_to_world);
                f->tex_to_world[0][2] = f->centroid.x;
                f->tex_to_world[1][2] = f->centroid.y;
                f->tex_to_world[2][2] = f->centroid.z;
            } else {
                for (int r = 0; r < 3; r++) {
                    f->tex_to_world[r][0] = inv[r][0];
                    f->tex_to_world[r][1] = inv[r][1];
                    f->tex_to_world[r][2] = -inv[r][0] * ti->vecs[0][3] - inv[r][1] * ti->vecs[1][3] + inv[r][2] * pd +
                                            vec_comp(f->offset, r);
                    /* a unit of plane distance at the same (s, t) */
                    f->tex_to_world[r][3] = inv[r][2];
                }
            }
            /* Sky faces, and liquid faces too large for any engine to use a
             * lightmap on, share one constant block (see write.c). */
            bool big_warp = (ti->flags & SURF_WARP) && (f->w > MAX_LIGHTMAP_DIM || f->h > MAX_LIGHTMAP_DIM);
            f->lit = !f->sky && !big_warp && f->numpoints >= 3 && f->area > DEGENERATE_EPSILON * DEGENERATE_EPSILON;
        }
        dist_local_done(lt, ch, t0);
    }
    dist_local_end(lt);
    /* Texture colours in face order, each texinfo looked up once, so the
     * lookups (and their warnings) come in the order they always did. */
    int8_t *seen = q2_calloc((size_t)(bsp->numtexinfo > 0 ? bsp->numtexinfo : 1), 1);
    vec3_t *rgbs = q2_malloc(sizeof(vec3_t) * (size_t)(bsp->numtexinfo > 0 ? bsp->numtexinfo : 1));
    for (int fi = 0; fi < bad; fi++) {
        int tx = bsp->faces[fi].texinfo;
        if (!seen[tx]) {
            double rgb[3] = {0.5, 0.5, 0.5};
            if (q->texdb) texdb_average_color(q->texdb, bsp->texinfo[tx].texture, rgb);
            rgbs[tx] = vec3(rgb[0], rgb[1], rgb[2]);
            seen[tx] = 1;
        }
        q->faces[fi].reflect = rgbs[tx];
    }
    free(seen);
    free(rgbs);
    bool ok = true;
    if (bad < nf) {
        const dface_t *df = &bsp->faces[bad];
        ok = bsp_face_extents(bsp, bad, &q->faces[bad].ext, err) &&
             q2err_set(err, NULL, 0, 0, "face %d: plane %d out of range", bad, df->planenum);
    }
    free(offs);
    if (!ok) return false;
    phong_setup(q);
    /* The sample points are made face by face in the direct pass (direct.c),
     * on the rank that lights the face, so they never travel. */
    long total = 0;
    for (int fi = 0; fi < bsp->numfaces; fi++)
        if (q->faces[fi].lit) total += (long)q->faces[fi].w * q->faces[fi].h;
    q->luxels = total;
    return true;
}

/* A face's sample points, clusters and phong normals as they travel
 * between ranks (common/dist.h) when every rank needs them; nothing for a
 * face without a lightmap. */
size_t qrad_samples_size(const rface_t *f)
{
    if (!f->lit) return 0;
    size_t n = (size_t)f->w * f->h;
    return n * (sizeof(vec3_t) + sizeof(int) + (f->vnormals ? sizeof(vec3_t) : 0));
}

void qrad_samples_pack(const rface_t *f, uint8_t *out)
{
    if (!f->lit) return;
    size_t n = (size_t)f->w * f->h;
    memcpy(out, f->samples, n * sizeof(vec3_t));
    memcpy(out + n * sizeof(vec3_t), f->clusters, n * sizeof(int));
    if (f->vnormals) memcpy(out + n * (sizeof(vec3_t) + sizeof(int)), f->lnormals, n * sizeof(vec3_t));
}

void qrad_samples_unpack(rface_t *f, const uint8_t *in)
{
    if (!f->lit) return;
    size_t n = (size_t)f->w * f->h;
    f->samples = q2_malloc(sizeof(vec3_t) * n);
    f->clusters = q2_malloc(sizeof(int) * n);
    memcpy(f->samples, in, n * sizeof(vec3_t));
    memcpy(f->clusters, in + n * sizeof(vec3_t), n * sizeof(int));
    if (f->vnormals) {
        f->lnormals = q2_malloc(sizeof(vec3_t) * n);
        memcpy(f->lnormals, in + n * (sizeof(vec3_t) + sizeof(int)), n * sizeof(vec3_t));
    }
}

static void free_face(const qrad_t *q, int fi, void *ctx)
{
    (void)ctx;
    rface_t *f = &q->faces[fi];
    rface_free_luxels(f);
    free(f->points);
    free(f->vnormals);
    free(f->dirtraw);
    free(f->bytes);
}

void qrad_faces_free(qrad_t *q)
{
    if (!q->faces) return;
    /* Tens of thousands of blocks: freed on the rank's threads, since every
     * rank spends this time after its last loop. */
    qrad_faces_parallel(q, free_face, NULL);
    free(q->faces);
    q->faces = NULL;
}

void rface_free_luxels(rface_t *f)
{
    free(f->light);
    free(f->samples);
    free(f->clusters);
    free(f->lnormals);
    free(f->dirtmap);
    free(f->localmin);
    free(f->nobounce);
    free(f->negative);
    f->light = NULL;
    f->samples = NULL;
    f->clusters = NULL;
    f->lnormals = NULL;
    f->dirtmap = f->localmin = f->nobounce = f->negative = NULL;
}

/* The traced neighbours of a second-pass luxel are its diagonal,
 * horizontal or vertical neighbours with both coordinates even. */
int qrad_traced_neighbours(const rface_t *f, int i, int j, int nb[4])
{
    int nn = 0, di = i & 1, dj = j & 1;
    for (int a = -di; a <= di; a += 2)
        for (int b = -dj; b <= dj; b += 2) {
            int ni = i + a, nj = j + b;
            if (ni >= 0 && ni < f->w && nj >= 0 && nj < f->h) nb[nn++] = nj * f->w + ni;
        }
    return nn;
}

bool qrad_face_no_lightmap(const qrad_t *q, int fi)
{
    const rface_t *f = &q->faces[fi];
    return q->opts->sky_no_lightmap && f->sky && !f->lit;
}

size_t qrad_lightmap_block(const qrad_opts_t *o, size_t samples, int numstyles)
{
    size_t n = samples * (size_t)numstyles;
    if (o->lightmap_pad4) n = (n + 3) & ~(size_t)3;
    return n * 3;
}
