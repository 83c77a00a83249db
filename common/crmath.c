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
 * goes in plain double (its four roundings: 2^-65 of the value; 2^-65.9 is
 * the largest seen against the series on 6 million draws), its series to
 * d^9 (the next
 * terms are under 2^-80); the rest in double-double. qrad calls sin and cos
 * for every bounce and dirt ray, where the plain series cost 60% more time
 * and the Taylor kernel 7% of all qrad's time. */
DD_INLINE void table_kernel(dd_t r, dd_t *sinr, dd_t *cosr)
{
    bool neg = r.hi < 0;
    if (neg) r = dd_neg(r);
    int k = (int)(r.hi * 64 + 0.5);
    if (k > 51) k = 51;
    dd_t d = dd_sub(r, dd_d(k / 64.0));
    double z = d.hi * d.hi;
    double sd = d.hi * z * (-1.0 / 6 + z * (1.0 / 120 + z * (-1.0 / 5040 + z * (1.0 / 362880))));
    double cd = z * (-1.0 / 2 + z * (1.0 / 24 + z * (-1.0 / 720 + z * (1.0 / 40320))));
    dd_t sc = SINCOS_K64[k][0], cc = SINCOS_K64[k][1];
    if (sinr) {
        dd_t sv = dd_add(dd_add(sc, dd_mul(cc, d)), dd_d(sc.hi * cd + cc.hi * sd));
        *sinr = neg ? dd_neg(sv) : sv;
    }
    if (cosr) *cosr = dd_add(dd_sub(cc, dd_mul(sc, d)), dd_d(cc.hi * cd - sc.hi * sd));
}

/* Ziv's test: the fast value rounds the same way at both ends of its error
 * bound (2^-63 relative, four times the analysis above), so it is the
 * correctly rounded one (into *out); else (about one in 600) the full
 * series decides. Either way only IEEE operations: the same bits
 * everywhere. */
static bool ziv_round(dd_t f, double *out)
{
    double e = fabs(f.hi) * 0x1p-63;
    double lo1 = f.hi + (f.lo + e), lo2 = f.hi + (f.lo - e);
    *out = lo1;
    return lo1 == lo2;
}

/* sin (q = 0), cos (1), -sin (2) or -cos (3) of the reduced r, from the
 * fast kernel's pair where it can tell. */
static double round_reduced(dd_t r, int q, dd_t sinr, dd_t cosr)
{
    double v;
    if (ziv_round((q & 1) ? cosr : sinr, &v)) return (q & 2) ? -v : v;
    dd_t w = (q & 1) ? cos_kernel(r) : sin_kernel(r);
    /* hi is hi + lo rounded to nearest (fast_two_sum normalised it). */
    return (q & 2) ? -w.hi : w.hi;
}

/* sin (q = 0), cos (1), -sin (2) or -cos (3) of the reduced r. */
static double eval_reduced(dd_t r, int q)
{
    dd_t v = {0, 0};
    if (q & 1)
        table_kernel(r, NULL, &v);
    else
        table_kernel(r, &v, NULL);
    return round_reduced(r, q, v, v);
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
    /* one reduction and one table step for both */
    dd_t r, sr, cr;
    int q = reduce(x, &r);
    table_kernel(r, &sr, &cr);
    *s = round_reduced(r, q & 3, sr, cr);
    *c = round_reduced(r, (q + 1) & 3, sr, cr);
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
    double e = fabs(f.hi) * 0x1p-60;
    double v1 = f.hi + (f.lo + e), v2 = f.hi + (f.lo - e);
    if (v1 == v2) return yneg ? -v1 : v1;
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

double cr_acos(double x)
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
        double e = fabs(f.hi) * 0x1p-63;
        double v1 = f.hi + (f.lo + e), v2 = f.hi + (f.lo - e);
        if (v1 == v2) return v1;
    }
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
