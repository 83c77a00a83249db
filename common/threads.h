/* The thread-count setting every tool shares (-threads N). Stages take the
 * resolved count in their context and pass it to OpenMP's num_threads
 * clause; results never depend on it. */
#ifndef Q2M_THREADS_H
#define Q2M_THREADS_H

#define THREADS_MAX 256

/* 0 or negative means "all processors"; the result is in 1..THREADS_MAX. */
int threads_resolve(int requested);

/* The calling thread's number in the innermost parallel region's team,
 * 0..team size - 1 (0 outside one): an index into per-thread scratch that
 * a region's owner made, one per thread of num_threads. */
int threads_current(void);

#endif
