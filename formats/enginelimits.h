/* Limits that Quake 2 engines enforce and the .bsp format does not: what
 * makes a map that compiles fine fail in the game. Each finding names the
 * limit, the engines that enforce it, the map's figure and, where it helps,
 * the entities or faces behind it. The limits and where each comes from are
 * in docs/formats.md, "Engine limits".
 *
 * qbsp reports the findings as warnings (errors with -strict) and
 * `bspinfo --check` reports them for a bsp from any compiler. */
#ifndef Q2M_ENGINELIMITS_H
#define Q2M_ENGINELIMITS_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/error.h"
#include "bspfile.h"

/* MAX_MODELS (256 model configstrings) leaves indices 1..255: index 0 is
 * "no model". */
#define ENGINE_MAX_MODELS 256
/* Models id's baseq2 registers in SP_worldspawn whatever the map holds:
 * 11 view-weapon models (#w_*.md2), 7 gibs and the blaster's view model. */
#define ENGINE_WORLDSPAWN_MODELS 19
#define ENGINE_MAX_EDICTS 1024
/* Edicts the game takes before the map's entities: the world and one
 * client (single player; maxclients raises it). */
#define ENGINE_RESERVED_EDICTS 2
/* id's software renderer refuses a face whose lightmap extent passes 256
 * texture units ("Bad surface extents"): 17 luxels. */
#define ENGINE_MAX_SURFACE_EXTENT 256
/* Q2PRO refuses faces with more edges ("too many surfedges"). */
#define ENGINE_MAX_FACE_EDGES 4096
/* The sizes id's Quake 2 and Yamagi Quake II (cmodel.c) accept. */
#define ENGINE_VANILLA_ENTSTRING 0x40000
#define ENGINE_VANILLA_VISIBILITY 0x100000
#define ENGINE_VANILLA_LIGHTING 0x200000

typedef struct englimit_t {
    const char *limit;   /* e.g. "MAX_MODELS" */
    const char *engines; /* who enforces it, and how it fails */
    long long figure;    /* the map's figure */
    long long max;       /* the most the engines take */
    char detail[512];    /* what was counted; the entities or faces behind it */
} englimit_t;

typedef struct englimit_list_t {
    englimit_t *items;
    int count, cap;
} englimit_list_t;

/* Appends every finding for `bsp` to `out` (in a fixed order). Returns
 * false, with `err` set, only when the entity lump cannot be parsed; the
 * findings that do not need it are still appended. */
bool englimits_check(const bsp_t *bsp, englimit_list_t *out, q2err_t *err);

void englimits_free(englimit_list_t *list);

/* One line: "LIMIT exceeded: FIGURE > MAX (ENGINES): DETAIL". */
void englimit_describe(const englimit_t *f, char *buf, size_t size);

#endif
