#include "threads.h"

#ifdef _OPENMP
#include <omp.h>
#endif

int threads_resolve(int requested)
{
    int n = requested;
    if (n <= 0) {
#ifdef _OPENMP
        n = omp_get_num_procs();
#else
        n = 1;
#endif
    }
    if (n < 1) n = 1;
    if (n > THREADS_MAX) n = THREADS_MAX;
    return n;
}

int threads_current(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}
