/* bounce.c: radiosity over patches (qrad's bounce; -preset ericw uses
 * bouncelights.c instead).
 * Takes: the patches' direct light from the direct pass, the tracer, the
 * texture colours. Gives: the bounced light gathered into each face's
 * style-0 luxels. */
#ifndef Q2M_QRAD_BOUNCE_H
#define Q2M_QRAD_BOUNCE_H

#include "qrad.h"

/* With q->full_exchange the whole radiosity; else up to the solved
 * patches, the rest being qrad_finish's. */
bool qrad_bounce(qrad_t *q, q2err_t *err);
/* The patch grid of every face (before the direct pass fills it). */
void qrad_bounce_layout(qrad_t *q);
/* Origins and average direct light of face fi's patches, from its samples
 * and light. */
void qrad_patch_face(qrad_t *q, int fi);
/* Bounced light into one face's style-0 luxels, after the solve. */
typedef struct qrad_gather_t qrad_gather_t;
qrad_gather_t *qrad_gather_begin(const qrad_t *q);
void qrad_gather_face(const qrad_t *q, const qrad_gather_t *g, int fi);
void qrad_gather_end(qrad_gather_t *g);
/* One iteration sweep for tests: solves `bounces` rounds over the patches
 * already made by qrad_bounce_setup. */
bool qrad_bounce_setup(qrad_t *q, q2err_t *err);
void qrad_bounce_solve(qrad_t *q, int bounces);
void qrad_bounce_apply(qrad_t *q);
void qrad_bounce_free(qrad_t *q);

#endif
