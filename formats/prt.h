/* Portal files (.prt, PRT1 with clusters as Quake 2 tools write them; the
 * PRT2 and PRT1-AM variants are read too):
 *   PRT1\n<numclusters>\n<numportals>\n
 *   <numpoints> <clusterA> <clusterB> (x y z) (x y z) ...\n
 * As qbsp3 writes them, the winding's plane (clockwise points, see
 * winding.h) faces cluster A: its normal points into the first cluster
 * listed, and away from the second. */
#ifndef Q2M_PRT_H
#define Q2M_PRT_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/error.h"
#include "../common/winding.h"

typedef struct prt_portal_t {
    int cluster[2];
    winding_t *winding;
} prt_portal_t;

typedef enum prt_format_t {
    PRT_FORMAT_PRT1,    /* every Quake 2 compiler: portals between clusters */
    PRT_FORMAT_PRT2,    /* ericw-tools' Quake 1 detail format: leaf count first, cluster map after */
    PRT_FORMAT_PRT1_AM, /* ericw-tools' (and Hexen 2's) variant: leaf count third, one cluster per leaf after */
} prt_format_t;

typedef struct prt_t {
    int numclusters;
    int numportals;
    prt_portal_t *portals;
    /* PRT2 and PRT1-AM only (else 0 and NULL): the cluster of each leaf,
     * numbered from the first leaf after the solid leaf 0. */
    int numleafs;
    int *leaf_cluster;
    prt_format_t format;
} prt_t;

/* Largest .prt read (bytes). */
#define PRT_FILE_MAX ((size_t)1024 * 1024 * 1024)

/* Errors name the file and line: bad header, counts that do not match,
 * cluster numbers out of range, too few points, non-finite coordinates,
 * a truncated file. */
bool prt_read_memory(const char *text, size_t size, const char *name, prt_t *out, q2err_t *err);
bool prt_read_file(const char *path, prt_t *out, q2err_t *err);
/* Writes atomically; coordinates within 0.001 of an integer as integers. */
bool prt_write_file(const char *path, const prt_t *prt, q2err_t *err);
void prt_free(prt_t *prt);

#endif
