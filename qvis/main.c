/* qvis: computes the PVS and PHS of a Quake 2 bsp from the .prt beside it
 * and rewrites the bsp's visibility lump in place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/os.h"
#include "../common/version.h"
#include "../common/dist.h"
#include "../common/fileio.h"
#include "../common/jsonw.h"
#include "../common/log.h"
#include "../common/threads.h"
#include "../common/mem.h"
#include "../common/timer.h"
#include "../formats/bspcheck.h"
#include "qvis.h"


static void usage(FILE *f)
{
    fprintf(f,
            "usage: qvis [options] MAP.bsp\n"
            "Computes the potentially visible and hearable sets from MAP.prt and\n"
            "rewrites MAP.bsp's visibility lump (atomically).\n"
            "  -threads N   worker threads (default: all processors)\n"
            "  -fast        portal might-see only (quick, loose)\n"
            "  -level L     separator clipping 0..4 (default %d; see docs/qvis.md)\n"
            "  -v           verbose\n"
            "  -quiet       warnings and errors only\n"
            "  -json FILE   write a report (times per phase, counts, statistics)\n"
            "  -checkpvs    check MAP.bsp's existing PVS instead: trace segments between\n"
            "               sample points of every cluster pair the PVS separates; exit 1\n"
            "               if any is unobstructed (a cluster hidden that can be seen)\n"
            "  -help        this text\n"
            "  -version     print the version\n"
            "Under mpirun (when built with MPI) the ranks share the work and rank 0\n"
            "alone writes; see docs/distributed.md.\n",
            VIS_LEVEL_DEFAULT);
}

static bool parse_int(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < -1000000 || v > 1000000) return false;
    *out = (int)v;
    return true;
}

static bool write_json(const char *path, const stage_times_t *st, const vis_t *vis, const vis_result_t *res,
                       bool fast, int threads, const dist_t *dist, q2err_t *err)
{
    atomic_file_t af;
    if (!atomic_open(&af, path, err)) return false;
    jsonw_t w;
    jsonw_init(&w, af.f);
    jsonw_object_begin(&w, NULL);
    jsonw_string(&w, "tool", "qvis");
    jsonw_int(&w, "threads", threads);
    jsonw_bool(&w, "fast", fast);
    jsonw_int(&w, "level", vis->level);
    jsonw_object_begin(&w, "seconds");
    for (int i = 0; i < st->count; i++) jsonw_double(&w, st->stage[i].name, st->stage[i].seconds);
    jsonw_double(&w, "total", stages_total(st));
    jsonw_object_end(&w);
    jsonw_int(&w, "clusters", vis->numclusters);
    jsonw_int(&w, "portals", vis->numportals / 2);
    jsonw_int(&w, "portals_skipped", vis->skipped);
    jsonw_int(&w, "flow_chains", vis->chains);
    jsonw_int(&w, "flow_handovers", vis->handovers);
    jsonw_int(&w, "flow_spills", vis->spills);
    jsonw_double(&w, "avg_visible", res->avg_visible);
    jsonw_int(&w, "max_visible", res->max_visible);
    jsonw_double(&w, "avg_hearable", res->avg_hearable);
    jsonw_int(&w, "asymmetric_pairs_removed", res->asym_removed);
    jsonw_int(&w, "vis_bytes", res->lumpsize);
    dist_json(dist, &w);
    jsonw_object_end(&w);
    fputc('\n', af.f);
    return atomic_commit(&af, err);
}

/* A Quake 2 bsp carries each leaf's cluster itself, so the leaf map of a
 * PRT2 or PRT1-AM file is only compared with it: the portals are what qvis
 * reads. */
static void note_cluster_map(const prt_t *prt, const bsp_t *bsp, const char *prtpath, log_t *log)
{
    const char *name = prt->format == PRT_FORMAT_PRT2 ? "PRT2" : "PRT1-AM";
    int differ = 0;
    if (prt->numleafs == bsp->numleafs - 1)
        for (int i = 0; i < prt->numleafs; i++) {
            /* Solid leafs have no cluster; PRT1-AM cannot say so. */
            int want = bsp->leafs[i + 1].cluster;
            differ += want >= 0 && prt->leaf_cluster[i] != want;
        }
    if (prt->numleafs != bsp->numleafs - 1 || differ)
        log_warn(log, "%s: %s leaf map (%d leafs) does not match the bsp's %d leafs (%d differ); using the bsp's "
                 "clusters", prtpath, name, prt->numleafs, bsp->numleafs - 1, differ);
    else
        log_verbose(log, "%s: %s portal file; its leaf map matches the bsp's leaf clusters", prtpath, name);
}

/* Sample points per cluster for -checkpvs: enough to find a hidden cluster
 * pair in practice, few enough to check base1-sized maps in seconds. */
#define CHECKPVS_SAMPLES 8

static int check_pvs(const char *bsppath, int threads, log_t *log)
{
    q2err_t err;
    bsp_t bsp;
    if (!bsp_read_file(bsppath, &bsp, &err) || !bsp_validate(&bsp, bsppath, &err)) {
        log_error(log, "%s", err.msg);
        bsp_free(&bsp);
        return 1;
    }
    if (bsp.visdatasize == 0) {
        log_error(log, "%s: no visibility data to check (run qvis first)", bsppath);
        bsp_free(&bsp);
        return 1;
    }
    vis_check_t ck;
    bool ok = vis_check_sampled(&bsp, CHECKPVS_SAMPLES, threads, &ck, &err);
    if (!ok) {
        log_error(log, "%s: %s", bsppath, err.msg);
        bsp_free(&bsp);
        return 1;
    }
    log_info(log, "%s: %ld samples, %ld segments traced, %ld hidden pairs with a clear line of sight, %ld asymmetric",
             bsppath, ck.samples, ck.traces, ck.misses, ck.asymmetric);
    if (ck.misses > 0) {
        log_error(log, "%s: the PVS hides %ld cluster pairs that can see each other (first: %d and %d)", bsppath,
                  ck.misses, ck.first_miss[0], ck.first_miss[1]);
        vec3_t a = ck.first_seg[0], b = ck.first_seg[1];
        log_verbose(log, "clear segment (%.3f %.3f %.3f) - (%.3f %.3f %.3f) crosses leafs:", a.x, a.y, a.z, b.x, b.y,
                    b.z);
        int leafs[64];
        int n = bsp_segment_leafs(&bsp, a, b, leafs, 64);
        for (int i = 0; i < n && i < 64; i++) {
            const dleaf_t *l = &bsp.leafs[leafs[i]];
            log_verbose(log, "  leaf %d cluster %d contents 0x%x bounds (%g %g %g)-(%g %g %g)", leafs[i], l->cluster,
                        l->contents, l->mins[0], l->mins[1], l->mins[2], l->maxs[0], l->maxs[1], l->maxs[2]);
        }
        if (n > 64) log_verbose(log, "  ... %d leafs in all", n);
        /* an independent look at the same segment: the leaf of each of many
         * points along it, to tell a real gap from a tracing artefact */
        enum { STEPS = 100000 };
        int prev = -2;
        for (int i = 0; i <= STEPS; i++) {
            vec3_t p = vec_lerp(a, b, (double)i / STEPS);
            int leaf = bsp_point_leaf(&bsp, p);
            if (leaf == prev) continue;
            prev = leaf;
            log_verbose(log, "  point (%.4f %.4f %.4f) in leaf %d contents 0x%x", p.x, p.y, p.z, leaf,
                        leaf >= 0 ? bsp.leafs[leaf].contents : -1);
        }
        bsp_free(&bsp);
        return 1;
    }
    bsp_free(&bsp);
    return 0;
}

/* Everything after option parsing, on every rank; only rank 0 writes. */
static int run(const char *bsppath, int threads, int level, bool fast, const char *json, dist_t *dist, log_t *logp)
{
    log_t *log = logp;
    bool root = dist_is_root(dist);
    stage_times_t st;
    stages_init(&st);
    q2err_t err;
    q2err_clear(&err);

    char prtpath[Q2_PATH_MAX];
    if (!path_replace_ext(prtpath, sizeof prtpath, bsppath, ".prt")) {
        log_error(log, "%s: path too long", bsppath);
        return 1;
    }
    stages_mark(&st, "load");
    bsp_t bsp;
    bsp_init(&bsp);
    if (!dist_root_bool(dist, !json || !root || path_dir_writable(json, &err))) {
        log_error(log, "%s", err.msg);
        return 1;
    }
    /* rank 0 reads the files and sends them to the other ranks */
    uint8_t *bdata = NULL, *pdata = NULL;
    size_t bsize = 0, psize = 0;
    q2err_t perr;
    q2err_clear(&perr);
    bool bsp_read = dist_read_file(dist, bsppath, BSP_MAX_FILE_SIZE, &bdata, &bsize, &err);
    bool prt_exists = dist_root_bool(dist, file_exists(prtpath));
    bool prt_read = prt_exists && dist_read_file(dist, prtpath, PRT_FILE_MAX, &pdata, &psize, &perr);
    /* the two files parse at once, on two threads: every rank waits for
     * this before the first loop (errors are reported in the same order as
     * one after the other: the bsp's first) */
    prt_t prt;
    memset(&prt, 0, sizeof prt);
    bool bsp_ok = false, prt_ok = false;
    dist_local_t *lt = dist_local_begin(dist, 2);
#pragma omp parallel for num_threads(threads > 1 ? 2 : 1) schedule(dynamic)
    for (int i = 0; i < 2; i++) {
        double t0 = dist_local_start(lt);
        if (i == 0)
            bsp_ok = bsp_read && bsp_read_memory(bdata, bsize, bsppath, &bsp, &err) && bsp_validate(&bsp, bsppath, &err);
        else
            prt_ok = prt_read && prt_read_memory((const char *)pdata, psize, prtpath, &prt, &perr);
        dist_local_done(lt, i, t0);
    }
    dist_local_end(lt);
    free(bdata);
    free(pdata);
    if (!bsp_ok || !prt_exists || !prt_ok) {
        if (!bsp_ok)
            log_error(log, "%s", err.msg);
        else if (!prt_exists)
            log_error(log, "%s: portal file not found (run qbsp first)", prtpath);
        else
            log_error(log, "%s", perr.msg);
        if (prt_ok) prt_free(&prt);
        bsp_free(&bsp);
        return 1;
    }
    int bspclusters = vis_bsp_leaf_clusters(&bsp);
    if (prt.numclusters != bspclusters) {
        log_error(log, "%s: %d clusters, but %s's leafs use %d: the portal file belongs to another compile",
                  prtpath, prt.numclusters, bsppath, bspclusters);
        prt_free(&prt);
        bsp_free(&bsp);
        return 1;
    }
    if (prt.format != PRT_FORMAT_PRT1) note_cluster_map(&prt, &bsp, prtpath, log);
    vis_t vis;
    if (!vis_init(&vis, &prt, threads, level, dist, log, &err)) {
        log_error(log, "%s: %s", prtpath, err.msg);
        prt_free(&prt);
        bsp_free(&bsp);
        return 1;
    }
    prt_free(&prt);
    vis.dist = dist;
    log_info(log, "%s: %d clusters, %d portals, %d threads%s", bsppath, vis.numclusters, vis.numportals / 2,
             threads, fast ? ", fast" : "");
    if (dist_size(dist) > 1) log_info(log, "%d MPI ranks share the portal flow", dist_size(dist));

    stages_mark(&st, "base");
    vis_base(&vis, log);
    stages_mark(&st, "flow");
    vis_flow(&vis, fast, log);
    stages_mark(&st, "merge");
    vis_result_t res;
    vis_cluster_rows(&vis, &res);
    vis_hearable(&res, threads, dist);
    if (!vis_build_lump(&res, &err)) {
        log_error(log, "%s: %s", bsppath, err.msg);
        vis_result_free(&res);
        vis_free(&vis);
        bsp_free(&bsp);
        return 1;
    }
    /* the last exchange: from here on only rank 0 has anything to do */
    dist_collect(dist);
    stages_mark(&st, "write");
    free(bsp.visdata);
    bsp.visdata = res.lump;
    bsp.visdatasize = res.lumpsize;
    res.lump = NULL;
    bool ok = !root || bsp_write_file_threads(bsppath, &bsp, dist, threads, &err);
    stages_end(&st);
    if (!ok) {
        log_error(log, "%s", err.msg);
    } else {
        log_info(log, "%d clusters: average visible %.1f, max %d, average hearable %.1f; vis %d bytes; %.2f s",
                 res.numclusters, res.avg_visible, res.max_visible, res.avg_hearable, bsp.visdatasize,
                 stages_total(&st));
        log_verbose(log, "base %.3f s, flow %.3f s (%ld chains, %ld branches handed to other threads, %ld to other ranks), %ld one-sided pairs cleared",
                    st.stage[1].seconds, st.stage[2].seconds, vis.chains, vis.handovers, vis.spills, res.asym_removed);
        dist_log_summary(dist, log);
        if (root && json && !write_json(json, &st, &vis, &res, fast, threads, dist, &err)) {
            log_error(log, "%s", err.msg);
            ok = false;
        }
    }
    vis_result_free(&res);
    vis_free(&vis);
    bsp_free(&bsp);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    os_main_init(&argc, &argv);
    int threads = 0, level = VIS_LEVEL_DEFAULT;
    bool fast = false, checkpvs = false;
    log_level_t lvl = LOG_NORMAL;
    const char *json = NULL, *bsppath = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] == '-' && a[1] == '-') a++; /* accept --option too */
        if (!strcmp(a, "-threads") && i + 1 < argc) {
            if (!parse_int(argv[++i], &threads) || threads < 0) {
                fprintf(stderr, "qvis: -threads needs a number >= 0, got '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "-level") && i + 1 < argc) {
            if (!parse_int(argv[++i], &level) || level < 0 || level > VIS_LEVEL_MAX) {
                fprintf(stderr, "qvis: -level must be 0..%d, got '%s'\n", VIS_LEVEL_MAX, argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "-checkpvs")) {
            checkpvs = true;
        } else if (!strcmp(a, "-fast")) {
            fast = true;
        } else if (!strcmp(a, "-v")) {
            lvl = LOG_VERBOSE;
        } else if (!strcmp(a, "-quiet")) {
            lvl = LOG_QUIET;
        } else if (!strcmp(a, "-json") && i + 1 < argc) {
            json = argv[++i];
        } else if (!strcmp(a, "-help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "-version")) {
            printf("qvis (q2map) %s\n", q2map_version_long());
            return 0;
        } else if (a[0] == '-') {
            fprintf(stderr, "qvis: unknown or incomplete option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        } else if (!bsppath) {
            bsppath = argv[i];
        } else {
            fprintf(stderr, "qvis: more than one bsp given ('%s')\n", argv[i]);
            return 2;
        }
    }
    if (!bsppath) {
        usage(stderr);
        return 2;
    }
    threads = threads_resolve(threads);
    mem_heap_setup();
    threads_start(threads);

    q2err_t err;
    q2err_clear(&err);
    dist_t *dist;
    if (!dist_start(&dist, "qvis", &err)) {
        fprintf(stderr, "qvis: %s\n", err.msg);
        return 1;
    }
    dist_set_threads(dist, threads);
    /* Ranks other than 0 work silently: they see the same input, so rank 0
     * reports every error they could meet. */
    bool root = dist_is_root(dist);
    log_t log;
    log_init(&log, root ? lvl : LOG_QUIET, root ? stdout : NULL, root ? stderr : NULL);
    int rc;
    if (checkpvs) rc = root ? check_pvs(bsppath, threads, &log) : 0;
    else rc = run(bsppath, threads, level, fast, json, dist, &log);
    log_close(&log);
    dist_stop(dist);
    return rc;
}

