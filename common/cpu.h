/* The CPU the program runs on, for the few loops compiled in two forms.
 *
 * On x86-64 with gcc or clang, qrad compiles some hot loops for SSE2 and
 * for AVX2 and takes the AVX2 form where the CPU has it (cpu_has_avx2).
 * Both forms make the same operations without FMA (-ffp-contract=off), so
 * the output does not depend on which runs. Not on Windows: gcc for Win64
 * may spill 32-byte registers with aligned stores to a stack Windows
 * aligns to 16 only (GCC bug 54412), which wine does not show. Not under
 * Q2MAP_WIDE_PORTABLE, which builds the plain forms to compare them. */
#ifndef Q2MAP_CPU_H
#define Q2MAP_CPU_H

#include <stdbool.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(_WIN32) && !defined(Q2MAP_WIDE_PORTABLE)
#define Q2_AVX2_FORMS 1
static inline bool cpu_has_avx2(void) { return __builtin_cpu_supports("avx2"); }
#else
static inline bool cpu_has_avx2(void) { return false; }
#endif

#endif
