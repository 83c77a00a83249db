/* color.c: colour helpers under every stage: final bytes, -dirtdebug's
 * bytes, the shared ambient block, the saturation boost. Takes and gives
 * values only. */
#ifndef Q2M_QRAD_COLOR_H
#define Q2M_QRAD_COLOR_H

#include "qrad.h"

/* Final byte value of a channel triple after -scale, -ambient, -maxlight. */
void qrad_final_color(const qrad_opts_t *o, const float in[3], bool style0, uint8_t out[3]);
/* -dirtdebug: the block of a lit face's style 0 (out, w*h*3 bytes) as its
 * dirt factors alone, 255 x each (255 where the face has none). */
void qrad_dirtdebug_bytes(const float *dirtmap, int n, uint8_t *out);
/* Fills bytes of lightmap with the ambient level: the block that the faces
 * without a lightmap of their own share (see write.c). */
void qrad_fill_ambient(const qrad_opts_t *o, uint8_t *data, size_t bytes);
/* ericw's _tex_saturation_boost of a texture colour (0..1 channels): the
 * colour squared, doubled, brought back under 1, mixed in by boost. */
vec3_t qrad_saturation_boost(vec3_t c, double boost);

#endif
