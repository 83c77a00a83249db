/* qrad: computes lightmaps for a Quake 2 bsp and rewrites it in place
 * (through a temporary file and rename). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "qrad.h"
#include "../common/fileio.h"
#include "../common/jsonw.h"
#include "../common/threads.h"
#include "../formats/bspcheck.h"
#include "../formats/vfs.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: qrad [options] MAP.bsp\n"
            "Computes lightmaps (24-bit, point/spot/sun/sky/surface lights, radiosity) and\n"
            "rewrites MAP.bsp's lighting lump in place.\n"
            "  -threads N     worker threads (0 = all processors; default 0)\n"
            "  -bounce N      radiosity bounces (default 8, 0 = direct light only)\n"
            "  -smooth DEG    phong: smooth normals across edges under DEG degrees (default 44)\n"
            "  -nosmooth      no phong smoothing\n"
            "  -bouncescale F multiplies reflectivity in the bounces (default 1.0)\n"
            "  -bouncerays N  rays per bounce patch, rounded down to a square (default 64)\n"
            "  -extra         2x2 supersampling per luxel\n"
            "  -chop N        patch size in units for bounces and surface lights (default 64)\n"
            "  -scale F       multiply all light (default 1.0)\n"
            "  -direct F      surface-light scale (default 0.4, as qrad3)\n"
            "  -entity F      entity-light scale (default 1.0)\n"
            "  -ambient F     light added to every luxel, 0..255 (default 0)\n"
            "  -maxlight F    brightest channel, 0..255 (default 196, as qrad3)\n"
            "  -nopvs         do not cull lights by the PVS\n"
            "  -basedir DIR   game directory root (holds baseq2/) for textures\n"
            "  -gamedir DIR   mod directory (name under basedir, or a path)\n"
            "  -v             verbose    -quiet   warnings and errors only\n"
            "  -json FILE     write timings and counts as JSON\n"
            "  -help          this text  -version print the version\n");
}

static bool is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static bool parse_num(const char *opt, const char *val, double lo, double hi, double *out)
{
    char *end;
    if (!val) {
        fprintf(stderr, "qrad: %s needs a value\n", opt);
        return false;
    }
    double v = strtod(val, &end);
    if (end == val || *end || !isfinite(v) || v < lo || v > hi) {
        fprintf(stderr, "qrad: %s: invalid value '%s' (expected %g..%g)\n", opt, val, lo, hi);
        return false;
    }
    *out = v;
    return true;
}

/* Builds the search path: basedir/baseq2 (or basedir itself), then the
 * gamedir; without -basedir, the baseq2-style directory above maps/. */
static vfs_t *setup_vfs(const char *bsppath, const char *basedir, const char *gamedir, log_t *log, q2err_t *err,
                        bool *failed)
{
    char buf[Q2_PATH_MAX], base[Q2_PATH_MAX];
    *failed = false;
    vfs_t *vfs = vfs_create();
    int added = 0;
    if (basedir) {
        if (path_join(buf, sizeof buf, basedir, "baseq2") && is_dir(buf)) snprintf(base, sizeof base, "%s", buf);
        else snprintf(base, sizeof base, "%s", basedir);
        if (!vfs_add_gamedir(vfs, base, err)) goto fail;
        added++;
    } else {
        char d[Q2_PATH_MAX];
        path_dirname(d, sizeof d, bsppath);
        if (!strcmp(path_basename(d), "maps")) {
            path_dirname(base, sizeof base, d);
            if (is_dir(base) && vfs_add_gamedir(vfs, base, err)) added++;
        }
    }
    if (gamedir) {
        if (is_dir(gamedir)) snprintf(buf, sizeof buf, "%s", gamedir);
        else if (!(basedir && path_join(buf, sizeof buf, basedir, gamedir))) {
            q2err_set(err, gamedir, 0, 0, "game directory not found");
            goto fail;
        }
        if (!vfs_add_gamedir(vfs, buf, err)) goto fail;
        added++;
    }
    if (!added) {
        vfs_free(vfs);
        log_verbose(log, "no game directory: surface lights are white, reflectivity is grey");
        return NULL;
    }
    return vfs;
fail:
    vfs_free(vfs);
    *failed = true;
    return NULL;
}

int main(int argc, char **argv)
{
    qrad_opts_t opts;
    qrad_opts_default(&opts);
    int threads = 0;
    log_level_t level = LOG_NORMAL;
    const char *basedir = NULL, *gamedir = NULL, *json = NULL, *path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        double d;
        if (a[0] == '-' && a[1] == '-' && a[2]) a++; /* accept --option too */
        if (!strcmp(a, "-help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "-version")) {
            printf("qrad (q2map) %s\n", QRAD_VERSION);
            return 0;
        } else if (!strcmp(a, "-threads")) {
            if (!parse_num(a, v, 0, THREADS_MAX, &d)) return 2;
            threads = (int)d;
            i++;
        } else if (!strcmp(a, "-bounce")) {
            if (!parse_num(a, v, 0, 1000, &d)) return 2;
            opts.bounce = (int)d;
            i++;
        } else if (!strcmp(a, "-smooth")) {
            if (!parse_num(a, v, 0, 89, &opts.smooth)) return 2;
            i++;
        } else if (!strcmp(a, "-nosmooth")) {
            opts.smooth = 0;
        } else if (!strcmp(a, "-bouncescale")) {
            if (!parse_num(a, v, 0, 2, &opts.bouncescale)) return 2;
            i++;
        } else if (!strcmp(a, "-bouncerays")) {
            if (!parse_num(a, v, 1, 1024, &d)) return 2;
            opts.bounce_rays = (int)d;
            i++;
        } else if (!strcmp(a, "-extra")) {
            opts.extra = true;
        } else if (!strcmp(a, "-chop")) {
            if (!parse_num(a, v, 16, 1024, &opts.chop)) return 2;
            i++;
        } else if (!strcmp(a, "-scale")) {
            if (!parse_num(a, v, 0, 1000, &opts.scale)) return 2;
            i++;
        } else if (!strcmp(a, "-direct")) {
            if (!parse_num(a, v, 0, 1000, &opts.direct)) return 2;
            i++;
        } else if (!strcmp(a, "-entity")) {
            if (!parse_num(a, v, 0, 1000, &opts.entity)) return 2;
            i++;
        } else if (!strcmp(a, "-ambient")) {
            if (!parse_num(a, v, 0, 255, &opts.ambient)) return 2;
            i++;
        } else if (!strcmp(a, "-maxlight")) {
            if (!parse_num(a, v, 0, 255, &opts.maxlight)) return 2;
            i++;
        } else if (!strcmp(a, "-nopvs")) {
            opts.nopvs = true;
        } else if (!strcmp(a, "-basedir") || !strcmp(a, "-gamedir") || !strcmp(a, "-json")) {
            if (!v) {
                fprintf(stderr, "qrad: %s needs a value\n", a);
                return 2;
            }
            if (!strcmp(a, "-basedir")) basedir = v;
            else if (!strcmp(a, "-gamedir")) gamedir = v;
            else json = v;
            i++;
        } else if (!strcmp(a, "-v")) {
            level = LOG_VERBOSE;
        } else if (!strcmp(a, "-quiet")) {
            level = LOG_QUIET;
        } else if (a[0] == '-') {
            fprintf(stderr, "qrad: unknown option '%s' (see qrad -help)\n", argv[i]);
            return 2;
        } else if (!path) {
            path = a;
        } else {
            fprintf(stderr, "qrad: more than one bsp given ('%s' and '%s')\n", path, a);
            return 2;
        }
    }
    if (!path) {
        usage(stderr);
        return 2;
    }
    opts.threads = threads_resolve(threads);
    log_t log;
    log_init(&log, level, stdout, stderr);
    stage_times_t st;
    stages_init(&st);
    q2err_t err;
    bsp_t bsp;
    bsp_init(&bsp);
    stages_mark(&st, "read");
    if (json && !path_dir_writable(json, &err)) {
        log_error(&log, "qrad: %s", err.msg);
        return 1;
    }
    if (!bsp_read_file(path, &bsp, &err) || !bsp_validate(&bsp, path, &err)) {
        log_error(&log, "qrad: %s", err.msg);
        bsp_free(&bsp);
        return 1;
    }
    bool vfs_failed;
    vfs_t *vfs = setup_vfs(path, basedir, gamedir, &log, &err, &vfs_failed);
    if (vfs_failed) {
        log_error(&log, "qrad: %s", err.msg);
        bsp_free(&bsp);
        return 1;
    }
    texdb_t *texdb = texdb_create(vfs, &log);
    log_info(&log, "qrad %s: %s, %d threads, %d bounces%s", QRAD_VERSION, path, opts.threads, opts.bounce,
             opts.extra ? ", extra" : "");
    /* Whatever another light tool or a qbsp left in the faces' styles and
     * offsets, the lightmaps are laid out anew. */
    if (!bsp_is_unlit(&bsp))
        log_verbose(&log, "relighting: the %d-byte lighting lump and every face's styles are replaced",
                    bsp.lightdatasize);
    qrad_t stats;
    bool ok = qrad_run(&bsp, &opts, texdb, &log, &st, &stats, &err);
    if (ok) {
        stages_mark(&st, "write");
        ok = bsp_write_file(path, &bsp, &err);
        stages_end(&st);
    }
    if (!ok) {
        log_error(&log, "qrad: %s: %s", path, err.msg);
    } else {
        log_info(&log, "%ld luxels, %d lights, %d patches, %ld rays, %d bytes of lighting, %.2f s", stats.luxels,
                 stats.numlights, stats.numpatches, stats.rays, bsp.lightdatasize, stages_total(&st));
        for (int s = 0; s < st.count; s++) log_verbose(&log, "  %-10s %.3f s", st.stage[s].name, st.stage[s].seconds);
    }
    if (ok && json) {
        atomic_file_t af;
        if (!atomic_open(&af, json, &err)) {
            log_error(&log, "qrad: %s", err.msg);
            ok = false;
        } else {
            jsonw_t w;
            jsonw_init(&w, af.f);
            jsonw_object_begin(&w, NULL);
            jsonw_string(&w, "tool", "qrad");
            jsonw_string(&w, "version", QRAD_VERSION);
            jsonw_string(&w, "bsp", path);
            jsonw_int(&w, "threads", opts.threads);
            jsonw_int(&w, "bounce", opts.bounce);
            jsonw_int(&w, "faces", bsp.numfaces);
            jsonw_int(&w, "luxels", stats.luxels);
            jsonw_int(&w, "lights", stats.numlights);
            jsonw_int(&w, "surface_light_pieces", stats.surface_pieces);
            jsonw_int(&w, "patches", stats.numpatches);
            jsonw_int(&w, "rays", stats.rays);
            jsonw_int(&w, "lighting_bytes", bsp.lightdatasize);
            jsonw_bool(&w, "sun", stats.sun.on);
            jsonw_int(&w, "warnings", log.warnings);
            jsonw_object_begin(&w, "seconds");
            for (int s = 0; s < st.count; s++) jsonw_double(&w, st.stage[s].name, st.stage[s].seconds);
            jsonw_double(&w, "total", stages_total(&st));
            jsonw_object_end(&w);
            jsonw_object_end(&w);
            fputc('\n', af.f);
            if (!atomic_commit(&af, &err)) {
                log_error(&log, "qrad: %s", err.msg);
                ok = false;
            }
        }
    }
    texdb_free(texdb);
    vfs_free(vfs);
    bsp_free(&bsp);
    log_close(&log);
    return ok ? 0 : 1;
}
