/* Quake's zero run-length compression of PVS/PHS rows, and access to the
 * visibility lump (numclusters, bitofs[c][PVS/PHS], rows). */
#ifndef Q2M_VISRLE_H
#define Q2M_VISRLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"

#define DVIS_PVS 0
#define DVIS_PHS 1

/* Bytes in an uncompressed row of `numclusters` bits. */
static inline int vis_row_bytes(int numclusters) { return (numclusters + 7) >> 3; }

/* Compresses `rowbytes` bytes: non-zero bytes are copied, each run of 1..255
 * zero bytes becomes 0x00 followed by the run length. `out` must hold at
 * least rowbytes * 3 / 2 + 2 bytes (the worst case is isolated zeros).
 * Returns the compressed length. */
size_t vis_compress_row(const uint8_t *row, int rowbytes, uint8_t *out);

/* Decompresses one row from `in` (at most `in_avail` bytes available) into
 * `out` (rowbytes bytes). Returns the number of input bytes consumed, or 0
 * on malformed data (a run past the row's end or input ending early). */
size_t vis_decompress_row(const uint8_t *in, size_t in_avail, int rowbytes, uint8_t *out);

/* Validates a visibility lump's header and that every row offset lies in
 * the lump and decompresses to exactly the row length. */
bool vis_lump_check(const uint8_t *vis, int vissize, q2err_t *err);

/* vis_lump_check in two parts, for callers that check the clusters on
 * several threads: the header (true for an empty lump), then, for a lump
 * whose header passed, one cluster's two rows. vis_lump_check's message is
 * the header's or the first failing cluster's. */
#define VIS_MAX_ROW_BYTES 8192
bool vis_lump_check_header(const uint8_t *vis, int vissize, q2err_t *err);
bool vis_lump_check_cluster(const uint8_t *vis, int vissize, int cluster, q2err_t *err);

/* Decompresses row `which` (DVIS_PVS or DVIS_PHS) of cluster c into out.
 * Returns false on a malformed lump. */
bool vis_lump_row(const uint8_t *vis, int vissize, int cluster, int which, uint8_t *out);

#endif
