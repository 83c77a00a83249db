/* facenormals.c: FACENORMALS (ericw-tools' BSPX lump of the phong
 * normals facegeom.c computed).
 * Takes: the faces' vertex normals. Gives: the lump. */
#ifndef Q2M_QRAD_FACENORMALS_H
#define Q2M_QRAD_FACENORMALS_H

#include "qrad.h"

bool qrad_facenormals(qrad_t *q, q2err_t *err);

#endif
