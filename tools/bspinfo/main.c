/* bspinfo: statistics and structural checks for Quake 2 .bsp files.
 *
 *   bspinfo [--json] [--check [--strict]] FILE.bsp...
 *
 * Exit status: 0 when every file was read (and, with --check, is valid);
 * 1 when a file could not be read or has problems; 2 on usage errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/os.h"
#include "../common/version.h"
#include "../../common/jsonw.h"
#include "../../common/fileio.h"
#include "../../formats/bspcheck.h"
#include "../../formats/bspx.h"
#include "../../formats/engineaccept.h"
#include "../../formats/groupkeys.h"
#include "../../formats/bspfile.h"
#include "../../formats/enginelimits.h"
#include "../../formats/entities.h"

/* Problems printed per file; the rest are counted. Enough to see a pattern,
 * few enough that a badly broken file does not flood the terminal. */
#define MAX_REPORTED_PROBLEMS 100

static void usage(FILE *f)
{
    fprintf(f, "usage: bspinfo [--json] [--check [--strict]] FILE.bsp...\n"
               "Prints lump counts, models, clusters, areas, visibility and lighting statistics\n"
               "of Quake 2 .bsp files (IBSP version 38 or the extended QBSP format).\n"
               "  --json     machine-readable output (one object with a \"files\" array)\n"
               "  --check    validate structure; print one line per problem; warn (stderr)\n"
               "             about limits the engines enforce and the format does not\n"
               "  --strict   with --check, engine-limit and engine-rule warnings are problems too\n"
               "  -h, --help print this help\n"
               "  --version  print the version\n"
               "Exit status: 0 valid, 1 unreadable or invalid file, 2 usage error.\n");
}

typedef struct problems_t {
    char **lines;
    int count, cap;
} problems_t;

static void collect_problem(void *ctx, const char *problem)
{
    problems_t *p = ctx;
    if (p->count == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 16;
        p->lines = realloc(p->lines, sizeof *p->lines * (size_t)p->cap);
        if (!p->lines) {
            fprintf(stderr, "bspinfo: out of memory\n");
            exit(1);
        }
    }
    p->lines[p->count] = strdup(problem);
    if (!p->lines[p->count]) {
        fprintf(stderr, "bspinfo: out of memory\n");
        exit(1);
    }
    p->count++;
}

/* Engine findings: warnings to one list, notes to the notes. */
typedef struct engine_ctx_t {
    problems_t *warnings, *notes;
} engine_ctx_t;

static void collect_engine(void *ctx, engaccept_kind_t kind, const char *line)
{
    engine_ctx_t *e = ctx;
    collect_problem(kind == ENGACCEPT_WARNING ? e->warnings : e->notes, line);
}

static void problems_free(problems_t *p)
{
    for (int i = 0; i < p->count; i++) free(p->lines[i]);
    free(p->lines);
    memset(p, 0, sizeof *p);
}

static void lump_counts(const bsp_t *b, long long counts[HEADER_LUMPS], long long bytes[HEADER_LUMPS])
{
    long long c[HEADER_LUMPS] = {
        [LUMP_ENTITIES] = b->entities_size,   [LUMP_PLANES] = b->numplanes,
        [LUMP_VERTEXES] = b->numvertexes,     [LUMP_VISIBILITY] = b->visdatasize,
        [LUMP_NODES] = b->numnodes,           [LUMP_TEXINFO] = b->numtexinfo,
        [LUMP_FACES] = b->numfaces,           [LUMP_LIGHTING] = b->lightdatasize,
        [LUMP_LEAFS] = b->numleafs,           [LUMP_LEAFFACES] = b->numleaffaces,
        [LUMP_LEAFBRUSHES] = b->numleafbrushes, [LUMP_EDGES] = b->numedges,
        [LUMP_SURFEDGES] = b->numsurfedges,   [LUMP_MODELS] = b->nummodels,
        [LUMP_BRUSHES] = b->numbrushes,       [LUMP_BRUSHSIDES] = b->numbrushsides,
        [LUMP_POP] = b->popsize,              [LUMP_AREAS] = b->numareas,
        [LUMP_AREAPORTALS] = b->numareaportals,
    };
    for (int l = 0; l < HEADER_LUMPS; l++) {
        counts[l] = c[l];
        bytes[l] = c[l] * bsp_record_size(b->format, l);
    }
}

static int count_entities(const bsp_t *b)
{
    entity_list_t list;
    q2err_t err;
    if (!entities_parse(b->entities, "entities", &list, &err)) return -1;
    int n = list.count;
    entities_free(&list);
    return n;
}

/* What stage a bsp stands at, in the words bspinfo --check prints. */
static const char *bsp_state_words(const bsp_t *b)
{
    if (bsp_is_unvised(b) && bsp_is_unlit(b)) return "unvised, unlit (as a qbsp writes it)";
    if (bsp_is_unvised(b)) return "unvised (no visibility lump: engines draw every cluster)";
    if (bsp_is_unlit(b)) return "unlit (no lighting lump: engines draw it fullbright)";
    return "vised and lit";
}

/* Where qrad finds the func_group lighting keys of this bsp: the side file
 * beside it (formats/groupkeys.h), or the lump of an earlier q2map. */
static void print_group_keys(const char *path, const bsp_t *b)
{
    char side[Q2_PATH_MAX];
    if (path_replace_ext(side, sizeof side, path, GROUPKEYS_EXT) && file_exists(side)) {
        uint8_t *d = NULL;
        size_t n = 0;
        groupkeys_t g;
        q2err_t err;
        if (file_read_all(side, BSP_MAX_FILE_SIZE, &d, &n, &err) && groupkeys_file_decode(d, n, b, side, &g, &err)) {
            printf("  group keys: %s, %d keysets (func_group lighting keys qrad reads)\n", side, g.sets.count);
            groupkeys_lump_free(&g);
        } else {
            printf("  group keys: %s does not belong to this bsp: %s\n", side, err.msg);
        }
        free(d);
    }
    if (bspx_has_lump(b, GROUPKEYS_LUMP))
        printf("  group keys: in the Q2MAP_GROUPKEYS lump of an earlier q2map; qrad moves them to %s\n",
               GROUPKEYS_EXT);
}

static void print_text(const char *path, const bsp_t *b, const bsp_stats_t *st)
{
    long long counts[HEADER_LUMPS], bytes[HEADER_LUMPS];
    lump_counts(b, counts, bytes);
    printf("%s\n", path);
    printf("  format:     %s\n", b->format == BSP_FORMAT_QBSP ? "QBSP (extended limits), version 38" : "IBSP version 38");
    printf("  %-12s %10s %10s\n", "lump", "count", "bytes");
    for (int l = 0; l < HEADER_LUMPS; l++)
        printf("  %-12s %10lld %10lld\n", bsp_lump_names[l], counts[l], bytes[l]);
    if (b->extrasize) printf("  %-12s %10s %10zu\n", "(extra)", "", b->extrasize);
    bspx_print_summary(b, stdout);
    int ents = count_entities(b);
    if (ents >= 0)
        printf("  entities:   %d\n", ents);
    else
        printf("  entities:   (unparsable entity lump)\n");
    printf("  state:      %s\n", bsp_state_words(b));
    print_group_keys(path, b);
    printf("  models:     %d (world faces %d)\n", b->nummodels, st->worldfaces);
    printf("  areas:      %d, area portals %d\n", b->numareas, b->numareaportals);
    if (st->have_vis)
        printf("  visibility: %d bytes, %d clusters, visible clusters per cluster avg %.1f max %d "
               "(hearable avg %.1f max %d), visible faces per leaf avg %.1f\n",
               b->visdatasize, st->numclusters, st->avg_visible, st->max_visible, st->avg_hearable,
               st->max_hearable, st->avg_visible_faces);
    else
        printf("  visibility: %d bytes (%s)\n", b->visdatasize, b->visdatasize ? "malformed" : "none: not vis'd");
    printf("  lighting:   %d bytes, %d of %d faces with lightmaps (%d style maps, %lld bytes used)\n",
           b->lightdatasize, st->faces_with_lightmaps, b->numfaces, st->lightmap_styles, st->lightmap_bytes);
    if (st->faces_with_lightmaps) {
        printf("  lightmap sizes (luxels: faces):");
        int col = 0;
        for (int w = 0; w < BSP_STATS_MAX_DIM; w++)
            for (int h = 0; h < BSP_STATS_MAX_DIM; h++) {
                if (!st->hist[w][h]) continue;
                if (col % 8 == 0) printf("\n   ");
                printf(" %2dx%-2d:%5d", w + 1, h + 1, st->hist[w][h]);
                col++;
            }
        if (st->hist_larger) printf("\n    larger than 17x17: %d", st->hist_larger);
        printf("\n");
    }
}

static void print_json(jsonw_t *w, const char *path, const bsp_t *b, const bsp_stats_t *st, bool check,
                       const problems_t *probs, int nproblems, const problems_t *notes, const problems_t *limits,
                       const problems_t *engine)
{
    long long counts[HEADER_LUMPS], bytes[HEADER_LUMPS];
    lump_counts(b, counts, bytes);
    jsonw_object_begin(w, NULL);
    jsonw_string(w, "file", path);
    jsonw_string(w, "format", bsp_format_name(b->format));
    jsonw_bool(w, "read", true);
    jsonw_object_begin(w, "lumps");
    for (int l = 0; l < HEADER_LUMPS; l++) {
        jsonw_object_begin(w, bsp_lump_names[l]);
        jsonw_int(w, "count", counts[l]);
        jsonw_int(w, "bytes", bytes[l]);
        jsonw_object_end(w);
    }
    jsonw_object_end(w);
    jsonw_int(w, "extra_bytes", (long long)b->extrasize);
    jsonw_bool(w, "unvised", bsp_is_unvised(b));
    jsonw_bool(w, "unlit", bsp_is_unlit(b));
    jsonw_int(w, "entities", count_entities(b));
    jsonw_int(w, "models", b->nummodels);
    jsonw_int(w, "world_faces", st->worldfaces);
    jsonw_int(w, "areas", b->numareas);
    jsonw_int(w, "areaportals", b->numareaportals);
    jsonw_object_begin(w, "visibility");
    jsonw_int(w, "bytes", b->visdatasize);
    jsonw_bool(w, "valid", st->have_vis);
    jsonw_int(w, "clusters", st->numclusters);
    jsonw_double(w, "avg_visible", st->avg_visible);
    jsonw_int(w, "max_visible", st->max_visible);
    jsonw_double(w, "avg_visible_faces", st->avg_visible_faces);
    jsonw_double(w, "avg_hearable", st->avg_hearable);
    jsonw_int(w, "max_hearable", st->max_hearable);
    jsonw_object_end(w);
    jsonw_object_begin(w, "lighting");
    jsonw_int(w, "bytes", b->lightdatasize);
    jsonw_int(w, "faces", b->numfaces);
    jsonw_int(w, "faces_with_lightmaps", st->faces_with_lightmaps);
    jsonw_int(w, "style_maps", st->lightmap_styles);
    jsonw_int(w, "bytes_used", st->lightmap_bytes);
    jsonw_array_begin(w, "histogram");
    for (int x = 0; x < BSP_STATS_MAX_DIM; x++)
        for (int y = 0; y < BSP_STATS_MAX_DIM; y++) {
            if (!st->hist[x][y]) continue;
            jsonw_object_begin(w, NULL);
            jsonw_int(w, "width", x + 1);
            jsonw_int(w, "height", y + 1);
            jsonw_int(w, "faces", st->hist[x][y]);
            jsonw_object_end(w);
        }
    jsonw_array_end(w);
    jsonw_int(w, "larger_than_17", st->hist_larger);
    jsonw_object_end(w);
    if (check) {
        jsonw_bool(w, "valid", nproblems == 0);
        jsonw_int(w, "problem_count", nproblems);
        jsonw_array_begin(w, "problems");
        for (int i = 0; i < probs->count; i++) jsonw_string(w, NULL, probs->lines[i]);
        jsonw_array_end(w);
        jsonw_array_begin(w, "notes");
        for (int i = 0; i < notes->count; i++) jsonw_string(w, NULL, notes->lines[i]);
        jsonw_array_end(w);
        jsonw_array_begin(w, "engine_limits");
        for (int i = 0; i < limits->count; i++) jsonw_string(w, NULL, limits->lines[i]);
        jsonw_array_end(w);
        jsonw_array_begin(w, "engine_warnings");
        for (int i = 0; i < engine->count; i++) jsonw_string(w, NULL, engine->lines[i]);
        jsonw_array_end(w);
    }
    jsonw_object_end(w);
}

int main(int argc, char **argv)
{
    os_main_init(&argc, &argv);
    bool json = false, check = false, strict = false;
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json") || !strcmp(a, "-json")) {
            json = true;
        } else if (!strcmp(a, "--check") || !strcmp(a, "-check")) {
            check = true;
        } else if (!strcmp(a, "--strict") || !strcmp(a, "-strict")) {
            strict = true;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help") || !strcmp(a, "-help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version") || !strcmp(a, "-version")) {
            printf("bspinfo (q2map) %s\n", q2map_version_long());
            return 0;
        } else if (!strcmp(a, "--")) {
            nfiles += argc - i - 1;
            break;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "bspinfo: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        } else {
            nfiles++;
        }
    }
    if (nfiles == 0) {
        fprintf(stderr, "bspinfo: no .bsp file given\n");
        usage(stderr);
        return 2;
    }

    int status = 0;
    jsonw_t w;
    if (json) {
        jsonw_init(&w, stdout);
        jsonw_object_begin(&w, NULL);
        jsonw_array_begin(&w, "files");
    }
    bool files_only = false;
    for (int i = 1; i < argc; i++) {
        const char *path = argv[i];
        if (!files_only) {
            if (!strcmp(path, "--")) {
                files_only = true;
                continue;
            }
            if (path[0] == '-' && path[1]) continue;
        }
        bsp_t bsp;
        q2err_t err;
        /* The bytes are kept: the engines' rules read them as the engines do. */
        uint8_t *raw = NULL;
        size_t rawsize = 0;
        bsp_init(&bsp);
        if (!file_read_all(path, BSP_MAX_FILE_SIZE, &raw, &rawsize, &err) ||
            !bsp_read_memory(raw, rawsize, path, &bsp, &err)) {
            free(raw);
            bsp_free(&bsp);
            /* The message names the file already. */
            fprintf(stderr, "bspinfo: %s\n", err.msg);
            if (json) {
                jsonw_object_begin(&w, NULL);
                jsonw_string(&w, "file", path);
                jsonw_bool(&w, "read", false);
                jsonw_string(&w, "error", err.msg);
                jsonw_object_end(&w);
            }
            status = 1;
            continue;
        }
        bsp_stats_t st;
        bsp_compute_stats(&bsp, &st);
        problems_t probs = {0}, notes = {0}, limits = {0}, engine = {0};
        int nproblems = 0;
        if (check) {
            nproblems = bsp_check(&bsp, MAX_REPORTED_PROBLEMS, collect_problem, &probs);
            if (nproblems) status = 1;
            else bsp_check_notes(&bsp, collect_problem, &notes);
            /* Engine limits of a structurally valid file: warnings, or
             * problems with --strict. */
            if (nproblems == 0) {
                englimit_list_t found = {0};
                q2err_t lerr;
                char line[1024];
                if (!englimits_check(&bsp, &found, &lerr)) collect_problem(&notes, lerr.msg);
                for (int k = 0; k < found.count; k++) {
                    englimit_describe(&found.items[k], line, sizeof line);
                    collect_problem(&limits, line);
                    if (strict) {
                        snprintf(line + strlen(line), sizeof line - strlen(line), " (--strict)");
                        collect_problem(&probs, line);
                        nproblems++;
                    }
                }
                if (strict && found.count) status = 1;
                englimits_free(&found);
                /* What the engines' loaders take of the file's BSPX block
                 * and lumps, from the bytes as they read them. */
                engine_ctx_t ec = {&engine, &notes};
                int nw = engaccept_check(raw, rawsize, &bsp, collect_engine, &ec);
                if (strict) {
                    for (int k = 0; k < engine.count; k++) {
                        snprintf(line, sizeof line, "%s (--strict)", engine.lines[k]);
                        collect_problem(&probs, line);
                    }
                    nproblems += nw;
                    if (nw) status = 1;
                }
            }
        }
        if (json) {
            print_json(&w, path, &bsp, &st, check, &probs, nproblems, &notes, &limits, &engine);
        } else if (check) {
            for (int k = 0; k < probs.count; k++) printf("%s: %s\n", path, probs.lines[k]);
            if (nproblems > probs.count) printf("%s: ... and %d more problems\n", path, nproblems - probs.count);
            /* Notes and the verdict go to stderr: stdout lists only problems,
             * so an empty stdout still means a valid file. */
            for (int k = 0; k < notes.count; k++) fprintf(stderr, "%s: note: %s\n", path, notes.lines[k]);
            if (!strict) {
                for (int k = 0; k < limits.count; k++)
                    fprintf(stderr, "%s: warning: engine limit: %s\n", path, limits.lines[k]);
                for (int k = 0; k < engine.count; k++)
                    fprintf(stderr, "%s: warning: engine: %s\n", path, engine.lines[k]);
            }
            if (nproblems == 0) fprintf(stderr, "%s: valid, %s\n", path, bsp_state_words(&bsp));
        } else {
            print_text(path, &bsp, &st);
        }
        problems_free(&probs);
        problems_free(&notes);
        problems_free(&limits);
        problems_free(&engine);
        bsp_free(&bsp);
        free(raw);
    }
    if (json) {
        jsonw_array_end(&w);
        jsonw_object_end(&w);
        fputc('\n', stdout);
    }
    if (fflush(stdout) != 0) {
        fprintf(stderr, "bspinfo: error writing the output\n");
        return 1;
    }
    return status;
}
