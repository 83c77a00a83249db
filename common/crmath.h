/* sin and cos that give the same bits on every platform.
 *
 * Texture axes and entity rotations are stored in the bsp, so a compile on
 * Windows must compute them exactly as one on Linux. C libraries do not
 * agree in the last bit: MinGW-w64's sin and cos are a few ulps off where
 * glibc's are correctly rounded (seen on 123 of 43,000 angles in degrees,
 * among them 90, 180 and -90). These return the correctly rounded value of
 * the function at the given double, computed in double-double arithmetic
 * (IEEE double operations only, no libm), so they agree with glibc and with
 * each other everywhere. */
#ifndef Q2M_CRMATH_H
#define Q2M_CRMATH_H

double cr_sin(double x);
double cr_cos(double x);
/* Both at once (one argument reduction): the bits of cr_sin and cr_cos. */
void cr_sincos(double x, double *s, double *c);

/* The other functions of the C library whose results reach a bsp, for the
 * same reason: their libraries disagree more often than sin and cos
 * (measured over 20,000 arguments, MinGW-w64 against glibc: tan 4%, acos 8%,
 * cbrt 56%, hypot 14%, pow 0.1%, atan2 0.1%; glibc's arm64 build against its
 * x86-64 one: cbrt 21%, hypot 13%). Each is computed in double-double
 * arithmetic to about 2^-100 relative and rounded once, so it is the
 * correctly rounded value but for an argument one in about 2^40 (and then
 * still the same bits on every platform: IEEE operations only).
 * cr_pow is for x > 0 (and the rules of C's pow for x = 0, 1 and y = 0);
 * a negative x gives NaN unless y is an integer. */
double cr_tan(double x);
double cr_acos(double x);
double cr_atan2(double y, double x);
double cr_hypot(double x, double y);
double cr_cbrt(double x);
double cr_pow(double x, double y);

#endif
