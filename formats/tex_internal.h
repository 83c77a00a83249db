/* Shared limits and helpers of the texture decoders (tex_*.c, textures.c);
 * not part of the public interface. */
#ifndef Q2M_TEX_INTERNAL_H
#define Q2M_TEX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "textures.h"

/* The largest image any decoder accepts. Quake 2 engines cap textures far
 * below this; the limit keeps a forged header from requesting gigabytes. */
#define TEX_MAX_DIM 16384
#define TEX_MAX_PIXELS ((uint64_t)1 << 26)

/* Allocates img->rgba for w x h; the caller has checked the limits. */
void tex_image_alloc(image_t *img, int w, int h);

/* Checks w and h against the limits; the error names `name`. */
bool tex_check_dims(const char *name, const char *what, long long w, long long h, q2err_t *err);

/* wal_json_read plus the optional "color" [r, g, b] (0..255) that
 * ericw-tools uses as the texture's colour when there is no image. */
bool wal_json_parse(const char *text, size_t size, const char *name, texmeta_t *meta, bool *has_color,
                    uint8_t color[3], q2err_t *err);

#endif
