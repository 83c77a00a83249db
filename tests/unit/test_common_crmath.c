/* cr_sin and cr_cos (and cr_tan, cr_acos, cr_atan2, cr_hypot, cr_cbrt,
 * cr_pow, further down): the correctly rounded value at every tested double
 * (references computed to 70 digits outside the program and rounded to
 * nearest), so that texture axes are the same bits on every platform. The
 * first four rows are angles where glibc's cos is one ulp off and the next
 * six right angles where MinGW-w64's are. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "../../common/crmath.h"
#include "test_util.h"

static const struct {
    double x, s, c;
} refs[] = {
    {-4.9497537586559188, 0x1.f1a4df4cf1d06p-1, 0x1.e192302d80f01p-3}, /* -283.6 degrees */
    {-4.9331731307619719, 0x1.f3925c89eb7ccp-1, 0x1.c08059571a8ddp-3}, /* -282.65 degrees */
    {-4.5544366830792029, 0x1.f9a057f732c4ap-1, -0x1.422493810750bp-3}, /* -260.95 degrees */
    {-4.1521382904945101, 0x1.b1b9f6e81f367p-1, -0x1.1013798057901p-1}, /* -237.9 degrees */
    {-1.5707963267948966, -0x1.0000000000000p+0, 0x1.1a62633145c07p-54}, /* -90 degrees */
    {-3.1415926535897931, -0x1.1a62633145c07p-53, -0x1.0000000000000p+0}, /* -180 degrees */
    {1.5707963267948966, 0x1.0000000000000p+0, 0x1.1a62633145c07p-54}, /* 90 degrees */
    {3.1415926535897931, 0x1.1a62633145c07p-53, -0x1.0000000000000p+0}, /* 180 degrees */
    {4.7123889803846897, -0x1.0000000000000p+0, -0x1.a79394c9e8a0ap-53}, /* 270 degrees */
    {-4.7123889803846897, 0x1.0000000000000p+0, -0x1.a79394c9e8a0ap-53}, /* -270 degrees */
    {0.78539816339744828, 0x1.6a09e667f3bccp-1, 0x1.6a09e667f3bcdp-1}, /* 45 degrees */
    {2.3561944901923448, 0x1.6a09e667f3bcdp-1, -0x1.6a09e667f3bccp-1}, /* 135 degrees */
    {-2.3561944901923448, -0x1.6a09e667f3bcdp-1, -0x1.6a09e667f3bccp-1}, /* -135 degrees */
    {0.17453292519943295, 0x1.63a1a7e0b7389p-3, 0x1.f838b8c811c17p-1}, /* 10 degrees */
    {-0.3490658503988659, -0x1.5e3a8748a0bf5p-2, 0x1.e11f642522d1cp-1}, /* -20 degrees */
    {-0.52359877559829882, -0x1.fffffffffffffp-2, 0x1.bb67ae8584cabp-1}, /* -30 degrees */
    {-0.6108652381980153, -0x1.25abcf87c4978p-1, 0x1.a367e59158747p-1}, /* -35 degrees */
    {1.0821041362364843, 0x1.c411b4f6d2707p-1, 0x1.e0bd27424507ap-2}, /* 62 degrees */
    {1.0122910327357861, 0x1.b2335d5beb7d7p-1, 0x1.0f519205cc00ap-1}, /* 58.0000038147 degrees */
    {3.001966313430247, 0x1.1d06c968d9e15p-3, -0x1.fb046a930947ap-1}, /* 172 degrees */
    {0.017453292519943295, 0x1.1df0b2b89dd1ep-6, 0x1.ffec097f5af8ap-1}, /* 1 degrees */
    {0.0008726646259971648, 0x1.c9870c6d303cbp-11, 0x1.fffff3393210cp-1}, /* 0.05 degrees */
    {6.2823126425535891, -0x1.c9870c6d30aa9p-11, 0x1.fffff3393210cp-1}, /* 359.95 degrees */
    {12.566370614359172, -0x1.1a62633145c07p-51, 0x1.0000000000000p+0}, /* 720 degrees */
    {-62.831853071795862, 0x1.60fafbfd97309p-49, 0x1.0000000000000p+0}, /* -3600 degrees */
};

static void test_reference_values(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
        if (cr_sin(refs[i].x) != refs[i].s || cr_cos(refs[i].x) != refs[i].c)
            fail_msg("x = %.17g: sin %a (want %a), cos %a (want %a)", refs[i].x, cr_sin(refs[i].x), refs[i].s,
                     cr_cos(refs[i].x), refs[i].c);
    }
}

/* Over a sweep the results stay within one ulp of the C library's (which is
 * itself within one) and keep sin^2 + cos^2 = 1 to rounding; odd and even
 * symmetry hold exactly. */
static void test_sweep(void **state)
{
    (void)state;
    for (int k = -200000; k <= 200000; k++) {
        double x = k * 0.000987654321;
        double s = cr_sin(x), c = cr_cos(x);
        assert_true(fabs(s - sin(x)) <= nextafter(fabs(s), INFINITY) - fabs(s));
        assert_true(fabs(c - cos(x)) <= nextafter(fabs(c), INFINITY) - fabs(c));
        assert_true(fabs(s * s + c * c - 1) < 4e-16);
        assert_true(cr_sin(-x) == -s);
        assert_true(cr_cos(-x) == c);
    }
}

static void test_special_values(void **state)
{
    (void)state;
    assert_true(cr_sin(0.0) == 0.0 && !signbit(cr_sin(0.0)));
    assert_true(cr_sin(-0.0) == 0.0 && signbit(cr_sin(-0.0)));
    assert_true(cr_cos(0.0) == 1.0);
    assert_true(isnan(cr_sin(NAN)) && isnan(cr_cos(INFINITY)) && isnan(cr_sin(-INFINITY)));
    /* Tiny arguments: sin x rounds to x. */
    assert_true(cr_sin(1e-200) == 1e-200);
    assert_true(cr_cos(1e-200) == 1.0);
}

/* cr_tan, cr_acos, cr_atan2, cr_hypot, cr_cbrt, cr_pow at arguments where
 * MinGW-w64's or glibc's arm64 library is one ulp off (found over 20,000
 * arguments; the references are the correctly rounded values, computed in
 * 113-bit quad precision outside the program). */
static const struct {
    const char *f;
    double x, y, want;
} refs2[] = {
    {"cbrt", 0x1.e5a425d7ef784p-2, 0x0p+0, 0x1.8f471d1a50455p-1}, /* MinGW-w64 0x1.8f471d1a50455p-1, glibc arm64 0x1.8f471d1a50454p-1 (off) */
    {"acos", -0x1.4043be1762b5ap-1, 0x0p+0, 0x1.1f9043cc8680dp+1}, /* MinGW-w64 0x1.1f9043cc8680ep+1 (off), glibc arm64 0x1.1f9043cc8680dp+1 */
    {"cbrt", 0x1.7f7883d13a94cp-3, 0x0p+0, 0x1.24e9830dd519dp-1}, /* MinGW-w64 0x1.24e9830dd519dp-1, glibc arm64 0x1.24e9830dd519bp-1 (off) */
    {"cbrt", 0x1.c774244c9c5ap-2, 0x0p+0, 0x1.86d3bf632a624p-1}, /* MinGW-w64 0x1.86d3bf632a624p-1, glibc arm64 0x1.86d3bf632a623p-1 (off) */
    {"acos", 0x1.1d01ff26f278cp-2, 0x0p+0, 0x1.49eb1858e219dp+0}, /* MinGW-w64 0x1.49eb1858e219cp+0 (off), glibc arm64 0x1.49eb1858e219dp+0 */
    {"hypot", 0x1.47407fc9bc9e3p-1, 0x1.3fbda4390595ep-1, 0x1.c9861678feb2p-1}, /* MinGW-w64 0x1.c9861678feb1fp-1 (off), glibc arm64 0x1.c9861678feb2p-1 */
    {"hypot", 0x1.737b35824e6e4p-3, 0x1.f323b61903366p-1, 0x1.fbb4ac680ed8fp-1}, /* MinGW-w64 0x1.fbb4ac680ed8ep-1 (off), glibc arm64 0x1.fbb4ac680ed8fp-1 */
    {"hypot", 0x1.169d6f02ff0ddp-1, 0x1.2f0ecce34600ep-1, 0x1.9baaf22ed416bp-1}, /* MinGW-w64 0x1.9baaf22ed416cp-1 (off), glibc arm64 0x1.9baaf22ed416bp-1 */
    {"acos", 0x1.794884e63c168p-2, 0x0p+0, 0x1.3186eec3eda01p+0}, /* MinGW-w64 0x1.3186eec3edap+0 (off), glibc arm64 0x1.3186eec3eda01p+0 */
    {"tan", 0x1.ec084581cf906p-3, 0x0p+0, 0x1.f5b90b7a17efbp-3}, /* MinGW-w64 0x1.f5b90b7a17efap-3 (off), glibc arm64 0x1.f5b90b7a17efbp-3 */
    {"tan", -0x1.9c2cae1f896fcp-1, 0x0p+0, -0x1.0a40d5d9c586fp+0}, /* MinGW-w64 -0x1.0a40d5d9c586ep+0 (off), glibc arm64 -0x1.0a40d5d9c586fp+0 */
    {"tan", 0x1.e3d33c4749b1cp-2, 0x0p+0, 0x1.05ae76845bfc3p-1}, /* MinGW-w64 0x1.05ae76845bfc2p-1 (off), glibc arm64 0x1.05ae76845bfc3p-1 */
    {"atan2", -0x1.40d2c0ef69cap-4, 0x1.9e7956c8a025ep-2, -0x1.87797b65e53f9p-3}, /* MinGW-w64 -0x1.87797b65e53f9p-3, glibc arm64 -0x1.87797b65e53f8p-3 (off) */
    {"pow", 0x1.5ed6b2781f452p-1, 0x1.1cdf6896da40ep+0, 0x1.50322d620d12bp-1}, /* MinGW-w64 0x1.50322d620d12ap-1 (off), glibc arm64 0x1.50322d620d12ap-1 (off) */
    {"pow", 0x1.45b686a11e73p-3, 0x1.d680c82f5a1f1p+1, 0x1.30637bbff38dap-10}, /* MinGW-w64 0x1.30637bbff38d9p-10 (off), glibc arm64 0x1.30637bbff38dap-10 */
    {"atan2", -0x1.0f204fa426ebp-4, 0x1.f6419afb31b86p-2, -0x1.12b9eaa74a871p-3}, /* MinGW-w64 -0x1.12b9eaa74a87p-3 (off), glibc arm64 -0x1.12b9eaa74a87p-3 (off) */
    {"atan2", -0x1.de888dcc8658p-6, 0x1.ca1af19d165d4p-3, -0x1.09e94c744ddfep-3}, /* MinGW-w64 -0x1.09e94c744ddfep-3, glibc arm64 -0x1.09e94c744ddfdp-3 (off) */
    {"pow", 0x1.ebf1561ac43a8p-3, 0x1.c6ec4fc09f7c5p+1, 0x1.9c1ec39ed0dd7p-8}, /* MinGW-w64 0x1.9c1ec39ed0dd6p-8 (off), glibc arm64 0x1.9c1ec39ed0dd7p-8 */
};

static double call2(const char *f, double x, double y)
{
    switch (f[0] == 'a' ? f[1] == 'c' ? 'A' : 'B' : f[0]) {
    case 't': return cr_tan(x);
    case 'A': return cr_acos(x);
    case 'B': return cr_atan2(x, y);
    case 'h': return cr_hypot(x, y);
    case 'c': return cr_cbrt(x);
    default: return cr_pow(x, y);
    }
}

static void test_reference_values_more(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof refs2 / sizeof refs2[0]; i++) {
        double got = call2(refs2[i].f, refs2[i].x, refs2[i].y);
        if (got != refs2[i].want) fail_msg("%s(%a, %a) = %a, want %a", refs2[i].f, refs2[i].x, refs2[i].y, got, refs2[i].want);
    }
}

/* Within half an ulp (and a little for the reference's own rounding) of
 * the long double function, over sweeps of the ranges qrad and qbsp use. */
static void within_half_ulp(const char *f, double x, double y, double got, long double ref)
{
    double r = (double)ref;
    long double ulp = (long double)nextafter(fabs(r), INFINITY) - fabsl((long double)r);
    if (fabsl((long double)got - ref) > 0.501L * ulp) fail_msg("%s(%a, %a) = %a, reference %La", f, x, y, got, ref);
}

static void test_sweep_more(void **state)
{
    (void)state;
    if (sizeof(long double) <= sizeof(double)) skip(); /* no wider reference */
    for (int k = 0; k < 20000; k++) {
        double u = (k + 0.5) / 20000, v = fmod(k * 0.6180339887498949, 1.0);
        double a = u * 3 - 1.5, c = u * 2 - 1;
        within_half_ulp("tan", a, 0, cr_tan(a), tanl(a));
        within_half_ulp("acos", c, 0, cr_acos(c), acosl(c));
        within_half_ulp("atan2", c, v - 0.5, cr_atan2(c, v - 0.5), atan2l(c, v - 0.5));
        within_half_ulp("hypot", a * 1000, v, cr_hypot(a * 1000, v), hypotl(a * 1000, v));
        within_half_ulp("cbrt", a * 77, 0, cr_cbrt(a * 77), cbrtl(a * 77));
        within_half_ulp("pow", u, v * 8 - 4, cr_pow(u, v * 8 - 4), powl(u, v * 8 - 4));
        within_half_ulp("pow", u * 255, 1 / 2.2, cr_pow(u * 255, 1 / 2.2), powl(u * 255, 1 / 2.2));
    }
}

/* Where the table-driven fast paths (crmath.c's ATAN_K64, SINCOS_K64 and ACOS_NEAR1,
 * each checked by Ziv's test) are weakest: acos of cosines within 2^-52 of
 * 1 and of -1 (tiny angles, the polygon edges of a distant surface light),
 * and sin and cos halfway between table points, at the table's ends and
 * around multiples of pi/4. */
static void test_fast_path_edges(void **state)
{
    (void)state;
    if (sizeof(long double) <= sizeof(double)) skip();
    for (int e = 1; e <= 52; e++) {
        for (int j = 1; j <= 64; j++) {
            double d = ldexp(j / 64.0, -e);
            double xs[] = {1 - d, -1 + d, d};
            for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) within_half_ulp("acos", xs[i], 0, cr_acos(xs[i]), acosl(xs[i]));
        }
    }
    /* acos_near1's table of F around y = 1 - |x| = j/256: around each
     * point and each midpoint (where |e| is largest), both signs, and
     * either side of 1/2, where the table ends and acos_fast takes over */
    for (int j = 0; j <= 128; j++) {
        for (int k = 0; k <= 44; k++) {
            double h = ldexp(1, -k - 9);
            double ys[] = {j / 256.0 + h, j / 256.0 - h, (j + 0.5) / 256 + h, (j + 0.5) / 256 - h};
            for (size_t i = 0; i < sizeof ys / sizeof ys[0]; i++) {
                double y = ys[i];
                double xs[] = {1 - y, y - 1};
                for (size_t m = 0; m < sizeof xs / sizeof xs[0]; m++) within_half_ulp("acos", xs[m], 0, cr_acos(xs[m]), acosl(xs[m]));
            }
        }
    }
    /* atan2's table of atan(k/64): ratios around each point and halfway
     * between, both octants (y/x and x/y), every quadrant */
    for (int k = 0; k <= 64; k++) {
        for (int j = 0; j <= 30; j++) {
            double h = ldexp(1, -j - 8);
            double ts[] = {k / 64.0 + h, k / 64.0 - h, (k + 0.5) / 64.0};
            for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
                double t = ts[i];
                if (t <= 0) continue;
                double ys[] = {t, 1, -t, -1}, xs[] = {1, t, -1, -t};
                for (int q = 0; q < 4; q++)
                    within_half_ulp("atan2", ys[q], xs[q], cr_atan2(ys[q], xs[q]), atan2l(ys[q], xs[q]));
            }
        }
    }
    for (int k = -60; k <= 60; k++) {
        for (int j = 0; j <= 40; j++) {
            double h = ldexp(1, -j - 10);
            double xs[] = {(k + 0.5) / 64.0 + h, (k + 0.5) / 64.0 - h, k * (M_PI / 4) + h, k * (M_PI / 4) - h, k / 64.0 + h,
                           nextafter((k + 0.5) / 64.0, 0), nextafter((k + 0.5) / 64.0, 1),
                           /* reduce_fast's end and its closest r to 2^-12 */
                           0x1p19 + k * h, 0x1p19 - k * h, k * (M_PI / 2) + 0x1p-12 + k * h};
            for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
                double x = xs[i];
                within_half_ulp("sin", x, 0, cr_sin(x), sinl(x));
                within_half_ulp("cos", x, 0, cr_cos(x), cosl(x));
            }
        }
    }
}

static void test_special_values_more(void **state)
{
    (void)state;
    assert_true(cr_tan(0.0) == 0.0 && cr_tan(M_PI / 4) == tan(M_PI / 4));
    assert_true(cr_acos(1.0) == 0.0 && cr_acos(-1.0) == M_PI && cr_acos(0.0) == M_PI / 2 && isnan(cr_acos(1.5)));
    assert_true(cr_atan2(0.0, 1.0) == 0.0 && cr_atan2(0.0, -1.0) == M_PI && cr_atan2(1.0, 0.0) == M_PI / 2);
    assert_true(cr_atan2(-1.0, -1.0) == atan2(-1.0, -1.0));
    assert_true(cr_hypot(3, 4) == 5 && cr_hypot(0, -2) == 2 && isinf(cr_hypot(INFINITY, NAN)));
    assert_true(cr_cbrt(27) == 3 && cr_cbrt(-8) == -2 && cr_cbrt(0.0) == 0.0);
    assert_true(cr_pow(2, 10) == 1024 && cr_pow(4, 0.5) == 2 && cr_pow(0, 2) == 0 && cr_pow(5, 0) == 1);
    assert_true(cr_pow(-2, 3) == -8 && isnan(cr_pow(-2, 0.5)) && cr_pow(10, -2) == 0.01);
    assert_true(cr_pow(2, 2000) == INFINITY && cr_pow(2, -2000) == 0 && cr_pow(2, -1074) == 0x1p-1074);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_values),
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_special_values),
        cmocka_unit_test(test_reference_values_more),
        cmocka_unit_test(test_sweep_more),
        cmocka_unit_test(test_fast_path_edges),
        cmocka_unit_test(test_special_values_more),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
