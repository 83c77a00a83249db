/* Structural validation of a decoded .bsp (what `bspinfo --check` runs) and
 * the statistics bspinfo prints.
 *
 * bsp_read_memory already checked the container (ident, version, lump
 * bounds and record sizes); bsp_check checks what is inside the lumps: every
 * index in range, the node tree, face edge loops, visibility rows, lightmap
 * offsets and sizes, and area portals. A bsp that passes can be walked by
 * the tools and by engines without reading outside any lump. */
#ifndef Q2M_BSPCHECK_H
#define Q2M_BSPCHECK_H

#include <stdbool.h>

#include "../common/error.h"
#include "bspfile.h"

/* What each stage of every toolchain leaves behind, as opposed to broken:
 * an unlit bsp has no lighting lump (qbsp3 and q2tools-220 leave every
 * face's styles set and lightofs 0 then; ericw-tools and q2map write
 * lightofs -1), an unvised one no visibility lump. Engines
 * load both: lightofs is only followed when the lump exists, and a missing
 * PVS sees everything. So face lightmap offsets are checked only against a
 * lighting lump that is there. */
static inline bool bsp_is_unlit(const bsp_t *b) { return b->lightdatasize == 0; }
static inline bool bsp_is_unvised(const bsp_t *b) { return b->visdatasize == 0; }

/* Called once per problem with a one-line description (no newline). */
typedef void (*bsp_report_fn)(void *ctx, const char *problem);

/* Returns the number of problems found (0: valid). At most `max_problems`
 * are passed to `report` (0 means no limit); the rest are only counted.
 * `report` may be NULL. */
int bsp_check(const bsp_t *bsp, int max_problems, bsp_report_fn report, void *ctx);

/* Reports what is odd but sound (another compiler's habits: faces of an
 * unlit bsp listing styles, degenerate edges, unused planes, faces outside
 * every model); returns how many. For a bsp that bsp_check passed. */
int bsp_check_notes(const bsp_t *bsp, bsp_report_fn report, void *ctx);

/* For programs that read a bsp someone else wrote (qvis, qrad, qview):
 * false with the first problem bsp_check finds, naming the file, so broken
 * input is refused before any work instead of producing garbage. */
bool bsp_validate(const bsp_t *bsp, const char *name, q2err_t *err);

/* bsp_validate with the per-face checks on `threads` OpenMP threads, traced
 * as a local loop of dist (common/dist.h; dist may be NULL); the same
 * result and message. */
typedef struct dist_t dist_t;
bool bsp_validate_threads(const bsp_t *bsp, const char *name, dist_t *dist, int threads, q2err_t *err);

#define BSP_STATS_MAX_DIM 17

typedef struct bsp_stats_t {
    int numclusters;          /* from the visibility lump; 0 without one */
    bool have_vis;            /* the lump is present and well formed */
    double avg_visible;       /* mean over clusters of the PVS row's set bits */
    int max_visible;
    double avg_hearable;      /* the same for the PHS */
    int max_hearable;
    /* mean over the leaves with a cluster of the distinct faces
     * their PVS lists (through the leaves' face lists): what an engine
     * draws from there, so the tightness of a PVS across different
     * clusterings of one map */
    double avg_visible_faces;
    int faces_with_lightmaps; /* lightofs >= 0, a style, not SKY/WARP */
    int lightmap_styles;      /* lightmaps over all faces and styles */
    long long lightmap_bytes; /* bytes the faces' lightmaps use */
    /* hist[w-1][h-1]: faces with a w x h luxel lightmap (1..17) */
    int hist[BSP_STATS_MAX_DIM][BSP_STATS_MAX_DIM];
    int hist_larger;          /* lightmaps larger than 17 in either direction */
    int worldfaces;           /* faces of model 0 */
} bsp_stats_t;

/* Computes the statistics; parts whose lumps are malformed are skipped (run
 * bsp_check for the reasons). */
void bsp_compute_stats(const bsp_t *bsp, bsp_stats_t *out);

#endif
