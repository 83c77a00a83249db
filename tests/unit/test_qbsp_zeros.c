/* Signed zeros in qbsp's output (issue 37): every float qbsp writes holds
 * +0.0 for a zero, so the bytes do not depend on which sign the build's
 * arithmetic happened to give. The map below makes a brush model whose top
 * bound is computed as -0.0: the world's first plane at z = 0 faces down,
 * so the plane table stores its front half with dist -(+0.0) = -0.0, and
 * the func_wall's top face at z = 0 reuses that plane. The written bytes
 * are read back raw (not through bsp_read_file), in both formats. */
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
#include "../../common/mathlib.h"
#include "../../formats/bspfile.h"
#include "test_util.h"

#include "test_qbsp_maps.h"

static const uint8_t NEG_ZERO[4] = {0x00, 0x00, 0x00, 0x80}; /* -0.0f, little-endian */
static const uint8_t POS_ZERO[4] = {0x00, 0x00, 0x00, 0x00};

static void test_float_for_file(void **state)
{
    (void)state;
    float f = float_for_file(-0.0);
    assert_memory_equal(&f, POS_ZERO, 4);
    /* A negative double too small for a float narrows to -0.0f. */
    f = float_for_file(-1e-60);
    assert_memory_equal(&f, POS_ZERO, 4);
    f = float_for_file(0.0);
    assert_memory_equal(&f, POS_ZERO, 4);
    assert_true(float_for_file(-2.5) == -2.5f);
    assert_true(float_for_file(1.0 / 3.0) == (float)(1.0 / 3.0));
    assert_true(float_for_file(-1e-30) == (float)-1e-30);
}

/* A world brush whose first face on z = 0 is its bottom (normal down),
 * then a func_wall from z = -96 to 0 (issue 37's case: dm2's doors). */
static void zero_map(mt_t *m)
{
    mt_printf(m, "{\n\"classname\" \"worldspawn\"\n");
    mt_box(m, 0, 0, 0, 64, 64, 16, "e1u1/wall", "");
    mt_box(m, -16, -16, -32, 528, 528, -16, "e1u1/floor", "");
    mt_printf(m, "}\n{\n\"classname\" \"func_wall\"\n");
    mt_box(m, 256, 256, -96, 272, 272, 0, "e1u1/wall", "");
    mt_printf(m, "}\n");
}

/* Lump `lump` of the raw file: its bytes and record count. */
static const uint8_t *raw_lump(const uint8_t *d, size_t size, int lump, int recsize, int *count)
{
    assert_true(size >= 8 + 8 * HEADER_LUMPS);
    int32_t ofs, len;
    memcpy(&ofs, d + 8 + 8 * lump, 4);
    memcpy(&len, d + 12 + 8 * lump, 4);
    assert_true(ofs >= 0 && len >= 0 && (size_t)ofs + (size_t)len <= size);
    assert_int_equal(len % recsize, 0);
    *count = len / recsize;
    return d + ofs;
}

/* How many floats of lump `lump` (fields first..last bytes of each record)
 * are -0.0. */
static int neg_zeros(const uint8_t *d, size_t size, int lump, int recsize, int first, int last)
{
    int n, bad = 0;
    const uint8_t *p = raw_lump(d, size, lump, recsize, &n);
    for (int r = 0; r < n; r++)
        for (int k = first; k < last; k += 4)
            if (!memcmp(p + (size_t)r * recsize + k, NEG_ZERO, 4)) {
                fprintf(stderr, "lump %s record %d byte %d: -0.0\n", bsp_lump_names[lump], r, k);
                bad++;
            }
    return bad;
}

static void check_file(const char *name, bool qbsp)
{
    char path[2 * Q2_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.bsp", tmpdir, name);
    size_t size;
    uint8_t *d = tu_read_file(path, 64 << 20, &size);
    assert_memory_equal(d, qbsp ? "QBSP" : "IBSP", 4);

    /* Model 1 (the func_wall): maxs.z is the zero whose sign was computed. */
    int nm;
    const uint8_t *models = raw_lump(d, size, LUMP_MODELS, 48, &nm);
    assert_int_equal(nm, 2);
    float maxz;
    memcpy(&maxz, models + 48 + 20, 4);
    assert_true(maxz == 0.0f);
    assert_memory_equal(models + 48 + 20, POS_ZERO, 4);

    int bad = neg_zeros(d, size, LUMP_PLANES, 20, 0, 16) + neg_zeros(d, size, LUMP_VERTEXES, 12, 0, 12) +
              neg_zeros(d, size, LUMP_TEXINFO, 76, 0, 32) + neg_zeros(d, size, LUMP_MODELS, 48, 0, 36);
    /* QBSP's node and leaf bounds are floats (IBSP's are shorts). */
    if (qbsp) bad += neg_zeros(d, size, LUMP_NODES, 44, 12, 36) + neg_zeros(d, size, LUMP_LEAFS, 52, 12, 36);
    assert_int_equal(bad, 0);
    free(d);
}

static void test_model_bound_zero(void **state)
{
    (void)state;
    mt_t m = {0};
    zero_map(&m);
    result_t r;
    compile_mt("zeros", &m, "-threads 2", &r);
    need_bsp(&r);
    check_file("zeros", false);
    result_free(&r);
}

static void test_model_bound_zero_qbsp(void **state)
{
    (void)state;
    mt_t m = {0};
    zero_map(&m);
    result_t r;
    compile_mt("zerosq", &m, "-threads 2 -qbism", &r);
    need_bsp(&r);
    check_file("zerosq", true);
    result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_for_file),
        cmocka_unit_test(test_model_bound_zero),
        cmocka_unit_test(test_model_bound_zero_qbsp),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
