/* What dist.c (the loops and the exchange, over MPI where built with it)
 * and dist_local.c (the local loops' tracing, which the formats' parallel
 * loops use, so any program may link it without MPI) both read. Private to
 * those two files. */
#ifndef Q2MAP_DIST_INTERNAL_H
#define Q2MAP_DIST_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dist.h"

struct dist_t {
    int rank, size;
    bool mpi; /* joined an MPI job (even of one rank) */
    int threads;
    const char *program;
    dist_rank_stats_t self;
    int *rank_threads;        /* per rank, for block sizes (rank 0) */
    dist_rank_stats_t *all;   /* rank 0, after dist_collect */
    long fault_rank;          /* Q2MAP_DIST_FAULT: this rank kills itself (tests) */
    bool spill_test;          /* Q2MAP_DIST_SPILL: spill whatever may be spilled (tests) */
    FILE *trace;              /* Q2MAP_DIST_TRACE: per-item costs for scripts/bench_mpi */
    double tmark, cpumark;    /* end of the last loop (or the start), for the trace */
    uint8_t *scratch;         /* the exchange's decoded results, kept from loop to loop */
    size_t scratchcap;
    int loops;                /* loops begun so far (the trace names a loop by its number) */
};

/* Tracing: the time since the last loop or collective ("gap"). */
void dist_trace_gap(dist_t *d, double now);

#endif
