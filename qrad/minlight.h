/* minlight.c: after the bounces, the floors on style 0 (_ambient, local
 * minlight, _minlight, autominlight (autominlight.c), the negative lights),
 * then on every style _lightignore, _maxlight, -soft and _gamma.
 * Takes: each face's light after the bounces. Gives: it floored, face by
 * face or all at once. */
#ifndef Q2M_QRAD_MINLIGHT_H
#define Q2M_QRAD_MINLIGHT_H

#include "qrad.h"

/* Every face, after the bounces. */
void qrad_minlight(struct qrad_t *q);
/* The same face by face: qrad_minlight_begin reads the keys (false: there
 * is nothing to do), qrad_minlight_face does one face. */
typedef struct qrad_minlight_t {
    bool ambient, any, finish;
    double gamma;
} qrad_minlight_t;
bool qrad_minlight_begin(struct qrad_t *q, qrad_minlight_t *m);
void qrad_minlight_face(struct qrad_t *q, const qrad_minlight_t *m, int fi);

#endif
