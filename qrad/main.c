/* qrad: computes lightmaps for a Quake 2 bsp and rewrites it in place
 * (through a temporary file and rename). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qrad.h"
#include "../common/dist.h"
#include "../common/fileio.h"
#include "../common/jsonw.h"
#include "../common/os.h"
#include "../common/threads.h"
#include "../common/version.h"
#include "../formats/bspcheck.h"
#include "../formats/bspx.h"
#include "../formats/groupkeys.h"
#include "../formats/texinfojson.h"
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
            "                 (either overrides the _phong and _phong_angle keys)\n"
            "  -minlight F    minimum light, 0..2 as ericw's Quake 2 _minlight (1 = 128);\n"
            "                 overrides worldspawn's _minlight\n"
            "  -preset NAME   light as another compiler, reading only the keys it reads (one\n"
            "                 warning per key left out): qrad3 (no worldspawn key: no sun, dome\n"
            "                 or _ambient; light faces full bright, surface lights as points,\n"
            "                 its bytes, no phong) or ericw (-bounce 1 -bouncescale 0.425\n"
            "                 -direct 0.65 -maxlight 255, lights' _anglescale 0.5 unless they\n"
            "                 say, surface lights as ericw's: texture colour, rescaled; its dome\n"
            "                 of 65 suns); other options win\n"
            "  -anglescale F  every light's ericw _anglescale: (1 - F) + F cos(incidence), 0..1\n"
            "  -dirt          dirtmapping (ambient occlusion) on every light (worldspawn _dirt 1)\n"
            "  -nodirt        no dirtmapping, whatever worldspawn says\n"
            "  -dirtdebug     lightmaps of the dirt alone (ericw's): style 0 is 255 x the\n"
            "                 dirt factor (255 unoccluded), no light; turns dirt on\n"
            "  -bouncescale F multiplies reflectivity in the bounces (default 1.0)\n"
            "  -bouncerays N  rays per bounce patch, rounded down to a square (default 64)\n"
            "  -extra         2x2 supersampling per luxel\n"
            "  -soft [N]      each luxel the mean of the (2N+1)^2 luxels around it on its face\n"
            "                 (ericw's; N 1..8, default 1, 2 with -extra)\n"
            "  -chop N        patch size in units for bounces and surface lights (default 64)\n"
            "  -scale F       multiply all light (default 1.0)\n"
            "  -direct F      surface-light scale (default 0.4, as qrad3)\n"
            "  -entity F      entity-light scale (default 1.0)\n"
            "  -ambient F     light added to every luxel, 0..255 (default 0)\n"
            "  -maxlight F    brightest channel, 0..255 (default 196, as qrad3)\n"
            "  -nopvs         do not cull lights by the PVS\n"
            "  -lightgrid     write a LIGHTGRID_OCTREE lump (light samples for models)\n"
            "  -lightgrid_dist X Y Z  its point spacing in units (default 32 32 32)\n"
            "  -wrnormals     write a FACENORMALS lump (the phong normals used)\n"
            "  -world_units_per_luxel N  also write DECOUPLED_LM lightmaps at N units per luxel\n"
            "  -novanilla     with -world_units_per_luxel (or worldspawn's key): only the decoupled lightmaps\n"
            "  -basedir DIR   game directory root (holds baseq2/) for textures\n"
            "  -gamedir DIR   mod directory (name under basedir, or a path)\n"
            "  -v             verbose    -quiet   warnings and errors only\n"
            "  -json FILE     write timings and counts as JSON\n"
            "  -help          this text  -version print the version\n");
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
        if (path_join(buf, sizeof buf, basedir, "baseq2") && os_is_dir(buf)) snprintf(base, sizeof base, "%s", buf);
        else snprintf(base, sizeof base, "%s", basedir);
        if (!vfs_add_gamedir(vfs, base, err)) goto fail;
        added++;
    } else {
        char d[Q2_PATH_MAX], full[Q2_PATH_MAX];
        path_dirname(d, sizeof d, os_absolute_path(bsppath, full, sizeof full) ? full : bsppath);
        if (!strcmp(path_basename(d), "maps")) {
            path_dirname(base, sizeof base, d);
            if (os_is_dir(base) && vfs_add_gamedir(vfs, base, err)) added++;
        }
    }
    if (gamedir) {
        if (os_is_dir(gamedir)) snprintf(buf, sizeof buf, "%s", gamedir);
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

/* -preset NAME: option values that match another compiler's brightness
 * on the same bsp (docs/qrad.md, "Presets"); options given after it, or
 * anywhere else on the line, still win. */
static bool apply_preset(const char *name, qrad_opts_t *o)
{
    if (!strcmp(name, "default")) return true;
    if (!strcmp(name, "qrad3")) {
        /* qrad3's bounces are qrad's own: it normalizes each patch's
         * transfers so all its light reaches the patches around it, which
         * with reflectivity 0.5 doubles a closed room's light (the same bsp
         * relit by qrad3 with -bounce 0 and without: 59 and 111 on
         * E1M1-edited-ents); the 0.3 this preset once had matched reference
         * bsps in which qrad3 had left most lights black. What it reads:
         * its keys alone, and its light faces are full bright. */
        o->tool_keys = QRAD_TOOL_QRAD3;
        o->surflight_selflit = true;
        o->qrad3_light = true;
        /* and no texture stops or tints its light, and liquids are lit
         * on their front only */
        o->qrad3_shadows = true;
        /* its sample points: texel corners, moved only when in solid */
        o->qrad3_samples = true;
        /* its PVS as vis wrote it: no light through an opaque liquid */
        o->qrad3_pvs = true;
        /* and its brush models' luxels culled by it too */
        o->qrad3_model_pvs = true;
        /* its transfers: through windows and brush models, shared out */
        o->qrad3_transfers = true;
        /* its _minlight floor */
        o->qrad3_minlight = true;
        /* qrad3 has no phong shading: every face is lit flat */
        o->smooth = 0;
        return true;
    }
    if (!strcmp(name, "ericw")) {
        /* ericw-tools' light in Quake 2 mode (docs/qrad.md, "Presets"):
         * one bounce at its bouncescale 0.85 times the 0.5 of its bounce
         * pass, half the angle of incidence (its _anglescale), and its
         * surface lights: value x the texture's average colour at its
         * Quake 2 _surflightscale 0.65, none from a texture it cannot load,
         * both angles rescaled (_surflight_rescale 1), emitting faces lit
         * at least by their own light (_surflight_minlight_scale 1), and
         * styled lights bounce (_bouncestyled 1). On its
         * base1 without
         * textures: mean luxel 0.96 of its light's, correlation 0.935. */
        o->bounce = 1;
        o->bouncescale = 0.425;
        /* and its bounce is not radiosity: each face is a point light of
         * the mean light it got (bouncelights.c), which carries light
         * farther and loses none in luxels already past 255 */
        o->ericw_bounce = true;
        /* a default: a light's own _anglescale still wins (ericw-tools'
         * q2_light_translucency: "_anglesense" "0" lights evenly) */
        o->anglescale_default = 0.5;
        o->direct = 0.65;
        o->surflight_texcolor = true;
        o->surflight_rescale = 1;
        o->surflight_minlight_scale = 1;
        o->bouncestyled = 1;
        /* ericw-tools clamps only at the byte's 255, not at qrad3's 196
         * (its q2_light_cone: 243 where qrad3's cap gives 196). */
        o->maxlight = 255;
        /* its dirt traces 16 directions on each of 3 rings (q2_light_group_dirt:
         * a corner of 26, where qrad's 5 give 32) */
        o->dirt_angles = 16;
        /* and a bmodel's light faces emit (q2_surface_lights_culling) */
        o->surflight_bmodels = true;
        /* the keys its light reads, and its sky dome of 64 suns */
        o->tool_keys = QRAD_TOOL_ERICW;
        o->dome_suns = 64;
        /* its suns light a face edge-on at the (1 - anglescale) share
         * (light/ltface.cc, LightFace_Sky: only a face whose plane faces
         * away is skipped): spirit2dm1's walls under its straight-down
         * _sun_light 1500 are lit, 0.54 -> 0.94 of its mean */
        o->sun_grazing = true;
        /* and it writes a face's lightmaps in descending order of their
         * mean brightness (light/write.cc, CalculateLightmapStyles): on
         * E1M1-edited-ents, where a switchable light often outshines
         * style 0, the first lightmap's mean went 0.82 -> 0.95 of its own */
        o->styles_by_brightness = true;
        /* and gives sky faces no lightmap at all (light/write.cc: a face
         * that is not lightmapped keeps styles 255; its test "sky gets an
         * optimized lightmap" reads style 255 and a 0 x 0 decoupled one) */
        o->sky_no_lightmap = true;
        /* and starts each face's block on 4 samples, as ericw-tools'
         * lump (its novanillaWorldUnitsPerLuxel test counts the bytes so) */
        o->lightmap_pad4 = true;
        /* and a bmodel's luxels in the world's solid take the light at the
         * model's centre (light/ltface.cc, LightFace_AutoMin): E1M1's
         * doors, sunk in their walls, are otherwise black */
        o->autominlight = true;
        return true;
    }
    return false;
}

/* Rank 0 looks up every texture the bsp names (its animation frames are
 * texinfos too) and sends the table, so the other ranks light with the
 * same colours without game data of their own. */
static bool share_textures(dist_t *dist, const bsp_t *bsp, texdb_t *texdb, q2err_t *err)
{
    uint8_t *data = NULL;
    size_t size = 0;
    if (dist_is_root(dist)) {
        for (int i = 0; i < bsp->numtexinfo; i++) {
            double rgb[3];
            texdb_image(texdb, bsp->texinfo[i].texture);
            texdb_average_color(texdb, bsp->texinfo[i].texture, rgb);
        }
        texdb_pack(texdb, &data, &size);
    }
    bool ok = dist_share(dist, &data, &size) && (dist_is_root(dist) || texdb_unpack(texdb, data, size, err));
    free(data);
    return ok;
}

/* A file beside the bsp (MAP.groupkeys, MAP.texinfo.json): read by rank 0
 * when it is there and sent to the others; *have (if given) says whether
 * it was. false only when it is there and cannot be read. */
static bool read_side_file(dist_t *dist, bool root, const char *path, uint8_t **data, size_t *size, bool *have,
                           q2err_t *err)
{
    bool there = dist_root_bool(dist, root && file_exists(path));
    if (have) *have = there;
    return !there || dist_read_file(dist, path, BSP_MAX_FILE_SIZE, data, size, err);
}

static int qrad_main(int argc, char **argv, dist_t *dist)
{
    qrad_opts_t opts;
    qrad_opts_default(&opts);
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "-preset") || !strcmp(argv[i], "--preset")) {
            if (!apply_preset(argv[i + 1], &opts)) {
                fprintf(stderr, "qrad: -preset: unknown preset '%s' (default, qrad3, ericw)\n", argv[i + 1]);
                return 2;
            }
        }
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
            printf("qrad (q2map) %s\n", q2map_version_long());
            return 0;
        } else if (!strcmp(a, "-threads")) {
            if (!parse_num(a, v, 0, THREADS_MAX, &d)) return 2;
            threads = (int)d;
            i++;
        } else if (!strcmp(a, "-bounce")) {
            if (!parse_num(a, v, 0, 1000, &d)) return 2;
            opts.bounce = (int)d;
            opts.bounce_set = true;
            i++;
        } else if (!strcmp(a, "-smooth")) {
            if (!parse_num(a, v, 0, 89, &opts.smooth)) return 2;
            opts.smooth_set = true;
            i++;
        } else if (!strcmp(a, "-nosmooth")) {
            opts.smooth = 0;
            opts.smooth_set = true;
        } else if (!strcmp(a, "-preset")) {
            if (!v) {
                fprintf(stderr, "qrad: -preset needs a value\n");
                return 2;
            }
            i++; /* applied before the other options */
        } else if (!strcmp(a, "-minlight")) {
            if (!parse_num(a, v, 0, 2, &opts.minlight)) return 2;
            i++;
        } else if (!strcmp(a, "-anglescale")) {
            if (!parse_num(a, v, 0, 1, &opts.anglescale)) return 2;
            i++;
        } else if (!strcmp(a, "-dirt")) {
            opts.dirt = 1;
        } else if (!strcmp(a, "-nodirt")) {
            opts.dirt = -1;
        } else if (!strcmp(a, "-dirtdebug")) {
            opts.dirtdebug = true;
        } else if (!strcmp(a, "-bouncescale")) {
            if (!parse_num(a, v, 0, 2, &opts.bouncescale)) return 2;
            i++;
        } else if (!strcmp(a, "-bouncerays")) {
            if (!parse_num(a, v, 1, 1024, &d)) return 2;
            opts.bounce_rays = (int)d;
            i++;
        } else if (!strcmp(a, "-extra")) {
            opts.extra = true;
        } else if (!strcmp(a, "-soft")) {
            /* The count is optional, as in ericw-tools: a following
             * argument that is a number is it. */
            char *end = NULL;
            if (v) (void)strtod(v, &end);
            if (v && end != v && !*end) {
                if (!parse_num(a, v, 1, 8, &d)) return 2;
                if (d != floor(d)) {
                    fprintf(stderr, "qrad: -soft: invalid value '%s' (expected a whole number 1..8)\n", v);
                    return 2;
                }
                opts.soft = (int)d;
                i++;
            } else {
                opts.soft = -1; /* resolved after -extra is known */
            }
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
        } else if (!strcmp(a, "-lightgrid")) {
            opts.lightgrid = true;
        } else if (!strcmp(a, "-lightgrid_dist")) {
            for (int k = 0; k < 3; k++)
                if (!parse_num(a, i + 1 + k < argc ? argv[i + 1 + k] : NULL, 1, 4096, &opts.lightgrid_dist[k])) return 2;
            opts.lightgrid_dist_set = true;
            i += 3;
        } else if (!strcmp(a, "-wrnormals")) {
            opts.wrnormals = true;
        } else if (!strcmp(a, "-world_units_per_luxel")) {
            if (!parse_num(a, v, 1, 256, &opts.world_units_per_luxel)) return 2;
            i++;
        } else if (!strcmp(a, "-novanilla")) {
            opts.novanilla = true;
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
    if (opts.soft < 0) opts.soft = opts.extra ? 2 : 1;
    /* ericw-tools' -dirtdebug turns dirt on, over -nodirt and worldspawn */
    if (opts.dirtdebug) opts.dirt = 1;
    opts.threads = threads_resolve(threads);
    threads_start(opts.threads);
    dist_set_threads(dist, opts.threads);
    opts.dist = dist;
    /* Ranks other than 0 work silently: they see the same input, so rank 0
     * reports every error they could meet. */
    bool root = dist_is_root(dist);
    log_t log;
    log_init(&log, root ? level : LOG_QUIET, root ? stdout : NULL, root ? stderr : NULL);
    stage_times_t st;
    stages_init(&st);
    q2err_t err;
    bsp_t bsp;
    bsp_init(&bsp);
    /* what the error paths free: every one goes to fail below, ok false */
    bool ok = false;
    uint8_t *gk = NULL, *tj = NULL;
    vfs_t *vfs = NULL;
    texdb_t *texdb = NULL;
    stages_mark(&st, "read");
    if (!dist_root_bool(dist, !json || !root || path_dir_writable(json, &err))) {
        log_error(&log, "qrad: %s", err.msg);
        goto fail;
    }
    /* rank 0 reads the bsp (and the textures) and sends them to the others */
    file_map_t file;
    bool read_ok = dist_map_file(dist, path, BSP_MAX_FILE_SIZE, &file, &err) &&
                   bsp_read_memory_threads(file.data, file.size, path, &bsp, dist, opts.threads, &err);
    file_unmap(&file);
    if (!read_ok || !bsp_validate_threads(&bsp, path, dist, opts.threads, &err)) {
        log_error(&log, "qrad: %s", err.msg);
        goto fail;
    }
    /* The func_group keys: MAP.groupkeys beside the bsp, or (in a bsp of an
     * earlier q2map) the Q2MAP_GROUPKEYS lump, which moves into that file so
     * that the bsp written carries no lump engines do not read. */
    char gkpath[Q2_PATH_MAX];
    size_t gksize = 0;
    bool gk_from_lump = false;
    if (!path_replace_ext(gkpath, sizeof gkpath, path, GROUPKEYS_EXT)) {
        log_error(&log, "qrad: %s: path too long", path);
        goto fail;
    }
    bool have_gk;
    if (!read_side_file(dist, root, gkpath, &gk, &gksize, &have_gk, &err)) {
        log_error(&log, "qrad: %s", err.msg);
        goto fail;
    }
    if (have_gk) {
        log_verbose(&log, "func_group lighting keys from %s", gkpath);
    } else {
        bspx_t x;
        if (bspx_parse(&bsp, &x, NULL, NULL)) {
            const bspx_lump_t *l = bspx_find(&x, GROUPKEYS_LUMP);
            if (l) {
                groupkeys_file_encode(l->data, l->size, &bsp, &gk, &gksize);
                gk_from_lump = true;
            }
            bspx_free(&x);
        }
    }
    if (bspx_has_lump(&bsp, GROUPKEYS_LUMP) && !bspx_put_lump(&bsp, GROUPKEYS_LUMP, NULL, 0, &err)) {
        log_error(&log, "qrad: %s", err.msg);
        goto fail;
    }
    opts.groupkeys = gk;
    opts.groupkeys_size = gksize;
    opts.groupkeys_name = gkpath;
    /* ericw-tools' qbsp leaves the same keys per texinfo in MAP.texinfo.json;
     * models.c decides which file a run takes when both are there. */
    char tjpath[Q2_PATH_MAX];
    size_t tjsize = 0;
    if (!path_replace_ext(tjpath, sizeof tjpath, path, TEXINFOJSON_EXT)) {
        log_error(&log, "qrad: %s: path too long", path);
        goto fail;
    }
    if (!read_side_file(dist, root, tjpath, &tj, &tjsize, NULL, &err)) {
        log_error(&log, "qrad: %s", err.msg);
        goto fail;
    }
    opts.texinfojson = tj;
    opts.texinfojson_size = tjsize;
    opts.texinfojson_name = tjpath;
    bool vfs_failed = false;
    vfs = root ? setup_vfs(path, basedir, gamedir, &log, &err, &vfs_failed) : NULL;
    if (dist_root_bool(dist, vfs_failed)) {
        log_error(&log, "qrad: %s", err.msg);
        goto fail;
    }
    texdb = texdb_create(vfs, &log);
    /* a traced run (one rank) packs the table too, so that the trace holds
     * its broadcast (the simulator charges it) */
    if ((dist_size(dist) > 1 || dist_tracing(dist)) && !share_textures(dist, &bsp, texdb, &err)) {
        log_error(&log, "qrad: %s", err.msg);
        goto fail;
    }
    log_info(&log, "qrad %s: %s, %d threads, %d bounces%s", q2map_version_long(), path, opts.threads, opts.bounce,
             opts.extra ? ", extra" : "");
    /* Whatever another light tool or a qbsp left in the faces' styles and
     * offsets, the lightmaps are laid out anew. */
    if (!bsp_is_unlit(&bsp))
        log_verbose(&log, "relighting: the %d-byte lighting lump and every face's styles are replaced",
                    bsp.lightdatasize);
    qrad_t stats;
    if (dist_size(dist) > 1) log_info(&log, "%d MPI ranks share the faces and patches", dist_size(dist));
    ok = qrad_run(&bsp, &opts, texdb, &log, &st, &stats, &err);
    /* the last exchange: from here on only rank 0 has anything to do */
    dist_collect(dist);
    if (ok) {
        stages_mark(&st, "write");
        ok = !root || bsp_write_file_threads(path, &bsp, dist, opts.threads, &err);
        /* The keys the bsp carried are now beside it, for the next run. */
        if (ok && root && gk_from_lump) {
            ok = file_write_atomic(gkpath, gk, gksize, &err);
            if (ok) log_info(&log, "moved the Q2MAP_GROUPKEYS lump into %s", gkpath);
        }
        stages_end(&st);
    }
    if (!ok) {
        log_error(&log, "qrad: %s: %s", path, err.msg);
    } else {
        log_info(&log, "%ld luxels, %d lights, %d patches, %ld rays, %d bytes of lighting, %.2f s", stats.luxels,
                 stats.numlights, stats.numpatches, stats.rays, bsp.lightdatasize, stages_total(&st));
        for (int s = 0; s < st.count; s++) log_verbose(&log, "  %-10s %.3f s", st.stage[s].name, st.stage[s].seconds);
        dist_log_summary(dist, &log);
    }
    if (ok && json && root) {
        atomic_file_t af;
        if (!atomic_open(&af, json, &err)) {
            log_error(&log, "qrad: %s", err.msg);
            ok = false;
        } else {
            jsonw_t w;
            jsonw_init(&w, af.f);
            jsonw_object_begin(&w, NULL);
            jsonw_string(&w, "tool", "qrad");
            jsonw_string(&w, "version", q2map_version_long());
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
            dist_json(dist, &w);
            jsonw_object_end(&w);
            fputc('\n', af.f);
            if (!atomic_commit(&af, &err)) {
                log_error(&log, "qrad: %s", err.msg);
                ok = false;
            }
        }
    }
fail:
    texdb_free(texdb);
    vfs_free(vfs);
    free(gk);
    free(tj);
    bsp_free(&bsp);
    log_close(&log);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    os_main_init(&argc, &argv);
    q2err_t err;
    dist_t *dist;
    if (!dist_start(&dist, "qrad", &err)) {
        fprintf(stderr, "qrad: %s\n", err.msg);
        return 1;
    }
    int rc = qrad_main(argc, argv, dist);
    dist_stop(dist);
    return rc;
}
