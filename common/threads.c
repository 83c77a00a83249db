#include "threads.h"

#include <stdatomic.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "os.h"

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

bool threads_in_team(void)
{
#ifdef _OPENMP
    return omp_in_parallel() != 0;
#else
    return false;
#endif
}

int threads_current(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* How long threads_start waits to see every worker run elsewhere. */
#define THREADS_START_WAIT_NS 200000

void threads_start(int n)
{
#ifdef _OPENMP
    if (n <= 1) return;
    (void)os_start_passing_thread();
    atomic_int started = 0, beside = 0;
    int caller_cpu = os_current_cpu();
#pragma omp parallel num_threads(n) default(none) shared(started, beside, caller_cpu, n)
    {
        if (omp_get_thread_num() > 0) {
            int cpu = os_current_cpu();
            if (cpu >= 0 && cpu == caller_cpu) atomic_fetch_add(&beside, 1);
            atomic_fetch_add(&started, 1);
        } else if (caller_cpu >= 0) {
            long long t0 = os_monotonic_ns();
            while (atomic_load(&started) < n - 1 && os_monotonic_ns() - t0 < THREADS_START_WAIT_NS) {
            }
            if (atomic_load(&started) < n - 1 || atomic_load(&beside) > 0) os_move_off_cpu();
        }
    }
#else
    (void)n;
#endif
}

void threads_start_during(int n, void (*fn)(void *arg), void *arg)
{
#ifdef _OPENMP
    if (n > 1) {
        (void)os_start_passing_thread();
        atomic_int done = 0, beside = 0, caller_cpu = -1;
#pragma omp parallel num_threads(n) default(none) shared(done, beside, caller_cpu, fn, arg)
        {
            if (omp_get_thread_num() == 0) {
                fn(arg);
                atomic_store(&caller_cpu, os_current_cpu());
                atomic_store(&done, 1);
            } else {
                while (!atomic_load(&done)) os_nap();
                int cpu = os_current_cpu(), at = atomic_load(&caller_cpu);
                if (cpu >= 0 && cpu == at) atomic_fetch_add(&beside, 1);
            }
        }
        if (atomic_load(&beside) > 0) os_move_off_cpu();
        return;
    }
#else
    (void)n;
#endif
    fn(arg);
}
