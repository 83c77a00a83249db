/* qbsp's own stages on small hand-made maps: load (planes, warnings,
 * errors), texinfo dedup, CSG (disjoint fragments preserving the union's
 * volume), BrushBSP (convex leaves, contents at sample points), portals,
 * flood, fill and clusters of a sealed box room, and a leak; the CSG reused
 * for the second world pass matches a fresh one. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../common/fileio.h"
#include "../../common/mem.h"
#include "../../formats/q2defs.h"
#include "../../qbsp/areas.h"
#include "../../qbsp/brushbsp.h"
#include "../../qbsp/csg.h"
#include "../../qbsp/leak.h"
#include "../../qbsp/load.h"
#include "../../qbsp/portals.h"
#include "../../qbsp/prtfile.h"
#include "../../formats/prt.h"
#include "../../qbsp/qbsp.h"
#include "../../qbsp/texinfo.h"
#include "../../qbsp/writebsp.h"

/* ------------------------------------------------------------ map text */

typedef struct text_t {
    char *s;
    size_t len, cap;
} text_t;

static void tprintf(text_t *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char buf[1024];
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        t->s = q2_realloc(t->s, t->cap);
    }
    memcpy(t->s + t->len, buf, (size_t)n + 1);
    t->len += (size_t)n;
}

/* An axial box brush in Quake 2 standard face lines. */
static void box_brush(text_t *t, vec3_t lo, vec3_t hi, const char *tex, const char *surface)
{
    tprintf(t, "{\n");
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        for (int s = 0; s < 2; s++) {
            vec3_t p1 = s == 0 ? hi : lo;
            vec3_t ej = vec3(0, 0, 0), ek = vec3(0, 0, 0);
            vec_set_comp(&ej, j, 1);
            vec_set_comp(&ek, k, 1);
            /* (p0 - p1) x (p2 - p1) must point out of the brush. */
            vec3_t p0 = vec_add(p1, s == 0 ? ej : ek), p2 = vec_add(p1, s == 0 ? ek : ej);
            tprintf(t, "( %g %g %g ) ( %g %g %g ) ( %g %g %g ) %s 0 0 0 1 1%s%s\n", p0.x, p0.y, p0.z, p1.x, p1.y,
                    p1.z, p2.x, p2.y, p2.z, tex, surface ? " " : "", surface ? surface : "");
        }
    }
    tprintf(t, "}\n");
}

/* A closed room: six slabs of thickness 16 around [-r, r]^3. */
static void room(text_t *t, double r, bool leak)
{
    double w = r + 16;
    vec3_t lo[6] = {{-w, -w, -w}, {r, -w, -w}, {-w, -w, -w}, {-w, r, -w}, {-w, -w, -w}, {-w, -w, r}};
    vec3_t hi[6] = {{-r, w, w}, {w, w, w}, {w, -r, w}, {w, w, w}, {w, w, -r}, {w, w, w}};
    for (int i = 0; i < 6; i++) {
        if (leak && i == 5) {
            /* a ceiling with a 32-unit gap */
            box_brush(t, lo[i], vec3(-16, w, w), "e1u1/wall", NULL);
            box_brush(t, vec3(16, -w, r), hi[i], "e1u1/wall", NULL);
            continue;
        }
        box_brush(t, lo[i], hi[i], "e1u1/wall", NULL);
    }
}

/* ------------------------------------------------------------ context */

typedef struct ctx_t {
    log_t log;
    qbsp_t q;
} ctx_t;

static void ctx_init(ctx_t *c)
{
    memset(c, 0, sizeof *c);
    log_init(&c->log, LOG_QUIET, stdout, stderr);
    c->q.log = &c->log;
    c->q.opt.threads = 2;
    c->q.opt.micro = 0.1;
    c->q.opt.subdivide = 240;
    c->q.leaked_entity = -1;
    plane_table_init(&c->q.planes);
    bsp_init(&c->q.bsp);
}

static bool ctx_load(ctx_t *c, const char *text, q2err_t *err)
{
    if (!map_parse(text, strlen(text), "test.map", &c->q.map, err)) return false;
    return load_brushes(&c->q, err);
}

/* ctx_init, then ctx_load of text that must load. */
static void ctx_load_ok(ctx_t *c, const char *text)
{
    ctx_init(c);
    q2err_t err = {0};
    if (!ctx_load(c, text, &err)) fail_msg("map did not load: %s", err.msg);
}

static void ctx_free(ctx_t *c)
{
    load_free(&c->q);
    map_free(&c->q.map);
    texinfo_free(&c->q);
    plane_table_free(&c->q.planes);
    bsp_free(&c->q.bsp);
}

static tree_t *build_world(ctx_t *c, bool csg)
{
    qbsp_t *q = &c->q;
    bspbrush_t *list = csg_make_brushes(q, q->ent_firstbrush[0], q->ent_numbrushes[0]);
    aabb_t bounds = brushes_bounds(list);
    if (csg) list = csg_chop_brushes(q, list, NULL);
    return brushbsp_build(q, list, bounds, NULL);
}

static void count_leafs(const node_t *n, int *empty, int *solid)
{
    if (n->planenum != PLANENUM_LEAF) {
        count_leafs(n->children[0], empty, solid);
        count_leafs(n->children[1], empty, solid);
        return;
    }
    if (n->contents & CONTENTS_SOLID)
        (*solid)++;
    else
        (*empty)++;
}

/* ------------------------------------------------------------ tests */

static void test_room_sealed(void **state)
{
    (void)state;
    text_t t = {0};
    tprintf(&t, "{\n\"classname\" \"worldspawn\"\n");
    room(&t, 128, false);
    tprintf(&t, "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 0\"\n}\n");
    tprintf(&t, "{\n\"classname\" \"light\"\n\"origin\" \"32 32 32\"\n}\n");
    ctx_t c;
    ctx_load_ok(&c, t.s);
    assert_int_equal(c.q.nummapbrushes, 6);
    tree_t *tree = build_world(&c, true);
    portals_make_tree(&c.q, tree, false, NULL);
    int placed = portals_flood_entities(&c.q, tree);
    /* info_player_start at the exact origin is skipped as qbsp3 does (an
     * origin of 0 0 0 means none); the light is placed. */
    assert_int_equal(placed, 1);
    assert_int_equal(c.q.leaked_entity, -1);
    assert_false(tree->outside_node.occupied);
    portals_fill_outside(tree);
    int empty = 0, solid = 0;
    count_leafs(tree->headnode, &empty, &solid);
    /* A convex room is one empty leaf once the outside is filled. */
    assert_int_equal(empty, 1);
    assert_true(solid >= 1);
    node_t *inside = tree_point_leaf(&c.q, tree->headnode, vec3(10, 20, 30));
    assert_false(inside->contents & CONTENTS_SOLID);
    assert_true(inside->occupied > 0);
    /* Inside a wall, and outside the room (filled). */
    assert_true(tree_point_leaf(&c.q, tree->headnode, vec3(136, 0, 0))->contents & CONTENTS_SOLID);
    assert_true(tree_point_leaf(&c.q, tree->headnode, vec3(0, 0, -140))->contents & CONTENTS_SOLID);
    assert_true(tree_point_leaf(&c.q, tree->headnode, vec3(140, 140, 140))->contents & CONTENTS_SOLID);

    portals_mark_visible_sides(&c.q, tree, 0, c.q.nummapbrushes);
    /* The six inner faces are visible, each drawn by a wall side whose
     * plane is the portal's. */
    int visible = 0;
    for (int b = 0; b < c.q.nummapbrushes; b++)
        for (int s = 0; s < c.q.mapbrushes[b].numsides; s++) visible += c.q.mapbrushes[b].original_sides[s].visible;
    assert_int_equal(visible, 6);
    int sides = 0, portals = 0;
    for (portal_t *p = inside->portals; p; p = p->next[p->nodes[1] == inside]) {
        portals++;
        assert_true(p->nodes[0] == inside || p->nodes[1] == inside);
        assert_true(p->nodes[0] != p->nodes[1]);
        node_t *other = p->nodes[p->nodes[0] == inside];
        assert_true(other->contents & CONTENTS_SOLID);
        if (p->side) sides++;
    }
    assert_true(portals >= 6);
    assert_int_equal(sides, portals);
    int clusters = portals_number_clusters(tree, true);
    assert_int_equal(clusters, 1);
    assert_int_equal(inside->cluster, 0);
    tree_free(tree);
    ctx_free(&c);
    free(t.s);
}

static void test_room_leak(void **state)
{
    (void)state;
    text_t t = {0};
    tprintf(&t, "{\n\"classname\" \"worldspawn\"\n");
    room(&t, 128, true);
    tprintf(&t, "}\n{\n\"classname\" \"light\"\n\"origin\" \"8 8 8\"\n}\n");
    ctx_t c;
    ctx_load_ok(&c, t.s);
    tree_t *tree = build_world(&c, true);
    portals_make_tree(&c.q, tree, false, NULL);
    portals_flood_entities(&c.q, tree);
    assert_int_equal(c.q.leaked_entity, 1);
    vec3_t *pts;
    int n, e;
    assert_true(leak_path(&c.q, tree, &pts, &n, &e));
    assert_int_equal(e, 1);
    assert_true(n >= 2);
    /* From the entity to a point outside the room, through the gap. */
    assert_true(vec_equal_eps(pts[0], vec3(8, 8, 8), 1e-9));
    vec3_t last = pts[n - 1];
    assert_true(fabs(last.x) > 144 || fabs(last.y) > 144 || fabs(last.z) > 144);
    free(pts);
    tree_free(tree);
    ctx_free(&c);
    free(t.s);
}

static double list_volume(const qbsp_t *q, const bspbrush_t *l)
{
    double v = 0;
    for (; l; l = l->next) v += brush_volume(q, l);
    return v;
}

static void test_csg_overlap(void **state)
{
    (void)state;
    text_t t = {0};
    tprintf(&t, "{\n\"classname\" \"worldspawn\"\n");
    box_brush(&t, vec3(0, 0, 0), vec3(64, 64, 64), "e1u1/a", NULL);
    box_brush(&t, vec3(32, 16, -16), vec3(96, 48, 80), "e1u1/b", NULL);
    box_brush(&t, vec3(40, 20, 20), vec3(56, 30, 40), "e1u1/water1", "32 0 0"); /* inside both */
    tprintf(&t, "}\n");
    ctx_t c;
    ctx_load_ok(&c, t.s);
    assert_int_equal(c.q.nummapbrushes, 3);
    assert_int_equal(c.q.mapbrushes[2].contents, CONTENTS_WATER);
    bspbrush_t *list = csg_make_brushes(&c.q, 0, 2);
    double before = list_volume(&c.q, list);
    assert_true(fabs(before - (64.0 * 64 * 64 + 64.0 * 32 * 96)) < 1e-6);
    int frags = 0;
    list = csg_chop_brushes(&c.q, list, &frags);
    assert_true(frags >= 2);
    /* overlap: x 32..64, y 16..48, z 0..64 */
    double uni = 64.0 * 64 * 64 + 64.0 * 32 * 96 - 32.0 * 32 * 64;
    assert_true(fabs(list_volume(&c.q, list) - uni) < 1e-3);
    /* No point is claimed twice; every point of the union is claimed. */
    int claimed_twice = 0, unclaimed = 0;
    for (double x = 1.5; x < 96; x += 5)
        for (double y = 1.5; y < 64; y += 5)
            for (double z = -15.5; z < 80; z += 5) {
                bool in_a = x < 64 && y < 64 && z > 0 && z < 64;
                bool in_b = x > 32 && y > 16 && y < 48 && z > -16 && z < 80;
                int n = 0;
                for (bspbrush_t *b = list; b; b = b->next) n += brush_contains_point(&c.q, b, vec3(x, y, z), 0);
                if (n > 1) claimed_twice++;
                if ((in_a || in_b) && n == 0) unclaimed++;
                if (!in_a && !in_b) assert_int_equal(n, 0);
            }
    assert_int_equal(claimed_twice, 0);
    assert_int_equal(unclaimed, 0);
    brush_list_free(list);

    /* Water inside solid is bitten away completely; water never bites. */
    list = csg_make_brushes(&c.q, 0, 3);
    list = csg_chop_brushes(&c.q, list, NULL);
    for (bspbrush_t *b = list; b; b = b->next) assert_false(b->original->contents & CONTENTS_WATER);
    assert_true(fabs(list_volume(&c.q, list) - uni) < 1e-3);
    brush_list_free(list);
    ctx_free(&c);
    free(t.s);
}

/* The world's second pass reuses the first pass's CSG fragments with their
 * visible flags refreshed (csg_refresh_visible) instead of redoing the CSG:
 * that must give exactly the fragments a fresh CSG would give after the
 * map brush sides' flags changed, hint sides staying visible. */
static void test_csg_reuse_matches_fresh(void **state)
{
    (void)state;
    text_t t = {0};
    tprintf(&t, "{\n\"classname\" \"worldspawn\"\n");
    box_brush(&t, vec3(0, 0, 0), vec3(64, 64, 64), "e1u1/a", NULL);
    box_brush(&t, vec3(32, 16, -16), vec3(96, 48, 80), "e1u1/b", NULL);
    box_brush(&t, vec3(-32, -32, 16), vec3(16, 8, 40), "e1u1/c", NULL);
    box_brush(&t, vec3(120, 0, 0), vec3(121, 64, 64), "e1u1/hint", "0 256 0"); /* SURF_HINT, apart */
    tprintf(&t, "}\n");
    ctx_t c;
    ctx_load_ok(&c, t.s);
    qbsp_t *q = &c.q;
    int n = q->ent_numbrushes[0];
    bspbrush_t *first = csg_chop_brushes(q, csg_make_brushes(q, 0, n), NULL);
    bspbrush_t *kept = brush_list_copy(first);
    assert_int_equal(brush_list_count(kept), brush_list_count(first));
    brush_list_free(first);

    /* As portals_mark_visible_sides might leave them: every other side
     * hidden, the hint brush's sides among them. */
    int k = 0, hidden = 0;
    for (int i = 0; i < q->nummapbrushes; i++)
        for (int j = 0; j < q->mapbrushes[i].numsides; j++, k++)
            if (k % 2) {
                q->mapbrushes[i].original_sides[j].visible = false;
                hidden++;
            }
    assert_true(hidden > 4);
    csg_refresh_visible(kept);
    bspbrush_t *fresh = csg_chop_brushes(q, csg_make_brushes(q, 0, n), NULL);

    int sides = 0, visible = 0, hint_visible = 0;
    const bspbrush_t *a = kept, *b = fresh;
    for (; a && b; a = a->next, b = b->next) {
        assert_ptr_equal(a->original, b->original);
        assert_int_equal(a->numsides, b->numsides);
        for (int i = 0; i < a->numsides; i++) {
            const side_t *sa = &a->sides[i], *sb = &b->sides[i];
            assert_int_equal(sa->planenum, sb->planenum);
            assert_int_equal(sa->texinfo, sb->texinfo);
            assert_int_equal(sa->visible, sb->visible);
            assert_ptr_equal(sa->original, sb->original);
            assert_int_equal(sa->winding != NULL, sb->winding != NULL);
            if (sa->winding) {
                assert_int_equal(sa->winding->numpoints, sb->winding->numpoints);
                assert_memory_equal(sa->winding->p, sb->winding->p, sizeof(vec3_t) * (size_t)sa->winding->numpoints);
            }
            sides++;
            visible += sa->visible;
            if (sa->visible && (sa->surf & SURF_HINT)) hint_visible++;
        }
    }
    assert_null(a);
    assert_null(b);
    /* The flags really changed and were refreshed: some sides are visible,
     * some are not, and hidden hint sides still count as visible. */
    assert_true(visible > 0 && visible < sides);
    assert_true(hint_visible > 0);
    brush_list_free(kept);
    brush_list_free(fresh);
    ctx_free(&c);
    free(t.s);
}

static bool leaf_convex_inside_parents(const qbsp_t *q, const node_t *leaf)
{
    if (!leaf->volume) return true;
    for (const node_t *n = leaf, *p = leaf->parent; p; n = p, p = p->parent) {
        const plane_t *pl = plane_table_get(&q->planes, p->planenum);
        double sign = p->children[0] == n ? 1 : -1;
        for (int i = 0; i < leaf->volume->numsides; i++) {
            const winding_t *w = leaf->volume->sides[i].winding;
            if (!w) continue;
            for (int k = 0; k < w->numpoints; k++)
                if (sign * plane_dist_to(pl, w->p[k]) < -PLANESIDE_EPSILON) return false;
        }
    }
    /* The volume's own sides: every point behind every side plane. */
    for (int i = 0; i < leaf->volume->numsides; i++) {
        const plane_t *pl = plane_table_get(&q->planes, leaf->volume->sides[i].planenum);
        for (int j = 0; j < leaf->volume->numsides; j++) {
            const winding_t *w = leaf->volume->sides[j].winding;
            if (!w) continue;
            for (int k = 0; k < w->numpoints; k++)
                if (plane_dist_to(pl, w->p[k]) > PLANESIDE_EPSILON) return false;
        }
    }
    return true;
}

static void check_leaves_r(const qbsp_t *q, const node_t *n, int *leafs, int *bad, int *odd_planes)
{
    if (n->planenum != PLANENUM_LEAF) {
        if (n->planenum & 1) (*odd_planes)++;
        check_leaves_r(q, n->children[0], leafs, bad, odd_planes);
        check_leaves_r(q, n->children[1], leafs, bad, odd_planes);
        return;
    }
    (*leafs)++;
    if (!leaf_convex_inside_parents(q, n)) (*bad)++;
}

/* A staircase of brushes with slopes: every leaf's volume is enclosed by the
 * planes on the path from the root, and node planes are even. Also checks
 * that each map brush's interior points land in leafs of its contents. */
static void test_tree_convex_and_contents(void **state)
{
    (void)state;
    text_t t = {0};
    tprintf(&t, "{\n\"classname\" \"worldspawn\"\n");
    for (int i = 0; i < 8; i++)
        box_brush(&t, vec3(i * 24, -64, -64), vec3(i * 24 + 20, 64, -48 + i * 8), "e1u1/floor", NULL);
    box_brush(&t, vec3(0, 70, -64), vec3(100, 100, 0), "e1u1/water1", "32 0 0");
    box_brush(&t, vec3(60, 80, -64), vec3(150, 90, 10), "e1u1/detail", "134217728 0 0");
    tprintf(&t, "( 0 -64 64 ) ( 0 64 64 ) ( 100 64 0 ) e1u1/slope 0 0 0 1 1\n");
    tprintf(&t, "}\n");
    /* the last face line belongs to no brush: replace it with a wedge */
    char *bad = strstr(t.s, "( 0 -64 64 )");
    *bad = '\0';
    t.len = strlen(t.s);
    tprintf(&t, "{\n( 0 -64 64 ) ( 0 64 64 ) ( 100 64 0 ) e1u1/slope 0 0 0 1 1\n");
    tprintf(&t, "( 0 0 -80 ) ( 1 0 -80 ) ( 0 1 -80 ) e1u1/slope 0 0 0 1 1\n");
    tprintf(&t, "( -10 0 0 ) ( -10 1 0 ) ( -10 0 1 ) e1u1/slope 0 0 0 1 1\n");
    tprintf(&t, "( 0 -100 0 ) ( 0 -100 1 ) ( 1 -100 0 ) e1u1/slope 0 0 0 1 1\n");
    tprintf(&t, "( 0 -50 0 ) ( 1 -50 0 ) ( 0 -50 1 ) e1u1/slope 0 0 0 1 1\n}\n}\n");
    ctx_t c;
    ctx_load_ok(&c, t.s);
    assert_int_equal(c.q.nummapbrushes, 11);
    for (int threads = 1; threads <= 2; threads++) {
        c.q.opt.threads = threads;
        tree_t *tree = build_world(&c, true);
        int leafs = 0, badleafs = 0, odd = 0;
        check_leaves_r(&c.q, tree->headnode, &leafs, &badleafs, &odd);
        assert_true(leafs > 10);
        assert_int_equal(badleafs, 0);
        assert_int_equal(odd, 0);
        /* Points well inside each brush have its contents in their leaf. */
        for (int b = 0; b < c.q.nummapbrushes; b++) {
            const mapbrush_t *mb = &c.q.mapbrushes[b];
            vec3_t mid = vec_scale(vec_add(mb->bounds.mins, mb->bounds.maxs), 0.5);
            bool inside = true;
            for (int s = 0; s < mb->numsides; s++)
                if (plane_dist_to(plane_table_get(&c.q.planes, mb->original_sides[s].planenum), mid) > -1) inside = false;
            if (!inside) continue;
            node_t *leaf = tree_point_leaf(&c.q, tree->headnode, mid);
            int want = mb->contents & (CONTENTS_SOLID | CONTENTS_WATER);
            if (want & CONTENTS_SOLID)
                assert_true(leaf->contents & CONTENTS_SOLID);
            else
                assert_true(leaf->contents & want);
        }
        tree_free(tree);
    }
    ctx_free(&c);
    free(t.s);
}

static void test_load_warnings_and_errors(void **state)
{
    (void)state;
    /* A duplicate plane, a collinear plane and a brush with no volume. */
    const char *text = "{\n\"classname\" \"worldspawn\"\n"
                       "{\n"
                       "( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) t/a 0 0 0 1 1\n"
                       "( 64 0 0 ) ( 64 0 1 ) ( 64 1 0 ) t/a 0 0 0 1 1\n"
                       "( 0 0 0 ) ( 0 0 1 ) ( 1 0 0 ) t/a 0 0 0 1 1\n"
                       "( 0 64 0 ) ( 1 64 0 ) ( 0 64 1 ) t/a 0 0 0 1 1\n"
                       "( 0 0 0 ) ( 1 0 0 ) ( 0 1 0 ) t/a 0 0 0 1 1\n"
                       "( 0 0 64 ) ( 0 1 64 ) ( 1 0 64 ) t/a 0 0 0 1 1\n"
                       "( 0 0 64 ) ( 0 1 64 ) ( 1 0 64 ) t/a 0 0 0 1 1\n"
                       "( 0 0 0 ) ( 1 1 1 ) ( 2 2 2 ) t/a 0 0 0 1 1\n"
                       "}\n"
                       "{\n"
                       "( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) t/a 0 0 0 1 1\n"
                       "( 64 0 0 ) ( 64 0 1 ) ( 64 1 0 ) t/a 0 0 0 1 1\n"
                       "( 0 0 0 ) ( 0 0 1 ) ( 1 0 0 ) t/a 0 0 0 1 1\n"
                       "}\n}\n";
    ctx_t c;
    ctx_init(&c);
    FILE *devnull = fopen("/dev/null", "w");
    c.log.err = devnull;
    q2err_t err = {0};
    assert_true(ctx_load(&c, text, &err));
    assert_int_equal(c.q.nummapbrushes, 1);
    assert_int_equal(c.q.mapbrushes[0].numsides, 6);
    assert_int_equal(c.q.log->warnings, 3);
    /* one texinfo for the six sides that project alike? sides on different
     * axes project differently; but the two opposite X faces share one. */
    assert_true(c.q.numtexinfo <= 6);
    ctx_free(&c);

    /* Beyond the world: an error naming the line. */
    text_t t = {0};
    tprintf(&t, "{\n\"classname\" \"worldspawn\"\n");
    box_brush(&t, vec3(4000, 0, 0), vec3(4200, 64, 64), "t/a", NULL);
    tprintf(&t, "}\n");
    ctx_init(&c);
    c.log.err = devnull;
    memset(&err, 0, sizeof err);
    assert_false(ctx_load(&c, t.s, &err));
    assert_non_null(strstr(err.msg, "test.map:3"));
    assert_non_null(strstr(err.msg, "beyond the world"));
    ctx_free(&c);
    free(t.s);

    /* An entity outside the world. */
    ctx_init(&c);
    memset(&err, 0, sizeof err);
    assert_false(ctx_load(&c, "{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"light\"\n\"origin\" \"0 0 9000\"\n}\n", &err));
    assert_non_null(strstr(err.msg, "light"));
    assert_non_null(strstr(err.msg, "test.map:4"));
    ctx_free(&c);

    /* A texture name longer than 31 characters. */
    t = (text_t){0};
    tprintf(&t, "{\n\"classname\" \"worldspawn\"\n");
    box_brush(&t, vec3(0, 0, 0), vec3(64, 64, 64), "e1u1/a_texture_name_that_is_far_too_long", NULL);
    tprintf(&t, "}\n");
    ctx_init(&c);
    memset(&err, 0, sizeof err);
    assert_false(ctx_load(&c, t.s, &err));
    assert_non_null(strstr(err.msg, "at most 31"));
    ctx_free(&c);
    free(t.s);

    /* -micro: a brush thinner than it across one of its faces is dropped,
     * with a warning; 1/16 and 1/2 unit thin across z and y. */
    t = (text_t){0};
    tprintf(&t, "{\n\"classname\" \"worldspawn\"\n");
    box_brush(&t, vec3(0, 0, 0), vec3(64, 64, 64), "t/a", NULL);
    box_brush(&t, vec3(100, 0, 0), vec3(164, 64, 0.0625), "t/a", NULL);
    box_brush(&t, vec3(200, 0, 0), vec3(264, 0.5, 64), "t/a", NULL);
    tprintf(&t, "}\n");
    const double micro[3] = {0.1, 0.01, 1.0};
    const int kept[3] = {2, 3, 1};
    for (int i = 0; i < 3; i++) {
        ctx_init(&c);
        c.log.err = devnull;
        c.q.opt.micro = micro[i];
        memset(&err, 0, sizeof err);
        assert_true(ctx_load(&c, t.s, &err));
        assert_int_equal(c.q.nummapbrushes, kept[i]);
        assert_int_equal(c.q.log->warnings, 3 - kept[i]);
        ctx_free(&c);
    }
    free(t.s);
    fclose(devnull);
}

static void test_entities_and_origin(void **state)
{
    (void)state;
    text_t t = {0};
    tprintf(&t, "{\n\"classname\" \"worldspawn\"\n");
    box_brush(&t, vec3(0, 0, 0), vec3(64, 64, 64), "t/a", NULL);
    tprintf(&t, "}\n{\n\"classname\" \"func_group\"\n");
    box_brush(&t, vec3(100, 0, 0), vec3(164, 64, 64), "t/a", NULL);
    tprintf(&t, "}\n{\n\"classname\" \"func_rotating\"\n");
    box_brush(&t, vec3(200, 0, 0), vec3(264, 64, 64), "t/a", NULL);
    box_brush(&t, vec3(224, 24, 24), vec3(240, 40, 40), "e1u1/origin", NULL);
    tprintf(&t, "}\n{\n\"classname\" \"func_areaportal\"\n");
    box_brush(&t, vec3(300, 0, 0), vec3(304, 64, 64), "t/a", NULL);
    tprintf(&t, "}\n{\n\"classname\" \"func_wall\"\n");
    box_brush(&t, vec3(400, 0, 0), vec3(464, 64, 64), "e1u1/trans", "0 16 0");
    tprintf(&t, "}\n");
    ctx_t c;
    ctx_load_ok(&c, t.s);
    /* world: its own, the group's and the areaportal's */
    assert_int_equal(c.q.ent_numbrushes[0], 3);
    assert_int_equal(c.q.mapbrushes[1].entitynum, 1);
    assert_int_equal(c.q.mapbrushes[2].entitynum, 3);
    assert_int_equal(c.q.mapbrushes[2].contents, CONTENTS_AREAPORTAL);
    /* the origin brush is gone and its centre is the origin */
    assert_int_equal(c.q.ent_numbrushes[2], 1);
    assert_string_equal(entity_get(&c.q.map.entities[2].ent, "origin"), "232 32 32");
    const mapbrush_t *rot = &c.q.mapbrushes[c.q.ent_firstbrush[2]];
    assert_true(vec_equal_eps(rot->bounds.mins, vec3(-32, -32, -32), 1e-6));
    assert_true(vec_equal_eps(rot->bounds.maxs, vec3(32, 32, 32), 1e-6));
    /* translucent solid becomes a detail window */
    const mapbrush_t *wall = &c.q.mapbrushes[c.q.ent_firstbrush[4]];
    assert_int_equal(wall->contents, CONTENTS_WINDOW | CONTENTS_DETAIL | CONTENTS_TRANSLUCENT);
    ctx_free(&c);
    free(t.s);
}

/* Two rooms joined by a doorway, with a detail pillar: the .prt's portals
 * join different clusters, and each winding's plane faces its first cluster
 * (qbsp3's convention, which qvis reads). */
static void test_prt_orientation(void **state)
{
    (void)state;
    text_t t = {0};
    tprintf(&t, "{\n\"classname\" \"worldspawn\"\n");
    room(&t, 256, false);
    /* a dividing wall at x = -8..8 with a doorway at y = -32..32, z < 64 */
    box_brush(&t, vec3(-8, -256, -256), vec3(8, -32, 256), "e1u1/wall", NULL);
    box_brush(&t, vec3(-8, 32, -256), vec3(8, 256, 256), "e1u1/wall", NULL);
    box_brush(&t, vec3(-8, -32, 64), vec3(8, 32, 256), "e1u1/wall", NULL);
    box_brush(&t, vec3(100, 100, -256), vec3(120, 120, 0), "e1u1/pillar", "134217728 0 0");
    tprintf(&t, "}\n{\n\"classname\" \"light\"\n\"origin\" \"-100 0 0\"\n}\n");
    ctx_t c;
    ctx_load_ok(&c, t.s);
    q2err_t err = {0};
    tree_t *tree = build_world(&c, true);
    portals_make_tree(&c.q, tree, false, NULL);
    assert_int_equal(portals_flood_entities(&c.q, tree), 1);
    assert_int_equal(c.q.leaked_entity, -1);
    portals_fill_outside(tree);
    portals_mark_visible_sides(&c.q, tree, 0, c.q.nummapbrushes);
    int clusters = portals_number_clusters(tree, true);
    assert_true(clusters >= 2);
    char path[] = "/tmp/q2map_test_qbsp_prt_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    int written = 0;
    assert_true(prtfile_write(&c.q, tree, clusters, path, &written, &err));
    prt_t prt;
    assert_true(prt_read_file(path, &prt, &err));
    unlink(path);
    assert_int_equal(prt.numclusters, clusters);
    assert_int_equal(prt.numportals, written);
    assert_true(prt.numportals >= 1);
    for (int i = 0; i < prt.numportals; i++) {
        const prt_portal_t *pp = &prt.portals[i];
        assert_int_not_equal(pp->cluster[0], pp->cluster[1]);
        vec3_t n;
        double d;
        winding_plane(pp->winding, &n, &d);
        vec3_t mid = winding_center(pp->winding);
        node_t *front = tree_point_leaf(&c.q, tree->headnode, vec_ma(mid, 0.5, n));
        node_t *back = tree_point_leaf(&c.q, tree->headnode, vec_ma(mid, -0.5, n));
        assert_int_equal(front->cluster, pp->cluster[0]);
        assert_int_equal(back->cluster, pp->cluster[1]);
    }
    /* The detail pillar splits no cluster: its sides are all in one. */
    node_t *a = tree_point_leaf(&c.q, tree->headnode, vec3(90, 110, -100));
    node_t *b = tree_point_leaf(&c.q, tree->headnode, vec3(130, 110, -100));
    node_t *e = tree_point_leaf(&c.q, tree->headnode, vec3(110, 90, -100));
    assert_true(a->cluster >= 0);
    assert_int_equal(a->cluster, b->cluster);
    assert_int_equal(a->cluster, e->cluster);
    prt_free(&prt);
    tree_free(tree);
    ctx_free(&c);
    free(t.s);
}

/* The portal build with the root's two halves made at once (portals.c,
 * make_halves) against the one-thread walk on the same tree: every node's
 * list, the outside node's included, the same portals in the same order,
 * each with the same plane, winding (to the bit), node it is on and node
 * across; the same counts. Numbers nodes depth first (the outside -1). */
static void number_nodes_r(node_t *n, int *next)
{
    n->outputnumber = (*next)++;
    if (n->planenum == PLANENUM_LEAF) return;
    number_nodes_r(n->children[0], next);
    number_nodes_r(n->children[1], next);
}

static int node_number(const tree_t *t, const node_t *n) { return n == &t->outside_node ? -1 : n->outputnumber; }

static void same_lists_r(const tree_t *ta, const node_t *a, const tree_t *tb, const node_t *b)
{
    assert_int_equal(a->outputnumber, b->outputnumber);
    const portal_t *p = a->portals, *r = b->portals;
    int k = 0;
    while (p && r) {
        int sp = p->nodes[1] == a, sr = r->nodes[1] == b;
        assert_int_equal(sp, sr);
        assert_int_equal(node_number(ta, p->nodes[!sp]), node_number(tb, r->nodes[!sr]));
        assert_int_equal(p->onnode ? p->onnode->outputnumber : -2, r->onnode ? r->onnode->outputnumber : -2);
        assert_memory_equal(&p->plane.normal, &r->plane.normal, sizeof p->plane.normal);
        assert_memory_equal(&p->plane.dist, &r->plane.dist, sizeof p->plane.dist);
        assert_int_equal(p->plane.type, r->plane.type);
        assert_int_equal(p->winding->numpoints, r->winding->numpoints);
        assert_memory_equal(p->winding->p, r->winding->p, sizeof(vec3_t) * (size_t)p->winding->numpoints);
        p = p->next[sp];
        r = r->next[sr];
        k++;
    }
    if (p || r) fail_msg("node %d: lists of different lengths (%d in common)", a->outputnumber, k);
    if (a->planenum == PLANENUM_LEAF || a == &ta->outside_node) return;
    same_lists_r(ta, a->children[0], tb, b->children[0]);
    same_lists_r(ta, a->children[1], tb, b->children[1]);
}

static tree_t *build_file_world(ctx_t *c, const char *name, int threads, int halves)
{
    char path[512];
    snprintf(path, sizeof path, "%s/map/%s", Q2MAP_TEST_DATA, name);
    uint8_t *data;
    size_t size;
    q2err_t err = {0};
    if (!file_read_all(path, 1 << 26, &data, &size, &err)) fail_msg("%s: %s", path, err.msg);
    char *text = q2_malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    free(data);
    ctx_load_ok(c, text);
    free(text);
    c->q.opt.threads = threads;
    c->q.opt.halves_min_nodes = halves;
    return build_world(c, true);
}

static void test_portals_halves_match_walk(void **state)
{
    (void)state;
    static const char *maps[] = {"dm6.map", "q2_tjunc_matrix.map", "q2_liquids.map", "q2_detail.map",
                                 "q2_areaportal.map"};
    int halved = 0;
    for (size_t m = 0; m < sizeof maps / sizeof maps[0]; m++)
        for (int detail = 0; detail < 2; detail++) {
            ctx_t ca, cb;
            tree_t *ta = build_file_world(&ca, maps[m], 1, 0);
            tree_t *tb = build_file_world(&cb, maps[m], 2, 1);
            portal_stats_t sa, sb;
            portals_make_tree(&ca.q, ta, detail, &sa);
            portals_make_tree(&cb.q, tb, detail, &sb);
            assert_int_equal(ta->portals.nummore, 0);
            halved += tb->portals.nummore > 0;
            assert_int_equal(sa.portals, sb.portals);
            assert_int_equal(sa.tiny, sb.tiny);
            assert_int_equal(ta->portals.numlive, sb.portals);
            assert_int_equal(tb->portals.numlive + tb->portals.nummore, sb.portals);
            int na = 0, nb = 0;
            number_nodes_r(ta->headnode, &na);
            number_nodes_r(tb->headnode, &nb);
            assert_int_equal(na, nb);
            same_lists_r(ta, ta->headnode, tb, tb->headnode);
            same_lists_r(ta, &ta->outside_node, tb, &tb->outside_node);
            tree_free(ta);
            tree_free(tb);
            ctx_free(&ca);
            ctx_free(&cb);
        }
    /* (the halves were made where the root's children are split nodes) */
    assert_true(halved >= 6);
}

/* The entities' flood (portals.c: its leafs' portal lists walked several
 * at a time, the outside filled from a level-order list of the nodes)
 * against a plain breadth-first walk of one list at a time from the same
 * starting leafs: every leaf's distance and occupant, the outside's, the
 * leak, and then the fill's count. The starting leafs are those the flood
 * placed (distance 1), in their entities' order, as the flood queues them. */
typedef struct ref_leaf_t {
    int occupied, occupant;
} ref_leaf_t;

static void leaf_list_r(node_t *n, node_t ***all, int *count, int *cap)
{
    if (n->planenum == PLANENUM_LEAF) {
        *all = q2_grow(*all, sizeof **all, cap, *count + 1);
        (*all)[(*count)++] = n;
        return;
    }
    leaf_list_r(n->children[0], all, count, cap);
    leaf_list_r(n->children[1], all, count, cap);
}

static bool ref_passes(const qbsp_t *q, const node_t *n)
{
    return !(n->contents & CONTENTS_SOLID) || (q->opt.nodetailseal && n->detail_fill);
}

static int cmp_seed(const void *a, const void *b)
{
    const node_t *x = *(node_t *const *)a, *y = *(node_t *const *)b;
    return x->occupant_index - y->occupant_index;
}

static void check_flood(const char *name, bool nodetailseal, bool expect_leak)
{
    ctx_t c;
    tree_t *tree = build_file_world(&c, name, 1, 0);
    c.q.opt.nodetailseal = nodetailseal;
    portals_make_tree(&c.q, tree, false, NULL);
    int nn = 0;
    number_nodes_r(tree->headnode, &nn);
    node_t **leafs = NULL;
    int nl = 0, cap = 0;
    leaf_list_r(tree->headnode, &leafs, &nl, &cap);
    /* twice: the second flood must clear the first's marks */
    for (int round = 0; round < 2; round++) {
        int placed = portals_flood_entities(&c.q, tree);
        assert_true(placed > 0);
        assert_int_equal(c.q.leaked_entity >= 0, expect_leak);
        /* the reference, from the same starts */
        ref_leaf_t *ref = q2_calloc((size_t)nn + 1, sizeof *ref); /* [nn]: the outside */
        node_t **queue = q2_malloc(sizeof *queue * (size_t)(nl + 1));
        int qn = 0;
        for (int i = 0; i < nl; i++)
            if (leafs[i]->occupied == 1) queue[qn++] = leafs[i];
        assert_true(qn > 0);
        qsort(queue, (size_t)qn, sizeof *queue, cmp_seed);
        for (int i = 0; i < qn; i++) ref[queue[i]->outputnumber] = (ref_leaf_t){1, queue[i]->occupant_index};
        for (int head = 0; head < qn; head++) {
            node_t *n = queue[head];
            if (n == &tree->outside_node) continue;
            const ref_leaf_t here = ref[n->outputnumber];
            int sd;
            for (portal_t *p = n->portals; p; p = p->next[sd]) {
                sd = p->nodes[1] == n;
                node_t *o = p->nodes[!sd];
                ref_leaf_t *r = o == &tree->outside_node ? &ref[nn] : &ref[o->outputnumber];
                if (r->occupied || !ref_passes(&c.q, p->nodes[0]) || !ref_passes(&c.q, p->nodes[1])) continue;
                *r = (ref_leaf_t){here.occupied + 1, here.occupant};
                assert_true(qn <= nl);
                queue[qn++] = o;
            }
        }
        for (int i = 0; i < nl; i++) {
            const ref_leaf_t *r = &ref[leafs[i]->outputnumber];
            assert_int_equal(leafs[i]->occupied, r->occupied);
            if (r->occupied) assert_int_equal(leafs[i]->occupant_index, r->occupant);
        }
        assert_int_equal(tree->outside_node.occupied, ref[nn].occupied);
        if (expect_leak) assert_int_equal(c.q.leaked_entity, ref[nn].occupant);
        free(queue);
        free(ref);
    }
    if (!expect_leak) {
        int open = 0;
        for (int i = 0; i < nl; i++) open += !leafs[i]->occupied && !(leafs[i]->contents & CONTENTS_SOLID);
        assert_true(open > 0);
        assert_int_equal(portals_fill_outside(tree), open);
        for (int i = 0; i < nl; i++)
            if (!leafs[i]->occupied) assert_true(leafs[i]->contents & CONTENTS_SOLID);
    }
    free(leafs);
    tree_free(tree);
    ctx_free(&c);
}

static void test_flood_matches_plain_walk(void **state)
{
    (void)state;
    check_flood("dm6.map", false, false);
    check_flood("q2_areaportal.map", false, false);
    check_flood("q2_detail.map", true, false);
    check_flood("q2_leaked.map", false, true);
}

/* The areas (areas.c: each area's leafs taken breadth first, their
 * portal lists gathered several at a time) against a plain depth-first
 * flood from the same leafs in the same tree order: every leaf but the
 * areaportals' holds the same area, and the count is the same. */
static bool ref_portal_leaf(const node_t *n)
{
    return (n->contents & CONTENTS_AREAPORTAL) && !(n->contents & CONTENTS_SOLID);
}

static void ref_areas_r(node_t *n, int *area, int *ref, node_t **stack)
{
    if (n->planenum != PLANENUM_LEAF) {
        ref_areas_r(n->children[0], area, ref, stack);
        ref_areas_r(n->children[1], area, ref, stack);
        return;
    }
    if (ref[n->outputnumber] || (n->contents & CONTENTS_SOLID) || !n->occupied || ref_portal_leaf(n)) return;
    const int a = ++*area;
    int ns = 0;
    ref[n->outputnumber] = a;
    stack[ns++] = n;
    while (ns > 0) {
        node_t *x = stack[--ns];
        int sd;
        for (portal_t *p = x->portals; p; p = p->next[sd]) {
            sd = p->nodes[1] == x;
            node_t *o = p->nodes[!sd];
            if (!o || o->planenum != PLANENUM_LEAF || o->outputnumber < 0) continue;
            if ((o->contents | x->contents) & CONTENTS_SOLID) continue;
            if (ref_portal_leaf(o) || ref[o->outputnumber]) continue;
            ref[o->outputnumber] = a;
            stack[ns++] = o;
        }
    }
}

static void check_areas(const char *name, int want_areas)
{
    ctx_t c;
    tree_t *tree = build_file_world(&c, name, 1, 0);
    portals_make_tree(&c.q, tree, false, NULL);
    assert_true(portals_flood_entities(&c.q, tree) > 0);
    assert_int_equal(c.q.leaked_entity, -1);
    portals_fill_outside(tree);
    q2err_t err;
    assert_true(areas_flood(&c.q, tree, &err));
    assert_int_equal(c.q.numareas, want_areas);
    int nn = 0;
    number_nodes_r(tree->headnode, &nn);
    tree->outside_node.outputnumber = -1;
    node_t **leafs = NULL;
    int nl = 0, cap = 0;
    leaf_list_r(tree->headnode, &leafs, &nl, &cap);
    int *ref = q2_calloc((size_t)nn, sizeof(int));
    node_t **stack = q2_malloc(sizeof *stack * (size_t)(nl + 1));
    int area = 0;
    ref_areas_r(tree->headnode, &area, ref, stack);
    assert_int_equal(area, c.q.numareas);
    int checked = 0;
    for (int i = 0; i < nl; i++) {
        if (ref_portal_leaf(leafs[i])) continue;
        assert_int_equal(leafs[i]->area, ref[leafs[i]->outputnumber]);
        checked += ref[leafs[i]->outputnumber] > 0;
    }
    assert_true(checked > 0);
    free(stack);
    free(ref);
    free(leafs);
    tree_free(tree);
    writebsp_free(&c.q); /* the emission's state areas_flood made */
    ctx_free(&c);
}

static void test_areas_match_plain_flood(void **state)
{
    (void)state;
    check_areas("q2_areaportal.map", 2);
    check_areas("q2_double_areaportal.map", 3);
    check_areas("dm6.map", 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_room_sealed),
        cmocka_unit_test(test_room_leak),
        cmocka_unit_test(test_csg_overlap),
        cmocka_unit_test(test_csg_reuse_matches_fresh),
        cmocka_unit_test(test_tree_convex_and_contents),
        cmocka_unit_test(test_load_warnings_and_errors),
        cmocka_unit_test(test_entities_and_origin),
        cmocka_unit_test(test_prt_orientation),
        cmocka_unit_test(test_portals_halves_match_walk),
        cmocka_unit_test(test_flood_matches_plain_walk),
        cmocka_unit_test(test_areas_match_plain_flood),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
