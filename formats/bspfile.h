/* Quake 2 .bsp files, IBSP version 38 and the extended "QBSP" format (qbism:
 * same version and lumps, 32-bit indices, float node/leaf bounds): an
 * in-memory form with every lump decoded explicitly from little-endian
 * bytes, and the writer.
 *
 * Field layouts follow id's qfiles.h and, for QBSP, q2tools-220's qfiles.h
 * and ericw-tools' bspfile_q2.hh (docs/formats.md, "QBSP"). Each struct here
 * is the decoded record, not a memory image of the file, so the code is
 * independent of host endianness and padding; fields are wide enough for
 * both formats. */
#ifndef Q2M_BSPFILE_H
#define Q2M_BSPFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "q2defs.h"

#define BSP_IDENT (('P' << 24) + ('S' << 16) + ('B' << 8) + 'I')
/* "QBSP" little-endian; version stays 38. */
#define QBSP_IDENT (('P' << 24) + ('S' << 16) + ('B' << 8) + 'Q')
#define BSP_VERSION 38
#define BSP_HEADER_SIZE 160

enum {
    LUMP_ENTITIES = 0,
    LUMP_PLANES,
    LUMP_VERTEXES,
    LUMP_VISIBILITY,
    LUMP_NODES,
    LUMP_TEXINFO,
    LUMP_FACES,
    LUMP_LIGHTING,
    LUMP_LEAFS,
    LUMP_LEAFFACES,
    LUMP_LEAFBRUSHES,
    LUMP_EDGES,
    LUMP_SURFEDGES,
    LUMP_MODELS,
    LUMP_BRUSHES,
    LUMP_BRUSHSIDES,
    LUMP_POP,
    LUMP_AREAS,
    LUMP_AREAPORTALS,
    HEADER_LUMPS
};

typedef enum bsp_format_t {
    BSP_FORMAT_IBSP = 0, /* id's IBSP 38 */
    BSP_FORMAT_QBSP = 1, /* qbism's extended limits */
} bsp_format_t;

extern const char *const bsp_lump_names[HEADER_LUMPS];
/* Bytes per record on disk (1 for byte lumps) in IBSP 38. */
extern const int bsp_lump_record_size[HEADER_LUMPS];
/* Bytes per record on disk in either format. */
int bsp_record_size(bsp_format_t format, int lump);
/* "IBSP" or "QBSP". */
const char *bsp_format_name(bsp_format_t format);

typedef struct dplane_t {
    float normal[3];
    float dist;
    int32_t type;
} dplane_t;

typedef struct dvertex_t {
    float point[3];
} dvertex_t;

typedef struct dnode_t {
    int32_t planenum;
    int32_t children[2]; /* negative: -(leaf+1) */
    float mins[3], maxs[3]; /* shorts in IBSP (written floor/ceil, clamped) */
    uint32_t firstface, numfaces; /* 16-bit in IBSP */
} dnode_t;

typedef struct dtexinfo_t {
    float vecs[2][4]; /* [s/t][xyz offset] */
    int32_t flags;
    int32_t value;
    char texture[33]; /* 32 bytes on disk; the 33rd keeps it NUL-terminated */
    int32_t nexttexinfo;
} dtexinfo_t;

/* planenum, side, numedges and texinfo are 16-bit in IBSP. */
typedef struct dface_t {
    uint32_t planenum;
    int32_t side;
    int32_t firstedge;
    int32_t numedges;
    int32_t texinfo;
    uint8_t styles[MAXLIGHTMAPS];
    int32_t lightofs;
} dface_t;

typedef struct dleaf_t {
    int32_t contents;
    int32_t cluster; /* cluster, area and the indices are 16-bit in IBSP */
    int32_t area;
    float mins[3], maxs[3]; /* shorts in IBSP, as in dnode_t */
    uint32_t firstleafface, numleaffaces;
    uint32_t firstleafbrush, numleafbrushes;
} dleaf_t;

typedef struct dedge_t {
    uint32_t v[2]; /* 16-bit in IBSP */
} dedge_t;

typedef struct dmodel_t {
    float mins[3], maxs[3];
    float origin[3];
    int32_t headnode;
    int32_t firstface, numfaces;
} dmodel_t;

typedef struct dbrush_t {
    int32_t firstside, numsides;
    int32_t contents;
} dbrush_t;

typedef struct dbrushside_t {
    uint32_t planenum; /* 16-bit in IBSP */
    int32_t texinfo;
} dbrushside_t;

typedef struct darea_t {
    int32_t numareaportals, firstareaportal;
} darea_t;

typedef struct dareaportal_t {
    int32_t portalnum, otherarea;
} dareaportal_t;

typedef struct bsp_t {
    /* The format the file was read in, and the one bsp_write_* writes. */
    bsp_format_t format;
    char *entities; /* NUL-terminated text */
    int entities_size; /* bytes stored in the lump, including its NUL */
    dplane_t *planes;
    int numplanes;
    dvertex_t *vertexes;
    int numvertexes;
    uint8_t *visdata;
    int visdatasize;
    dnode_t *nodes;
    int numnodes;
    dtexinfo_t *texinfo;
    int numtexinfo;
    dface_t *faces;
    int numfaces;
    uint8_t *lightdata;
    int lightdatasize;
    dleaf_t *leafs;
    int numleafs;
    uint32_t *leaffaces; /* 16-bit in IBSP */
    int numleaffaces;
    uint32_t *leafbrushes;
    int numleafbrushes;
    dedge_t *edges;
    int numedges;
    int32_t *surfedges;
    int numsurfedges;
    dmodel_t *models;
    int nummodels;
    dbrush_t *brushes;
    int numbrushes;
    dbrushside_t *brushsides;
    int numbrushsides;
    uint8_t *pop;
    int popsize;
    darea_t *areas;
    int numareas;
    dareaportal_t *areaportals;
    int numareaportals;
    /* Bytes after the last lump (a BSPX block, for example), kept verbatim
     * except that a BSPX directory's offsets are moved with it on write. */
    uint8_t *extra;
    size_t extrasize;
    size_t extra_offset; /* where `extra` started in the file it was read from */
} bsp_t;

/* Largest .bsp the reader accepts; far above anything an engine loads. */
#define BSP_MAX_FILE_SIZE ((size_t)512 << 20)

void bsp_init(bsp_t *bsp);
void bsp_free(bsp_t *bsp);

/* Reads and validates the container: ident (IBSP or QBSP), version, every lump inside the
 * file, lump sizes a multiple of their record size. Indices inside lumps are
 * not checked here (see bspcheck.h). `name` labels errors. */
bool bsp_read_memory(const uint8_t *data, size_t size, const char *name, bsp_t *bsp, q2err_t *err);
/* bsp_read_memory with the lumps decoded in pieces on `threads` OpenMP
 * threads, traced as a local loop of dist (common/dist.h; may be NULL):
 * the same bsp_t and the same errors. */
typedef struct dist_t dist_t;
bool bsp_read_memory_threads(const uint8_t *data, size_t size, const char *name, bsp_t *bsp, dist_t *dist, int threads,
                             q2err_t *err);
bool bsp_read_file(const char *path, bsp_t *bsp, q2err_t *err);

/* Serializes in id's lump order, each lump padded to 4 bytes. Output is a
 * pure function of the bsp_t. */
bool bsp_write_memory(const bsp_t *bsp, uint8_t **data, size_t *size, q2err_t *err);
/* Writes through a temporary file and rename. Refuses (with the limit's
 * name) a bsp that exceeds a limit of its format (bsp->format), so nothing
 * is written that a stock engine would reject or that would not fit. */
bool bsp_write_file(const char *path, const bsp_t *bsp, q2err_t *err);
/* bsp_write_file with the lumps encoded in pieces on `threads` OpenMP
 * threads, traced as a local loop of dist (may be NULL): the same file. */
bool bsp_write_file_threads(const char *path, const bsp_t *bsp, dist_t *dist, int threads, q2err_t *err);

/* One limit of a format that a bsp exceeds: its name (e.g.
 * "MAX_MAP_TEXINFO", or "16-bit leaf cluster" for a field of IBSP's
 * records), the bsp's figure and the limit. */
typedef struct bsp_excess_t {
    const char *name;
    long long count, limit;
} bsp_excess_t;

/* Every limit of `format` that `bsp` exceeds, in a fixed order: the
 * MAX_MAP_* counts, then (IBSP) values that do not fit its 16-bit fields.
 * Writes at most `max` to `out`; returns how many there are in all. */
int bsp_format_excesses(const bsp_t *bsp, bsp_format_t format, bsp_excess_t *out, int max);

/* Checks the bsp against the limits of bsp->format; the error names the
 * first limit exceeded, e.g. "MAX_MAP_PLANES exceeded: 70000 > 65536". */
bool bsp_check_limits(const bsp_t *bsp, q2err_t *err);

/* Number of PVS clusters from the visibility lump (0 when absent). */
int bsp_num_clusters(const bsp_t *bsp);

/* Replaces the entity text (copies it). */
void bsp_set_entities(bsp_t *bsp, const char *text);

#endif
