#include "crmath.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

/* The double-double steps are small and called in chains; compilers left
 * them out of line (a quarter of cr_acos's time in calls). Inlining moves
 * no bits: every operation stays an IEEE one in the same order. */
#if defined(__GNUC__)
#define DD_INLINE static inline __attribute__((always_inline))
#else
#define DD_INLINE static inline
#endif

/* Double-double numbers: hi + lo, |lo| <= ulp(hi)/2. Every step below is an
 * IEEE double operation with round-to-nearest, which every platform the
 * tools build for performs the same way; CMake compiles this file with
 * -ffp-contract=off so that no compiler fuses a multiply and an add. */
typedef struct dd_t {
    double hi, lo;
} dd_t;

DD_INLINE dd_t two_sum(double a, double b)
{
    double s = a + b, bb = s - a;
    return (dd_t){s, (a - (s - bb)) + (b - bb)};
}

DD_INLINE dd_t fast_two_sum(double a, double b)
{
    double s = a + b;
    return (dd_t){s, b - (s - a)};
}

/* Dekker's split: a = h + l with h holding the upper 26 bits. */
DD_INLINE void split(double a, double *h, double *l)
{
    double t = 134217729.0 * a; /* 2^27 + 1 */
    *h = t - (t - a);
    *l = a - *h;
}

DD_INLINE dd_t two_prod(double a, double b)
{
    double p = a * b, ah, al, bh, bl;
    split(a, &ah, &al);
    split(b, &bh, &bl);
    return (dd_t){p, ((ah * bh - p) + ah * bl + al * bh) + al * bl};
}

DD_INLINE dd_t dd_add(dd_t a, dd_t b)
{
    dd_t s = two_sum(a.hi, b.hi), t = two_sum(a.lo, b.lo);
    s.lo += t.hi;
    s = fast_two_sum(s.hi, s.lo);
    s.lo += t.lo;
    return fast_two_sum(s.hi, s.lo);
}

DD_INLINE dd_t dd_mul(dd_t a, dd_t b)
{
    dd_t p = two_prod(a.hi, b.hi);
    p.lo += a.hi * b.lo + a.lo * b.hi;
    return fast_two_sum(p.hi, p.lo);
}

/* a b for a double b. */
DD_INLINE dd_t dd_mul_d(dd_t a, double b)
{
    dd_t p = two_prod(a.hi, b);
    p.lo += a.lo * b;
    return fast_two_sum(p.hi, p.lo);
}

DD_INLINE dd_t dd_neg(dd_t a) { return (dd_t){-a.hi, -a.lo}; }
DD_INLINE dd_t dd_sub(dd_t a, dd_t b) { return dd_add(a, dd_neg(b)); }
DD_INLINE dd_t dd_d(double a) { return (dd_t){a, 0}; }

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

/* pi/2 as 31 + 32 + 53 bits (Cody and Waite): k RP1 and k RP2 are exact
 * for k < 2^20, and the three are pi/2 to 2^-122. */
#define RP1 0x1.921fb544p+0
#define RP2 0x1.0b4611a6p-34
#define RP3 0x1.3198a2e037073p-69

/* reduce for |x| < 2^19 in a quarter of its operations (bounce rays turn
 * by sin and cos of random angles, once a ray): x - k RP1 is exact (k RP1
 * is within a factor 2 of x, or k = 0), so is k RP2 and the two_sum; the
 * rest (RP3's part, pi/2's tail, two roundings) is under 2^-101, 2^-89 of
 * r where |r| >= 2^-12. Closer to a multiple of pi/2 (or further out)
 * it answers false and reduce's 160 bits decide. Same k as reduce. */
static bool reduce_fast(double x, dd_t *r, int *q)
{
    if (!(fabs(x) < 0x1p19)) return false;
    double k = (x * 0x1.45f306dc9c883p-1 + 0x1.8p52) - 0x1.8p52;
    dd_t s = two_sum(x - k * RP1, -(k * RP2));
    *r = fast_two_sum(s.hi, s.lo - k * RP3);
    if (!(fabs(r->hi) >= 0x1p-12)) return false;
    *q = (int)((long long)k & 3);
    return true;
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

/* sin and cos of k/64, k = 0..101 (past pi/2), in double-double (hi
 * correctly rounded, then the rest: 2^-106 relative), printed by
 * scripts/crmath-tables. */
static const dd_t SINCOS_K64[102][2] = {
    {{0, 0}, {0x1.0000000000000p+0, 0}},
    {{0x1.fffaaaaeeeed5p-7, -0x1.2ab639a9f0776p-63}, {0x1.fff000155549fp-1, 0x1.28a28a03a5ef3p-55}},
    {{0x1.ffeaaaeeee86fp-6, -0x1.cd406fb224ae2p-60}, {0x1.ffc00155527d3p-1, -0x1.3b54492d89b5bp-55}},
    {{0x1.7fdc01032fba9p-5, -0x1.599bdf46e997ap-59}, {0x1.ff7006bfdf99fp-1, -0x1.8b3b560648d5fp-56}},
    {{0x1.ffaaaeeed4edbp-5, -0x1.2d16d32684b69p-59}, {0x1.ff0015549f4d3p-1, 0x1.328387b99426fp-55}},
    {{0x1.3facb12d1755bp-4, -0x1.921915299468bp-58}, {0x1.fe7034129ef6fp-1, -0x1.cbf4337c96f97p-57}},
    {{0x1.7f701032550e4p-4, 0x1.afc2d1800501ap-60}, {0x1.fdc06bf7e6b9bp-1, 0x1.31902b535f8dbp-55}},
    {{0x1.bf1b78568391dp-4, 0x1.e91841dea4cc8p-58}, {0x1.fcf0c800e99b1p-1, 0x1.ea3d786d186acp-57}},
    {{0x1.feaaeee86ee36p-4, -0x1.afcb2bcc6f03bp-59}, {0x1.fc015527d5bd3p-1, 0x1.b68f35094efb8p-55}},
    {{0x1.1f0d3d7afceafp-3, -0x1.6ef95099769a5p-57}, {0x1.faf22263c4bd3p-1, -0x1.52ace133a2769p-58}},
    {{0x1.3eb312c5d66cbp-3, 0x1.47d666b66cb91p-57}, {0x1.f9c340a7cc428p-1, 0x1.c5b6b063b7462p-55}},
    {{0x1.5e44fcfa126f3p-3, -0x1.6f443063f89b6p-57}, {0x1.f874c2e1eecf6p-1, -0x1.c6514e1332b16p-55}},
    {{0x1.7dc102fbaf2b5p-3, 0x1.5ab50e23c97c3p-59}, {0x1.f706bdf9ece1cp-1, -0x1.698c80c36dcb4p-55}},
    {{0x1.9d252d0cec312p-3, 0x1.9c43d80b1137dp-58}, {0x1.f57948cff6797p-1, 0x1.e3a0d3e03b1d4p-57}},
    {{0x1.bc6f84edc6199p-3, 0x1.9c1a56a7b0cabp-57}, {0x1.f3cc7c3b3d16ep-1, -0x1.21a3ad28a3494p-57}},
    {{0x1.db9e15fb5a5d0p-3, -0x1.32e20d6cc6fc2p-57}, {0x1.f20073086649fp-1, 0x1.b940416c1984bp-56}},
    {{0x1.faaeed4f31577p-3, -0x1.15d88508e32b8p-57}, {0x1.f01549f7deea1p-1, 0x1.d3c1e99e5cafdp-55}},
    {{0x1.0cd00cef36436p-2, -0x1.9fb0a0c93e2b4p-56}, {0x1.ee0b1fbc0f11cp-1, -0x1.bfd2380bbc3b1p-59}},
    {{0x1.1c37d64c6b876p-2, 0x1.46076fe0dcff4p-56}, {0x1.ebe214f76efa8p-1, -0x1.02f9f12ba543ep-55}},
    {{0x1.2b8ddc43eb49fp-2, 0x1.1553899f2d807p-57}, {0x1.e99a4c3a7cd83p-1, -0x1.2264b1bc53ce8p-55}},
    {{0x1.3ad129769d3d8p-2, 0x1.03d550487839ap-63}, {0x1.e733ea0193d40p-1, -0x1.6428b3546ce13p-55}},
    {{0x1.4a00c9b0f3d20p-2, 0x1.823ba6bb08eadp-56}, {0x1.e4af14b2a449cp-1, -0x1.68ca02e8a6833p-55}},
    {{0x1.591bc9fa2f597p-2, 0x1.7c74bac3fe0cbp-57}, {0x1.e20bf49acd6c1p-1, -0x1.660aec7ef636bp-58}},
    {{0x1.682138a38d7f7p-2, -0x1.d889202444aadp-56}, {0x1.df4ab3ebd875ep-1, -0x1.e2d8a7e6736c4p-55}},
    {{0x1.7710255764214p-2, -0x1.6ead7314bb6cep-57}, {0x1.dc6b7eb995912p-1, 0x1.4b364776dcd35p-58}},
    {{0x1.85e7a12826949p-2, 0x1.8a40e9b5face0p-56}, {0x1.d96e82f71a9dcp-1, 0x1.ff61bd5d2039dp-55}},
    {{0x1.94a6be9f546c5p-2, -0x1.69ce13e683f58p-56}, {0x1.d653f073e4040p-1, -0x1.76236434bec37p-55}},
    {{0x1.a34c91cc50ccap-2, -0x1.a310e3b50cecdp-58}, {0x1.d31bf8d8d7c06p-1, 0x1.e60dd3089cbddp-56}},
    {{0x1.b1d8305321617p-2, -0x1.ae242cb99f519p-56}, {0x1.cfc6cfa52ad9fp-1, 0x1.8b5b5508f2a0dp-55}},
    {{0x1.c048b17b140a3p-2, 0x1.19fe6757e9fa7p-57}, {0x1.cc54aa2b2972ep-1, 0x1.4ee162ba83a98p-57}},
    {{0x1.ce9d2e3d4a51fp-2, -0x1.2fc8a12dae298p-57}, {0x1.c8c5bf8ce1a84p-1, 0x1.ab3d1a1590123p-56}},
    {{0x1.dcd4c15329c9ap-2, 0x1.0d4c6e171fd9ap-56}, {0x1.c51a48b8b175ep-1, -0x1.1bbb43b9aa880p-57}},
    {{0x1.eaee8744b05f0p-2, -0x1.789b43c9b027dp-58}, {0x1.c1528065b7d50p-1, -0x1.892111312e828p-55}},
    {{0x1.f8e99e76abc97p-2, 0x1.9d950af2d00a3p-58}, {0x1.bd6ea310294f5p-1, 0x1.31bbcc88c109dp-56}},
    {{0x1.0362939c69955p-1, -0x1.2d8cd78397b01p-55}, {0x1.b96eeef58840ep-1, 0x1.45a3cc78fade0p-58}},
    {{0x1.0a4021e9e1001p-1, -0x1.6f643a13914f6p-55}, {0x1.b553a410c104ep-1, 0x1.8ff7947027a15p-58}},
    {{0x1.110d0c4b69c3bp-1, 0x1.d918998809981p-55}, {0x1.b11d04162a4c6p-1, 0x1.1dd561efbc0c2p-56}},
    {{0x1.17c8e5f2eedb0p-1, 0x1.35e57102e2488p-57}, {0x1.accb526f69de5p-1, 0x1.8fb6a8dd6b6ccp-55}},
    {{0x1.1e7343236574cp-1, 0x1.22a3fa4f41d5ap-56}, {0x1.a85ed4373e02dp-1, 0x1.9be06385ec792p-57}},
    {{0x1.250bb93788bbbp-1, 0x1.ea3d02457bccep-56}, {0x1.a3d7d0352bdcfp-1, -0x1.68dbaeca19669p-55}},
    {{0x1.2b91dea88421ep-1, -0x1.fa371db216ab0p-55}, {0x1.9f368ed912f85p-1, -0x1.1d200c5791606p-55}},
    {{0x1.32054b148bc4fp-1, 0x1.f6b42095a135bp-55}, {0x1.9a7b5a36a6514p-1, 0x1.722cfcc9fa7a9p-55}},
    {{0x1.386597456282bp-1, -0x1.10fada93b07a8p-56}, {0x1.95a67e00cb1fdp-1, -0x1.0befda21f862dp-55}},
    {{0x1.3eb25d36cd53ap-1, -0x1.be570e1570fc0p-58}, {0x1.90b84784ddaf7p-1, -0x1.0feb10ab93b87p-56}},
    {{0x1.44eb381cf386bp-1, -0x1.3ed6c1e6a5505p-55}, {0x1.8bb105a5dc900p-1, 0x1.863e03e9474c1p-55}},
    {{0x1.4b0fc46aab761p-1, 0x1.0da05738cc59cp-61}, {0x1.869108d77a6c6p-1, 0x1.338ffe2bfe9ddp-56}},
    {{0x1.511f9fd7b351cp-1, -0x1.5c0e861c48831p-55}, {0x1.8158a31916d5dp-1, -0x1.de8b90b8228dep-57}},
    {{0x1.571a6966d59b3p-1, 0x1.c843b4d0fb197p-58}, {0x1.7c0827f09e54fp-1, -0x1.c73d6d72aee68p-57}},
    {{0x1.5cffc16bf8f0dp-1, 0x1.96cb370eb578ap-55}, {0x1.769fec655211fp-1, -0x1.827d5cf8c68c5p-57}},
    {{0x1.62cf49921ac79p-1, -0x1.edd9855b6241ap-55}, {0x1.712046fa77678p-1, 0x1.425b0a5029c81p-55}},
    {{0x1.6888a4e134b2fp-1, -0x1.6b7d37644d5e6p-55}, {0x1.6b898fa9efb5dp-1, 0x1.15ac786ccf4b2p-56}},
    {{0x1.6e2b77c40bde1p-1, -0x1.0e729857fad53p-56}, {0x1.65dc1fdeb8cbap-1, -0x1.97c1b47337c77p-58}},
    {{0x1.73b7680dea578p-1, -0x1.2248306dc12a2p-56}, {0x1.6018526f563dfp-1, 0x1.46ca5e0e432d0p-55}},
    {{0x1.792c1d0041d52p-1, -0x1.abf05eeb354ebp-55}, {0x1.5a3e839824077p-1, 0x1.428aa2759be62p-55}},
    {{0x1.7e893f5037959p-1, 0x1.0eefbaa650c4cp-55}, {0x1.544f10f592ca5p-1, -0x1.e7ae8e6c7a62fp-55}},
    {{0x1.83ce792c1906ep-1, -0x1.f3899682b4a7dp-56}, {0x1.4e4a597e4e10ep-1, 0x1.ccd992849f6c8p-56}},
    {{0x1.88fb7640b8da2p-1, -0x1.49987c11efaa3p-55}, {0x1.4830bd7d4ceb3p-1, 0x1.df77ff20d5448p-55}},
    {{0x1.8e0fe3beb42f8p-1, 0x1.324c55de9ed0bp-55}, {0x1.42029e8bcd474p-1, 0x1.995705e2a2526p-55}},
    {{0x1.930b705f9f85ap-1, -0x1.09ae60f413f40p-61}, {0x1.3bc05f8b3a656p-1, 0x1.dab7124aa8c6dp-55}},
    {{0x1.97edcc6b1b193p-1, 0x1.93523ce2c8213p-55}, {0x1.356a649efec9dp-1, -0x1.500caf33eb802p-60}},
    {{0x1.9cb6a9bbce64bp-1, -0x1.4f3e7a32f8d0cp-56}, {0x1.2f011326420e4p-1, 0x1.8e30efe9e96c2p-56}},
    {{0x1.a165bbc44a6f1p-1, -0x1.25d120e45579ap-55}, {0x1.2884d1b592f81p-1, -0x1.099bbe3a4f76bp-55}},
    {{0x1.a5fab793d29c8p-1, 0x1.7482b1e8e6d85p-55}, {0x1.21f608107e37ap-1, -0x1.0a3f22ad63580p-55}},
    {{0x1.aa7553db0bb41p-1, -0x1.ddb562ca148f2p-56}, {0x1.1b551f2312386p-1, 0x1.a85cdf15867a6p-55}},
    {{0x1.aed548f090ceep-1, 0x1.06374f484e288p-59}, {0x1.14a280fb5068cp-1, -0x1.b71edcc9344bcp-55}},
    {{0x1.b31a50d56de8fp-1, -0x1.4d46c15ba8ea7p-55}, {0x1.0dde98c28c628p-1, -0x1.b0e8e5bebb55bp-55}},
    {{0x1.b74427397fca2p-1, 0x1.da351af253ee4p-55}, {0x1.0709d2b6b95eep-1, -0x1.71cc4ee678c32p-55}},
    {{0x1.bb52897fb9032p-1, 0x1.953ad2e7b7f06p-55}, {0x1.00249c23a6603p-1, -0x1.9b0cfbef87821p-57}},
    {{0x1.bf4536c24bb85p-1, 0x1.97632053703f0p-55}, {0x1.f25ec6b852fc2p-2, 0x1.445cbca9a80a8p-56}},
    {{0x1.c31befd6b7f98p-1, -0x1.767b85f1a5287p-55}, {0x1.e4552f6675828p-2, -0x1.027885c508dc9p-56}},
    {{0x1.c6d67751be646p-1, 0x1.d163b7b4fe389p-56}, {0x1.d62d52e9fdfa9p-2, 0x1.f6eae4ae67d35p-58}},
    {{0x1.ca74918b36d3dp-1, -0x1.01b062b75945ep-55}, {0x1.c7e813bf862f7p-2, 0x1.909f60366377fp-56}},
    {{0x1.cdf604a1cadcep-1, -0x1.6b50757f2fa40p-56}, {0x1.b9865639d0596p-2, -0x1.931bd06786cb9p-56}},
    {{0x1.d15a987e93dfcp-1, 0x1.7d89c8d349c80p-55}, {0x1.ab09007382047p-2, 0x1.14a41d3d11354p-57}},
    {{0x1.d4a216d89c717p-1, 0x1.d4810b29c8736p-55}, {0x1.9c70fa40c279dp-2, -0x1.6346cef9b5fa7p-58}},
    {{0x1.d7cc4b3844e67p-1, 0x1.3f6e971be3f02p-55}, {0x1.8dbf2d20bd903p-2, 0x1.0ce77f57be8cbp-56}},
    {{0x1.dad902fa8ac87p-1, 0x1.ea5e370875907p-58}, {0x1.7ef4842f0bccdp-2, 0x1.83529407722f1p-56}},
    {{0x1.ddc80d5433024p-1, -0x1.5a6ac4bf29104p-55}, {0x1.7011ec1500bd6p-2, 0x1.21c45557ddc22p-56}},
    {{0x1.e0993b54d68f6p-1, -0x1.f26cc0d6a7cecp-58}, {0x1.611852fae0769p-2, -0x1.71272938d7ae8p-57}},
    {{0x1.e34c5fe9d17ebp-1, 0x1.f2ef95683b7d1p-61}, {0x1.5208a878fd239p-2, 0x1.c83eff91c5e12p-58}},
    {{0x1.e5e14fe11418cp-1, 0x1.f26492c1c25a0p-57}, {0x1.42e3dd88bd952p-2, -0x1.353a9f74bf255p-57}},
    {{0x1.e857e1ebd5fd5p-1, -0x1.9d8e945823d2ap-56}, {0x1.33aae4758dbefp-2, -0x1.d058881847909p-57}},
    {{0x1.eaafeea12b0c4p-1, 0x1.d7af5fa4a5c74p-57}, {0x1.245eb0cdba154p-2, -0x1.c4555428fdfb4p-57}},
    {{0x1.ece9508079f14p-1, 0x1.2b2c513ff0cf6p-55}, {0x1.1500375336bc5p-2, 0x1.9a39da062c982p-57}},
    {{0x1.ef03e3f3d42a2p-1, 0x1.0572b0573c404p-59}, {0x1.05906dec537dap-2, 0x1.12c3f77448473p-61}},
    {{0x1.f0ff87522f62cp-1, -0x1.fd676d1225f8cp-55}, {0x1.ec209728baee8p-3, -0x1.c4601d778aa03p-58}},
    {{0x1.f2dc1ae18002ep-1, -0x1.be7521dc7c740p-58}, {0x1.cd0190985ef77p-3, -0x1.11be2ffbeed45p-58}},
    {{0x1.f49980d8b4cc7p-1, -0x1.881ca7411b5f8p-56}, {0x1.adc5ba1564320p-3, -0x1.6c8ed88c3e7a8p-60}},
    {{0x1.f6379d619369dp-1, 0x1.6b296ac1928abp-55}, {0x1.8e6f075a987d6p-3, 0x1.a57e7fd1918d8p-62}},
    {{0x1.f7b6569a75cf8p-1, -0x1.14cbbb7799b36p-56}, {0x1.6eff6dd08af8dp-3, -0x1.1bb80ce3b15c7p-57}},
    {{0x1.f9159497e853fp-1, 0x1.66c77a4219a37p-56}, {0x1.4f78e46e35a46p-3, -0x1.82bbe6c49f2b0p-59}},
    {{0x1.fa55416628652p-1, 0x1.c8aa2f23a4669p-55}, {0x1.2fdd63998e1b6p-3, 0x1.09edc7d2bed7dp-58}},
    {{0x1.fb75490a83c2cp-1, 0x1.d9fbeed39ae46p-55}, {0x1.102ee507ff5f0p-3, -0x1.77ec7eee89a9bp-57}},
    {{0x1.fc7599849827bp-1, 0x1.feee53c5da7cfp-56}, {0x1.e0dec73d9d533p-4, 0x1.698b2d527d376p-59}},
    {{0x1.fd5622cf734eap-1, 0x1.576f5c33de713p-55}, {0x1.a141b6a6da89dp-4, 0x1.dd0de04944ab6p-58}},
    {{0x1.fe16d6e293400p-1, -0x1.53fdcb5496323p-55}, {0x1.618a921772ba3p-4, -0x1.2e89936f086fap-58}},
    {{0x1.feb7a9b2c6d8bp-1, -0x1.0c8f40129a886p-56}, {0x1.21bd54fc5f9a7p-4, 0x1.0fcb936b1ce7ep-58}},
    {{0x1.ff389132ee7c6p-1, 0x1.400f472356ae9p-55}, {0x1.c3bbf8484388ap-5, -0x1.52bb3d8120de5p-59}},
    {{0x1.ff9985549ce69p-1, 0x1.57aa6cfbfc93dp-55}, {0x1.43e10afde8436p-5, -0x1.fc499d21a9320p-60}},
    {{0x1.ffda80089810bp-1, -0x1.e60e93f33d826p-56}, {0x1.87e3bf7bb4f99p-6, 0x1.4aa5c3ca7c944p-61}},
    {{0x1.fffb7d3f3a253p-1, -0x1.2d4934e6c1f3dp-56}, {0x1.0fd9d5c093df5p-7, -0x1.50076d7383a18p-64}},
    {{0x1.fffc7ae8b279cp-1, -0x1.1fa8b32bcbba5p-55}, {-0x1.e049a1f9ed9acp-8, 0x1.3baca337c3df0p-63}}
};

/* sin r and cos r fast (either may be NULL), |r| <= pi/4: r = c + d with c = k/64 the
 * nearest table point, |d| <= 1/128, and sin r = sin c + cos c d + (sin c
 * (cos d - 1) + cos c (sin d - d)), cos r = cos c - sin c d + (cos c (cos d
 * - 1) - sin c (sin d - d)). The bracket is under 2^-14 of the value, so it
 * goes in plain double (its four roundings: 2^-65 of the value), its series to
 * d^9 (the next
 * terms are under 2^-80); the rest in double-double. qrad calls sin and cos
 * for every bounce and dirt ray, where the plain series cost 60% more time
 * and the Taylor kernel 7% of all qrad's time. */
DD_INLINE void table_kernel(dd_t r, dd_t *sinr, dd_t *cosr)
{
    bool neg = r.hi < 0;
    if (neg) r = dd_neg(r);
    /* k rounds r.hi 64 (exact) half up without an addition, which would
     * round 0.5 - 2^-54 up to k = 1 */
    double t = r.hi * 64;
    int k = (int)t;
    if (t - k >= 0.5) k++;
    if (k > 51) k = 51;
    /* r.hi - k/64 is exact (within a factor 2 of r.hi, or k = 0) and a
     * multiple of ulp(r.hi), so it outweighs r.lo unless it is 0: the bits
     * of dd_sub(r, k/64) in a fifth of its operations */
    dd_t d = fast_two_sum(r.hi - k / 64.0, r.lo);
    double z = d.hi * d.hi;
    double sd = d.hi * z * (-1.0 / 6 + z * (1.0 / 120 + z * (-1.0 / 5040 + z * (1.0 / 362880))));
    double cd = z * (-1.0 / 2 + z * (1.0 / 24 + z * (-1.0 / 720 + z * (1.0 / 40320))));
    dd_t sc = SINCOS_K64[k][0], cc = SINCOS_K64[k][1];
    /* The head's product and sum exact (two_prod, two_sum), the small
     * parts summed first in plain double, then the bracket: no
     * double-double product or sum beyond those */
    if (sinr) {
        dd_t p = two_prod(cc.hi, d.hi), h = two_sum(sc.hi, p.hi);
        double lo = ((((sc.lo + cc.hi * d.lo) + cc.lo * d.hi) + p.lo) + h.lo) + (sc.hi * cd + cc.hi * sd);
        dd_t sv = fast_two_sum(h.hi, lo);
        *sinr = neg ? dd_neg(sv) : sv;
    }
    if (cosr) {
        dd_t p = two_prod(sc.hi, d.hi), h = two_sum(cc.hi, -p.hi);
        double lo = ((((cc.lo - sc.hi * d.lo) - sc.lo * d.hi) - p.lo) + h.lo) + (cc.hi * cd - sc.hi * sd);
        *cosr = fast_two_sum(h.hi, lo);
    }
}

/* Ziv's test: the fast value f rounds the same way at both ends of its
 * error bound (rel times the value: each fast path gives its own), so it
 * is the correctly rounded one (into *out); else the slow path decides.
 * Only IEEE operations (rel is a power of 2): the same bits everywhere. */
static bool ziv_round_at(dd_t f, double rel, double *out)
{
    double e = fabs(f.hi) * rel;
    double lo1 = f.hi + (f.lo + e), lo2 = f.hi + (f.lo - e);
    *out = lo1;
    return lo1 == lo2;
}

/* The table kernel's test: 2^-63 relative, three times the analysis above
 * (the bracket's four roundings and its sum with the small parts,
 * 2^-64.7; 2^-65.3 is the largest seen against the series on 6 million
 * draws); about one in 600 goes on to the full series. */
static bool ziv_round(dd_t f, double *out) { return ziv_round_at(f, 0x1p-63, out); }

/* sin (q = 0), cos (1), -sin (2) or -cos (3) of the reduced r, from the
 * fast kernel's pair where it can tell. */
static double round_reduced(double x, int q, dd_t sinr, dd_t cosr)
{
    double v;
    if (ziv_round((q & 1) ? cosr : sinr, &v)) return (q & 2) ? -v : v;
    /* the series from reduce's r (reduce_fast's may be 2^-89 off) */
    dd_t r;
    reduce(x, &r);
    dd_t w = (q & 1) ? cos_kernel(r) : sin_kernel(r);
    /* hi is hi + lo rounded to nearest (fast_two_sum normalised it). */
    return (q & 2) ? -w.hi : w.hi;
}

/* sin (q = 0), cos (1), -sin (2) or -cos (3) of the reduced r. */
static double eval_reduced(double x, dd_t r, int q)
{
    dd_t v = {0, 0};
    if (q & 1)
        table_kernel(r, NULL, &v);
    else
        table_kernel(r, &v, NULL);
    return round_reduced(x, q, v, v);
}

/* shift 0: sin x, 1: cos x. */
static double eval(double x, int shift)
{
    if (!isfinite(x)) return x - x; /* NaN, as libm gives */
    if (fabs(x) > CR_REDUCE_MAX) return shift ? cos(x) : sin(x);
    dd_t r;
    int q;
    if (!reduce_fast(x, &r, &q)) q = reduce(x, &r);
    return eval_reduced(x, r, (q + shift) & 3);
}

double cr_sin(double x) { return x == 0 ? x : eval(x, 0); }
double cr_cos(double x) { return eval(x, 1); }

/* cr_sincos past its fast path: the bits of cr_sin and cr_cos. Out of
 * line, so that the fast path keeps its values in registers. */
#if defined(__GNUC__)
#define CR_NOINLINE __attribute__((noinline))
#else
#define CR_NOINLINE
#endif
static CR_NOINLINE void sincos_slow(double x, double *s, double *c)
{
    if (x == 0 || !isfinite(x) || fabs(x) > CR_REDUCE_MAX) {
        *s = cr_sin(x);
        *c = cr_cos(x);
        return;
    }
    /* one reduction and one table step for both */
    dd_t r, sr, cr;
    int q;
    if (!reduce_fast(x, &r, &q)) q = reduce(x, &r);
    table_kernel(r, &sr, &cr);
    *s = round_reduced(x, q & 3, sr, cr);
    *c = round_reduced(x, (q + 1) & 3, sr, cr);
}

void cr_sincos(double x, double *s, double *c)
{
    dd_t r, sr, cr;
    int q;
    /* reduce_fast takes no 0 (r = 0 fails its test), NaN or infinity */
    if (reduce_fast(x, &r, &q)) {
        table_kernel(r, &sr, &cr);
        /* sin x is sin r, cos r, -sin r, -cos r for q = 0..3, cos x the next */
        double vs, vc;
        if (ziv_round((q & 1) ? cr : sr, &vs) && ziv_round((q & 1) ? sr : cr, &vc)) {
            *s = (q & 2) ? -vs : vs;
            *c = ((q + 1) & 2) ? -vc : vc;
            return;
        }
    }
    sincos_slow(x, s, c);
}

/* --- tan, acos, atan2, hypot, cbrt, pow ------------------------------------ */


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
DD_INLINE dd_t dd_sqrt(dd_t a)
{
    if (a.hi <= 0) return dd_d(0);
    double h = sqrt(a.hi);
    dd_t r = dd_sub(a, two_prod(h, h));
    return fast_two_sum(h, r.hi / (2 * h));
}

DD_INLINE double dd_round(dd_t a) { return a.hi + a.lo; }

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

/* atan(k/64) for k = 0..64 in double-double (hi correctly rounded, then
 * the rest: 2^-106 relative), printed by scripts/crmath-tables. */
static const dd_t ATAN_K64[65] = {
    {0, 0},
    {0x1.fff555bbb729bp-7, -0x1.220c39d4dff50p-61},
    {0x1.ffd55bba97625p-6, -0x1.5ec431444912cp-60},
    {0x1.7fb818430da2ap-5, -0x1.86ef8f794f105p-63},
    {0x1.ff55bb72cfdeap-5, -0x1.c934d86d23f1dp-60},
    {0x1.3f59f0e7c559dp-4, 0x1.ac4ce285df847p-58},
    {0x1.7ee182602f10fp-4, -0x1.cfb654c0c3d98p-58},
    {0x1.be39ebe6f07c3p-4, 0x1.f7b8f29a05987p-58},
    {0x1.fd5ba9aac2f6ep-4, -0x1.cd37686760c17p-59},
    {0x1.1e1fafb043727p-3, -0x1.b485914dacf8cp-59},
    {0x1.3d6eee8c6626cp-3, 0x1.61a3b0ce9281bp-57},
    {0x1.5c9811e3ec26ap-3, -0x1.054ab2c010f3dp-58},
    {0x1.7b97b4bce5b02p-3, 0x1.347b0b4f881cap-58},
    {0x1.9a6a8e96c8626p-3, 0x1.cf601e7b4348ep-59},
    {0x1.b90d7529260a2p-3, 0x1.17b10d2e0e5abp-61},
    {0x1.d77d5df205736p-3, 0x1.c648d1534597ep-57},
    {0x1.f5b75f92c80ddp-3, 0x1.8ab6e3cf7afbdp-57},
    {0x1.09dc597d86362p-2, 0x1.62e47390cb865p-56},
    {0x1.18bf5a30bf178p-2, 0x1.30ca4748b1bf9p-57},
    {0x1.278372057ef46p-2, -0x1.077cdd36dfc81p-56},
    {0x1.362773707ebccp-2, -0x1.963a544b672d8p-57},
    {0x1.44aa436c2af0ap-2, -0x1.5d5e43c55b3bap-56},
    {0x1.530ad9951cd4ap-2, -0x1.2566480884082p-57},
    {0x1.614840309cfe2p-2, -0x1.a725715711f00p-56},
    {0x1.6f61941e4def1p-2, -0x1.c63aae6f6e918p-56},
    {0x1.7d5604b63b3f7p-2, 0x1.69c885c2b249ap-56},
    {0x1.8b24d394a1b25p-2, 0x1.b6d0ba3748fa8p-56},
    {0x1.98cd5454d6b18p-2, 0x1.9e6c988fd0a77p-56},
    {0x1.a64eec3cc23fdp-2, -0x1.24dec1b50b7ffp-56},
    {0x1.b3a911da65c6cp-2, 0x1.ae187b1ca5040p-56},
    {0x1.c0db4c94ec9f0p-2, -0x1.cc1ce70934c34p-56},
    {0x1.cde53432c1351p-2, -0x1.a2cfa4418f1adp-56},
    {0x1.dac670561bb4fp-2, 0x1.a2b7f222f65e2p-56},
    {0x1.e77eb7f175a34p-2, 0x1.0e53dc1bf3435p-56},
    {0x1.f40dd0b541418p-2, -0x1.a3992dc382a23p-57},
    {0x1.0039c73c1a40cp-1, -0x1.b32c949c9d593p-55},
    {0x1.0657e94db30d0p-1, -0x1.d5b495f6349e6p-56},
    {0x1.0c6145b5b43dap-1, 0x1.974fa13b5404fp-58},
    {0x1.1255d9bfbd2a9p-1, -0x1.2bdaee1c0ee35p-58},
    {0x1.1835a88be7c13p-1, 0x1.c621cec00c301p-55},
    {0x1.1e00babdefeb4p-1, -0x1.928df287a668fp-58},
    {0x1.23b71e2cc9e6ap-1, 0x1.c421c9f38224ep-57},
    {0x1.2958e59308e31p-1, -0x1.09e73b0c6c087p-56},
    {0x1.2ee628406cbcap-1, 0x1.c5d5e9ff0cf8dp-55},
    {0x1.345f01cce37bbp-1, 0x1.1021137c71102p-55},
    {0x1.39c391cd4171ap-1, -0x1.2304331d8bf46p-55},
    {0x1.3f13fb89e96f4p-1, 0x1.ecf8b492644f0p-56},
    {0x1.445065b795b56p-1, -0x1.f76d0163f79c8p-56},
    {0x1.4978fa3269ee1p-1, 0x1.2419a87f2a458p-56},
    {0x1.4e8de5bb6ec04p-1, 0x1.4a33dbeb3796cp-55},
    {0x1.538f57b89061fp-1, -0x1.1bb74abda520cp-55},
    {0x1.587d81f732fbbp-1, -0x1.5e5c9d8c5a950p-56},
    {0x1.5d58987169b18p-1, 0x1.0028e4bc5e7cap-57},
    {0x1.6220d115d7b8ep-1, -0x1.2b785350ee8c1p-57},
    {0x1.66d663923e087p-1, -0x1.6ea6febe8bbbap-56},
    {0x1.6b798920b3d99p-1, -0x1.a80386188c50ep-55},
    {0x1.700a7c5784634p-1, -0x1.8c34d25aadef6p-56},
    {0x1.748978fba8e0fp-1, 0x1.7b2a6165884a1p-59},
    {0x1.78f6bbd5d315ep-1, 0x1.406a089803740p-55},
    {0x1.7d528289fa093p-1, 0x1.560821e2f3aa9p-55},
    {0x1.819d0b7158a4dp-1, -0x1.bf76229d3b917p-56},
    {0x1.85d69576cc2c5p-1, 0x1.6b66e7fc8b8c3p-57},
    {0x1.89ff5ff57f1f8p-1, -0x1.55b9a5e177a1bp-55},
    {0x1.8e17aa99cc05ep-1, -0x1.ec182ab042f61p-56},
    {0x1.921fb54442d18p-1, 0x1.1a62633145c07p-55}
};

/* The quadrant's angle of (x, y), 0 <= y <= x, fast: atan(y/x) =
 * atan(c) + atan(u) with c = k/64 the nearest table point and u = (y - c x)
 * / (x + c y), |u| <= 1/128, in double-double; atan(u) - u = u P(u^2) is
 * under 2^-21 of u, so P goes in plain double (2^-66 of u) and the series
 * stops at u^11 (the next term is under 2^-87 of u). The value is within
 * 2^-63 of itself (relative). */
static dd_t atan_quadrant_fast(dd_t y, dd_t x)
{
    int k = (int)(y.hi / x.hi * 64 + 0.5);
    if (k > 64) k = 64;
    double c = k / 64.0;
    dd_t n = dd_sub(y, dd_mul_d(x, c)), d = dd_add(x, dd_mul_d(y, c));
    /* n / d: the quotient's first double and one correction from the
     * remainder, about 2^-100 (dd_div's third step is not needed here). */
    double q1 = n.hi / d.hi;
    dd_t r = dd_sub(n, dd_mul_d(d, q1));
    dd_t u = fast_two_sum(q1, r.hi / d.hi);
    double z = u.hi * u.hi;
    double p = z * (-1.0 / 3 + z * (1.0 / 5 + z * (-1.0 / 7 + z * (1.0 / 9 + z * (-1.0 / 11)))));
    return dd_add(ATAN_K64[k], dd_add(u, dd_d(u.hi * p)));
}

/* C's atan2 on the signs and zeros, the quadrant's angle otherwise. */
static double atan2_dd(dd_t y, dd_t x, bool yneg, bool xneg)
{
    /* Ziv's test as in eval_reduced: 2^-60 of the value is eight times
     * the fast angle's bound (pi/2 - f and pi - f only shrink its relative
     * error: f <= pi/4 there); where it cannot tell (about one in
     * 90), the series below decides. */
    dd_t f = y.hi <= x.hi ? atan_quadrant_fast(y, x) : dd_sub(DD_PIO2, atan_quadrant_fast(x, y));
    if (xneg) f = dd_sub(DD_PI, f);
    double v;
    if (ziv_round_at(f, 0x1p-60, &v)) return yneg ? -v : v;
    dd_t a = atan2_quadrant(y, x);
    if (xneg) a = dd_sub(DD_PI, a);
    v = dd_round(a);
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

/* acos x for 0 <= x <= 1 fast, s = sqrt(1 - x^2) given: with t = j/64
 * the table angle nearest a guess of acos x (a bad guess only fails the
 * check), acos x = t + asin w where w = cos t s - sin t x
 * is the sine of the difference, |w| <= 1/128 (checked: 1/100). asin w - w
 * = w z P(z), z = w^2, is under 2^-14 of w, so it goes in plain double
 * (2^-66.5 of the angle, where |w| <= 0.01 keeps the angle over 0.0056
 * unless the table angle is 0; 2^-67.6 is the largest seen against the
 * series on 3 million draws), its series to z^5 (the next term is under 2^-80 of
 * w); the rest in double-double. One sqrt, no division: this is the angle
 * of every edge of a surface light seen from every luxel. */
static bool acos_fast(double x, dd_t s, dd_t *out)
{
    /* the guess: Hastings' approximation (Abramowitz and Stegun 4.4.45,
     * within 6.7e-5 of acos x on [0, 1]): j is the nearest table angle or
     * the one beside it, well inside the check on w below */
    double g = sqrt(1 - x) * (1.5707288 + x * (-0.2121144 + x * (0.0742610 + x * -0.0187293))) * 64 + 0.5;
    if (!(g >= 0 && g < 102)) return false;
    int j = (int)g;
    dd_t w = dd_sub(dd_mul(s, SINCOS_K64[j][1]), dd_mul_d(SINCOS_K64[j][0], x));
    if (!(fabs(w.hi) <= 0.01)) return false;
    double z = w.hi * w.hi;
    double p = 1.0 / 6 + z * (3.0 / 40 + z * (5.0 / 112 + z * (35.0 / 1152 + z * (63.0 / 2816))));
    *out = dd_add(dd_d(j / 64.0), dd_add(w, dd_d(w.hi * z * p)));
    return true;
}

/* F(y) = acos(1 - y) / sqrt(2 y) around y = j/256, j = 0..128: F's head
 * (26 bits) and the rest, then its Taylor coefficients for e^1 .. e^6,
 * printed by scripts/crmath-tables. */
static const double ACOS_NEAR1[129][8] = {
    {0x1.0000000000000p+0, 0, 0x1.5555555555555p-4, 0x1.3333333333333p-6, 0x1.6db6db6db6db7p-8, 0x1.f1c71c71c71c7p-10, 0x1.6e8ba2e8ba2e9p-11, 0x1.1c4ec4ec4ec4fp-12},
    {0x1.00155a0000000p+0, 0x1.1c82ace9d1af1p-27, 0x1.55ef33a062dd7p-4, 0x1.344637753e920p-6, 0x1.6faa6e1d11a1ap-8, 0x1.f55fa79cade40p-10, 0x1.71e5459c7c61bp-11, 0x1.1f74c529d81e3p-12},
    {0x1.002abe0000000p+0, -0x1.6ac9e6b9f4749p-28, 0x1.56899bcb76965p-4, 0x1.355ab3bf8e653p-6, 0x1.71a19d8b95745p-8, 0x1.f9009eb9ec489p-10, 0x1.75486a092387fp-11, 0x1.22a546db68e29p-12},
    {0x1.00402b8000000p+0, -0x1.3097bfbc8f493p-27, 0x1.57248e93428d4p-4, 0x1.3670aacadd818p-6, 0x1.739c723124009p-8, 0x1.fcaa19b568384p-10, 0x1.78b52fef6c9a4p-11, 0x1.25e0725e97849p-12},
    {0x1.0055a28000000p+0, -0x1.f2fcd766e8412p-32, 0x1.57c00cb5d6c4dp-4, 0x1.37881f5649a74p-6, 0x1.759af49db2bd0p-8, 0x1.002e186580d98p-9, 0x1.7c2bb78a33f30p-11, 0x1.292670c09b386p-12},
    {0x1.006b238000000p+0, -0x1.0c8836b5891a0p-27, 0x1.585c16f2a46afp-4, 0x1.38a1142765af6p-6, 0x1.779d2d799b7d6p-8, 0x1.020b7e43e3580p-9, 0x1.7fac2190892c7p-11, 0x1.2c776bc1a1f18p-12},
    {0x1.0080ae0000000p+0, 0x1.ed49386af7de9p-31, 0x1.58f8ae0a81183p-4, 0x1.39bb8c0a4bf59p-6, 0x1.79a32585ee3cbp-8, 0x1.03ed4ae596207p-9, 0x1.83368f37cd1c8p-11, 0x1.2fd38dd838507p-12},
    {0x1.0096428000000p+0, -0x1.1b8e00fa4e1afp-29, 0x1.5995d2bfaa17ep-4, 0x1.3ad789d1b0ff7p-6, 0x1.7bace59cc422dp-8, 0x1.05d38ae42686ap-9, 0x1.86cb2235da237p-11, 0x1.333b0234c3e9cp-12},
    {0x1.00abe10000000p+0, -0x1.f6b0f0fa0c53cp-27, 0x1.5a3385d5c7ba5p-4, 0x1.3bf51056f6636p-6, 0x1.7dba76b193cc1p-8, 0x1.07be4b03969fdp-9, 0x1.8a69fcc33705cp-11, 0x1.36adf4c51052cp-12},
    {0x1.00c1890000000p+0, -0x1.52641c08bafccp-28, 0x1.5ad1c811f0af9p-4, 0x1.3d14227a3dee7p-6, 0x1.7fcbe1d186d69p-8, 0x1.09ad983301ffcp-9, 0x1.8e13419d54896p-11, 0x1.3a2c9237ef637p-12},
    {0x1.00d73b0000000p+0, -0x1.6a23f1137496bp-31, 0x1.5b709a3aad6d0p-4, 0x1.3e34c3227d0b1p-6, 0x1.81e13023d0bcap-8, 0x1.0ba17f8d45494p-9, 0x1.91c71408d611dp-11, 0x1.3db70800ed1edp-12},
    {0x1.00ecf70000000p+0, 0x1.24d6b1cd7a144p-32, 0x1.5c0ffd17fb9b7p-4, 0x1.3f56f53d90699p-6, 0x1.83fa6aea07009p-8, 0x1.0d9a0e59a8a0ap-9, 0x1.958597d3e5752p-11, 0x1.414d845c17b6ep-12},
    {0x1.0102bd0000000p+0, -0x1.4a999c2294c66p-35, 0x1.5caff17351901p-4, 0x1.407abbc04feb2p-6, 0x1.86179b807ab0cp-8, 0x1.0f97520c8d0e8p-9, 0x1.994ef15892486p-11, 0x1.44f03651dc23ap-12},
    {0x1.01188d0000000p+0, 0x1.2fb84091f2306p-31, 0x1.5d507817a1cf1p-4, 0x1.41a019a6a2d05p-6, 0x1.8838cb5e93494p-8, 0x1.119958481ce00p-9, 0x1.9d23457f3ce14p-11, 0x1.489f4dbaf7c85p-12},
    {0x1.012e670000000p+0, 0x1.1ea130463f9c3p-28, 0x1.5df191d15e985p-4, 0x1.42c711f3942c8p-6, 0x1.8a5e04172af95p-8, 0x1.13a02edcff157p-9, 0x1.a102b9c10d4c5p-11, 0x1.4c5afb447fa3ep-12},
    {0x1.01444b0000000p+0, 0x1.bd72c624eedc4p-27, 0x1.5e933f6e7d7e9p-4, 0x1.43efa7b1679f1p-6, 0x1.8c874f58ec52bp-8, 0x1.15abe3cb0dec2p-9, 0x1.a4ed742a767a5p-11, 0x1.50237073fd8edp-12},
    {0x1.015a398000000p+0, -0x1.878721eebd6cdp-31, 0x1.5f3581be7b08bp-4, 0x1.4519ddf1ae530p-6, 0x1.8eb4b6eeb1696p-8, 0x1.17bc85421094dp-9, 0x1.a8e39b5dc5e6bp-11, 0x1.53f8dfaba4095p-12},
    {0x1.0170320000000p+0, -0x1.4fc6e02367826p-28, 0x1.5fd859925e5e2p-4, 0x1.4645b7cd5c46ep-6, 0x1.90e644bfe469ep-8, 0x1.19d221a278252p-9, 0x1.ace55695bffc3p-11, 0x1.57db7c2e9922ep-12},
    {0x1.0186348000000p+0, 0x1.68a14f93ebf32p-29, 0x1.607bc7bcbcfd8p-4, 0x1.47733864dddd9p-6, 0x1.931c02d0e1ac9p-8, 0x1.1becc77e1fd4bp-9, 0x1.b0f2cda8497d3p-11, 0x1.5bcb7a2559056p-12},
    {0x1.019c418000000p+0, -0x1.8de9df0a8e459p-28, 0x1.611fcd11be7e2p-4, 0x1.48a262e02db91p-6, 0x1.9555fb435b4d6p-8, 0x1.1e0c859910968p-9, 0x1.b50c29091e37fp-11, 0x1.5fc90ea230b2fp-12},
    {0x1.01b2588000000p+0, 0x1.023dd605c64f9p-29, 0x1.61c46a67205d1p-4, 0x1.49d33a6eeae0ap-6, 0x1.97943856be4d1p-8, 0x1.20316aea481edp-9, 0x1.b93191cc95507p-11, 0x1.63d46fa5d1888p-12},
    {0x1.01c87a0000000p+0, -0x1.0c5220c1899e7p-29, 0x1.6269a09439d47p-4, 0x1.4b05c2486f336p-6, 0x1.99d6c46899456p-8, 0x1.225b869c83676p-9, 0x1.bd6331aa736a1p-11, 0x1.67edd423fe1c4p-12},
    {0x1.01dea58000000p+0, 0x1.fac11f1733468p-27, 0x1.630f7071ffbedp-4, 0x1.4c39fdabe628ap-6, 0x1.9c1da9f504b48p-8, 0x1.248ae80f0cc2fp-9, 0x1.c1a13300caff0p-11, 0x1.6c15740851102p-12},
    {0x1.01f4dc0000000p+0, -0x1.71c1549e00adcp-28, 0x1.63b5dadb0885bp-4, 0x1.4d6fefe063debp-6, 0x1.9e68f3970ce91p-8, 0x1.26bf9ed68d922p-9, 0x1.c5ebc0d6eb33ep-11, 0x1.704b883b1e787p-12},
    {0x1.020b1c8000000p+0, -0x1.07d459dd547e3p-31, 0x1.645ce0ab901bap-4, 0x1.4ea79c34fc7a4p-6, 0x1.a0b8ac091d952p-8, 0x1.28f9babde3acap-9, 0x1.ca4306e05d77fp-11, 0x1.74904aa670772p-12},
    {0x1.0221678000000p+0, 0x1.0759d086fb59cp-29, 0x1.650482c17c025p-4, 0x1.4fe10600dbd68p-6, 0x1.a30cde256f0f8p-8, 0x1.2b394bc6fa8ffp-9, 0x1.cea7317ff2450p-11, 0x1.78e3f63b1fb2dp-12},
    {0x1.0237bd0000000p+0, 0x1.18ea0fc83f622p-28, 0x1.65acc1fc5f5c2p-4, 0x1.511c30a35d885p-6, 0x1.a56594e6754b9p-8, 0x1.2d7e622ba868bp-9, 0x1.d3186dcadd533p-11, 0x1.7d46c6f608538p-12},
    {0x1.024e1d0000000p+0, 0x1.1e2930727144bp-27, 0x1.66559f3d7f0a4p-4, 0x1.52591f8425351p-6, 0x1.a7c2db67508edp-8, 0x1.2fc90e5e8f081p-9, 0x1.d796e98be1977p-11, 0x1.81b8f9e55c352p-12},
    {0x1.0264880000000p+0, -0x1.b9d147abfb36dp-27, 0x1.66ff1b67d5d70p-4, 0x1.5397d613373e9p-6, 0x1.aa24bce43fec7p-8, 0x1.3219610c00db1p-9, 0x1.dc22d3468d653p-11, 0x1.863acd2e13020p-12},
    {0x1.027afd0000000p+0, 0x1.50cd573fda331p-29, 0x1.67a9376018ac1p-4, 0x1.54d857c911c5ep-6, 0x1.ac8b44bb158f2p-8, 0x1.346f6b1ae9f6ap-9, 0x1.e0bc5a3a870e0p-11, 0x1.8acc801178eeep-12},
    {0x1.02917d0000000p+0, -0x1.9ea1dbcb0a49ap-29, 0x1.6853f40cbad61p-4, 0x1.561aa826c605bp-6, 0x1.aef67e6bacd88p-8, 0x1.36cb3dadbd4e8p-9, 0x1.e563ae66ea5c9p-11, 0x1.8f6e52f2dcd4ep-12},
    {0x1.02a8078000000p+0, 0x1.8cbdf15e0a607p-29, 0x1.68ff5255f2544p-4, 0x1.575ecab612062p-6, 0x1.b1667598625fep-8, 0x1.392cea23662b3p-9, 0x1.ea19008db749ep-11, 0x1.9420875d5e6bfp-12},
    {0x1.02be9d0000000p+0, -0x1.f47832e1a2f62p-28, 0x1.69ab5325bc359p-4, 0x1.58a4c3097aab2p-6, 0x1.b3db36068dd81p-8, 0x1.3b9482183df5dp-9, 0x1.eedc8237524e0p-11, 0x1.98e36009dd6c2p-12},
    {0x1.02d53d0000000p+0, -0x1.736881a689139p-30, 0x1.6a57f767e1029p-4, 0x1.59ec94bc661f5p-6, 0x1.b654cb9efde4ep-8, 0x1.3e021767066f3p-9, 0x1.f3ae65b616b0fp-11, 0x1.9db720e50a638p-12},
    {0x1.02ebe80000000p+0, -0x1.ceddcf99e00d5p-28, 0x1.6b054009f934ep-4, 0x1.5b364373369c3p-6, 0x1.b8d3426e75e9cp-8, 0x1.4075bc29e8691p-9, 0x1.f88ede29fb417p-11, 0x1.a29c0f159a116p-12},
    {0x1.03029d8000000p+0, 0x1.2d2a21181c0b1p-27, 0x1.6bb32dfb71bbep-4, 0x1.5c81d2db65915p-6, 0x1.bb56a6a62ddabp-8, 0x1.42ef82bb7719cp-9, 0x1.fd7e1f8449dadp-11, 0x1.a79271029c1e9p-12},
    {0x1.03195e8000000p+0, -0x1.9dbe07abb6216p-27, 0x1.6c61c22d908f0p-4, 0x1.5dcf46ab9f2c9p-6, 0x1.bddf049c54181p-8, 0x1.456f7db7b8204p-9, 0x1.013e2f45b5126p-10, 0x1.ac9a8e59f6103p-12},
    {0x1.03302a0000000p+0, -0x1.e994b41445a1dp-28, 0x1.6d10fd93794e9p-4, 0x1.5f1ea2a3de442p-6, 0x1.c06c68cc915f9p-8, 0x1.47f5bffd3052ap-9, 0x1.03c4e86f5ffdbp-10, 0x1.b1b4b01703577p-12},
    {0x1.0347008000000p+0, -0x1.0847878299b27p-28, 0x1.6dc0e12231f1ap-4, 0x1.606fea8d88a48p-6, 0x1.c2fedfd88edb7p-8, 0x1.4a825cadf56e7p-9, 0x1.0653567d4ef8ap-10, 0x1.b6e120895b680p-12},
    {0x1.035de20000000p+0, 0x1.10f93fc9d1bddp-32, 0x1.6e716dd0a782fp-4, 0x1.61c3223b8bc39p-6, 0x1.c59676887e59fp-8, 0x1.4d156730c4c5ep-9, 0x1.08e9951e262e3p-10, 0x1.bc202b5bbec35p-12},
    {0x1.0374ce8000000p+0, 0x1.06064f4dd0801p-27, 0x1.6f22a497b2ec0p-4, 0x1.63184d8a79db3p-6, 0x1.c83339cba4b7dp-8, 0x1.4faef3321f01cp-9, 0x1.0b87c07312b39p-10, 0x1.c1721d9b2befdp-12},
    {0x1.038bc68000000p+0, -0x1.365d4b4adbbe3p-27, 0x1.6fd486721dceap-4, 0x1.646f7060a76bdp-6, 0x1.cad536b8e686bp-8, 0x1.524f14a56914ep-9, 0x1.0e2df511e34e4p-10, 0x1.c6d745be1d570p-12},
    {0x1.03a2c90000000p+0, 0x1.a925c4c0bef8dp-27, 0x1.7087145ca76dep-4, 0x1.65c88eae4929bp-6, 0x1.cd7c7a8f56fb3p-8, 0x1.54f5dfc6127a8p-9, 0x1.10dc50072c36ap-10, 0x1.cc4ff3abf10e4p-12},
    {0x1.03b9d70000000p+0, 0x1.fad7280f6e9e2p-27, 0x1.713a4f5609a55p-4, 0x1.6723ac6d92569p-6, 0x1.d02912b6c92cbp-8, 0x1.57a36918c0dc3p-9, 0x1.1392eed87615ap-10, 0x1.d1dc78c47b942p-12},
    {0x1.03d0f08000000p+0, 0x1.57e63dfce8864p-31, 0x1.71ee385efdf05p-4, 0x1.6880cda2d3882p-6, 0x1.d2db0cc063b1dp-8, 0x1.5a57c56c813bfp-9, 0x1.1651ef8678809p-10, 0x1.d77d27e7c692fp-12},
    {0x1.03e8150000000p+0, 0x1.418f6c944d75ep-29, 0x1.72a2d07a42805p-4, 0x1.69dff65c99df8p-6, 0x1.d592766736a53p-8, 0x1.5d1309dbfebe8p-9, 0x1.1919708f60337p-10, 0x1.dd32557dfcc1ep-12},
    {0x1.03ff450000000p+0, -0x1.f95c5baa07b57p-28, 0x1.735818ac9f631p-4, 0x1.6b412ab3ceb0cp-6, 0x1.d84f5d90d41d1p-8, 0x1.5fd54bcebf34ap-9, 0x1.1be990f121508p-10, 0x1.e2fc577f84043p-12},
    {0x1.0416800000000p+0, 0x1.0d2ae9a1a5221p-28, 0x1.740e11fcebb8ap-4, 0x1.6ca46ecbd79ecp-6, 0x1.db11d04deb224p-8, 0x1.629ea0fa65815p-9, 0x1.1ec2702bd5ea3p-10, 0x1.e8db857d46eebp-12},
    {0x1.042dc68000000p+0, 0x1.32ffdf63815d7p-27, 0x1.74c4bd7412f9dp-4, 0x1.6e09c6d2b72bap-6, 0x1.ddd9dcdae5317p-8, 0x1.656f1f63f9fb8p-9, 0x1.21a42e44291fbp-10, 0x1.eed038a92ee3dp-12},
    {0x1.0445188000000p+0, 0x1.61e72a1ee5017p-27, 0x1.757c1c1d1a4edp-4, 0x1.6f7137012dc06p-6, 0x1.e0a791a08653dp-8, 0x1.6846dd6138ec7p-9, 0x1.248eebc5cf158p-10, 0x1.f4dacbdecffe3p-12},
    {0x1.045c760000000p+0, 0x1.6d27775e98a15p-27, 0x1.76342f0525f66p-4, 0x1.70dac39adb2dep-6, 0x1.e37afd348fda6p-8, 0x1.6b25f199e7496p-9, 0x1.2782c9c60a168p-10, 0x1.fafb9bac480a4p-12},
    {0x1.0473df0000000p+0, 0x1.af2404869f82bp-27, 0x1.76ecf73b7ebe3p-4, 0x1.724670ee60a88p-6, 0x1.e6542e5a65c98p-8, 0x1.6e0c73092dcbdp-9, 0x1.2a7fe9e63d2a4p-10, 0x1.0099832da8ed1p-11},
    {0x1.048b540000000p+0, -0x1.7d37c25396000p-27, 0x1.77a675d1978bep-4, 0x1.73b4435583413p-6, 0x1.e9333403b700dp-8, 0x1.70fa78fefa889p-9, 0x1.2d866e568c709p-10, 0x1.03c0b5fd47221p-11},
    {0x1.04a2d40000000p+0, 0x1.0e23502351074p-29, 0x1.7860abdb12f80p-4, 0x1.75243f354edd6p-6, 0x1.ec181d51282d2p-8, 0x1.73f01b216929ap-9, 0x1.309679d88b939p-10, 0x1.06f3973382151p-11},
    {0x1.04ba600000000p+0, -0x1.653651884665cp-28, 0x1.791b9a6dc8fa3p-4, 0x1.769668fe39b06p-6, 0x1.ef02f99301918p-8, 0x1.76ed716e31ee3p-9, 0x1.33b02fc1faa3dp-10, 0x1.0a3258aaec76bp-11},
    {0x1.04d1f78000000p+0, -0x1.8c974a875bfe2p-34, 0x1.79d742a1cca70p-4, 0x1.780ac52c48385p-6, 0x1.f1f3d849dfb4fp-8, 0x1.79f2943c1f950p-9, 0x1.36d3b3ff91b4cp-10, 0x1.0d7d2d2f21605p-11},
    {0x1.04e99b0000000p+0, -0x1.50da19bd2f4e6p-27, 0x1.7a93a5917200bp-4, 0x1.7981584731c02p-6, 0x1.f4eac92767037p-8, 0x1.7cff9c3c8c568p-9, 0x1.3a012b17db906p-10, 0x1.10d44881db27bp-11},
    {0x1.05014a0000000p+0, -0x1.f1c858cee27b9p-30, 0x1.7b50c45953d97p-4, 0x1.7afa26e2856a3p-6, 0x1.f7e7dc0efa6fbp-8, 0x1.8014a27ce6153p-9, 0x1.3d38ba2e1fdd5p-10, 0x1.1437df6028a0ap-11},
    {0x1.0519050000000p+0, -0x1.b4090cb7c9b68p-29, 0x1.7c0ea01859c8ap-4, 0x1.7c75359dcfc46p-6, 0x1.faeb21167524fp-8, 0x1.8331c06839eaap-9, 0x1.407a87055d131p-10, 0x1.17a82787c192fp-11},
    {0x1.0530cc0000000p+0, -0x1.7e71fa3de4e22p-27, 0x1.7ccd39efbe338p-4, 0x1.7df28924c0e8fp-6, 0x1.fdf4a886e7571p-8, 0x1.86570fc8c73a2p-9, 0x1.43c6b803529b4p-10, 0x1.1b2557bc7b32cp-11},
    {0x1.05489e8000000p+0, 0x1.d999953a2eec7p-28, 0x1.7d8c930314681p-4, 0x1.7f72262f532e1p-6, 0x1.0082416eab204p-7, 0x1.8984aac99a709p-9, 0x1.471d74339b81dp-10, 0x1.1eafa7cddd6cfp-11},
    {0x1.05607d8000000p+0, -0x1.96bd311719fedp-28, 0x1.7e4cac784ecc4p-4, 0x1.80f41181f266cp-6, 0x1.020d6065bfaf0p-7, 0x1.8cbaabf82f9ccp-9, 0x1.4a7ee34ada172p-10, 0x1.2247509cd9e16p-11},
    {0x1.0578680000000p+0, 0x1.b986caa00c8adp-27, 0x1.7f0d8777c520ap-4, 0x1.82784feda3b6fp-6, 0x1.039bb99c4f7b5p-7, 0x1.8ff92e461d0a1p-9, 0x1.4deb2da9f4ea3p-10, 0x1.25ec8c21a5690p-11},
    {0x1.05905f0000000p+0, 0x1.b9195200a3b90p-28, 0x1.7fcf252c3ad71p-4, 0x1.83fee6502dfe9p-6, 0x1.052d55a11d012p-7, 0x1.93404d0ac609bp-9, 0x1.51627c6165856p-10, 0x1.299f9571b50c8p-11},
    {0x1.05a8620000000p+0, 0x1.feb16ae1a4cc5p-28, 0x1.809186c2e57ddp-4, 0x1.8587d99442dc5p-6, 0x1.06c23d1e75be4p-7, 0x1.9690240516175p-9, 0x1.54e4f93499575p-10, 0x1.2d60a8c5df582p-11},
    {0x1.05c0718000000p+0, -0x1.7bd8248a7b113p-27, 0x1.8154ad6b733f3p-4, 0x1.87132eb1a84cdp-6, 0x1.085a78da9a9c2p-7, 0x1.99e8cf5d4487ap-9, 0x1.5872ce9d65382p-10, 0x1.31300380a2fdap-11},
    {0x1.05d88c8000000p+0, 0x1.cdcf7d2d27f5ap-27, 0x1.82189a5811769p-4, 0x1.88a0eaad62e6ap-6, 0x1.09f611b82a20dp-7, 0x1.9d4a6ba6a0eecp-9, 0x1.5c0c27cf8bfb9p-10, 0x1.350de43493bdbp-11},
    {0x1.05f0b48000000p+0, -0x1.808296d968110p-28, 0x1.82dd4ebd735a0p-4, 0x1.8a311299e0b7fp-6, 0x1.0b9510b68c714p-7, 0x1.a0b515e1686fdp-9, 0x1.5fb130bc58846p-10, 0x1.38fa8aaaee997p-11},
    {0x1.0608e88000000p+0, -0x1.8400cfc682145p-28, 0x1.83a2cbd2d8ba1p-4, 0x1.8bc3ab9724c6bp-6, 0x1.0d377ef2612d3p-7, 0x1.a428eb7ca4266p-9, 0x1.636216164bd0dp-10, 0x1.3cf637ea56520p-11},
    {0x1.0621290000000p+0, -0x1.d2c77d46c68e9p-27, 0x1.846912d214d76p-4, 0x1.8d58bad2f337bp-6, 0x1.0edd65a5ef2e7p-7, 0x1.a7a60a5810dcap-9, 0x1.671f0554df7a2p-10, 0x1.41012e3db9465p-11},
    {0x1.0639758000000p+0, 0x1.cab57d155a712p-29, 0x1.853024f7954e0p-4, 0x1.8ef04588fe1e6p-6, 0x1.1086ce2996342p-7, 0x1.ab2c90c61041ap-9, 0x1.6ae82cb85d24ep-10, 0x1.451bb13b61c4ep-11},
    {0x1.0651cf0000000p+0, -0x1.8bbf0887f4379p-27, 0x1.85f8038269182p-4, 0x1.908a510312f8ap-6, 0x1.1233c1f442844p-7, 0x1.aebc9d8da3d52p-9, 0x1.6ebdbb4dcb640p-10, 0x1.494605cc31f05p-11},
    {0x1.066a348000000p+0, 0x1.30ec8cadfc2efp-28, 0x1.86c0afb447a74p-4, 0x1.9226e29948d98p-6, 0x1.13e44a9be28d4p-7, 0x1.b2564fec71bedp-9, 0x1.729fe0f2f091ap-10, 0x1.4d8072330c5d1p-11},
    {0x1.0682a70000000p+0, -0x1.731c63857da84p-28, 0x1.878a2ad198144p-4, 0x1.93c5ffb22f45fp-6, 0x1.159871d5de912p-7, 0x1.b5f9c798d3c8bp-9, 0x1.768ece5a6c269p-10, 0x1.51cb3e146a985p-11},
    {0x1.069b260000000p+0, -0x1.1a050d7fc9e43p-27, 0x1.8854762178681p-4, 0x1.9567adc2fdc6cp-6, 0x1.1750417792651p-7, 0x1.b9a724c3f0b55p-9, 0x1.7a8ab50fe71bep-10, 0x1.5626b27e22cf0p-11},
    {0x1.06b3b18000000p+0, -0x1.04155a0c86c23p-30, 0x1.891f92edc4fb5p-4, 0x1.970bf24fc4323p-6, 0x1.190bc376c94f3p-7, 0x1.bd5e881be02cep-9, 0x1.7e93c77c5be55p-10, 0x1.5a9319ef5dd69p-11},
    {0x1.06cc4a0000000p+0, -0x1.63f5ca1b55395p-27, 0x1.89eb82831feecp-4, 0x1.98b2d2eb9bb1fp-6, 0x1.1acb01ea3c0e2p-7, 0x1.c12012cdd97bcp-9, 0x1.82aa38ea7698bp-10, 0x1.5f10c060bee1cp-11},
    {0x1.06e4ef0000000p+0, -0x1.ea98942b62338p-29, 0x1.8ab84630f8bcap-4, 0x1.9a5c5538d886bp-6, 0x1.1c8e070a1114ap-7, 0x1.c4ebe6886d608p-9, 0x1.86ce3d8b0dd7ap-10, 0x1.639ff34cbe34bp-11},
    {0x1.06fda10000000p+0, -0x1.f46614c47d5dcp-28, 0x1.8b85df4993e24p-4, 0x1.9c087ee93c8eap-6, 0x1.1e54dd305f049p-7, 0x1.c8c2257dcb27ep-9, 0x1.8b000a79b5188p-10, 0x1.684101b83836dp-11},
    {0x1.07165f8000000p+0, 0x1.886e10a97b48ap-27, 0x1.8c544f2212a45p-4, 0x1.9db755be2a90cp-6, 0x1.201f8ed9b174cp-7, 0x1.cca2f2661156cp-9, 0x1.8f3fd5c168ec4p-10, 0x1.6cf43c3b324a0p-11},
    {0x1.072f2b8000000p+0, -0x1.0e19ff4b72ec1p-28, 0x1.8d2397127aebap-4, 0x1.9f68df88da518p-6, 0x1.21ee26a5900d9p-7, 0x1.d08e7081aa23cp-9, 0x1.938dd66155e57p-10, 0x1.71b9f509d6d95p-11},
    {0x1.0748040000000p+0, 0x1.43be56b80daedp-27, 0x1.8df3b875bf3d7p-4, 0x1.a11d222a8d73bp-6, 0x1.23c0af570807ep-7, 0x1.d484c39bb4044p-9, 0x1.97ea4451bac84p-10, 0x1.76927ffdaa1d8p-11},
    {0x1.0760ea0000000p+0, -0x1.543e483b88766p-28, 0x1.8ec4b4a9c6cd2p-4, 0x1.a2d42394c5296p-6, 0x1.259733d5381a8p-7, 0x1.d886100c7691fp-9, 0x1.9c555888e6af9p-10, 0x1.7b7e329ef91e3p-11},
    {0x1.0779dd0000000p+0, -0x1.e2e4f58ed46a8p-27, 0x1.8f968d0f75aa3p-4, 0x1.a48de9c978b8bp-6, 0x1.2771bf2bdee36p-7, 0x1.dc927abbe40ecp-9, 0x1.a0cf4d0053d89p-10, 0x1.807d642e8485fp-11},
    {0x1.0792dd0000000p+0, -0x1.f821700adf91fp-27, 0x1.9069430ab5089p-4, 0x1.a64a7adb4cd80p-6, 0x1.29505c8bebd81p-7, 0x1.e0aa292427d0ep-9, 0x1.a5585cb9dfca4p-10, 0x1.85906daf68e6ep-11},
    {0x1.07abea0000000p+0, -0x1.eac0b97d81d51p-29, 0x1.913cd8027ba5dp-4, 0x1.a809dcedcbe5ap-6, 0x1.2b33174c12cb9p-7, 0x1.e4cd415441e08p-9, 0x1.a9f0c3c521949p-10, 0x1.8ab7a9f1461e3p-11},
    {0x1.07c5048000000p+0, -0x1.f57115a78fc01p-28, 0x1.92114d60d649dp-4, 0x1.a9cc16359efe6p-6, 0x1.2d19fae962169p-7, 0x1.e8fbe9f2b0135p-9, 0x1.ae98bf44dee5ep-10, 0x1.8ff3759aa78dep-11},
    {0x1.07de2c0000000p+0, 0x1.f0a7dc03ff972p-28, 0x1.92e6a492f064dp-4, 0x1.ab912cf8c7f82p-6, 0x1.2f051307db6f7p-7, 0x1.ed364a4024f46p-9, 0x1.b3508d74a0bd4p-10, 0x1.95442f33aef43p-11},
    {0x1.07f7610000000p+0, 0x1.cfbb0ebf4208dp-27, 0x1.93bcdf091cca5p-4, 0x1.ad59278edc42ap-6, 0x1.30f46b730f805p-7, 0x1.f17c8a1a4cc81p-9, 0x1.b8186dae6882cp-10, 0x1.9aaa373103b30p-11},
    {0x1.0810a38000000p+0, 0x1.fd7b9f1b1b16cp-27, 0x1.9493fe36de8a1p-4, 0x1.af240c6140b4ep-6, 0x1.32e8101ebc492p-7, 0x1.f5ced1fea0fdbp-9, 0x1.bcf0a07086572p-10, 0x1.a025efff086a2p-11},
    {0x1.0829f38000000p+0, 0x1.f44ef640f19e5p-27, 0x1.956c0392f1e69p-4, 0x1.b0f1e1eb66495p-6, 0x1.34e00d276e5cep-7, 0x1.fa2d4b0d4a63cp-9, 0x1.c1d9676391702p-10, 0x1.a5b7be0d58d31p-11},
    {0x1.0843518000000p+0, -0x1.d855665201abfp-27, 0x1.9644f097556abp-4, 0x1.b2c2aebb07ceap-6, 0x1.36dc6ed325087p-7, 0x1.fe981f0c12747p-9, 0x1.c6d30560835cdp-10, 0x1.ab6007da91de5p-11},
    {0x1.085cbc8000000p+0, -0x1.e87c3ebd64584p-28, 0x1.971ec6c1531e3p-4, 0x1.b49679706890dp-6, 0x1.38dd4191f9720p-7, 0x1.0187bc34b2094p-8, 0x1.cbddbe76f7150p-10, 0x1.b11f3600661f8p-11},
    {0x1.0876350000000p+0, 0x1.15879c2de7124p-27, 0x1.97f9879189d9fp-4, 0x1.b66d48be93ff1p-6, 0x1.3ae291fec8c18p-7, 0x1.03c9c11fae090p-8, 0x1.d0f9d7f38cb9fp-10, 0x1.b6f5b34000a72p-11},
    {0x1.088fbb8000000p+0, 0x1.755f87fdfff8ap-28, 0x1.98d5348bf6bbep-4, 0x1.b847236b9e537p-6, 0x1.3cec6cdfe161cp-7, 0x1.0612342b74f48p-8, 0x1.d627986672f92p-10, 0x1.bce3ec8eb877ep-11},
    {0x1.08a9500000000p+0, -0x1.8e4ed82195bcbp-27, 0x1.99b1cf37febc1p-4, 0x1.ba241050e640ap-6, 0x1.3efadf27b36a1p-7, 0x1.08612b958073cp-8, 0x1.db6747aa17044p-10, 0x1.c2ea512316d6ap-11},
    {0x1.08c2f20000000p+0, -0x1.4e38d9f25c1f5p-27, 0x1.9a8f592078624p-4, 0x1.bc04165b57aacp-6, 0x1.410df5f58441fp-7, 0x1.0ab6bdf5ed2c8p-8, 0x1.e0b92ee9fc1bcp-10, 0x1.c909528232c72p-11},
    {0x1.08dca18000000p+0, 0x1.f2f3668239a1bp-27, 0x1.9b6dd3d3b59d9p-4, 0x1.bde73c8baf703p-6, 0x1.4325be96258f2p-7, 0x1.0d13024124799p-8, 0x1.e61d98a9bbae7p-10, 0x1.cf41648d6416bp-11},
    {0x1.08f65f8000000p+0, 0x1.5bff362cdc0b8p-28, 0x1.9c4d40e38dbe3p-4, 0x1.bfcd89f6c0473p-6, 0x1.45424684af802p-7, 0x1.0f760fc98efc7p-8, 0x1.eb94d0cc2f188p-10, 0x1.d592fd90506b5p-11},
    {0x1.09102b8000000p+0, -0x1.4701768148170p-28, 0x1.9d2da1e56791cp-4, 0x1.c1b705c5b8b57p-6, 0x1.47639b6b3e84fp-7, 0x1.11dffe41503d1p-8, 0x1.f11f249ac4142p-10, 0x1.dbfe964f54dfcp-11},
    {0x1.092a058000000p+0, -0x1.872e8225ecae4p-27, 0x1.9e0ef87243a2bp-4, 0x1.c3a3b7366a272p-6, 0x1.4989cb23b4883p-7, 0x1.1450e5bc0b8f6p-8, 0x1.f6bce2ccfcf4ep-10, 0x1.e284aa164ec93p-11},
    {0x1.0943ed8000000p+0, -0x1.81dd365e8abdfp-27, 0x1.9ef14626c69c0p-4, 0x1.c593a59b912a3p-6, 0x1.4bb4e3b87dbb8p-7, 0x1.16c8deb0b2740p-8, 0x1.fc6e5b901dcf6p-10, 0x1.e925b6c7c6576p-11},
    {0x1.095de38000000p+0, -0x1.791172120ea93p-31, 0x1.9fd48ca343d11p-4, 0x1.c786d85d1ed39p-6, 0x1.4de4f365590a2p-7, 0x1.194801fb5caf0p-8, 0x1.0119f04783dbcp-9, 0x1.efe23cec7dd64p-11},
    {0x1.0977e80000000p+0, -0x1.96fa983005734p-28, 0x1.a0b8cd8bc7ea5p-4, 0x1.c97d56f88353fp-6, 0x1.501a089824461p-7, 0x1.1bce68df2a4d6p-8, 0x1.0406e27d21a33p-9, 0x1.f6babfc3686c6p-11},
    {0x1.0991fa8000000p+0, 0x1.bffbf3f8d7bb0p-28, 0x1.a19e0a8823b7fp-4, 0x1.cb772900f9c1dp-6, 0x1.525431f1ac231p-7, 0x1.1e5c2d082fd6ap-8, 0x1.06fe2ec81dd1fp-9, 0x1.fdafc5520b4a3p-11},
    {0x1.09ac1b8000000p+0, 0x1.6955661616cd9p-27, 0x1.a2844543f72a6p-4, 0x1.cd74561fd51dfp-6, 0x1.54937e4680143p-7, 0x1.20f1688d6ce65p-8, 0x1.0a000052d5ab5p-9, 0x1.0260eb3aa629fp-10},
    {0x1.09c64b0000000p+0, 0x1.4fd4693f9b973p-27, 0x1.a36b7f6ebc71cp-4, 0x1.cf74e614ce990p-6, 0x1.56d7fc9fca21bp-7, 0x1.238e35f2cd6e2p-8, 0x1.0d0c83171e149p-9, 0x1.05f8bf7958b43p-10},
    {0x1.09e0890000000p+0, 0x1.139f2a843db37p-27, 0x1.a453babbd3451p-4, 0x1.d178e0b6551fdp-6, 0x1.5921bc3c2acc0p-7, 0x1.2632b02b35e00p-8, 0x1.1023e3e2adbc3p-9, 0x1.099fa6c509c10p-10},
    {0x1.09fad58000000p+0, 0x1.35b47c8d50f83p-27, 0x1.a53cf8e28c50dp-4, 0x1.d3804df1de349p-6, 0x1.5b70cc9099120p-7, 0x1.28def29a9a832p-8, 0x1.1346505ba2276p-9, 0x1.0d55ea03e4825p-10},
    {0x1.0a15310000000p+0, -0x1.c81026feaf9b3p-27, 0x1.a6273b9e34cf1p-4, 0x1.d58b35cc381b3p-6, 0x1.5dc53d4946b1bp-7, 0x1.2b93191822383p-8, 0x1.1673f705205a5p-9, 0x1.111bd3aba5560p-10},
    {0x1.0a2f9a8000000p+0, 0x1.3a16c3725922dp-28, 0x1.a71284ae2248ap-4, 0x1.d799a061dd5f7p-6, 0x1.601f1e4a88b9dp-7, 0x1.2e4f3ff054f27p-8, 0x1.19ad074411d5cp-9, 0x1.14f1afcb2b518p-10},
    {0x1.0a4a130000000p+0, 0x1.d143cfc166caap-28, 0x1.a7fed5d5be805p-4, 0x1.d9ab95e749bacp-6, 0x1.627e7fb1c4847p-7, 0x1.311383e7562d0p-8, 0x1.1cf1b163feaacp-9, 0x1.18d7cc144ab7cp-10},
    {0x1.0a649a8000000p+0, -0x1.833c1ba2d4fcap-29, 0x1.a8ec30dc93890p-4, 0x1.dbc11ea95061dp-6, 0x1.64e371d66132cp-7, 0x1.33e0023b2ba75p-8, 0x1.2042269c0568fp-9, 0x1.1cce77e5e23b7p-10},
    {0x1.0a7f308000000p+0, 0x1.461af2a6917e7p-27, 0x1.a9da978e58074p-4, 0x1.ddda430d73be9p-6, 0x1.674e054abdc2bp-7, 0x1.36b4d8a610b2ep-8, 0x1.239e9913f1b38p-9, 0x1.20d6045635003p-10},
    {0x1.0a99d60000000p+0, -0x1.9c56e51b2a66ap-27, 0x1.aaca0bbafb9f4p-4, 0x1.dff70b923e9fdp-6, 0x1.69be4add2bd82p-7, 0x1.39922560d6610p-8, 0x1.27073be9724d9p-9, 0x1.24eec43d8b5cfp-10},
    {0x1.0ab48a0000000p+0, -0x1.01e47e4ca9197p-28, 0x1.abba8f36b38f8p-4, 0x1.e21780cf9ee47p-6, 0x1.6c345398ef537p-7, 0x1.3c78072550dfap-8, 0x1.2a7c43356f75dp-9, 0x1.29190c411c718p-10},
    {0x1.0acf4d0000000p+0, 0x1.2066623b5121ep-27, 0x1.acac23da07796p-4, 0x1.e43bab7741a90p-6, 0x1.6eb030c742d08p-7, 0x1.3f669d30d2577p-8, 0x1.2dfde411826eap-9, 0x1.2d5532de42b3ap-10},
    {0x1.0aea1f8000000p+0, -0x1.7a114120b4587p-30, 0x1.ad9ecb81de584p-4, 0x1.e6639454f1010p-6, 0x1.7131f3f06128dp-7, 0x1.425e0746b39f5p-8, 0x1.318c549d8f171p-9, 0x1.31a39075fda76p-10},
    {0x1.0b05010000000p+0, 0x1.a0e889dfd0156p-31, 0x1.ae92880f8ba75p-4, 0x1.e88f444ef340ep-6, 0x1.73b9aedc94159p-7, 0x1.455e65b2eb1b3p-8, 0x1.3527cc05807fdp-9, 0x1.36047f58c30adp-10},
    {0x1.0b1ff20000000p+0, -0x1.78bb5cf7ebf7ap-27, 0x1.af875b68dcb87p-4, 0x1.eabec4666be33p-6, 0x1.76477395480d6p-7, 0x1.4867d94cb21efp-8, 0x1.38d08287296d3p-9, 0x1.3a785bd2a1cdcp-10},
    {0x1.0b3af20000000p+0, -0x1.6efe89c175e09p-29, 0x1.b07d4778263adp-4, 0x1.ecf21db7be0e7p-6, 0x1.78db5466257c2p-7, 0x1.4b7a83793930dp-8, 0x1.3c86b17849c08p-9, 0x1.3eff8437b943ep-10},
    {0x1.0b56018000000p+0, -0x1.13e1260be5c6ap-34, 0x1.b1744e2c51f41p-4, 0x1.ef29597af0c5ap-6, 0x1.7b7563de2f724p-7, 0x1.4e96862e6b883p-8, 0x1.404a934cb9c81p-9, 0x1.439a58f107116p-10},
    {0x1.0b71208000000p+0, 0x1.0edb300e84deep-30, 0x1.b26c7178ecab6p-4, 0x1.f164810414cadp-6, 0x1.7e15b4d0e7eaap-7, 0x1.51bc03f5c2295p-8, 0x1.441c639cbc7e2p-9, 0x1.48493c898e685p-10},
    {0x1.0b8c4f0000000p+0, 0x1.3e27d6349871cp-28, 0x1.b365b35634486p-4, 0x1.f3a39dc3ac3bdp-6, 0x1.80bc5a5779c68p-7, 0x1.54eb1fef27004p-8, 0x1.47fc5f2b79c74p-9, 0x1.4d0c93bbdb42dp-10},
    {0x1.0ba78d8000000p+0, -0x1.fab6d02af60f5p-27, 0x1.b46015c126260p-4, 0x1.f5e6b94713f33p-6, 0x1.836967d1e89ffp-7, 0x1.5823fdd3e860ep-8, 0x1.4beac3eda1c78p-9, 0x1.51e4c57fe45aap-10},
    {0x1.0bc2db0000000p+0, 0x1.ca849133d28f9p-28, 0x1.b55b9abb8d9aap-4, 0x1.f82ddd38eeb49p-6, 0x1.861cf0e846946p-7, 0x1.5b66c1f9bd534p-8, 0x1.4fe7d1103a6f2p-9, 0x1.56d23b194eb81p-10},
    {0x1.0bde388000000p+0, 0x1.d0c8660bf0a8bp-27, 0x1.b658444c12b60p-4, 0x1.fa791361922ebp-6, 0x1.88d7098bf0289p-7, 0x1.5eb39155db183p-8, 0x1.53f3c6ff98687p-9, 0x1.5bd5602615c7ep-10},
    {0x1.0bf9a60000000p+0, 0x1.5aa947210869bp-27, 0x1.b756147e4936bp-4, 0x1.fcc865a775dbdp-6, 0x1.8b97c5f8ce68ep-7, 0x1.620a91801c53cp-8, 0x1.580ee76e8497ep-9, 0x1.60eea2ad9b015p-10},
    {0x1.0c15238000000p+0, 0x1.6b9b2c232dd99p-31, 0x1.b8550d62bfb6dp-4, 0x1.ff1bde0fa3ca3p-6, 0x1.8e5f3ab69f6abp-7, 0x1.656be8b63a4dfp-8, 0x1.5c39755d8f6abp-9, 0x1.661e733020405p-10}
};

/* acos x for 1/2 <= x < 1 fast, as a double-double: nearly all of qrad's
 * calls (the edges of a surface light seen from a luxel, 95% of them over
 * 0.75 on base1), where acos_fast's double-double sqrt and products cost
 * 360 instructions a call. y = 1 - x and e = y - j/256 (|e| <= 1/512) are
 * exact, acos x = sqrt(2 y) F(y) with F = F0 + g, g = F1 e + .. + F6 e^6
 * in plain double (|g| < 2^-12.2; the next term is under 2^-73); sqrt(2 y)
 * = h (1 + eta) with eta from the exact remainder 2 y - h^2, and h F0's
 * head is exact as hh F0h + hl F0h (26 bits times 26). Roundings: g's
 * Horner steps and L's sums 4 u |g|, h L and the tail sum 3 u 2^-12.2,
 * under 2^-62.4 of the value (u = 2^-53). */
DD_INLINE dd_t acos_near1(double x)
{
    double y = 1 - x; /* exact (Sterbenz) */
    int j = (int)(y * 256 + 0.5);
    double e = y - j / 256.0; /* exact: a multiple of 2^-53 under 2^-9 */
    const double *c = ACOS_NEAR1[j];
    double g = e * (c[2] + e * (c[3] + e * (c[4] + e * (c[5] + e * (c[6] + e * c[7])))));
    double y2 = 2 * y, h = sqrt(y2), hh, hl;
    split(h, &hh, &hl);
    /* h^2 = hh^2 + 2 hh hl + hl^2 exactly; the steps round at most 2^-78 of y2 */
    double r = ((y2 - hh * hh) - 2 * hh * hl) - hl * hl;
    double eta = r / (2 * y2); /* sqrt(2 y) = h (1 + eta), to 2^-100 */
    double l = c[1] + g + (c[0] + g) * eta;
    return fast_two_sum(hh * c[0], hl * c[0] + h * l);
}

/* cr_acos past its fast path for 1/2 <= |x| < 1, out of line (see
 * sincos_slow). */
static CR_NOINLINE double acos_slow(double x)
{
    if (isnan(x) || x > 1 || x < -1) return (x - x) / (x - x);
    if (x == 1) return 0;
    if (x == -1) return DD_PI.hi;
    /* acos x = atan2(sqrt((1 - x)(1 + x)), x), the factors in double-double. */
    dd_t ax = dd_d(fabs(x));
    dd_t s = dd_sqrt(dd_mul(two_sum(1, -fabs(x)), two_sum(1, fabs(x))));
    if (x == 0) return DD_PIO2.hi;
    dd_t f;
    if (acos_fast(fabs(x), s, &f)) {
        if (x < 0) f = dd_sub(DD_PI, f);
        /* Ziv's test as in atan2_dd: 2^-63 of the value, eight times the
         * fast angle's bound (pi - f only shrinks its relative error);
         * about one in 700 goes on to the series */
        double v;
        if (ziv_round_at(f, 0x1p-63, &v)) return v;
    }
    return atan2_dd(s, ax, false, x < 0);
}

double cr_acos(double x)
{
    double ax = fabs(x);
    if (ax >= 0.5 && ax < 1) { /* false for NaN */
        dd_t f = acos_near1(ax);
        if (x < 0) f = dd_sub(DD_PI, f);
        /* Ziv's test at 2^-60 of the value, over four times the bound
         * above (pi - f only shrinks the relative error: f <= pi/3 there);
         * about one in 90 goes on to acos_fast */
        double v;
        if (ziv_round_at(f, 0x1p-60, &v)) return v;
    }
    return acos_slow(x);
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
