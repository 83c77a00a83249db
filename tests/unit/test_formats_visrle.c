/* Quake's zero run-length compression of visibility rows: random round
 * trips, worst cases, malformed input, and a whole lump built from random
 * rows read back through vis_lump_check and vis_lump_row. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../formats/visrle.h"
#include "test_util.h"

/* A row whose density varies from all-zero to all-ones, with long zero runs
 * (over 255 bytes) in the sparse cases. */
static void random_row(uint8_t *row, int rowbytes, uint32_t *seed, int density_percent)
{
    for (int i = 0; i < rowbytes; i++) {
        row[i] = 0;
        for (int bit = 0; bit < 8; bit++)
            if ((int)(tu_xorshift(seed) % 100) < density_percent) row[i] |= (uint8_t)(1 << bit);
    }
}

static void test_random_round_trips(void **state)
{
    uint32_t seed = 0xC0FFEEu;
    static const int densities[] = {0, 1, 5, 20, 50, 90, 100};
    uint8_t row[4096], packed[4096 * 3 / 2 + 2], back[4096 + 1];
    int n = 0;
    for (int it = 0; it < 3000; it++) {
        int numclusters = 1 + (int)(tu_xorshift(&seed) % 8192);
        int rowbytes = vis_row_bytes(numclusters);
        assert_true(rowbytes <= 1024);
        random_row(row, rowbytes, &seed, densities[it % 7]);
        size_t len = vis_compress_row(row, rowbytes, packed);
        assert_true(len >= 1 || rowbytes == 0);
        assert_true(len <= (size_t)rowbytes * 3 / 2 + 2);
        back[rowbytes] = 0xAB; /* must not be written */
        size_t used = vis_decompress_row(packed, len, rowbytes, back);
        assert_int_equal(used, len);
        assert_memory_equal(row, back, (size_t)rowbytes);
        assert_int_equal(back[rowbytes], 0xAB);
        /* Any strict prefix of the compressed row is incomplete. */
        if (len > 1) assert_int_equal(vis_decompress_row(packed, len - 1, rowbytes, back), 0);
        n++;
    }
    assert_int_equal(n, 3000);
}

static void test_known_encodings(void **state)
{
    uint8_t row[600], packed[1000], back[600];
    /* 600 zero bytes: runs of 255, 255 and 90. */
    memset(row, 0, sizeof row);
    size_t len = vis_compress_row(row, 600, packed);
    assert_int_equal(len, 6);
    const uint8_t want[6] = {0, 255, 0, 255, 0, 90};
    assert_memory_equal(packed, want, 6);
    /* Non-zero bytes are copied. */
    memset(row, 0xFF, sizeof row);
    assert_int_equal(vis_compress_row(row, 600, packed), 600);
    /* The worst case: isolated zeros. */
    for (int i = 0; i < 600; i++) row[i] = (i & 1) ? 0x10 : 0;
    len = vis_compress_row(row, 600, packed);
    assert_int_equal(len, 900);
    assert_int_equal(vis_decompress_row(packed, len, 600, back), len);
    assert_memory_equal(row, back, 600);
    /* A zero run longer than the row, and a zero count, are malformed. */
    const uint8_t over[2] = {0, 3};
    assert_int_equal(vis_decompress_row(over, 2, 2, back), 0);
    const uint8_t zero_count[3] = {0, 0, 0};
    size_t r = vis_decompress_row(zero_count, 3, 2, back);
    /* A 0-length run makes no progress; it must not be read as valid data
     * of another length. */
    assert_true(r == 0 || r == 3);
    if (r == 3) assert_true(back[0] == 0 && back[1] == 0);
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void test_lump_round_trip(void **state)
{
    uint32_t seed = 77;
    for (int trial = 0; trial < 20; trial++) {
        int numclusters = 1 + (int)(tu_xorshift(&seed) % 3000);
        int rowbytes = vis_row_bytes(numclusters);
        size_t cap = 4 + (size_t)numclusters * 8 + (size_t)numclusters * 2 * ((size_t)rowbytes * 3 / 2 + 2);
        uint8_t *lump = calloc(cap, 1);
        uint8_t *rows = malloc((size_t)numclusters * 2 * (size_t)rowbytes);
        put32(lump, (uint32_t)numclusters);
        size_t pos = 4 + (size_t)numclusters * 8;
        for (int c = 0; c < numclusters; c++)
            for (int w = 0; w < 2; w++) {
                uint8_t *row = rows + ((size_t)c * 2 + (size_t)w) * (size_t)rowbytes;
                random_row(row, rowbytes, &seed, (c * 7 + w * 40) % 101);
                put32(lump + 4 + ((size_t)c * 2 + (size_t)w) * 4, (uint32_t)pos);
                pos += vis_compress_row(row, rowbytes, lump + pos);
            }
        q2err_t err;
        if (!vis_lump_check(lump, (int)pos, &err)) fail_msg("%s", err.msg);
        uint8_t *out = malloc((size_t)rowbytes);
        for (int c = 0; c < numclusters; c++)
            for (int w = 0; w < 2; w++) {
                assert_true(vis_lump_row(lump, (int)pos, c, w, out));
                assert_memory_equal(out, rows + ((size_t)c * 2 + (size_t)w) * (size_t)rowbytes, (size_t)rowbytes);
            }
        /* Cutting the last byte breaks the last row. */
        assert_false(vis_lump_check(lump, (int)pos - 1, &err));
        /* An offset past the end is reported. */
        put32(lump + 4, (uint32_t)pos + 10);
        assert_false(vis_lump_check(lump, (int)pos, &err));
        assert_non_null(strstr(err.msg, "outside"));
        free(out);
        free(rows);
        free(lump);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_round_trips),
        cmocka_unit_test(test_known_encodings),
        cmocka_unit_test(test_lump_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
