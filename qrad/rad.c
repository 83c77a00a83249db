/* The qrad driver: the stages in order, with timings. */
#include <stdlib.h>
#include <string.h>

#include "autominlight.h"
#include "bounce.h"
#include "bouncelights.h"
#include "decoupled.h"
#include "direct.h"
#include "dirt.h"
#include "facegeom.h"
#include "facenormals.h"
#include "keys.h"
#include "lightgrid.h"
#include "minlight.h"
#include "models.h"
#include "qrad.h"
#include "surflights.h"
#include "toolkeys.h"
#include "trace.h"
#include "write.h"
#include "../common/dist.h"
#include "../common/mem.h"

void qrad_opts_default(qrad_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->threads = 1;
    o->bounce = 8;
    o->extra = false;
    o->chop = 64;
    o->scale = 1.0;
    o->direct = 0.4;
    o->entity = 1.0;
    o->ambient = 0;
    o->maxlight = 196;
    o->nopvs = false;
    o->bounce_rays = 64;
    o->bouncescale = 1.0;
    o->smooth = 44;
    o->smooth_set = false;
    o->bounce_set = false;
    o->minlight = -1;
    o->dirt = 0;
    o->anglescale = -1;
    o->anglescale_default = -1;
    o->surflight_rescale = -1;
    o->surflight_minlight_scale = -1;
    o->bouncestyled = -1;
}

bool qrad_begin(qrad_t *q, bsp_t *bsp, const qrad_opts_t *opts, texdb_t *texdb, log_t *log, q2err_t *err)
{
    memset(q, 0, sizeof *q);
    q->opts = opts;
    q->bsp = bsp;
    q->log = log;
    q->texdb = texdb;
    if (bsp->nummodels < 1) return q2err_set(err, NULL, 0, 0, "the bsp has no models");
    if (!entities_parse(bsp->entities ? bsp->entities : "", "entity lump", &q->ents, err)) return false;
    qrad_tool_keys(q);
    /* worldspawn's _world_units_per_luxel is ericw-tools' global setting:
     * it turns the decoupled lightmaps on as the option does (its tests
     * novanillaWorldUnitsPerLuxel and the -lightgrid one give no option) */
    const entity_t *wsk = qrad_worldspawn(q);
    q->world_upl = opts->world_units_per_luxel > 0 ? opts->world_units_per_luxel
                   : wsk                          ? qrad_key_float(q, wsk, "_world_units_per_luxel", 0, 0, 256)
                                                  : 0;
    if (opts->novanilla && q->world_upl <= 0)
        return q2err_set(err, NULL, 0, 0,
                         "-novanilla needs -world_units_per_luxel or a worldspawn _world_units_per_luxel (the bsp "
                         "would have no lightmaps)");
    qrad_dirt_setup(q);
    if (!qrad_models_setup(q, err)) return false;
    if (!qrad_pvs_setup(q, err)) return false;
    if (!q->pvs && !opts->nopvs)
        log_info(log, "no visibility data: lighting anyway, without PVS culling");
    if (!qrad_faces_setup(q, err)) return false;
    if (!tracer_build(&q->tracer, q, err)) return false;
    if (!tracer_build_shadows(&q->shadows, q, err)) return false;
    if (!tracer_build_tree(&q->tracer, bsp, err)) return false;
    qrad_filter_setup(q);
    qrad_brush_shadows_setup(q);
    if (!qrad_lights_setup(q, err)) return false;
    qrad_surface_lights(q);
    /* after every light exists; before the direct pass, on every rank */
    qrad_autominlight_setup(q);
    /* Stages after the bounces that read other faces' light (on every
     * rank): then every face's samples and light go to every rank. A key
     * merely present counts, whatever its value. */
    const entity_t *ws = qrad_worldspawn(q);
    q->full_exchange = opts->lightgrid || opts->bouncestyled > 0 || (opts->ericw_bounce && q->bounces > 0) ||
                       (ws && (entity_get(ws, "_lightgrid") || entity_get(ws, "_bouncestyled")));
    return true;
}

void qrad_end(qrad_t *q)
{
    qrad_decoupled_free(q);
    dist_items_free(q->direct_items);
    q->direct_items = NULL;
    qrad_bounce_free(q);
    qrad_autominlight_free(q);
    qrad_lights_free(q);
    qrad_surflights_free(q);
    tracer_free(&q->tracer);
    tracer_free(&q->shadows);
    qrad_filter_free(q);
    qrad_brush_shadows_free(q);
    qrad_faces_free(q);
    free(q->pvs);
    q->pvs = NULL;
    qrad_models_free(q);
    entities_free(&q->ents);
}

bool qrad_run(bsp_t *bsp, const qrad_opts_t *opts, texdb_t *texdb, log_t *log, stage_times_t *st,
              qrad_t *stats_out, q2err_t *err)
{
    qrad_t q;
    if (st) stages_mark(st, "setup");
    bool ok = qrad_begin(&q, bsp, opts, texdb, log, err);
    if (ok) {
        log_verbose(log, "%d faces, %ld luxels, %d lights (%d surface-light pieces), %d triangles, sun %s",
                    bsp->numfaces, q.luxels, q.numlights, q.surface_pieces, q.tracer.numtris, q.sun.on ? "on" : "off");
        ok = qrad_decoupled_setup(&q, err);
    }
    if (ok) {
        if (st) stages_mark(st, "direct");
        /* the patches are filled in the direct pass, face by face */
        if (q.bounces > 0 && !opts->ericw_bounce) qrad_bounce_layout(&q);
        ok = qrad_direct(&q, err);
    }
    if (ok && q.bounces > 0) {
        if (st) stages_mark(st, "bounce");
        ok = opts->ericw_bounce ? qrad_bouncelights(&q, err) : qrad_bounce(&q, err);
    }
    /* Without the full exchange each rank finishes the faces it lit and
     * rank 0 gets their bytes; the other ranks are done (with it too,
     * after the decoupled lightmaps, but for the light grid: only rank 0
     * writes). */
    bool done = false;
    if (ok && !q.full_exchange) {
        if (st) stages_mark(st, "lightmaps");
        ok = qrad_finish(&q, err);
        done = !dist_is_root(opts->dist);
    } else if (ok) {
        qrad_minlight(&q);
        qrad_surflights_floor(&q);
        if (q.decoupled) {
            if (st) stages_mark(st, "decoupled");
            ok = qrad_decoupled_finish(&q, err);
        }
        done = !dist_is_root(opts->dist);
    }
    if (ok && !done) {
        if (st && q.full_exchange) stages_mark(st, "lightmaps");
        ok = qrad_write_lighting(&q, err);
    }
    /* BSPX lumps (each a no-op unless asked for). */
    if (ok && !done) ok = qrad_drop_stale_lumps(&q, err) && qrad_decoupled_write(&q, err) && qrad_facenormals(&q, err);
    /* the light grid is shared out too: every rank (it reads every face's
     * light, so the full exchange is on) */
    if (ok && (!done || q.full_exchange)) {
        if (st && opts->lightgrid) stages_mark(st, "lightgrid");
        ok = qrad_lightgrid(&q, err);
    }
    if (st) stages_end(st);
    if (stats_out) {
        memset(stats_out, 0, sizeof *stats_out);
        stats_out->luxels = q.luxels;
        stats_out->rays = q.rays;
        stats_out->numlights = q.numlights;
        stats_out->surface_pieces = q.surface_pieces;
        stats_out->numpatches = q.numpatches;
        stats_out->sun = q.sun;
    }
    qrad_end(&q);
    return ok;
}
