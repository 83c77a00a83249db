/* DECOUPLED_LM: lightmaps at -world_units_per_luxel units per luxel instead
 * of 16 texture units, with their own projection, as ericw-tools writes them
 * and Q2PRO and the re-release read them (docs/formats.md, "BSPX").
 *
 * The projection is ericw-tools' (common/bsputils.cc, faceextents_t with
 * world_units_per_luxel): the face's normal snapped to its largest axis,
 * two axes perpendicular to that (MakeTangentAndBitangentUnnormalized)
 * scaled by 1/N, luxel (i, j) at integer lightmap coordinates from the floor
 * of the face's bounds, lmwidth = ceil(max) - floor(min) + 1. Coordinates
 * are of the bsp's vertices (a bmodel's own frame), as engines evaluate
 * them.
 *
 * Lighting reuses the direct pass unchanged: each face gets a second rface_t
 * whose "texture space" is the decoupled lightmap at LIGHTMAP_SCALE units
 * per luxel, lit in the same direct-pass item as the vanilla face (so the
 * pass's work division sees the whole cost of a face). Bounced light (and
 * the minimum light) is smooth, so it is not computed again: each fine
 * luxel gets what the vanilla lightmap gained after its direct pass (final
 * minus direct) interpolated at its position, when the face is finished on
 * the rank that lit it; only the finished bytes travel, to rank 0. */
#include <stdlib.h>
#include <string.h>

#include "decoupled.h"
#include "color.h"
#include "facegeom.h"
#include "qrad.h"
#include "../common/dist.h"
#include "../common/log.h"
#include "../common/mem.h"
#include "../formats/bspx.h"
#include "../formats/bytes.h"

/* Largest decoupled lightmap side: Q2PRO's GL renderer drops a lightmap
 * larger than its lightmap block (512 by default) with "Bad lightmap
 * extents"; qrad does not split faces (qbsp's subdivision does that), so it
 * stops with the face named. */
#define DECOUPLED_MAX_DIM 512

typedef struct dface_geo_t {
    float world_to_lm[2][4];
} dface_geo_t;

typedef struct decoupled_t {
    rface_t *faces;     /* the decoupled counterpart of every face */
    dface_geo_t *geo;
    float **direct;     /* per face: vanilla style-0 direct light (w*h*3), on the rank that lit it */
    long luxels;
} decoupled_t;

/* Units per luxel for a face: its entity's _world_units_per_luxel
 * (worldspawn's for the world), else q->world_upl (the option, else
 * worldspawn's); as ericw-tools, a brush entity's key alone turns nothing
 * on: it applies once the option or worldspawn's key does. */
static double face_upl(const qrad_t *q, int model, const double *model_upl)
{
    return model_upl[model] > 0 ? model_upl[model] : q->world_upl;
}

static void model_upl_table(const qrad_t *q, double *upl)
{
    int nm = q->bsp->nummodels;
    for (int m = 0; m < nm; m++) upl[m] = 0;
    for (int e = 0; e < q->ents.count; e++) {
        const entity_t *ent = &q->ents.ents[e];
        double v = entity_get_float(ent, "_world_units_per_luxel", 0);
        if (v <= 0) continue;
        if (!strcmp(entity_classname(ent), "worldspawn")) {
            upl[0] = v;
            continue;
        }
        const char *model = entity_get(ent, "model");
        if (model && model[0] == '*') {
            int m = atoi(model + 1);
            if (m > 0 && m < nm) upl[m] = v;
        }
    }
}


static int largest_axis(vec3_t n)
{
    /* Strictly larger wins, so ties go to the lower axis (as ericw-tools'
     * indexOfLargestMagnitudeComponent). */
    int a = 0;
    double best = 0;
    for (int i = 0; i < 3; i++)
        if (fabs(vec_comp(n, i)) > best) {
            best = fabs(vec_comp(n, i));
            a = i;
        }
    return a;
}

/* The two lightmap axes (unscaled) for a facing normal. */
static void lm_axes(vec3_t normal, vec3_t *t, vec3_t *b)
{
    int axis = largest_axis(normal);
    vec3_t snapped = vec3(0, 0, 0);
    vec_set_comp(&snapped, axis, vec_comp(normal, axis) > 0 ? 1 : -1);
    vec3_t oa = vec3(0, 0, 0), ob = vec3(0, 0, 0);
    vec_set_comp(&oa, (axis + 1) % 3, 1);
    vec_set_comp(&ob, (axis + 2) % 3, 1);
    *t = vec_cross(snapped, oa);
    *b = vec_cross(snapped, ob);
    if (vec_dot(vec_cross(*t, *b), snapped) < 0) {
        vec3_t tmp = *t;
        *t = *b;
        *b = tmp;
    }
}

/* Builds face fi's decoupled rface (geometry only). */
static bool setup_face(const qrad_t *q, int fi, double upl, rface_t *d, dface_geo_t *geo, q2err_t *err)
{
    const rface_t *f = &q->faces[fi];
    *d = *f;
    d->samples = NULL;
    d->clusters = NULL;
    d->lnormals = NULL;
    d->light = NULL;
    d->numpatches = 0;
    /* per-luxel arrays the direct pass makes for this face's own luxels */
    d->nobounce = d->dirtmap = d->localmin = d->negative = NULL;
    /* points/vnormals stay shared with the vanilla face (not freed here). */
    vec3_t t, b;
    lm_axes(f->normal, &t, &b);
    t = vec_scale(t, 1.0 / upl);
    b = vec_scale(b, 1.0 / upl);
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (int k = 0; k < f->numpoints; k++) {
        /* bsp vertex = world point minus the bmodel's origin */
        vec3_t v = vec_sub(f->points[k], f->offset);
        double c[2] = {vec_dot(t, v), vec_dot(b, v)};
        for (int a = 0; a < 2; a++) {
            lo[a] = fmin(lo[a], c[a]);
            hi[a] = fmax(hi[a], c[a]);
        }
    }
    int mins[2], size[2];
    for (int a = 0; a < 2; a++) {
        if (f->numpoints == 0) lo[a] = hi[a] = 0;
        mins[a] = (int)floor(lo[a]);
        size[a] = (int)ceil(hi[a]) - mins[a] + 1;
    }
    if (f->lit && (size[0] > DECOUPLED_MAX_DIM || size[1] > DECOUPLED_MAX_DIM))
        return q2err_set(err, NULL, 0, 0,
                         "face %d: its lightmap at %g units per luxel is %d x %d luxels, over the %d engines load "
                         "(Q2PRO drops it); raise -world_units_per_luxel or subdivide the face in qbsp",
                         fi, upl, size[0], size[1], DECOUPLED_MAX_DIM);
    /* Unlit faces (sky, big liquids) are never drawn with a lightmap; they
     * share one block, kept to the largest size engines take. */
    for (int a = 0; a < 2 && !f->lit; a++)
        if (size[a] > DECOUPLED_MAX_DIM) size[a] = DECOUPLED_MAX_DIM;
    vec3_t rows[2] = {t, b};
    for (int r = 0; r < 2; r++) {
        geo->world_to_lm[r][0] = (float)rows[r].x;
        geo->world_to_lm[r][1] = (float)rows[r].y;
        geo->world_to_lm[r][2] = (float)rows[r].z;
        geo->world_to_lm[r][3] = (float)-mins[r];
    }
    d->w = size[0];
    d->h = size[1];
    d->ext.texturemins[0] = d->ext.texturemins[1] = 0;
    d->ext.size[0] = size[0];
    d->ext.size[1] = size[1];
    /* "Texture" coordinates (s, t) = LIGHTMAP_SCALE * (luxel coordinates),
     * so the direct pass's luxel spacing and -extra offsets apply. Solve
     * [t; b; n] x = [s/16 + mins0; t/16 + mins1; n.v] for the local point,
     * then add the bmodel's origin. */
    vec3_t v0 = f->numpoints ? vec_sub(f->points[0], f->offset) : vec3(0, 0, 0);
    double pd = vec_dot(f->normal, v0);
    double m[3][3] = {{t.x, t.y, t.z}, {b.x, b.y, b.z}, {f->normal.x, f->normal.y, f->normal.z}}, inv[3][3];
    if (!mat3_invert(m, inv)) return q2err_set(err, NULL, 0, 0, "face %d: degenerate decoupled lightmap axes", fi);
    for (int r = 0; r < 3; r++) {
        d->tex_to_world[r][0] = inv[r][0] / LIGHTMAP_SCALE;
        d->tex_to_world[r][1] = inv[r][1] / LIGHTMAP_SCALE;
        d->tex_to_world[r][2] = inv[r][0] * mins[0] + inv[r][1] * mins[1] + inv[r][2] * pd + vec_comp(f->offset, r);
        d->tex_to_world[r][3] = 0;
    }
    return true;
}

bool qrad_decoupled_setup(qrad_t *q, q2err_t *err)
{
    if (q->world_upl <= 0) return true;
    const bsp_t *bsp = q->bsp;
    int nf = bsp->numfaces;
    decoupled_t *dc = q2_calloc(1, sizeof *dc);
    q->decoupled = dc;
    dc->faces = q2_calloc(nf > 0 ? (size_t)nf : 1, sizeof(rface_t));
    dc->geo = q2_calloc(nf > 0 ? (size_t)nf : 1, sizeof(dface_geo_t));
    dc->direct = q2_calloc(nf > 0 ? (size_t)nf : 1, sizeof(float *));
    double *upl = q2_malloc(sizeof(double) * (size_t)(bsp->nummodels > 0 ? bsp->nummodels : 1));
    model_upl_table(q, upl);
    /* Faces are independent: set up on the rank's threads; the first face
     * (in face order) that cannot be is reported after the loop. */
    int bad = nf;
    long total = 0;
    int nchunk = (nf + QRAD_LOCAL_CHUNK - 1) / QRAD_LOCAL_CHUNK;
    dist_local_t *lt = dist_local_begin(q->opts->dist, nchunk);
#pragma omp parallel for schedule(dynamic, 1) num_threads(q->opts->threads) reduction(min : bad) reduction(+ : total)
    for (int ch = 0; ch < nchunk; ch++) {
        double t0 = dist_local_start(lt);
        for (int fi = ch * QRAD_LOCAL_CHUNK; fi < nf && fi < (ch + 1) * QRAD_LOCAL_CHUNK; fi++) {
            /* A func_group/func_detail keyset's own density first (models.c). */
            double group = q->mkeys[q->faces[fi].keys].upl;
            q2err_t ferr;
            if (!setup_face(q, fi, group > 0 ? group : face_upl(q, q->faces[fi].model, upl), &dc->faces[fi],
                            &dc->geo[fi], &ferr))
                bad = fi < bad ? fi : bad;
            else if (dc->faces[fi].lit)
                total += (long)dc->faces[fi].w * dc->faces[fi].h;
        }
        dist_local_done(lt, ch, t0);
    }
    dist_local_end(lt);
    dc->luxels = total;
    bool ok = true;
    if (bad < nf) {
        double group = q->mkeys[q->faces[bad].keys].upl;
        ok = setup_face(q, bad, group > 0 ? group : face_upl(q, q->faces[bad].model, upl), &dc->faces[bad],
                        &dc->geo[bad], err);
    }
    free(upl);
    if (ok) log_verbose(q->log, "decoupled lightmaps: %ld luxels (vanilla %ld)", dc->luxels, q->luxels);
    return ok;
}

rface_t *qrad_decoupled_face(const qrad_t *q, int fi) { return q->decoupled ? &q->decoupled->faces[fi] : NULL; }

void qrad_decoupled_keep_face(qrad_t *q, int fi)
{
    const rface_t *f = &q->faces[fi];
    if (!q->decoupled || !f->lit || !f->light) return;
    size_t n = (size_t)f->w * f->h * 3;
    float **kept = &q->decoupled->direct[fi];
    free(*kept);
    *kept = q2_malloc(sizeof(float) * n);
    memcpy(*kept, f->light, sizeof(float) * n);
}

/* Bounced light of vanilla face fi at world point p: bilinear over its
 * luxel grid (clamped to the grid). */
static void bounce_at(const qrad_t *q, const decoupled_t *dc, int fi, vec3_t p, float out[3])
{
    const rface_t *f = &q->faces[fi];
    out[0] = out[1] = out[2] = 0;
    if (!dc->direct[fi]) return;
    double s, t;
    rface_world_to_tex(q, fi, p, &s, &t);
    double u = (s - f->ext.texturemins[0]) / LIGHTMAP_SCALE, v = (t - f->ext.texturemins[1]) / LIGHTMAP_SCALE;
    u = u < 0 ? 0 : u > f->w - 1 ? f->w - 1 : u;
    v = v < 0 ? 0 : v > f->h - 1 ? f->h - 1 : v;
    int i0 = (int)floor(u), j0 = (int)floor(v);
    int i1 = i0 + 1 < f->w ? i0 + 1 : i0, j1 = j0 + 1 < f->h ? j0 + 1 : j0;
    double fu = u - i0, fv = v - j0;
    int idx[4] = {j0 * f->w + i0, j0 * f->w + i1, j1 * f->w + i0, j1 * f->w + i1};
    double wt[4] = {(1 - fu) * (1 - fv), fu * (1 - fv), (1 - fu) * fv, fu * fv};
    for (int k = 0; k < 4; k++)
        for (int c = 0; c < 3; c++)
            out[c] += (float)(wt[k] * (f->light[(size_t)idx[k] * 3 + c] - dc->direct[fi][(size_t)idx[k] * 3 + c]));
}

size_t qrad_decoupled_bytes_size(const qrad_t *q, int fi)
{
    const rface_t *d = qrad_decoupled_face(q, fi);
    return d && d->lit ? (size_t)q->faces[fi].numstyles * d->w * d->h * 3 : 0;
}

void qrad_decoupled_finish_face(qrad_t *q, int fi)
{
    decoupled_t *dc = q->decoupled;
    rface_t *d = &dc->faces[fi];
    const rface_t *f = &q->faces[fi];
    if (d->lit && d->light) {
        /* What the vanilla luxels got after the direct pass (bounces,
         * minimum light) is smooth: added under each fine luxel. */
        int n = d->w * d->h;
        for (int k = 0; k < n; k++) {
            float add[3];
            bounce_at(q, dc, fi, d->samples[k], add);
            for (int c = 0; c < 3; c++) d->light[(size_t)k * 3 + c] += add[c];
        }
        /* The bytes of the vanilla face's styles (engines read its styles
         * for both lightmaps); a style the decoupled face lacks is dark. */
        free(d->bytes);
        d->bytes = q2_malloc((size_t)f->numstyles * n * 3 + 1);
        for (int s = 0; s < f->numstyles; s++) {
            int slot = -1;
            for (int k = 0; k < d->numstyles; k++)
                if (d->styles[k] == f->styles[s]) slot = k;
            static const float zero[3] = {0, 0, 0};
            for (int k = 0; k < n; k++) {
                const float *src = slot >= 0 ? d->light + ((size_t)slot * n + k) * 3 : zero;
                qrad_final_color(q->opts, src, s == 0, d->bytes + ((size_t)s * n + k) * 3);
            }
            /* its own luxels' dirt factors, traced in the direct pass */
            if (q->opts->dirtdebug && f->styles[s] == 0)
                qrad_dirtdebug_bytes(d->dirtmap, n, d->bytes + (size_t)s * n * 3);
        }
    }
    /* points/vnormals stay shared with the vanilla face (not freed here) */
    rface_free_luxels(d);
    free(dc->direct[fi]);
    dc->direct[fi] = NULL;
}

void qrad_decoupled_pack(const qrad_t *q, int fi, uint8_t *out)
{
    const rface_t *d = qrad_decoupled_face(q, fi);
    size_t n = qrad_decoupled_bytes_size(q, fi);
    if (n) memcpy(out, d->bytes, n);
}

void qrad_decoupled_unpack(qrad_t *q, int fi, const uint8_t *in, size_t size)
{
    rface_t *d = qrad_decoupled_face(q, fi);
    if (!d || !d->lit) return;
    free(d->bytes);
    d->bytes = q2_malloc(size + 1);
    memcpy(d->bytes, in, size);
}

/* With q->full_exchange: the faces each rank lit, finished there, their
 * bytes to rank 0. */
static size_t finish_size(void *ctx, long fi) { return qrad_decoupled_bytes_size(ctx, (int)fi); }
static void finish_pack(void *ctx, long fi, uint8_t *out) { qrad_decoupled_pack(ctx, (int)fi, out); }
static void finish_unpack(void *ctx, long fi, const uint8_t *in, size_t size)
{
    qrad_decoupled_unpack(ctx, (int)fi, in, size);
}

bool qrad_decoupled_finish(qrad_t *q, q2err_t *err)
{
    (void)err;
    if (!q->decoupled) return true;
    static const dist_codec_t codec = {finish_size, finish_pack, finish_unpack, false};
    dist_loop_t *dl = dist_loop_begin_same(q->opts->dist, q->direct_items, &codec, q, true);
#pragma omp parallel num_threads(q->opts->threads)
    for (long item; dist_loop_next(dl, &item); dist_loop_finished(dl, item)) qrad_decoupled_finish_face(q, (int)item);
    dist_loop_end(dl);
    return true;
}

/* Face fi's decoupled bytes into the data at the offset its lump entry
 * holds; nothing reads them after. */
typedef struct copy_job_t {
    uint8_t *data;
    const uint8_t *lump;
} copy_job_t;

static void copy_face_bytes(const qrad_t *q, int fi, void *ctx)
{
    const copy_job_t *job = ctx;
    rface_t *d = &q->decoupled->faces[fi];
    if (!d->lit) return;
    int32_t at = rd_i32(job->lump + (size_t)fi * DECOUPLED_LM_ENTRY + 4);
    int ns = 0;
    while (ns < MAXLIGHTMAPS && q->bsp->faces[fi].styles[ns] != 255) ns++;
    memcpy(job->data + at, d->bytes, (size_t)ns * d->w * d->h * 3);
    free(d->bytes);
    d->bytes = NULL;
}

bool qrad_decoupled_write(qrad_t *q, q2err_t *err)
{
    decoupled_t *dc = q->decoupled;
    if (!dc) return true;
    bsp_t *bsp = q->bsp;
    int nf = bsp->numfaces;
    /* Sizes: every lit face's styles (the vanilla face's, which engines
     * read for both), plus one shared block for the unlit faces. */
    size_t total = 0, shared = 0;
    for (int fi = 0; fi < nf; fi++) {
        const rface_t *d = &dc->faces[fi];
        int ns = 0;
        while (ns < MAXLIGHTMAPS && bsp->faces[fi].styles[ns] != 255) ns++;
        size_t n = qrad_lightmap_block(q->opts, (size_t)d->w * d->h, 1);
        if (d->lit) total += qrad_lightmap_block(q->opts, (size_t)d->w * d->h, ns);
        else if (!qrad_face_no_lightmap(q, fi) && n > shared) shared = n;
    }
    size_t base = q->opts->novanilla ? 0 : (size_t)bsp->lightdatasize;
    size_t size = base + total + shared;
    if (size > 0x7fffffff) return q2err_set(err, NULL, 0, 0, "decoupled lightmaps need %zu bytes, over 2 GB", size);
    /* after the vanilla lightmaps (grown in place, not copied) */
    uint8_t *data = base ? q2_realloc(bsp->lightdata, size) : q2_malloc(size > 0 ? size : 1);
    if (base) bsp->lightdata = data;
    /* zeroed: the padding of lightmap_pad4 is part of the file */
    memset(data + base, 0, size - base);
    uint8_t *lump = q2_calloc(nf > 0 ? (size_t)nf : 1, DECOUPLED_LM_ENTRY);
    /* The layout first (face order), then the bytes on the threads. */
    size_t ofs = base;
    long shared_ofs = -1;
    for (int fi = 0; fi < nf; fi++) {
        const rface_t *d = &dc->faces[fi];
        dface_t *df = &bsp->faces[fi];
        int32_t at;
        int w = d->w, h = d->h;
        if (qrad_face_no_lightmap(q, fi)) {
            /* none at all: 0 x 0 at -1 (ericw-tools' sky) */
            at = -1;
            w = h = 0;
        } else if (!d->lit) {
            if (shared_ofs < 0) {
                shared_ofs = (long)ofs;
                qrad_fill_ambient(q->opts, data + ofs, shared);
                ofs += shared;
            }
            at = (int32_t)shared_ofs;
        } else {
            if (!d->bytes) {
                if (!base) free(data);
                free(lump);
                return q2err_set(err, NULL, 0, 0, "internal error: face %d's decoupled lightmap was not finished", fi);
            }
            int ns = 0;
            while (ns < MAXLIGHTMAPS && df->styles[ns] != 255) ns++;
            at = (int32_t)ofs;
            ofs += qrad_lightmap_block(q->opts, (size_t)d->w * d->h, ns);
        }
        uint8_t *e = lump + (size_t)fi * DECOUPLED_LM_ENTRY;
        wr_u16(e, (uint16_t)w);
        wr_u16(e + 2, (uint16_t)h);
        wr_i32(e + 4, at);
        for (int r = 0; r < 2; r++)
            for (int c = 0; c < 4; c++) wr_f32(e + 8 + 16 * r + 4 * c, dc->geo[fi].world_to_lm[r][c]);
    }
    if (ofs != size) {
        if (!base) free(data);
        free(lump);
        return q2err_set(err, NULL, 0, 0, "internal error: decoupled lighting size %zu != %zu", ofs, size);
    }
    copy_job_t job = {data, lump};
    qrad_faces_parallel(q, copy_face_bytes, &job);
    if (q->opts->novanilla)
        for (int fi = 0; fi < nf; fi++) bsp->faces[fi].lightofs = -1;
    if (!base) {
        free(bsp->lightdata);
        bsp->lightdata = data;
    }
    bsp->lightdatasize = (int)size;
    bool ok = bspx_put_lump(bsp, "DECOUPLED_LM", lump, (size_t)nf * DECOUPLED_LM_ENTRY, err);
    free(lump);
    return ok;
}

void qrad_decoupled_free(qrad_t *q)
{
    decoupled_t *dc = q->decoupled;
    if (!dc) return;
    int nf = q->bsp->numfaces;
    for (int fi = 0; fi < nf; fi++) {
        if (dc->faces) {
            rface_free_luxels(&dc->faces[fi]);
            free(dc->faces[fi].bytes);
        }
        if (dc->direct) free(dc->direct[fi]);
    }
    free(dc->faces);
    free(dc->geo);
    free(dc->direct);
    free(dc);
    q->decoupled = NULL;
}
