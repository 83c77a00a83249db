/* common/mem.h: q2_aligned_alloc starts its block on the asked multiple,
 * for every power of two up to 4096 and sizes from 0 up, and the blocks
 * are whole: each is filled with its own byte and read back after all are
 * made, so two that overlapped, or one past its malloc'd block (which
 * AddressSanitizer would name), would fail. The pool: its blocks are
 * aligned and do not overlap (the same fill and read back), a freed block
 * is handed out again for the same size class and not for another, and a
 * released pool starts over. */
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

#define POOL_N 600

static size_t pool_size_of(int i) { return (size_t)(i * 37 % 1500) + 1; }

static void pool_fill_check(unsigned char **p, int n, int salt)
{
    for (int i = 0; i < n; i++)
        if (p[i]) memset(p[i], (i + salt) & 0xff, pool_size_of(i));
    for (int i = 0; i < n; i++) {
        if (!p[i]) continue;
        for (size_t k = 0; k < pool_size_of(i); k++) assert_int_equal(p[i][k], (unsigned char)((i + salt) & 0xff));
    }
}

static void pool_blocks(void **state)
{
    (void)state;
    pool_t pool;
    pool_init(&pool, 4096);
    for (int round = 0; round < 2; round++) {
        unsigned char *p[POOL_N];
        for (int i = 0; i < POOL_N; i++) {
            p[i] = pool_alloc(&pool, pool_size_of(i));
            assert_non_null(p[i]);
            assert_int_equal((uintptr_t)p[i] % 16, 0);
        }
        pool_fill_check(p, POOL_N, round);
        /* A freed block of a class comes back first for that class (the
         * free list is last in, first out), not for a larger one. */
        unsigned char *small = p[1];
        size_t small_size = pool_size_of(1);
        pool_free(&pool, small, small_size);
        p[1] = NULL;
        unsigned char *other = pool_alloc(&pool, small_size + POOL_STEP);
        assert_ptr_not_equal(other, small);
        assert_ptr_equal(pool_alloc(&pool, small_size), small);
        p[1] = small;
        pool_free(&pool, other, small_size + POOL_STEP);
        /* Every other block freed and taken again: still no overlap. */
        for (int i = 0; i < POOL_N; i += 2) {
            pool_free(&pool, p[i], pool_size_of(i));
            p[i] = NULL;
        }
        pool_fill_check(p, POOL_N, 100 + round);
        for (int i = 0; i < POOL_N; i += 2) p[i] = pool_alloc(&pool, pool_size_of(i));
        pool_fill_check(p, POOL_N, 200 + round);
        pool_release(&pool);
    }
    pool_release(&pool);
}

/* pool_absorb: src's live blocks stay whole and become dst's (freed by
 * dst's release: the sanitizer build reports a leak otherwise), and a block
 * src had freed is handed out by dst; src starts over empty. */
static void pool_merge(void **state)
{
    (void)state;
    pool_t dst, src;
    pool_init(&dst, 4096);
    pool_init(&src, 4096);
    unsigned char *a[POOL_N], *b[POOL_N];
    for (int i = 0; i < POOL_N; i++) {
        a[i] = pool_alloc(&dst, pool_size_of(i));
        b[i] = pool_alloc(&src, pool_size_of(i));
    }
    pool_fill_check(a, POOL_N, 1);
    pool_fill_check(b, POOL_N, 2);
    unsigned char *freed = b[3];
    pool_free(&src, freed, pool_size_of(3));
    b[3] = NULL;
    pool_absorb(&dst, &src);
    pool_fill_check(a, POOL_N, 3);
    pool_fill_check(b, POOL_N, 4);
    assert_ptr_equal(pool_alloc(&dst, pool_size_of(3)), freed);
    assert_null(src.arena.head);
    for (size_t c = 0; c < sizeof src.freelist / sizeof src.freelist[0]; c++) assert_null(src.freelist[c]);
    /* src is usable again, and its new block is its own */
    unsigned char *again = pool_alloc(&src, 100);
    assert_non_null(again);
    memset(again, 7, 100);
    pool_release(&src);
    pool_release(&dst);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(aligned_blocks),
        cmocka_unit_test(pool_blocks),
        cmocka_unit_test(pool_merge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
