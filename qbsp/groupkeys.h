/* Group keys: the lighting keys of entities whose brushes join the world
 * (func_group, func_detail*, TrenchBroom groups and layers) reach qrad in
 * the side file MAP.groupkeys beside the bsp (formats/groupkeys.h), as
 * ericw-tools' qbsp hands them to its light in MAP.texinfo.json:
 *
 *   groupkeys_collect    after prepare: which entities carry such keys
 *                        (each gets a keyset; none: nothing changes)
 *   groupkeys_of_face    a face's keyset (0 for none), used so that faces of
 *                        different keysets never merge, and when faces are
 *                        written
 *   groupkeys_write      after the last model: the side file's bytes in
 *                        q->groupkeys_file, when any face has a keyset */
#ifndef Q2M_QBSP_GROUPKEYS_H
#define Q2M_QBSP_GROUPKEYS_H

#include <stdbool.h>

#include "qbsp.h"

/* The i-th key passed on (NULL past the last): those qrad reads per model
 * (qrad/models.c) that mean something for part of the world. The key
 * table marks the same keys as applying to func_group (AT_GROUP, read by
 * qrad); a test keeps the two equal. */
const char *groupkeys_key(int i);

void groupkeys_collect(qbsp_t *q);
int groupkeys_of_face(const qbsp_t *q, const face_t *f);
/* Records the keyset of output face `outnum` (emit order). */
void groupkeys_note_face(qbsp_t *q, int outnum, const face_t *f);
bool groupkeys_write(qbsp_t *q, q2err_t *err);
void groupkeys_free(qbsp_t *q);

#endif
