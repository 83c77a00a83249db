/* Work spread over several processes (MPI ranks, usually one per host), or
 * none: the one interface qvis and qrad use for both.
 *
 * A program started by mpirun or srun (with a build that has MPI, see
 * docs/distributed.md) runs as `size` ranks; started any other way it is a
 * single rank and nothing here talks to anyone. Stages only see loops over
 * item indices: rank 0 hands out blocks of indices to whichever rank asks
 * (its own threads take them one at a time), each rank's OpenMP threads pull
 * items with dist_loop_next, and dist_loop_end gives every rank every item's
 * result, unpacked through the stage's codec in a fixed order (by rank, then
 * item) into the place the item's index names. A stage whose
 * items read only inputs and results of earlier loops therefore computes the
 * same bytes at any rank count, as at any thread count.
 *
 * Errors: calls that can fail on bad input (dist_read_file) return q2err_t
 * with the same message on every rank. A failure of MPI itself (a peer that
 * died, a broken link) cannot be recovered from and leaves the other ranks
 * waiting, so it ends the whole job through MPI_Abort after a line on stderr
 * naming this rank and host; the programs write their output only after the
 * last exchange, atomically, so the .bsp is left as it was. */
#ifndef Q2M_DIST_H
#define Q2M_DIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "fileio.h"
#include "jsonw.h"
#include "log.h"

typedef struct dist_t dist_t;
typedef struct dist_loop_t dist_loop_t;

/* What a rank did, for the summary and -json (collected by dist_collect). */
typedef struct dist_rank_stats_t {
    char host[64];
    int threads;
    long items;          /* loop items this rank computed */
    double work_seconds; /* inside loops, from begin to the last item */
    double comm_seconds; /* exchanging results at the ends of loops, reading input */
    uint64_t bytes_sent; /* payload this rank handed to MPI (a broadcast counts once per receiver) */
} dist_rank_stats_t;

/* True when this build can run under mpirun. */
bool dist_available(void);

/* Joins the job when started by an MPI launcher, else a single rank.
 * `program` names the messages. Three variables are read here, for tests
 * and measurement only: Q2MAP_DIST_FAULT=R makes rank R kill itself at its
 * first request for work; Q2MAP_DIST_SPILL, see dist_spill_test;
 * Q2MAP_DIST_TRACE=FILE makes rank 0 write each loop's item costs there
 * (scripts/bench_mpi; meaningful for one rank). */
bool dist_start(dist_t **out, const char *program, q2err_t *err);
/* This rank's OpenMP thread count (blocks are sized by it); every rank
 * calls it once, before the first loop. */
void dist_set_threads(dist_t *d, int threads);
/* Leaves the job; every rank calls it once, after its last exchange. */
void dist_stop(dist_t *d);

int dist_rank(const dist_t *d);
int dist_size(const dist_t *d);
static inline bool dist_is_root(const dist_t *d) { return dist_rank(d) == 0; }

/* Rank 0 reads the file and sends it to the others, so hosts need no
 * shared filesystem. On failure every rank gets rank 0's error. */
bool dist_read_file(dist_t *d, const char *path, size_t max_size, uint8_t **data, size_t *size, q2err_t *err);
/* dist_read_file into a file_map_t (common/fileio.h): rank 0 maps the file
 * (no copy), the others get its bytes in a buffer; release with
 * file_unmap. */
bool dist_map_file(dist_t *d, const char *path, size_t max_size, file_map_t *m, q2err_t *err);
/* Rank 0's bytes on every rank (allocated there; rank 0's stay its own). */
bool dist_share(dist_t *d, uint8_t **data, size_t *size);
/* Rank 0's value of v, on every rank. */
bool dist_root_bool(dist_t *d, bool v);
/* Sums n values over the ranks, in place on every rank. */
void dist_sum_long(dist_t *d, long *v, int n);

/* How a loop's results travel: size of item i's result on the rank that
 * computed it, packing it, and storing it on a rank that did not. */
typedef struct dist_codec_t {
    size_t (*size)(void *ctx, long item);
    void (*pack)(void *ctx, long item, uint8_t *out);
    void (*unpack)(void *ctx, long item, const uint8_t *in, size_t size);
    /* unpack may run for different items at once, on the rank's threads
     * (a codec whose unpack decodes much) */
    bool parallel_unpack;
} dist_codec_t;

/* A loop over items 0..n-1. All ranks begin and end it together. */
dist_loop_t *dist_loop_begin(dist_t *d, long n, const dist_codec_t *codec, void *ctx);
/* The same, but dist_loop_end sends the results to rank 0 only (a gather:
 * no other rank unpacks anything), for results only rank 0 reads. */
dist_loop_t *dist_loop_begin_to_root(dist_t *d, long n, const dist_codec_t *codec, void *ctx);
/* The next item for the calling thread (any thread, any number of them);
 * false when the loop has no more work for this rank. */
bool dist_loop_next(dist_loop_t *l, long *item);
/* Marks item `item` finished; returns the items known finished job-wide
 * (for progress on rank 0; only this rank's elsewhere). */
long dist_loop_finished(dist_loop_t *l, long item);
/* A loop whose items can hand parts of themselves to other ranks (qvis's
 * long walks): all ranks begin it so, and their threads take work with
 * dist_loop_next_ex instead of dist_loop_next. Once a rank's threads have
 * nothing left, a part another rank spilled (dist_loop_spill) keeps them
 * busy; the rank that walks a part reports it with dist_loop_contribute,
 * so its (partial) result for the item travels too, and the codec's unpack
 * must merge what several ranks send for one item (for bit rows: OR). The
 * loop ends for all ranks together, when none has work running. The trace
 * marks the loop "split" (mpisim.py --split models it). */
dist_loop_t *dist_loop_begin_spilling(dist_t *d, long n, const dist_codec_t *codec, void *ctx);
typedef enum { DIST_ITEM, DIST_SPILL, DIST_WAIT, DIST_DONE } dist_next_t;
/* The calling thread's next work: an item, a part spilled by a rank (*part,
 * *len: its bytes, which the caller frees), DIST_WAIT (nothing now, but a
 * rank still has work running: look again soon) or DIST_DONE (no work left
 * anywhere). `busy`: whether this rank has other work running or queued
 * (its other threads); the loop ends only when no rank is busy. In a loop
 * begun with dist_loop_begin, or on one rank, it is dist_loop_next. */
dist_next_t dist_loop_next_ex(dist_loop_t *l, bool busy, long *item, uint8_t **part, size_t *len);
/* Hands a part of an item (bytes the stage understands) to the next rank
 * with nothing to do; on one rank it does nothing (the caller keeps the
 * part only when that matters: see dist_size). */
void dist_loop_spill(dist_loop_t *l, const uint8_t *data, size_t len);
/* This rank holds a part of item's result too (it walked a part of it),
 * to be sent at the exchange like its own items. */
void dist_loop_contribute(dist_loop_t *l, long item);
/* A part taken with dist_loop_next_ex is finished (as dist_loop_finished
 * for an item). */
void dist_loop_part_done(dist_loop_t *l);
/* Whether this rank has found the loop's items run out: the tail, where
 * spilling lets the other ranks help. */
bool dist_loop_in_tail(dist_loop_t *l);
/* Whether this run writes a trace (Q2MAP_DIST_TRACE): stages that encode
 * results only for other ranks encode them then too, so that the trace
 * counts the bytes that would travel. */
bool dist_tracing(const dist_t *d);
/* Tests: Q2MAP_DIST_SPILL=1 (under MPI) asks stages to spill every part
 * they could, whatever the timing, so that the path is always taken. */
bool dist_spill_test(const dist_t *d);
/* Exchanges the results so that every rank holds all of them, and frees
 * the loop. */
void dist_loop_end(dist_loop_t *l);

/* The items a rank computed in one loop, for a later loop over the same
 * items that leaves each item on the same rank (dist_loop_begin_same), so
 * that what the first loop left in a rank's memory for an item needs never
 * travel. */
typedef struct dist_items_t dist_items_t;
/* This rank's items of loop l (every rank calls it, after the loop's last
 * dist_loop_next and before dist_loop_end). */
dist_items_t *dist_loop_items(const dist_loop_t *l);
void dist_items_free(dist_items_t *it);
/* A loop over the items of the loop `it` came from, each computed by the
 * rank that computed it there: no requests, a rank's threads take its own
 * items in ascending order. With to_root, dist_loop_end sends the results
 * to rank 0 only (a gather: no other rank unpacks anything), for results
 * that only rank 0 reads (the output). All ranks begin and end it
 * together. */
dist_loop_t *dist_loop_begin_same(dist_t *d, const dist_items_t *it, const dist_codec_t *codec, void *ctx, bool to_root);

/* Work between loops that every rank does whole, on its own threads (an
 * OpenMP loop over n items: building a tracing structure, a sweep over
 * patches). Only for measurement: with Q2MAP_DIST_TRACE the trace records
 * each item's CPU cost ("local" segments), so scripts/lib/mpisim.py replays
 * the loop on a rank's T threads instead of charging it as serial time.
 * dist_local_begin returns NULL when not tracing (or d is NULL), and then
 * the other two calls cost nothing:
 *     dist_local_t *lt = dist_local_begin(d, n);
 *     #pragma omp parallel for
 *     for (long i = 0; i < n; i++) {
 *         double t0 = dist_local_start(lt);
 *         ...
 *         dist_local_done(lt, i, t0);
 *     }
 *     dist_local_end(lt);
 * Items run by one thread each, so dist_local_done needs no lock. */
typedef struct dist_local_t dist_local_t;
dist_local_t *dist_local_begin(dist_t *d, long n);
double dist_local_start(const dist_local_t *lt);
void dist_local_done(dist_local_t *lt, long item, double t0);
void dist_local_end(dist_local_t *lt);

/* Gathers every rank's statistics on rank 0 (all ranks call it; afterwards
 * rank 0 may print them); returns the array of dist_size entries on rank 0,
 * NULL elsewhere. */
const dist_rank_stats_t *dist_collect(dist_t *d);
/* Rank 0, after dist_collect: one line per rank, and a "ranks" array in a
 * JSON report. Nothing when there is one rank. */
void dist_log_summary(const dist_t *d, log_t *log);
void dist_json(const dist_t *d, jsonw_t *w);

#endif
