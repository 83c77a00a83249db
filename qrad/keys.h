/* keys.c: entity keys read with range checks; a bad value is a warning
 * naming the entity, key and line, and the default is used.
 * Takes: qrad's copy of the entities (q->ents). Gives: values to every
 * stage that reads a key. */
#ifndef Q2M_QRAD_KEYS_H
#define Q2M_QRAD_KEYS_H

#include "qrad.h"

double qrad_key_float(const struct qrad_t *q, const entity_t *e, const char *key, double dflt, double lo, double hi);
int qrad_key_int(const struct qrad_t *q, const entity_t *e, const char *key, int dflt, int lo, int hi);
/* "r g b" in 0..255 or 0..1, as 0..1 channels; false (warned if malformed) when absent. */
bool qrad_key_color(const struct qrad_t *q, const entity_t *e, const char *key, vec3_t *out);
const entity_t *qrad_worldspawn(const struct qrad_t *q);
/* Line of the key's pair in the entity lump (the entity's when unknown). */
int qrad_key_line(const entity_t *e, const char *key);

#endif
