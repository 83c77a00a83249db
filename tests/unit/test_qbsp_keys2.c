/* qbsp's keys and options of issue 13 (second part): CSG order (_chop_order,
 * _chop), ericw-tools' Quake 2 _mirrorinside defaults, the lighting keys of
 * func_group/func_detail passed to qrad (Q2MAP_GROUPKEYS), -omitdetail,
 * -includeskip, -add, -convert and the qbsp options that had no test. Small
 * maps written here, compiled by the qbsp program (and lit by qrad_run), the
 * .bsp checked; each check compares with the key or option and without. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qrad.h"
#include "../../common/fileio.h"
#include "../../formats/bspfile.h"
#include "../../formats/bspx.h"
#include "../../formats/entities.h"
#include "../../formats/groupkeys.h"
#include "../../formats/keytable.h"
#include "../../qbsp/groupkeys.h"
#include "../../formats/prt.h"
#include "../../formats/q2defs.h"
#include "test_util.h"

#include "test_qbsp_maps.h"

static const vec3_t UP = {0, 0, 1}, DOWN = {0, 0, -1};

/* ------------------------------------------------------------ _chop_order */

/* Two solid boxes whose tops are coplanar and overlap over x 128..192: the
 * brush that wins the CSG shows its texture there. */
static void chop_map(mt_t *m, const char *akeys, const char *bkeys)
{
    mt_room(m, "");
    mt_end_world(m);
    mt_printf(m, "{\n\"classname\" \"func_group\"\n%s", akeys);
    mt_box(m, 64, 64, 0, 192, 192, 64, "e1u1/boxa", "");
    mt_printf(m, "}\n{\n\"classname\" \"func_group\"\n%s", bkeys);
    mt_box(m, 128, 64, 0, 256, 192, 64, "e1u1/boxb", "");
    mt_printf(m, "}\n");
}

static void test_key_chop_order(void **state)
{
    (void)state;
    mt_t m = {0};
    result_t plain, bwins, awins;
    chop_map(&m, "", "");
    compile_mt("chop_plain", &m, NULL, &plain);
    chop_map(&m, "\"_chop_order\" \"0\"\n", "\"_chop_order\" \"1\"\n");
    compile_mt("chop_b", &m, NULL, &bwins);
    chop_map(&m, "\"_chop_order\" \"2\"\n", "\"_chop_order\" \"1\"\n");
    compile_mt("chop_a", &m, NULL, &awins);
    need_bsp(&plain);
    need_bsp(&bwins);
    need_bsp(&awins);
    const vec3_t overlap = vec3(160, 128, 64);
    /* qbsp3's rule alone: the first brush keeps the overlap. */
    assert_string_equal(texture_at(&plain.bsp, overlap, UP), "e1u1/boxa");
    /* A higher _chop_order on the second brush makes it win. */
    assert_string_equal(texture_at(&bwins.bsp, overlap, UP), "e1u1/boxb");
    assert_string_equal(texture_at(&awins.bsp, overlap, UP), "e1u1/boxa");
    /* Outside the overlap each box shows its own. */
    assert_string_equal(texture_at(&bwins.bsp, vec3(96, 128, 64), UP), "e1u1/boxa");
    assert_string_equal(texture_at(&bwins.bsp, vec3(224, 128, 64), UP), "e1u1/boxb");
    result_free(&plain);
    result_free(&bwins);
    result_free(&awins);
}

static int fragments(const char *log)
{
    const char *s = strstr(log, " fragments,");
    assert_non_null(s);
    while (s > log && s[-1] != '\n' && s[-1] != ' ') s--;
    while (s > log && s[-1] == ' ') s--;
    while (s > log && s[-1] >= '0' && s[-1] <= '9') s--;
    return atoi(s);
}

/* A box inside another one: CSG swallows it, unless _chop 0 keeps it. */
static void nochop_map(mt_t *m, const char *keys)
{
    mt_room(m, "");
    mt_end_world(m);
    mt_printf(m, "{\n\"classname\" \"func_group\"\n");
    mt_box(m, 64, 64, 0, 256, 192, 64, "e1u1/boxa", "");
    mt_printf(m, "}\n{\n\"classname\" \"func_group\"\n%s", keys);
    mt_box(m, 128, 96, 0, 192, 160, 64, "e1u1/boxb", "");
    mt_printf(m, "}\n");
}

static void test_key_chop(void **state)
{
    (void)state;
    mt_t m = {0};
    result_t on, off;
    nochop_map(&m, "");
    compile_mt("chop_on", &m, "-threads 2", &on);
    nochop_map(&m, "\"_chop\" \"0\"\n");
    compile_mt("chop_off", &m, "-threads 2", &off);
    need_bsp(&on);
    need_bsp(&off);
    /* Chopped, the inner box is swallowed: one fragment fewer than with
     * _chop 0, where both stay whole. The top is drawn once either way. */
    int fon = fragments(on.log), foff = fragments(off.log);
    if (foff != fon + 1) fail_msg("_chop 0: %d fragments, %d with chopping", foff, fon);
    assert_int_equal(faces_at(&on.bsp, vec3(160, 128, 64), UP), 1);
    assert_int_equal(faces_at(&off.bsp, vec3(160, 128, 64), UP), 1);
    result_free(&on);
    result_free(&off);
}

/* ------------------------------------------------------- _mirrorinside */

/* One brush of each kind, the key (when given) on each entity. Tops at
 * z 64, centres 96 apart along x. */
static void mirror_defaults_map(mt_t *m, const char *key)
{
    mt_room(m, "");
    mt_end_world(m);
    const char *k = key ? key : "";
    /* water, world mist, a translucent solid (a window), aux contents */
    mt_printf(m, "{\n\"classname\" \"func_group\"\n%s", k);
    mt_box(m, 32, 64, 0, 96, 128, 64, "e1u1/water", " 32 0 0");
    mt_box(m, 128, 64, 0, 192, 128, 64, "e1u1/mist", " 64 0 0");
    mt_box(m, 224, 64, 0, 288, 128, 64, "e1u1/glass", " 1 16 0");
    mt_box(m, 320, 64, 0, 384, 128, 64, "e1u1/aux", " 4 0 0");
    mt_printf(m, "}\n{\n\"classname\" \"func_detail_fence\"\n%s", k);
    mt_box(m, 32, 256, 0, 96, 320, 64, "e1u1/fence", "");
    mt_printf(m, "}\n{\n\"classname\" \"func_detail_illusionary\"\n%s", k);
    mt_box(m, 128, 256, 0, 192, 320, 64, "e1u1/vines", "");
    mt_printf(m, "}\n");
}

static void test_key_mirrorinside_defaults(void **state)
{
    (void)state;
    mt_t m = {0};
    result_t dflt, on;
    mirror_defaults_map(&m, NULL);
    compile_mt("mirror_dflt", &m, NULL, &dflt);
    mirror_defaults_map(&m, "\"_mirrorinside\" \"1\"\n");
    compile_mt("mirror_on1", &m, NULL, &on);
    need_bsp(&dflt);
    need_bsp(&on);
    static const struct {
        double x, y;
        bool inside;
        const char *what;
    } k[] = {{64, 96, true, "water"},         {160, 96, true, "mist"},  {256, 96, false, "translucent window"},
             {352, 96, false, "aux"},         {64, 288, false, "func_detail_fence"},
             {160, 288, false, "func_detail_illusionary"}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        vec3_t top = vec3(k[i].x, k[i].y, 64);
        if (faces_at(&dflt.bsp, top, UP) != 1) fail_msg("%s: no top face", k[i].what);
        int in = faces_at(&dflt.bsp, top, DOWN);
        if (in != (k[i].inside ? 1 : 0))
            fail_msg("%s: %d faces seen from inside by default, ericw-tools' Quake 2 default is %d", k[i].what, in,
                     k[i].inside ? 1 : 0);
        /* _mirrorinside 1 gives every one its inside faces. */
        if (faces_at(&on.bsp, top, DOWN) != 1) fail_msg("%s: _mirrorinside 1 without the inside face", k[i].what);
    }
    result_free(&dflt);
    result_free(&on);
}

/* ------------------------------------------------------------ options */

static void detail_map(mt_t *m)
{
    mt_room(m, "");
    mt_end_world(m);
    mt_printf(m, "{\n\"classname\" \"func_detail\"\n");
    mt_box(m, 64, 64, 0, 128, 128, 64, "e1u1/crate", "");
    mt_printf(m, "}\n");
}

static void test_option_omitdetail(void **state)
{
    (void)state;
    static const char *const opts[] = {"-threads 2 -omitdetail", "-threads 2 -nodetail"};
    for (int i = 0; i < 2; i++) {
        mt_t m = {0};
        result_t with, without;
        detail_map(&m);
        compile_mt("detail_keep", &m, NULL, &without);
        detail_map(&m);
        compile_mt("detail_omit", &m, opts[i], &with);
        need_bsp(&with);
        need_bsp(&without);
        assert_int_equal(faces_at(&without.bsp, vec3(96, 96, 64), UP), 1);
        assert_int_equal(faces_at(&with.bsp, vec3(96, 96, 64), UP), 0);
        assert_true(with.bsp.numbrushes < without.bsp.numbrushes);
        result_free(&with);
        result_free(&without);
    }
}

static void skip_map(mt_t *m)
{
    mt_room(m, "");
    mt_box(m, 64, 64, 0, 128, 128, 64, "e1u1/nodraw", "");
    mt_box(m, 256, 64, 0, 320, 128, 64, "e1u1/skip", "");
    mt_end_world(m);
}

static void test_option_includeskip(void **state)
{
    (void)state;
    mt_t m = {0};
    result_t with, without;
    skip_map(&m);
    compile_mt("skip_drop", &m, NULL, &without);
    skip_map(&m);
    compile_mt("skip_keep", &m, "-threads 2 -includeskip", &with);
    need_bsp(&with);
    need_bsp(&without);
    const vec3_t nodraw = vec3(96, 96, 64), skip = vec3(288, 96, 64);
    assert_int_equal(faces_at(&without.bsp, nodraw, UP), 0);
    assert_int_equal(faces_at(&without.bsp, skip, UP), 0);
    assert_int_equal(faces_at(&with.bsp, nodraw, UP), 1);
    assert_int_equal(faces_at(&with.bsp, skip, UP), 1);
    /* The boxes are solid either way. */
    assert_true(with.bsp.numbrushes == without.bsp.numbrushes);
    result_free(&with);
    result_free(&without);
}

static void test_option_add(void **state)
{
    (void)state;
    mt_t a = {0}, m = {0};
    mt_printf(&a, "{\n\"classname\" \"worldspawn\"\n\"message\" \"not ours\"\n");
    mt_box(&a, 64, 64, 0, 128, 128, 64, "e1u1/added", "");
    /* a brush with a side twice (its second copy on line 14 of added.map) */
    mt_printf(&a, "{\n( 400 0 0 ) ( 400 1 0 ) ( 400 0 1 ) e1u1/added 0 0 0 1 1\n"
                  "( 400 0 0 ) ( 400 1 0 ) ( 400 0 1 ) e1u1/added 0 0 0 1 1\n"
                  "( 432 0 0 ) ( 432 0 1 ) ( 432 1 0 ) e1u1/added 0 0 0 1 1\n"
                  "( 0 400 0 ) ( 0 400 1 ) ( 1 400 0 ) e1u1/added 0 0 0 1 1\n"
                  "( 0 432 0 ) ( 1 432 0 ) ( 0 432 1 ) e1u1/added 0 0 0 1 1\n"
                  "( 0 0 0 ) ( 1 0 0 ) ( 0 1 0 ) e1u1/added 0 0 0 1 1\n"
                  "( 0 0 32 ) ( 0 1 32 ) ( 1 0 32 ) e1u1/added 0 0 0 1 1\n}\n");
    mt_printf(&a, "}\n{\n\"classname\" \"func_wall\"\n\"_bogus_added\" \"1\"\n");
    mt_box(&a, 256, 64, 0, 320, 128, 64, "e1u1/addedwall", "");
    mt_printf(&a, "}\n");
    write_file("added.map", a.s);
    free(a.s);
    result_t with, without, missing;
    mt_room(&m, "");
    mt_end_world(&m);
    write_file("base.map", m.s);
    free(m.s);
    compile_file("base", "-threads 2", &without);
    need_bsp(&without);
    char opt[Q2_PATH_MAX + 32];
    snprintf(opt, sizeof opt, "-threads 2 -add '%s/added.map'", tmpdir);
    compile_file("base", opt, &with);
    need_bsp(&with);
    /* The added world's box is in our world, its func_wall is model 1. */
    assert_int_equal(faces_at(&without.bsp, vec3(96, 96, 64), UP), 0);
    assert_int_equal(face_at(&with.bsp, 0, vec3(96, 96, 64), UP, NULL) >= 0, 1);
    assert_int_equal(without.bsp.nummodels, 1);
    assert_int_equal(with.bsp.nummodels, 2);
    assert_non_null(strstr(with.bsp.entities, "func_wall"));
    assert_null(strstr(with.bsp.entities, "not ours"));
    /* Messages about the added map's brushes and entities name that file. */
    if (count_lines_with(with.log, "added.map:14:", "duplicate plane") != 1 ||
        count_lines_with(with.log, "added.map:", "\"_bogus_added\"") != 1)
        fail_msg("-add: messages do not name added.map:\n%s", with.log);
    /* A missing file: an error naming it, nothing written. */
    snprintf(opt, sizeof opt, "-threads 2 -add '%s/nothere.map'", tmpdir);
    compile_file("base", opt, &missing);
    assert_int_not_equal(missing.status, 0);
    assert_false(missing.have_bsp);
    assert_true(count_lines_with(missing.log, "nothere.map", "not found") >= 1);
    result_free(&with);
    result_free(&without);
    result_free(&missing);
}

/* Standard faces at several rotations, scales and offsets, on axial and
 * sloped planes. */
static void convert_src(mt_t *m)
{
    mt_room(m, "");
    mt_printf(m, "{\n"
                 "( 64 0 0 ) ( 64 1 0 ) ( 64 0 1 ) e1u1/a 7 3 30 0.5 2\n"
                 "( 128 0 0 ) ( 128 0 1 ) ( 128 1 0 ) e1u1/b -5 11 90 1 1\n"
                 "( 0 64 0 ) ( 0 64 1 ) ( 1 64 0 ) e1u1/c 0 0 180 -1 0.25\n"
                 "( 0 128 0 ) ( 1 128 0 ) ( 0 128 1 ) e1u1/d 13 0 45 2 2\n"
                 "( 0 0 0 ) ( 1 0 0 ) ( 0 1 0 ) e1u1/e 1 2 270 1 1\n"
                 "( 64 64 96 ) ( 64 128 96 ) ( 128 64 64 ) e1u1/f 3 4 15 0.75 1.5 0 0 0\n"
                 "}\n");
    mt_end_world(m);
}

typedef struct tex_row_t {
    char name[40];
    double v[8];
} tex_row_t;

static int cmp_row(const void *a, const void *b)
{
    const tex_row_t *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    for (int i = 0; i < 8; i++)
        if (fabs(x->v[i] - y->v[i]) > 1e-3) return x->v[i] < y->v[i] ? -1 : 1;
    return 0;
}

/* Every drawn face's texture vectors equal in both bsps (as sorted sets). */
static void same_texture_vectors(const bsp_t *a, const bsp_t *b, const char *what)
{
    assert_int_equal(a->numfaces, b->numfaces);
    tex_row_t *ra = calloc((size_t)a->numfaces, sizeof *ra), *rb = calloc((size_t)b->numfaces, sizeof *rb);
    for (int i = 0; i < a->numfaces; i++) {
        const dtexinfo_t *x = &a->texinfo[a->faces[i].texinfo], *y = &b->texinfo[b->faces[i].texinfo];
        snprintf(ra[i].name, sizeof ra[i].name, "%s", x->texture);
        snprintf(rb[i].name, sizeof rb[i].name, "%s", y->texture);
        for (int k = 0; k < 8; k++) ra[i].v[k] = x->vecs[k / 4][k % 4], rb[i].v[k] = y->vecs[k / 4][k % 4];
    }
    qsort(ra, (size_t)a->numfaces, sizeof *ra, cmp_row);
    qsort(rb, (size_t)b->numfaces, sizeof *rb, cmp_row);
    for (int i = 0; i < a->numfaces; i++)
        if (cmp_row(&ra[i], &rb[i]) != 0)
            fail_msg("%s: face texture %s (%g %g %g %g / %g %g %g %g) against %s (%g %g %g %g / %g %g %g %g)", what,
                     ra[i].name, ra[i].v[0], ra[i].v[1], ra[i].v[2], ra[i].v[3], ra[i].v[4], ra[i].v[5], ra[i].v[6],
                     ra[i].v[7], rb[i].name, rb[i].v[0], rb[i].v[1], rb[i].v[2], rb[i].v[3], rb[i].v[4], rb[i].v[5],
                     rb[i].v[6], rb[i].v[7]);
    free(ra);
    free(rb);
}

static void test_option_convert(void **state)
{
    (void)state;
    mt_t m = {0};
    convert_src(&m);
    write_file("conv.map", m.s);
    free(m.s);
    result_t orig, to_valve, valve, to_q2, back;
    compile_file("conv", NULL, &orig);
    need_bsp(&orig);
    compile_file("conv", "-convert valve", &to_valve);
    assert_int_equal(to_valve.status, 0);
    char path[Q2_PATH_MAX];
    snprintf(path, sizeof path, "%s/conv-valve.map", tmpdir);
    char *vtext = read_text(path);
    assert_non_null(vtext);
    assert_non_null(strstr(vtext, "\"mapversion\" \"220\""));
    assert_non_null(strstr(vtext, " [ "));
    free(vtext);
    compile_file("conv-valve", NULL, &valve);
    need_bsp(&valve);
    same_texture_vectors(&orig.bsp, &valve.bsp, "quake2 -> valve");
    /* And back: the Valve map converted to quake2 compiles to the same. */
    compile_file("conv-valve", "-convert quake2", &to_q2);
    assert_int_equal(to_q2.status, 0);
    snprintf(path, sizeof path, "%s/conv-valve-quake2.map", tmpdir);
    char *qtext = read_text(path);
    assert_non_null(qtext);
    assert_null(strstr(qtext, " [ "));
    assert_null(strstr(qtext, "mapversion"));
    free(qtext);
    compile_file("conv-valve-quake2", NULL, &back);
    need_bsp(&back);
    same_texture_vectors(&orig.bsp, &back.bsp, "quake2 -> valve -> quake2");
    result_free(&orig);
    result_free(&to_valve);
    result_free(&valve);
    result_free(&to_q2);
    result_free(&back);
}

/* A room with a pillar and a box hanging from the ceiling: their planes
 * split the floor, into pieces that merging joins again. */
static void pillar_map(mt_t *m, bool hole)
{
    mt_printf(m, "{\n\"classname\" \"worldspawn\"\n");
    mt_box(m, -16, -16, -16, 528, 528, 0, "e1u1/floor", "");
    mt_box(m, -16, -16, 256, 528, 528, 272, "e1u1/ceil", "");
    mt_box(m, -16, -16, 0, 0, 528, 256, "e1u1/wall", "");
    if (!hole) mt_box(m, 512, -16, 0, 528, 528, 256, "e1u1/wall", "");
    mt_box(m, 0, -16, 0, 512, 0, 256, "e1u1/wall", "");
    mt_box(m, 0, 512, 0, 512, 528, 256, "e1u1/wall", "");
    mt_box(m, 200, 200, 0, 300, 300, 256, "e1u1/pillar", "");
    mt_box(m, 64, 352, 192, 160, 448, 256, "e1u1/hanging", "");
    mt_end_world(m);
}

static int floor_faces(const bsp_t *bsp)
{
    int n = 0;
    for (int i = 0; i < bsp->numfaces; i++)
        if (!strcmp(bsp->texinfo[bsp->faces[i].texinfo].texture, "e1u1/floor")) n++;
    return n;
}

static void test_option_nomerge_subdivide(void **state)
{
    (void)state;
    mt_t m = {0};
    result_t plain, nomerge, sub64, sub0;
    pillar_map(&m, false);
    compile_mt("opt_plain", &m, NULL, &plain);
    pillar_map(&m, false);
    compile_mt("opt_nomerge", &m, "-threads 2 -nomerge -subdivide 0", &nomerge);
    pillar_map(&m, false);
    compile_mt("opt_sub64", &m, "-threads 2 -subdivide 64", &sub64);
    pillar_map(&m, false);
    compile_mt("opt_sub0", &m, "-threads 2 -subdivide 0", &sub0);
    need_bsp(&plain);
    need_bsp(&nomerge);
    need_bsp(&sub64);
    need_bsp(&sub0);
    int p = floor_faces(&plain.bsp), nm = floor_faces(&nomerge.bsp), s64 = floor_faces(&sub64.bsp),
        s0 = floor_faces(&sub0.bsp);
    if (!(nm > s0)) fail_msg("-nomerge: %d floor faces, %d merged (both without subdivision)", nm, s0);
    if (!(s64 > p)) fail_msg("-subdivide 64: %d floor faces, %d at 240", s64, p);
    if (!(s0 < p)) fail_msg("-subdivide 0: %d floor faces, %d at 240", s0, p);
    result_free(&plain);
    result_free(&nomerge);
    result_free(&sub64);
    result_free(&sub0);
}

static int open_leafs(const bsp_t *bsp)
{
    int n = 0;
    for (int i = 0; i < bsp->numleafs; i++) n += !(bsp->leafs[i].contents & CONTENTS_SOLID);
    return n;
}

static void test_option_nofill_leaktest(void **state)
{
    (void)state;
    mt_t m = {0};
    result_t fill, nofill, leak, leaktest;
    pillar_map(&m, false);
    compile_mt("fill", &m, NULL, &fill);
    pillar_map(&m, false);
    compile_mt("nofill", &m, "-threads 2 -nofill", &nofill);
    need_bsp(&fill);
    need_bsp(&nofill);
    /* Without the fill, the void around the room stays open leafs. */
    if (!(open_leafs(&nofill.bsp) > open_leafs(&fill.bsp)))
        fail_msg("-nofill: %d open leafs, %d filled", open_leafs(&nofill.bsp), open_leafs(&fill.bsp));
    /* A leak: written by default, an error with -leaktest. */
    pillar_map(&m, true);
    compile_mt("leak", &m, NULL, &leak);
    need_bsp(&leak);
    pillar_map(&m, true);
    compile_mt("leaktest", &m, "-threads 2 -leaktest", &leaktest);
    assert_int_not_equal(leaktest.status, 0);
    assert_false(leaktest.have_bsp);
    result_free(&fill);
    result_free(&nofill);
    result_free(&leak);
    result_free(&leaktest);
}

static void test_option_onlyents_allowupgrade(void **state)
{
    (void)state;
    mt_t m = {0};
    result_t full, again, ents, up;
    pillar_map(&m, false);
    compile_mt("ents", &m, NULL, &full);
    need_bsp(&full);
    char a[Q2_PATH_MAX], b[Q2_PATH_MAX];
    snprintf(a, sizeof a, "%s/ents.bsp", tmpdir);
    snprintf(b, sizeof b, "%s/ents_first.bsp", tmpdir);
    assert_int_equal(rename(a, b), 0);
    /* -allowupgrade is the default: the same bytes. */
    compile_file("ents", "-threads 2 -allowupgrade", &up);
    need_bsp(&up);
    assert_true(files_equal(a, b));
    /* -onlyents: a new key reaches the lump, the geometry stays. */
    pillar_map(&m, false);
    mt_printf(&m, "{\n\"classname\" \"info_null\"\n\"origin\" \"64 64 64\"\n\"message\" \"only the entities\"\n}\n");
    compile_mt("ents", &m, "-threads 2 -onlyents", &ents);
    need_bsp(&ents);
    assert_non_null(strstr(ents.bsp.entities, "only the entities"));
    assert_null(strstr(full.bsp.entities, "only the entities"));
    assert_int_equal(ents.bsp.numfaces, full.bsp.numfaces);
    assert_int_equal(ents.bsp.numnodes, full.bsp.numnodes);
    (void)again;
    result_free(&full);
    result_free(&up);
    result_free(&ents);
}

/* ------------------------------------------------ keys passed to qrad */

typedef struct lit_t {
    bsp_t bsp;
    char log[8192];
} lit_t;

static void light_file_upl(const char *name, bool wrnormals, double upl, lit_t *out)
{
    char bsp[Q2_PATH_MAX];
    snprintf(bsp, sizeof bsp, "%s/%s.bsp", tmpdir, name);
    q2err_t err;
    bsp_init(&out->bsp);
    assert_true(bsp_read_file(bsp, &out->bsp, &err));
    qrad_opts_t o;
    qrad_opts_default(&o);
    o.bounce = 0;
    o.maxlight = 255;
    o.threads = 2;
    o.wrnormals = wrnormals;
    o.world_units_per_luxel = upl;
    /* The func_group keys qbsp left beside the bsp, as qrad's main reads them. */
    char side[Q2_PATH_MAX];
    snprintf(side, sizeof side, "%s/%s" GROUPKEYS_EXT, tmpdir, name);
    uint8_t *gk = NULL;
    size_t gksize = 0;
    if (file_exists(side)) {
        assert_true(file_read_all(side, 1 << 24, &gk, &gksize, &err));
        o.groupkeys = gk, o.groupkeys_size = gksize, o.groupkeys_name = side;
    }
    FILE *lf = tmpfile();
    assert_non_null(lf);
    log_t log;
    log_init(&log, LOG_NORMAL, lf, lf);
    if (!qrad_run(&out->bsp, &o, NULL, &log, NULL, NULL, &err)) fail_msg("qrad_run %s: %s", name, err.msg);
    free(gk);
    fflush(lf);
    rewind(lf);
    size_t n = fread(out->log, 1, sizeof out->log - 1, lf);
    out->log[n] = 0;
    fclose(lf);
}

static void light_file(const char *name, bool wrnormals, lit_t *out) { light_file_upl(name, wrnormals, 0, out); }

/* The keys qbsp passes on for func_group/func_detail are exactly those the
 * key table says qrad reads there: a key added to one and not the other
 * would be dropped in silence, or warned about and passed on anyway. */
static void test_group_keys_match_table(void **state)
{
    (void)state;
    int nrows, npassed = 0;
    const keyrow_t *rows = keytable_rows(&nrows);
    for (int i = 0; groupkeys_key(i); i++) {
        npassed++;
        const keyrow_t *r = keytable_find(groupkeys_key(i), KIND_KEY);
        if (!r || !(r->at & AT_GROUP) || !(r->readers & BY_QRAD))
            fail_msg("qbsp passes %s on from func_group, but the key table does not say qrad reads it there",
                     groupkeys_key(i));
    }
    int nmarked = 0;
    for (int i = 0; i < nrows; i++)
        if (rows[i].kind == KIND_KEY && (rows[i].at & AT_GROUP) && (rows[i].readers & BY_QRAD)) nmarked++;
    assert_int_equal(nmarked, npassed);
}

/* Min and max channel-0 luxel over the faces of model 0 with texture tex. */
static void tex_luxels(const bsp_t *bsp, const char *tex, int *lo, int *hi)
{
    *lo = 256, *hi = -1;
    for (int f = 0; f < bsp->numfaces; f++) {
        if (face_model(bsp, f) != 0 || strcmp(bsp->texinfo[bsp->faces[f].texinfo].texture, tex)) continue;
        face_extents_t e;
        assert_true(bsp_face_extents(bsp, f, &e, NULL));
        for (int k = 0; k < e.size[0] * e.size[1]; k++) {
            int v = bsp->lightdata[bsp->faces[f].lightofs + k * 3];
            *lo = v < *lo ? v : *lo;
            *hi = v > *hi ? v : *hi;
        }
    }
    if (*hi < 0) fail_msg("no lit face of %s", tex);
}

static void group_minlight_map(mt_t *m, const char *value)
{
    mt_room(m, "");
    mt_end_world(m);
    mt_printf(m, "{\n\"classname\" \"func_group\"\n\"_minlight\" \"%s\"\n", value);
    mt_box(m, 64, 64, 0, 128, 128, 64, "e1u1/lifted", "");
    mt_printf(m, "}\n{\n\"classname\" \"func_detail\"\n");
    mt_box(m, 256, 64, 0, 320, 128, 64, "e1u1/plain", "");
    mt_printf(m, "}\n");
}

static void test_group_keys_minlight(void **state)
{
    (void)state;
    mt_t m = {0};
    result_t r;
    group_minlight_map(&m, "0.5");
    compile_mt("gk_min", &m, NULL, &r);
    need_bsp(&r);
    /* The keys travel beside the bsp, not in it. */
    assert_false(bspx_has_lump(&r.bsp, GROUPKEYS_LUMP));
    char side[Q2_PATH_MAX];
    snprintf(side, sizeof side, "%s/gk_min" GROUPKEYS_EXT, tmpdir);
    assert_true(file_exists(side));
    /* No "read only on brush models" warning for the func_group. */
    assert_int_equal(count_lines_with(r.log, "_minlight", NULL), 0);
    result_free(&r);
    lit_t l;
    light_file("gk_min", false, &l);
    int lo, hi;
    /* A dark room: the func_group's faces at 0.5 * 128, the rest dark. */
    tex_luxels(&l.bsp, "e1u1/lifted", &lo, &hi);
    if (lo < 63 || hi > 65) fail_msg("func_group _minlight 0.5: luxels %d..%d, expected 64", lo, hi);
    tex_luxels(&l.bsp, "e1u1/plain", &lo, &hi);
    assert_int_equal(hi, 0);
    tex_luxels(&l.bsp, "e1u1/floor", &lo, &hi);
    assert_int_equal(hi, 0);
    bsp_free(&l.bsp);
    /* A bad value: warned about with entity, key and line; no keys passed. */
    group_minlight_map(&m, "bright");
    compile_mt("gk_bad", &m, NULL, &r);
    need_bsp(&r);
    assert_int_equal(count_lines_with(r.log, "gk_bad.map:", "entity 2 (func_group): key \"_minlight\" \"bright\" is not a number"), 1);
    assert_false(bspx_has_lump(&r.bsp, GROUPKEYS_LUMP));
    snprintf(side, sizeof side, "%s/gk_bad" GROUPKEYS_EXT, tmpdir);
    assert_false(file_exists(side));
    result_free(&r);
}

/* With qrad -world_units_per_luxel 16, a func_detail's own
 * _world_units_per_luxel 4 makes its faces' decoupled lightmaps four times
 * as fine as those of the same box without the key. */
static void test_group_keys_luxels(void **state)
{
    (void)state;
    mt_t m = {0};
    result_t r;
    mt_room(&m, "");
    mt_end_world(&m);
    mt_printf(&m, "{\n\"classname\" \"func_detail\"\n\"_world_units_per_luxel\" \"4\"\n");
    mt_box(&m, 64, 64, 0, 128, 128, 64, "e1u1/fine", "");
    mt_printf(&m, "}\n{\n\"classname\" \"func_detail\"\n");
    mt_box(&m, 256, 64, 0, 320, 128, 64, "e1u1/coarse", "");
    mt_printf(&m, "}\n{\n\"classname\" \"light\"\n\"origin\" \"256 256 128\"\n\"light\" \"300\"\n}\n");
    compile_mt("gk_upl", &m, NULL, &r);
    need_bsp(&r);
    result_free(&r);
    lit_t l;
    light_file_upl("gk_upl", false, 16, &l);
    bspx_t x;
    q2err_t err;
    assert_true(bspx_parse(&l.bsp, &x, NULL, &err));
    const bspx_lump_t *lump = bspx_find(&x, "DECOUPLED_LM");
    assert_non_null(lump);
    decoupled_lm_t *d;
    assert_true(decoupled_decode(&l.bsp, lump->data, lump->size, &d, &err));
    int fine = 0, coarse = 0;
    for (int f = 0; f < l.bsp.numfaces; f++) {
        const char *t = l.bsp.texinfo[l.bsp.faces[f].texinfo].texture;
        int w = d[f].width > d[f].height ? d[f].width : d[f].height;
        if (!strcmp(t, "e1u1/fine") && w > fine) fine = w;
        if (!strcmp(t, "e1u1/coarse") && w > coarse) coarse = w;
    }
    /* 64 units: 16 luxels (plus the border) against 4. */
    if (fine < 16 || coarse > 6) fail_msg("decoupled lightmaps: %d luxels across at 4 units, %d at 16", fine, coarse);
    free(d);
    bspx_free(&x);
    bsp_free(&l.bsp);
}

/* Largest angle between a face's vertex normals and its plane's over the
 * faces of texture tex (FACENORMALS). */
static double max_bend(const bsp_t *bsp, const char *tex)
{
    bspx_t x;
    q2err_t err;
    assert_true(bspx_parse(bsp, &x, NULL, &err));
    const bspx_lump_t *l = bspx_find(&x, "FACENORMALS");
    assert_non_null(l);
    facenormals_t fn;
    assert_true(facenormals_decode(bsp, l->data, l->size, &fn, &err));
    double worst = 0;
    for (int f = 0; f < bsp->numfaces; f++) {
        if (strcmp(bsp->texinfo[bsp->faces[f].texinfo].texture, tex)) continue;
        const dplane_t *pl = &bsp->planes[bsp->faces[f].planenum];
        vec3_t n = vec3(pl->normal[0], pl->normal[1], pl->normal[2]);
        if (bsp->faces[f].side) n = vec_neg(n);
        for (int k = 0; k < bsp->faces[f].numedges; k++) {
            const float *v = fn.vecs[fn.index[fn.firstvert[f] + k][0]];
            double c = (v[0] * n.x + v[1] * n.y + v[2] * n.z) / sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            worst = fmax(worst, acos(fmin(1, fmax(-1, c))) * 180 / M_PI);
        }
    }
    facenormals_free(&fn);
    bspx_free(&x);
    return worst;
}

static void test_group_keys_phong(void **state)
{
    (void)state;
    mt_t m = {0};
    result_t r;
    mt_room(&m, "");
    mt_end_world(&m);
    /* Octagons: 45 degrees between faces, more than the world's 44. */
    mt_printf(&m, "{\n\"classname\" \"func_detail\"\n\"_phong\" \"1\"\n");
    mt_prism(&m, 128, 256, 64, 0, 64, 8, "e1u1/smooth");
    mt_printf(&m, "}\n{\n\"classname\" \"func_detail\"\n");
    mt_prism(&m, 384, 256, 64, 0, 64, 8, "e1u1/flat");
    mt_printf(&m, "}\n{\n\"classname\" \"light\"\n\"origin\" \"256 64 128\"\n\"light\" \"300\"\n}\n");
    compile_mt("gk_phong", &m, NULL, &r);
    need_bsp(&r);
    result_free(&r);
    lit_t l;
    light_file("gk_phong", true, &l);
    double smooth = max_bend(&l.bsp, "e1u1/smooth"), flat = max_bend(&l.bsp, "e1u1/flat");
    /* _phong 1 bends the octagon's normals halfway to their neighbours'
     * (22.5 degrees); the other octagon, the world's, stays flat. */
    if (smooth < 20 || smooth > 23) fail_msg("_phong 1 func_detail: normals bend %g degrees, expected 22.5", smooth);
    if (flat > 0.5) fail_msg("func_detail without _phong: normals bend %g degrees", flat);
    bsp_free(&l.bsp);
}

/* ------------------------------------------- func_illusionary_visblocker */

/* Two rooms joined by a corridor that a brush of class `cls` fills. */
static void visblocker_map(mt_t *m, const char *cls)
{
    mt_printf(m, "{\n\"classname\" \"worldspawn\"\n");
    /* rooms x 0..256 and 384..640, corridor x 256..384, y 96..160, z 0..96 */
    mt_box(m, -16, -16, -16, 656, 272, 0, "e1u1/floor", "");
    mt_box(m, -16, -16, 256, 656, 272, 272, "e1u1/ceil", "");
    mt_box(m, -16, -16, 0, 0, 272, 256, "e1u1/wall", "");
    mt_box(m, 640, -16, 0, 656, 272, 256, "e1u1/wall", "");
    mt_box(m, 0, -16, 0, 640, 0, 256, "e1u1/wall", "");
    mt_box(m, 0, 256, 0, 640, 272, 256, "e1u1/wall", "");
    mt_box(m, 256, 0, 0, 384, 96, 256, "e1u1/wall", "");
    mt_box(m, 256, 160, 0, 384, 256, 256, "e1u1/wall", "");
    mt_box(m, 256, 96, 96, 384, 160, 256, "e1u1/wall", "");
    mt_printf(m, "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"64 128 40\"\n}\n");
    mt_printf(m, "{\n\"classname\" \"%s\"\n", cls);
    mt_box(m, 304, 96, 0, 336, 160, 96, "e1u1/vines", "");
    mt_printf(m, "}\n");
}

static int bsp_point_cluster(const bsp_t *bsp, vec3_t p);

/* Whether the .prt's portals join the clusters of the leafs at a and b. */
static bool prt_connects(const char *name, const bsp_t *bsp, vec3_t a, vec3_t b)
{
    char path[Q2_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.prt", tmpdir, name);
    prt_t prt;
    q2err_t err;
    assert_true(prt_read_file(path, &prt, &err));
    int ca = bsp_point_cluster(bsp, a), cb = bsp_point_cluster(bsp, b);
    assert_true(ca >= 0 && cb >= 0 && ca < prt.numclusters && cb < prt.numclusters);
    bool *seen = calloc((size_t)prt.numclusters, 1);
    seen[ca] = true;
    for (bool grew = true; grew;) {
        grew = false;
        for (int i = 0; i < prt.numportals; i++) {
            int x = prt.portals[i].cluster[0], y = prt.portals[i].cluster[1];
            if (seen[x] != seen[y]) seen[x] = seen[y] = grew = true;
        }
    }
    bool joined = seen[cb];
    free(seen);
    prt_free(&prt);
    return joined;
}

static int point_leaf(const bsp_t *bsp, vec3_t p)
{
    int n = bsp->models[0].headnode;
    while (n >= 0) {
        const dnode_t *nd = &bsp->nodes[n];
        const dplane_t *pl = &bsp->planes[nd->planenum];
        double d = pl->normal[0] * p.x + pl->normal[1] * p.y + pl->normal[2] * p.z - pl->dist;
        n = nd->children[d < 0];
    }
    return -1 - n;
}

static int leaf_contents(const bsp_t *bsp, vec3_t p) { return bsp->leafs[point_leaf(bsp, p)].contents; }
static int bsp_point_cluster(const bsp_t *bsp, vec3_t p) { return bsp->leafs[point_leaf(bsp, p)].cluster; }

static void test_visblocker(void **state)
{
    (void)state;
    mt_t m = {0};
    result_t vb, ill;
    visblocker_map(&m, "func_illusionary_visblocker");
    compile_mt("visblock", &m, NULL, &vb);
    visblocker_map(&m, "func_detail_illusionary");
    compile_mt("visill", &m, NULL, &ill);
    need_bsp(&vb);
    need_bsp(&ill);
    /* Walk-through mist, drawn from outside and from inside. */
    int c = leaf_contents(&vb.bsp, vec3(320, 128, 48));
    assert_true((c & CONTENTS_MIST) && !(c & (CONTENTS_SOLID | CONTENTS_DETAIL | CONTENTS_TRANSLUCENT)));
    assert_int_equal(faces_at(&vb.bsp, vec3(304, 128, 48), vec3(-1, 0, 0)), 1);
    assert_int_equal(faces_at(&vb.bsp, vec3(304, 128, 48), vec3(1, 0, 0)), 1);
    assert_int_equal(vb.bsp.nummodels, 1);
    assert_null(strstr(vb.bsp.entities, "visblocker"));
    /* Vis stops at it: no chain of portals joins the rooms' clusters, as
     * through the (detail) illusionary brush. */
    const vec3_t a = vec3(128, 128, 48), b = vec3(512, 128, 48);
    assert_false(prt_connects("visblock", &vb.bsp, a, b));
    assert_true(prt_connects("visill", &ill.bsp, a, b));
    result_free(&vb);
    result_free(&ill);
}

/* ---------------------------------------------------- func_detail_wall */

/* A box standing on the floor in the middle of the room and one against
 * the west wall, as `cls`. */
static void wall_map(mt_t *m, const char *cls)
{
    mt_room(m, "");
    mt_end_world(m);
    mt_printf(m, "{\n\"classname\" \"%s\"\n", cls);
    mt_box(m, 200, 200, 0, 300, 300, 64, "e1u1/crate", "");
    mt_box(m, 0, 200, 64, 32, 300, 128, "e1u1/crate", "");
    mt_printf(m, "}\n");
}

static int faces_with(const bsp_t *bsp, const char *tex)
{
    int n = 0;
    for (int i = 0; i < bsp->numfaces; i++) n += !strcmp(bsp->texinfo[bsp->faces[i].texinfo].texture, tex);
    return n;
}

static void test_detail_wall(void **state)
{
    (void)state;
    mt_t m = {0};
    result_t wall, detail;
    wall_map(&m, "func_detail_wall");
    compile_mt("wall", &m, "-threads 2 -subdivide 0", &wall);
    wall_map(&m, "func_detail");
    compile_mt("wall_detail", &m, "-threads 2 -subdivide 0", &detail);
    need_bsp(&wall);
    need_bsp(&detail);
    /* The floor and the west wall stay whole under func_detail_wall (the
     * face is drawn beneath it too); func_detail cuts them. */
    assert_int_equal(faces_with(&wall.bsp, "e1u1/floor"), 1);
    assert_true(faces_with(&detail.bsp, "e1u1/floor") > 1);
    assert_int_equal(faces_at(&wall.bsp, vec3(250, 250, 0), UP), 1);
    assert_int_equal(faces_at(&detail.bsp, vec3(250, 250, 0), UP), 0);
    assert_int_equal(faces_at(&wall.bsp, vec3(0, 250, 96), vec3(1, 0, 0)), 1);
    assert_int_equal(faces_at(&detail.bsp, vec3(0, 250, 96), vec3(1, 0, 0)), 0);
    /* Still a solid detail brush with its own faces. */
    assert_int_equal(faces_at(&wall.bsp, vec3(250, 250, 64), UP), 1);
    int c = leaf_contents(&wall.bsp, vec3(250, 250, 32)), cd = leaf_contents(&detail.bsp, vec3(250, 250, 32));
    if (!(c & CONTENTS_SOLID) || c != cd) fail_msg("func_detail_wall leaf contents 0x%x, func_detail's 0x%x", c, cd);
    int detail_brushes = 0;
    for (int i = 0; i < wall.bsp.numbrushes; i++)
        detail_brushes += (wall.bsp.brushes[i].contents & (CONTENTS_SOLID | CONTENTS_DETAIL)) == (CONTENTS_SOLID | CONTENTS_DETAIL);
    assert_int_equal(detail_brushes, 2);
    result_free(&wall);
    result_free(&detail);
}

/* ------------------------------------------------ light targetname */

/* A targeted light is switchable: qbsp gives each targetname its own style
 * from 32 (two lights of one name share it); an untargeted light keeps none. */
static void test_light_targetname_style(void **state)
{
    (void)state;
    mt_t m = {0};
    result_t r;
    mt_room(&m, "");
    mt_end_world(&m);
    mt_printf(&m, "{\n\"classname\" \"light\"\n\"origin\" \"64 64 64\"\n\"targetname\" \"lamp_a\"\n}\n"
                  "{\n\"classname\" \"light\"\n\"origin\" \"128 64 64\"\n\"targetname\" \"lamp_b\"\n}\n"
                  "{\n\"classname\" \"light\"\n\"origin\" \"192 64 64\"\n\"targetname\" \"lamp_a\"\n}\n"
                  "{\n\"classname\" \"light\"\n\"origin\" \"256 64 64\"\n}\n");
    compile_mt("styles", &m, NULL, &r);
    need_bsp(&r);
    entity_list_t list;
    q2err_t err;
    assert_true(entities_parse(r.bsp.entities, "lump", &list, &err));
    int seen = 0;
    for (int i = 0; i < list.count; i++) {
        const entity_t *e = &list.ents[i];
        if (strcmp(entity_classname(e), "light")) continue;
        const char *t = entity_get(e, "targetname"), *st = entity_get(e, "style");
        if (!t) assert_null(st);
        else assert_string_equal(st, !strcmp(t, "lamp_a") ? "32" : "33");
        seen++;
    }
    assert_int_equal(seen, 4);
    entities_free(&list);
    result_free(&r);
}

/* ------------------------------------------------------ determinism */

static void test_keys2_threads(void **state)
{
    (void)state;
    static const char *const names[] = {"thr_chop", "thr_mirror", "thr_keys", "thr_wall"};
    for (int i = 0; i < 4; i++) {
        for (int t = 1; t <= 2; t++) {
            mt_t m = {0};
            if (i == 0) chop_map(&m, "\"_chop_order\" \"0\"\n", "\"_chop_order\" \"1\"\n");
            else if (i == 1) mirror_defaults_map(&m, NULL);
            else if (i == 2) group_minlight_map(&m, "0.5");
            else wall_map(&m, "func_detail_wall");
            char name[64], opt[32];
            snprintf(name, sizeof name, "%s_%d", names[i], t);
            snprintf(opt, sizeof opt, "-threads %d", t);
            result_t r;
            compile_mt(name, &m, opt, &r);
            need_bsp(&r);
            result_free(&r);
        }
        char a[Q2_PATH_MAX], b[Q2_PATH_MAX];
        snprintf(a, sizeof a, "%s/%s_1.bsp", tmpdir, names[i]);
        snprintf(b, sizeof b, "%s/%s_2.bsp", tmpdir, names[i]);
        if (!files_equal(a, b)) fail_msg("%s: -threads 1 and 2 differ", names[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_chop_order),
        cmocka_unit_test(test_key_chop),
        cmocka_unit_test(test_key_mirrorinside_defaults),
        cmocka_unit_test(test_option_omitdetail),
        cmocka_unit_test(test_option_includeskip),
        cmocka_unit_test(test_option_add),
        cmocka_unit_test(test_option_convert),
        cmocka_unit_test(test_option_nomerge_subdivide),
        cmocka_unit_test(test_option_nofill_leaktest),
        cmocka_unit_test(test_option_onlyents_allowupgrade),
        cmocka_unit_test(test_group_keys_match_table),
        cmocka_unit_test(test_group_keys_minlight),
        cmocka_unit_test(test_group_keys_phong),
        cmocka_unit_test(test_group_keys_luxels),
        cmocka_unit_test(test_visblocker),
        cmocka_unit_test(test_detail_wall),
        cmocka_unit_test(test_light_targetname_style),
        cmocka_unit_test(test_keys2_threads),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
