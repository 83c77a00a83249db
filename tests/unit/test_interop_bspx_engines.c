/* Where the engines find the BSPX block of what our qvis and qrad write.
 *
 * Each engine that reads BSPX for Quake 2 finds the block by a rule of its
 * own loader; the functions below re-implement each rule on the raw bytes
 * (sharing nothing with formats/), with the file and function they come
 * from. Our qvis then qrad run as programs on unlit bsps of every toolchain
 * (q2tools-220's and qbsp3's 256-byte POP lump last, ericw-tools' empty POP,
 * our own qbsp's) and on ericw-tools' lit bsp with its own BSPX lumps, with
 * and without `-lightgrid -wrnormals -world_units_per_luxel 8`. Every rule
 * must find the block where the file has one, at the same offset, with the
 * lumps qrad wrote; and a file with no BSPX option has no block at all.
 *
 * Q2MAP_TEST_BIN in the environment names another build's bin directory
 * (to run this test on an older qvis and qrad). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "test_util.h"

#define NLUMPS 19
#define LUMP_POP_INDEX 16

TU_SCRATCH_DIR(g_tmp, "q2map_bspx_engines")

typedef struct raw_t {
    uint8_t *d;
    size_t n;
} raw_t;

static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint32_t lump_ofs(const raw_t *r, int i) { return le32(r->d + 8 + 8 * i); }
static uint32_t lump_len(const raw_t *r, int i) { return le32(r->d + 12 + 8 * i); }

#define NO_BLOCK (-1L)

/* Q2PRO, src/common/bsp.c, BSP_Load and BSP_ParseExtensionHeader: maxpos is
 * the largest ofs + len over the lumps of bsp_lumps[], which are every lump
 * but 16 (POP); the header must be at Q_ALIGN(maxpos, 4), with
 * pos <= filelen - 8 and numlumps <= (filelen - pos - 8) / 32. */
static long q2pro_find(const raw_t *r)
{
    uint64_t maxpos = 0;
    for (int i = 0; i < NLUMPS; i++) {
        if (i == LUMP_POP_INDEX) continue;
        uint64_t end = (uint64_t)lump_ofs(r, i) + lump_len(r, i);
        if (end > maxpos) maxpos = end;
    }
    uint64_t pos = (maxpos + 3) & ~(uint64_t)3;
    if (r->n < 8 || pos > r->n - 8) return NO_BLOCK;
    if (memcmp(r->d + pos, "BSPX", 4) != 0) return NO_BLOCK;
    if (le32(r->d + pos + 4) > (r->n - pos - 8) / 32) return NO_BLOCK;
    return (long)pos;
}

/* yquake2remaster, src/client/refresh/files/maps.c, Mod_LoadBSPX: xofs is
 * the largest (ofs + len + 3) & ~3 over all HEADER_LUMPS (19) lumps; the
 * header must fit, the directory must fit, and every entry must lie inside
 * the file, or the renderer uses no BSPX lump at all. */
static long yq2r_renderer_find(const raw_t *r)
{
    uint64_t xofs = 0;
    for (int i = 0; i < NLUMPS; i++) {
        uint64_t end = ((uint64_t)lump_ofs(r, i) + lump_len(r, i) + 3) & ~(uint64_t)3;
        if (end > xofs) xofs = end;
    }
    if (xofs + 8 > r->n) return NO_BLOCK;
    if (memcmp(r->d + xofs, "BSPX", 4) != 0) return NO_BLOCK;
    int32_t num = (int32_t)le32(r->d + xofs + 4);
    if (num < 0 || xofs + 8 + (uint64_t)num * 32 > r->n) return NO_BLOCK;
    for (int32_t i = 0; i < num; i++) {
        const uint8_t *e = r->d + xofs + 8 + 32 * (size_t)i;
        int32_t o = (int32_t)le32(e + 24), l = (int32_t)le32(e + 28);
        if (o < 0 || l < 0 || (uint64_t)o + (uint64_t)l > r->n) return NO_BLOCK;
    }
    return (long)xofs;
}

/* yquake2remaster, src/common/maps.c, Mod_HasBSPXHeader (called from
 * Mod_LoadGetRules for Mod_Load2QBSP): the same xofs, `xofs + 8 < filesize`,
 * and the ident. An IBSP 38 file for which this holds is loaded as a
 * re-release map (its surface flags are not remapped). */
static long yq2r_common_find(const raw_t *r)
{
    uint64_t xofs = 0;
    for (int i = 0; i < NLUMPS; i++) {
        uint64_t end = ((uint64_t)lump_ofs(r, i) + lump_len(r, i) + 3) & ~(uint64_t)3;
        if (end > xofs) xofs = end;
    }
    if (!(xofs + 8 < r->n)) return NO_BLOCK;
    if (memcmp(r->d + xofs, "BSPX", 4) != 0) return NO_BLOCK;
    return (long)xofs;
}

/* ericw-tools, common/bspfile.cc, LoadBSPFile ("detect BSPX"): bspxofs is
 * the largest ofs + len over all lumps, rounded up to 4; the header must fit
 * and every entry must lie inside the file (else it warns and stops). */
static long ericw_find(const raw_t *r)
{
    uint64_t end = 0;
    for (int i = 0; i < NLUMPS; i++) {
        uint64_t e = (uint64_t)lump_ofs(r, i) + lump_len(r, i);
        if (e > end) end = e;
    }
    uint64_t ofs = (end + 3) & ~(uint64_t)3;
    if (ofs + 8 > r->n) return NO_BLOCK;
    if (memcmp(r->d + ofs, "BSPX", 4) != 0) return NO_BLOCK;
    uint32_t num = le32(r->d + ofs + 4);
    if (num > (r->n - ofs - 8) / 32) return NO_BLOCK;
    for (uint32_t i = 0; i < num; i++) {
        const uint8_t *e = r->d + ofs + 8 + 32 * (size_t)i;
        uint64_t o = le32(e + 24), l = le32(e + 28);
        if (o > r->n || o + l > r->n) return NO_BLOCK;
    }
    return (long)ofs;
}

/* True when the directory at `pos` names `name` (strcmp within 24 bytes,
 * as Q2PRO compares). */
static bool block_has(const raw_t *r, long pos, const char *name)
{
    uint32_t num = le32(r->d + pos + 4);
    for (uint32_t i = 0; i < num; i++) {
        const char *n = (const char *)r->d + pos + 8 + 32 * (size_t)i;
        if (memchr(n, 0, 24) && strcmp(n, name) == 0) return true;
    }
    return false;
}

/* Any bytes after the 4-aligned end of all 19 lumps. */
static bool has_trailing(const raw_t *r)
{
    uint64_t end = 0;
    for (int i = 0; i < NLUMPS; i++) {
        uint64_t e = (uint64_t)lump_ofs(r, i) + lump_len(r, i);
        if (e > end) end = e;
    }
    return ((end + 3) & ~(uint64_t)3) < r->n;
}

static const char *bindir(void)
{
    const char *b = getenv("Q2MAP_TEST_BIN");
    return b && *b ? b : Q2MAP_BIN_DIR;
}

static void run_ok(const char *dir, const char *fmt, ...)
{
    char args[2048], cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s/%s > run.log 2>&1", dir, bindir(), args);
    int st = system(cmd);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        char log[4096];
        snprintf(log, sizeof log, "%s/run.log", dir);
        size_t n;
        char *t = (char *)tu_read_file(log, 1 << 20, &n);
        fail_msg("%s: exit %d\n%.*s", args, WIFEXITED(st) ? WEXITSTATUS(st) : -1, (int)(n > 3000 ? 3000 : n), t);
    }
}

static void copy_in(const char *src, const char *dir, const char *name)
{
    size_t n;
    uint8_t *d = tu_read_file(src, (size_t)64 << 20, &n);
    tu_write_file(dir, name, d, n);
    free(d);
}

typedef struct input_t {
    const char *what;
    const char *bsp, *prt; /* under tests/data */
} input_t;

static const input_t inputs[] = {
    {"q2tools-220 qbsp (POP 256 bytes, last)", "interop/q2tools-220/q2_detail.bsp", "interop/q2tools-220/q2_detail.prt"},
    {"id qbsp3 (POP 256 bytes, last)", "interop/qbsp3/spirit2dm4.bsp", "interop/qbsp3/spirit2dm4.prt"},
    {"ericw-tools qbsp (empty POP)", "interop/ericw-unlit/q2_detail.bsp", "interop/ericw-unlit/q2_detail.prt"},
    {"our qbsp", "bspx/bspx_room.bsp", "bspx/bspx_room.prt"},
    {"ericw-tools light with its BSPX lumps", "bspx/ericw/q2_detail.bsp", "bspx/ericw/q2_detail.prt"},
};

/* Returns how many engine rules miss the block (each printed). */
static int check_one(const input_t *in, int k, bool bspx_opts)
{
    char dir[1024], src[1024];
    snprintf(dir, sizeof dir, "%s/%d%s", g_tmp, k, bspx_opts ? "x" : "");
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(src, sizeof src, "%s/%s", Q2MAP_TEST_DATA, in->bsp);
    copy_in(src, dir, "m.bsp");
    snprintf(src, sizeof src, "%s/%s", Q2MAP_TEST_DATA, in->prt);
    copy_in(src, dir, "m.prt");
    run_ok(dir, "qvis -threads 2 m.bsp");
    run_ok(dir, "qrad -threads 2 -bounce 0 %s m.bsp", bspx_opts ? "-lightgrid -wrnormals -world_units_per_luxel 8" : "");
    char path[1100];
    snprintf(path, sizeof path, "%s/m.bsp", dir);
    raw_t r;
    r.d = tu_read_file(path, (size_t)256 << 20, &r.n);
    long pro = q2pro_find(&r), yr = yq2r_renderer_find(&r), yc = yq2r_common_find(&r), ew = ericw_find(&r);
    print_message("%-40s %-5s Q2PRO %ld, yquake2remaster renderer %ld, yquake2remaster common %ld, ericw-tools %ld\n",
                  in->what, bspx_opts ? "bspx" : "plain", pro, yr, yc, ew);
    int missed = 0;
    if (bspx_opts) {
        const struct {
            long pos;
            const char *rule;
        } rules[] = {{pro, "Q2PRO BSP_ParseExtensionHeader"},
                     {yr, "yquake2remaster Mod_LoadBSPX"},
                     {yc, "yquake2remaster Mod_HasBSPXHeader"},
                     {ew, "ericw-tools LoadBSPFile"}};
        for (int i = 0; i < 4; i++)
            if (rules[i].pos == NO_BLOCK) {
                print_error("%s: %s finds no BSPX block\n", in->what, rules[i].rule);
                missed++;
            }
        if (missed) {
            free(r.d);
            return missed;
        }
        assert_int_equal(pro, yr);
        assert_int_equal(pro, yc);
        assert_int_equal(pro, ew);
        assert_true(block_has(&r, pro, "LIGHTGRID_OCTREE"));
        assert_true(block_has(&r, pro, "FACENORMALS"));
        assert_true(block_has(&r, pro, "DECOUPLED_LM"));
    } else {
        /* No BSPX option: nothing after the lumps that any engine could
         * take for a block (qrad drops the lumps it did not write again). */
        assert_int_equal(pro, NO_BLOCK);
        assert_int_equal(yr, NO_BLOCK);
        assert_int_equal(yc, NO_BLOCK);
        assert_int_equal(ew, NO_BLOCK);
        assert_false(has_trailing(&r));
    }
    free(r.d);
    return missed;
}

static void test_engines_find_bspx(void **state)
{
    (void)state;
    int missed = 0;
    for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; k++) missed += check_one(&inputs[k], (int)k, true);
    assert_int_equal(missed, 0);
}

static void test_no_option_no_block(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; k++) check_one(&inputs[k], (int)k, false);
}

/* The POP lump of qbsp3 and q2tools-220 is kept, byte for byte (it moves
 * before the entities when a BSPX block follows). */
static void test_pop_kept(void **state)
{
    (void)state;
    char path[1100], src[1100];
    snprintf(src, sizeof src, "%s/%s", Q2MAP_TEST_DATA, inputs[0].bsp);
    raw_t in, out;
    in.d = tu_read_file(src, (size_t)64 << 20, &in.n);
    snprintf(path, sizeof path, "%s/0x/m.bsp", g_tmp);
    out.d = tu_read_file(path, (size_t)256 << 20, &out.n);
    assert_int_equal(lump_len(&in, LUMP_POP_INDEX), 256);
    assert_int_equal(lump_len(&out, LUMP_POP_INDEX), 256);
    assert_memory_equal(in.d + lump_ofs(&in, LUMP_POP_INDEX), out.d + lump_ofs(&out, LUMP_POP_INDEX), 256);
    free(in.d);
    free(out.d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engines_find_bspx),
        cmocka_unit_test(test_no_option_no_block),
        cmocka_unit_test(test_pop_kept),
    };
    return cmocka_run_group_tests(tests, g_tmp_setup, g_tmp_teardown);
}
