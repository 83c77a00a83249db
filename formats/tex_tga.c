/* Truevision TGA: uncompressed and run-length encoded true colour (24 and
 * 32 bits, stored BGR(A)) and 8-bit grey, either row order. */
#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "bytes.h"
#include "tex_internal.h"

#define TGA_HEADER_SIZE 18

enum { TGA_TRUECOLOR = 2, TGA_GREY = 3, TGA_RLE_TRUECOLOR = 10, TGA_RLE_GREY = 11 };

static void put_pixel(uint8_t *dst, const uint8_t *src, int bpp)
{
    if (bpp == 1) {
        dst[0] = dst[1] = dst[2] = src[0];
        dst[3] = 255;
    } else {
        dst[0] = src[2];
        dst[1] = src[1];
        dst[2] = src[0];
        dst[3] = bpp == 4 ? src[3] : 255;
    }
}

bool tga_read(const uint8_t *data, size_t size, const char *name, image_t *img, q2err_t *err)
{
    memset(img, 0, sizeof *img);
    if (size < TGA_HEADER_SIZE)
        return q2err_set(err, name, 0, 0, "TGA file is %zu bytes, shorter than its 18-byte header", size);
    int idlen = data[0], cmaptype = data[1], type = data[2];
    int cmaplen = rd_u16(data + 5), cmapbits = data[7];
    int w = rd_u16(data + 12), h = rd_u16(data + 14), bits = data[16], desc = data[17];
    bool grey = type == TGA_GREY || type == TGA_RLE_GREY;
    bool rle = type == TGA_RLE_TRUECOLOR || type == TGA_RLE_GREY;
    if (type != TGA_TRUECOLOR && type != TGA_GREY && !rle)
        return q2err_set(err, name, 0, 0, "TGA image type %d is not supported (only true colour and grey, raw or RLE)",
                         type);
    if (cmaptype > 1) return q2err_set(err, name, 0, 0, "TGA colour map type %d is invalid", cmaptype);
    if (grey ? bits != 8 : (bits != 24 && bits != 32))
        return q2err_set(err, name, 0, 0, "TGA %s image with %d bits per pixel is not supported", grey ? "grey" : "colour",
                         bits);
    if (!tex_check_dims(name, "TGA", w, h, err)) return false;
    int bpp = bits / 8;
    /* An unused colour map may still be present in true-colour files. */
    size_t pos = TGA_HEADER_SIZE + (size_t)idlen + (cmaptype ? (size_t)cmaplen * (size_t)((cmapbits + 7) / 8) : 0);
    if (pos > size) return q2err_set(err, name, 0, 0, "TGA header fields run past the end of the %zu-byte file", size);
    size_t npix = (size_t)w * (size_t)h;
    /* Raw data needs bpp bytes per pixel; an RLE packet of at least two
     * bytes yields at most 128 pixels. Checked before allocating. */
    if (!rle && (size - pos) / (size_t)bpp < npix)
        return q2err_set(err, name, 0, 0, "TGA pixel data is truncated (%zu bytes for %dx%d at %d bits)", size - pos, w,
                         h, bits);
    if (rle && (uint64_t)npix > (uint64_t)(size - pos) * 64)
        return q2err_set(err, name, 0, 0, "TGA run-length data is truncated (%zu bytes cannot hold %dx%d pixels)",
                         size - pos, w, h);
    tex_image_alloc(img, w, h);
    if (!rle) {
        for (size_t i = 0; i < npix; i++) put_pixel(img->rgba + 4 * i, data + pos + i * (size_t)bpp, bpp);
    } else {
        size_t i = 0;
        while (i < npix) {
            if (pos >= size) break;
            int hdr = data[pos++];
            size_t count = (size_t)(hdr & 0x7f) + 1;
            /* Packets may cross rows but not the end of the image. */
            if (count > npix - i) {
                image_free(img);
                return q2err_set(err, name, 0, 0, "TGA run-length packet at byte %zu runs past the image", pos - 1);
            }
            size_t need = (hdr & 0x80) ? (size_t)bpp : count * (size_t)bpp;
            if (need > size - pos) break;
            for (size_t k = 0; k < count; k++)
                put_pixel(img->rgba + 4 * (i + k), data + pos + ((hdr & 0x80) ? 0 : k * (size_t)bpp), bpp);
            pos += need;
            i += count;
        }
        if (i < npix) {
            image_free(img);
            return q2err_set(err, name, 0, 0, "TGA run-length data is truncated (%zu of %zu pixels)", i, npix);
        }
    }
    /* Bit 5 of the descriptor: rows stored top first; otherwise bottom
     * first. Bit 4: columns stored right to left. */
    if (!(desc & 0x20)) {
        size_t row = (size_t)w * 4;
        uint8_t *tmp = q2_malloc(row);
        for (int y = 0; y < h / 2; y++) {
            uint8_t *a = img->rgba + (size_t)y * row, *b = img->rgba + (size_t)(h - 1 - y) * row;
            memcpy(tmp, a, row);
            memcpy(a, b, row);
            memcpy(b, tmp, row);
        }
        free(tmp);
    }
    if (desc & 0x10) {
        for (int y = 0; y < h; y++) {
            uint8_t *r = img->rgba + (size_t)y * (size_t)w * 4;
            for (int x = 0; x < w / 2; x++) {
                uint8_t t[4];
                memcpy(t, r + 4 * x, 4);
                memcpy(r + 4 * x, r + 4 * (w - 1 - x), 4);
                memcpy(r + 4 * (w - 1 - x), t, 4);
            }
        }
    }
    return true;
}
