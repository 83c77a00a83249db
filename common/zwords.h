/* Zero-word elision: a byte buffer as a bitmap of its 8-byte words that are
 * not zero, followed by those words and the tail of fewer than 8 bytes.
 *
 * What the MPI ranks exchange is mostly bit vectors (qvis's might-see rows,
 * passages and can-see rows) and light values with long zero runs; eliding
 * zero words halves them at a cost of one test per word, where a general
 * compressor (zlib) would spend more CPU than the link time it saves.
 *
 * Layout: the raw length (uint64, little-endian as the host writes it: both
 * ends are ranks of one job), ceil(words / 8) bytes of bitmap (bit i of byte
 * i / 8 set: word i is stored), the stored words in order, the tail. */
#ifndef Q2M_ZWORDS_H
#define Q2M_ZWORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The room zw_encode needs for n input bytes (a little more than it keeps). */
size_t zw_bound(size_t n);
/* Encodes in[0..n) into out (room for zw_bound(n)); returns the length. */
size_t zw_encode(const uint8_t *in, size_t n, uint8_t *out);
/* The raw length an encoded buffer holds, or false when `len` bytes cannot
 * even hold the header. */
bool zw_raw_size(const uint8_t *in, size_t len, size_t *raw);
/* Decodes in[0..len) into out (room for its raw size); false when the
 * buffer is not a whole encoding (truncated, or bytes left over). */
bool zw_decode(const uint8_t *in, size_t len, uint8_t *out, size_t cap);

#endif
