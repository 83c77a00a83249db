/* The part of dist.h that needs no MPI: the tracing of local loops
 * (Q2MAP_DIST_TRACE), which the formats' parallel loops call. dist.c, the
 * loops and the exchange, is linked only by the programs that run under
 * mpirun (qvis, qrad), so that the others (qbsp, bspinfo, qview) neither
 * load nor need an MPI library. */
#include <stdio.h>
#include <stdlib.h>

#include "dist.h"
#include "dist_internal.h"
#include "mem.h"
#include "os.h"
#include "timer.h"

void dist_trace_gap(dist_t *d, double now)
{
    if (d && d->trace) fprintf(d->trace, "gap %.6f %.6f\n", now - d->tmark, os_cpu_process_s() - d->cpumark);
}

struct dist_local_t {
    dist_t *d;
    long n;
    double *cost;
};

dist_local_t *dist_local_begin(dist_t *d, long n)
{
    if (!d || !d->trace || n <= 0) return NULL;
    dist_trace_gap(d, time_now());
    dist_local_t *lt = q2_calloc(1, sizeof *lt);
    lt->d = d;
    lt->n = n;
    lt->cost = q2_calloc((size_t)n, sizeof(double));
    return lt;
}

double dist_local_start(const dist_local_t *lt) { return lt ? os_cpu_thread_s() : 0; }

void dist_local_done(dist_local_t *lt, long item, double t0)
{
    if (lt && item >= 0 && item < lt->n) lt->cost[item] += os_cpu_thread_s() - t0;
}

/* "local N" and the items' costs on the next line, like a loop's; the
 * time between loops restarts after it. */
void dist_local_end(dist_local_t *lt)
{
    if (!lt) return;
    dist_t *d = lt->d;
    fprintf(d->trace, "local %ld\n", lt->n);
    for (long i = 0; i < lt->n; i++) fprintf(d->trace, "%s%.7f", i ? " " : "", lt->cost[i]);
    fputc('\n', d->trace);
    d->tmark = time_now();
    d->cpumark = os_cpu_process_s();
    free(lt->cost);
    free(lt);
}
