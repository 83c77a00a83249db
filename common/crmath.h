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

#endif
