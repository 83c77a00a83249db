/* q2map: one command for the whole compile.
 *
 *   q2map compile MAP.map [options]   qbsp, qvis, qrad as child processes
 *   q2map info MAP.map|MAP.bsp        summary of a map (or bspinfo for a bsp)
 *
 * The three compilers stay the primary interface; this only sequences them,
 * so it never links their code. Children are started with os_run_piped (no
 * shell: paths with spaces or quotes from editors pass through untouched)
 * and their output is copied both to our own streams and to one log file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/os.h"
#include "../common/version.h"
#include "fileio.h"
#include "jsonw.h"
#include "log.h"
#include "mapfile.h"
#include "q2defs.h"
#include "timer.h"

#define MAX_ARGS 128
#define MAX_EXTRA 32

typedef enum preset_t { PRESET_NORMAL, PRESET_FAST, PRESET_FINAL } preset_t;

typedef struct compile_opts_t {
    const char *map;
    const char *out_bsp;  /* -o; NULL means MAP.bsp beside the map */
    const char *log_path; /* -log; NULL means MAP.log */
    const char *json_path;
    const char *threads;
    const char *basedir, *gamedir;
    preset_t preset;
    bool verbose, quiet, leaktest, novis, norad;
    const char *extra[3][MAX_EXTRA]; /* -qbsp/-qvis/-qrad ARG, per stage */
    int nextra[3];
    /* -mpi "ARGS": qvis and qrad run as `mpirun ARGS TOOL ...`; the words
     * of ARGS split at spaces into mpibuf */
    char mpibuf[1024];
    const char *mpiv[MAX_EXTRA];
    int nmpi;
} compile_opts_t;

typedef struct stage_result_t {
    const char *name;
    bool ran;
    bool skipped;
    int status; /* exit status, or 128+signal */
    double seconds;
} stage_result_t;

typedef struct argv_t {
    const char *v[MAX_ARGS + 1];
    int n;
} argv_t;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: q2map compile MAP.map [options]\n"
            "       q2map info MAP.map|MAP.bsp\n"
            "       q2map -help | -version\n"
            "\n"
            "compile runs qbsp, qvis and qrad (found beside q2map, else on PATH) with one\n"
            "log (MAP.log) and a table of stage timings; the exit status is the first\n"
            "failing stage's.\n"
            "  -fast            quick iteration: qvis -fast, qrad -bounce 0\n"
            "  -final           release quality: full vis, qrad -bounce 8 -extra\n"
            "  -threads N       passed to every stage (0 = all cores)\n"
            "  -v, -quiet       passed to every stage\n"
            "  -basedir DIR     passed to qbsp and qrad\n"
            "  -gamedir DIR     passed to qbsp and qrad\n"
            "  -leaktest        passed to qbsp: a leak stops the compile\n"
            "  -novis, -norad   skip qvis or qrad\n"
            "  -o OUT.bsp       output bsp (default: MAP.bsp beside the map)\n"
            "  -log FILE        log file (default: MAP.log beside the map)\n"
            "  -json FILE       stage timings and exit statuses as JSON\n"
            "  -qbsp ARG, -qvis ARG, -qrad ARG\n"
            "                   pass one more argument to that stage (repeatable)\n"
            "  -mpi \"ARGS\"      run qvis and qrad under mpirun ARGS (words split at spaces),\n"
            "                   e.g. -mpi \"-np 8 --hostfile hosts\"; see docs/distributed.md\n");
}

static bool argv_push(argv_t *a, const char *s)
{
    if (a->n >= MAX_ARGS)
        return false;
    a->v[a->n++] = s;
    a->v[a->n] = NULL;
    return true;
}

/* Looks for a program beside our own executable so an installed or built
 * tree uses its own compilers, not whatever is first on PATH. */
static void find_tool(char *out, size_t outsz, const char *name)
{
    char dir[Q2_PATH_MAX], file[Q2_PATH_MAX];
    snprintf(file, sizeof file, "%s%s", name, os_exe_suffix());
    if (os_self_dir(dir, sizeof dir) && path_join(out, outsz, dir, file) && os_is_executable(out))
        return;
    snprintf(out, outsz, "%s", name); /* os_run_piped searches PATH */
}

/* Copies one chunk of child output to our stream and to the log file. */
static void tee_chunk(void *ctx, int stream, const char *buf, size_t n)
{
    log_t *log = ctx;
    FILE *f = stream == 2 ? stderr : stdout;
    fwrite(buf, 1, n, f);
    fflush(f);
    if (log->file) {
        fwrite(buf, 1, n, log->file);
        fflush(log->file);
    }
}

/* Runs argv, teeing stdout and stderr; returns the exit status (see
 * os_run_piped) or -1 when the program could not be started. */
static int run_child(const argv_t *a, log_t *log)
{
    q2err_t err;
    int st = os_run_piped(a->v, tee_chunk, log, &err);
    if (st < 0) log_error(log, "q2map: %s", err.msg);
    return st;
}

static void add_common(argv_t *a, const compile_opts_t *o)
{
    if (o->threads) {
        argv_push(a, "-threads");
        argv_push(a, o->threads);
    }
    if (o->verbose)
        argv_push(a, "-v");
    if (o->quiet)
        argv_push(a, "-quiet");
}

static void add_gamedirs(argv_t *a, const compile_opts_t *o)
{
    if (o->basedir) {
        argv_push(a, "-basedir");
        argv_push(a, o->basedir);
    }
    if (o->gamedir) {
        argv_push(a, "-gamedir");
        argv_push(a, o->gamedir);
    }
}

static void log_command(log_t *log, const argv_t *a)
{
    char line[4096];
    size_t used = 0;
    line[0] = '\0';
    for (int i = 0; i < a->n && used < sizeof(line); i++) {
        int w = snprintf(line + used, sizeof(line) - used, "%s%s", i ? " " : "", a->v[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    log_info(log, "==> %s", line);
}

static bool write_json(const char *path, const compile_opts_t *o, const stage_result_t *st, int nst,
                       double total, int status, q2err_t *err)
{
    atomic_file_t af;
    if (!atomic_open(&af, path, err))
        return false;
    jsonw_t w;
    jsonw_init(&w, af.f);
    jsonw_object_begin(&w, NULL);
    jsonw_string(&w, "map", o->map);
    jsonw_string(&w, "preset", o->preset == PRESET_FAST ? "fast" : o->preset == PRESET_FINAL ? "final" : "normal");
    jsonw_array_begin(&w, "stages");
    for (int i = 0; i < nst; i++) {
        jsonw_object_begin(&w, NULL);
        jsonw_string(&w, "name", st[i].name);
        jsonw_bool(&w, "ran", st[i].ran);
        jsonw_bool(&w, "skipped", st[i].skipped);
        jsonw_int(&w, "status", st[i].status);
        jsonw_double(&w, "seconds", st[i].seconds);
        jsonw_object_end(&w);
    }
    jsonw_array_end(&w);
    jsonw_double(&w, "total_seconds", total);
    jsonw_int(&w, "status", status);
    jsonw_object_end(&w);
    fputc('\n', af.f);
    return atomic_commit(&af, err);
}

static int parse_compile_args(int argc, char **argv, compile_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        /* Accept both -opt and --opt, as the tools do. */
        const char *opt = (a[0] == '-' && a[1] == '-') ? a + 1 : a;
        bool has_next = i + 1 < argc;
#define NEXT_ARG(dst)                                                      \
    do {                                                                   \
        if (!has_next) {                                                   \
            fprintf(stderr, "q2map: %s needs an argument\n", a);           \
            return 2;                                                      \
        }                                                                  \
        (dst) = argv[++i];                                                 \
    } while (0)
        if (!strcmp(opt, "-fast")) {
            o->preset = PRESET_FAST;
        } else if (!strcmp(opt, "-final")) {
            o->preset = PRESET_FINAL;
        } else if (!strcmp(opt, "-threads")) {
            NEXT_ARG(o->threads);
            char *end;
            long n = strtol(o->threads, &end, 10);
            if (*o->threads == '\0' || *end != '\0' || n < 0 || n > 1024) {
                fprintf(stderr, "q2map: -threads wants a number from 0 to 1024, not '%s'\n", o->threads);
                return 2;
            }
        } else if (!strcmp(opt, "-v") || !strcmp(opt, "-verbose")) {
            o->verbose = true;
        } else if (!strcmp(opt, "-quiet")) {
            o->quiet = true;
        } else if (!strcmp(opt, "-basedir")) {
            NEXT_ARG(o->basedir);
        } else if (!strcmp(opt, "-gamedir")) {
            NEXT_ARG(o->gamedir);
        } else if (!strcmp(opt, "-leaktest")) {
            o->leaktest = true;
        } else if (!strcmp(opt, "-novis")) {
            o->novis = true;
        } else if (!strcmp(opt, "-norad")) {
            o->norad = true;
        } else if (!strcmp(opt, "-o")) {
            NEXT_ARG(o->out_bsp);
        } else if (!strcmp(opt, "-log")) {
            NEXT_ARG(o->log_path);
        } else if (!strcmp(opt, "-json")) {
            NEXT_ARG(o->json_path);
        } else if (!strcmp(opt, "-mpi")) {
            const char *m;
            NEXT_ARG(m);
            if (strlen(m) >= sizeof(o->mpibuf)) {
                fprintf(stderr, "q2map: -mpi arguments too long\n");
                return 2;
            }
            snprintf(o->mpibuf, sizeof(o->mpibuf), "%s", m);
            o->nmpi = 0;
            for (char *save = NULL, *w = strtok_r(o->mpibuf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                if (o->nmpi >= MAX_EXTRA) {
                    fprintf(stderr, "q2map: too many -mpi arguments\n");
                    return 2;
                }
                o->mpiv[o->nmpi++] = w;
            }
        } else if (!strcmp(opt, "-qbsp") || !strcmp(opt, "-qvis") || !strcmp(opt, "-qrad")) {
            int s = opt[2] == 'b' ? 0 : opt[2] == 'v' ? 1 : 2;
            if (o->nextra[s] >= MAX_EXTRA) {
                fprintf(stderr, "q2map: too many %s arguments\n", a);
                return 2;
            }
            NEXT_ARG(o->extra[s][o->nextra[s]]);
            o->nextra[s]++;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "q2map: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (!o->map) {
            o->map = a;
        } else {
            fprintf(stderr, "q2map: more than one map given ('%s' and '%s')\n", o->map, a);
            return 2;
        }
#undef NEXT_ARG
    }
    if (!o->map) {
        fprintf(stderr, "q2map: compile needs a .map file\n");
        usage(stderr);
        return 2;
    }
    return 0;
}

static int cmd_compile(int argc, char **argv)
{
    compile_opts_t o;
    int rc = parse_compile_args(argc, argv, &o);
    if (rc)
        return rc;

    if (!os_is_file(o.map)) {
        os_stamp_t st;
        fprintf(stderr, "q2map: %s: %s\n", o.map, os_file_stamp(o.map, &st) ? "not a regular file" : "no such file");
        return 1;
    }

    char bsp[Q2_PATH_MAX], prt[Q2_PATH_MAX], logpath[Q2_PATH_MAX];
    if (o.out_bsp)
        snprintf(bsp, sizeof(bsp), "%s", o.out_bsp);
    else if (!path_replace_ext(bsp, sizeof(bsp), o.map, ".bsp"))
        return fprintf(stderr, "q2map: path too long: %s\n", o.map), 1;
    if (!path_replace_ext(prt, sizeof(prt), bsp, ".prt"))
        return fprintf(stderr, "q2map: path too long: %s\n", bsp), 1;
    if (o.log_path)
        snprintf(logpath, sizeof(logpath), "%s", o.log_path);
    else if (!path_replace_ext(logpath, sizeof(logpath), o.map, ".log"))
        return fprintf(stderr, "q2map: path too long: %s\n", o.map), 1;

    log_t log;
    log_init(&log, o.quiet ? LOG_QUIET : o.verbose ? LOG_VERBOSE : LOG_NORMAL, stdout, stderr);
    q2err_t err;
    if (!log_open_file(&log, logpath, &err)) {
        fprintf(stderr, "q2map: %s\n", err.msg);
        return 1;
    }
    log_info(&log, "q2map %s: compiling %s (%s preset), log %s", q2map_version_long(), o.map,
             o.preset == PRESET_FAST ? "fast" : o.preset == PRESET_FINAL ? "final" : "normal", logpath);

    /* A stale .prt from an earlier compile would let qvis run on portals
     * that do not match a leaked bsp; qbsp rewrites it when the map seals. */
    bool prt_before = file_exists(prt);
    os_stamp_t prt_stamp0;
    if (prt_before && !os_file_stamp(prt, &prt_stamp0))
        prt_before = false;

    char tool[3][Q2_PATH_MAX];
    static const char *const names[3] = {"qbsp", "qvis", "qrad"};
    for (int s = 0; s < 3; s++)
        find_tool(tool[s], sizeof(tool[s]), names[s]);

    stage_result_t res[3] = {{.name = "qbsp"}, {.name = "qvis"}, {.name = "qrad"}};
    int final_status = 0;
    double t_start = time_now();

    for (int s = 0; s < 3 && final_status == 0; s++) {
        argv_t a = {.n = 0};
        if (s > 0 && o.nmpi > 0) {
            const char *mpirun = getenv("Q2MAP_MPIRUN");
            argv_push(&a, mpirun && *mpirun ? mpirun : "mpirun");
            for (int k = 0; k < o.nmpi; k++)
                argv_push(&a, o.mpiv[k]);
        }
        argv_push(&a, tool[s]);
        add_common(&a, &o);
        if (s == 0) {
            add_gamedirs(&a, &o);
            if (o.leaktest)
                argv_push(&a, "-leaktest");
        } else if (s == 1) {
            if (o.novis) {
                res[s].skipped = true;
                log_info(&log, "==> qvis skipped (-novis)");
                continue;
            }
            os_stamp_t now;
            bool fresh = os_file_stamp(prt, &now) && (!prt_before || !os_stamp_equal(&now, &prt_stamp0));
            if (!fresh) {
                res[s].skipped = true;
                log_warn(&log, "q2map: qbsp wrote no new %s (the map leaks?): skipping qvis; "
                               "the map will have no visibility data", prt);
                continue;
            }
            if (o.preset == PRESET_FAST)
                argv_push(&a, "-fast");
        } else {
            if (o.norad) {
                res[s].skipped = true;
                log_info(&log, "==> qrad skipped (-norad)");
                continue;
            }
            add_gamedirs(&a, &o);
            if (o.preset == PRESET_FAST) {
                argv_push(&a, "-bounce");
                argv_push(&a, "0");
            } else if (o.preset == PRESET_FINAL) {
                argv_push(&a, "-bounce");
                argv_push(&a, "8");
                argv_push(&a, "-extra");
            }
        }
        for (int e = 0; e < o.nextra[s]; e++)
            argv_push(&a, o.extra[s][e]);
        if (s == 0) {
            argv_push(&a, o.map);
            if (o.out_bsp)
                argv_push(&a, o.out_bsp);
        } else {
            argv_push(&a, bsp);
        }
        if (a.n >= MAX_ARGS) {
            log_error(&log, "q2map: too many arguments for %s", names[s]);
            final_status = 2;
            break;
        }
        log_command(&log, &a);
        double t0 = time_now();
        int st = run_child(&a, &log);
        res[s].seconds = time_now() - t0;
        res[s].ran = true;
        res[s].status = st < 0 ? 127 : st;
        if (st != 0) {
            char how[64];
            os_status_text(res[s].status, how, sizeof how);
            log_error(&log, "q2map: %s failed (%s)", names[s], how);
            final_status = res[s].status;
        }
    }
    double total = time_now() - t_start;

    log_info(&log, "%-6s %8s  %s", "stage", "seconds", "result");
    for (int s = 0; s < 3; s++) {
        char result[64];
        if (res[s].ran)
            snprintf(result, sizeof(result), res[s].status == 0 ? "ok" : "FAILED (%d)", res[s].status);
        else
            snprintf(result, sizeof(result), "%s", res[s].skipped ? "skipped" : "not run");
        if (res[s].ran)
            log_info(&log, "%-6s %8.2f  %s", res[s].name, res[s].seconds, result);
        else
            log_info(&log, "%-6s %8s  %s", res[s].name, "-", result);
    }
    log_info(&log, "%-6s %8.2f  %s", "total", total, final_status == 0 ? bsp : "FAILED");

    if (o.json_path && !write_json(o.json_path, &o, res, 3, total, final_status, &err)) {
        log_error(&log, "q2map: %s", err.msg);
        if (final_status == 0)
            final_status = 1;
    }
    log_close(&log);
    return final_status;
}

static int cmd_info(int argc, char **argv)
{
    if (argc != 1) {
        fprintf(stderr, "usage: q2map info MAP.map|MAP.bsp\n");
        return 2;
    }
    const char *path = argv[0];
    size_t len = strlen(path);
    if (len > 4 && !strcmp(path + len - 4, ".bsp")) {
        char tool[Q2_PATH_MAX];
        find_tool(tool, sizeof(tool), "bspinfo");
        argv_t a = {.n = 0};
        argv_push(&a, tool);
        argv_push(&a, path);
        log_t log;
        log_init(&log, LOG_NORMAL, stdout, stderr);
        int st = run_child(&a, &log);
        return st < 0 ? 127 : st;
    }

    map_t map;
    q2err_t err;
    if (!map_read_file(path, &map, &err)) {
        fprintf(stderr, "q2map: %s\n", err.msg);
        return 1;
    }
    int brushes = 0, sides = 0, world_brushes = 0, brush_ents = 0;
    int detail = 0, water = 0, window = 0, sky = 0, trans = 0, lights = 0;
    /* Classnames and textures, counted with small linear tables: maps have
     * tens of classnames and a few hundred textures. */
    enum { MAX_NAMES = 512 };
    const char *cls[MAX_NAMES];
    int clsn[MAX_NAMES], ncls = 0;
    const char *tex[MAX_NAMES];
    int ntex = 0;
    bool tex_overflow = false;
    for (int e = 0; e < map.numentities; e++) {
        const map_entity_t *me = &map.entities[e];
        const char *cn = entity_classname(&me->ent);
        int k;
        for (k = 0; k < ncls; k++)
            if (!strcmp(cls[k], cn))
                break;
        if (k == ncls && ncls < MAX_NAMES) {
            cls[ncls] = cn;
            clsn[ncls++] = 0;
        }
        if (k < ncls)
            clsn[k]++;
        if (!strncmp(cn, "light", 5))
            lights++;
        brushes += me->numbrushes;
        if (e == 0)
            world_brushes = me->numbrushes;
        else if (me->numbrushes > 0)
            brush_ents++;
        for (int b = 0; b < me->numbrushes; b++) {
            const map_brush_t *mb = &me->brushes[b];
            int bc = 0, bf = 0;
            sides += mb->numsides;
            for (int s = 0; s < mb->numsides; s++) {
                const map_side_t *sd = &mb->sides[s];
                bc |= sd->contents;
                bf |= sd->flags;
                int t;
                for (t = 0; t < ntex; t++)
                    if (!strcmp(tex[t], sd->texture))
                        break;
                if (t == ntex) {
                    if (ntex < MAX_NAMES)
                        tex[ntex++] = sd->texture;
                    else
                        tex_overflow = true;
                }
            }
            detail += (bc & CONTENTS_DETAIL) != 0;
            water += (bc & MASK_LIQUID) != 0;
            window += (bc & CONTENTS_WINDOW) != 0;
            sky += (bf & SURF_SKY) != 0;
            trans += (bf & (SURF_TRANS33 | SURF_TRANS66)) != 0;
        }
    }
    printf("%s: %s format\n", path, map.valve220 ? "Valve 220" : "Quake 2 standard");
    printf("  entities      %d (%d with brushes, %d lights)\n", map.numentities, brush_ents, lights);
    printf("  brushes       %d (%d in worldspawn)\n", brushes, world_brushes);
    printf("  brush sides   %d\n", sides);
    printf("  textures      %d%s\n", ntex, tex_overflow ? "+" : "");
    printf("  detail        %d brushes\n", detail);
    printf("  liquid        %d brushes\n", water);
    printf("  window        %d brushes\n", window);
    printf("  translucent   %d brushes\n", trans);
    printf("  sky           %d brushes\n", sky);
    printf("  classnames:\n");
    for (int k = 0; k < ncls; k++)
        printf("    %5d %s\n", clsn[k], cls[k][0] ? cls[k] : "(none)");
    map_free(&map);
    return 0;
}

int main(int argc, char **argv)
{
    os_main_init(&argc, &argv);
    /* A child dying on a closed pipe must not take us with it. */
    os_ignore_broken_pipe();
    /* Our own lines and the children's output share the streams; line
     * buffering keeps them in order when stdout is a pipe (editors, make). */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "-version") || !strcmp(cmd, "--version")) {
        printf("q2map %s\n", q2map_version_long());
        return 0;
    }
    if (!strcmp(cmd, "compile"))
        return cmd_compile(argc - 2, argv + 2);
    if (!strcmp(cmd, "info"))
        return cmd_info(argc - 2, argv + 2);
    fprintf(stderr, "q2map: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
