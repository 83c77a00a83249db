/* The cluster portal file (.prt, PRT1) that qvis reads. */
#ifndef Q2M_QBSP_PRTFILE_H
#define Q2M_QBSP_PRTFILE_H

#include <stdbool.h>

#include "qbsp.h"

/* Rebuilds the world tree's portals down to clusters (detail separators
 * are single clusters) and writes the portals between different clusters
 * through which they can see each other. Replaces the tree's leaf portals,
 * so call it after the world's faces were emitted. *numportals receives the
 * count written. */
bool prtfile_write(const qbsp_t *q, tree_t *tree, int numclusters, const char *path, int *numportals,
                   q2err_t *err);

#endif
