/* PNG through libpng's simplified API, which handles every colour type,
 * bit depth and interlacing and converts to 8-bit RGBA. */
#include <png.h>
#include <stdlib.h>
#include <string.h>

#include "../common/fileio.h"
#include "../common/mem.h"
#include "tex_internal.h"

bool png_read(const uint8_t *data, size_t size, const char *name, image_t *img, q2err_t *err)
{
    memset(img, 0, sizeof *img);
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&pi, data, size))
        return q2err_set(err, name, 0, 0, "not a readable PNG: %s", pi.message);
    if (!tex_check_dims(name, "PNG", (long long)pi.width, (long long)pi.height, err)) {
        png_image_free(&pi);
        return false;
    }
    /* Every pixel takes at least one bit of filtered data and deflate
     * expands at most 1032:1, so a small file claiming a huge image is
     * refused before the allocation. */
    if ((uint64_t)pi.width * pi.height > (uint64_t)size * 8 * 1032) {
        png_image_free(&pi);
        return q2err_set(err, name, 0, 0, "PNG claims %ux%u pixels, more than its %zu bytes can hold", pi.width,
                         pi.height, size);
    }
    pi.format = PNG_FORMAT_RGBA;
    tex_image_alloc(img, (int)pi.width, (int)pi.height);
    if (!png_image_finish_read(&pi, NULL, img->rgba, 0, NULL)) {
        q2err_set(err, name, 0, 0, "corrupt PNG: %s", pi.message);
        png_image_free(&pi);
        image_free(img);
        return false;
    }
    png_image_free(&pi);
    return true;
}

bool png_write_file(const char *path, const image_t *img, q2err_t *err)
{
    if (!img || !img->rgba) return q2err_set(err, path, 0, 0, "no image to write");
    if (!tex_check_dims(path, "image", img->width, img->height, err)) return false;
    atomic_file_t af;
    if (!atomic_open(&af, path, err)) return false;
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    pi.width = (png_uint_32)img->width;
    pi.height = (png_uint_32)img->height;
    pi.format = PNG_FORMAT_RGBA;
    if (!png_image_write_to_stdio(&pi, af.f, 0, img->rgba, 0, NULL)) {
        q2err_set(err, path, 0, 0, "PNG encoding failed: %s", pi.message);
        png_image_free(&pi);
        atomic_abort(&af);
        return false;
    }
    png_image_free(&pi);
    return atomic_commit(&af, err);
}
