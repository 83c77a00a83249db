#include "crmath.h"

#include <math.h>

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
    double k = nearbyint(x * 0x1.45f306dc9c883p-1); /* 2/pi */
    dd_t a = two_prod(k, PIO2_1), b = two_prod(k, PIO2_2);
    dd_t s = two_sum(x, -a.hi);
    s = dd_add(s, (dd_t){-a.lo, 0});
    s = dd_add(s, (dd_t){-b.hi, -b.lo});
    s = dd_add(s, (dd_t){-k * PIO2_3, 0});
    *r = s;
    return (int)fmod(k, 4.0) & 3; /* two's complement keeps -1 as 3 */
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

/* quadrant: which of sin, cos, -sin, -cos of r gives the function. */
static double eval(double x, int shift)
{
    if (!isfinite(x)) return x - x; /* NaN, as libm gives */
    if (fabs(x) > CR_REDUCE_MAX) return shift ? cos(x) : sin(x);
    dd_t r;
    int q = (reduce(x, &r) + shift) & 3;
    dd_t v = (q & 1) ? cos_kernel(r) : sin_kernel(r);
    /* hi is hi + lo rounded to nearest (fast_two_sum normalised it). */
    return (q & 2) ? -v.hi : v.hi;
}

double cr_sin(double x) { return x == 0 ? x : eval(x, 0); }
double cr_cos(double x) { return eval(x, 1); }
