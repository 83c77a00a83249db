/* The engines' acceptance rules (formats/engineaccept.c) on real files and on
 * files changed byte by byte to break one rule each: ericw-tools' light grids
 * with 0 styles (Q2PRO refuses them), its lit bsps that every engine takes,
 * a BSPX block moved behind a 256-byte POP lump (as qbsp3 and q2tools-220
 * lay their files out and as q2map's qvis and qrad wrote them before), an
 * octree whose links reach a node twice, DECOUPLED_LM of the wrong size and
 * with an offset past the lighting lump, and a QBSP-sized lump in an IBSP
 * file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/mem.h"
#include "../../formats/bspfile.h"
#include "../../formats/bspx.h"
#include "../../formats/engineaccept.h"
#include "test_util.h"

typedef struct found_t {
    int warnings, notes;
    char last[512];
    char all[4096];
} found_t;

static void collect(void *ctx, engaccept_kind_t kind, const char *line)
{
    found_t *f = ctx;
    if (kind == ENGACCEPT_WARNING) f->warnings++;
    else f->notes++;
    snprintf(f->last, sizeof f->last, "%s", line);
    size_t n = strlen(f->all);
    snprintf(f->all + n, sizeof f->all - n, "%s\n", line);
}

typedef struct file_t {
    uint8_t *d;
    size_t n;
} file_t;

static file_t load(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", Q2MAP_TEST_DATA, rel);
    file_t f;
    f.d = tu_read_file(path, (size_t)64 << 20, &f.n);
    assert_non_null(f.d);
    return f;
}

/* Decodes `f` and applies the rules; the file must be one our reader takes. */
static found_t check(const file_t *f)
{
    bsp_t b;
    q2err_t err;
    if (!bsp_read_memory(f->d, f->n, "test.bsp", &b, &err)) fail_msg("%s", err.msg);
    found_t out = {0};
    int w = engaccept_check(f->d, f->n, &b, collect, &out);
    assert_int_equal(w, out.warnings);
    bsp_free(&b);
    return out;
}

static uint32_t rd32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static void wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

/* The offset of the BSPX block where every reader of the file looks. */
static size_t block_of(const file_t *f)
{
    size_t at = (size_t)engaccept_bspx_pos_all(f->d);
    assert_true(at + 8 <= f->n);
    assert_memory_equal(f->d + at, "BSPX", 4);
    return at;
}

/* The directory entry of a named BSPX lump. */
static uint8_t *entry_of(const file_t *f, const char *name)
{
    size_t at = block_of(f);
    uint32_t num = rd32(f->d + at + 4);
    for (uint32_t i = 0; i < num; i++) {
        uint8_t *e = f->d + at + 8 + 32 * (size_t)i;
        if (!strncmp((const char *)e, name, 24)) return e;
    }
    fail_msg("no %s lump", name);
    return NULL;
}

static void zero_style_grids_warn_naming_q2pro(void **state)
{
    (void)state;
    const char *files[] = {"bspx/ericw/q2_light_sun.bsp", "bspx/ericw/q2_liquids.bsp"};
    for (int i = 0; i < 2; i++) {
        file_t f = load(files[i]);
        found_t r = check(&f);
        assert_int_equal(r.warnings, 1);
        assert_non_null(strstr(r.all, "Q2PRO refuses the light grid"));
        assert_non_null(strstr(r.all, "Bad LIGHTGRID_OCTREE header"));
        assert_non_null(strstr(r.all, "style count"));
        free(f.d);
    }
}

static void accepted_files_pass(void **state)
{
    (void)state;
    /* ericw-tools' grid with one style, its decoupled lightmaps, and bsps
     * without BSPX of every toolchain. */
    const char *files[] = {"bspx/ericw/q2_detail.bsp", "bsp/ericw_q2_detail.bsp", "bsp/ericw_q2_door.bsp"};
    for (int i = 0; i < 3; i++) {
        file_t f = load(files[i]);
        found_t r = check(&f);
        if (r.warnings) fail_msg("%s: %s", files[i], r.all);
        free(f.d);
    }
}

/* The file with a 256-byte POP lump put between the standard lumps and the
 * BSPX block, every BSPX offset moved with it: qbsp3's and q2tools-220's
 * layout with the block appended after it. */
static file_t pop_before_block(const file_t *f)
{
    size_t at = block_of(f);
    file_t g = {q2_calloc(f->n + 256, 1), f->n + 256};
    memcpy(g.d, f->d, at);
    memcpy(g.d + at + 256, f->d + at, f->n - at);
    wr32(g.d + 8 + 8 * 16, (uint32_t)at);
    wr32(g.d + 12 + 8 * 16, 256);
    uint32_t num = rd32(g.d + at + 256 + 4);
    for (uint32_t i = 0; i < num; i++) {
        uint8_t *e = g.d + at + 256 + 8 + 32 * (size_t)i;
        wr32(e + 24, rd32(e + 24) + 256);
    }
    return g;
}

static void block_behind_pop_warns_for_q2pro_only(void **state)
{
    (void)state;
    file_t f = load("bspx/ericw/q2_detail.bsp");
    file_t g = pop_before_block(&f);
    assert_int_equal(engaccept_bspx_pos_all(g.d), block_of(&f) + 256);
    assert_int_equal(engaccept_bspx_pos_q2pro(g.d), block_of(&f));
    found_t r = check(&g);
    assert_int_equal(r.warnings, 1);
    assert_non_null(strstr(r.all, "Q2PRO does not find the BSPX block"));
    assert_non_null(strstr(r.all, "behind the POP lump"));
    assert_null(strstr(r.all, "yquake2remaster and ericw-tools do not find"));
    free(g.d);
    free(f.d);
}

static void octree_node_reached_twice_is_bad_structure(void **state)
{
    (void)state;
    file_t f = load("bspx/ericw/q2_detail.bsp");
    const uint8_t *e = entry_of(&f, "LIGHTGRID_OCTREE");
    uint8_t *p = f.d + rd32(e + 24);
    uint32_t numnodes = rd32(p + 41);
    if (numnodes < 2) skip();
    /* The root is the last node (nodes follow their children): point two
     * of its children at node 0. */
    uint32_t root = rd32(p + 37);
    assert_true(root < numnodes);
    uint8_t *node = p + 45 + 44 * (size_t)root;
    wr32(node + 12, 0);
    wr32(node + 16, 0);
    found_t r = check(&f);
    assert_int_equal(r.warnings, 1);
    assert_non_null(strstr(r.all, "Bad LIGHTGRID_OCTREE structure"));
    free(f.d);
}

static void decoupled_rules(void **state)
{
    (void)state;
    file_t f = load("bspx/ericw/q2_detail.bsp");
    uint8_t *e = entry_of(&f, "DECOUPLED_LM");
    uint32_t ofs = rd32(e + 24), len = rd32(e + 28);
    bsp_t b;
    q2err_t err;
    assert_true(bsp_read_memory(f.d, f.n, "t.bsp", &b, &err));
    int lightbytes = b.lightdatasize;
    bsp_free(&b);

    /* A face whose offset points past the lighting lump. */
    for (uint32_t i = 0; i < len / 40; i++) {
        uint8_t *rec = f.d + ofs + 40 * (size_t)i;
        if (rd32(rec + 4) == 0xffffffffu) continue;
        wr32(rec + 4, (uint32_t)lightbytes + 4);
        break;
    }
    /* Our own checker refuses that file, so the engine rule is applied to
     * the bytes with the decoded bsp of the unchanged file. */
    file_t orig = load("bspx/ericw/q2_detail.bsp");
    assert_true(bsp_read_memory(orig.d, orig.n, "t.bsp", &b, &err));
    found_t r = {0};
    engaccept_check(f.d, f.n, &b, collect, &r);
    assert_int_equal(r.warnings, 1);
    assert_non_null(strstr(r.all, "DECOUPLED_LM lump possibly corrupted"));

    /* The lump one record short: "too short". */
    memcpy(f.d, orig.d, f.n);
    wr32(e + 28, len - 40);
    memset(&r, 0, sizeof r);
    engaccept_check(f.d, f.n, &b, collect, &r);
    assert_int_equal(r.warnings, 1);
    assert_non_null(strstr(r.all, "DECOUPLED_LM lump too short"));

    /* Not a multiple of 40: "odd size". */
    wr32(e + 28, len - 4);
    memset(&r, 0, sizeof r);
    engaccept_check(f.d, f.n, &b, collect, &r);
    assert_int_equal(r.warnings, 1);
    assert_non_null(strstr(r.all, "odd size"));

    /* Empty: Q2PRO ignores it by name. */
    wr32(e + 28, 0);
    memset(&r, 0, sizeof r);
    engaccept_check(f.d, f.n, &b, collect, &r);
    assert_int_equal(r.warnings, 1);
    assert_non_null(strstr(r.all, "Ignoring empty DECOUPLED_LM lump"));
    bsp_free(&b);
    free(orig.d);
    free(f.d);
}

static void odd_record_size_is_refused(void **state)
{
    (void)state;
    file_t f = load("bsp/ericw_q2_door.bsp");
    bsp_t b;
    q2err_t err;
    assert_true(bsp_read_memory(f.d, f.n, "t.bsp", &b, &err));
    /* One byte off the leafs' length: no longer a whole number of 28-byte
     * IBSP leafs (our reader refuses it too, so the rule gets the decoded
     * bsp of the unchanged file). */
    wr32(f.d + 12 + 8 * 8, rd32(f.d + 12 + 8 * 8) - 1);
    found_t r = {0};
    engaccept_check(f.d, f.n, &b, collect, &r);
    assert_int_equal(r.warnings, 1);
    assert_non_null(strstr(r.all, "lump has odd size"));
    assert_non_null(strstr(r.all, "28-byte IBSP"));
    bsp_free(&b);
    free(f.d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(zero_style_grids_warn_naming_q2pro),
        cmocka_unit_test(accepted_files_pass),
        cmocka_unit_test(block_behind_pop_warns_for_q2pro_only),
        cmocka_unit_test(octree_node_reached_twice_is_bad_structure),
        cmocka_unit_test(decoupled_rules),
        cmocka_unit_test(odd_record_size_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
