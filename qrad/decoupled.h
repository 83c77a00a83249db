/* decoupled.c: DECOUPLED_LM lightmaps (ericw-tools' BSPX lump): their
 * own luxels per face, lit in the face's direct-pass item and given the
 * vanilla face's bounce.
 * Takes: the faces' geometry and light. Gives: the DECOUPLED_LM lump and
 * its lighting. */
#ifndef Q2M_QRAD_DECOUPLED_H
#define Q2M_QRAD_DECOUPLED_H

#include "qrad.h"

/* setup before the direct pass (every face's
 * decoupled geometry); in face fi's direct-pass item keep_face (the
 * vanilla luxels' direct light, so the bounce can be told apart) and the
 * decoupled face's own direct light; finish_face after the vanilla face's
 * bounces and floors, on the same rank (the bounced light under each fine
 * luxel, then the bytes); write on rank 0 after qrad_write_lighting. With
 * q->full_exchange qrad_decoupled_finish finishes every face, on the rank
 * that lit it. The bytes travel to rank 0 with pack and unpack. */
bool qrad_decoupled_setup(qrad_t *q, q2err_t *err);
/* Face fi's decoupled rface, NULL when there are no decoupled lightmaps. */
rface_t *qrad_decoupled_face(const qrad_t *q, int fi);
void qrad_decoupled_keep_face(qrad_t *q, int fi);
void qrad_decoupled_finish_face(qrad_t *q, int fi);
bool qrad_decoupled_finish(qrad_t *q, q2err_t *err);
size_t qrad_decoupled_bytes_size(const qrad_t *q, int fi);
void qrad_decoupled_pack(const qrad_t *q, int fi, uint8_t *out);
void qrad_decoupled_unpack(qrad_t *q, int fi, const uint8_t *in, size_t size);
bool qrad_decoupled_write(qrad_t *q, q2err_t *err);
void qrad_decoupled_free(qrad_t *q);

#endif
