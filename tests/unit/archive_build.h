/* Test helpers that build .pak and .zip archives in memory, so tests need
 * no committed archives: a pak by hand, a zip with minimal local headers, a
 * central directory and an end record, entries deflated with zlib. */
#ifndef Q2M_TEST_ARCHIVE_BUILD_H
#define Q2M_TEST_ARCHIVE_BUILD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

typedef struct ab_file_t {
    const char *name;
    const void *data;
    size_t size;
    int method; /* zip only: 0 stored, 8 deflate */
} ab_file_t;

typedef struct ab_buf_t {
    uint8_t *p;
    size_t len, cap;
} ab_buf_t;

static inline void ab_put(ab_buf_t *b, const void *d, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (b->len + n > cap) cap *= 2;
        b->p = realloc(b->p, cap);
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->len, d, n);
    b->len += n;
}
static inline void ab_u16(ab_buf_t *b, uint32_t v)
{
    uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    ab_put(b, x, 2);
}
static inline void ab_u32(ab_buf_t *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    ab_put(b, x, 4);
}

static inline ab_buf_t ab_pak(const ab_file_t *files, int n)
{
    ab_buf_t b = {0};
    ab_put(&b, "PACK", 4);
    ab_u32(&b, 0);
    ab_u32(&b, 0);
    uint32_t *pos = calloc((size_t)n + 1, sizeof *pos);
    for (int i = 0; i < n; i++) {
        pos[i] = (uint32_t)b.len;
        ab_put(&b, files[i].data, files[i].size);
    }
    uint32_t dirofs = (uint32_t)b.len;
    for (int i = 0; i < n; i++) {
        char name[56] = {0};
        strncpy(name, files[i].name, 55);
        ab_put(&b, name, 56);
        ab_u32(&b, pos[i]);
        ab_u32(&b, (uint32_t)files[i].size);
    }
    uint32_t dirlen = (uint32_t)b.len - dirofs;
    memcpy(b.p + 4, (uint8_t[4]){(uint8_t)dirofs, (uint8_t)(dirofs >> 8), (uint8_t)(dirofs >> 16), (uint8_t)(dirofs >> 24)}, 4);
    memcpy(b.p + 8, (uint8_t[4]){(uint8_t)dirlen, (uint8_t)(dirlen >> 8), (uint8_t)(dirlen >> 16), (uint8_t)(dirlen >> 24)}, 4);
    free(pos);
    return b;
}

/* Raw deflate, as zip stores it. */
static inline ab_buf_t ab_deflate(const void *data, size_t size)
{
    ab_buf_t out = {0};
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    deflateInit2(&zs, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    uLong bound = deflateBound(&zs, (uLong)size);
    out.p = malloc(bound + 1);
    out.cap = bound + 1;
    zs.next_in = (Bytef *)data;
    zs.avail_in = (uInt)size;
    zs.next_out = out.p;
    zs.avail_out = (uInt)bound;
    deflate(&zs, Z_FINISH);
    out.len = zs.total_out;
    deflateEnd(&zs);
    return out;
}

static inline ab_buf_t ab_zip(const ab_file_t *files, int n)
{
    ab_buf_t b = {0}, cd = {0};
    for (int i = 0; i < n; i++) {
        uint32_t crc = (uint32_t)crc32(0, files[i].data, (uInt)files[i].size);
        ab_buf_t comp = {0};
        if (files[i].method == 8)
            comp = ab_deflate(files[i].data, files[i].size);
        else
            ab_put(&comp, files[i].data, files[i].size);
        uint32_t lho = (uint32_t)b.len;
        size_t nl = strlen(files[i].name);
        ab_u32(&b, 0x04034b50u);
        ab_u16(&b, 20);
        ab_u16(&b, 0);
        ab_u16(&b, (uint32_t)files[i].method);
        ab_u16(&b, 0);
        ab_u16(&b, 0);
        ab_u32(&b, crc);
        ab_u32(&b, (uint32_t)comp.len);
        ab_u32(&b, (uint32_t)files[i].size);
        ab_u16(&b, (uint32_t)nl);
        ab_u16(&b, 0);
        ab_put(&b, files[i].name, nl);
        ab_put(&b, comp.p, comp.len);

        ab_u32(&cd, 0x02014b50u);
        ab_u16(&cd, 20);
        ab_u16(&cd, 20);
        ab_u16(&cd, 0);
        ab_u16(&cd, (uint32_t)files[i].method);
        ab_u16(&cd, 0);
        ab_u16(&cd, 0);
        ab_u32(&cd, crc);
        ab_u32(&cd, (uint32_t)comp.len);
        ab_u32(&cd, (uint32_t)files[i].size);
        ab_u16(&cd, (uint32_t)nl);
        ab_u16(&cd, 0);
        ab_u16(&cd, 0);
        ab_u16(&cd, 0);
        ab_u16(&cd, 0);
        ab_u32(&cd, 0);
        ab_u32(&cd, lho);
        ab_put(&cd, files[i].name, nl);
        free(comp.p);
    }
    uint32_t cdofs = (uint32_t)b.len;
    ab_put(&b, cd.p, cd.len);
    ab_u32(&b, 0x06054b50u);
    ab_u16(&b, 0);
    ab_u16(&b, 0);
    ab_u16(&b, (uint32_t)n);
    ab_u16(&b, (uint32_t)n);
    ab_u32(&b, (uint32_t)cd.len);
    ab_u32(&b, cdofs);
    ab_u16(&b, 0);
    free(cd.p);
    return b;
}

static inline int ab_write(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    int ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

/* Writes b to dir/name (no subdirectories) and frees it. */
static inline int ab_save(const char *dir, const char *name, ab_buf_t b)
{
    char path[4096];
    int ok = snprintf(path, sizeof path, "%s/%s", dir, name) < (int)sizeof path && ab_write(path, b.p, b.len);
    free(b.p);
    return ok;
}

#endif
