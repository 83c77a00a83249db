#include "crmath.h"

#include <math.h>
#include <stdbool.h>

/* Double-double numbers: hi + lo, |lo| <= ulp(hi)/2. Every step below is an
 * IEEE double operation with round-to-nearest, which every platform the
 * tools build for performs the same way; CMake compiles this file with
 * -ffp-contract=off so that no compiler fuses a multiply and an add. */
typedef struct dd_t {
    double hi, lo;
} dd_t;

static dd_t two_sum(double a, double b)
{
    double s = a + b, bb = s - a;
    return (dd_t){s, (a - (s - bb)) + (b - bb)};
}

static dd_t fast_two_sum(double a, double b)
{
    double s = a + b;
    return (dd_t){s, b - (s - a)};
}

/* Dekker's split: a = h + l with h holding the upper 26 bits. */
static void split(double a, double *h, double *l)
{
    double t = 134217729.0 * a; /* 2^27 + 1 */
    *h = t - (t - a);
    *l = a - *h;
}

static dd_t two_prod(double a, double b)
{
    double p = a * b, ah, al, bh, bl;
    split(a, &ah, &al);
    split(b, &bh, &bl);
    return (dd_t){p, ((ah * bh - p) + ah * bl + al * bh) + al * bl};
}

static dd_t dd_add(dd_t a, dd_t b)
{
    dd_t s = two_sum(a.hi, b.hi), t = two_sum(a.lo, b.lo);
    s.lo += t.hi;
    s = fast_two_sum(s.hi, s.lo);
    s.lo += t.lo;
    return fast_two_sum(s.hi, s.lo);
}

static dd_t dd_mul(dd_t a, dd_t b)
{
    dd_t p = two_prod(a.hi, b.hi);
    p.lo += a.hi * b.lo + a.lo * b.hi;
    return fast_two_sum(p.hi, p.lo);
}

/* a / b for a small integer b (exact as a double). */
static dd_t dd_div_d(dd_t a, double b)
{
    double q1 = a.hi / b;
    dd_t p = two_prod(q1, b);
    dd_t r = two_sum(a.hi, -p.hi);
    r.lo -= p.lo;
    r.lo += a.lo;
    double q2 = (r.hi + r.lo) / b;
    return fast_two_sum(q1, q2);
}

/* pi/2 in three doubles (about 160 bits): the reduction below keeps the
 * reduced argument accurate to about 2^-106 relative even where x is within
 * a few ulps of a multiple of pi/2, which is where libraries go wrong. */
#define PIO2_1 0x1.921fb54442d18p+0
#define PIO2_2 0x1.1a62633145c07p-54
#define PIO2_3 (-0x1.f1976b7ed8fbcp-110)

/* Beyond this the quotient by pi/2 loses the bits the three-part constant
 * holds; no map angle comes near it (2^40 radians). */
#define CR_REDUCE_MAX 0x1p40

/* Reduces x to r in [-pi/4, pi/4] with x = r + k pi/2; returns k mod 4. */
static int reduce(double x, dd_t *r)
{
    /* x 2/pi to the nearest integer (ties to even, as nearbyint in the
     * default mode, without the library call): |x| <= 2^40 keeps it far
     * below 2^51, where adding 1.5 * 2^52 rounds to an integer. */
    double k = (x * 0x1.45f306dc9c883p-1 + 0x1.8p52) - 0x1.8p52;
    dd_t a = two_prod(k, PIO2_1), b = two_prod(k, PIO2_2);
    dd_t s = two_sum(x, -a.hi);
    s = dd_add(s, (dd_t){-a.lo, 0});
    s = dd_add(s, (dd_t){-b.hi, -b.lo});
    s = dd_add(s, (dd_t){-k * PIO2_3, 0});
    *r = s;
    return (int)((long long)k & 3); /* two's complement keeps -1 as 3 */
}

/* Taylor series in Horner form, x (1 - x^2/(2*3) (1 - x^2/(4*5) (...))):
 * for |x| <= pi/4 fifteen terms leave under 2^-106. */
#define SERIES_TERMS 15

static dd_t sin_kernel(dd_t x)
{
    dd_t x2 = dd_mul(x, x), acc = {1, 0};
    for (int n = SERIES_TERMS; n >= 1; n--) {
        dd_t t = dd_div_d(dd_mul(x2, acc), (double)(2 * n) * (double)(2 * n + 1));
        acc = dd_add((dd_t){1, 0}, (dd_t){-t.hi, -t.lo});
    }
    return dd_mul(x, acc);
}

static dd_t cos_kernel(dd_t x)
{
    dd_t x2 = dd_mul(x, x), acc = {1, 0};
    for (int n = SERIES_TERMS; n >= 1; n--) {
        dd_t t = dd_div_d(dd_mul(x2, acc), (double)(2 * n - 1) * (double)(2 * n));
        acc = dd_add((dd_t){1, 0}, (dd_t){-t.hi, -t.lo});
    }
    return acc;
}

/* The same series, fast: the terms past the third in plain double with
 * their reciprocals folded into constants (ten terms leave under 2^-72 for
 * |x| <= pi/4), the first three in double-double, which damp the double
 * part's error (2^-52) by x^2/30 x^2/12 x^2/2 at most: under 2^-64 of the
 * result. qrad calls sin and cos for every bounce and dirt ray, where the
 * full series alone cost 60% more time. */
static const double fast_inv[2][11] = {
    /* cos: 1/((2n-1) 2n) */
    {0, 1.0 / (1 * 2), 1.0 / (3 * 4), 1.0 / (5 * 6), 1.0 / (7 * 8), 1.0 / (9 * 10), 1.0 / (11 * 12),
     1.0 / (13 * 14), 1.0 / (15 * 16), 1.0 / (17 * 18), 1.0 / (19 * 20)},
    /* sin: 1/(2n (2n+1)) */
    {0, 1.0 / (2 * 3), 1.0 / (4 * 5), 1.0 / (6 * 7), 1.0 / (8 * 9), 1.0 / (10 * 11), 1.0 / (12 * 13),
     1.0 / (14 * 15), 1.0 / (16 * 17), 1.0 / (18 * 19), 1.0 / (20 * 21)},
};
/* The first three in double-double: 1/2, 1/12, 1/30 (cos), 1/6, 1/20, 1/42 (sin). */
static const dd_t fast_inv_dd[2][4] = {
    {{0, 0}, {0x1p-1, 0}, {0x1.5555555555555p-4, 0x1.5555555555555p-58}, {0x1.1111111111111p-5, 0x1.1111111111111p-61}},
    {{0, 0}, {0x1.5555555555555p-3, 0x1.5555555555555p-57}, {0x1.999999999999ap-5, -0x1.999999999999ap-59},
     {0x1.8618618618618p-6, 0x1.8618618618618p-60}},
};

static dd_t fast_kernel(dd_t x, int odd)
{
    double z = x.hi * x.hi, acc = 1;
    for (int n = 10; n >= 4; n--) acc = 1 - z * acc * fast_inv[odd][n];
    dd_t x2 = dd_mul(x, x), a = {acc, 0};
    for (int n = 3; n >= 1; n--) {
        dd_t t = dd_mul(dd_mul(x2, a), fast_inv_dd[odd][n]);
        a = dd_add((dd_t){1, 0}, (dd_t){-t.hi, -t.lo});
    }
    return odd ? dd_mul(x, a) : a;
}

/* sin (q = 0), cos (1), -sin (2) or -cos (3) of the reduced r. */
static double eval_reduced(dd_t r, int q)
{
    /* Ziv's test: the fast value rounds the same way at both ends of its
     * error bound (2^-61 relative, eight times the analysis above), so it
     * is the correctly rounded one; else (about one in 150) the full
     * series decides. Either way only IEEE operations: the same bits
     * everywhere. */
    dd_t f = fast_kernel(r, !(q & 1));
    double e = fabs(f.hi) * 0x1p-61;
    double lo1 = f.hi + (f.lo + e), lo2 = f.hi + (f.lo - e);
    if (lo1 == lo2) return (q & 2) ? -lo1 : lo1;
    dd_t v = (q & 1) ? cos_kernel(r) : sin_kernel(r);
    /* hi is hi + lo rounded to nearest (fast_two_sum normalised it). */
    return (q & 2) ? -v.hi : v.hi;
}

/* shift 0: sin x, 1: cos x. */
static double eval(double x, int shift)
{
    if (!isfinite(x)) return x - x; /* NaN, as libm gives */
    if (fabs(x) > CR_REDUCE_MAX) return shift ? cos(x) : sin(x);
    dd_t r;
    int q = reduce(x, &r);
    return eval_reduced(r, (q + shift) & 3);
}

double cr_sin(double x) { return x == 0 ? x : eval(x, 0); }
double cr_cos(double x) { return eval(x, 1); }

void cr_sincos(double x, double *s, double *c)
{
    if (x == 0 || !isfinite(x) || fabs(x) > CR_REDUCE_MAX) {
        *s = cr_sin(x);
        *c = cr_cos(x);
        return;
    }
    dd_t r;
    int q = reduce(x, &r);
    *s = eval_reduced(r, q & 3);
    *c = eval_reduced(r, (q + 1) & 3);
}

/* --- tan, acos, atan2, hypot, cbrt, pow ------------------------------------ */

static dd_t dd_neg(dd_t a) { return (dd_t){-a.hi, -a.lo}; }
static dd_t dd_sub(dd_t a, dd_t b) { return dd_add(a, dd_neg(b)); }
static dd_t dd_d(double a) { return (dd_t){a, 0}; }

/* a / b: the quotient's first double, then one correction from the
 * remainder a - q b (exact to about 2^-104). */
static dd_t dd_div(dd_t a, dd_t b)
{
    double q1 = a.hi / b.hi;
    dd_t r = dd_sub(a, dd_mul(dd_d(q1), b));
    double q2 = r.hi / b.hi;
    r = dd_sub(r, dd_mul(dd_d(q2), b));
    double q3 = r.hi / b.hi;
    dd_t q = fast_two_sum(q1, q2);
    return dd_add(q, dd_d(q3));
}

/* sqrt(a) for a > 0: the double root and one Newton step on the rest. */
static dd_t dd_sqrt(dd_t a)
{
    if (a.hi <= 0) return dd_d(0);
    double h = sqrt(a.hi);
    dd_t r = dd_sub(a, two_prod(h, h));
    return fast_two_sum(h, r.hi / (2 * h));
}

static double dd_round(dd_t a) { return a.hi + a.lo; }

double cr_tan(double x)
{
    if (!isfinite(x)) return x - x;
    if (x == 0) return x;
    if (fabs(x) > CR_REDUCE_MAX) return tan(x);
    dd_t r;
    int q = reduce(x, &r);
    dd_t s = sin_kernel(r), c = cos_kernel(r);
    /* tan(r + k pi/2) is tan r for even k, -cot r for odd. */
    return dd_round((q & 1) ? dd_neg(dd_div(c, s)) : dd_div(s, c));
}

/* pi/2 and pi as double-doubles. */
static const dd_t DD_PIO2 = {0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54};
static const dd_t DD_PI = {0x1.921fb54442d18p+1, 0x1.1a62633145c07p-53};

/* atan t for 0 <= t <= 1: three halvings, atan t = 2 atan(t / (1 +
 * sqrt(1 + t^2))), bring t under tan(pi/32) < 0.0985, where the series
 * t - t^3/3 + t^5/5 ... leaves under 2^-106 after 17 terms. */
static dd_t atan_small(dd_t t)
{
    for (int i = 0; i < 3; i++) {
        dd_t root = dd_sqrt(dd_add(dd_d(1), dd_mul(t, t)));
        t = dd_div(t, dd_add(dd_d(1), root));
    }
    dd_t t2 = dd_mul(t, t), acc = dd_div_d(dd_d(1), 35);
    for (int n = 16; n >= 0; n--) {
        acc = dd_sub(dd_div_d(dd_d(1), 2 * n + 1), dd_mul(t2, acc));
    }
    dd_t a = dd_mul(t, acc);
    return (dd_t){a.hi * 8, a.lo * 8};
}

/* The angle of (x, y) for x, y >= 0, not both zero, in [0, pi/2]. */
static dd_t atan2_quadrant(dd_t y, dd_t x)
{
    if (y.hi <= x.hi) return atan_small(dd_div(y, x));
    return dd_sub(DD_PIO2, atan_small(dd_div(x, y)));
}

/* C's atan2 on the signs and zeros, the quadrant's angle otherwise. */
static double atan2_dd(dd_t y, dd_t x, bool yneg, bool xneg)
{
    dd_t a = atan2_quadrant(y, x);
    if (xneg) a = dd_sub(DD_PI, a);
    double v = dd_round(a);
    return yneg ? -v : v;
}

double cr_atan2(double y, double x)
{
    if (isnan(x) || isnan(y) || isinf(x) || isinf(y)) return atan2(y, x); /* NaN or a multiple of pi/4 */
    if (y == 0) return signbit(x) ? copysign(DD_PI.hi, y) : y;
    if (x == 0) return copysign(DD_PIO2.hi, y);
    /* Scaled by a power of two so that the squares in the halvings stay in
     * range (exact). */
    int e = ilogb(fabs(x) > fabs(y) ? x : y);
    return atan2_dd(dd_d(ldexp(fabs(y), -e)), dd_d(ldexp(fabs(x), -e)), y < 0, x < 0);
}

double cr_acos(double x)
{
    if (isnan(x) || x > 1 || x < -1) return (x - x) / (x - x);
    if (x == 1) return 0;
    if (x == -1) return DD_PI.hi;
    /* acos x = atan2(sqrt((1 - x)(1 + x)), x), the factors in double-double. */
    dd_t ax = dd_d(fabs(x));
    dd_t s = dd_sqrt(dd_mul(two_sum(1, -fabs(x)), two_sum(1, fabs(x))));
    if (x == 0) return DD_PIO2.hi;
    return atan2_dd(s, ax, false, x < 0);
}

double cr_hypot(double x, double y)
{
    x = fabs(x);
    y = fabs(y);
    if (isinf(x) || isinf(y)) return INFINITY;
    if (isnan(x) || isnan(y)) return x + y;
    if (x == 0 || y == 0) return x + y;
    int e = ilogb(x > y ? x : y);
    x = ldexp(x, -e);
    y = ldexp(y, -e);
    dd_t r = dd_sqrt(dd_add(two_prod(x, x), two_prod(y, y)));
    return ldexp(dd_round(r), e);
}

double cr_cbrt(double x)
{
    if (x == 0 || !isfinite(x)) return x + x;
    int e;
    double m = frexp(fabs(x), &e); /* |x| = m 2^e, m in [0.5, 1) */
    /* e = 3k + j with j in 0..2: the root is cbrt(m 2^j) 2^k, m 2^j in [0.5, 4). */
    int j = ((e % 3) + 3) % 3, k = (e - j) / 3;
    m = ldexp(m, j);
    /* Newton from a fixed start in double (no libm), then one step in
     * double-double: y + (m - y^3) / (3 y^2). */
    double y = 1.0;
    for (int i = 0; i < 8; i++) y = y - (y * y * y - m) / (3 * y * y);
    dd_t yy = dd_d(y), y3 = dd_mul(dd_mul(yy, yy), yy);
    dd_t corr = dd_div(dd_sub(dd_d(m), y3), dd_mul(dd_d(3), dd_mul(yy, yy)));
    double r = ldexp(dd_round(dd_add(yy, corr)), k);
    return x < 0 ? -r : r;
}

/* ln 2 in two doubles. */
static const dd_t DD_LN2 = {0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56};

/* ln x for finite x > 0: x = m 2^e with m in [sqrt(1/2), sqrt 2); ln m =
 * 2 atanh s with s = (m - 1)/(m + 1), |s| < 0.172, whose series s + s^3/3
 * + ... leaves under 2^-106 after 22 terms. */
static dd_t log_dd(double x)
{
    int e;
    double m = frexp(x, &e);
    if (m < 0x1.6a09e667f3bcdp-1) {
        m *= 2;
        e--;
    }
    dd_t s = dd_div(two_sum(m, -1), two_sum(m, 1));
    dd_t s2 = dd_mul(s, s), acc = dd_d(0);
    for (int n = 22; n >= 0; n--) acc = dd_add(dd_div_d(dd_d(1), 2 * n + 1), dd_mul(s2, acc));
    dd_t l = dd_mul(s, acc);
    l = (dd_t){l.hi * 2, l.lo * 2};
    return dd_add(l, dd_mul(dd_d(e), DD_LN2));
}

/* e^z for |z| < 709: z = k ln 2 + r, |r| <= ln 2 / 2; e^r = (e^(r/1024))^1024
 * with e^u - 1 for |u| < 2^-11 summed to u^9/9! and squared ten times as
 * v -> 2v + v^2, which keeps its bits. */
static double exp_dd(dd_t z)
{
    double k = nearbyint(z.hi / DD_LN2.hi);
    dd_t r = dd_sub(z, dd_mul(dd_d(k), DD_LN2));
    r = (dd_t){r.hi / 1024, r.lo / 1024};
    dd_t v = dd_d(0);
    for (int n = 9; n >= 1; n--) v = dd_mul(dd_div_d(r, n), dd_add(dd_d(1), v));
    for (int i = 0; i < 10; i++) v = dd_add(dd_mul(dd_d(2), v), dd_mul(v, v));
    return ldexp(dd_round(dd_add(dd_d(1), v)), (int)k);
}

double cr_pow(double x, double y)
{
    if (y == 0 || x == 1) return 1;
    if (isnan(x) || isnan(y)) return x + y;
    if (x < 0) {
        if (isinf(x) || isinf(y) || nearbyint(y) != y) return pow(x, y); /* the rules, no rounding */
        double r = cr_pow(-x, y);
        return fmod(y, 2) != 0 ? -r : r;
    }
    if (x == 0 || isinf(x) || isinf(y)) return pow(x, y); /* exact cases: 0, inf, 1 */
    dd_t z = dd_mul(dd_d(y), log_dd(x));
    if (z.hi > 709.78) return INFINITY;
    if (z.hi < -745.2) return 0;
    if (z.hi < -708) {
        /* Near and below the least normal: in two halves, so that ldexp's
         * power of two stays representable. */
        return exp_dd((dd_t){z.hi / 2, z.lo / 2}) * exp_dd((dd_t){z.hi / 2, z.lo / 2});
    }
    return exp_dd(z);
}
