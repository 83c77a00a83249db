#include "enginelimits.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "entities.h"
#include "lightmap.h"

static englimit_t *add(englimit_list_t *l, const char *limit, const char *engines, long long figure, long long max,
                       const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static englimit_t *add(englimit_list_t *l, const char *limit, const char *engines, long long figure, long long max,
                       const char *fmt, ...)
{
    l->items = q2_grow(l->items, sizeof *l->items, &l->cap, l->count + 1);
    englimit_t *f = &l->items[l->count++];
    f->limit = limit;
    f->engines = engines;
    f->figure = figure;
    f->max = max;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->detail, sizeof f->detail, fmt, ap);
    va_end(ap);
    return f;
}

void englimits_free(englimit_list_t *list)
{
    free(list->items);
    memset(list, 0, sizeof *list);
}

void englimit_describe(const englimit_t *f, char *buf, size_t size)
{
    if (f->max == 0) /* a yes/no finding */
        snprintf(buf, size, "%s (%s): %s", f->limit, f->engines, f->detail);
    else
        snprintf(buf, size, "%s exceeded: %lld > %lld (%s): %s", f->limit, f->figure, f->max, f->engines, f->detail);
}

/* ------------------------------------------------------- classname tallies */

typedef struct tally_t {
    const char *name;
    int count;
} tally_t;

typedef struct tallies_t {
    tally_t *t;
    int n, cap;
} tallies_t;

static void tally(tallies_t *ts, const char *name)
{
    for (int i = 0; i < ts->n; i++)
        if (strcmp(ts->t[i].name, name) == 0) {
            ts->t[i].count++;
            return;
        }
    ts->t = q2_grow(ts->t, sizeof *ts->t, &ts->cap, ts->n + 1);
    ts->t[ts->n++] = (tally_t){name, 1};
}

static int tally_cmp(const void *a, const void *b)
{
    const tally_t *x = a, *y = b;
    if (x->count != y->count) return y->count - x->count;
    return strcmp(x->name, y->name);
}

/* "func_door 84, func_wall 60, ..." for the largest few. */
static void tally_text(tallies_t *ts, char *buf, size_t size)
{
    enum { SHOWN = 5 };
    qsort(ts->t, (size_t)ts->n, sizeof *ts->t, tally_cmp);
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < ts->n && i < SHOWN && at < size; i++)
        at += (size_t)snprintf(buf + at, size - at, "%s%s %d", i ? ", " : "", ts->t[i].name, ts->t[i].count);
    if (ts->n > SHOWN && at < size) snprintf(buf + at, size - at, ", %d more classes", ts->n - SHOWN);
}

/* ----------------------------------------------------------------- checks */

static void check_models(const bsp_t *bsp, const entity_list_t *ents, englimit_list_t *out)
{
    /* Configstrings CS_MODELS+1.. hold the map itself and its inline
     * models "*1".."*N-1" (SV_SpawnServer); then the game's gi.modelindex
     * takes the first free one and stops at MAX_MODELS with "Index:
     * overflow" (SV_FindIndex). Models that monsters and items precache
     * are not counted: which ones depends on the game library. */
    tallies_t brush = {0};
    const char **paths = NULL;
    int npaths = 0, cap = 0;
    for (int i = 0; i < ents->count; i++) {
        const char *m = entity_get(&ents->ents[i], "model");
        if (!m || !m[0]) continue;
        if (m[0] == '*') {
            tally(&brush, entity_classname(&ents->ents[i])[0] ? entity_classname(&ents->ents[i]) : "(no classname)");
            continue;
        }
        bool seen = false;
        for (int k = 0; k < npaths && !seen; k++) seen = strcmp(paths[k], m) == 0;
        if (seen) continue;
        paths = q2_grow(paths, sizeof *paths, &cap, npaths + 1);
        paths[npaths++] = m;
    }
    long long used = (long long)bsp->nummodels + ENGINE_WORLDSPAWN_MODELS + npaths;
    if (used > ENGINE_MAX_MODELS - 1) {
        char who[256];
        tally_text(&brush, who, sizeof who);
        add(out, "MAX_MODELS", "256 model configstrings in id's Quake 2, Yamagi Quake II and Q2PRO: a server "
                               "stops with \"Index: overflow\" or overruns the configstrings",
            used, ENGINE_MAX_MODELS - 1,
            "%d brush models (the world and %d inline models) + %d models the game registers at spawn + %d "
            "other model paths of entities; brush entities: %s",
            bsp->nummodels, bsp->nummodels - 1, ENGINE_WORLDSPAWN_MODELS, npaths, who[0] ? who : "none");
    }
    free(paths);
    free(brush.t);
}

static void check_edicts(const entity_list_t *ents, englimit_list_t *out)
{
    /* ED_LoadFromFile spawns every entity but worldspawn into a new edict
     * (skill and deathmatch filters free them again only after spawning,
     * so the largest count is what the lump holds). */
    long long spawned = ents->count > 0 ? ents->count - 1 : 0;
    long long used = spawned + ENGINE_RESERVED_EDICTS;
    if (used <= ENGINE_MAX_EDICTS) return;
    tallies_t ts = {0};
    for (int i = 1; i < ents->count; i++) tally(&ts, entity_classname(&ents->ents[i]));
    char who[256];
    tally_text(&ts, who, sizeof who);
    add(out, "MAX_EDICTS", "id's Quake 2 game library, as Yamagi Quake II and Q2PRO run it: maxentities 1024 by "
                           "default; \"ED_Alloc: no free edicts\"",
        used, ENGINE_MAX_EDICTS, "%lld entities + the world + 1 client, before anything the game spawns later; %s",
        spawned, who);
    free(ts.t);
}

static void check_sizes(const bsp_t *bsp, englimit_list_t *out)
{
    if (bsp->entities_size > ENGINE_VANILLA_ENTSTRING)
        add(out, "MAX_MAP_ENTSTRING", "id's Quake 2 and Yamagi Quake II (cmodel.c): \"Map has too large entity lump\"",
            bsp->entities_size, ENGINE_VANILLA_ENTSTRING, "bytes of entity text; Q2PRO takes any size");
    if (bsp->visdatasize > ENGINE_VANILLA_VISIBILITY)
        add(out, "MAX_MAP_VISIBILITY",
            "id's Quake 2 and Yamagi Quake II (cmodel.c): \"Map has too large visibility lump\"", bsp->visdatasize,
            ENGINE_VANILLA_VISIBILITY, "bytes of PVS/PHS data for %d clusters", bsp_num_clusters(bsp));
    if (bsp->lightdatasize > ENGINE_VANILLA_LIGHTING)
        add(out, "MAX_MAP_LIGHTING", "vanilla engines and tools (id's qfiles.h; Q2PRO takes 0x800000)",
            bsp->lightdatasize, ENGINE_VANILLA_LIGHTING, "bytes of lightmaps");
}

static void check_areas(const bsp_t *bsp, englimit_list_t *out)
{
    if (bsp->numareas > MAX_MAP_AREAS)
        add(out, "MAX_MAP_AREAS", "all engines: area bits travel in the network protocol; \"Map has too many areas\"",
            bsp->numareas, MAX_MAP_AREAS, "areas (including the unused area 0)");
    /* id's CMod_LoadAreaPortals checks the count against MAX_MAP_AREAS,
     * not MAX_MAP_AREAPORTALS, and Yamagi kept it. */
    if (bsp->numareaportals > MAX_MAP_AREAS)
        add(out, "MAX_MAP_AREAS (areaportal records)",
            "id's Quake 2 and Yamagi Quake II (cmodel.c CMod_LoadAreaPortals): \"Map has too many areas\"",
            bsp->numareaportals, MAX_MAP_AREAS,
            "areaportal records (one per area a func_areaportal joins, plus record 0); the format allows %d",
            MAX_MAP_AREAPORTALS);
    int maxportal = 0;
    for (int i = 0; i < bsp->numareaportals; i++)
        if (bsp->areaportals[i].portalnum > maxportal) maxportal = bsp->areaportals[i].portalnum;
    if (maxportal >= MAX_MAP_AREAPORTALS)
        add(out, "MAX_MAP_AREAPORTALS", "Q2PRO (\"bad portalnum\"); id's portalopen[] has as many entries",
            maxportal + 1, MAX_MAP_AREAPORTALS, "portal numbers: the largest is %d", maxportal);
}

static void check_box_hull(const bsp_t *bsp, englimit_list_t *out)
{
    /* CM_InitBoxHull appends a box brush after the map's records. */
    struct {
        const char *what;
        long long count, extra, max;
    } rows[] = {
        {"nodes", bsp->numnodes, 6, MAX_MAP_NODES},
        {"brushes", bsp->numbrushes, 1, MAX_MAP_BRUSHES},
        {"leafbrushes", bsp->numleafbrushes, 1, MAX_MAP_LEAFBRUSHES},
        {"brushsides", bsp->numbrushsides, 6, MAX_MAP_BRUSHSIDES},
        {"planes", bsp->numplanes, 12, MAX_MAP_PLANES},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (rows[i].count + rows[i].extra > rows[i].max)
            add(out, "box hull room",
                "id's Quake 2 and Yamagi Quake II (cmodel.c CM_InitBoxHull): \"Not enough room for box tree\"",
                rows[i].count + rows[i].extra, rows[i].max, "%lld %s + %lld for the box the engine adds",
                rows[i].count, rows[i].what, rows[i].extra);
}

static void check_faces(const bsp_t *bsp, englimit_list_t *out)
{
    int nbig = 0, worst = 0, worst_face = -1, nedges = 0, edges_face = -1, worst_edges = 0;
    char first[160] = "";
    size_t at = 0;
    for (int i = 0; i < bsp->numfaces; i++) {
        const dface_t *f = &bsp->faces[i];
        if (f->numedges > ENGINE_MAX_FACE_EDGES) {
            if (f->numedges > worst_edges) {
                worst_edges = f->numedges;
                edges_face = i;
            }
            nedges++;
        }
        if (f->texinfo < 0 || f->texinfo >= bsp->numtexinfo) continue;
        const dtexinfo_t *ti = &bsp->texinfo[f->texinfo];
        /* ref_soft exempts warped and sky faces (TEX_SPECIAL). */
        if (ti->flags & (SURF_WARP | SURF_SKY)) continue;
        face_extents_t e;
        q2err_t err;
        if (!bsp_face_extents(bsp, i, &e, &err)) continue;
        int ext = e.extents[0] > e.extents[1] ? e.extents[0] : e.extents[1];
        if (ext <= ENGINE_MAX_SURFACE_EXTENT) continue;
        if (nbig < 3 && at < sizeof first)
            at += (size_t)snprintf(first + at, sizeof first - at, "%sface %d (%s, %dx%d luxels)", nbig ? ", " : "", i,
                                   ti->texture, e.size[0], e.size[1]);
        nbig++;
        if (ext > worst) {
            worst = ext;
            worst_face = i;
        }
    }
    if (nbig > 0)
        add(out, "surface extents", "id's software renderer (r_model.c CalcSurfaceExtents): \"Bad surface extents\"",
            worst, ENGINE_MAX_SURFACE_EXTENT,
            "texture units of lightmap on face %d, the largest of %d faces past 17 luxels: %s%s", worst_face, nbig,
            first, nbig > 3 ? ", ..." : "");
    if (nedges > 0)
        add(out, "face edges", "Q2PRO (bsp.c): \"too many surfedges\"", worst_edges, ENGINE_MAX_FACE_EDGES,
            "edges on face %d (%d faces have more than %d)", edges_face, nedges, ENGINE_MAX_FACE_EDGES);
}

static void check_format(const bsp_t *bsp, englimit_list_t *out)
{
    if (bsp->format == BSP_FORMAT_QBSP)
        add(out, "QBSP format", "id's Quake 2 loads IBSP only; Q2PRO loads QBSP", 1, 0,
            "the file is in the extended QBSP format");
    /* Q2PRO keeps these at 65536 even for QBSP (bsp.c LOAD(Leafs),
     * LOAD(Visibility)). */
    if (bsp->numleafs > MAX_MAP_LEAFS)
        add(out, "MAX_MAP_LEAFS", "Q2PRO, also for QBSP (bsp.c): \"too many leafs\"", bsp->numleafs, MAX_MAP_LEAFS,
            "leafs");
    if (bsp_num_clusters(bsp) > MAX_MAP_LEAFS)
        add(out, "clusters", "Q2PRO, also for QBSP (bsp.c): \"bad numclusters\"", bsp_num_clusters(bsp),
            MAX_MAP_LEAFS, "PVS clusters");
}

bool englimits_check(const bsp_t *bsp, englimit_list_t *out, q2err_t *err)
{
    check_format(bsp, out);
    check_sizes(bsp, out);
    check_areas(bsp, out);
    check_box_hull(bsp, out);
    check_faces(bsp, out);
    entity_list_t ents = {0};
    if (!entities_parse(bsp->entities ? bsp->entities : "", "entity lump", &ents, err)) {
        entities_free(&ents);
        return false;
    }
    check_models(bsp, &ents, out);
    check_edicts(&ents, out);
    entities_free(&ents);
    return true;
}
