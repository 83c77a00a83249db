/* What the engines' loaders take of a bsp's BSPX block and QBSP lumps: the
 * acceptance rules of Q2PRO (src/common/bsp.c), of yquake2remaster
 * (src/client/refresh/files/maps.c, src/common/maps.c) and of ericw-tools'
 * reader (common/bspfile.cc), re-applied to the file's bytes. A file that
 * passes bsp_check is sound; one that breaks a rule here is one an engine
 * partly ignores (a light grid it refuses, a BSPX block it does not find)
 * or refuses, silently or with a console line the designer rarely sees.
 * The rules and their sources are in docs/formats.md ("Engine acceptance").
 *
 * `bspinfo --check` prints each finding as a warning naming the engine and
 * its rule (`--strict`: a problem); notes are facts about how an engine
 * reads the file that are no fault of it. */
#ifndef Q2M_ENGINEACCEPT_H
#define Q2M_ENGINEACCEPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bspfile.h"

typedef enum engaccept_kind_t {
    ENGACCEPT_WARNING, /* an engine ignores part of the file, or refuses it */
    ENGACCEPT_NOTE,    /* how an engine reads it; nothing is lost */
} engaccept_kind_t;

typedef void (*engaccept_report_fn)(void *ctx, engaccept_kind_t kind, const char *line);

/* The offset at which each reader looks for the "BSPX" header, from the raw
 * lump directory of a file of `size` bytes (at least BSP_HEADER_SIZE). */
uint64_t engaccept_bspx_pos_q2pro(const uint8_t *data);
uint64_t engaccept_bspx_pos_all(const uint8_t *data); /* yquake2remaster, ericw-tools */

/* Applies every rule to `data`/`size`, the bytes `bsp` was read from (a bsp
 * that bsp_check passed). Returns the number of warnings; each finding goes
 * to `report` (may be NULL) as one line without a newline. */
int engaccept_check(const uint8_t *data, size_t size, const bsp_t *bsp, engaccept_report_fn report, void *ctx);

#endif
