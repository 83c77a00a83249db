/* Emits qbsp's results into q->bsp, the .bsp being built.
 *
 *   writebsp_begin(q)                  once, before the first model
 *   writebsp_model(q, e, tree, err)    once per model, world (entity 0)
 *                                      first, then each brush entity in
 *                                      entity order; after faces_fix_tjunctions
 *   writebsp_finish(q, err)            once, after the last model; then the
 *                                      caller writes q->bsp with
 *                                      bsp_write_file and calls writebsp_free
 *
 * Brushes (with bevel planes for box traces) are numbered in q->mapbrushes
 * order, skipping brushes with no sides or CONTENTS_ORIGIN; bevel sides are
 * computed here from the brush planes (sides already marked `bevel` are not
 * copied). */
#ifndef Q2M_QBSP_WRITEBSP_H
#define Q2M_QBSP_WRITEBSP_H

#include <stdbool.h>

#include "qbsp.h"

void writebsp_begin(qbsp_t *q);

/* Nodes (even planes only), leafs (leaf 0 is the shared solid leaf),
 * leaffaces, leafbrushes, faces, edges and surfedges of one model, and the
 * model record. For entity != 0 sets the entity's "model" key to "*N". */
bool writebsp_model(qbsp_t *q, int entity, tree_t *tree, q2err_t *err);

/* Which sides each collision brush gets, bevels included (all but the
 * bevels' plane numbers): read from q's map brushes and `planes` (which
 * may be a copy of q's table, for a thread that plans while q's grows),
 * nothing written, so it can run beside the emission. */
typedef struct brushplan_t brushplan_t;
brushplan_t *writebsp_plan_brushes(const qbsp_t *q, const plane_table_t *planes);
void writebsp_plan_free(brushplan_t *plan);

/* Brushes and brushsides (as `plan` says, or planned here when it is
 * NULL), planes, texinfo, areas and areaportals, light styles of
 * switchable lights, the entity lump; then writebsp_choose_format. */
bool writebsp_finish(qbsp_t *q, const brushplan_t *plan, q2err_t *err);

/* Sets q->bsp.format: QBSP with -qbism; otherwise IBSP 38 unless the bsp
 * exceeds one of its limits (bsp_format_excesses), in which case each
 * excess is logged as a note and QBSP is chosen (ericw-tools'
 * "allowupgrade"), or, with -noallowupgrade, the first excess is the error.
 * Then checks the limits of the chosen format. */
bool writebsp_choose_format(qbsp_t *q, q2err_t *err);

/* Light styles of switchable lights and the entity lump only (also what
 * -onlyents needs); writebsp_finish calls it. */
bool writebsp_entities(qbsp_t *q, q2err_t *err);

/* Frees the private emission state (not q->bsp). Safe to call twice. */
void writebsp_free(qbsp_t *q);

#endif
