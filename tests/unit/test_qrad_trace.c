/* The tracer's shortcuts give the answers of the walks they spare, on maps
 * with sky compiled by the qbsp program (tests/data/light/q2_light_sun.map,
 * tests/data/real/spirit2dm4.map) and on other compilers' bsps
 * (tests/data/qrad):
 *
 * - trace_sky_dir with a seen face (the face that blocked the last ray of
 *   the same direction, tried first, and the sky looked for only that far)
 *   and its node (the part of the hierarchy around it, walked before the
 *   rest, and seen finding blockers there) answers as trace_sky_dir without
 *   them, face and distance, for rays from
 *   points along lines through the map, as a face's luxels are;
 * - the same at an exact tie: a sky face and a wall face on the same
 *   corners, so every ray meets both at one distance, where the lower rank
 *   wins; built in both orders, so that the sky wins in one and the wall in
 *   the other, with the wall as the seen face;
 * - trace_point_leaf (the tracer's copy of the tree) finds the leaf
 *   qrad_point_leaf finds, points on the map's planes included, and
 *   trace_point_leaf_from the node trace_point_start gives for a box
 *   finds it for the box's points, corners on the planes and 1e-7 off
 *   them included, and points put on the sloped planes off whole
 *   coordinates (seen failing with the margin at -1e-12 and -1e-6 and with
 *   the back test given +margin; it passes with the margin at 0: none of
 *   its points has sums that round across 0);
 * - the sky's and the closest hits' AVX2 forms are taken wherever the CPU
 *   has AVX2, and give the SSE2 forms' answers, face and distance bits;
 * - a witness (the solid leaf that blocked the last segment to a point)
 *   never calls a segment blocked that the walk calls clear: segments from
 *   points along lines to fixed points, as bounce lights' rays, on whole
 *   coordinates and just off them, so that many run along the map's
 *   planes or dip into a wall by less than ON_EPSILON, and segments moved
 *   sideways to where they just graze their blocker; it is taken for most
 *   of the blocked ones; both forms of the test (AVX2 where the CPU has
 *   it, and SSE2); trace_occluded_channels_from with a witness of its
 *   own, from the head as direct light calls it, answers as the walk. Seen failing with the margin at 0, 0.5 and 0.9
 *   ON_EPSILON (2 is the tracer's), and with 0.5 in either form alone;
 *   the same over the leaves' planes cut down to those near each leaf
 *   (witness_reduce) and over their whole ways, with any solid leaf as
 *   the witness too, four a segment, and the cut keeping under 3/4 of the
 *   ways' planes on the real map. Seen failing with the cut dropping the
 *   sloped planes (a grazing segment) and the floors' planes (another
 *   leaf as the witness);
 * - trace_blocking_leaves_from (bounce rays in packets, walked together
 *   where the CPU has AVX2) blocks each segment exactly where the walk
 *   does, by a solid leaf: the same segments in packets of 2 to 4 from
 *   their box's start node or the head, grazing ones included, many of
 *   them parting; and on a chain of planes deeper than the packet's stack,
 *   where the open lanes are walked alone. Seen failing with a cut point
 *   given to the wrong piece, with the front test's epsilon at 0, with a
 *   wrong leaf, and with the lanes past the stack left clear;
 * - the walk without recursion (line_solid_flat, for trees solid_paths
 *   accepts) meets the recursion's first leaf on every segment above, and
 *   past its own stack on the chain of planes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../common/cpu.h"
#include "qrad.h"
#include "test_qrad_util.h"
#include "test_util.h"
#include "trace.h"

TU_SCRATCH_DIR(tmpdir, "q2map_qrad_trace")

typedef struct fixture_t {
    bsp_t bsp;
    qrad_opts_t opts;
    log_t log;
    qrad_t q;
} fixture_t;

/* name: a bsp of tests/data/qrad, or a .map (a path under tests/data)
 * compiled here by the qbsp program, once for all the tests (nothing here
 * writes the bsp) */
static void load(fixture_t *x, const char *name)
{
    char path[1024];
    size_t n = strlen(name);
    if (n > 4 && strcmp(name + n - 4, ".map") == 0) {
        const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
        char cmd[4096];
        snprintf(path, sizeof path, "%s/%.*s.bsp", tmpdir, (int)(strlen(base) - 4), base);
        FILE *have = fopen(path, "rb");
        if (have) {
            fclose(have);
        } else {
            snprintf(cmd, sizeof cmd, "cp '%s/%s' '%s/' && '%s/qbsp' -quiet -threads 1 '%s/%s' > /dev/null 2>&1",
                     Q2MAP_TEST_DATA, name, tmpdir, Q2MAP_BIN_DIR, tmpdir, base);
            if (system(cmd) != 0) fail_msg("qbsp failed on %s", name);
        }
    } else {
        snprintf(path, sizeof path, "%s/qrad/%s", Q2MAP_TEST_DATA, name);
    }
    q2err_t err;
    bsp_init(&x->bsp);
    if (!bsp_read_file(path, &x->bsp, &err)) fail_msg("%s: %s", path, err.msg);
    qrad_opts_default(&x->opts);
    x->opts.threads = 1;
    log_init(&x->log, LOG_QUIET, stdout, stderr);
    if (!qrad_begin(&x->q, &x->bsp, &x->opts, NULL, &x->log, &err)) fail_msg("%s: %s", path, err.msg);
}

static void unload(fixture_t *x)
{
    qrad_end(&x->q);
    bsp_free(&x->bsp);
}

/* The points the tests cast from: along lines parallel to each axis through
 * the world model's box, `step` units apart (a face's luxels in turn, for
 * steps of a luxel or so), the lines `gap` units apart. */
typedef struct walk_t {
    vec3_t lo, hi;
    int axis;
    double u, v, t, step, gap;
} walk_t;

static void walk_begin(walk_t *w, const bsp_t *bsp, int axis, double step, double gap)
{
    w->step = step;
    w->gap = gap;
    const dmodel_t *m = &bsp->models[0];
    w->lo = vec3(m->mins[0] + 1, m->mins[1] + 1, m->mins[2] + 1);
    w->hi = vec3(m->maxs[0] - 1, m->maxs[1] - 1, m->maxs[2] - 1);
    w->axis = axis;
    w->u = vec_comp(w->lo, (axis + 1) % 3);
    w->v = vec_comp(w->lo, (axis + 2) % 3);
    w->t = vec_comp(w->lo, axis);
}

static bool walk_next(walk_t *w, vec3_t *p)
{
    const int a = w->axis, b = (a + 1) % 3, c = (a + 2) % 3;
    if (w->v > vec_comp(w->hi, c)) return false;
    vec_set_comp(p, a, w->t);
    vec_set_comp(p, b, w->u);
    vec_set_comp(p, c, w->v);
    w->t += w->step;
    if (w->t > vec_comp(w->hi, a)) {
        w->t = vec_comp(w->lo, a);
        w->u += w->gap;
        if (w->u > vec_comp(w->hi, b)) {
            w->u = vec_comp(w->lo, b);
            w->v += w->gap;
        }
    }
    return true;
}

static bool open_point(const bsp_t *bsp, vec3_t p)
{
    int leaf = qrad_point_leaf(bsp, p);
    return leaf >= 0 && !(bsp->leafs[leaf].contents & CONTENTS_SOLID);
}

#define DIRS 24

/* Every answer three ways: with the seen face, without it, and (where
 * the CPU has AVX2, so the tracer takes those forms) with the seen face in
 * the SSE2 forms, which must give the same bits; there trace_closest's
 * answers down the same directions too.
 *
 * deep: the blockers the walk meets hang in the world's hierarchy deep
 * enough that their node to search first (SEEN_NODE_UP above their
 * leaf's) is not the root, and the search there must find blockers. Not
 * so on q2_light_sun: of its six wide nodes of eight lanes only one lies
 * two levels below the root, and no ray here is blocked under it, so no
 * ray has a node to search first (asserted, so a change is seen) and the
 * seen face alone is exercised. */
static void check_sky(const char *name, double step, double gap, bool deep)
{
    fixture_t x;
    load(&x, name);
    const tracer_t *t = &x.q.tracer;
    assert_true(t->numskytris > 0);
    /* the AVX2 forms are taken wherever the CPU has them */
    assert_int_equal(t->wide_avx2, cpu_has_avx2());
    tracer_t plain = *t;
    plain.wide_avx2 = false;

    trace_dir_t td[DIRS];
    for (int k = 0; k < DIRS; k++) {
        /* a Fibonacci lattice over the upper hemisphere, as the dome's */
        double z = 1.0 - (k + 0.5) / DIRS, r = sqrt(1 - z * z), a = k * 2.39996322972865332;
        trace_dir_init(&td[k], vec3(r * cos(a), r * sin(a), z));
    }
    long rays = 0, tried = 0, near = 0, nearhits = 0, sky = 0, blocked = 0;
    for (int axis = 0; axis < 3; axis++) {
        trace_hit_t seen[DIRS], seen2[DIRS];
        for (int k = 0; k < DIRS; k++) seen[k] = seen2[k] = (trace_hit_t){-1, -1, 0};
        walk_t w;
        walk_begin(&w, &x.bsp, axis, step, gap);
        vec3_t p;
        while (walk_next(&w, &p)) {
            if (!open_point(&x.bsp, p)) continue;
            for (int k = 0; k < DIRS; k++) {
                double d0 = -1, d1 = -1;
                tried += seen[k].face >= 0;
                near += seen[k].node > 0;
                int f1 = trace_sky_dir(t, p, &td[k], 2 * WORLD_EXTENT, &d1, &seen[k]);
                int f0 = trace_sky_dir(t, p, &td[k], 2 * WORLD_EXTENT, &d0, NULL);
                if (f0 != f1 || memcmp(&d0, &d1, sizeof d0) != 0)
                    fail_msg("%s: from (%g %g %g) along direction %d: %d at %.17g without the seen face, %d at %.17g "
                             "with it",
                             name, p.x, p.y, p.z, k, f0, d0, f1, d1);
                if (t->wide_avx2) {
                    double d2 = -1;
                    int f2 = trace_sky_dir(&plain, p, &td[k], 2 * WORLD_EXTENT, &d2, &seen2[k]);
                    if (f2 != f1 || memcmp(&d2, &d1, sizeof d1) != 0)
                        fail_msg("%s: from (%g %g %g) along direction %d: %d at %.17g in the AVX2 forms, %d at %.17g "
                                 "in the SSE2 ones",
                                 name, p.x, p.y, p.z, k, f1, d1, f2, d2);
                    /* and the nearest face of all, down the lattice */
                    vec3_t down = vec_scale(td[k].d, -1);
                    double c1 = -1, c2 = -1;
                    int g1 = trace_closest(t, p, down, 2 * WORLD_EXTENT, &c1);
                    int g2 = trace_closest(&plain, p, down, 2 * WORLD_EXTENT, &c2);
                    if (g1 != g2 || memcmp(&c1, &c2, sizeof c1) != 0)
                        fail_msg("%s: from (%g %g %g) down direction %d: nearest %d at %.17g in the AVX2 forms, %d at "
                                 "%.17g in the SSE2 ones",
                                 name, p.x, p.y, p.z, k, g1, c1, g2, c2);
                }
                rays++;
                if (f0 >= 0) sky++;
                else blocked++;
            }
        }
        for (int k = 0; k < DIRS; k++) nearhits += seen[k].nearhits;
    }
    /* both answers were met, the seen face was tried many times, and so
     * (where the hierarchy is deep) was the part of the hierarchy around
     * it, which found many blockers */
    assert_true(sky > 100);
    assert_true(blocked > 100);
    assert_true(tried > rays / 4);
    if (deep) {
        assert_true(near > rays / 4);
        assert_true(nearhits > 100);
    } else {
        assert_int_equal(near, 0);
    }
    print_message("%s: %ld rays, %ld with a node to search first, %ld blocked there; %d wide nodes; %s\n", name,
                  rays, near, nearhits, t->numnodes,
                  t->wide_avx2 ? "AVX2 forms checked against SSE2" : "no AVX2 forms on this build or CPU");
    unload(&x);
}

/* The box of the given radius around p: its centre and corners must be in
 * the leaves of the walk from the top when walked from trace_point_start's
 * node; returns that node. */
static int check_box(fixture_t *x, const char *name, vec3_t p, double radius)
{
    vec3_t h = vec3(radius, radius, radius);
    aabb_t box = {vec_sub(p, h), vec_add(p, h)};
    int start = trace_point_start(&x->q, box);
    for (int c = 0; c < 9; c++) {
        vec3_t pt = c == 8 ? p
                           : vec3(c & 1 ? box.maxs.x : box.mins.x, c & 2 ? box.maxs.y : box.mins.y,
                                  c & 4 ? box.maxs.z : box.mins.z);
        int want = trace_point_leaf(&x->q, pt), got = trace_point_leaf_from(&x->q, start, pt);
        if (want != got)
            fail_msg("%s: (%.17g %.17g %.17g) in leaf %d, from node %d of its box (radius %g) in leaf %d", name, pt.x,
                     pt.y, pt.z, want, start, radius, got);
    }
    return start;
}

/* Returns how many boxes on sloped planes it checked. */
static long check_leaf(const char *name, double gap)
{
    fixture_t x;
    load(&x, name);
    assert_non_null(x.q.tracer.tnodes);
    long points = 0, open = 0, deep = 0;
    for (int axis = 0; axis < 3; axis++) {
        walk_t w;
        walk_begin(&w, &x.bsp, axis, 4, gap);
        /* whole coordinates: a Quake map's planes mostly lie on them */
        w.lo = vec3(floor(w.lo.x), floor(w.lo.y), floor(w.lo.z));
        w.u = floor(w.u);
        w.v = floor(w.v);
        w.t = floor(w.t);
        vec3_t p;
        while (walk_next(&w, &p)) {
            int a = qrad_point_leaf(&x.bsp, p), b = trace_point_leaf(&x.q, p);
            if (a != b) fail_msg("%s: (%g %g %g) in leaf %d, trace_point_leaf says %d", name, p.x, p.y, p.z, a, b);
            points++;
            open += a >= 0 && !(x.bsp.leafs[a].contents & CONTENTS_SOLID);
            /* from the start node of boxes around p (their corners on the
             * planes too, when p is, or just off them): p and the corners
             * in the leaves the walk from the top finds */
            static const double radii[] = {0, 1e-7, 0.5, 8, 64};
            for (int r = 0; r < 5; r++) {
                int start = check_box(&x, name, p, radii[r]);
                deep += start >= 0 && start != x.q.tracer.headnode;
            }
        }
    }
    assert_true(points > 1000);
    assert_true(open > 100 && open < points);
    /* most boxes start below the head */
    assert_true(deep > points);
    /* Points put on the map's sloped planes, off whole coordinates, where
     * a box's sums and a point's (added in other orders) round apart: the
     * margin must cover that. */
    long onplane = 0;
    for (int i = 0; i < x.bsp.numnodes; i++) {
        const dplane_t *pl = &x.bsp.planes[x.bsp.nodes[i].planenum];
        if (pl->type < 3) continue;
        vec3_t n = vec3(pl->normal[0], pl->normal[1], pl->normal[2]);
        double dist = pl->dist;
        vec3_t u = vec_normalize(vec_cross(n, fabs(n.z) < 0.9 ? vec3(0, 0, 1) : vec3(1, 0, 0)), NULL);
        vec3_t v = vec_cross(n, u);
        static const double offs[][2] = {{0.37, 1.91}, {13.3, -7.7}, {-101.1, 55.5}, {257.25, 31.125}};
        for (int k = 0; k < 4; k++) {
            vec3_t p = vec_add(vec_scale(n, dist), vec_add(vec_scale(u, offs[k][0]), vec_scale(v, offs[k][1])));
            p = vec_ma(p, -(vec_dot(n, p) - dist), n);
            static const double radii[] = {0, 1e-9, 1e-3};
            for (int r = 0; r < 3; r++) {
                check_box(&x, name, p, radii[r]);
                onplane++;
            }
        }
    }
    unload(&x);
    return onplane;
}

/* A blocked segment p-light moved sideways (p alone, along a direction
 * across the segment) to where the walk's answer turns to clear: there it
 * grazes its blocker, and segments a little to the clear side run within
 * ON_EPSILON of it, which the walk lets through. The blocker of the last
 * blocked one, as a witness, must call none of them blocked; it should be
 * taken for the blocked ones just before (grazetaken counts those). */
/* Segments to one light in packets of 2 to TRACE_PACKET, walked together
 * by trace_blocking_leaves_from from the start node of their box (every
 * other packet) or the head: each must be blocked exactly where
 * trace_occluded_from says so from that node, and by a solid leaf. */
typedef struct packet_count_t {
    long sized[TRACE_PACKET + 1], parted;
} packet_count_t;

typedef struct packet_t {
    vec3_t a[TRACE_PACKET];
    int n, made;
} packet_t;

static void packet_flush(const qrad_t *q, packet_t *pk, vec3_t light, packet_count_t *pc)
{
    const int n = pk->n;
    pk->n = 0;
    if (n == 0) return;
    aabb_t box = aabb_empty();
    for (int l = 0; l < n; l++) aabb_add_point(&box, pk->a[l]);
    int start = pk->made++ % 2 ? trace_start_node(q, box, light) : q->tracer.headnode;
    int leaf[TRACE_PACKET], nblocked = 0;
    trace_blocking_leaves_from(q, start, light, n, pk->a, leaf);
    for (int l = 0; l < n; l++) {
        bool walk = trace_occluded_from(q, start, pk->a[l], light);
        if ((leaf[l] >= 0) != walk)
            fail_msg("(%.17g %.17g %.17g) to (%g %g %g), lane %d of %d: the walk says %s, the packet %s",
                     pk->a[l].x, pk->a[l].y, pk->a[l].z, light.x, light.y, light.z, l, n, walk ? "blocked" : "clear",
                     leaf[l] >= 0 ? "blocked" : "clear");
        if (leaf[l] >= 0) {
            assert_true(leaf[l] < q->bsp->numleafs);
            assert_true(q->bsp->leafs[leaf[l]].contents & CONTENTS_SOLID);
        }
        nblocked += walk;
    }
    pc->sized[n]++;
    pc->parted += nblocked > 0 && nblocked < n;
}

/* sizes 4, 3, 2 in turn */
static void packet_add(const qrad_t *q, packet_t *pk, vec3_t a, vec3_t light, packet_count_t *pc)
{
    pk->a[pk->n++] = a;
    if (pk->n == TRACE_PACKET - pk->made % (TRACE_PACKET - 1)) packet_flush(q, pk, light, pc);
}

static void graze(const qrad_t *q, const char *name, vec3_t p, vec3_t light, long *grazed, long *grazetaken,
                  packet_count_t *pc)
{
    vec3_t dir = vec_sub(light, p), axis = fabs(dir.z) < fabs(dir.x) ? vec3(0, 0, 1) : vec3(1, 0, 0);
    vec3_t side = vec_normalize(vec_cross(dir, axis), NULL);
    double lo = 0, hi = 1;
    while (hi <= 64 && trace_occluded(q, vec_ma(p, hi, side), light)) {
        lo = hi;
        hi *= 2;
    }
    if (hi > 64) return;
    for (int it = 0; it < 60; it++) {
        double mid = 0.5 * (lo + hi);
        if (trace_occluded(q, vec_ma(p, mid, side), light)) lo = mid;
        else hi = mid;
    }
    int wit = trace_blocking_leaf_from(q, q->tracer.headnode, vec_ma(p, lo, side), light);
    assert_true(wit >= 0);
    (*grazed)++;
    static const double steps[] = {1e-6, 1e-4, 1e-3, 3e-3, 5e-3, 7e-3, 1e-2, 1.5e-2, 2e-2, 3e-2};
    /* (and in packets, which part there: some lanes graze, some are blocked) */
    packet_t pk = {.n = 0};
    for (int k = 0; k < (int)(sizeof steps / sizeof steps[0]); k++)
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            vec3_t s = vec_ma(p, (sgn < 0 ? lo : hi) + sgn * steps[k], side);
            packet_add(q, &pk, s, light, pc);
            bool walk = trace_occluded(q, s, light);
            if (trace_witness_blocks(q, q->tracer.headnode, wit, s, light)) {
                *grazetaken += walk;
                if (!walk)
                    fail_msg("%s: (%.17g %.17g %.17g) to (%g %g %g), grazing: clear, but the witness (leaf %d) "
                             "calls it blocked",
                             name, s.x, s.y, s.z, light.x, light.y, light.z, wit);
            }
        }
    packet_flush(q, &pk, light, pc);
}

static void check_witness_form(fixture_t *fx, const char *name, double gap, double off);

/* Both forms of the witness test where the CPU has AVX2 (it is taken
 * then), the SSE2 or portable one alone elsewhere; each over the leaves'
 * cut-down planes (witness_reduce), and over their whole ways. */
static void check_witness(const char *name, double gap, double off)
{
    fixture_t x;
    load(&x, name);
    tracer_t *t = &x.q.tracer;
    assert_non_null(t->solidpath_first);
    assert_non_null(t->wred_first);
    /* a cut leaf keeps fewer planes than its way holds, and some; over
     * the solid leaves, under 3/4 of the ways' planes (on the real map:
     * the small ones have few planes to drop) */
    long way = 0, kept = 0;
    for (int l = 0; l < t->numsolidpathleafs; l++) {
        int nw = t->solidpath_first[l + 1] - t->solidpath_first[l], nb = t->wred_first[l + 1] - t->wred_first[l];
        if (nw == 0) assert_int_equal(nb, 0);
        if (nw == 0 || nb == 0) {
            kept += nw;
        } else {
            /* (each block ends in trace.c's WITNESS_PAD of 3) */
            assert_true(nb - 3 > 0 && nb - 3 < nw);
            kept += nb - 3;
        }
        way += nw;
    }
    if (strstr(name, "real/") && !(kept < way * 3 / 4))
        fail_msg("%s: the witnesses keep %ld of their ways' %ld planes", name, kept, way);
    bool avx2 = t->avx2;
    int *wred = t->wred_first;
    /* (the whole ways in the CPU's own form alone) */
    check_witness_form(&x, name, gap, off);
    if (avx2) {
        t->avx2 = false;
        check_witness_form(&x, name, gap, off);
        t->avx2 = true;
    }
    t->wred_first = NULL;
    check_witness_form(&x, name, gap, off);
    t->wred_first = wred;
    t->avx2 = avx2;
    unload(&x);
}

static void check_witness_form(fixture_t *fx, const char *name, double gap, double off)
{
    const qrad_t *q = &fx->q;
    const bsp_t *bsp = &fx->bsp;
    const dmodel_t *m = &bsp->models[0];
    long rays = 0, blocked = 0, taken = 0, grazed = 0, grazetaken = 0, anytaken = 0;
    packet_count_t pc = {0};
    /* the fixed points: open points of a coarse grid on whole coordinates */
    for (double lz = floor(m->mins[2]) + 24; lz < m->maxs[2]; lz += 4 * gap)
        for (double ly = floor(m->mins[1]) + 24; ly < m->maxs[1]; ly += 4 * gap)
            for (double lx = floor(m->mins[0]) + 24; lx < m->maxs[0]; lx += 4 * gap) {
                vec3_t light = vec3(lx, ly, lz);
                if (!open_point(bsp, light)) continue;
                for (int axis = 0; axis < 3; axis++) {
                    walk_t w;
                    walk_begin(&w, bsp, axis, 8, gap);
                    w.lo = vec3(floor(w.lo.x), floor(w.lo.y), floor(w.lo.z));
                    w.u = floor(w.u);
                    w.v = floor(w.v);
                    w.t = floor(w.t);
                    vec3_t p;
                    int wit = -1, cwit = -1, k = 0;
                    packet_t pk = {.n = 0};
                    while (walk_next(&w, &p)) {
                        /* every third point a little off the whole
                         * coordinates, in turn into and out of the walls */
                        int third = k++ % 3;
                        if (third == 1) p = vec_add(p, vec3(off, -off, off));
                        if (third == 2) p = vec_add(p, vec3(-off, off, -off));
                        aabb_t box = aabb_empty();
                        aabb_add_point(&box, p);
                        int start = k % 2 ? trace_start_node(q, box, light) : q->tracer.headnode;
                        bool walk = trace_occluded_from(q, start, p, light);
                        rays++;
                        blocked += walk;
                        if (wit >= 0 && trace_witness_blocks(q, start, wit, p, light)) {
                            taken++;
                            if (!walk)
                                fail_msg("%s: (%.17g %.17g %.17g) to (%g %g %g): clear, but the witness (leaf %d) "
                                         "calls it blocked",
                                         name, p.x, p.y, p.z, light.x, light.y, light.z, wit);
                        }
                        /* any solid leaf is a sound witness (bounce rays
                         * try the blockers of other rays, other lights'
                         * too): four of them in turn, from the head */
                        for (int j = 0; j < 4; j++) {
                            int any = (int)(((long)rays * 4 + j) * 7919 % bsp->numleafs);
                            if (!(bsp->leafs[any].contents & CONTENTS_SOLID)) continue;
                            bool head = trace_witness_blocks(q, q->tracer.headnode, any, p, light);
                            anytaken += head;
                            if (head && !walk)
                                fail_msg("%s: (%.17g %.17g %.17g) to (%g %g %g): clear, but leaf %d as a witness "
                                         "calls it blocked",
                                         name, p.x, p.y, p.z, light.x, light.y, light.z, any);
                        }
                        int hit = trace_blocking_leaf_from(q, start, p, light);
                        assert_true((hit >= 0) == walk);
                        /* the walk without recursion (taken for this tree)
                         * meets the recursion's first leaf */
                        int *paths = fx->q.tracer.solidpath_first;
                        fx->q.tracer.solidpath_first = NULL;
                        assert_int_equal(trace_blocking_leaf_from(q, start, p, light), hit);
                        fx->q.tracer.solidpath_first = paths;
                        /* direct light's form, from the head with its own witness */
                        assert_true(trace_occluded_channels_from(q, trace_head_node(q), p, light, 1, &cwit) == walk);
                        if (hit >= 0) wit = hit;
                        if (hit >= 0 && blocked % 16 == 0) graze(q, name, p, light, &grazed, &grazetaken, &pc);
                        packet_add(q, &pk, p, light, &pc);
                    }
                    packet_flush(q, &pk, light, &pc);
                }
            }
    assert_true(rays > 10000);
    assert_true(blocked > rays / 10 && blocked < rays);
    /* the witness is taken for most blocked segments; other leaves now
     * and then */
    assert_true(taken > blocked / 2);
    assert_true(anytaken > 0);
    assert_true(grazed > 50);
    assert_true(grazetaken > grazed);
    /* packets of every size, many whose segments part (some blocked,
     * some clear) */
    for (int n = 2; n <= TRACE_PACKET; n++) assert_true(pc.sized[n] > 100);
    assert_true(pc.parted > 200);
}

static void test_witness(void **state)
{
    (void)state;
    check_witness("real/spirit2dm4.map", 128, 0.004);
    check_witness("ericw-q2_liquids.bsp", 32, 0.004);
    check_witness("id-q2_light_sun.bsp", 64, 0.004);
    check_witness("q2tools-220-q2_detail.bsp", 32, 0.004);
}

/* A packet whose pieces wait deeper than the packet's stack holds: a
 * chain of COMB planes x = 8k, each node's front child the next node and
 * its back child an empty leaf of its own, the last front leaf solid or
 * empty. Segments from x beyond the chain's end to x < 0 split at every
 * node with their near piece going down the chain, so a piece waits per
 * node; past the stack the packet's open lanes are walked alone. Every
 * lane must answer as the walk, in both cases. */
#define COMB 80

static void check_deep_packet(bool solid_end)
{
    tb_t b;
    tb_init(&b);
    bsp_t *s = &b.bsp;
    s->numnodes = COMB;
    s->nodes = calloc(COMB, sizeof(dnode_t));
    s->numleafs = COMB + 1;
    s->leafs = calloc(COMB + 1, sizeof(dleaf_t));
    for (int k = 0; k <= COMB; k++) s->leafs[k].cluster = -1;
    s->leafs[COMB].contents = solid_end ? CONTENTS_SOLID : 0;
    for (int k = 0; k < COMB; k++) {
        s->nodes[k].planenum = tb_plane(&b, vec3(1, 0, 0), 8.0 * k);
        s->nodes[k].children[0] = k + 1 < COMB ? k + 1 : -(COMB + 1);
        s->nodes[k].children[1] = -(k + 1);
    }
    qrad_t q;
    memset(&q, 0, sizeof q);
    q.bsp = s;
    q2err_t err;
    assert_true(tracer_build_tree(&q.tracer, s, &err));
    assert_non_null(q.tracer.solidpath_first);
    q.tracer.avx2 = cpu_has_avx2();
    const vec3_t light = vec3(-4, 3, 5);
    for (int n = 2; n <= TRACE_PACKET; n++) {
        vec3_t a[TRACE_PACKET];
        int leaf[TRACE_PACKET];
        for (int l = 0; l < n; l++) a[l] = vec3(8.0 * COMB + 3 + l, 1.5 * l, -2.0 * l);
        trace_blocking_leaves_from(&q, q.tracer.headnode, light, n, a, leaf);
        for (int l = 0; l < n; l++) {
            assert_int_equal(leaf[l] >= 0, trace_occluded_from(&q, q.tracer.headnode, a[l], light));
            assert_int_equal(leaf[l] >= 0, solid_end);
            /* one segment alone: past the walk's own stack too */
            assert_int_equal(trace_blocking_leaf_from(&q, q.tracer.headnode, a[l], light), solid_end ? COMB : -1);
        }
    }
    tracer_free(&q.tracer);
    tb_free(&b);
}

static void test_deep_packet(void **state)
{
    (void)state;
    check_deep_packet(true);
    check_deep_packet(false);
}

/* The tie: a sky room, and under its ceiling a wall face and a sky face on
 * the same corners (wall_first: the wall is made first). Returns what
 * trace_sky_dir says of a ray from below through both, without a seen face,
 * after checking that with the wall as the seen face it says the same. */
static int tie_answer(bool wall_first)
{
    tb_t b;
    tb_init(&b);
    vec3_t lo = vec3(-256, -256, 0), hi = vec3(256, 256, 256);
    tb_axial(&b, 2, 0, +1, lo, hi, 0, 0, NULL);
    tb_axial(&b, 2, 256, -1, lo, hi, SURF_SKY, 0, "test/sky");
    for (int ax = 0; ax < 2; ax++) {
        tb_axial(&b, ax, vec_comp(lo, ax), +1, lo, hi, 0, 0, NULL);
        tb_axial(&b, ax, vec_comp(hi, ax), -1, lo, hi, 0, 0, NULL);
    }
    vec3_t plo = vec3(-64, -64, 0), phi = vec3(64, 64, 0);
    int wall = -1;
    for (int k = 0; k < 2; k++) {
        bool is_wall = (k == 0) == wall_first;
        int f = tb_axial(&b, 2, 128, -1, plo, phi, is_wall ? 0 : SURF_SKY, 0, is_wall ? "test/wall" : "test/sky");
        if (is_wall) wall = f;
    }
    tb_room_tree(&b, lo, hi);
    tb_entities(&b, "{\n\"classname\" \"worldspawn\"\n}\n");
    qrad_opts_t o;
    qrad_opts_default(&o);
    o.threads = 1;
    log_t log;
    log_init(&log, LOG_QUIET, stdout, stderr);
    qrad_t q;
    q2err_t err;
    if (!qrad_begin(&q, &b.bsp, &o, NULL, &log, &err)) fail_msg("qrad_begin: %s", err.msg);
    trace_dir_t td;
    trace_dir_init(&td, vec_normalize(vec3(0.1, 0.05, 1), NULL));
    vec3_t p = vec3(3.25, -7.5, 20);
    double d0 = -1, d1 = -1;
    int plain = trace_sky_dir(&q.tracer, p, &td, 2 * WORLD_EXTENT, &d0, NULL);
    trace_hit_t seen = {.face = wall};
    int with = trace_sky_dir(&q.tracer, p, &td, 2 * WORLD_EXTENT, &d1, &seen);
    if (plain != with || memcmp(&d0, &d1, sizeof d0) != 0)
        fail_msg("tie (wall %s): %d at %.17g without the seen face, %d at %.17g with the wall as it",
                 wall_first ? "first" : "second", plain, d0, with, d1);
    qrad_end(&q);
    tb_free(&b);
    return plain;
}

static void test_sky_seen_face_tie(void **state)
{
    (void)state;
    int a = tie_answer(true), b = tie_answer(false);
    /* one order lets the sky face win the tie, the other the wall */
    assert_true((a < 0) != (b < 0));
}

static void test_sky_seen_face_light_sun(void **state)
{
    (void)state;
    check_sky("light/q2_light_sun.map", 4, 16, false);
}

static void test_sky_seen_face_spirit2dm4(void **state)
{
    (void)state;
    check_sky("real/spirit2dm4.map", 8, 96, true);
}

static void test_point_leaf(void **state)
{
    (void)state;
    check_leaf("ericw-q2_liquids.bsp", 16);
    check_leaf("id-q2_light_sun.bsp", 16);
    check_leaf("q2tools-220-q2_detail.bsp", 16);
    /* (the small maps have few sloped planes; this one many) */
    assert_true(check_leaf("real/spirit2dm4.map", 64) > 300);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sky_seen_face_light_sun),
        cmocka_unit_test(test_sky_seen_face_spirit2dm4),
        cmocka_unit_test(test_sky_seen_face_tie),
        cmocka_unit_test(test_point_leaf),
        cmocka_unit_test(test_witness),
        cmocka_unit_test(test_deep_packet),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
