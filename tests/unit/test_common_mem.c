/* common/mem.h: q2_aligned_alloc starts its block on the asked multiple,
 * for every power of two up to 4096 and sizes from 0 up, and the blocks
 * are whole: each is filled with its own byte and read back after all are
 * made, so two that overlapped, or one past its malloc'd block (which
 * AddressSanitizer would name), would fail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "../../common/mem.h"

#define SIZES 7
#define ALIGNS 13

static void aligned_blocks(void **state)
{
    (void)state;
    static const size_t sizes[SIZES] = {0, 1, 7, 64, 100, 4096, 1 << 20};
    void *p[ALIGNS][SIZES];
    for (int a = 0; a < ALIGNS; a++)
        for (int s = 0; s < SIZES; s++) {
            size_t align = (size_t)1 << a;
            p[a][s] = q2_aligned_alloc(align, sizes[s]);
            assert_non_null(p[a][s]);
            assert_int_equal((uintptr_t)p[a][s] % align, 0);
            memset(p[a][s], a * SIZES + s, sizes[s]);
        }
    for (int a = 0; a < ALIGNS; a++)
        for (int s = 0; s < SIZES; s++) {
            const unsigned char *b = p[a][s];
            for (size_t i = 0; i < sizes[s]; i++) assert_int_equal(b[i], (unsigned char)(a * SIZES + s));
            q2_aligned_free(p[a][s]);
        }
    q2_aligned_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(aligned_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
