/* Zero-word elision (common/zwords.c), which the MPI ranks apply to every
 * exchange: round trips of buffers of every length and density, the exact
 * layout of a small case, and encodings cut short or padded, which must be
 * refused rather than read past. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../common/zwords.h"
#include "test_util.h"

/* Bytes of which about density_percent are non-zero, in runs, so that
 * whole words are zero in the sparse cases and none in the dense ones. */
static void random_bytes(uint8_t *b, size_t n, uint32_t *seed, int density_percent)
{
    for (size_t i = 0; i < n; i++) b[i] = (int)(tu_xorshift(seed) % 100) < density_percent ? (uint8_t)(1 + tu_xorshift(seed) % 255) : 0;
}

static void test_round_trips(void **state)
{
    (void)state;
    uint32_t seed = 0x5EED1u;
    static const int densities[] = {0, 1, 3, 10, 50, 100};
    enum { MAXN = 5000 };
    uint8_t *in = malloc(MAXN), *enc = malloc(zw_bound(MAXN)), *back = malloc(MAXN + 1);
    for (int it = 0; it < 2000; it++) {
        size_t n = it < 40 ? (size_t)it : tu_xorshift(&seed) % MAXN;
        int density = densities[it % 6];
        random_bytes(in, n, &seed, density);
        size_t len = zw_encode(in, n, enc);
        assert_true(len <= zw_bound(n));
        size_t raw = 0;
        assert_true(zw_raw_size(enc, len, &raw));
        assert_int_equal(raw, n);
        back[n] = 0xAB; /* must not be written */
        memset(back, 0x55, n);
        assert_true(zw_decode(enc, len, back, n));
        assert_memory_equal(in, back, n);
        assert_int_equal(back[n], 0xAB);
        /* too little room, a prefix, a byte more: all refused */
        if (n > 0) assert_false(zw_decode(enc, len, back, n - 1));
        for (size_t cut = 0; cut < len; cut += 1 + len / 7) assert_false(zw_decode(enc, cut, back, n));
        enc[len] = 0;
        assert_false(zw_decode(enc, len + 1, back, n));
        /* all-zero input keeps only the header and the bitmap */
        if (density == 0) assert_int_equal(len, 8 + (n / 8 + 7) / 8 + n % 8);
    }
    free(in);
    free(enc);
    free(back);
}

static void test_layout(void **state)
{
    (void)state;
    /* 19 bytes: word 0 zero, word 1 not, a tail of 3 */
    uint8_t in[19] = {0};
    in[9] = 7;
    in[17] = 1;
    uint8_t enc[64];
    size_t len = zw_encode(in, sizeof in, enc);
    assert_int_equal(len, 8 + 1 + 8 + 3);
    uint64_t raw;
    memcpy(&raw, enc, 8);
    assert_int_equal(raw, 19);
    assert_int_equal(enc[8], 0x02); /* only word 1 stored */
    assert_memory_equal(enc + 9, in + 8, 8);
    assert_memory_equal(enc + 17, in + 16, 3);
    /* a bitmap that claims a word the buffer does not hold */
    enc[8] = 0x03;
    uint8_t back[19];
    assert_false(zw_decode(enc, len, back, sizeof back));
    /* a bitmap bit past the last whole word */
    enc[8] = 0x06;
    assert_false(zw_decode(enc, len, back, sizeof back));
    enc[8] = 0x02;
    assert_true(zw_decode(enc, len, back, sizeof back));
    assert_memory_equal(in, back, sizeof in);
    assert_false(zw_raw_size(enc, 7, &(size_t){0}));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
