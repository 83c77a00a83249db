/* The rounds of -preset ericw's bounce (qrad/rounds.c):
 *
 * - rounds_order lists every luxel once, the first round's
 *   (rounds_first of them) first, and each later luxel after all the
 *   neighbours it takes its answer from, which lie half a step of the round
 *   before away;
 * - rounds_fill_cells, after the first round, gives exactly the answers
 *   the later rounds would give luxel by luxel (a luxel with two or four
 *   neighbours found and agreeing takes theirs, any other is traced),
 *   compared on faces of many sizes, with unlit luxels and shadows of
 *   several shapes, the traced answers drawn from the shadow itself. Seen
 *   failing with a cell filled when one corner differs, when a luxel of
 *   its edge is unlit, and with the corners' answer taken as clear. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rounds.h"

static void test_order(void **state)
{
    (void)state;
    for (int h = 1; h <= 13; h++)
        for (int w = 1; w <= 13; w++) {
            lorder_t *o = rounds_order(w, h);
            int *at = malloc(sizeof(int) * (size_t)(w * h));
            for (int k = 0; k < w * h; k++) at[k] = -1;
            for (int e = 0; e < w * h; e++) {
                assert_true(o[e].idx >= 0 && o[e].idx < w * h);
                assert_int_equal(at[o[e].idx], -1);
                at[o[e].idx] = e;
                int i = o[e].idx % w, j = o[e].idx / w;
                bool first = i % 4 == 0 && j % 4 == 0;
                assert_int_equal(e < rounds_first(w, h), first);
                assert_int_equal(o[e].nn == 0, first);
                for (int k = 0; k < o[e].nn; k++) {
                    int nb = o[e].nb[k];
                    assert_true(at[nb] >= 0 && at[nb] < e);
                    int di = abs(nb % w - i), dj = abs(nb / w - j);
                    int step = (i % 2 || j % 2) ? 1 : 2;
                    assert_true(di == 0 || di == step);
                    assert_true(dj == 0 || dj == step);
                }
            }
            free(at);
            free(o);
        }
}

/* A shadow over the face (which luxels a ray would find blocked), by
 * kind: a half plane at an angle, a disc, stripes, a checkerboard of
 * 3 by 3 blocks, none. */
static uint8_t shadow(int kind, int i, int j, int w, int h)
{
    switch (kind) {
    case 0: return 3 * i + 2 * j > 2 * w ? VIS_BLOCKED : VIS_CLEAR;
    case 1: return (2 * i - w) * (2 * i - w) + (2 * j - h) * (2 * j - h) < w * h / 2 ? VIS_BLOCKED : VIS_CLEAR;
    case 2: return (i / 5) % 2 ? VIS_BLOCKED : VIS_CLEAR;
    case 3: return ((i / 3) + (j / 3)) % 2 ? VIS_BLOCKED : VIS_CLEAR;
    default: return VIS_CLEAR;
    }
}

/* The rounds luxel by luxel, as bouncelights.c's gather_face decides (its
 * rays answered by the shadow); with fill, rounds_fill_cells after the
 * first round and the filled luxels passed. */
static void rounds(int w, int h, const double *val, int kind, bool fill, uint8_t *vis, long *filled)
{
    lorder_t *o = rounds_order(w, h);
    memset(vis, VIS_NONE, (size_t)(w * h));
    for (int e = 0; e < w * h; e++) {
        if (fill && e == rounds_first(w, h)) {
            rounds_fill_cells(w, h, val, vis);
            for (int k = e; k < w * h; k++) *filled += vis[o[k].idx] != VIS_NONE;
        }
        int idx = o[e].idx;
        if (val[idx] <= 0 || vis[idx] != VIS_NONE) continue;
        const uint8_t agreed = rounds_agreed(&o[e], vis);
        vis[idx] = agreed != VIS_NONE ? agreed : shadow(kind, idx % w, idx / w, w, h);
    }
    free(o);
}

static void test_fill(void **state)
{
    (void)state;
    long filled_faces = 0, filled = 0;
    unsigned seed = 12345;
    for (int h = 1; h <= 23; h += 2)
        for (int w = 1; w <= 23; w += 3)
            for (int kind = 0; kind < 5; kind++)
                for (int unlit = 0; unlit < 3; unlit++) {
                    int n = w * h;
                    double *val = malloc(sizeof(double) * (size_t)n);
                    uint8_t *a = malloc((size_t)n), *b = malloc((size_t)n);
                    for (int k = 0; k < n; k++) {
                        seed = seed * 1103515245u + 12345u;
                        /* none unlit, a few, or a corner's worth */
                        bool off = unlit == 1 ? (seed >> 16) % 29 == 0 : unlit == 2 ? k % w < 3 && k / w < 3 : false;
                        val[k] = off ? 0 : 1 + (seed >> 20) % 7;
                    }
                    rounds(w, h, val, kind, false, a, &filled);
                    rounds(w, h, val, kind, true, b, &filled);
                    if (memcmp(a, b, (size_t)n) != 0)
                        fail_msg("%d x %d, shadow %d, unlit %d: the fill differs from the rounds", w, h, kind, unlit);
                    filled_faces += w > 4 && h > 4;
                    free(val);
                    free(a);
                    free(b);
                }
    assert_true(filled_faces > 100);
    /* the fill settles most luxels of the faces it can */
    assert_true(filled > 10000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_fill),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
