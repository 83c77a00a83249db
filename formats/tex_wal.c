/* Quake 2 .wal textures: a 100-byte miptex header, then four mip levels
 * of 8-bit palette indices. Only mip 0 is decoded; the smaller levels are
 * the engine's business. */
#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "bytes.h"
#include "tex_internal.h"

#define WAL_HEADER_SIZE 100
#define WAL_NAME_SIZE 32

void tex_image_alloc(image_t *img, int w, int h)
{
    img->width = w;
    img->height = h;
    img->rgba = q2_malloc((size_t)w * (size_t)h * 4);
    img->indexed = false;
}

bool tex_check_dims(const char *name, const char *what, long long w, long long h, q2err_t *err)
{
    if (w <= 0 || h <= 0 || w > TEX_MAX_DIM || h > TEX_MAX_DIM || (uint64_t)w * (uint64_t)h > TEX_MAX_PIXELS)
        return q2err_set(err, name, 0, 0, "%s size %lldx%lld is outside 1..%d per side (at most %llu pixels)", what, w,
                         h, TEX_MAX_DIM, (unsigned long long)TEX_MAX_PIXELS);
    return true;
}

void image_free(image_t *img)
{
    if (!img) return;
    free(img->rgba);
    img->rgba = NULL;
    img->width = img->height = 0;
}

bool wal_read(const uint8_t *data, size_t size, const char *name, const palette_t *pal, texmeta_t *meta,
              image_t *img, q2err_t *err)
{
    if (img) memset(img, 0, sizeof *img);
    if (size < WAL_HEADER_SIZE)
        return q2err_set(err, name, 0, 0, "wal file is %zu bytes, shorter than its %d-byte header", size,
                         WAL_HEADER_SIZE);
    uint32_t w = rd_u32(data + 32), h = rd_u32(data + 36);
    uint32_t ofs0 = rd_u32(data + 40);
    if (!tex_check_dims(name, "wal", (long long)w, (long long)h, err)) return false;
    uint64_t pixels = (uint64_t)w * h;
    if (ofs0 < WAL_HEADER_SIZE || (uint64_t)ofs0 + pixels > size)
        return q2err_set(err, name, 0, 0, "wal mip 0 (%ux%u at offset %u) is outside the %zu-byte file", w, h, ofs0,
                         size);
    memset(meta, 0, sizeof *meta);
    meta->width = (int)w;
    meta->height = (int)h;
    /* Names are fixed 32-byte fields, NUL-padded but not always
     * NUL-terminated. */
    memcpy(meta->animname, data + 56, WAL_NAME_SIZE);
    meta->animname[WAL_NAME_SIZE] = 0;
    meta->flags = rd_i32(data + 88);
    meta->contents = rd_i32(data + 92);
    meta->value = rd_i32(data + 96);
    meta->found = true;
    meta->from_table = false;
    if (!img) return true;
    if (!pal) pal = palette_quake2();
    tex_image_alloc(img, (int)w, (int)h);
    const uint8_t *src = data + ofs0;
    for (uint64_t i = 0; i < pixels; i++) {
        const uint8_t *c = pal->rgb + 3 * src[i];
        img->rgba[4 * i + 0] = c[0];
        img->rgba[4 * i + 1] = c[1];
        img->rgba[4 * i + 2] = c[2];
        img->rgba[4 * i + 3] = src[i] == 255 ? 0 : 255;
    }
    img->indexed = true;
    return true;
}
