/* qview: looks at compiled Quake 2 maps, in a window or headless.
 *
 *   qview MAP.bsp                              interactive window
 *   qview MAP.bsp --render OUT.png [--camera X Y Z YAW PITCH]
 *   qview MAP.bsp --views N --out-dir DIR      N deterministic views
 *   qview --check-cracks MAP.bsp --views N     key-colour gap check
 *   qview --compare MAP.bsp --views N          soft vs GL difference
 *   qview --bench MAP.bsp --views N            load and render times
 *   qview --watch MAP.map [compile options]    recompile on save, live window
 *   qview --watch MAP.map --render-on-change DIR [--max-compiles N]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/version.h"
#include "../common/fileio.h"
#include "../common/log.h"
#include "../common/mem.h"
#include "../common/os.h"
#include "../common/threads.h"
#include "../common/timer.h"
#include "../formats/textures.h"
#include "../formats/vfs.h"
#include "cameras.h"
#include "checks.h"
#include "overlays.h"
#include "bspx_view.h"
#include "refexport.h"
#include "live.h"
#include "watch_headless.h"
#include "window.h"

/* Set on a stop request (os_on_stop_request) in headless watch mode so that
 * the loop ends and the running compile is killed, not left behind; a
 * signal handler can reach nothing but a global. */
static volatile sig_atomic_t stop_requested;

/* q2map compile's options that watch mode passes on, and how many
 * arguments each takes. -o, -log and -json stay qview's own. */
static int compile_option_args(const char *a)
{
    static const struct {
        const char *name;
        int nargs;
    } opts[] = {{"-fast", 0},    {"-final", 0},   {"-threads", 1}, {"-quiet", 0}, {"-verbose", 0},
                {"-basedir", 1}, {"-gamedir", 1}, {"-leaktest", 0}, {"-novis", 0}, {"-norad", 0},
                {"-qbsp", 1},    {"-qvis", 1},    {"-qrad", 1}};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        if (!strcmp(a, opts[i].name)) return opts[i].nargs;
    return -1;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: qview [options] MAP.bsp\n"
            "  (no mode)              open the interactive window (needs a display)\n"
            "  --version              print the version\n"
            "  --render OUT.png       render one view to a PNG\n"
            "  --views N --out-dir D  render N deterministic views to D/view_NNN.png\n"
            "  --check-cracks         count key-coloured pixels per view (exit 1 if any)\n"
            "  --compare              soft vs gl mean absolute error per view (exit 1 above --max-mae)\n"
            "  --bench                load time and median soft render time over the views\n"
            "  --face-at-center       the face shown at the centre of view 0\n"
            "  --list-textures        the map's texture names, found (with --game) or flat\n"
            "  --image-stats IMG.png  share of non-black pixels and distinct colours of a PNG\n"
            "  --image-diff A.png B.png [X0 Y0 X1 Y1]\n"
            "                         how many pixels differ, their bounding box (and how many in the box)\n"
            "  --watch MAP.map [compile options]\n"
            "                         compile MAP.map (q2map compile -fast) and show it; on each save\n"
            "                         compile again in the background and swap the result in\n"
            "                         (F5 compiles now, F6 switches -fast/-final)\n"
            "  --render-on-change DIR with --watch: no window; DIR/compile_NNN.png and DIR/latest.png\n"
            "                         after each compile that gives a map\n"
            "  --max-compiles N       with --watch: stop after N compiles have ended\n"
            "  --watch-poll           with --watch: poll the files instead of change notification\n"
            "compile options (with --watch, passed to q2map compile): -fast -final -threads N\n"
            "  -quiet -verbose -basedir D -gamedir D -leaktest -novis -norad -qbsp A -qvis A -qrad A\n"
            "options:\n"
            "  --shot-dir DIR         where the window's screenshots go (default .)\n"
            "  --renderer soft|gl     (default soft)\n"
            "  --size WxH             image size (default 640x480)\n"
            "  --camera X Y Z YAW PITCH   eye position and angles in degrees (pitch > 0 looks down)\n"
            "  --views N              number of views (default 8)\n"
            "  --threads N            soft renderer threads (default: all)\n"
            "  --mode lit|lightmap|flat|clusters   --wire\n"
            "  --game DIR             game directory for textures (wal/png/tga, paks)\n"
            "  --pts FILE  --prt FILE leak line / portal overlays\n"
            "  --overlay lightgrid|normals  the bsp's LIGHTGRID_OCTREE samples / FACENORMALS\n"
            "  --no-pvs               draw every leaf in the frustum\n"
            "  --skip-face N          leave face N out (shows that the crack check can fail)\n"
            "  --max-mae X            bound for --compare, 0..255 units (default 4)\n"
            "  -q / -v                quieter / more verbose\n");
}

static int parse_mode(const char *s)
{
    for (int i = 0; i < RMODE_COUNT; i++)
        if (!strcmp(s, rmode_names[i])) return i;
    return -1;
}

/* Prints what a PNG shows: the share of pixels that are not black, not the
 * crack key colour, and how many distinct colours; tests use it on
 * screenshots. */
static int image_stats_main(const char *path)
{
    uint8_t *data = NULL;
    size_t size = 0;
    q2err_t err;
    image_t img = {0, 0, NULL, false};
    if (!file_read_all(path, (size_t)256 << 20, &data, &size, &err) || !png_read(data, size, path, &img, &err)) {
        fprintf(stderr, "qview: %s\n", err.msg);
        free(data);
        return 1;
    }
    free(data);
    static const uint8_t black[3] = {0, 0, 0}, key[3] = {KEY_R, KEY_G, KEY_B};
    double cov_black, cov_key;
    int colors;
    image_stats(img.rgba, img.width, img.height, black, &cov_black, &colors);
    image_stats(img.rgba, img.width, img.height, key, &cov_key, NULL);
    printf("%s: %dx%d, %.3f not black, %.3f not key, %d colours\n", path, img.width, img.height, cov_black, cov_key,
           colors);
    image_free(&img);
    return 0;
}

/* How two PNGs of one size differ: the count and bounding box of the
 * pixels whose colour is not the same; tests use it to say where a
 * picture changed. Exit 0 when they differ, 1 when equal, 2 on error. */
static int image_diff_main(const char *pa, const char *pb, const int *region)
{
    image_t im[2] = {{0, 0, NULL, false}, {0, 0, NULL, false}};
    const char *paths[2] = {pa, pb};
    for (int k = 0; k < 2; k++) {
        uint8_t *data = NULL;
        size_t size = 0;
        q2err_t err;
        if (!file_read_all(paths[k], (size_t)256 << 20, &data, &size, &err) ||
            !png_read(data, size, paths[k], &im[k], &err)) {
            fprintf(stderr, "qview: %s\n", err.msg);
            free(data);
            image_free(&im[0]);
            return 2;
        }
        free(data);
    }
    if (im[0].width != im[1].width || im[0].height != im[1].height) {
        fprintf(stderr, "qview: %s is %dx%d, %s is %dx%d\n", pa, im[0].width, im[0].height, pb, im[1].width,
                im[1].height);
        image_free(&im[0]);
        image_free(&im[1]);
        return 2;
    }
    long n = 0, inside = 0;
    int x0 = im[0].width, y0 = im[0].height, x1 = -1, y1 = -1;
    for (int y = 0; y < im[0].height; y++)
        for (int x = 0; x < im[0].width; x++) {
            size_t o = ((size_t)y * im[0].width + x) * 4;
            if (!memcmp(im[0].rgba + o, im[1].rgba + o, 3)) continue;
            n++;
            if (region && x >= region[0] && y >= region[1] && x <= region[2] && y <= region[3]) inside++;
            if (x < x0) x0 = x;
            if (y < y0) y0 = y;
            if (x > x1) x1 = x;
            if (y > y1) y1 = y;
        }
    if (n)
        printf("image diff: %ld pixels differ, box %d %d %d %d\n", n, x0, y0, x1, y1);
    else
        printf("image diff: 0 pixels differ\n");
    if (region)
        printf("image diff: %ld pixels differ in %d %d %d %d\n", inside, region[0], region[1], region[2], region[3]);
    image_free(&im[0]);
    image_free(&im[1]);
    return n ? 0 : 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* --watch: the live session, shown in the window or rendered headless. */
static int watch_main(const char *map, const char *const *copts, int ncopts, bool final, bool force_poll,
                      const char *out_dir, int max_compiles, const char *game, const char *renderer, int width,
                      int height, int threads, int mode, bool wire, bool no_pvs, const camera_t *cam,
                      const char *shot_dir, log_t *log)
{
    q2err_t err;
    vfs_t *vfs = NULL;
    if (game) {
        vfs = vfs_create();
        if (!vfs_add_gamedir(vfs, game, &err)) {
            fprintf(stderr, "qview: %s\n", err.msg);
            vfs_free(vfs);
            return 1;
        }
    }
    texdb_t *db = vfs ? texdb_create(vfs, log) : NULL;
    live_opts_t lo = {map, copts, ncopts, final, force_poll, db, log};
    live_t live;
    if (!live_start(&live, &lo, &err)) {
        fprintf(stderr, "qview: %s\n", err.msg);
        texdb_free(db);
        vfs_free(vfs);
        return 1;
    }
    render_opts_t ropts;
    render_opts_default(&ropts);
    ropts.mode = mode;
    ropts.wireframe = wire;
    ropts.no_pvs = no_pvs;
    int rc = 0;
    if (out_dir) {
        os_on_stop_request(&stop_requested);
        watch_headless_opts_t ho = {out_dir, max_compiles, width,  height, threads, ref_by_name(renderer),
                                    ropts,   cam,          &stop_requested, stdout};
        log_info(log, "qview: watching %s (%s, %s)", map, live_preset_name(&live),
                 watch_files_polling(live.wf) ? "polling" : os_dirwatch_name());
        rc = watch_headless_run(&live, &ho, log);
        if (stop_requested) log_info(log, "qview: stopped by a signal");
    } else {
        window_opts_t wo;
        memset(&wo, 0, sizeof wo);
        wo.width = width;
        wo.height = height;
        wo.threads = threads;
        wo.renderer = renderer;
        wo.shot_dir = shot_dir;
        wo.render = ropts;
        wo.start = cam;
        wo.log = log;
        wo.live = &live;
        char title[Q2_PATH_MAX + 16];
        snprintf(title, sizeof title, "qview: %s", path_basename(map));
        wo.title = title;
        log_info(log, "qview: watching %s (%s, %s)", map, live_preset_name(&live),
                 watch_files_polling(live.wf) ? "polling" : os_dirwatch_name());
        if (!window_run(NULL, &wo, &err)) {
            fprintf(stderr, "qview: %s\n", err.msg);
            rc = 1;
        }
    }
    live_stop(&live);
    texdb_free(db);
    vfs_free(vfs);
    return rc;
}

int main(int argc, char **argv)
{
    os_main_init(&argc, &argv);
    const char *map = NULL, *render_out = NULL, *out_dir = NULL, *renderer = "soft", *game = NULL;
    const char *pts = NULL, *prtf = NULL, *shot_dir = ".", *overlay = NULL;
    int width = 640, height = 480, views = 8, threads = 0, mode = RMODE_LIT, skip_face = -1;
    bool check = false, compare = false, bench = false, wire = false, no_pvs = false, have_cam = false;
    bool views_given = false, face_at_center = false, list_textures = false;
    double max_mae = 4.0;
    bool watch = false, watch_poll = false, watch_final = false;
    const char *render_on_change = NULL;
    int max_compiles = 0;
    const char *copts[argc + 1];
    int ncopts = 0;
    camera_t cam = {{0, 0, 0}, 0, 0, 90};
    log_level_t level = LOG_NORMAL;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
#define NEED(k)                                                          \
    if (i + (k) >= argc) {                                               \
        fprintf(stderr, "qview: %s needs %d argument(s)\n", a, (k));     \
        return 2;                                                        \
    }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version") || !strcmp(a, "-version")) {
            printf("qview (q2map) %s\n", q2map_version_long());
            return 0;
        } else if (!strcmp(a, "--render")) {
            NEED(1);
            render_out = argv[++i];
        } else if (!strcmp(a, "--out-dir")) {
            NEED(1);
            out_dir = argv[++i];
        } else if (!strcmp(a, "--watch")) {
            watch = true;
        } else if (!strcmp(a, "--watch-poll")) {
            watch_poll = true;
        } else if (!strcmp(a, "--render-on-change")) {
            NEED(1);
            render_on_change = argv[++i];
        } else if (!strcmp(a, "--max-compiles")) {
            NEED(1);
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || n < 1 || n > 1000000) {
                fprintf(stderr, "qview: bad --max-compiles '%s' (1..1000000)\n", argv[i]);
                return 2;
            }
            max_compiles = (int)n;
        } else if (watch && compile_option_args(a) >= 0) {
            int k = compile_option_args(a);
            NEED(k);
            if (!strcmp(a, "-fast") || !strcmp(a, "-final")) {
                watch_final = !strcmp(a, "-final");
            } else {
                copts[ncopts++] = a;
                for (int j = 0; j < k; j++) copts[ncopts++] = argv[++i];
            }
        } else if (watch && (!strcmp(a, "-o") || !strcmp(a, "-log") || !strcmp(a, "-json"))) {
            fprintf(stderr, "qview: %s: watch mode keeps its compiles to itself\n", a);
            return 2;
        } else if (!strcmp(a, "--image-diff")) {
            NEED(2);
            int region[4], nr = 0;
            char *end;
            for (; nr < 4 && i + 3 + nr < argc; nr++) {
                long v = strtol(argv[i + 3 + nr], &end, 10);
                if (*end || end == argv[i + 3 + nr]) break;
                region[nr] = (int)v;
            }
            if (nr != 0 && nr != 4) {
                fprintf(stderr, "qview: --image-diff A B [X0 Y0 X1 Y1]: a region needs four numbers\n");
                return 2;
            }
            return image_diff_main(argv[i + 1], argv[i + 2], nr ? region : NULL);
        } else if (!strcmp(a, "--image-stats")) {
            NEED(1);
            return image_stats_main(argv[++i]);
        } else if (!strcmp(a, "--list-textures")) {
            list_textures = true;
        } else if (!strcmp(a, "--face-at-center")) {
            face_at_center = true;
        } else if (!strcmp(a, "--shot-dir")) {
            NEED(1);
            shot_dir = argv[++i];
        } else if (!strcmp(a, "--renderer")) {
            NEED(1);
            renderer = argv[++i];
            if (!ref_by_name(renderer)) {
                fprintf(stderr, "qview: unknown renderer '%s' (soft or gl)\n", renderer);
                return 2;
            }
            if (!strcmp(renderer, "gl") && !ref_gl_built()) {
                fprintf(stderr, "qview: warning: the GL renderer is not in this build (no EGL on this platform); "
                                "using the software renderer\n");
                renderer = "soft";
            }
        } else if (!strcmp(a, "--size")) {
            NEED(1);
            if (sscanf(argv[++i], "%dx%d", &width, &height) != 2 || width < 1 || height < 1 || width > 8192 ||
                height > 8192) {
                fprintf(stderr, "qview: bad --size '%s' (WxH, 1..8192)\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--camera")) {
            NEED(5);
            char *end;
            double v[5];
            for (int k = 0; k < 5; k++) {
                v[k] = strtod(argv[i + 1 + k], &end);
                if (*end || end == argv[i + 1 + k]) {
                    fprintf(stderr, "qview: bad --camera number '%s'\n", argv[i + 1 + k]);
                    return 2;
                }
            }
            i += 5;
            cam = (camera_t){{v[0], v[1], v[2]}, v[3], v[4], 90};
            have_cam = true;
        } else if (!strcmp(a, "--views")) {
            NEED(1);
            views = atoi(argv[++i]);
            views_given = true;
            if (views < 1 || views > 100000) {
                fprintf(stderr, "qview: bad --views '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--threads")) {
            NEED(1);
            threads = atoi(argv[++i]);
        } else if (!strcmp(a, "--mode")) {
            NEED(1);
            mode = parse_mode(argv[++i]);
            if (mode < 0) {
                fprintf(stderr, "qview: unknown mode '%s' (lit, lightmap, flat, clusters)\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--wire")) {
            wire = true;
        } else if (!strcmp(a, "--no-pvs")) {
            no_pvs = true;
        } else if (!strcmp(a, "--check-cracks")) {
            check = true;
        } else if (!strcmp(a, "--compare")) {
            compare = true;
        } else if (!strcmp(a, "--bench")) {
            bench = true;
        } else if (!strcmp(a, "--game")) {
            NEED(1);
            game = argv[++i];
        } else if (!strcmp(a, "--pts")) {
            NEED(1);
            pts = argv[++i];
        } else if (!strcmp(a, "--prt")) {
            NEED(1);
            prtf = argv[++i];
        } else if (!strcmp(a, "--overlay")) {
            NEED(1);
            overlay = argv[++i];
        } else if (!strcmp(a, "--skip-face")) {
            NEED(1);
            skip_face = atoi(argv[++i]);
        } else if (!strcmp(a, "--max-mae")) {
            NEED(1);
            max_mae = atof(argv[++i]);
        } else if (!strcmp(a, "-q")) {
            level = LOG_QUIET;
        } else if (!strcmp(a, "-v")) {
            level = LOG_VERBOSE;
        } else if (a[0] == '-') {
            fprintf(stderr, "qview: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (!map) {
            map = a;
        } else {
            fprintf(stderr, "qview: more than one map given ('%s' and '%s')\n", map, a);
            return 2;
        }
#undef NEED
    }
    if (!map) {
        usage(stderr);
        return 2;
    }
    if ((render_on_change || max_compiles || watch_poll) && !watch) {
        fprintf(stderr, "qview: --render-on-change, --max-compiles and --watch-poll go with --watch\n");
        return 2;
    }
    threads = threads_resolve(threads);
    log_t log;
    log_init(&log, level, stdout, stderr);
    q2err_t err;
    q2err_clear(&err);
    if (watch) {
        int wrc = watch_main(map, copts, ncopts, watch_final, watch_poll, render_on_change, max_compiles, game,
                             renderer, width, height, threads, mode, wire, no_pvs, have_cam ? &cam : NULL, shot_dir,
                             &log);
        return wrc;
    }

    double t0 = time_now();
    vfs_t *vfs = NULL;
    if (game) {
        vfs = vfs_create();
        if (!vfs_add_gamedir(vfs, game, &err)) {
            fprintf(stderr, "qview: %s\n", err.msg);
            vfs_free(vfs);
            return 1;
        }
    }
    texdb_t *db = vfs ? texdb_create(vfs, &log) : NULL;
    world_t world;
    if (!world_load(&world, map, db, &log, &err)) {
        fprintf(stderr, "qview: %s\n", err.msg);
        texdb_free(db);
        vfs_free(vfs);
        return 1;
    }
    double load_s = time_now() - t0;
    if (world.unlit) fprintf(stderr, "qview: %s: no lighting data (an unlit bsp): drawn fullbright\n", map);
    log_verbose(&log, "%s: %d faces, %d textures (%d found), %d lit faces, %d clusters, loaded in %.3f s", map,
                world.numfaces, world.numtextures, world.numtextured, world.numlitfaces, world.numclusters, load_s);

    overlays_t ov;
    memset(&ov, 0, sizeof ov);
    int rc = 0;
    if (pts && !overlays_load_pointfile(&ov, pts, &err)) {
        fprintf(stderr, "qview: %s\n", err.msg);
        rc = 1;
        goto done;
    }
    if (prtf && !overlays_load_prt(&ov, prtf, &err)) {
        fprintf(stderr, "qview: %s\n", err.msg);
        rc = 1;
        goto done;
    }
    if (overlay && !bspx_overlay_load(&ov, &world, overlay, &err)) {
        fprintf(stderr, "qview: %s: %s\n", map, err.msg);
        rc = 1;
        goto done;
    }

    render_opts_t ropts;
    render_opts_default(&ropts);
    ropts.mode = mode;
    ropts.wireframe = wire;
    ropts.no_pvs = no_pvs;
    ropts.skip_face = skip_face;

    if (list_textures) {
        for (int i = 0; i < world.numtextures; i++)
            printf("%s %s\n", world.textures[i].name, world.textures[i].found ? "found" : "flat");
        goto done;
    }
    bool headless = render_out || out_dir || check || compare || bench || face_at_center;
    if (!headless) {
        /* The window picks up the compiler's leak pointfile and portal file
         * beside the map (K and P toggle them). */
        char side[Q2_PATH_MAX];
        q2err_t e2;
        if (!pts && path_replace_ext(side, sizeof side, map, ".pts") && file_exists(side) &&
            !overlays_load_pointfile(&ov, side, &e2))
            log_warn(&log, "%s", e2.msg);
        if (!prtf && path_replace_ext(side, sizeof side, map, ".prt") && file_exists(side) &&
            !overlays_load_prt(&ov, side, &e2))
            log_warn(&log, "%s", e2.msg);
        window_opts_t wo;
        memset(&wo, 0, sizeof wo);
        wo.width = width;
        wo.height = height;
        wo.threads = threads;
        wo.renderer = renderer;
        wo.shot_dir = shot_dir;
        wo.render = ropts;
        wo.start = have_cam ? &cam : NULL;
        wo.overlays = &ov;
        wo.log = &log;
        if (!window_run(&world, &wo, &err)) {
            fprintf(stderr, "qview: %s\n", err.msg);
            rc = 1;
        }
        goto done;
    }

    /* The cameras: the one given, or N deterministic ones. */
    int ncams = 0;
    camera_t *cams = NULL;
    if (have_cam && !views_given) {
        cams = q2_malloc(sizeof *cams);
        cams[0] = cam;
        ncams = 1;
    } else {
        int n = render_out && !views_given ? 1 : views;
        cams = q2_malloc(sizeof *cams * n);
        ncams = cameras_generate(&world, n, cams);
        if (ncams == 0) {
            fprintf(stderr, "qview: %s: no empty leaf to place a camera in\n", map);
            free(cams);
            rc = 1;
            goto done;
        }
    }

    if (face_at_center) {
        int f = face_at_pixel(&world, &cams[0], width, height, width / 2, height / 2);
        printf("face at centre of view 0: %d\n", f);
        if (f < 0) rc = 1;
    }
    if (check) {
        long *counts = q2_calloc(ncams, sizeof(long));
        key_pixel_t kp[8];
        int nkp = 0;
        if (!check_cracks_locate(&world, ref_by_name(renderer), cams, ncams, width, height, threads, skip_face, counts,
                                 kp, 8, &nkp, &err)) {
            fprintf(stderr, "qview: %s\n", err.msg);
            rc = 1;
        } else {
            long total = 0;
            int bad = 0;
            for (int i = 0; i < ncams; i++) {
                printf("view %d: camera %.1f %.1f %.1f %.0f %.0f: %ld key pixels\n", i, cams[i].origin[0],
                       cams[i].origin[1], cams[i].origin[2], cams[i].yaw, cams[i].pitch, counts[i]);
                total += counts[i];
                bad += counts[i] > 0;
            }
            /* Where the first key pixels are, and the faces drawn beside
             * each (left, right, above, below): the edges of the gap. */
            for (int k = 0; k < nkp; k++) {
                const camera_t *c = &cams[kp[k].view];
                int nb[4];
                static const int d[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
                for (int j = 0; j < 4; j++)
                    nb[j] = face_at_pixel(&world, c, width, height, kp[k].x + d[j][0], kp[k].y + d[j][1]);
                printf("key pixel: view %d at (%d, %d), faces beside it %d %d %d %d\n", kp[k].view, kp[k].x, kp[k].y,
                       nb[0], nb[1], nb[2], nb[3]);
            }
            printf("crack check: %s: %d views, %d with key pixels, %ld key pixels in all\n", map, ncams, bad, total);
            if (total > 0) rc = 1;
        }
        free(counts);
    }
    if (compare && rc == 0) {
        double *mae = q2_calloc(ncams, sizeof(double));
        if (!compare_renderers(&world, cams, ncams, width, height, threads, mae, &err)) {
            fprintf(stderr, "qview: gl unavailable: %s\n", err.msg);
            rc = 3;
        } else {
            double worst = 0;
            for (int i = 0; i < ncams; i++) {
                printf("view %d: mean absolute error %.3f/255\n", i, mae[i]);
                if (mae[i] > worst) worst = mae[i];
            }
            printf("compare: %s: %d views, worst mean absolute error %.3f/255 (bound %.3f)\n", map, ncams, worst,
                   max_mae);
            if (worst >= max_mae) rc = 1;
        }
        free(mae);
    }
    if ((render_out || out_dir) && rc == 0) {
        const refexport_t *ref = ref_by_name(renderer);
        void *st = NULL;
        if (!ref->init(&st, &world, width, height, threads, &err)) {
            fprintf(stderr, "qview: %s renderer: %s\n", renderer, err.msg);
            rc = 1;
        } else {
            uint8_t *img = q2_malloc((size_t)width * height * 4);
            if (out_dir) os_make_dir(out_dir);
            for (int i = 0; i < ncams && rc == 0; i++) {
                render_stats_t stats;
                ref->begin_frame(st, &ropts);
                ref->draw_world(st, &cams[i], &stats);
                if (ov.numleak) ref->draw_lines(st, &cams[i], ov.leak, ov.numleak);
                if (ov.numportals) ref->draw_lines(st, &cams[i], ov.portals, ov.numportals);
                if (ov.numbspx) ref->draw_lines(st, &cams[i], ov.bspx, ov.numbspx);
                ref->end_frame(st);
                ref->read_pixels(st, img);
                char path[Q2_PATH_MAX];
                if (out_dir)
                    snprintf(path, sizeof path, "%s/view_%03d.png", out_dir, i);
                else
                    snprintf(path, sizeof path, "%s", render_out);
                image_t im = {width, height, img, false};
                if (!png_write_file(path, &im, &err)) {
                    fprintf(stderr, "qview: %s\n", err.msg);
                    rc = 1;
                    break;
                }
                printf("%s\n", path);
                log_verbose(&log, "view %d: %d faces, %d clusters visible, %.2f ms", i, stats.faces_drawn,
                            stats.clusters_visible, stats.ms);
                if (render_out) break;
            }
            free(img);
            ref->shutdown(st);
        }
    }
    if (bench && rc == 0) {
        void *st = NULL;
        const refexport_t *ref = ref_by_name(renderer);
        if (!ref->init(&st, &world, width, height, threads, &err)) {
            fprintf(stderr, "qview: %s\n", err.msg);
            rc = 1;
        } else {
            double *ms = q2_malloc(sizeof(double) * ncams);
            uint8_t *img = q2_malloc((size_t)width * height * 4);
            /* One warm-up frame so that page faults of the first frame do not
             * count. */
            render_view(ref, st, &cams[0], &ropts, NULL, img);
            long faces = 0;
            double cpu0 = os_cpu_process_s();
            for (int i = 0; i < ncams; i++) {
                double a = time_now();
                render_stats_t stats;
                ref->begin_frame(st, &ropts);
                ref->draw_world(st, &cams[i], &stats);
                ref->end_frame(st);
                ms[i] = (time_now() - a) * 1000.0;
                faces += stats.faces_drawn;
            }
            /* CPU time of all threads per view: on a busy machine the wall
             * time says more about the other processes than about qview. */
            double cpu = os_cpu_process_s() - cpu0;
            qsort(ms, ncams, sizeof *ms, cmp_double);
            printf("bench: %s: load %.3f s; %s %dx%d, %d threads, %d views: median %.2f ms, min %.2f, max %.2f, "
                   "%.0f faces per view, %.2f ms CPU per view\n",
                   map, load_s, ref->name, width, height, threads, ncams, ms[ncams / 2], ms[0], ms[ncams - 1],
                   (double)faces / ncams, cpu * 1000.0 / ncams);
            free(ms);
            free(img);
            ref->shutdown(st);
        }
    }
    free(cams);
done:
    overlays_free(&ov);
    world_free(&world);
    texdb_free(db);
    vfs_free(vfs);
    return rc;
}
