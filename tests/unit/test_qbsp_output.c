/* Checks on maps compiled by the qbsp program (not on its stages): the tree
 * against the .map's brushes, faces against node planes, leaf convexity,
 * lightmap sizes, areas against func_areaportal entities, watertightness
 * by ray casting, and T-junctions. Each map in tests/data/qbsp is copied to
 * a scratch directory and compiled there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cmocka.h>
#include <math.h>

#include "../../common/fileio.h"
#include "../../common/mem.h"
#include "../../common/winding.h"
#include "../../formats/bspfile.h"
#include "../../formats/entities.h"
#include "../../formats/lightmap.h"
#include "../../formats/mapfile.h"
#include "../../formats/q2defs.h"
#include "test_util.h"

/* ---------------------------------------------------------------- setup */

static char tmpdir[256];

/* Test maps, and the bundled sample map from the repository's maps/. */
static void map_source(const char *name, char *out, size_t n)
{
    if (strncmp(name, "q2map_", 6) == 0) snprintf(out, n, "%s/../../maps/%s", Q2MAP_TEST_DATA, name);
    else snprintf(out, n, "%s/qbsp/%s", Q2MAP_TEST_DATA, name);
}

/* Compiles a copy of the map; *sealed tells whether qbsp wrote a .prt,
 * which it does only when no entity reaches the void. */
static bool compile(const char *name, const char *opts, char *bsppath, size_t n, bool *sealed)
{
    char src[Q2_PATH_MAX], dst[Q2_PATH_MAX], cmd[3 * Q2_PATH_MAX];
    map_source(name, src, sizeof src);
    snprintf(dst, sizeof dst, "%s/%s", tmpdir, name);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", src, dst);
    if (system(cmd) != 0) return false;
    size_t base = strlen(name) > 4 ? strlen(name) - 4 : 0;
    snprintf(bsppath, n, "%s/%.*s.bsp", tmpdir, (int)base, name);
    snprintf(cmd, sizeof cmd, "'%s/qbsp' -quiet -threads 2 %s '%s' > '%s/%s.log' 2>&1", Q2MAP_BIN_DIR, opts, dst,
             tmpdir, name);
    int rc = system(cmd);
    if (rc != 0) {
        fprintf(stderr, "qbsp failed on %s (status %d)\n", name, rc);
        snprintf(cmd, sizeof cmd, "cat '%s/%s.log' >&2", tmpdir, name);
        if (system(cmd) != 0) return false;
        return false;
    }
    char prt[Q2_PATH_MAX];
    snprintf(prt, sizeof prt, "%s/%.*s.prt", tmpdir, (int)base, name);
    *sealed = file_exists(prt);
    return true;
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/q2map_qbsp_output_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return tu_rm_rf(tmpdir) ? 0 : -1;
}

/* Deterministic pseudo-random numbers (tests must not depend on rand()). */
static uint64_t rng_state;
static double rnd(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* --------------------------------------------------------- map brushes */

enum { KIND_UNKNOWN = -1 };

typedef struct mbrush_t {
    plane_t *planes;
    bool *nodraw; /* per plane: the side is never drawn */
    const char **tex; /* per plane: the side's texture (in mapinfo_t.map) */
    int n;
    aabb_t bounds;
    int contents; /* KIND_UNKNOWN when the test cannot tell */
    int weld;     /* WELD_*: which faces' vertices its faces take (qbsp/tjunc.c) */
} mbrush_t;

/* qbsp's T-junction groups (ericw-tools'): opaque faces take the vertices
 * of opaque faces, translucent ones of translucent ones, func_detail_wall
 * ones of func_detail_wall ones. */
enum { WELD_OPAQUE, WELD_TRANSLUCENT, WELD_DETAIL_WALL, NUM_WELD };

typedef struct mapinfo_t {
    map_t map;
    mbrush_t *brushes; /* world brushes (worldspawn, func_group, func_detail) */
    int nbrushes;
    mbrush_t *mbrushes; /* brushes of brush models */
    int *mbrush_entity;
    int nmbrushes;
} mapinfo_t;

static bool joins_world(const char *cls)
{
    return strcmp(cls, "func_group") == 0 || strcmp(cls, "func_detail") == 0 || strcmp(cls, "func_detail_wall") == 0;
}

/* Entities whose brushes join the world, or that qbsp does not write. */
static bool removed_entity(const char *cls) { return strcmp(cls, "func_group") == 0 || strncmp(cls, "func_detail", 11) == 0; }

static bool name_is_plain(const char *tex)
{
    static const char *const special[] = {"water", "slime", "lava", "*",      "clip",  "trigger", "hint",
                                          "skip",  "origin", "trans", "window", "glass", "mist",    "fog",
                                          "areaportal", "ladder", "current", "mirror"};
    char low[64];
    size_t i;
    for (i = 0; tex[i] && i < sizeof low - 1; i++) low[i] = (char)((tex[i] >= 'A' && tex[i] <= 'Z') ? tex[i] + 32 : tex[i]);
    low[i] = 0;
    for (size_t k = 0; k < sizeof special / sizeof *special; k++)
        if (strstr(low, special[k])) return false;
    return true;
}

/* qbsp3's rules for a side's contents, from the face line. */
static int side_contents(const map_side_t *s)
{
    if (!s->has_surface) return name_is_plain(s->texture) ? CONTENTS_SOLID : KIND_UNKNOWN;
    int c = s->contents;
    if (s->flags & (SURF_HINT | SURF_SKIP)) return 0;
    if (!(c & ((LAST_VISIBLE_CONTENTS - 1) | CONTENTS_PLAYERCLIP | CONTENTS_MONSTERCLIP | CONTENTS_MIST)))
        c |= CONTENTS_SOLID;
    if (s->flags & (SURF_TRANS33 | SURF_TRANS66)) {
        c |= CONTENTS_TRANSLUCENT;
        if (c & CONTENTS_SOLID) c = (c & ~CONTENTS_SOLID) | CONTENTS_WINDOW;
    }
    return c;
}

static void load_map(const char *name, mapinfo_t *mi)
{
    char path[Q2_PATH_MAX];
    q2err_t err;
    map_source(name, path, sizeof path);
    memset(mi, 0, sizeof *mi);
    assert_true(map_read_file(path, &mi->map, &err));
    int cap = 0, capm = 0, capme = 0;
    for (int e = 0; e < mi->map.numentities; e++) {
        const char *cls = entity_classname(&mi->map.entities[e].ent);
        bool world = e == 0 || joins_world(cls);
        if (!world && strcmp(cls, "func_areaportal") == 0) continue;
        for (int b = 0; b < mi->map.entities[e].numbrushes; b++) {
            const map_brush_t *mb = &mi->map.entities[e].brushes[b];
            mbrush_t br = {0};
            br.planes = q2_calloc(mb->numsides, sizeof *br.planes);
            br.nodraw = q2_calloc(mb->numsides, sizeof *br.nodraw);
            br.tex = q2_calloc(mb->numsides, sizeof *br.tex);
            br.contents = mb->numsides > 0 ? side_contents(&mb->sides[0]) : KIND_UNKNOWN;
            br.weld = strcmp(cls, "func_detail_wall") == 0    ? WELD_DETAIL_WALL
                      : strcmp(cls, "func_detail_fence") == 0 ? WELD_TRANSLUCENT
                                                              : WELD_OPAQUE;
            for (int s = 0; s < mb->numsides; s++) {
                if (br.weld == WELD_OPAQUE && mb->sides[s].has_surface &&
                    (mb->sides[s].flags & (SURF_TRANS33 | SURF_TRANS66 | (1 << 25))))
                    br.weld = WELD_TRANSLUCENT;
                if (!plane_from_points(mb->sides[s].points[0], mb->sides[s].points[1], mb->sides[s].points[2],
                                       &br.planes[br.n]))
                    continue;
                br.tex[br.n] = mb->sides[s].texture;
                br.nodraw[br.n] = (mb->sides[s].has_surface && (mb->sides[s].flags & SURF_NODRAW)) ||
                                  strstr(mb->sides[s].texture, "nodraw") != NULL;
                br.n++;
                if (side_contents(&mb->sides[s]) != br.contents) br.contents = KIND_UNKNOWN;
            }
            br.bounds = aabb_empty();
            for (int i = 0; i < br.n; i++) {
                winding_t *w = winding_for_plane(br.planes[i].normal, br.planes[i].dist, 8192);
                for (int j = 0; j < br.n && w; j++)
                    if (j != i) w = winding_clip(w, vec_neg(br.planes[j].normal), -br.planes[j].dist, 0.001, false);
                if (w)
                    for (int k = 0; k < w->numpoints; k++) aabb_add_point(&br.bounds, w->p[k]);
                winding_free(w);
            }
            if (aabb_is_empty(&br.bounds)) {
                free(br.planes);
                free(br.nodraw);
                free(br.tex);
                continue;
            }
            if (world) {
                ARRAY_PUSH(mi->brushes, mi->nbrushes, cap, br);
            } else {
                int n = mi->nmbrushes;
                ARRAY_PUSH(mi->mbrushes, mi->nmbrushes, capm, br);
                ARRAY_PUSH(mi->mbrush_entity, n, capme, e);
            }
        }
    }
}

static void free_map(mapinfo_t *mi)
{
    for (int i = 0; i < mi->nbrushes; i++) {
        free(mi->brushes[i].planes);
        free(mi->brushes[i].nodraw);
        free(mi->brushes[i].tex);
    }
    for (int i = 0; i < mi->nmbrushes; i++) {
        free(mi->mbrushes[i].planes);
        free(mi->mbrushes[i].nodraw);
        free(mi->mbrushes[i].tex);
    }
    free(mi->mbrushes);
    free(mi->mbrush_entity);
    free(mi->brushes);
    map_free(&mi->map);
}

/* -1: outside, 1: inside by at least `margin`, 0: near the boundary. */
static int brush_test(const mbrush_t *b, vec3_t p, double margin)
{
    double worst = -1e30;
    for (int i = 0; i < b->n; i++) {
        double d = plane_dist_to(&b->planes[i], p);
        if (d > worst) worst = d;
    }
    return worst < -margin ? 1 : worst > margin ? -1 : 0;
}

/* ------------------------------------------------------------- bsp walks */

static int point_leaf(const bsp_t *bsp, int headnode, vec3_t p)
{
    int n = headnode;
    while (n >= 0) {
        const dnode_t *nd = &bsp->nodes[n];
        const dplane_t *pl = &bsp->planes[nd->planenum];
        double d = pl->normal[0] * p.x + pl->normal[1] * p.y + pl->normal[2] * p.z - pl->dist;
        n = nd->children[d < 0];
    }
    return -1 - n;
}

static vec3_t fvert(const bsp_t *bsp, int v)
{
    return vec3(bsp->vertexes[v].point[0], bsp->vertexes[v].point[1], bsp->vertexes[v].point[2]);
}

static int face_vert(const bsp_t *bsp, const dface_t *f, int k)
{
    int se = bsp->surfedges[f->firstedge + k];
    return se < 0 ? bsp->edges[-se].v[1] : bsp->edges[se].v[0];
}

static vec3_t pnormal(const dplane_t *pl) { return vec3(pl->normal[0], pl->normal[1], pl->normal[2]); }

/* ---------------------------------------------------------------- checks */

typedef struct stats_t {
    int points_solid, points_water, points_empty, points_model, rays, faces, tjunc_checks;
} stats_t;

static void check_contents(const bsp_t *bsp, const mapinfo_t *mi, stats_t *st)
{
    rng_state = 12345;
    for (int b = 0; b < mi->nbrushes; b++) {
        const mbrush_t *br = &mi->brushes[b];
        if (br->contents == KIND_UNKNOWN || !(br->contents & (CONTENTS_SOLID | CONTENTS_WATER))) continue;
        for (int k = 0; k < 48; k++) {
            vec3_t p = vec3(br->bounds.mins.x + rnd() * (br->bounds.maxs.x - br->bounds.mins.x),
                            br->bounds.mins.y + rnd() * (br->bounds.maxs.y - br->bounds.mins.y),
                            br->bounds.mins.z + rnd() * (br->bounds.maxs.z - br->bounds.mins.z));
            if (brush_test(br, p, 1.0) != 1) continue;
            bool solid = false, unknown = false, water = false;
            for (int o = 0; o < mi->nbrushes; o++) {
                int t = brush_test(&mi->brushes[o], p, 1.0);
                if (t == -1) continue;
                if (t == 0 || mi->brushes[o].contents == KIND_UNKNOWN) {
                    unknown = true;
                    continue;
                }
                if (mi->brushes[o].contents & CONTENTS_SOLID) solid = true;
                else if (mi->brushes[o].contents & CONTENTS_WATER) water = true;
                else unknown = true; /* windows, mist, clip: priorities not checked here */
            }
            int leaf = point_leaf(bsp, bsp->models[0].headnode, p);
            int c = bsp->leafs[leaf].contents;
            if (solid) {
                if (!(c & CONTENTS_SOLID))
                    fail_msg("point (%g %g %g) inside a solid brush (line %d) is in leaf %d with contents 0x%x", p.x,
                             p.y, p.z, b, leaf, c);
                st->points_solid++;
            } else if (water && !unknown) {
                /* Water no entity can reach is filled like any other
                 * unreachable space, so solid is right there too; nothing
                 * else is. */
                if (!(c & (CONTENTS_WATER | CONTENTS_SOLID)))
                    fail_msg("point (%g %g %g) inside water is in leaf %d with contents 0x%x", p.x, p.y, p.z, leaf, c);
                st->points_water++;
            }
        }
    }
}

/* Points inside the solid brushes of brush models are solid in their
 * model's tree. Models are found through the entity lump ("model" "*N"),
 * whose entities are the map's in order, less the removed ones. Entities
 * with an origin brush are stored around their origin and skipped. */
static void check_models(const bsp_t *bsp, const mapinfo_t *mi, stats_t *st)
{
    entity_list_t ents = {0};
    q2err_t err;
    assert_true(entities_parse(bsp->entities, "bsp", &ents, &err));
    int *model_of = q2_calloc(mi->map.numentities, sizeof(int));
    int be = 0;
    for (int e = 0; e < mi->map.numentities; e++) {
        const map_entity_t *me = &mi->map.entities[e];
        model_of[e] = -1;
        if (e > 0 && removed_entity(entity_classname(&me->ent))) continue;
        if (be >= ents.count) break;
        const entity_t *bent = &ents.ents[be++];
        assert_string_equal(entity_classname(bent), entity_classname(&me->ent));
        const char *model = entity_get(bent, "model");
        bool origin_brush = false;
        for (int b = 0; b < me->numbrushes; b++)
            for (int s = 0; s < me->brushes[b].numsides; s++)
                if (strstr(me->brushes[b].sides[s].texture, "origin")) origin_brush = true;
        if (e > 0 && model && model[0] == '*' && !origin_brush) model_of[e] = atoi(model + 1);
    }
    rng_state = 4242;
    for (int b = 0; b < mi->nmbrushes; b++) {
        const mbrush_t *br = &mi->mbrushes[b];
        int m = model_of[mi->mbrush_entity[b]];
        if (m <= 0 || br->contents == KIND_UNKNOWN || !(br->contents & CONTENTS_SOLID)) continue;
        assert_true(m < bsp->nummodels);
        for (int k = 0; k < 48; k++) {
            vec3_t p = vec3(br->bounds.mins.x + rnd() * (br->bounds.maxs.x - br->bounds.mins.x),
                            br->bounds.mins.y + rnd() * (br->bounds.maxs.y - br->bounds.mins.y),
                            br->bounds.mins.z + rnd() * (br->bounds.maxs.z - br->bounds.mins.z));
            if (brush_test(br, p, 1.0) != 1) continue;
            int leaf = point_leaf(bsp, bsp->models[m].headnode, p);
            if (!(bsp->leafs[leaf].contents & CONTENTS_SOLID))
                fail_msg("point (%g %g %g) inside a solid brush of model %d is in leaf %d with contents 0x%x", p.x, p.y,
                         p.z, m, leaf, bsp->leafs[leaf].contents);
            st->points_model++;
        }
    }
    free(model_of);
    entities_free(&ents);
}

/* Origins of point entities (no brushes) that lie in no world brush. */
static int entity_points(const mapinfo_t *mi, vec3_t *out, int max)
{
    int n = 0;
    for (int e = 1; e < mi->map.numentities && n < max; e++) {
        const map_entity_t *me = &mi->map.entities[e];
        vec3_t o;
        if (me->numbrushes || !entity_get_vec3(&me->ent, "origin", &o)) continue;
        bool inside = false;
        for (int b = 0; b < mi->nbrushes; b++)
            if (brush_test(&mi->brushes[b], o, 1.0) != -1) inside = true;
        if (!inside) out[n++] = o;
    }
    return n;
}

static void check_faces_on_planes(const bsp_t *bsp, stats_t *st)
{
    for (int n = 0; n < bsp->numnodes; n++) {
        const dnode_t *nd = &bsp->nodes[n];
        assert_int_equal(nd->planenum & 1, 0);
        const dplane_t *pl = &bsp->planes[nd->planenum];
        for (int f = (int)nd->firstface; f < (int)(nd->firstface + nd->numfaces); f++) {
            const dface_t *df = &bsp->faces[f];
            assert_int_equal(df->planenum, nd->planenum);
            for (int k = 0; k < df->numedges; k++) {
                vec3_t v = fvert(bsp, face_vert(bsp, df, k));
                double d = vec_dot(pnormal(pl), v) - pl->dist;
                if (fabs(d) > 0.02) fail_msg("face %d vertex %d is %g off its node %d's plane", f, k, d, n);
            }
            st->faces++;
        }
    }
}

/* Every leaf's faces lie inside the convex region the path of node planes
 * gives the leaf, and inside the leaf's bounds. */
typedef struct path_t {
    int plane[512];
    int side[512];
    int n;
} path_t;

static void check_leafs_r(const bsp_t *bsp, int node, path_t *path)
{
    if (node < 0) {
        const dleaf_t *lf = &bsp->leafs[-1 - node];
        for (int i = (int)lf->firstleafface; i < (int)(lf->firstleafface + lf->numleaffaces); i++) {
            const dface_t *df = &bsp->faces[bsp->leaffaces[i]];
            /* A merged face may reach into neighbouring leafs, but it
             * must touch this leaf: no path plane has it wholly outside,
             * and its bounds meet the leaf's. */
            for (int j = 0; j < path->n; j++) {
                const dplane_t *pl = &bsp->planes[path->plane[j]];
                double best = -1e30;
                for (int k = 0; k < df->numedges; k++) {
                    double d = vec_dot(pnormal(pl), fvert(bsp, face_vert(bsp, df, k))) - pl->dist;
                    if (path->side[j]) d = -d;
                    if (d > best) best = d;
                }
                if (best < -0.05 && getenv("QBSP_TEST_DEBUG")) {
                    fprintf(stderr, "leaf contents 0x%x cluster %d bounds (%g %g %g)-(%g %g %g) plane (%g %g %g) %g side %d\n",
                            lf->contents, lf->cluster, lf->mins[0], lf->mins[1], lf->mins[2], lf->maxs[0], lf->maxs[1],
                            lf->maxs[2], pl->normal[0], pl->normal[1], pl->normal[2], pl->dist, path->side[j]);
                    for (int k = 0; k < df->numedges; k++) {
                        vec3_t v = fvert(bsp, face_vert(bsp, df, k));
                        fprintf(stderr, " (%g %g %g)", v.x, v.y, v.z);
                    }
                    fprintf(stderr, "\n");
                }
                if (best < -0.05)
                    fail_msg("leaf %d: face %d is wholly %g outside path plane %d", -1 - node, bsp->leaffaces[i],
                             -best, path->plane[j]);
            }
            aabb_t fb = aabb_empty();
            for (int k = 0; k < df->numedges; k++) aabb_add_point(&fb, fvert(bsp, face_vert(bsp, df, k)));
            for (int a = 0; a < 3; a++)
                if (vec_comp(fb.maxs, a) < lf->mins[a] - 1 || vec_comp(fb.mins, a) > lf->maxs[a] + 1)
                    fail_msg("leaf %d: face %d does not meet the leaf's bounds", -1 - node, bsp->leaffaces[i]);
        }
        /* The leaf's bounds meet every half-space of its path. */
        for (int j = 0; j < path->n; j++) {
            const dplane_t *pl = &bsp->planes[path->plane[j]];
            double sgn = path->side[j] ? -1.0 : 1.0, best = -sgn * pl->dist;
            for (int a = 0; a < 3; a++) {
                double c = sgn * pl->normal[a];
                best += c * (c > 0 ? lf->maxs[a] : lf->mins[a]);
            }
            if (best < -0.05) fail_msg("leaf %d: bounds wholly outside path plane %d", -1 - node, path->plane[j]);
        }
        return;
    }
    assert_true(path->n < 512);
    const dnode_t *nd = &bsp->nodes[node];
    for (int s = 0; s < 2; s++) {
        path->plane[path->n] = nd->planenum;
        path->side[path->n] = s;
        path->n++;
        check_leafs_r(bsp, nd->children[s], path);
        path->n--;
    }
}

static void check_lightmaps(const bsp_t *bsp)
{
    q2err_t err;
    for (int f = 0; f < bsp->numfaces; f++) {
        if (bsp->texinfo[bsp->faces[f].texinfo].flags & (SURF_SKY | SURF_WARP)) continue;
        face_extents_t e;
        assert_true(bsp_face_extents(bsp, f, &e, &err));
        if (e.size[0] > MAX_LIGHTMAP_DIM || e.size[1] > MAX_LIGHTMAP_DIM)
            fail_msg("face %d lightmap is %dx%d luxels", f, e.size[0], e.size[1]);
    }
}

static void check_areas(const bsp_t *bsp, const mapinfo_t *mi, bool sealed)
{
    int nportals = 0;
    for (int e = 0; e < mi->map.numentities; e++)
        if (strcmp(entity_classname(&mi->map.entities[e].ent), "func_areaportal") == 0) nportals++;
    entity_list_t ents = {0};
    q2err_t err;
    assert_true(entities_parse(bsp->entities, "bsp", &ents, &err));
    int seen = 0;
    int *count = q2_calloc(nportals + 1, sizeof(int));
    for (int e = 0; e < ents.count; e++) {
        if (strcmp(entity_classname(&ents.ents[e]), "func_areaportal") != 0) continue;
        int style = (int)entity_get_float(&ents.ents[e], "style", 0);
        assert_true(style >= 1 && style <= nportals);
        count[style]++;
        seen++;
    }
    assert_int_equal(seen, nportals);
    for (int i = 1; i <= nportals; i++) assert_int_equal(count[i], 1);
    assert_true(bsp->numareas >= 1);
    assert_int_equal(bsp->areas[0].numareaportals, 0);
    assert_true(bsp->numareaportals >= 1);
    if (!sealed) goto done;
    /* Each portal is listed once from each of its two areas, reciprocally. */
    memset(count, 0, sizeof(int) * (nportals + 1));
    for (int a = 1; a < bsp->numareas; a++)
        for (int i = 0; i < bsp->areas[a].numareaportals; i++) {
            const dareaportal_t *ap = &bsp->areaportals[bsp->areas[a].firstareaportal + i];
            assert_true(ap->portalnum >= 1 && ap->portalnum <= nportals);
            assert_true(ap->otherarea >= 1 && ap->otherarea < bsp->numareas && ap->otherarea != a);
            count[ap->portalnum]++;
            bool back = false;
            const darea_t *o = &bsp->areas[ap->otherarea];
            for (int j = 0; j < o->numareaportals; j++) {
                const dareaportal_t *bp = &bsp->areaportals[o->firstareaportal + j];
                if (bp->portalnum == ap->portalnum && bp->otherarea == a) back = true;
            }
            assert_true(back);
        }
    for (int i = 1; i <= nportals; i++) assert_int_equal(count[i], 2);
    assert_int_equal(bsp->numareaportals, 1 + 2 * nportals);
    if (nportals > 0) assert_true(bsp->numareas >= 3);
    /* Reachable leafs have an area. */
    for (int l = 1; l < bsp->numleafs; l++)
        if (!(bsp->leafs[l].contents & CONTENTS_SOLID) && bsp->leafs[l].cluster >= 0) assert_true(bsp->leafs[l].area >= 1);
done:
    free(count);
    entities_free(&ents);
}

/* Faces by plane pair, for the ray test. */
typedef struct planefaces_t {
    int *start, *list;
} planefaces_t;

static bool face_contains(const bsp_t *bsp, const dface_t *df, vec3_t p, vec3_t normal)
{
    for (int k = 0; k < df->numedges; k++) {
        vec3_t a = fvert(bsp, face_vert(bsp, df, k)), b = fvert(bsp, face_vert(bsp, df, (k + 1) % df->numedges));
        vec3_t edge = vec_sub(b, a);
        double len = vec_len(edge);
        /* A very short edge (float-rounded ends) has an unreliable
         * direction; its neighbours bound the polygon there anyway. */
        if (len < 0.5) continue;
        /* Faces wind clockwise seen from the front: inside is to the right. */
        vec3_t inward = vec_scale(vec_cross(edge, normal), 1.0 / len);
        if (vec_dot(vec_sub(p, a), inward) < -0.1) return false;
    }
    return true;
}

typedef struct raystate_t {
    const bsp_t *bsp;
    int hitplane;
    vec3_t hit;
    bool hitsolid;
} raystate_t;

static void trace_r(raystate_t *rs, int node, vec3_t p1, vec3_t p2, int p1plane)
{
    if (rs->hitsolid) return;
    if (node < 0) {
        if (rs->bsp->leafs[-1 - node].contents & CONTENTS_SOLID) {
            rs->hitsolid = true;
            rs->hit = p1;
            rs->hitplane = p1plane;
        }
        return;
    }
    const dnode_t *nd = &rs->bsp->nodes[node];
    const dplane_t *pl = &rs->bsp->planes[nd->planenum];
    double d1 = vec_dot(pnormal(pl), p1) - pl->dist, d2 = vec_dot(pnormal(pl), p2) - pl->dist;
    if (d1 >= 0 && d2 >= 0) {
        trace_r(rs, nd->children[0], p1, p2, p1plane);
        return;
    }
    if (d1 < 0 && d2 < 0) {
        trace_r(rs, nd->children[1], p1, p2, p1plane);
        return;
    }
    int side = d1 < 0;
    vec3_t mid = vec_lerp(p1, p2, d1 / (d1 - d2));
    trace_r(rs, nd->children[side], p1, mid, p1plane);
    trace_r(rs, nd->children[!side], mid, p2, nd->planenum);
}

/* Whether p lies on a side of a world brush that is never drawn (such
 * sides make no face, by design). */
static bool on_nodraw_side(const mapinfo_t *mi, vec3_t p)
{
    for (int b = 0; b < mi->nbrushes; b++) {
        const mbrush_t *br = &mi->brushes[b];
        for (int i = 0; i < br->n; i++) {
            if (!br->nodraw[i] || fabs(plane_dist_to(&br->planes[i], p)) > 0.1) continue;
            bool inside = true;
            for (int j = 0; j < br->n && inside; j++)
                if (j != i && plane_dist_to(&br->planes[j], p) > 0.1) inside = false;
            if (inside) return true;
        }
    }
    return false;
}

static void check_rays(const bsp_t *bsp, const mapinfo_t *mi, const vec3_t *pts, int npts, stats_t *st)
{
    const dmodel_t *m = &bsp->models[0];
    int *cnt = q2_calloc(bsp->numplanes / 2 + 1, sizeof(int));
    for (int f = m->firstface; f < m->firstface + m->numfaces; f++) cnt[bsp->faces[f].planenum / 2]++;
    planefaces_t pf;
    pf.start = q2_calloc(bsp->numplanes / 2 + 2, sizeof(int));
    for (int i = 0; i <= bsp->numplanes / 2; i++) pf.start[i + 1] = pf.start[i] + cnt[i];
    pf.list = q2_calloc(m->numfaces + 1, sizeof(int));
    memset(cnt, 0, sizeof(int) * (bsp->numplanes / 2 + 1));
    for (int f = m->firstface; f < m->firstface + m->numfaces; f++) {
        int p = bsp->faces[f].planenum / 2;
        pf.list[pf.start[p] + cnt[p]++] = f;
    }
    rng_state = 777;
    for (int i = 0; i < npts; i++) {
        if (bsp->leafs[point_leaf(bsp, m->headnode, pts[i])].contents & CONTENTS_SOLID) continue;
        for (int r = 0; r < 24; r++) {
            double z = 2 * rnd() - 1, t = 2 * M_PI * rnd(), s = sqrt(1 - z * z);
            vec3_t dir = vec3(s * cos(t), s * sin(t), z);
            raystate_t rs = {bsp, -1, vec3(0, 0, 0), false};
            trace_r(&rs, m->headnode, pts[i], vec_ma(pts[i], 16384, dir), -1);
            if (!rs.hitsolid)
                fail_msg("ray from (%g %g %g) dir (%g %g %g) left the world", pts[i].x, pts[i].y, pts[i].z, dir.x,
                         dir.y, dir.z);
            st->rays++;
            if (rs.hitplane < 0) continue; /* started in solid */
            int pp = rs.hitplane / 2;
            bool found = false;
            for (int j = pf.start[pp]; j < pf.start[pp + 1] && !found; j++) {
                const dface_t *df = &bsp->faces[pf.list[j]];
                vec3_t n = pnormal(&bsp->planes[df->planenum]);
                if (df->side) n = vec_neg(n);
                if (vec_dot(n, dir) >= 0) continue; /* seen from behind */
                if (face_contains(bsp, df, rs.hit, n)) found = true;
            }
            if (!found && on_nodraw_side(mi, rs.hit)) found = true;
            if (!found && getenv("QBSP_TEST_DEBUG")) {
                for (int j = pf.start[pp]; j < pf.start[pp + 1]; j++) {
                    const dface_t *df = &bsp->faces[pf.list[j]];
                    fprintf(stderr, "face %d side %d tex %d:", pf.list[j], df->side, df->texinfo);
                    for (int k = 0; k < df->numedges; k++) {
                        vec3_t v = fvert(bsp, face_vert(bsp, df, k));
                        fprintf(stderr, " (%g %g %g)", v.x, v.y, v.z);
                    }
                    fprintf(stderr, "\n");
                }
                const dplane_t *hp = &bsp->planes[rs.hitplane];
                fprintf(stderr, "plane (%g %g %g) %g\n", hp->normal[0], hp->normal[1], hp->normal[2], hp->dist);
            }
            if (!found)
                fail_msg("hole: ray from (%g %g %g) enters solid at (%g %g %g) on plane %d with no face there",
                         pts[i].x, pts[i].y, pts[i].z, rs.hit.x, rs.hit.y, rs.hit.z, rs.hitplane);
        }
    }
    free(cnt);
    free(pf.start);
    free(pf.list);
}

/* The weld group of a face: that of the map brush with a side of the
 * face's texture on the face's plane (either way: a face seen from inside
 * water is its top side reversed) around the face's centre; without one
 * (or without the map), translucent by the face's flags or opaque. */
static int face_weld(const bsp_t *bsp, const mapinfo_t *info, const dface_t *df)
{
    vec3_t n = pnormal(&bsp->planes[df->planenum]);
    double dist = bsp->planes[df->planenum].dist;
    if (df->side) {
        n = vec_neg(n);
        dist = -dist;
    }
    vec3_t c = vec3(0, 0, 0);
    for (int k = 0; k < df->numedges; k++) c = vec_add(c, fvert(bsp, face_vert(bsp, df, k)));
    c = vec_scale(c, 1.0 / df->numedges);
    for (int pass = 0; info && pass < 2; pass++) {
        const mbrush_t *list = pass ? info->mbrushes : info->brushes;
        int count = pass ? info->nmbrushes : info->nbrushes;
        for (int i = 0; i < count; i++) {
            const mbrush_t *b = &list[i];
            if (c.x < b->bounds.mins.x - 0.1 || c.y < b->bounds.mins.y - 0.1 || c.z < b->bounds.mins.z - 0.1 ||
                c.x > b->bounds.maxs.x + 0.1 || c.y > b->bounds.maxs.y + 0.1 || c.z > b->bounds.maxs.z + 0.1)
                continue;
            for (int j = 0; j < b->n; j++) {
                double dot = vec_dot(b->planes[j].normal, n);
                if (fabs(dot) < 0.999 || fabs(b->planes[j].dist - (dot > 0 ? dist : -dist)) > 0.01) continue;
                if (strcmp(b->tex[j], bsp->texinfo[df->texinfo].texture) == 0) return b->weld;
            }
        }
    }
    int flags = bsp->texinfo[df->texinfo].flags;
    return (flags & (SURF_TRANS33 | SURF_TRANS66 | (1 << 25))) ? WELD_TRANSLUCENT : WELD_OPAQUE;
}

/* T-junctions in model MI among its faces of weld group G. */
static int count_group_tjunctions(const bsp_t *bsp, int mi, int g, const int *group, stats_t *st, bool report,
                                  int *reported)
{
    int bad = 0;
    const dmodel_t *m = &bsp->models[mi];
    char *used = q2_calloc(bsp->numvertexes, 1);
    int *verts = NULL, nv = 0, cap = 0;
    for (int f = m->firstface; f < m->firstface + m->numfaces; f++) {
        if (group[f] != g) continue;
        for (int k = 0; k < bsp->faces[f].numedges; k++) {
            int v = face_vert(bsp, &bsp->faces[f], k);
            if (!used[v]) {
                used[v] = 1;
                ARRAY_PUSH(verts, nv, cap, v);
            }
        }
    }
    for (int f = m->firstface; f < m->firstface + m->numfaces; f++) {
        if (group[f] != g) continue;
        const dface_t *df = &bsp->faces[f];
        for (int k = 0; k < df->numedges; k++) {
            int va = face_vert(bsp, df, k), vb = face_vert(bsp, df, (k + 1) % df->numedges);
            vec3_t a = fvert(bsp, va), b = fvert(bsp, vb);
            double len;
            vec3_t dir = vec_normalize(vec_sub(b, a), &len);
            vec3_t mn = vec_min(a, b), mx = vec_max(a, b);
            for (int i = 0; i < nv; i++) {
                vec3_t p = fvert(bsp, verts[i]);
                if (p.x < mn.x - 0.01 || p.y < mn.y - 0.01 || p.z < mn.z - 0.01 || p.x > mx.x + 0.01 ||
                    p.y > mx.y + 0.01 || p.z > mx.z + 0.01)
                    continue;
                vec3_t d = vec_sub(p, a);
                double t = vec_dot(d, dir);
                if (t < 0.05 || t > len - 0.05) continue;
                vec3_t off = vec_ma(d, -t, dir);
                if (vec_len(off) < 0.005) {
                    if (report && (*reported)++ < 5)
                        fprintf(stderr, "T-junction: vertex %d (%g %g %g) lies inside edge %d-%d of face %d\n",
                                verts[i], p.x, p.y, p.z, va, vb, f);
                    bad++;
                }
                st->tjunc_checks++;
            }
        }
    }
    free(used);
    free(verts);
    return bad;
}

/* No model vertex lies strictly inside an edge of a face of that model
 * of the same weld group (INFO, the map, gives the groups; NULL: by the
 * faces' flags). */
static int count_tjunctions(const bsp_t *bsp, const mapinfo_t *info, stats_t *st, bool report)
{
    int bad = 0, reported = 0;
    int *group = q2_calloc(bsp->numfaces > 0 ? (size_t)bsp->numfaces : 1, sizeof(int));
    for (int f = 0; f < bsp->numfaces; f++) group[f] = face_weld(bsp, info, &bsp->faces[f]);
    for (int mi = 0; mi < bsp->nummodels; mi++)
        for (int g = 0; g < NUM_WELD; g++) bad += count_group_tjunctions(bsp, mi, g, group, st, report, &reported);
    free(group);
    return bad;
}

static void check_map(const char *name, bool must_seal, bool tjunc)
{
    char bsppath[Q2_PATH_MAX];
    bool sealed = false;
    assert_true(compile(name, "", bsppath, sizeof bsppath, &sealed));
    if (must_seal) assert_true(sealed);
    bsp_t bsp;
    bsp_init(&bsp);
    q2err_t err;
    if (!bsp_read_file(bsppath, &bsp, &err)) fail_msg("%s", err.msg);
    mapinfo_t mi;
    load_map(name, &mi);
    stats_t st = {0};

    assert_int_equal(bsp.leafs[0].contents, CONTENTS_SOLID);
    assert_true(bsp.nummodels >= 1);
    check_contents(&bsp, &mi, &st);
    check_models(&bsp, &mi, &st);
    check_faces_on_planes(&bsp, &st);
    path_t path;
    path.n = 0;
    for (int m = 0; m < bsp.nummodels; m++)
        if (bsp.models[m].headnode >= 0) check_leafs_r(&bsp, bsp.models[m].headnode, &path);
    check_lightmaps(&bsp);
    check_areas(&bsp, &mi, sealed);
    vec3_t pts[256];
    int npts = entity_points(&mi, pts, 256);
    if (sealed) {
        for (int i = 0; i < npts; i++) {
            int l = point_leaf(&bsp, bsp.models[0].headnode, pts[i]);
            if (bsp.leafs[l].contents & CONTENTS_SOLID)
                fail_msg("entity origin (%g %g %g), in no brush, is in solid leaf %d", pts[i].x, pts[i].y, pts[i].z, l);
            st.points_empty++;
        }
        /* More origins: points the tree puts in open space. */
        rng_state = 99;
        const dmodel_t *m0 = &bsp.models[0];
        for (int tries = 0; tries < 20000 && npts < 256; tries++) {
            vec3_t p = vec3(m0->mins[0] + rnd() * (m0->maxs[0] - m0->mins[0]),
                            m0->mins[1] + rnd() * (m0->maxs[1] - m0->mins[1]),
                            m0->mins[2] + rnd() * (m0->maxs[2] - m0->mins[2]));
            if (!(bsp.leafs[point_leaf(&bsp, m0->headnode, p)].contents & CONTENTS_SOLID)) pts[npts++] = p;
        }
        check_rays(&bsp, &mi, pts, npts, &st);
    }
    if (tjunc) assert_int_equal(count_tjunctions(&bsp, &mi, &st, true), 0);
    printf("%-28s %-7s %6d faces, %5d solid / %4d water / %3d empty / %3d model points, %5d rays, %7d edge-vertex tests\n", name, sealed ? "sealed" : "LEAKED",
           st.faces, st.points_solid, st.points_water, st.points_empty, st.points_model, st.rays, st.tjunc_checks);
    /* The map has something to check. */
    assert_true(st.faces > 0);
    if (sealed) assert_true(st.points_solid > 0 && st.rays > 0);
    free_map(&mi);
    bsp_free(&bsp);
}

/* The T-junction check finds what -notjunc leaves, so its silence on the
 * normal compile means something. */
static void test_tjunc_control(void **state)
{
    (void)state;
    char bsppath[Q2_PATH_MAX];
    bool sealed;
    assert_true(compile("q2_tjunc_matrix.map", "-notjunc", bsppath, sizeof bsppath, &sealed));
    bsp_t bsp;
    bsp_init(&bsp);
    q2err_t err;
    assert_true(bsp_read_file(bsppath, &bsp, &err));
    stats_t st = {0};
    mapinfo_t mi;
    load_map("q2_tjunc_matrix.map", &mi);
    int bad = count_tjunctions(&bsp, &mi, &st, false);
    printf("q2_tjunc_matrix.map -notjunc: %d T-junctions\n", bad);
    assert_true(bad > 0);
    bsp_free(&bsp);
    /* Without welding, T-junctions are still fixed (by position). */
    assert_true(compile("q2_tjunc_matrix.map", "-noweld", bsppath, sizeof bsppath, &sealed));
    bsp_init(&bsp);
    assert_true(bsp_read_file(bsppath, &bsp, &err));
    assert_int_equal(count_tjunctions(&bsp, &mi, &st, true), 0);
    bsp_free(&bsp);
    free_map(&mi);
}

#define MAP_TEST(fn, file, sealed, tj)   \
    static void fn(void **state)         \
    {                                    \
        (void)state;                     \
        check_map(file, sealed, tj);     \
    }

MAP_TEST(test_areaportal, "q2_areaportal.map", true, true)
MAP_TEST(test_double_areaportal, "q2_double_areaportal.map", true, true)
MAP_TEST(test_detail, "q2_detail.map", true, true)
MAP_TEST(test_detail_fence, "q2_detail_fence.map", true, true)
MAP_TEST(test_door, "q2_door.map", true, true)
MAP_TEST(test_hint, "q2_hint_missing_faces.map", false, true)
MAP_TEST(test_ladder, "q2_ladder.map", true, true)
MAP_TEST(test_light_group, "q2_light_group.map", true, true)
MAP_TEST(test_liquids, "q2_liquids.map", true, true)
MAP_TEST(test_mist, "q2_mist_transwater.map", false, true)
MAP_TEST(test_playerclip, "q2_playerclip.map", true, true)
MAP_TEST(test_skip, "q2_skip.map", true, true)
MAP_TEST(test_tjunc_matrix, "q2_tjunc_matrix.map", true, true)
MAP_TEST(test_trans33_window, "q2_trans33_window.map", false, true)
MAP_TEST(test_sample, "q2map_sample.map", true, true)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_areaportal),   cmocka_unit_test(test_double_areaportal),
        cmocka_unit_test(test_detail),       cmocka_unit_test(test_detail_fence),
        cmocka_unit_test(test_door),         cmocka_unit_test(test_hint),
        cmocka_unit_test(test_ladder),       cmocka_unit_test(test_light_group),
        cmocka_unit_test(test_liquids),      cmocka_unit_test(test_mist),
        cmocka_unit_test(test_playerclip),   cmocka_unit_test(test_skip),
        cmocka_unit_test(test_tjunc_matrix), cmocka_unit_test(test_trans33_window),
        cmocka_unit_test(test_sample),       cmocka_unit_test(test_tjunc_control),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
