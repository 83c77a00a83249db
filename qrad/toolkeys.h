/* toolkeys.c: under a preset, the entity keys its tool does not read are
 * taken out of qrad's copy of the entities (q->ents), each reported once.
 * Runs right after the entity lump is parsed, before any stage reads a key. */
#ifndef Q2M_QRAD_TOOLKEYS_H
#define Q2M_QRAD_TOOLKEYS_H

#include "qrad.h"

void qrad_tool_keys(qrad_t *q);

#endif
