/* qbsp: .map -> .bsp (+ .prt, or .pts/.lin on a leak). */
#include <errno.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../common/version.h"
#include "../common/fileio.h"
#include "../common/jsonw.h"
#include "../common/mem.h"
#include "../common/os.h"
#include "../common/threads.h"
#include "../formats/enginelimits.h"
#include "../formats/groupkeys.h"
#include "../formats/texinfojson.h"
#include "../formats/keytable.h"
#include "../formats/q2defs.h"
#include "../formats/vfs.h"
#include "areas.h"
#include "brushbsp.h"
#include "csg.h"
#include "faces.h"
#include "leak.h"
#include "load.h"
#include "portals.h"
#include "prtfile.h"
#include "qbsp.h"
#include "texinfo.h"
#include "writebsp.h"


static void usage(FILE *f)
{
    fprintf(f,
            "usage: qbsp [options] MAP [OUT.bsp]\n"
            "Compiles a Quake 2 (or Quake 1 format) .map into MAP.bsp and MAP.prt.\n"
            "\n"
            "  -threads N     worker threads (default: all processors)\n"
            "  -v, -verbose   more detail          -quiet   warnings and errors only\n"
            "  -basedir DIR   Quake 2 directory (its baseq2 is searched for textures)\n"
            "  -gamedir DIR   mod directory searched before baseq2\n"
            "  -path DIR      more textures/.wal_json (a directory or archive) searched first; repeatable\n"
            "  -chop N        largest face extent in texture units (default 240)\n"
            "  -micro F       drop brushes thinner than F units (default 0.1)\n"
            "  -nocsg         do not clip overlapping brushes\n"
            "  -noweld        do not weld vertices     -noshare  do not share edges\n"
            "  -notjunc       do not fix T-junctions   -nomerge  do not merge faces\n"
            "  -nosubdiv      do not subdivide faces   -noprune  keep empty nodes\n"
            "  -nowater       drop liquid brushes      -nodetail drop detail brushes\n"
            "  -omitdetail    as -nodetail (ericw-tools' name)\n"
            "  -subdivide N   as -chop N; 0 is -nosubdiv (ericw-tools' name)\n"
            "  -includeskip   write nodraw faces too (ericw-tools', for Q2RTX)\n"
            "  -truncatetexnames  cut texture names over 31 characters, with a warning (ericw-tools')\n"
            "  -nomistdetail  mist and aux brushes stay structural (qbsp3; default: detail, as ericw-tools)\n"
            "  -nodetailseal  detail does not seal the map (ericw-tools')\n"
            "  -add FILE      append FILE's entities to the map (its world brushes join the world)\n"
            "  -convert FMT   write MAP-FMT.map in format quake2 or valve (Valve 220) and stop\n"
            "  -fulldetail    treat detail brushes as structural\n"
            "  -nofill        do not fill the outside of the map\n"
            "  -onepass       build the world's tree once (faster, more clusters)\n"
            "  -onlyents      only replace the entities of an existing MAP.bsp\n"
            "  -leaktest      a leak is an error: exit 1 and write no .bsp\n"
            "  -noallowupgrade  a map past an IBSP 38 limit is an error (default: write QBSP)\n"
            "  -qbism         always write the extended QBSP format\n"
            "  -strict        engine-limit warnings are errors: exit 1 and write no .bsp\n"
            "  -json FILE     write stage timings and counts as JSON\n"
            "  -deps FILE     write a Makefile rule: the .bsp depends on the map and textures\n"
            "  -log FILE      also write every message to FILE\n"
            "  -keys          print the table of map keys q2map knows (docs/keys.md)\n"
            "  -help, -version\n");
}

typedef struct timing_t {
    const char *name;
    double seconds;
} timing_t;

enum { T_LOAD, T_CSG, T_BSP, T_PORTALS, T_FLOOD, T_VISIBLE, T_AREAS, T_FACES, T_TJUNC, T_WRITE, T_PRT, T_COUNT };
static const char *const k_timing_names[T_COUNT] = {"load",  "csg",   "bsp",   "portals", "flood", "visible_sides",
                                                    "areas", "faces", "tjunc", "write",   "prt"};

typedef struct counts_t {
    int models, mapbrushes, fragments, nodes, leafs, portals, clusters, prtportals, filled, entities;
    bool leaked;
    int leak_entity;
} counts_t;

static bool write_deps(const char *path, const char *target, const char *map, vfs_t *vfs, q2err_t *err)
{
    atomic_file_t af;
    if (!atomic_open(&af, path, err)) return false;
    fprintf(af.f, "%s: %s", target, map);
    if (vfs) {
        const char **deps;
        int n = vfs_deps(vfs, &deps);
        for (int i = 0; i < n; i++) {
            fputs(" \\\n ", af.f);
            for (const char *c = deps[i]; *c; c++) {
                if (*c == ' ' || *c == '#') fputc('\\', af.f);
                if (*c == '$') fputc('$', af.f);
                fputc(*c, af.f);
            }
        }
    }
    fputc('\n', af.f);
    return atomic_commit(&af, err);
}

static bool write_json(const char *path, const char *map, const timing_t *t, const counts_t *c, const qbsp_t *q,
                       double total, q2err_t *err)
{
    atomic_file_t af;
    if (!atomic_open(&af, path, err)) return false;
    jsonw_t w;
    jsonw_init(&w, af.f);
    jsonw_object_begin(&w, NULL);
    jsonw_string(&w, "tool", "qbsp");
    jsonw_string(&w, "version", q2map_version_long());
    jsonw_string(&w, "map", map);
    jsonw_int(&w, "threads", q->opt.threads);
    jsonw_double(&w, "seconds", total);
    jsonw_array_begin(&w, "stages");
    for (int i = 0; i < T_COUNT; i++) {
        jsonw_object_begin(&w, NULL);
        jsonw_string(&w, "name", t[i].name);
        jsonw_double(&w, "seconds", t[i].seconds);
        jsonw_object_end(&w);
    }
    jsonw_array_end(&w);
    jsonw_object_begin(&w, "counts");
    jsonw_int(&w, "entities", c->entities);
    jsonw_int(&w, "models", c->models);
    jsonw_int(&w, "map_brushes", c->mapbrushes);
    jsonw_int(&w, "planes", q->planes.count);
    jsonw_int(&w, "texinfo", q->numtexinfo);
    jsonw_int(&w, "csg_fragments", c->fragments);
    jsonw_int(&w, "tree_nodes", c->nodes);
    jsonw_int(&w, "tree_leafs", c->leafs);
    jsonw_int(&w, "portals", c->portals);
    jsonw_int(&w, "filled_leafs", c->filled);
    jsonw_int(&w, "clusters", c->clusters);
    jsonw_int(&w, "prt_portals", c->prtportals);
    jsonw_int(&w, "areas", q->numareas);
    jsonw_int(&w, "bsp_nodes", q->bsp.numnodes);
    jsonw_int(&w, "bsp_leafs", q->bsp.numleafs);
    jsonw_int(&w, "bsp_faces", q->bsp.numfaces);
    jsonw_int(&w, "bsp_vertexes", q->bsp.numvertexes);
    jsonw_int(&w, "bsp_edges", q->bsp.numedges);
    jsonw_int(&w, "bsp_brushes", q->bsp.numbrushes);
    jsonw_int(&w, "bsp_brushsides", q->bsp.numbrushsides);
    jsonw_int(&w, "warnings", q->log->warnings);
    jsonw_object_end(&w);
    jsonw_bool(&w, "leaked", c->leaked);
    if (c->leaked) jsonw_int(&w, "leak_entity", c->leak_entity);
    jsonw_object_end(&w);
    fputc('\n', af.f);
    return atomic_commit(&af, err);
}

/* The game directory for textures: -basedir (its baseq2 when present) and
 * -gamedir over it; without them, the directory above the map's "maps"
 * directory when there is one, as id's tools guess it. Each -path
 * directory or archive goes over all of them (ericw-tools' tests pass
 * their folder of .wal_json files this way). */
static vfs_t *make_vfs(const qbsp_options_t *o, const char *mappath, log_t *log, q2err_t *err)
{
    char dir[Q2_PATH_MAX], buf[Q2_PATH_MAX];
    vfs_t *vfs = NULL;
    if (o->basedir) {
        vfs = vfs_create();
        const char *base = o->basedir;
        if (path_join(buf, sizeof buf, o->basedir, "baseq2") && os_is_dir(buf)) base = buf;
        if (!vfs_add_gamedir(vfs, base, err)) {
            vfs_free(vfs);
            return NULL;
        }
    }
    if (o->gamedir) {
        if (!vfs) vfs = vfs_create();
        const char *g = o->gamedir;
        if (o->basedir && !os_path_is_absolute(g) && path_join(buf, sizeof buf, o->basedir, g) && os_is_dir(buf)) g = buf;
        if (!vfs_add_gamedir(vfs, g, err)) {
            vfs_free(vfs);
            return NULL;
        }
    }
    if (!vfs) {
        /* A bare name given from inside maps/ still finds its game folder. */
        char full[Q2_PATH_MAX];
        path_dirname(dir, sizeof dir, os_absolute_path(mappath, full, sizeof full) ? full : mappath);
        if (strcmp(path_basename(dir), "maps") == 0) {
            path_dirname(buf, sizeof buf, dir);
            if (os_is_dir(buf)) {
                vfs = vfs_create();
                if (!vfs_add_gamedir(vfs, buf, err)) {
                    vfs_free(vfs);
                    vfs = NULL;
                    q2err_clear(err);
                } else {
                    log_verbose(log, "textures from %s", buf);
                }
            }
        }
    }
    for (int i = 0; i < o->numpaths; i++) {
        if (!vfs) vfs = vfs_create();
        const char *ext = strrchr(o->paths[i], '.');
        bool archive = ext && (!strcmp(ext, ".pak") || !strcmp(ext, ".pk3") || !strcmp(ext, ".zip"));
        if (!(archive ? vfs_add_archive(vfs, o->paths[i], err) : vfs_add_gamedir(vfs, o->paths[i], err))) {
            vfs_free(vfs);
            return NULL;
        }
        log_verbose(log, "textures from %s (-path)", o->paths[i]);
    }
    return vfs;
}

static bool parse_int(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < -1000000 || v > 1000000) return false;
    *out = (int)v;
    return true;
}

static bool parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || end == s || !isfinite(v)) return false;
    *out = v;
    return true;
}

/* What one compile shares between its models. */
typedef struct run_t {
    qbsp_t *q;
    timing_t *t;
    counts_t *c;
    log_t *log;
    q2err_t *err;
    const char *mappath, *ptspath, *linpath;
    bool leaked;
} run_t;

/* What model_tree found, for model_emit's report. */
typedef struct model_info_t {
    int frags, ncl;
    brushbsp_stats_t bst;
    portal_stats_t pst;
} model_info_t;

/* CSG, tree, portals, flood, clusters, areas and faces of entity e's
 * brushes (e = 0: the world): the tree whose faces model_emit writes, and
 * whose portals nothing reads after (the world's .prt makes its own). NULL
 * (logged) on an error that ends the compile. */
static tree_t *model_tree(run_t *r, int e, model_info_t *mi)
{
    double t0;
    bool world = e == 0;
    int first = r->q->ent_firstbrush[e], count = r->q->ent_numbrushes[e];

    /* qbsp3 builds the world twice when it is sealed: the second tree
     * weighs as visible only the sides that bound a reachable leaf, so
     * faces hidden in solid or facing the void split only where
     * nothing visible can (and then as detail separators). Measured:
     * base1 1517 -> 1461 clusters, spirit2dm1..6 9-29% fewer, and a
     * tighter PVS; the cost is a second CSG+BSP of the world. */
    int frags = 0;
    tree_t *tree = NULL;
    brushbsp_stats_t bst;
    portal_stats_t pst;
    /* The CSG does not depend on which sides are visible, so the second
     * pass rebuilds the tree from a copy of the first pass's fragments
     * with their visible flags refreshed (csg_refresh_visible). */
    bspbrush_t *kept = NULL;
    aabb_t bounds = aabb_empty();
    bool two_pass = world && !r->q->opt.nofill && !r->q->opt.onepass;
    for (int pass = 0; pass < 2; pass++) {
        t0 = time_now();
        bspbrush_t *list;
        if (pass == 0) {
            list = csg_make_brushes(r->q, first, count);
            bounds = brushes_bounds(list);
            frags = brush_list_count(list);
            if (!r->q->opt.nocsg) list = csg_chop_brushes(r->q, list, &frags);
            if (two_pass) kept = brush_list_copy(list);
        } else {
            list = kept;
            kept = NULL;
            csg_refresh_visible(list);
        }
        r->t[T_CSG].seconds += time_now() - t0;

        t0 = time_now();
        tree = brushbsp_build(r->q, list, bounds, &bst);
        r->t[T_BSP].seconds += time_now() - t0;

        t0 = time_now();
        portals_make_tree(r->q, tree, false, &pst);
        r->t[T_PORTALS].seconds += time_now() - t0;

        if (pass == 0 && two_pass) {
            /* A trial flood on the first tree; a leak is reported from the
             * final one below. */
            t0 = time_now();
            int placed = portals_flood_entities(r->q, tree);
            bool sealed = r->q->leaked_entity < 0 && placed > 0;
            r->q->leaked_entity = -1;
            if (sealed) {
                portals_fill_outside(tree);
                portals_mark_visible_sides(r->q, tree, first, count);
            }
            r->t[T_FLOOD].seconds += time_now() - t0;
            if (sealed) {
                tree_free(tree);
                tree = NULL;
                continue;
            }
        }
        break;
    }
    brush_list_free(kept);
    mi->frags = frags;
    mi->bst = bst;
    mi->pst = pst;
    r->c->fragments += frags;
    r->c->nodes += bst.nodes;
    r->c->leafs += bst.leafs;
    r->c->portals += pst.portals;

    if (world) {
        t0 = time_now();
        int placed = portals_flood_entities(r->q, tree);
        if (r->q->leaked_entity >= 0) {
            r->leaked = true;
            r->c->leaked = true;
            r->c->leak_entity = r->q->leaked_entity;
            char desc[512];
            if (!leak_write(r->q, tree, r->ptspath, r->linpath, desc, sizeof desc, r->err)) {
                log_error(r->log, "%s", r->err->msg);
                tree_free(tree);
                return NULL;
            }
            log_warn(r->log, "LEAK: %s can reach the void. Leak path written to %s and %s", desc, r->ptspath, r->linpath);
            if (r->q->opt.leaktest) {
                log_error(r->log, "%s: map leaks (-leaktest): no .bsp written", r->mappath);
                tree_free(tree);
                return NULL;
            }
        } else if (placed == 0) {
            log_warn(r->log, "no entities in open space: the outside was not filled");
        } else if (!r->q->opt.nofill) {
            r->c->filled = portals_fill_outside(tree);
        }
        r->t[T_FLOOD].seconds += time_now() - t0;
    }

    t0 = time_now();
    portals_mark_visible_sides(r->q, tree, first, count);
    int ncl = portals_number_clusters(tree, world);
    mi->ncl = ncl;
    if (world) {
        r->q->numclusters = ncl;
        r->c->clusters = ncl;
    }
    r->t[T_VISIBLE].seconds += time_now() - t0;

    if (world) {
        t0 = time_now();
        if (!areas_flood(r->q, tree, r->err)) {
            log_error(r->log, "%s", r->err->msg);
            tree_free(tree);
            return NULL;
        }
        r->t[T_AREAS].seconds += time_now() - t0;
    }
    t0 = time_now();
    faces_make(r->q, tree);
    r->t[T_FACES].seconds += time_now() - t0;
    return tree;
}

/* T-junctions and output of the faces of entity e's tree from model_tree;
 * the tree stays the caller's. False (logged) on an error that ends the
 * compile. */
static bool model_emit(run_t *r, int e, tree_t *tree, const model_info_t *mi)
{
    double t0 = time_now();
    faces_fix_tjunctions(r->q, tree);
    r->t[T_TJUNC].seconds += time_now() - t0;
    t0 = time_now();
    if (!writebsp_model(r->q, e, tree, r->err)) {
        log_error(r->log, "%s", r->err->msg);
        return false;
    }
    r->t[T_WRITE].seconds += time_now() - t0;
    r->c->models++;
    if (e == 0)
        log_info(r->log, "%6d fragments, %d nodes, %d leafs, %d portals, %d clusters, %d filled leafs", mi->frags,
                 mi->bst.nodes, mi->bst.leafs, mi->pst.portals, mi->ncl, r->c->filled);
    return true;
}

/* A brush model, start to end. */
static bool compile_model(run_t *r, int e)
{
    model_info_t mi;
    tree_t *tree = model_tree(r, e, &mi);
    if (!tree) return false;
    bool ok = model_emit(r, e, tree, &mi);
    tree_free(tree);
    return ok;
}

/* Engine-limit findings as warnings, or with -strict as an error before
 * anything is written. */
static bool check_engine_limits(const qbsp_t *q, log_t *log, q2err_t *err)
{
    englimit_list_t found = {0};
    q2err_t perr;
    q2err_clear(&perr);
    if (!englimits_check(&q->bsp, &found, &perr)) log_warn(log, "engine limits: %s", perr.msg);
    const char *name = q->map.path ? q->map.path : "map";
    char line[1024];
    for (int i = 0; i < found.count; i++) {
        englimit_describe(&found.items[i], line, sizeof line);
        if (q->opt.strict && i == 0) continue; /* the error below */
        if (q->opt.strict) log_error(log, "%s: engine limit: %s", name, line);
        else log_warn(log, "%s: engine limit: %s", name, line);
    }
    bool ok = true;
    if (q->opt.strict && found.count > 0) {
        englimit_describe(&found.items[0], line, sizeof line);
        ok = q2err_set(err, name, 0, 0, "engine limit: %s (-strict: nothing written)", line);
    }
    englimits_free(&found);
    return ok;
}

/* -convert: MAP-FMT.map beside the map (ericw-tools' name), nothing else. */
static bool convert_map(const char *mappath, map_format_t fmt, log_t *log, q2err_t *err)
{
    map_t map;
    if (!map_read_file(mappath, &map, err)) return false;
    char base[Q2_PATH_MAX], out[Q2_PATH_MAX];
    bool ok = path_replace_ext(base, sizeof base, mappath, "") &&
              snprintf(out, sizeof out, "%s-%s.map", base, map_format_name(fmt)) < (int)sizeof out;
    if (!ok) {
        map_free(&map);
        return q2err_set(err, mappath, 0, 0, "path too long for the converted map");
    }
    int inexact = map_convert(&map, fmt);
    atomic_file_t af;
    if (!atomic_open(&af, out, err)) {
        map_free(&map);
        return false;
    }
    if (!map_write(af.f, &map, fmt)) {
        atomic_abort(&af);
        map_free(&map);
        return q2err_set(err, out, 0, 0, "write failed");
    }
    map_free(&map);
    if (!atomic_commit(&af, err)) return false;
    if (inexact)
        log_warn(log, "%s: %d sides have sheared Valve 220 texture axes; the standard projection cannot match them exactly",
                 mappath, inexact);
    log_info(log, "wrote %s (%s format)", out, map_format_name(fmt));
    return true;
}

/* MAP.groupkeys beside the bsp just written (formats/groupkeys.h), or no
 * such file: one left by an earlier compile would hand qrad keys of another
 * map (qrad would refuse it by its fingerprint, but the designer would have
 * to read why). */
static bool write_groupkeys(const qbsp_t *q, const char *bsppath, log_t *log, q2err_t *err)
{
    char side[Q2_PATH_MAX];
    if (!path_replace_ext(side, sizeof side, bsppath, GROUPKEYS_EXT)) return q2err_set(err, bsppath, 0, 0, "path too long");
    if (!q->groupkeys_file) {
        if (!os_remove_file(side))
            return q2err_set(err, side, 0, 0, "cannot remove the stale group-keys file");
        return true;
    }
    if (!file_write_atomic(side, q->groupkeys_file, q->groupkeys_file_size, err)) return false;
    log_verbose(log, "wrote %s (func_group lighting keys for qrad)", side);
    return true;
}

/* ericw-tools' qbsp leaves MAP.texinfo.json beside its bsp, which qrad (and
 * ericw-tools' light) read by texinfo number; after this compile those
 * numbers name other texinfos, so a file left by an earlier ericw-tools
 * compile of the same map would light this bsp with wrong keys. */
static bool remove_stale_texinfo_json(const char *bsppath, log_t *log, q2err_t *err)
{
    char side[Q2_PATH_MAX];
    if (!path_replace_ext(side, sizeof side, bsppath, TEXINFOJSON_EXT)) return q2err_set(err, bsppath, 0, 0, "path too long");
    if (!os_is_file(side)) return true;
    if (!os_remove_file(side)) return q2err_set(err, side, 0, 0, "cannot remove the stale texinfo.json of another compile");
    log_info(log, "removed %s: an earlier ericw-tools compile wrote it, and its texinfo numbers do not fit this bsp", side);
    return true;
}

/* The brush models (entities 1..) and the rest of the .bsp. `plan`, when
 * given, is where a task beside this one leaves the collision brushes'
 * plan (writebsp_plan_brushes); the brushes are written from it once that
 * task is done. */
static bool compile_models_and_finish(run_t *r, const char *bsppath, brushplan_t **plan)
{
    for (int e = 1; e < r->q->map.numentities; e++) {
        if (r->q->ent_numbrushes[e] <= 0) continue;
        if (!compile_model(r, e)) return false;
    }
    double t0 = time_now();
    int dropped_tex = texinfo_compact(r->q);
    if (dropped_tex) log_verbose(r->log, "%d texinfo used by no face merged into others", dropped_tex);
    const brushplan_t *bp = NULL;
    if (plan) {
#pragma omp taskwait depend(in : *plan)
        bp = *plan;
    }
    if (!writebsp_finish(r->q, bp, r->err) || !check_engine_limits(r->q, r->log, r->err) ||
        !bsp_write_file(bsppath, &r->q->bsp, r->err) || !write_groupkeys(r->q, bsppath, r->log, r->err) ||
        !remove_stale_texinfo_json(bsppath, r->log, r->err)) {
        log_error(r->log, "%s", r->err->msg);
        return false;
    }
    r->t[T_WRITE].seconds += time_now() - t0;
    return true;
}

/* The world's .prt, staged beside the target: it replaces the old .prt
 * only once the .bsp it belongs to has been written. Reads the plane table
 * through `q` and nothing else of it, and logs nothing, so it can run
 * beside compile_models_and_finish given a copy of the planes. */
static bool write_prt(const qbsp_t *q, tree_t *tree, const char *prtstage, int *numportals, double *seconds,
                      q2err_t *err)
{
    double t0 = time_now();
    bool ok = prtfile_write(q, tree, q->numclusters, prtstage, numportals, err);
    *seconds += time_now() - t0;
    return ok;
}

/* The game folders and the map's load: serial, so run while the threads
 * start (threads_start_during); ok false with err set on failure. */
typedef struct load_job_t {
    qbsp_t *q;
    const qbsp_options_t *opt;
    const char *mappath;
    log_t *log;
    q2err_t *err;
    vfs_t *vfs;
    bool ok;
} load_job_t;

static void load_job(void *arg)
{
    load_job_t *j = arg;
    j->vfs = make_vfs(j->opt, j->mappath, j->log, j->err);
    if (j->err->msg[0]) return;
    j->q->texdb = texdb_create(j->vfs, j->log);
    j->ok = load_map(j->q, j->mappath, j->err);
}

int main(int argc, char **argv)
{
    os_main_init(&argc, &argv);
    /* Windings, brushes and portals by the hundred thousand: see mem.h. */
    mem_heap_setup();
    qbsp_options_t opt;
    memset(&opt, 0, sizeof opt);
    opt.subdivide = 240;
    opt.micro = 0.1;
    int threads = 0;
    map_format_t convert = MAP_FORMAT_NONE;
    log_level_t level = LOG_NORMAL;
    const char *json_path = NULL, *deps_path = NULL, *log_path = NULL;
    const char *positional[2] = {NULL, NULL};
    int npos = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0') {
            if (npos == 2) {
                fprintf(stderr, "qbsp: too many arguments: %s\n", a);
                usage(stderr);
                return 2;
            }
            positional[npos++] = a;
            continue;
        }
        if (a[1] == '-') a++; /* --option works too */
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE()                                                   \
    do {                                                               \
        if (!val) {                                                    \
            fprintf(stderr, "qbsp: %s needs a value\n", argv[i]);      \
            usage(stderr);                                             \
            return 2;                                                  \
        }                                                              \
        i++;                                                           \
    } while (0)
        if (!strcmp(a, "-help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "-keys")) {
            keytable_write_markdown(stdout);
            return 0;
        } else if (!strcmp(a, "-version")) {
            printf("qbsp (q2map) %s\n", q2map_version_long());
            return 0;
        } else if (!strcmp(a, "-threads")) {
            NEED_VALUE();
            if (!parse_int(val, &threads)) {
                fprintf(stderr, "qbsp: -threads: not a number: %s\n", val);
                return 2;
            }
        } else if (!strcmp(a, "-v") || !strcmp(a, "-verbose")) {
            level = LOG_VERBOSE;
        } else if (!strcmp(a, "-quiet")) {
            level = LOG_QUIET;
        } else if (!strcmp(a, "-basedir")) {
            NEED_VALUE();
            opt.basedir = val;
        } else if (!strcmp(a, "-gamedir")) {
            NEED_VALUE();
            opt.gamedir = val;
        } else if (!strcmp(a, "-path")) {
            NEED_VALUE();
            if (opt.numpaths == QBSP_MAX_PATHS) {
                fprintf(stderr, "qbsp: -path: at most %d\n", QBSP_MAX_PATHS);
                return 2;
            }
            opt.paths[opt.numpaths++] = val;
        } else if (!strcmp(a, "-chop")) {
            NEED_VALUE();
            if (!parse_double(val, &opt.subdivide) || opt.subdivide < 16) {
                fprintf(stderr, "qbsp: -chop: expected a number of at least 16: %s\n", val);
                return 2;
            }
        } else if (!strcmp(a, "-subdivide")) {
            NEED_VALUE();
            double v;
            if (!parse_double(val, &v) || (v != 0 && v < 16)) {
                fprintf(stderr, "qbsp: -subdivide: expected 0 or a number of at least 16: %s\n", val);
                return 2;
            }
            if (v == 0) opt.nosubdiv = true;
            else opt.subdivide = v;
        } else if (!strcmp(a, "-add")) {
            NEED_VALUE();
            opt.add_path = val;
        } else if (!strcmp(a, "-convert")) {
            NEED_VALUE();
            if (!map_convert_format_parse(val, &convert)) {
                fprintf(stderr, "qbsp: -convert: expected quake2 or valve (valve220): %s\n", val);
                return 2;
            }
        } else if (!strcmp(a, "-micro")) {
            NEED_VALUE();
            if (!parse_double(val, &opt.micro) || opt.micro < 0) {
                fprintf(stderr, "qbsp: -micro: expected a non-negative number: %s\n", val);
                return 2;
            }
        } else if (!strcmp(a, "-json")) {
            NEED_VALUE();
            json_path = val;
        } else if (!strcmp(a, "-deps")) {
            NEED_VALUE();
            deps_path = val;
        } else if (!strcmp(a, "-log")) {
            NEED_VALUE();
            log_path = val;
        } else if (!strcmp(a, "-nocsg")) opt.nocsg = true;
        else if (!strcmp(a, "-noweld")) opt.noweld = true;
        else if (!strcmp(a, "-noshare")) opt.noshare = true;
        else if (!strcmp(a, "-notjunc")) opt.notjunc = true;
        else if (!strcmp(a, "-nowater")) opt.nowater = true;
        else if (!strcmp(a, "-noprune")) opt.noprune = true;
        else if (!strcmp(a, "-nomerge")) opt.nomerge = true;
        else if (!strcmp(a, "-nosubdiv")) opt.nosubdiv = true;
        else if (!strcmp(a, "-nodetail") || !strcmp(a, "-omitdetail")) opt.nodetail = true;
        else if (!strcmp(a, "-includeskip")) opt.includeskip = true;
        else if (!strcmp(a, "-truncatetexnames")) opt.truncatetexnames = true;
        else if (!strcmp(a, "-mistdetail")) opt.miststructural = false;
        else if (!strcmp(a, "-nomistdetail")) opt.miststructural = true;
        else if (!strcmp(a, "-nodetailseal")) opt.nodetailseal = true;
        else if (!strcmp(a, "-fulldetail")) opt.fulldetail = true;
        else if (!strcmp(a, "-nofill")) opt.nofill = true;
        else if (!strcmp(a, "-onlyents")) opt.onlyents = true;
        else if (!strcmp(a, "-leaktest")) opt.leaktest = true;
        else if (!strcmp(a, "-onepass")) opt.onepass = true;
        else if (!strcmp(a, "-qbism")) opt.qbism = true;
        else if (!strcmp(a, "-noallowupgrade")) opt.noallowupgrade = true;
        else if (!strcmp(a, "-allowupgrade")) opt.noallowupgrade = false;
        else if (!strcmp(a, "-strict")) opt.strict = true;
        else {
            fprintf(stderr, "qbsp: unknown option: %s\n", argv[i]);
            usage(stderr);
            return 2;
        }
#undef NEED_VALUE
    }
    if (npos == 0) {
        fprintf(stderr, "qbsp: no map file given\n");
        usage(stderr);
        return 2;
    }
    opt.threads = threads_resolve(threads);

    /* MAP may be given without its extension. */
    char prtstage[Q2_PATH_MAX];
    char mappath[Q2_PATH_MAX], bsppath[Q2_PATH_MAX], prtpath[Q2_PATH_MAX], ptspath[Q2_PATH_MAX],
        linpath[Q2_PATH_MAX];
    snprintf(mappath, sizeof mappath, "%s", positional[0]);
    if (!file_exists(mappath)) {
        char alt[Q2_PATH_MAX];
        if (snprintf(alt, sizeof alt, "%s.map", positional[0]) < (int)sizeof alt && file_exists(alt))
            snprintf(mappath, sizeof mappath, "%s", alt);
    }
    if (positional[1])
        snprintf(bsppath, sizeof bsppath, "%s", positional[1]);
    else if (!path_replace_ext(bsppath, sizeof bsppath, mappath, ".bsp")) {
        fprintf(stderr, "qbsp: path too long: %s\n", mappath);
        return 1;
    }
    if (!path_replace_ext(prtpath, sizeof prtpath, bsppath, ".prt") ||
        !path_replace_ext(ptspath, sizeof ptspath, bsppath, ".pts") ||
        !path_replace_ext(linpath, sizeof linpath, bsppath, ".lin") ||
        !path_replace_ext(prtstage, sizeof prtstage, bsppath, ".prt.tmpstage")) {
        fprintf(stderr, "qbsp: path too long: %s\n", bsppath);
        return 1;
    }

    log_t log;
    log_init(&log, level, stdout, stderr);
    q2err_t err;
    q2err_clear(&err);
    /* A missing map is reported first, below; output paths after that. */
    if (file_exists(mappath) &&
        (!path_dir_writable(bsppath, &err) || (json_path && !path_dir_writable(json_path, &err)) ||
         (deps_path && !path_dir_writable(deps_path, &err)))) {
        log_error(&log, "%s", err.msg);
        return 1;
    }
    if (log_path && !log_open_file(&log, log_path, &err)) {
        log_error(&log, "%s", err.msg);
        return 1;
    }

    double t_start = time_now();
    stage_times_t times;
    stages_init(&times);
    qbsp_t q;
    memset(&q, 0, sizeof q);
    q.opt = opt;
    q.log = &log;
    q.times = &times;
    q.leaked_entity = -1;
    plane_table_init(&q.planes);
    bsp_init(&q.bsp);

    timing_t t[T_COUNT];
    for (int i = 0; i < T_COUNT; i++) t[i] = (timing_t){k_timing_names[i], 0};
    counts_t c;
    memset(&c, 0, sizeof c);
    c.leak_entity = -1;
    int status = 1;
    vfs_t *vfs = NULL;

    log_info(&log, "qbsp %s: %s (%d threads)", q2map_version_long(), mappath, opt.threads);
    double t0 = time_now();
    if (!file_exists(mappath)) {
        log_error(&log, "%s: map file not found", mappath);
        goto done;
    }
    if (convert != MAP_FORMAT_NONE) {
        if (!convert_map(mappath, convert, &log, &err)) log_error(&log, "%s", err.msg);
        else status = 0;
        goto done;
    }
    load_job_t job = {&q, &opt, mappath, &log, &err, NULL, false};
    threads_start_during(opt.threads, load_job, &job);
    vfs = job.vfs;
    if (!job.ok) {
        log_error(&log, "%s", err.msg);
        goto done;
    }
    t[T_LOAD].seconds = time_now() - t0;
    c.entities = q.map.numentities;
    c.mapbrushes = q.nummapbrushes;
    log_info(&log, "%6d entities, %d brushes, %d planes, %d texinfo", q.map.numentities, q.nummapbrushes,
             q.planes.count, q.numtexinfo);

    if (q.ent_numbrushes[0] == 0 && !opt.onlyents) {
        log_error(&log, "%s: the world (worldspawn) has no brushes: nothing to compile", mappath);
        goto done;
    }

    if (opt.onlyents) {
        if (!bsp_read_file(bsppath, &q.bsp, &err)) {
            log_error(&log, "-onlyents: %s", err.msg);
            goto done;
        }
        int model = 1;
        for (int e = 1; e < q.map.numentities; e++) {
            if (q.ent_numbrushes[e] <= 0) continue;
            char buf[32];
            snprintf(buf, sizeof buf, "*%d", model++);
            entity_set(&q.map.entities[e].ent, "model", buf);
        }
        if (opt.qbism) q.bsp.format = BSP_FORMAT_QBSP;
        if (!writebsp_entities(&q, &err) || !check_engine_limits(&q, &log, &err) ||
            !bsp_write_file(bsppath, &q.bsp, &err)) {
            log_error(&log, "%s", err.msg);
            goto done;
        }
        log_info(&log, "wrote %s (entities only)", bsppath);
        status = 0;
        goto done;
    }

    writebsp_begin(&q);
    run_t run = {&q, t, &c, &log, &err, mappath, ptspath, linpath, false};
    model_info_t wmi;
    tree_t *world_tree = model_tree(&run, 0, &wmi);
    if (!world_tree) goto done;
    bool leaked = run.leaked;
    bool ok_models, ok_prt = true;
    q2err_t prt_err;
    q2err_clear(&prt_err);
    if (!leaked && opt.threads > 1) {
        /* The .prt (a second portal build down to clusters, and formatting)
         * as a task for the other thread while this one writes the world's
         * faces, compiles the brush models and finishes the .bsp; of that
         * side's parallel loops the T-junctions' is a task loop, which the
         * other thread joins once the .prt is done, and the rest run on one
         * thread, which gives the same output. The two read the world's
         * tree at once, each through fields of its nodes the other leaves
         * alone: the .prt its portal lists (the faces no longer need the
         * portals), the emission its faces. The .prt side reads its own
         * copy of the planes, since the models may add some. Whichever
         * side is done with the tree last frees it. */
        qbsp_t qprt = q;
        qprt.planes.planes = q2_malloc(sizeof(plane_t) * (size_t)(q.planes.count > 0 ? q.planes.count : 1));
        memcpy(qprt.planes.planes, q.planes.planes, sizeof(plane_t) * (size_t)q.planes.count);
        double prt_seconds = 0;
        atomic_int tree_users = 2;
        brushplan_t *plan = NULL;
#pragma omp parallel num_threads(2) default(none) \
    shared(qprt, world_tree, wmi, tree_users, prtstage, c, prt_seconds, prt_err, ok_prt, ok_models, run, bsppath, plan)
#pragma omp single
        {
#pragma omp task default(none) shared(qprt, world_tree, tree_users, prtstage, c, prt_seconds, prt_err, ok_prt)
            {
                ok_prt = write_prt(&qprt, world_tree, prtstage, &c.prtportals, &prt_seconds, &prt_err);
                if (atomic_fetch_sub(&tree_users, 1) == 1) tree_free(world_tree);
            }
            /* The collision brushes' bevels, from the map brushes and the
             * planes the .prt side copied (the models may add planes
             * meanwhile): work for the thread once the .prt is done. */
#pragma omp task default(none) shared(qprt, plan) depend(out : plan)
            plan = writebsp_plan_brushes(&qprt, &qprt.planes);
            ok_models = model_emit(&run, 0, world_tree, &wmi);
            if (atomic_fetch_sub(&tree_users, 1) == 1) tree_free(world_tree);
            ok_models = ok_models && compile_models_and_finish(&run, bsppath, &plan);
        }
        writebsp_plan_free(plan);
        free(qprt.planes.planes);
        t[T_PRT].seconds += prt_seconds;
    } else {
        ok_models = model_emit(&run, 0, world_tree, &wmi);
        if (ok_models && !leaked)
            ok_prt = write_prt(&q, world_tree, prtstage, &c.prtportals, &t[T_PRT].seconds, &prt_err);
        tree_free(world_tree);
        ok_models = ok_models && ok_prt && compile_models_and_finish(&run, bsppath, NULL);
    }
    world_tree = NULL;
    if (!ok_prt) {
        log_error(&log, "%s", prt_err.msg);
        goto done;
    }
    if (!ok_models) goto done;
    if (!leaked && !os_replace_file(prtstage, prtpath, &err)) {
        log_error(&log, "%s", err.msg);
        goto done;
    }
    if (leaked) {
        /* A .prt from an earlier sealed compile would not match this bsp. */
        os_remove_file(prtpath);
    }
    log_info(&log, "wrote %s%s: %d models, %d faces, %d leafs, %d clusters%s", bsppath,
             q.bsp.format == BSP_FORMAT_QBSP ? " (QBSP format)" : "", q.bsp.nummodels, q.bsp.numfaces,
             q.bsp.numleafs, q.numclusters, leaked ? " (LEAKED: no .prt)" : "");
    status = 0;

done:
    os_remove_file(prtstage);
    if (status == 0 && deps_path && !write_deps(deps_path, bsppath, mappath, vfs, &err)) {
        log_error(&log, "%s", err.msg);
        status = 1;
    }
    if (json_path && !write_json(json_path, mappath, t, &c, &q, time_now() - t_start, &err)) {
        log_error(&log, "%s", err.msg);
        status = 1;
    }
    if (status == 0) log_info(&log, "%.3f seconds, %d warnings", time_now() - t_start, log.warnings);
    writebsp_free(&q);
    bsp_free(&q.bsp);
    load_free(&q);
    map_free(&q.map);
    texinfo_free(&q);
    plane_table_free(&q.planes);
    if (q.texdb) texdb_free(q.texdb);
    if (vfs) vfs_free(vfs);
    log_close(&log);
    return status;
}
