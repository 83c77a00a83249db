/* The thread-count setting every tool shares (-threads N). Stages take the
 * resolved count in their context and pass it to OpenMP's num_threads
 * clause; results never depend on it. */
#ifndef Q2M_THREADS_H
#define Q2M_THREADS_H

#include <stdbool.h>

#define THREADS_MAX 256

/* 0 or negative means "all processors"; the result is in 1..THREADS_MAX. */
int threads_resolve(int requested);

/* The calling thread's number in the innermost parallel region's team,
 * 0..team size - 1 (0 outside one): an index into per-thread scratch that
 * a region's owner made, one per thread of num_threads. */
int threads_current(void);

/* Whether the caller runs inside an active parallel region (a task or a
 * section of a running team), where a parallel loop must be a task loop
 * for the team's other threads to take part. */
bool threads_in_team(void);

/* Starts the team of n threads that the tools' parallel regions then reuse
 * (OpenMP keeps it), before the serial reading of their input, and sees
 * that the new threads do not wait behind the caller. On virtual machines
 * (seen on this project's two-processor ones) a new thread is often put on
 * the processor of the thread that made it, where it waits, behind that
 * one, for the scheduler to move one of them: 4-12 ms, during which the
 * first parallel region cannot end. So when a worker has not been seen
 * running on another processor within THREADS_START_WAIT_NS, the caller
 * moves itself (os_move_off_cpu) and the worker runs at once. Before the
 * region a thread that returns at once is started and left
 * (os_start_passing_thread): with it threads_start took 0.10-0.17 ms in
 * 21 of 24 runs, without it up to 12 ms (medians 3.5-8.0 ms). Nothing a
 * tool computes depends on either. */
void threads_start(int n);

/* threads_start for a tool whose first work is serial: fn(arg) runs on the
 * calling thread inside the team's first region, its workers waiting
 * asleep (os_nap) rather than spinning until fn returns, so that a worker
 * put on the caller's processor takes almost none of its time. Each time a
 * worker wakes the scheduler may place it on an idle processor; if one is
 * still seen on the caller's processor at the end, the caller moves as in
 * threads_start, and the passing thread is started first as there. The
 * region, and so fn, begins only once each new thread has run (libgomp
 * waits for it): that wait is not hidden. With n <= 1, or without OpenMP,
 * just fn(arg). fn must not start a parallel region of its own (it would
 * run on one thread). */
void threads_start_during(int n, void (*fn)(void *arg), void *arg);

#endif
