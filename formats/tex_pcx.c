/* 8-bit PCX (ZSoft version 5, one plane, RLE) with its 256-colour palette
 * at the end of the file: the format of Quake 2's pics/colormap.pcx, whose
 * palette is the one .wal textures index. */
#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "bytes.h"
#include "tex_internal.h"

#define PCX_HEADER_SIZE 128
#define PCX_PALETTE_SIZE 769 /* 0x0c marker + 768 */

bool pcx_read(const uint8_t *data, size_t size, const char *name, image_t *img, palette_t *pal, q2err_t *err)
{
    memset(img, 0, sizeof *img);
    if (size < PCX_HEADER_SIZE + PCX_PALETTE_SIZE)
        return q2err_set(err, name, 0, 0, "PCX file is %zu bytes, too short for a header and a 256-colour palette",
                         size);
    int manufacturer = data[0], encoding = data[2], bits = data[3], planes = data[65];
    int xmin = rd_u16(data + 4), ymin = rd_u16(data + 6), xmax = rd_u16(data + 8), ymax = rd_u16(data + 10);
    int bytes_per_line = rd_u16(data + 66);
    if (manufacturer != 0x0a || encoding != 1)
        return q2err_set(err, name, 0, 0, "not a run-length encoded PCX file");
    if (bits != 8 || planes != 1)
        return q2err_set(err, name, 0, 0, "PCX with %d bits and %d planes is not supported (only 8-bit, one plane)",
                         bits, planes);
    if (xmax < xmin || ymax < ymin) return q2err_set(err, name, 0, 0, "PCX window %d,%d..%d,%d is empty", xmin, ymin, xmax, ymax);
    int w = xmax - xmin + 1, h = ymax - ymin + 1;
    if (!tex_check_dims(name, "PCX", w, h, err)) return false;
    if (bytes_per_line < w)
        return q2err_set(err, name, 0, 0, "PCX line length %d is shorter than the width %d", bytes_per_line, w);
    const uint8_t *palp = data + size - PCX_PALETTE_SIZE;
    if (palp[0] != 0x0c) return q2err_set(err, name, 0, 0, "PCX has no 256-colour palette at its end");
    memcpy(pal->rgb, palp + 1, 768);

    size_t pos = PCX_HEADER_SIZE, end = size - PCX_PALETTE_SIZE;
    /* A two-byte run yields at most 63 bytes: refuse impossible claims
     * before allocating. */
    if ((uint64_t)bytes_per_line * (uint64_t)h > (uint64_t)(end - pos) * 32)
        return q2err_set(err, name, 0, 0, "PCX image data is truncated (%zu bytes cannot hold %dx%d)", end - pos,
                         bytes_per_line, h);
    uint8_t *line = q2_malloc((size_t)bytes_per_line);
    tex_image_alloc(img, w, h);
    for (int y = 0; y < h; y++) {
        /* Runs do not cross lines in files Quake 2 reads; a run that does
         * is cut at the line end, as its loader does. */
        int x = 0;
        while (x < bytes_per_line) {
            if (pos >= end) {
                free(line);
                image_free(img);
                return q2err_set(err, name, 0, 0, "PCX image data is truncated at row %d of %d", y, h);
            }
            int b = data[pos++], run = 1;
            if ((b & 0xc0) == 0xc0) {
                run = b & 0x3f;
                if (pos >= end) {
                    free(line);
                    image_free(img);
                    return q2err_set(err, name, 0, 0, "PCX image data is truncated at row %d of %d", y, h);
                }
                b = data[pos++];
            }
            while (run-- > 0 && x < bytes_per_line) line[x++] = (uint8_t)b;
        }
        for (int i = 0; i < w; i++) {
            uint8_t *d = img->rgba + 4 * ((size_t)y * (size_t)w + (size_t)i);
            const uint8_t *c = pal->rgb + 3 * line[i];
            d[0] = c[0];
            d[1] = c[1];
            d[2] = c[2];
            d[3] = 255;
        }
    }
    free(line);
    return true;
}
