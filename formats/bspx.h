/* BSPX: named lumps after a bsp's 19 standard lumps, as ericw-tools writes
 * them and Q2PRO and the Quake II re-release read them (layout and sources
 * in docs/formats.md, "BSPX").
 *
 * On disk, at the 4-aligned end of the last standard lump:
 *   "BSPX", uint32 numlumps, numlumps x { char name[24]; uint32 fileofs;
 *   uint32 filelen; }, then each lump's bytes, each padded to 4.
 * Offsets are absolute file offsets. bsp_t keeps that block verbatim in
 * `extra` (formats/bspfile.h); this module reads it into a directory of
 * owned lumps and stores a directory back into `extra`, lumps sorted by name
 * (ericw-tools keeps them in a std::map, so its files are in that order).
 *
 * The lumps q2map writes are decoded here too: LIGHTGRID_OCTREE,
 * FACENORMALS and DECOUPLED_LM. Decoders validate everything (sizes,
 * indices, octree links and cycles) and return a clear error, so a broken
 * lump is refused instead of read out of bounds. */
#ifndef Q2M_BSPX_H
#define Q2M_BSPX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/error.h"
#include "bspfile.h"

#define BSPX_NAME_LEN 24
#define BSPX_DIR_ENTRY 32

typedef struct bspx_lump_t {
    char name[BSPX_NAME_LEN + 1];
    uint8_t *data;
    size_t size;
} bspx_lump_t;

typedef struct bspx_t {
    int count;
    bspx_lump_t *lumps;
} bspx_t;

/* Reads the directory from bsp->extra. No extra bytes, or extra bytes that
 * do not start with "BSPX": an empty directory (*had_bspx false). A BSPX
 * block whose directory or lumps fall outside the file, whose names are not
 * terminated, or with two lumps of one name: false and the reason. */
bool bspx_parse(const bsp_t *bsp, bspx_t *out, bool *had_bspx, q2err_t *err);
void bspx_free(bspx_t *x);
const bspx_lump_t *bspx_find(const bspx_t *x, const char *name);
/* Adds the lump, or replaces the one of that name; copies the bytes. */
void bspx_set(bspx_t *x, const char *name, const uint8_t *data, size_t size);
/* True when a lump of that name was there. */
bool bspx_remove(bspx_t *x, const char *name);
/* Replaces bsp->extra with the directory (nothing when it is empty). */
void bspx_store(const bspx_t *x, bsp_t *bsp);

/* Convenience for programs that change one lump: parse, set or remove,
 * store. data NULL removes. */
bool bspx_put_lump(bsp_t *bsp, const char *name, const uint8_t *data, size_t size, q2err_t *err);
/* True when the bsp's BSPX block parses and holds a lump of that name. */
bool bspx_has_lump(const bsp_t *bsp, const char *name);

/* ---- LIGHTGRID_OCTREE ---------------------------------------------- */

/* Child links of an octree node (ericw-tools' light/lightgrid.cc). */
#define LGNODE_LEAF (1u << 31)     /* low bits: index into the leafs */
#define LGNODE_OCCLUDED (1u << 30) /* the whole octant is in solid */
#define LG_MAX_STYLES 4
#define LG_OCCLUDED_MARK 0xff

typedef struct lg_sample_t {
    uint8_t count;  /* styles stored; LG_OCCLUDED_MARK: occluded */
    uint8_t style[LG_MAX_STYLES];
    uint8_t rgb[LG_MAX_STYLES][3];
} lg_sample_t;

typedef struct lg_node_t {
    int32_t division[3];
    uint32_t children[8]; /* octant index = 4*(x>=div) + 2*(y>=div) + (z>=div) */
} lg_node_t;

typedef struct lg_leaf_t {
    int32_t mins[3], size[3];
    size_t firstsample; /* into lightgrid_t.samples, [z][y][x] */
} lg_leaf_t;

typedef struct lightgrid_t {
    float dist[3];
    int32_t size[3];
    float mins[3];
    int numstyles;
    uint32_t root;
    int numnodes;
    lg_node_t *nodes;
    int numleafs;
    lg_leaf_t *leafs;
    size_t numsamples;
    lg_sample_t *samples;
} lightgrid_t;

bool lightgrid_decode(const uint8_t *data, size_t size, lightgrid_t *out, q2err_t *err);
void lightgrid_free(lightgrid_t *g);
/* Serializes (the inverse of lightgrid_decode). */
bool lightgrid_encode(const lightgrid_t *g, uint8_t **data, size_t *size, q2err_t *err);
/* The sample at grid point (x, y, z) through the octree; NULL when the point
 * is occluded or outside the grid. */
const lg_sample_t *lightgrid_lookup(const lightgrid_t *g, int x, int y, int z);

/* ---- FACENORMALS ---------------------------------------------------- */

typedef struct facenormals_t {
    int numvecs;
    float (*vecs)[3];
    int numverts;             /* sum of the faces' numedges */
    uint32_t (*index)[3];     /* per face vertex: normal, tangent, bitangent */
    int *firstvert;           /* per face: its first entry in index */
} facenormals_t;

bool facenormals_decode(const bsp_t *bsp, const uint8_t *data, size_t size, facenormals_t *out, q2err_t *err);
void facenormals_free(facenormals_t *n);

/* ---- DECOUPLED_LM --------------------------------------------------- */

#define DECOUPLED_LM_ENTRY 40

typedef struct decoupled_lm_t {
    uint16_t width, height; /* luxels */
    int32_t offset;         /* into the lighting lump; -1: none */
    float world_to_lm[2][4]; /* luxel (s, t) = row . (x, y, z, 1); luxel centres at integers */
} decoupled_lm_t;

/* One entry per face; offsets and sizes checked against the lighting lump
 * and the face's styles. */
bool decoupled_decode(const bsp_t *bsp, const uint8_t *data, size_t size, decoupled_lm_t **out, q2err_t *err);

/* ---- checks and summaries ------------------------------------------ */

typedef void (*bspx_report_fn)(void *ctx, const char *problem);
/* The BSPX hook of bsp_check: the directory, then each known lump decoded.
 * Returns the number of problems (each passed to report). */
int bspx_check(const bsp_t *bsp, bspx_report_fn report, void *ctx);
/* One line per lump for bspinfo ("NAME  BYTES  summary"), written to f. */
void bspx_print_summary(const bsp_t *bsp, FILE *f);

#endif
