#include "visrle.h"

#include <string.h>

#include "bytes.h"

size_t vis_compress_row(const uint8_t *row, int rowbytes, uint8_t *out)
{
    size_t n = 0;
    for (int i = 0; i < rowbytes; i++) {
        if (row[i]) {
            out[n++] = row[i];
            continue;
        }
        int run = 1;
        while (i + run < rowbytes && row[i + run] == 0 && run < 255) run++;
        out[n++] = 0;
        out[n++] = (uint8_t)run;
        i += run - 1;
    }
    return n;
}

size_t vis_decompress_row(const uint8_t *in, size_t in_avail, int rowbytes, uint8_t *out)
{
    size_t pos = 0;
    int o = 0;
    while (o < rowbytes) {
        if (pos >= in_avail) return 0;
        uint8_t b = in[pos++];
        if (b) {
            out[o++] = b;
            continue;
        }
        if (pos >= in_avail) return 0;
        int run = in[pos++];
        if (run == 0 || o + run > rowbytes) return 0;
        memset(out + o, 0, (size_t)run);
        o += run;
    }
    return pos;
}

static bool row_offset(const uint8_t *vis, int vissize, int cluster, int which, int *ofs)
{
    if (vissize < 4) return false;
    int n = (int)rd_i32(vis);
    if (n < 0 || cluster < 0 || cluster >= n) return false;
    if ((int64_t)4 + (int64_t)n * 8 > vissize) return false;
    *ofs = (int)rd_i32(vis + 4 + 8 * cluster + 4 * which);
    return *ofs >= 0 && *ofs < vissize;
}

bool vis_lump_row(const uint8_t *vis, int vissize, int cluster, int which, uint8_t *out)
{
    int ofs;
    if (!row_offset(vis, vissize, cluster, which, &ofs)) return false;
    int n = (int)rd_i32(vis);
    return vis_decompress_row(vis + ofs, (size_t)(vissize - ofs), vis_row_bytes(n), out) > 0;
}

bool vis_lump_check_header(const uint8_t *vis, int vissize, q2err_t *err)
{
    if (vissize == 0) return true;
    if (vissize < 4) return q2err_set(err, NULL, 0, 0, "visibility lump is %d bytes, too short", vissize);
    int n = (int)rd_i32(vis);
    if (n < 0 || (int64_t)4 + (int64_t)n * 8 > vissize)
        return q2err_set(err, NULL, 0, 0, "visibility lump claims %d clusters, more than fit in %d bytes", n, vissize);
    if (vis_row_bytes(n) > VIS_MAX_ROW_BYTES)
        return q2err_set(err, NULL, 0, 0, "visibility lump: %d clusters is too many", n);
    return true;
}

bool vis_lump_check_cluster(const uint8_t *vis, int vissize, int c, q2err_t *err)
{
    int rowbytes = vis_row_bytes((int)rd_i32(vis));
    uint8_t buf[VIS_MAX_ROW_BYTES];
    for (int w = 0; w < 2; w++) {
        int ofs;
        if (!row_offset(vis, vissize, c, w, &ofs))
            return q2err_set(err, NULL, 0, 0, "visibility: cluster %d %s offset outside the lump", c, w ? "PHS" : "PVS");
        if (vis_decompress_row(vis + ofs, (size_t)(vissize - ofs), rowbytes, buf) == 0)
            return q2err_set(err, NULL, 0, 0, "visibility: cluster %d %s row does not decompress to %d bytes", c,
                             w ? "PHS" : "PVS", rowbytes);
    }
    return true;
}

bool vis_lump_check(const uint8_t *vis, int vissize, q2err_t *err)
{
    if (vissize == 0) return true;
    if (!vis_lump_check_header(vis, vissize, err)) return false;
    int n = (int)rd_i32(vis);
    for (int c = 0; c < n; c++)
        if (!vis_lump_check_cluster(vis, vissize, c, err)) return false;
    return true;
}
