#include "groupkeys.h"

#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "../common/mem.h"
#include "bytes.h"

void groupkeys_encode(const groupkeys_t *g, uint8_t **data, size_t *size)
{
    char *text = entities_unparse(&g->sets);
    size_t tlen = strlen(text) + 1;
    size_t head = 8 + (((size_t)g->numfaces * 2 + 3) & ~(size_t)3);
    uint8_t *p = q2_calloc(head + tlen, 1);
    wr_u32(p, (uint32_t)g->numfaces);
    wr_u32(p + 4, (uint32_t)g->sets.count);
    for (int i = 0; i < g->numfaces; i++) {
        wr_u16(p + 8 + 2 * i, g->set[i]);
    }
    memcpy(p + head, text, tlen);
    free(text);
    *data = p;
    *size = head + tlen;
}

bool groupkeys_decode(const uint8_t *data, size_t size, int numfaces, groupkeys_t *out, q2err_t *err)
{
    memset(out, 0, sizeof *out);
    if (size < 8) return q2err_set(err, GROUPKEYS_LUMP, 0, 0, "lump of %zu bytes is shorter than its header", size);
    uint32_t nf = rd_u32(data), ns = rd_u32(data + 4);
    if (nf != (uint32_t)numfaces)
        return q2err_set(err, GROUPKEYS_LUMP, 0, 0, "lump is for %u faces, the bsp has %d", nf, numfaces);
    size_t head = 8 + (((size_t)nf * 2 + 3) & ~(size_t)3);
    if (head >= size) return q2err_set(err, GROUPKEYS_LUMP, 0, 0, "lump of %zu bytes is too short for %u faces", size, nf);
    if (data[size - 1] != 0) return q2err_set(err, GROUPKEYS_LUMP, 0, 0, "keyset text is not NUL-terminated");
    const char *text = (const char *)data + head;
    if (strlen(text) != size - head - 1) return q2err_set(err, GROUPKEYS_LUMP, 0, 0, "NUL inside the keyset text");
    if (!entities_parse(text, GROUPKEYS_LUMP, &out->sets, err)) return false;
    if ((uint32_t)out->sets.count != ns) {
        q2err_set(err, GROUPKEYS_LUMP, 0, 0, "%d keysets in the text, the header says %u", out->sets.count, ns);
        groupkeys_lump_free(out);
        return false;
    }
    out->numfaces = numfaces;
    out->set = q2_calloc(nf > 0 ? nf : 1, sizeof *out->set);
    for (uint32_t i = 0; i < nf; i++) {
        uint16_t s = rd_u16(data + 8 + 2 * i);
        if (s > ns) {
            q2err_set(err, GROUPKEYS_LUMP, 0, 0, "face %u: keyset %u of %u", i, s, ns);
            groupkeys_lump_free(out);
            return false;
        }
        out->set[i] = s;
    }
    return true;
}

void groupkeys_lump_free(groupkeys_t *g)
{
    free(g->set);
    entities_free(&g->sets);
    memset(g, 0, sizeof *g);
}

uint32_t groupkeys_fingerprint(const bsp_t *bsp)
{
    uint8_t b[12];
    wr_u32(b, (uint32_t)bsp->numfaces);
    uLong crc = crc32(0L, b, 4);
    for (int i = 0; i < bsp->numvertexes; i++) {
        for (int k = 0; k < 3; k++) wr_f32(b + 4 * k, bsp->vertexes[i].point[k]);
        crc = crc32(crc, b, 12);
    }
    for (int i = 0; i < bsp->numsurfedges; i++) {
        wr_u32(b, (uint32_t)bsp->surfedges[i]);
        crc = crc32(crc, b, 4);
    }
    return (uint32_t)crc;
}

#define GK_HEAD 12 /* magic and fingerprint */

void groupkeys_file_encode(const uint8_t *lump, size_t lumpsize, const bsp_t *bsp, uint8_t **data, size_t *size)
{
    uint8_t *p = q2_malloc(GK_HEAD + lumpsize);
    memcpy(p, GROUPKEYS_MAGIC, 8);
    wr_u32(p + 8, groupkeys_fingerprint(bsp));
    memcpy(p + GK_HEAD, lump, lumpsize);
    *data = p;
    *size = GK_HEAD + lumpsize;
}

bool groupkeys_file_belongs(const uint8_t *data, size_t size, const bsp_t *bsp)
{
    return size >= GK_HEAD && memcmp(data, GROUPKEYS_MAGIC, 8) == 0 && rd_u32(data + 8) == groupkeys_fingerprint(bsp);
}

bool groupkeys_file_decode(const uint8_t *data, size_t size, const bsp_t *bsp, const char *name, groupkeys_t *out,
                           q2err_t *err)
{
    memset(out, 0, sizeof *out);
    if (size < GK_HEAD || memcmp(data, GROUPKEYS_MAGIC, 8) != 0)
        return q2err_set(err, name, 0, 0, "not a q2map group-keys file (no %s header)", GROUPKEYS_MAGIC);
    if (rd_u32(data + 8) != groupkeys_fingerprint(bsp))
        return q2err_set(err, name, 0, 0,
                         "belongs to another compile of the map (its fingerprint does not match the bsp): compile "
                         "the map again, or delete the file to light without its func_group keys");
    if (!groupkeys_decode(data + GK_HEAD, size - GK_HEAD, bsp->numfaces, out, err)) {
        q2err_t inner = *err;
        return q2err_set(err, name, 0, 0, "%s", inner.msg);
    }
    return true;
}
