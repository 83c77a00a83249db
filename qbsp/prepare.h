/* Prepare: the parsed .map as its author meant it, before brushes are
 * built (load.c). In order:
 *
 *   1. `_` keys no q2map program reads are warned about, once per key and
 *      entity, with the entity's line (formats/keytable.h decides);
 *   2. TrenchBroom layers marked `_tb_layer_omit_from_export 1` are left
 *      out with every group and entity inside them;
 *   3. `_omitbrushes 1` entities lose their brushes;
 *   4. misc_external_map entities import the brushes of their
 *      `_external_map` file (scaled, rotated, moved) and become
 *      `_external_map_classname`;
 *   5. `region` / `antiregion` brushes select the world brushes compiled;
 *   6. per-entity brush flags (`_mirrorinside`, `_noclipfaces`, `_chop`,
 *      `_chop_order`) are read.
 *
 * Bad values are warned about (entity, key, line) and replaced by the
 * default; a missing external map is an error naming both files. */
#ifndef Q2M_QBSP_PREPARE_H
#define Q2M_QBSP_PREPARE_H

#include <stdbool.h>

#include "qbsp.h"

/* Sets q->ent_flags (one per entity after the changes) and logs what was
 * left out. */
bool prepare_map(qbsp_t *q, q2err_t *err);

/* The value of an integer key such as `_mirrorinside`: dflt when absent;
 * a value that is not an integer is warned about (entity, key, line) when
 * `log` is given, and gives dflt. */
int prepare_int_key(const qbsp_t *q, int e, const char *key, int dflt, bool warn);

#endif
