/* The lighting lump: every face gets style 0 first and at most three more
 * styles, each a w*h*3 RGB block, laid out in face order so the lump is a
 * pure function of the computed light. Under -preset ericw a face's blocks
 * are then ordered brightest first, as ericw-tools writes them.
 *
 * Faces that are not lit (sky faces, liquid faces too large for a lightmap,
 * degenerate faces) all point at one shared block of the ambient level,
 * sized for the largest of them: engines never draw those lightmaps, but an
 * offset of -1 would render fullbright in Quake 2 and qrad3's offset 0 makes
 * entities standing over such faces sample another face's light. */
#include <stdlib.h>
#include <string.h>

#include "write.h"
#include "bounce.h"
#include "color.h"
#include "decoupled.h"
#include "facegeom.h"
#include "minlight.h"
#include "qrad.h"
#include "surflights.h"
#include "../common/dist.h"
#include "../common/mem.h"


/* A lit face's lightmap bytes, from its light after the floors. */
static void face_bytes(const qrad_opts_t *o, const rface_t *f, uint8_t *out)
{
    int n = f->w * f->h;
    for (int s = 0; s < f->numstyles; s++) {
        const float *src = f->light + (size_t)s * n * 3;
        for (int k = 0; k < n; k++)
            qrad_final_color(o, src + k * 3, f->styles[s] == 0, out + ((size_t)s * n + k) * 3);
        /* the other styles keep their light, as in ericw-tools */
        if (o->dirtdebug && f->styles[s] == 0) qrad_dirtdebug_bytes(f->dirtmap, n, out + (size_t)s * n * 3);
    }
}

/* Moves the blocks of n bytes at data into the order given (block k of
 * the result is block order[k] of the input). */
static void permute_blocks(uint8_t *data, size_t n, int ns, const int *order)
{
    uint8_t *copy = q2_malloc(n * (size_t)ns + 1);
    memcpy(copy, data, n * (size_t)ns);
    for (int k = 0; k < ns; k++) memcpy(data + n * (size_t)k, copy + n * (size_t)order[k], n);
    free(copy);
}

/* ericw-tools' order of a face's lightmaps (its light/write.cc,
 * CalculateLightmapStyles): brightest first by the mean over the face's
 * luxels and channels (ours of the bytes, its of the clamped floats);
 * equal means keep qrad's order. The face's bytes, its decoupled bytes and
 * its styles move together; its float light (read after this only for its
 * style-0 slot, by the light grid) stays in qrad's order. */
static void order_face_styles(const qrad_t *q, int fi, void *ctx)
{
    (void)ctx;
    rface_t *f = &q->faces[fi];
    if (!f->lit || f->numstyles < 2) return;
    size_t n = (size_t)f->w * f->h * 3;
    if (!f->bytes) {
        f->bytes = q2_malloc(n * f->numstyles + 1);
        face_bytes(q->opts, f, f->bytes);
    }
    double mean[MAXLIGHTMAPS];
    int order[MAXLIGHTMAPS], ns = f->numstyles;
    for (int s = 0; s < ns; s++) {
        uint64_t sum = 0;
        for (size_t k = 0; k < n; k++) sum += f->bytes[(size_t)s * n + k];
        mean[s] = (double)sum / (double)n;
        order[s] = s;
    }
    for (int i = 1; i < ns; i++)
        for (int j = i; j > 0 && mean[order[j]] > mean[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    bool same = true;
    for (int s = 0; s < ns; s++) same &= order[s] == s;
    if (same) return;
    permute_blocks(f->bytes, n, ns, order);
    const rface_t *d = qrad_decoupled_face(q, fi);
    if (d && d->lit && d->bytes) permute_blocks(d->bytes, (size_t)d->w * d->h * 3, ns, order);
    int styles[MAXLIGHTMAPS];
    for (int s = 0; s < ns; s++) styles[s] = f->styles[order[s]];
    memcpy(f->styles, styles, sizeof(int) * ns);
}

/* A finished face as it travels to rank 0: its style count and styles,
 * then its bytes and its decoupled lightmap's (decoupled.c); nothing for a
 * face without a lightmap. */
#define FINISH_HEAD (sizeof(int) * (1 + MAXLIGHTMAPS))

static size_t finish_size(void *ctx, long fi)
{
    const qrad_t *q = ctx;
    const rface_t *f = &q->faces[fi];
    return f->lit ? FINISH_HEAD + (size_t)f->numstyles * f->w * f->h * 3 + qrad_decoupled_bytes_size(q, (int)fi) : 0;
}

static void finish_pack(void *ctx, long fi, uint8_t *out)
{
    const rface_t *f = &((qrad_t *)ctx)->faces[fi];
    if (!f->lit) return;
    int head[1 + MAXLIGHTMAPS] = {f->numstyles};
    memcpy(head + 1, f->styles, sizeof(int) * MAXLIGHTMAPS);
    memcpy(out, head, FINISH_HEAD);
    size_t n = (size_t)f->numstyles * f->w * f->h * 3;
    memcpy(out + FINISH_HEAD, f->bytes, n);
    qrad_decoupled_pack(ctx, (int)fi, out + FINISH_HEAD + n);
}

static void finish_unpack(void *ctx, long fi, const uint8_t *in, size_t size)
{
    rface_t *f = &((qrad_t *)ctx)->faces[fi];
    if (!f->lit || size < FINISH_HEAD) return;
    int head[1 + MAXLIGHTMAPS];
    memcpy(head, in, FINISH_HEAD);
    f->numstyles = head[0];
    memcpy(f->styles, head + 1, sizeof(int) * MAXLIGHTMAPS);
    size_t n = (size_t)f->numstyles * f->w * f->h * 3;
    free(f->bytes);
    f->bytes = q2_malloc(n + 1);
    memcpy(f->bytes, in + FINISH_HEAD, n);
    qrad_decoupled_unpack(ctx, (int)fi, in + FINISH_HEAD + n, size - FINISH_HEAD - n);
}

bool qrad_finish(qrad_t *q, q2err_t *err)
{
    (void)err;
    qrad_gather_t *g = q->bounces > 0 && q->patches ? qrad_gather_begin(q) : NULL;
    qrad_minlight_t m;
    bool floors = qrad_minlight_begin(q, &m);
    static const dist_codec_t codec = {finish_size, finish_pack, finish_unpack, false};
    dist_loop_t *dl = dist_loop_begin_same(q->opts->dist, q->direct_items, &codec, q, true);
#pragma omp parallel num_threads(q->opts->threads)
    for (long item; dist_loop_next(dl, &item); dist_loop_finished(dl, item)) {
        int fi = (int)item;
        rface_t *f = &q->faces[fi];
        /* in the order the whole-map stages run: bounces, floors, lump */
        if (g) qrad_gather_face(q, g, fi);
        if (floors) qrad_minlight_face(q, &m, fi);
        qrad_surflights_floor_face(q, fi);
        if (q->decoupled) qrad_decoupled_finish_face(q, fi);
        if (f->lit) {
            f->bytes = q2_malloc((size_t)f->numstyles * f->w * f->h * 3 + 1);
            face_bytes(q->opts, f, f->bytes);
        }
        /* nothing reads the face's luxels after its bytes: freed here, on
         * the rank's threads, not one by one at the end */
        rface_free_luxels(f);
    }
    dist_loop_end(dl);
    qrad_gather_end(g);
    return true;
}

/* Face fi's bytes into the lump at its offset; nothing reads them after. */
static void copy_face_bytes(const qrad_t *q, int fi, void *data)
{
    rface_t *f = &q->faces[fi];
    if (!f->lit) return;
    uint8_t *out = (uint8_t *)data + q->bsp->faces[fi].lightofs;
    if (f->bytes) memcpy(out, f->bytes, (size_t)f->numstyles * f->w * f->h * 3);
    else face_bytes(q->opts, f, out);
    free(f->bytes);
    f->bytes = NULL;
}

bool qrad_write_lighting(qrad_t *q, q2err_t *err)
{
    bsp_t *bsp = q->bsp;
    int nf = bsp->numfaces;
    size_t total = 0, shared = 0;
    if (q->opts->styles_by_brightness) qrad_faces_parallel(q, order_face_styles, NULL);
    for (int fi = 0; fi < nf; fi++) {
        const rface_t *f = &q->faces[fi];
        size_t n = qrad_lightmap_block(q->opts, (size_t)f->w * f->h, 1);
        if (f->lit) total += qrad_lightmap_block(q->opts, (size_t)f->w * f->h, f->numstyles);
        else if (!qrad_face_no_lightmap(q, fi) && n > shared) shared = n;
    }
    size_t size = total + shared;
    if (size > 0x7fffffff) return q2err_set(err, NULL, 0, 0, "lightmaps need %zu bytes, over 2 GB", size);
    /* zeroed: the padding of lightmap_pad4 is part of the file */
    uint8_t *data = q2_calloc(size > 0 ? size : 1, 1);
    /* The layout first (face order), then the bytes on the threads. */
    size_t ofs = 0;
    long shared_ofs = -1;
    for (int fi = 0; fi < nf; fi++) {
        rface_t *f = &q->faces[fi];
        dface_t *df = &bsp->faces[fi];
        memset(df->styles, 255, sizeof df->styles);
        if (qrad_face_no_lightmap(q, fi)) {
            df->lightofs = -1;
            continue;
        }
        if (!f->lit) {
            if (shared_ofs < 0) {
                shared_ofs = (long)ofs;
                qrad_fill_ambient(q->opts, data + ofs, shared);
                ofs += shared;
            }
            df->styles[0] = 0;
            df->lightofs = (int32_t)shared_ofs;
            continue;
        }
        df->lightofs = (int32_t)ofs;
        for (int s = 0; s < f->numstyles; s++) df->styles[s] = (uint8_t)f->styles[s];
        ofs += qrad_lightmap_block(q->opts, (size_t)f->w * f->h, f->numstyles);
    }
    qrad_faces_parallel(q, copy_face_bytes, data);
    if (ofs != size) {
        free(data);
        return q2err_set(err, NULL, 0, 0, "internal error: lighting size %zu != %zu", ofs, size);
    }
    if (size > (size_t)MAX_MAP_LIGHTING)
        log_warn(q->log, "lighting data is %zu bytes, over MAX_MAP_LIGHTING (%d)", size, MAX_MAP_LIGHTING);
    free(bsp->lightdata);
    bsp->lightdata = data;
    bsp->lightdatasize = (int)size;
    return true;
}
