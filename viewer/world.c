#include "world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../common/mem.h"
#include "../formats/bspcheck.h"
#include "../formats/lightmap.h"
#include "bspx_view.h"
#include "../formats/visrle.h"

const char *const rmode_names[RMODE_COUNT] = {"lit", "lightmap", "flat", "clusters"};

void render_opts_default(render_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->mode = RMODE_LIT;
    o->background[0] = 0;
    o->background[1] = 0;
    o->background[2] = 0;
    o->pvs_cluster = -2;
    o->skip_face = -1;
    o->draw_models = true;
}

void cluster_color(int cluster, uint8_t rgb[3])
{
    if (cluster < 0) {
        rgb[0] = rgb[1] = rgb[2] = 128;
        return;
    }
    /* A multiplicative hash spreads neighbouring cluster numbers apart. */
    uint32_t h = (uint32_t)cluster * 2654435761u;
    h ^= h >> 15;
    rgb[0] = (uint8_t)(64 + (h & 0xbf));
    rgb[1] = (uint8_t)(64 + ((h >> 8) & 0xbf));
    rgb[2] = (uint8_t)(64 + ((h >> 16) & 0xbf));
}

static int find_texture(world_t *w, int *cap, const char *name, texdb_t *db)
{
    for (int i = 0; i < w->numtextures; i++)
        if (!strcasecmp(w->textures[i].name, name)) return i;
    wtexture_t t;
    memset(&t, 0, sizeof t);
    snprintf(t.name, sizeof t.name, "%s", name);
    const image_t *img = db ? texdb_image(db, name) : NULL;
    if (img && img->width > 0 && img->height > 0 && img->rgba) {
        t.width = img->width;
        t.height = img->height;
        t.rgba = q2_malloc((size_t)img->width * img->height * 4);
        memcpy(t.rgba, img->rgba, (size_t)img->width * img->height * 4);
        t.found = true;
    } else {
        uint8_t rgb[3];
        texture_name_color(name, rgb);
        t.width = t.height = 1;
        t.rgba = q2_malloc(4);
        t.rgba[0] = rgb[0];
        t.rgba[1] = rgb[1];
        t.rgba[2] = rgb[2];
        t.rgba[3] = 255;
    }
    ARRAY_PUSH(w->textures, w->numtextures, *cap, t);
    return w->numtextures - 1;
}

static void set_parents(world_t *w, int node, int parent)
{
    /* Iterative over the front child chain keeps recursion depth to the
     * tree's height on the other side only; trees are a few dozen deep. */
    w->node_parent[node] = parent;
    for (int i = 0; i < 2; i++) {
        int c = w->bsp.nodes[node].children[i];
        if (c < 0)
            w->leaf_parent[-1 - c] = node;
        else if (c < w->bsp.numnodes)
            set_parents(w, c, node);
    }
}

static bool check_tree(const bsp_t *b, const char *name, q2err_t *err)
{
    for (int i = 0; i < b->numnodes; i++) {
        const dnode_t *n = &b->nodes[i];
        if (n->planenum < 0 || n->planenum >= b->numplanes)
            return q2err_set(err, name, 0, 0, "node %d: plane %d out of range", i, n->planenum);
        for (int k = 0; k < 2; k++) {
            int c = n->children[k];
            /* Children always have higher indices in a compiled tree; insisting
             * on it rules out cycles before anything walks the tree. */
            if (c >= 0 ? (c <= i || c >= b->numnodes) : (-1 - c >= b->numleafs))
                return q2err_set(err, name, 0, 0, "node %d: child %d out of range", i, c);
        }
        if ((int64_t)n->firstface + n->numfaces > b->numfaces)
            return q2err_set(err, name, 0, 0, "node %d: faces out of range", i);
    }
    for (int i = 0; i < b->numleafs; i++) {
        const dleaf_t *l = &b->leafs[i];
        if ((int64_t)l->firstleafface + l->numleaffaces > b->numleaffaces)
            return q2err_set(err, name, 0, 0, "leaf %d: leaf faces out of range", i);
    }
    for (int i = 0; i < b->numleaffaces; i++)
        if (b->leaffaces[i] >= (uint32_t)b->numfaces)
            return q2err_set(err, name, 0, 0, "leaf face %d: face %d out of range", i, b->leaffaces[i]);
    if (b->nummodels < 1 || b->numnodes < 1 || b->numleafs < 1)
        return q2err_set(err, name, 0, 0, "no world model, nodes or leaves");
    for (int i = 0; i < b->nummodels; i++) {
        const dmodel_t *m = &b->models[i];
        if (m->firstface < 0 || m->numfaces < 0 || (int64_t)m->firstface + m->numfaces > b->numfaces)
            return q2err_set(err, name, 0, 0, "model %d: faces out of range", i);
    }
    return true;
}

static void model_origins(const world_t *w, double (*org)[3])
{
    for (int i = 0; i < w->ents.count; i++) {
        const char *m = entity_get(&w->ents.ents[i], "model");
        if (!m || m[0] != '*') continue;
        int mi = atoi(m + 1);
        if (mi <= 0 || mi >= w->bsp.nummodels) continue;
        vec3_t o;
        if (entity_get_vec3(&w->ents.ents[i], "origin", &o)) {
            org[mi][0] = o.x;
            org[mi][1] = o.y;
            org[mi][2] = o.z;
        }
    }
}

bool world_from_bsp(world_t *w, bsp_t *bsp, const char *name, texdb_t *db, log_t *log, q2err_t *err)
{
    memset(w, 0, sizeof *w);
    w->bsp = *bsp;
    bsp_init(bsp);
    snprintf(w->path, sizeof w->path, "%s", name);
    bsp_t *b = &w->bsp;
    if (!check_tree(b, name, err)) goto fail;

    if (b->entities && b->entities[0]) {
        q2err_t e2;
        q2err_clear(&e2);
        if (!entities_parse(b->entities, name, &w->ents, &e2))
            log_warn(log, "%s: entities not parsed (%s); no player start or model origins", name, e2.msg);
    }

    int nf = b->numfaces;
    w->numfaces = nf;
    w->faces = q2_calloc(nf > 0 ? nf : 1, sizeof *w->faces);
    double(*morg)[3] = q2_calloc(b->nummodels, sizeof *morg);
    model_origins(w, morg);
    int *face_model = q2_malloc(sizeof(int) * (nf > 0 ? nf : 1));
    for (int i = 0; i < nf; i++) face_model[i] = 0;
    for (int m = 1; m < b->nummodels; m++)
        for (int i = 0; i < b->models[m].numfaces; i++) face_model[b->models[m].firstface + i] = m;

    int vcap = 0, tcap = 0, lcap = 0;
    for (int i = 0; i < nf; i++) {
        const dface_t *df = &b->faces[i];
        wface_t *f = &w->faces[i];
        f->lm_ofs = -1;
        f->cluster = -1;
        f->model = face_model[i];
        face_extents_t ext;
        q2err_t e2;
        if (!bsp_face_extents(b, i, &ext, &e2) || df->planenum >= (uint32_t)b->numplanes) {
            q2err_set(err, name, 0, 0, "face %d: %s", i, df->planenum >= (uint32_t)b->numplanes ? "plane out of range" : e2.msg);
            free(morg);
            free(face_model);
            goto fail;
        }
        const dtexinfo_t *ti = &b->texinfo[df->texinfo];
        const dplane_t *pl = &b->planes[df->planenum];
        double sign = df->side ? -1.0 : 1.0;
        const double *o = morg[f->model];
        for (int k = 0; k < 3; k++) f->normal[k] = (float)(pl->normal[k] * sign);
        f->dist = (float)((pl->dist + pl->normal[0] * o[0] + pl->normal[1] * o[1] + pl->normal[2] * o[2]) * sign);
        f->texinfo = df->texinfo;
        f->flags = ti->flags;
        for (int k = 0; k < 3; k++) {
            f->svec[k] = ti->vecs[0][k];
            f->tvec[k] = ti->vecs[1][k];
        }
        f->svec[3] = (float)(ti->vecs[0][3] - (ti->vecs[0][0] * o[0] + ti->vecs[0][1] * o[1] + ti->vecs[0][2] * o[2]));
        f->tvec[3] = (float)(ti->vecs[1][3] - (ti->vecs[1][0] * o[0] + ti->vecs[1][1] * o[1] + ti->vecs[1][2] * o[2]));
        f->texturemins[0] = ext.texturemins[0];
        f->texturemins[1] = ext.texturemins[1];
        f->tex = find_texture(w, &tcap, ti->texture, db);
        texture_name_color(ti->texture, f->flat);

        int nstyles = 0;
        while (nstyles < MAXLIGHTMAPS && df->styles[nstyles] != 255) nstyles++;
        bool special = (ti->flags & (SURF_SKY | SURF_WARP)) != 0;
        if (!special && b->lightdatasize == 0) {
            /* qbsp's output before qrad: whatever styles and offsets qbsp
             * left in the face, there is no light to read. */
            w->numunlitfaces++;
        } else if (!special && nstyles > 0 && df->lightofs >= 0) {
            int lw = ext.size[0], lh = ext.size[1];
            int64_t need = (int64_t)df->lightofs + (int64_t)lw * lh * 3 * nstyles;
            if (lw > 256 || lh > 256 || need > b->lightdatasize) {
                if (w->numunlitfaces++ == 0)
                    log_warn(log, "%s: face %d: lightmap of %dx%d at %d runs past the lighting lump; drawn fullbright",
                             name, i, lw, lh, df->lightofs);
            } else {
                f->lm_w = lw;
                f->lm_h = lh;
                f->lm_ofs = w->lightmaps_size;
                int n = lw * lh * 3;
                w->lightmaps = q2_grow(w->lightmaps, 1, &lcap, w->lightmaps_size + n);
                uint8_t *dst = w->lightmaps + w->lightmaps_size;
                /* Every style at its default level: Quake 2's game sets each
                 * style to "m" (full) unless a light starts off, so styles add. */
                for (int p = 0; p < n; p++) {
                    int sum = 0;
                    for (int s = 0; s < nstyles; s++) sum += b->lightdata[df->lightofs + s * n + p];
                    dst[p] = (uint8_t)(sum > 255 ? 255 : sum);
                }
                w->lightmaps_size += n;
                w->numlitfaces++;
            }
        }
        if (w->textures[f->tex].found) w->numtextured++;

        f->firstvert = w->numverts;
        f->numverts = df->numedges;
        for (int k = 0; k < 3; k++) {
            f->mins[k] = 1e30f;
            f->maxs[k] = -1e30f;
        }
        for (int k = 0; k < df->numedges; k++) {
            int se = b->surfedges[df->firstedge + k];
            int e = se < 0 ? -se : se;
            int vi = se < 0 ? b->edges[e].v[1] : b->edges[e].v[0];
            wvert_t v;
            double p[3], s, t;
            for (int c = 0; c < 3; c++) p[c] = (double)b->vertexes[vi].point[c] + o[c];
            for (int c = 0; c < 3; c++) v.xyz[c] = (float)p[c];
            s = p[0] * f->svec[0] + p[1] * f->svec[1] + p[2] * f->svec[2] + f->svec[3];
            t = p[0] * f->tvec[0] + p[1] * f->tvec[1] + p[2] * f->tvec[2] + f->tvec[3];
            v.st[0] = (float)s;
            v.st[1] = (float)t;
            v.lm[0] = (float)((s - ext.texturemins[0]) / LIGHTMAP_SCALE);
            v.lm[1] = (float)((t - ext.texturemins[1]) / LIGHTMAP_SCALE);
            for (int c = 0; c < 3; c++) {
                if (v.xyz[c] < f->mins[c]) f->mins[c] = v.xyz[c];
                if (v.xyz[c] > f->maxs[c]) f->maxs[c] = v.xyz[c];
            }
            ARRAY_PUSH(w->verts, w->numverts, vcap, v);
        }
    }
    free(morg);
    free(face_model);
    w->unlit = b->lightdatasize == 0 && w->numunlitfaces > 0;
    if (w->numunlitfaces > 1 && !w->unlit)
        log_warn(log, "%s: %d faces in all have lightmaps past the lighting lump; drawn fullbright", name,
                 w->numunlitfaces);
    world_use_bspx(w, log);

    for (int l = 0; l < b->numleafs; l++) {
        const dleaf_t *lf = &b->leafs[l];
        if (lf->cluster < 0) continue;
        for (int k = 0; k < (int)lf->numleaffaces; k++) {
            int fi = b->leaffaces[lf->firstleafface + k];
            if (w->faces[fi].cluster < 0) w->faces[fi].cluster = lf->cluster;
        }
    }
    for (int i = 0; i < nf; i++) cluster_color(w->faces[i].cluster, w->faces[i].clustercol);

    w->node_parent = q2_malloc(sizeof(int) * b->numnodes);
    w->leaf_parent = q2_malloc(sizeof(int) * b->numleafs);
    for (int i = 0; i < b->numleafs; i++) w->leaf_parent[i] = -1;
    set_parents(w, 0, -1);

    w->numclusters = bsp_num_clusters(b);
    if (w->numclusters > 0) {
        q2err_t e2;
        if (!vis_lump_check(b->visdata, b->visdatasize, &e2)) {
            log_warn(log, "%s: visibility lump unusable (%s); every leaf is drawn", name, e2.msg);
            w->numclusters = 0;
        } else {
            w->rowbytes = vis_row_bytes(w->numclusters);
            w->pvs = q2_malloc((size_t)w->numclusters * w->rowbytes);
            for (int c = 0; c < w->numclusters; c++)
                vis_lump_row(b->visdata, b->visdatasize, c, DVIS_PVS, w->pvs + (size_t)c * w->rowbytes);
        }
    }
    for (int l = 0; l < b->numleafs; l++)
        if (b->leafs[l].cluster >= w->numclusters && w->numclusters > 0) {
            log_warn(log, "%s: leaf %d: cluster %d out of range; PVS ignored", name, l, b->leafs[l].cluster);
            free(w->pvs);
            w->pvs = NULL;
            w->numclusters = 0;
            break;
        }
    return true;
fail:
    world_free(w);
    return false;
}

bool world_load(world_t *w, const char *path, texdb_t *db, log_t *log, q2err_t *err)
{
    bsp_t bsp;
    bsp_init(&bsp);
    if (!bsp_read_file(path, &bsp, err) || !bsp_validate(&bsp, path, err)) {
        bsp_free(&bsp);
        memset(w, 0, sizeof *w);
        return false;
    }
    return world_from_bsp(w, &bsp, path, db, log, err);
}

void world_free(world_t *w)
{
    bsp_free(&w->bsp);
    free(w->verts);
    free(w->faces);
    for (int i = 0; i < w->numtextures; i++) free(w->textures[i].rgba);
    free(w->textures);
    free(w->lightmaps);
    free(w->node_parent);
    free(w->leaf_parent);
    free(w->pvs);
    entities_free(&w->ents);
    memset(w, 0, sizeof *w);
}

int world_point_leaf(const world_t *w, const double p[3])
{
    int n = 0;
    while (n >= 0) {
        const dnode_t *node = &w->bsp.nodes[n];
        const dplane_t *pl = &w->bsp.planes[node->planenum];
        double d = p[0] * pl->normal[0] + p[1] * pl->normal[1] + p[2] * pl->normal[2] - pl->dist;
        n = node->children[d >= 0 ? 0 : 1];
    }
    return -1 - n;
}

int world_point_cluster(const world_t *w, const double p[3])
{
    const dleaf_t *l = &w->bsp.leafs[world_point_leaf(w, p)];
    if (l->contents & CONTENTS_SOLID) return -1;
    return l->cluster;
}

bool world_cluster_visible(const world_t *w, int a, int b)
{
    if (!w->pvs || a < 0 || b < 0) return true;
    return (w->pvs[(size_t)a * w->rowbytes + (b >> 3)] >> (b & 7)) & 1;
}

void view_setup(view_t *v, const camera_t *cam, int width, int height)
{
    const double d2r = M_PI / 180.0;
    double cy = cos(cam->yaw * d2r), sy = sin(cam->yaw * d2r);
    double cp = cos(cam->pitch * d2r), sp = sin(cam->pitch * d2r);
    double fwd[3] = {cp * cy, cp * sy, -sp};
    double right[3] = {sy, -cy, 0};
    double up[3] = {right[1] * fwd[2] - right[2] * fwd[1], right[2] * fwd[0] - right[0] * fwd[2],
                    right[0] * fwd[1] - right[1] * fwd[0]};
    for (int i = 0; i < 3; i++) {
        v->org[i] = cam->origin[i];
        v->fwd[i] = fwd[i];
        v->right[i] = right[i];
        v->up[i] = up[i];
    }
    double fov = cam->fov_x > 1 && cam->fov_x < 170 ? cam->fov_x : 90.0;
    double tx = tan(fov * 0.5 * d2r);
    double ty = tx * height / width;
    v->scale = (width * 0.5) / tx;
    v->cx = width * 0.5;
    v->cy = height * 0.5;
    v->width = width;
    v->height = height;
    /* Inward planes through the eye, widened slightly so that culling never
     * removes a face that a pixel centre at the border would show. */
    tx *= 1.02;
    ty *= 1.02;
    double n[4][3];
    for (int i = 0; i < 3; i++) {
        n[0][i] = fwd[i] * tx + right[i];
        n[1][i] = fwd[i] * tx - right[i];
        n[2][i] = fwd[i] * ty - up[i];
        n[3][i] = fwd[i] * ty + up[i];
    }
    for (int p = 0; p < 4; p++) {
        double len = sqrt(n[p][0] * n[p][0] + n[p][1] * n[p][1] + n[p][2] * n[p][2]);
        for (int i = 0; i < 3; i++) v->frustum[p][i] = n[p][i] / len;
        v->frustum[p][3] = v->frustum[p][0] * v->org[0] + v->frustum[p][1] * v->org[1] + v->frustum[p][2] * v->org[2];
    }
}

void cull_init(cull_t *c, const world_t *w)
{
    memset(c, 0, sizeof *c);
    c->last_cluster = -3;
    c->leaf_visframe = q2_calloc(w->bsp.numleafs, sizeof(int));
    c->node_visframe = q2_calloc(w->bsp.numnodes, sizeof(int));
    c->face_frame = q2_calloc(w->numfaces > 0 ? w->numfaces : 1, sizeof(int));
    c->opaque = q2_malloc(sizeof(int) * (w->numfaces + 1));
    c->trans = q2_malloc(sizeof(int) * (w->numfaces + 1));
}

void cull_free(cull_t *c)
{
    free(c->leaf_visframe);
    free(c->node_visframe);
    free(c->face_frame);
    free(c->opaque);
    free(c->trans);
    memset(c, 0, sizeof *c);
}

static void mark_leaves(const world_t *w, cull_t *c, int cluster, bool all)
{
    c->visframe++;
    int vf = c->visframe;
    const bsp_t *b = &w->bsp;
    const uint8_t *row = (!all && cluster >= 0 && w->pvs) ? w->pvs + (size_t)cluster * w->rowbytes : NULL;
    c->clusters_visible = 0;
    if (row)
        for (int i = 0; i < w->numclusters; i++) c->clusters_visible += (row[i >> 3] >> (i & 7)) & 1;
    else
        c->clusters_visible = w->numclusters;
    for (int l = 0; l < b->numleafs; l++) {
        int cl = b->leafs[l].cluster;
        if (cl < 0) continue;
        if (row && !((row[cl >> 3] >> (cl & 7)) & 1)) continue;
        c->leaf_visframe[l] = vf;
        for (int n = w->leaf_parent[l]; n >= 0 && c->node_visframe[n] != vf; n = w->node_parent[n])
            c->node_visframe[n] = vf;
    }
}

static bool box_outside(const view_t *v, const float mins[3], const float maxs[3])
{
    for (int p = 0; p < 4; p++) {
        const double *n = v->frustum[p];
        double x = n[0] >= 0 ? maxs[0] : mins[0];
        double y = n[1] >= 0 ? maxs[1] : mins[1];
        double z = n[2] >= 0 ? maxs[2] : mins[2];
        if (n[0] * x + n[1] * y + n[2] * z - n[3] < 0) return true;
    }
    return false;
}

static bool face_drawable(const world_t *w, const wface_t *f, const view_t *v, int fi, const render_opts_t *o)
{
    if (fi == o->skip_face) return false;
    /* Engines test sky before nodraw: compilers mark sky faces nodraw too. */
    if ((f->flags & (SURF_NODRAW | SURF_SKY)) == SURF_NODRAW) return false;
    /* Back faces and faces seen edge-on are skipped, as engines do. */
    double d = f->normal[0] * v->org[0] + f->normal[1] * v->org[1] + f->normal[2] * v->org[2] - f->dist;
    if (d <= 0.01) return false;
    (void)w;
    return !box_outside(v, f->mins, f->maxs);
}

static void emit_face(const world_t *w, cull_t *c, const view_t *v, int fi, const render_opts_t *o)
{
    const wface_t *f = &w->faces[fi];
    if (!face_drawable(w, f, v, fi, o)) return;
    if (f->flags & (SURF_TRANS33 | SURF_TRANS66))
        c->trans[c->numtrans++] = fi;
    else
        c->opaque[c->numopaque++] = fi;
}

static void walk(const world_t *w, cull_t *c, const view_t *v, int node, const render_opts_t *o)
{
    const bsp_t *b = &w->bsp;
    while (node >= 0) {
        if (c->node_visframe[node] != c->visframe) return;
        const dnode_t *n = &b->nodes[node];
        float mins[3] = {n->mins[0], n->mins[1], n->mins[2]}, maxs[3] = {n->maxs[0], n->maxs[1], n->maxs[2]};
        if (box_outside(v, mins, maxs)) return;
        const dplane_t *pl = &b->planes[n->planenum];
        double d = pl->normal[0] * v->org[0] + pl->normal[1] * v->org[1] + pl->normal[2] * v->org[2] - pl->dist;
        int side = d >= 0 ? 0 : 1;
        walk(w, c, v, n->children[side], o);
        /* Faces on this node's plane come after the near side, before the far
         * side; only those marked by a visible leaf are drawn. */
        for (int k = 0; k < (int)n->numfaces; k++) {
            int fi = n->firstface + k;
            if (c->face_frame[fi] == c->framecount) emit_face(w, c, v, fi, o);
        }
        node = n->children[!side];
    }
    int l = -1 - node;
    const dleaf_t *lf = &b->leafs[l];
    if (c->leaf_visframe[l] != c->visframe) return;
    float mins[3] = {lf->mins[0], lf->mins[1], lf->mins[2]}, maxs[3] = {lf->maxs[0], lf->maxs[1], lf->maxs[2]};
    if (box_outside(v, mins, maxs)) return;
    for (int k = 0; k < (int)lf->numleaffaces; k++) c->face_frame[b->leaffaces[lf->firstleafface + k]] = c->framecount;
}

void cull_world(const world_t *w, cull_t *c, const view_t *v, const render_opts_t *o)
{
    c->framecount++;
    c->numopaque = c->numtrans = 0;
    int cluster = o->pvs_cluster >= -1 ? o->pvs_cluster : world_point_cluster(w, v->org);
    c->view_cluster = cluster;
    bool all = o->no_pvs || cluster < 0 || !w->pvs;
    if (cluster != c->last_cluster || all != c->last_no_pvs) {
        mark_leaves(w, c, cluster, all);
        c->last_cluster = cluster;
        c->last_no_pvs = all;
    }
    walk(w, c, v, 0, o);
    if (o->draw_models) {
        /* Brush models are not in the world's leaves; draw them whenever
         * they are in the frustum. */
        for (int m = 1; m < w->bsp.nummodels; m++) {
            const dmodel_t *dm = &w->bsp.models[m];
            for (int k = 0; k < dm->numfaces; k++) emit_face(w, c, v, dm->firstface + k, o);
        }
    }
    /* Translucent faces were gathered front to back; blend back to front. */
    for (int i = 0, j = c->numtrans - 1; i < j; i++, j--) {
        int t = c->trans[i];
        c->trans[i] = c->trans[j];
        c->trans[j] = t;
    }
}
