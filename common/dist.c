/* dist.h over MPI (when built with Q2MAP_HAVE_MPI and started by a
 * launcher), or over nothing (one rank, the loop a shared counter).
 *
 * Rank 0 serves block requests from a helper thread while its own OpenMP
 * threads compute, so MPI is asked for MPI_THREAD_SERIALIZED: during a loop
 * only that helper talks on rank 0, and on another rank only the thread that
 * holds the loop's lock. Every wait polls with a short sleep instead of
 * blocking in MPI: Open MPI's blocking calls spin, and a spinning rank would
 * take a core from the threads of a rank sharing its host. */
#include "dist.h"
#include "dist_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "mem.h"
#include "os.h"
#include "timer.h"
#include "zwords.h"

#ifdef Q2MAP_HAVE_MPI
#include <mpi.h>
#endif

struct dist_items_t {
    long n;      /* items of the loop */
    int loop;    /* its number */
    long count;  /* this rank's */
    long *items; /* ascending */
};

typedef struct spill_t {
    uint8_t *data;
    size_t len;
} spill_t;

struct dist_loop_t {
    dist_t *d;
    long n;
    const dist_codec_t *codec;
    void *ctx;
    pthread_mutex_t lock;
    long next;         /* rank 0 (or one rank): next unclaimed item */
    long finished;     /* items this rank finished */
    long remote_done;  /* rank 0: items other ranks reported finished */
    double t0, tlast;
    /* ranks other than 0: the current block and every block received */
    long blo, bhi;
    bool exhausted;
    long *blocks;      /* pairs lo, hi */
    int nblocks, capblocks;
    long *root_items;  /* rank 0 of several: the items its threads took */
    int nroot, caproot;
    long requests;
    double *tstart, *cost; /* per item, when tracing */
    /* dist_loop_begin_spilling: parts of items travel between ranks */
    bool spills;
    bool tail;            /* ranks other than 0: rank 0 said the items ran out (rank 0 knows by next) */
    long *contrib;        /* items this rank has parts of results for */
    int ncontrib, capcontrib;
    /* rank 0: the parts spilled and not yet taken (a FIFO), whether its
     * own threads are idle, and whether every rank is (the loop's end) */
    struct spill_t *pool;
    int poolhead, npool, cappool;
    int root_idle, all_done; /* atomic */
    double wait_until;   /* ranks other than 0: the last answer was "wait" */
    long handed, retired; /* items and parts given to this rank's threads, and those finished */
    int index;             /* this loop's number */
    const dist_items_t *same; /* dist_loop_begin_same: this rank's items, taken in order */
    long same_next;
    bool to_root;          /* results to rank 0 only */
#ifdef Q2MAP_HAVE_MPI
    pthread_t server;
    bool server_on;
#endif
};

bool dist_available(void)
{
#ifdef Q2MAP_HAVE_MPI
    return true;
#else
    return false;
#endif
}

int dist_rank(const dist_t *d) { return d ? d->rank : 0; }
bool dist_spill_test(const dist_t *d) { return d && d->spill_test; }
bool dist_tracing(const dist_t *d) { return d && d->trace; }
/* A NULL dist_t is one rank, for callers (tests, -checkpvs) without a job. */
static inline bool solo(const dist_t *d) { return !d || d->size == 1; }
int dist_size(const dist_t *d) { return d ? d->size : 1; }

#ifdef Q2MAP_HAVE_MPI
enum { TAG_REQ = 101, TAG_BLOCK = 102, TAG_SPILL = 103, TAG_SPILLDATA = 104 };

/* A request for work: the asker's finished items, and whether it has
 * other work running (spilling loops). The answer: lo, hi, its kind, and
 * for a spilled part its length (the bytes follow as TAG_SPILLDATA). */
enum { REPLY_BLOCK, REPLY_SPILL, REPLY_WAIT, REPLY_DONE };

/* How long a waiting rank sleeps between polls: from DIST_POLL_MIN_NS,
 * doubling up to DIST_POLL_MAX_NS while nothing arrives, so that a quick
 * answer is seen within tens of microseconds and a long wait (a rank
 * waiting for the slowest one) costs a few hundred wake-ups a second. */
#define DIST_POLL_MIN_NS 20000L
#define DIST_POLL_MAX_NS 2000000L
/* After rank 0 answered "wait", a rank's threads answer it themselves for
 * this long before one of them asks again. */
#define DIST_WAIT_S 50e-6

static void nap(long *ns)
{
    os_sleep_ns(*ns);
    if (*ns < DIST_POLL_MAX_NS) *ns *= 2;
}

static _Noreturn void die(const dist_t *d, const char *what, int code)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(code, msg, &len);
    fprintf(stderr, "%s: rank %d on host %s: MPI failed in %s: %s; ending the job (output left unchanged)\n",
            d->program, d->rank, d->self.host, what, msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    abort();
}

#define CHECK(d, what, call)                  \
    do {                                      \
        int rc_ = (call);                     \
        if (rc_ != MPI_SUCCESS) die(d, what, rc_); \
    } while (0)

static void wait_req(dist_t *d, const char *what, MPI_Request *rq)
{
    for (long ns = DIST_POLL_MIN_NS;;) {
        int flag = 0;
        CHECK(d, what, MPI_Test(rq, &flag, MPI_STATUS_IGNORE));
        if (flag) return;
        nap(&ns);
    }
}

/* Broadcasts from rank 0 in pieces that fit MPI's int counts. */
static void bcast_bytes(dist_t *d, void *buf, size_t len)
{
    const size_t chunk = (size_t)1 << 30;
    for (size_t off = 0; off < len; off += chunk) {
        size_t n = len - off < chunk ? len - off : chunk;
        MPI_Request rq;
        CHECK(d, "MPI_Ibcast", MPI_Ibcast((uint8_t *)buf + off, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD, &rq));
        wait_req(d, "MPI_Ibcast", &rq);
    }
    if (d->rank == 0) d->self.bytes_sent += (uint64_t)len * (uint64_t)(d->size - 1);
}

/* The launchers set these; without one MPI_Init is never called, so a
 * plain run is exactly the program without MPI. */
static bool launched_by_mpi(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i])) return true;
    return false;
}
#endif

bool dist_start(dist_t **out, const char *program, q2err_t *err)
{
    dist_t *d = q2_calloc(1, sizeof *d);
    d->rank = 0;
    d->size = 1;
    d->threads = 1;
    d->program = program;
    d->fault_rank = -1;
    d->self.threads = d->threads;
    os_host_name(d->self.host, sizeof d->self.host);
#ifdef Q2MAP_HAVE_MPI
    if (launched_by_mpi()) {
        int provided = 0;
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
            free(d);
            return q2err_set(err, NULL, 0, 0, "MPI_Init_thread failed");
        }
        d->mpi = true;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_rank(MPI_COMM_WORLD, &d->rank);
        MPI_Comm_size(MPI_COMM_WORLD, &d->size);
        if (provided < MPI_THREAD_SERIALIZED) {
            fprintf(stderr, "%s: rank %d on host %s: this MPI offers no thread support (level %d)\n", program,
                    d->rank, d->self.host, provided);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        d->rank_threads = q2_calloc((size_t)d->size, sizeof(int));
        const char *f = getenv("Q2MAP_DIST_FAULT");
        if (f && *f) d->fault_rank = strtol(f, NULL, 10);
        const char *sp = getenv("Q2MAP_DIST_SPILL");
        d->spill_test = sp && *sp && strcmp(sp, "0") != 0;
    }
#endif
    const char *tr = getenv("Q2MAP_DIST_TRACE");
    if (tr && *tr && d->rank == 0) d->trace = os_fopen(tr, "w");
    d->tmark = time_now();
    d->cpumark = os_cpu_process_s();
    (void)err;
    *out = d;
    return true;
}

/* The trace: "gap S C" for the time between loops (work every rank
 * repeats; S seconds of wall time, C of the process's CPU time), "loop N S
 * B ..." for a loop of N items that took S seconds and whose results are
 * B bytes as they travel (then "split" for dist_loop_begin_spilling, raw= the
 * bytes before zero-word elision, enc= and dec= the CPU seconds of eliding
 * and restoring them), and on the next line the items' costs in seconds
 * of the computing thread's CPU time ("local N" and its costs likewise,
 * for dist_local_begin's loops): CPU time, because a loaded machine
 * stretches wall time at random while the work stays the same. The "gap"
 * and "local" lines are written in dist_local.c, the rest here. */

/* Tracing: a collective outside the loops (the input's broadcast, a flag,
 * a sum, the summary's gather) moving `bytes` bytes from or to rank 0,
 * which scripts/lib/mpisim.py charges on more than one rank ("coll N"). */
static void trace_collective(dist_t *d, size_t bytes)
{
    if (!d || !d->trace) return;
    dist_trace_gap(d, time_now());
    fprintf(d->trace, "coll %zu\n", bytes);
    d->tmark = time_now();
    d->cpumark = os_cpu_process_s();
}

void dist_set_threads(dist_t *d, int threads)
{
    d->threads = d->self.threads = threads > 0 ? threads : 1;
    trace_collective(d, sizeof d->threads);
#ifdef Q2MAP_HAVE_MPI
    if (d->mpi) {
        MPI_Request rq;
        CHECK(d, "MPI_Iallgather",
              MPI_Iallgather(&d->threads, 1, MPI_INT, d->rank_threads, 1, MPI_INT, MPI_COMM_WORLD, &rq));
        wait_req(d, "MPI_Iallgather", &rq);
    }
#endif
}

void dist_stop(dist_t *d)
{
    if (!d) return;
    if (d->trace) {
        dist_trace_gap(d, time_now());
        fclose(d->trace);
    }
#ifdef Q2MAP_HAVE_MPI
    if (d->mpi) {
        MPI_Request rq;
        /* a barrier that sleeps: ranks leave together, and none spins */
        CHECK(d, "MPI_Ibarrier", MPI_Ibarrier(MPI_COMM_WORLD, &rq));
        wait_req(d, "MPI_Ibarrier", &rq);
        MPI_Finalize();
    }
#endif
    free(d->rank_threads);
    free(d->all);
    free(d->scratch);
    free(d);
}

#ifdef Q2MAP_HAVE_MPI
/* Rank 0's read of a file (ok, and its bytes) to every rank: a header (the
 * ok flag and the length), then the bytes or, on failure, rank 0's error.
 * The other ranks get the bytes in a fresh buffer with a NUL after them. */
static bool share_read(dist_t *d, bool ok, const uint8_t *root_data, size_t root_size, uint8_t **data, size_t *size,
                       q2err_t *err)
{
    double t = time_now();
    uint64_t head[2] = {0, 0};
    if (d->rank == 0) {
        head[0] = ok;
        head[1] = ok ? (uint64_t)root_size : (uint64_t)sizeof *err;
    }
    bcast_bytes(d, head, sizeof head);
    ok = head[0] != 0;
    if (!ok) {
        bcast_bytes(d, err, sizeof *err);
    } else if (d->rank != 0) {
        *size = (size_t)head[1];
        *data = q2_malloc(*size + 1);
        (*data)[*size] = 0;
        bcast_bytes(d, *data, *size);
    } else {
        /* the root only sends: its bytes may be a read-only mapping */
        bcast_bytes(d, (void *)root_data, root_size);
    }
    d->self.comm_seconds += time_now() - t;
    return ok;
}
#endif

bool dist_read_file(dist_t *d, const char *path, size_t max_size, uint8_t **data, size_t *size, q2err_t *err)
{
    *data = NULL;
    *size = 0;
    if (solo(d)) {
        /* the header and the file, as rank 0 would broadcast them */
        bool ok = file_read_all(path, max_size, data, size, err);
        trace_collective(d, 2 * sizeof(uint64_t) + (ok ? *size : 0));
        return ok;
    }
#ifdef Q2MAP_HAVE_MPI
    bool ok = d->rank == 0 ? file_read_all(path, max_size, data, size, err) : true;
    return share_read(d, ok, *data, *size, data, size, err);
#else
    return false;
#endif
}

bool dist_map_file(dist_t *d, const char *path, size_t max_size, file_map_t *m, q2err_t *err)
{
    memset(m, 0, sizeof *m);
    if (solo(d)) {
        /* the header and the file, as rank 0 would broadcast them */
        bool ok = file_map(path, max_size, m, err);
        trace_collective(d, 2 * sizeof(uint64_t) + (ok ? m->size : 0));
        return ok;
    }
#ifdef Q2MAP_HAVE_MPI
    bool ok = d->rank == 0 ? file_map(path, max_size, m, err) : true;
    uint8_t *buf = NULL;
    size_t size = 0;
    ok = share_read(d, ok, m->data, m->size, &buf, &size, err);
    if (ok && d->rank != 0) {
        m->data = buf;
        m->size = size;
    }
    return ok;
#else
    return false;
#endif
}

bool dist_share(dist_t *d, uint8_t **data, size_t *size)
{
    if (d && solo(d)) trace_collective(d, sizeof(uint64_t) + *size);
#ifdef Q2MAP_HAVE_MPI
    if (!solo(d)) {
        double t = time_now();
        uint64_t n = d->rank == 0 ? (uint64_t)*size : 0;
        bcast_bytes(d, &n, sizeof n);
        if (d->rank != 0) {
            *size = (size_t)n;
            *data = q2_malloc(*size + 1);
        }
        bcast_bytes(d, *data, *size);
        d->self.comm_seconds += time_now() - t;
    }
#endif
    (void)d;
    (void)data;
    (void)size;
    return true;
}

bool dist_root_bool(dist_t *d, bool v)
{
    trace_collective(d, sizeof(int));
#ifdef Q2MAP_HAVE_MPI
    if (!solo(d)) {
        int x = v;
        bcast_bytes(d, &x, sizeof x);
        return x != 0;
    }
#endif
    (void)d;
    return v;
}

void dist_sum_long(dist_t *d, long *v, int n)
{
    trace_collective(d, sizeof(long) * (size_t)(n > 0 ? n : 0));
#ifdef Q2MAP_HAVE_MPI
    if (!solo(d) && n > 0) {
        long *tmp = q2_malloc(sizeof(long) * (size_t)n);
        MPI_Request rq;
        CHECK(d, "MPI_Iallreduce", MPI_Iallreduce(v, tmp, n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &rq));
        wait_req(d, "MPI_Iallreduce", &rq);
        memcpy(v, tmp, sizeof(long) * (size_t)n);
        free(tmp);
        d->self.bytes_sent += sizeof(long) * (size_t)n;
    }
#endif
    (void)d;
    (void)v;
    (void)n;
}

/* Rank 0's pool of spilled parts (with the loop's lock held). */
static void pool_push(dist_loop_t *l, uint8_t *data, size_t len)
{
    if (l->poolhead > 0 && l->poolhead == l->npool) l->poolhead = l->npool = 0;
    spill_t sp = {data, len};
    ARRAY_PUSH(l->pool, l->npool, l->cappool, sp);
}

static bool pool_pop(dist_loop_t *l, uint8_t **data, size_t *len)
{
    if (l->poolhead >= l->npool) return false;
    *data = l->pool[l->poolhead].data;
    *len = l->pool[l->poolhead].len;
    l->poolhead++;
    return true;
}

#ifdef Q2MAP_HAVE_MPI
/* Rank 0's block server: answers requests until every other rank was told
 * the loop is out of work. In a spilling loop it also keeps the parts
 * other ranks spill, hands them to ranks that ask once the items have run
 * out, and answers "wait" while any rank may still spill: the loop ends
 * for all ranks at once, when none has work left. */
static void *serve_blocks(void *arg)
{
    dist_loop_t *l = arg;
    dist_t *d = l->d;
    int total_threads = 0;
    for (int r = 0; r < d->size; r++) total_threads += d->rank_threads[r] > 0 ? d->rank_threads[r] : 1;
    long *done_by = q2_calloc((size_t)d->size, sizeof(long));
    /* per rank: its last request said it had nothing running (or it was
     * told the loop is done) */
    bool *idle = q2_calloc((size_t)d->size, sizeof(bool));
    int open = d->size - 1;
    /* the server's sleep grows only to 0.5 ms: a request should not wait
     * long while the asking rank's threads sit idle */
    const long serve_max = 500000L;
    long ns = DIST_POLL_MIN_NS;
    while (open > 0) {
        int flag = 0;
        MPI_Status stt;
        /* any tag: a rank's spill and its later request arrive in order */
        CHECK(d, "MPI_Iprobe", MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &stt));
        if (!flag) {
            nap(&ns);
            if (ns > serve_max) ns = serve_max;
            continue;
        }
        ns = DIST_POLL_MIN_NS;
        int src = stt.MPI_SOURCE;
        if (stt.MPI_TAG == TAG_SPILL) {
            int cnt = 0;
            CHECK(d, "MPI_Get_count", MPI_Get_count(&stt, MPI_BYTE, &cnt));
            uint8_t *data = q2_malloc((size_t)cnt + 1);
            CHECK(d, "MPI_Recv", MPI_Recv(data, cnt, MPI_BYTE, src, TAG_SPILL, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            pthread_mutex_lock(&l->lock);
            pool_push(l, data, (size_t)cnt);
            pthread_mutex_unlock(&l->lock);
            continue;
        }
        if (stt.MPI_TAG != TAG_REQ) die(d, "serving blocks (a message of an unknown kind)", MPI_ERR_TAG);
        long req[2] = {0, 0};
        CHECK(d, "MPI_Recv", MPI_Recv(req, 2, MPI_LONG, src, TAG_REQ, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        long rep[4] = {0, 0, REPLY_BLOCK, 0};
        uint8_t *part = NULL;
        size_t partlen = 0;
        pthread_mutex_lock(&l->lock);
        l->remote_done += req[0] - done_by[src];
        done_by[src] = req[0];
        long remaining = l->n - l->next;
        /* guided: a quarter of the asker's even share (by threads) of
         * what is left, so that the last blocks are small enough for fast
         * and slow hosts to finish together */
        long t = d->rank_threads[src] > 0 ? d->rank_threads[src] : 1;
        long b = remaining * t / (4L * total_threads);
        if (b < t) b = t;
        if (b > remaining) b = remaining;
        if (b > 0 || !l->spills) {
            rep[0] = l->next;
            rep[1] = l->next + b;
            l->next += b;
            rep[2] = b > 0 ? REPLY_BLOCK : REPLY_DONE;
            rep[3] = l->n - l->next; /* left after this block: none means the tail */
            idle[src] = false;
        } else if (!__atomic_load_n(&l->all_done, __ATOMIC_SEQ_CST) && pool_pop(l, &part, &partlen)) {
            rep[2] = REPLY_SPILL;
            rep[3] = (long)partlen;
            idle[src] = false;
        } else {
            idle[src] = req[1] == 0;
            bool all = __atomic_load_n(&l->root_idle, __ATOMIC_SEQ_CST) && l->poolhead >= l->npool;
            for (int r = 1; r < d->size && all; r++) all = idle[r];
            if (all) __atomic_store_n(&l->all_done, 1, __ATOMIC_SEQ_CST);
            rep[2] = __atomic_load_n(&l->all_done, __ATOMIC_SEQ_CST) ? REPLY_DONE : REPLY_WAIT;
        }
        pthread_mutex_unlock(&l->lock);
        if (rep[2] == REPLY_DONE) {
            open--;
            idle[src] = true;
        }
        MPI_Request rq;
        CHECK(d, "MPI_Isend", MPI_Isend(rep, 4, MPI_LONG, src, TAG_BLOCK, MPI_COMM_WORLD, &rq));
        wait_req(d, "MPI_Isend", &rq);
        d->self.bytes_sent += sizeof rep;
        if (part) {
            CHECK(d, "MPI_Isend", MPI_Isend(part, (int)partlen, MPI_BYTE, src, TAG_SPILLDATA, MPI_COMM_WORLD, &rq));
            wait_req(d, "MPI_Isend", &rq);
            d->self.bytes_sent += partlen;
            free(part);
        }
    }
    free(done_by);
    free(idle);
    return NULL;
}
#endif

static dist_loop_t *loop_begin(dist_t *d, long n, const dist_codec_t *codec, void *ctx, bool spills)
{
    dist_loop_t *l = q2_calloc(1, sizeof *l);
    l->d = d;
    l->n = n;
    l->codec = codec;
    l->ctx = ctx;
    l->spills = spills;
    pthread_mutex_init(&l->lock, NULL);
    l->t0 = l->tlast = time_now();
    l->index = d ? d->loops++ : 0;
    if (d && d->trace) {
        dist_trace_gap(d, l->t0);
        l->tstart = q2_calloc((size_t)n + 1, sizeof(double));
        l->cost = q2_calloc((size_t)n + 1, sizeof(double));
    }
#ifdef Q2MAP_HAVE_MPI
    if (!solo(d) && d->rank == 0) {
        if (pthread_create(&l->server, NULL, serve_blocks, l) != 0) {
            fprintf(stderr, "%s: rank 0 on host %s: cannot start the block server thread\n", d->program, d->self.host);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        l->server_on = true;
    }
#endif
    return l;
}

dist_loop_t *dist_loop_begin(dist_t *d, long n, const dist_codec_t *codec, void *ctx)
{
    return loop_begin(d, n, codec, ctx, false);
}

dist_loop_t *dist_loop_begin_to_root(dist_t *d, long n, const dist_codec_t *codec, void *ctx)
{
    dist_loop_t *l = loop_begin(d, n, codec, ctx, false);
    l->to_root = true;
    return l;
}

dist_loop_t *dist_loop_begin_spilling(dist_t *d, long n, const dist_codec_t *codec, void *ctx)
{
    return loop_begin(d, n, codec, ctx, true);
}

#ifdef Q2MAP_HAVE_MPI
/* A rank other than 0 asks rank 0 for work (with the loop's lock held);
 * returns the kind of the answer, with a block set up or a part received. */
static int request(dist_loop_t *l, bool busy, uint8_t **part, size_t *partlen)
{
    dist_t *d = l->d;
    l->requests++;
    /* Tests: a rank dying mid-job (after the input was shared). At its
     * first request, which every loop makes, so it happens whatever the
     * timing; at a later one a fast rank 0 may have handed out all work. */
    if (d->fault_rank == d->rank && l->requests == 1) os_kill_self();
    long req[2] = {l->finished, busy}, rep[4];
    MPI_Request rq;
    CHECK(d, "MPI_Isend", MPI_Isend(req, 2, MPI_LONG, 0, TAG_REQ, MPI_COMM_WORLD, &rq));
    wait_req(d, "MPI_Isend", &rq);
    CHECK(d, "MPI_Irecv", MPI_Irecv(rep, 4, MPI_LONG, 0, TAG_BLOCK, MPI_COMM_WORLD, &rq));
    wait_req(d, "MPI_Irecv", &rq);
    d->self.bytes_sent += sizeof req;
    if (rep[2] == REPLY_BLOCK) {
        if (rep[3] == 0) l->tail = true;
        l->blo = rep[0];
        l->bhi = rep[1];
        ARRAY_PUSH(l->blocks, l->nblocks, l->capblocks, rep[0]);
        ARRAY_PUSH(l->blocks, l->nblocks, l->capblocks, rep[1]);
        return REPLY_BLOCK;
    }
    l->tail = true;
    if (rep[2] == REPLY_DONE) {
        l->exhausted = true;
    } else if (rep[2] == REPLY_SPILL) {
        *partlen = (size_t)rep[3];
        *part = q2_malloc(*partlen + 1);
        CHECK(d, "MPI_Irecv", MPI_Irecv(*part, (int)*partlen, MPI_BYTE, 0, TAG_SPILLDATA, MPI_COMM_WORLD, &rq));
        wait_req(d, "MPI_Irecv", &rq);
    } else {
        /* nothing now: the rank's threads answer "wait" themselves for a
         * moment instead of each asking again */
        l->wait_until = time_now() + DIST_WAIT_S;
    }
    return (int)rep[2];
}
#endif

bool dist_loop_next(dist_loop_t *l, long *item)
{
    dist_t *d = l->d;
    if (l->same) {
        pthread_mutex_lock(&l->lock);
        long k = l->same_next < l->same->count ? l->same_next++ : -1;
        pthread_mutex_unlock(&l->lock);
        if (k < 0) return false;
        *item = l->same->items[k];
        if (l->tstart) l->tstart[*item] = os_cpu_thread_s();
        return true;
    }
    if (solo(d) || d->rank == 0) {
        pthread_mutex_lock(&l->lock);
        long i = l->next < l->n ? l->next++ : -1;
        if (i >= 0 && !solo(d)) ARRAY_PUSH(l->root_items, l->nroot, l->caproot, i);
        pthread_mutex_unlock(&l->lock);
        if (i < 0) return false;
        *item = i;
        if (l->tstart) l->tstart[i] = os_cpu_thread_s();
        return true;
    }
#ifdef Q2MAP_HAVE_MPI
    pthread_mutex_lock(&l->lock);
    /* (a spilling loop is walked with dist_loop_next_ex) */
    while (l->blo >= l->bhi && !l->exhausted) request(l, false, NULL, NULL);
    bool got = l->blo < l->bhi;
    if (got) *item = l->blo++;
    if (got && l->tstart) l->tstart[*item] = os_cpu_thread_s();
    pthread_mutex_unlock(&l->lock);
    return got;
#else
    return false;
#endif
}

dist_next_t dist_loop_next_ex(dist_loop_t *l, bool busy, long *item, uint8_t **part, size_t *len)
{
    dist_t *d = l->d;
    if (!l->spills || solo(d)) return dist_loop_next(l, item) ? DIST_ITEM : DIST_DONE;
    if (d->rank == 0) {
        pthread_mutex_lock(&l->lock);
        /* work handed to another thread since the caller looked counts as
         * running: `busy` may be stale by then */
        busy = busy || l->handed > l->retired;
        dist_next_t r;
        if (l->next < l->n) {
            *item = l->next++;
            ARRAY_PUSH(l->root_items, l->nroot, l->caproot, *item);
            __atomic_store_n(&l->root_idle, 0, __ATOMIC_SEQ_CST);
            r = DIST_ITEM;
        } else if (__atomic_load_n(&l->all_done, __ATOMIC_SEQ_CST)) {
            r = DIST_DONE;
        } else if (pool_pop(l, part, len)) {
            __atomic_store_n(&l->root_idle, 0, __ATOMIC_SEQ_CST);
            r = DIST_SPILL;
        } else {
            /* the server ends the loop once this and every other rank
             * have nothing running */
            __atomic_store_n(&l->root_idle, !busy, __ATOMIC_SEQ_CST);
            r = DIST_WAIT;
        }
        if (r == DIST_ITEM || r == DIST_SPILL) l->handed++;
        pthread_mutex_unlock(&l->lock);
        if (r == DIST_ITEM && l->tstart) l->tstart[*item] = os_cpu_thread_s();
        return r;
    }
#ifdef Q2MAP_HAVE_MPI
    pthread_mutex_lock(&l->lock);
    busy = busy || l->handed > l->retired;
    int kind = REPLY_WAIT;
    if (l->blo < l->bhi) {
        kind = REPLY_BLOCK;
    } else if (l->exhausted) {
        kind = REPLY_DONE;
    } else if (time_now() >= l->wait_until) {
        kind = request(l, busy, part, len);
    }
    if (kind == REPLY_BLOCK) *item = l->blo++;
    if (kind == REPLY_BLOCK || kind == REPLY_SPILL) l->handed++;
    pthread_mutex_unlock(&l->lock);
    switch (kind) {
    case REPLY_BLOCK:
        if (l->tstart) l->tstart[*item] = os_cpu_thread_s();
        return DIST_ITEM;
    case REPLY_SPILL: return DIST_SPILL;
    case REPLY_DONE: return DIST_DONE;
    default: return DIST_WAIT;
    }
#else
    (void)busy;
    (void)part;
    (void)len;
    return DIST_DONE;
#endif
}

void dist_loop_spill(dist_loop_t *l, const uint8_t *data, size_t len)
{
    dist_t *d = l->d;
    if (solo(d)) return;
    if (d->rank == 0) {
        uint8_t *copy = q2_malloc(len + 1);
        memcpy(copy, data, len);
        pthread_mutex_lock(&l->lock);
        pool_push(l, copy, len);
        pthread_mutex_unlock(&l->lock);
        return;
    }
#ifdef Q2MAP_HAVE_MPI
    if (len > (size_t)INT32_MAX) die(d, "spilling a part of an item (over 2 GiB)", MPI_ERR_COUNT);
    pthread_mutex_lock(&l->lock);
    MPI_Request rq;
    CHECK(d, "MPI_Isend", MPI_Isend(data, (int)len, MPI_BYTE, 0, TAG_SPILL, MPI_COMM_WORLD, &rq));
    wait_req(d, "MPI_Isend", &rq);
    d->self.bytes_sent += len;
    pthread_mutex_unlock(&l->lock);
#endif
}

void dist_loop_part_done(dist_loop_t *l)
{
    pthread_mutex_lock(&l->lock);
    l->retired++;
    pthread_mutex_unlock(&l->lock);
}

void dist_loop_contribute(dist_loop_t *l, long item)
{
    pthread_mutex_lock(&l->lock);
    ARRAY_PUSH(l->contrib, l->ncontrib, l->capcontrib, item);
    pthread_mutex_unlock(&l->lock);
}

bool dist_loop_in_tail(dist_loop_t *l)
{
    pthread_mutex_lock(&l->lock);
    bool t = l->tail || (dist_rank(l->d) == 0 && l->next >= l->n);
    pthread_mutex_unlock(&l->lock);
    return t;
}

long dist_loop_finished(dist_loop_t *l, long item)
{
    double now = time_now();
    if (l->cost) l->cost[item] = os_cpu_thread_s() - l->tstart[item];
    pthread_mutex_lock(&l->lock);
    l->retired++;
    long f = ++l->finished;
    l->tlast = now;
    long all = f + l->remote_done;
    pthread_mutex_unlock(&l->lock);
    return all;
}

/* Packs items: sizes (uint64 each), then the results, back to back. */
static uint8_t *pack_items(dist_loop_t *l, const long *items, long count, size_t *len)
{
    uint64_t *sz = q2_malloc(sizeof(uint64_t) * (size_t)(count + 1));
    size_t total = sizeof(uint64_t) * (size_t)count;
    for (long k = 0; k < count; k++) {
        sz[k] = l->codec->size(l->ctx, items[k]);
        total += sz[k];
    }
    uint8_t *buf = q2_malloc(total + 1), *p = buf + sizeof(uint64_t) * (size_t)count;
    memcpy(buf, sz, sizeof(uint64_t) * (size_t)count);
    for (long k = 0; k < count; k++) {
        l->codec->pack(l->ctx, items[k], p);
        p += sz[k];
    }
    free(sz);
    *len = total;
    return buf;
}

#ifdef Q2MAP_HAVE_MPI
static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static void unpack_items(dist_loop_t *l, const long *items, long count, const uint8_t *buf)
{
    const uint8_t *p = buf + sizeof(uint64_t) * (size_t)count;
    if (l->codec->parallel_unpack && l->d && l->d->threads > 1 && count > 1) {
        size_t *off = q2_malloc(sizeof(size_t) * (size_t)(count + 1));
        size_t at = 0;
        for (long k = 0; k < count; k++) {
            uint64_t s;
            memcpy(&s, buf + sizeof(uint64_t) * (size_t)k, sizeof s);
            off[k] = at;
            at += s;
        }
        off[count] = at;
#pragma omp parallel for num_threads(l->d->threads) schedule(dynamic, 16)
        for (long k = 0; k < count; k++) l->codec->unpack(l->ctx, items[k], p + off[k], off[k + 1] - off[k]);
        free(off);
        return;
    }
    for (long k = 0; k < count; k++) {
        uint64_t s;
        memcpy(&s, buf + sizeof(uint64_t) * (size_t)k, sizeof s);
        l->codec->unpack(l->ctx, items[k], p, (size_t)s);
        p += s;
    }
}

/* One rank's buffer as it travelled (zero words left out): decoded into
 * the scratch buffer, then its count, item indices, sizes and results. */
static void unpack_rank(dist_loop_t *l, const uint8_t *enc, size_t enclen)
{
    dist_t *d = l->d;
    size_t rawlen = 0;
    if (!zw_raw_size(enc, enclen, &rawlen)) die(d, "decoding results (a short buffer)", MPI_ERR_TRUNCATE);
    if (rawlen + 1 > d->scratchcap) {
        free(d->scratch);
        d->scratchcap = rawlen + 1 > 2 * d->scratchcap ? rawlen + 1 : 2 * d->scratchcap;
        d->scratch = q2_malloc(d->scratchcap);
    }
    if (!zw_decode(enc, enclen, d->scratch, rawlen)) die(d, "decoding results (a malformed buffer)", MPI_ERR_TRUNCATE);
    const uint8_t *p = d->scratch;
    uint64_t n;
    memcpy(&n, p, sizeof n);
    long *its = q2_malloc(sizeof(long) * (size_t)(n + 1));
    for (uint64_t k = 0; k < n; k++) {
        uint64_t it;
        memcpy(&it, p + sizeof(uint64_t) * (1 + k), sizeof it);
        its[k] = (long)it;
    }
    unpack_items(l, its, (long)n, p + sizeof(uint64_t) * (1 + n));
    free(its);
}

/* Every rank sends its results to every other (an allgather: each rank's
 * packed items once, in rank order, which MPI moves in about the time of
 * one pass of the whole payload over a link, however many ranks), and each
 * rank stores those it did not compute. Where an item lands depends only
 * on its index. */
static void exchange(dist_loop_t *l)
{
    dist_t *d = l->d;
    /* this rank's items, ascending */
    long mine = 0;
    long *items = NULL;
    if (l->same) {
        mine = l->same->count;
        items = q2_malloc(sizeof(long) * (size_t)(mine + 1));
        memcpy(items, l->same->items, sizeof(long) * (size_t)mine);
    } else if (d->rank == 0) {
        mine = l->nroot;
        items = l->root_items;
        l->root_items = NULL;
        qsort(items, (size_t)mine, sizeof *items, cmp_long);
    } else {
        for (int b = 0; b < l->nblocks; b += 2) mine += l->blocks[b + 1] - l->blocks[b];
        items = q2_malloc(sizeof(long) * (size_t)(mine + 1));
        long k = 0;
        for (int b = 0; b < l->nblocks; b += 2)
            for (long i = l->blocks[b]; i < l->blocks[b + 1]; i++) items[k++] = i;
    }
    /* and the items this rank has parts of (spilling loops): once each */
    if (l->ncontrib > 0) {
        long *all = q2_malloc(sizeof *all * (size_t)(mine + l->ncontrib + 1));
        memcpy(all, items, sizeof *all * (size_t)mine);
        memcpy(all + mine, l->contrib, sizeof *all * (size_t)l->ncontrib);
        free(items);
        items = all;
        mine += l->ncontrib;
        qsort(items, (size_t)mine, sizeof *items, cmp_long);
        long u = 0;
        for (long k = 0; k < mine; k++)
            if (u == 0 || items[k] != items[u - 1]) items[u++] = items[k];
        mine = u;
    }
    /* one buffer: count, item indices, sizes, results */
    size_t len = 0;
    uint8_t *data = pack_items(l, items, mine, &len);
    size_t blen = sizeof(uint64_t) * (1 + (size_t)mine) + len;
    if (blen > (size_t)INT32_MAX) die(d, "packing results (over 2 GiB from one rank in one loop)", MPI_ERR_COUNT);
    uint8_t *buf = q2_malloc(blen);
    uint64_t cnt = (uint64_t)mine;
    memcpy(buf, &cnt, sizeof cnt);
    for (long k = 0; k < mine; k++) {
        uint64_t it = (uint64_t)items[k];
        memcpy(buf + sizeof(uint64_t) * (1 + (size_t)k), &it, sizeof it);
    }
    memcpy(buf + sizeof(uint64_t) * (1 + (size_t)mine), data, len);
    free(data);
    free(items);
    /* what travels: the buffer with its zero words left out (common/zwords.h) */
    uint8_t *raw = buf;
    buf = q2_malloc(zw_bound(blen) + 1);
    blen = zw_encode(raw, blen, buf);
    free(raw);
    if (blen > (size_t)INT32_MAX) die(d, "packing results (over 2 GiB from one rank in one loop)", MPI_ERR_COUNT);
    int mylen = (int)blen, *lens = q2_malloc(sizeof(int) * (size_t)d->size), *offs = q2_malloc(sizeof(int) * (size_t)d->size);
    MPI_Request rq;
    if (l->to_root) {
        /* a gather: rank 0 alone receives, and alone unpacks */
        CHECK(d, "MPI_Igather", MPI_Igather(&mylen, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq));
        wait_req(d, "MPI_Igather", &rq);
        int64_t total = 0;
        if (d->rank == 0)
            for (int r = 0; r < d->size; r++) {
                offs[r] = (int)total;
                total += lens[r];
            }
        if (total > INT32_MAX) die(d, "gathering results (over 2 GiB in one loop)", MPI_ERR_COUNT);
        uint8_t *all = d->rank == 0 ? q2_malloc((size_t)total + 1) : NULL;
        CHECK(d, "MPI_Igatherv", MPI_Igatherv(buf, mylen, MPI_BYTE, all, lens, offs, MPI_BYTE, 0, MPI_COMM_WORLD, &rq));
        wait_req(d, "MPI_Igatherv", &rq);
        if (d->rank != 0) d->self.bytes_sent += (uint64_t)blen + sizeof mylen;
        for (int r = 1; d->rank == 0 && r < d->size; r++) unpack_rank(l, all + offs[r], (size_t)lens[r]);
        free(all);
        free(buf);
        free(lens);
        free(offs);
        return;
    }
    CHECK(d, "MPI_Iallgather", MPI_Iallgather(&mylen, 1, MPI_INT, lens, 1, MPI_INT, MPI_COMM_WORLD, &rq));
    wait_req(d, "MPI_Iallgather", &rq);
    int64_t total = 0;
    for (int r = 0; r < d->size; r++) {
        offs[r] = (int)total;
        total += lens[r];
    }
    if (total > INT32_MAX) die(d, "exchanging results (over 2 GiB in one loop)", MPI_ERR_COUNT);
    uint8_t *all = q2_malloc((size_t)total + 1);
    CHECK(d, "MPI_Iallgatherv",
          MPI_Iallgatherv(buf, mylen, MPI_BYTE, all, lens, offs, MPI_BYTE, MPI_COMM_WORLD, &rq));
    wait_req(d, "MPI_Iallgatherv", &rq);
    d->self.bytes_sent += (uint64_t)blen * (uint64_t)(d->size - 1) + sizeof mylen * (size_t)(d->size - 1);
    for (int r = 0; r < d->size; r++)
        if (r != d->rank) unpack_rank(l, all + offs[r], (size_t)lens[r]);
    free(all);
    free(buf);
    free(lens);
    free(offs);
}
#endif

void dist_loop_end(dist_loop_t *l)
{
    dist_t *d = l->d;
    if (d) {
        d->self.items += l->finished;
        d->self.work_seconds += l->tlast - l->t0;
    }
#ifdef Q2MAP_HAVE_MPI
    if (l->server_on) pthread_join(l->server, NULL);
    if (!solo(d)) {
        double t = time_now();
        exchange(l);
        d->self.comm_seconds += time_now() - t;
    }
#endif
    if (d && d->trace) {
        double now = time_now();
        /* the results as the ranks would send them (every item from one
         * rank): their bytes after zero-word elision, and the CPU time of
         * encoding and decoding them */
        long *all = q2_malloc(sizeof(long) * (size_t)(l->n + 1));
        for (long i = 0; i < l->n; i++) all[i] = i;
        size_t rawlen = 0;
        uint8_t *raw = pack_items(l, all, l->n, &rawlen);
        free(all);
        /* touched first: the exchange reuses its buffers from loop to loop */
        uint8_t *enc = q2_calloc(zw_bound(rawlen) + 1, 1), *dec = q2_calloc(rawlen + 1, 1);
        memset(enc, 1, zw_bound(rawlen));
        memset(dec, 1, rawlen);
        double c0 = os_cpu_thread_s();
        size_t enclen = zw_encode(raw, rawlen, enc);
        double c1 = os_cpu_thread_s();
        zw_decode(enc, enclen, dec, rawlen);
        double c2 = os_cpu_thread_s();
        free(raw);
        free(enc);
        free(dec);
        /* a loop on an earlier loop's items names it; a gather says so */
        char same[32] = "";
        if (l->same) snprintf(same, sizeof same, " same %d", l->same->loop);
        fprintf(d->trace, "loop %ld %.6f %zu%s%s%s raw=%zu enc=%.6f dec=%.6f\n", l->n, now - l->t0, enclen,
                l->spills ? " split" : "", same, l->to_root ? " root" : "", rawlen, c1 - c0, c2 - c1);
        for (long i = 0; i < l->n; i++) fprintf(d->trace, "%s%.7f", i ? " " : "", l->cost[i]);
        fputc('\n', d->trace);
        d->tmark = time_now();
        d->cpumark = os_cpu_process_s();
    }
    free(l->tstart);
    free(l->cost);
    pthread_mutex_destroy(&l->lock);
    free(l->blocks);
    free(l->root_items);
    free(l->contrib);
    for (int i = l->poolhead; i < l->npool; i++) free(l->pool[i].data);
    free(l->pool);
    free(l);
}

dist_items_t *dist_loop_items(const dist_loop_t *l)
{
    dist_t *d = l->d;
    dist_items_t *it = q2_calloc(1, sizeof *it);
    it->n = l->n;
    it->loop = l->index;
    it->items = q2_malloc(sizeof(long) * (size_t)(l->n + 1));
    if (l->same) {
        it->count = l->same->count;
        memcpy(it->items, l->same->items, sizeof(long) * (size_t)it->count);
    } else if (solo(d)) {
        for (long i = 0; i < l->n; i++) it->items[i] = i;
        it->count = l->n;
    } else if (d->rank == 0) {
        it->count = l->nroot;
        memcpy(it->items, l->root_items, sizeof(long) * (size_t)it->count);
#ifdef Q2MAP_HAVE_MPI
        qsort(it->items, (size_t)it->count, sizeof(long), cmp_long);
#endif
    } else {
        for (int b = 0; b < l->nblocks; b += 2)
            for (long i = l->blocks[b]; i < l->blocks[b + 1]; i++) it->items[it->count++] = i;
    }
    return it;
}

void dist_items_free(dist_items_t *it)
{
    if (!it) return;
    free(it->items);
    free(it);
}

dist_loop_t *dist_loop_begin_same(dist_t *d, const dist_items_t *it, const dist_codec_t *codec, void *ctx, bool to_root)
{
    dist_loop_t *l = q2_calloc(1, sizeof *l);
    l->d = d;
    l->n = it->n;
    l->codec = codec;
    l->ctx = ctx;
    l->same = it;
    l->to_root = to_root;
    pthread_mutex_init(&l->lock, NULL);
    l->t0 = l->tlast = time_now();
    l->index = d ? d->loops++ : 0;
    if (d && d->trace) {
        dist_trace_gap(d, l->t0);
        l->tstart = q2_calloc((size_t)l->n + 1, sizeof(double));
        l->cost = q2_calloc((size_t)l->n + 1, sizeof(double));
    }
    return l;
}

const dist_rank_stats_t *dist_collect(dist_t *d)
{
    free(d->all);
    d->all = NULL;
    trace_collective(d, sizeof d->self);
    if (d->rank == 0) d->all = q2_calloc((size_t)d->size, sizeof *d->all);
#ifdef Q2MAP_HAVE_MPI
    if (d->size > 1) {
        MPI_Request rq;
        CHECK(d, "MPI_Igather", MPI_Igather(&d->self, (int)sizeof d->self, MPI_BYTE, d->all, (int)sizeof d->self,
                                            MPI_BYTE, 0, MPI_COMM_WORLD, &rq));
        wait_req(d, "MPI_Igather", &rq);
        return d->all;
    }
#endif
    if (d->all) d->all[0] = d->self;
    return d->all;
}

void dist_log_summary(const dist_t *d, log_t *log)
{
    if (!d->all || !d->mpi) return;
    for (int r = 0; r < d->size; r++) {
        const dist_rank_stats_t *s = &d->all[r];
        log_info(log, "rank %d on %s: %d threads, %ld items, %.2f s working, %.2f s exchanging, %llu bytes sent", r,
                 s->host, s->threads, s->items, s->work_seconds, s->comm_seconds, (unsigned long long)s->bytes_sent);
    }
}

void dist_json(const dist_t *d, jsonw_t *w)
{
    if (!d->all || !d->mpi) return;
    uint64_t bytes = 0;
    for (int r = 0; r < d->size; r++) bytes += d->all[r].bytes_sent;
    jsonw_object_begin(w, "mpi");
    jsonw_int(w, "ranks", d->size);
    jsonw_int(w, "bytes_sent", (long long)bytes);
    jsonw_array_begin(w, "per_rank");
    for (int r = 0; r < d->size; r++) {
        const dist_rank_stats_t *s = &d->all[r];
        jsonw_object_begin(w, NULL);
        jsonw_int(w, "rank", r);
        jsonw_string(w, "host", s->host);
        jsonw_int(w, "threads", s->threads);
        jsonw_int(w, "items", s->items);
        jsonw_double(w, "work_seconds", s->work_seconds);
        jsonw_double(w, "comm_seconds", s->comm_seconds);
        jsonw_int(w, "bytes_sent", (long long)s->bytes_sent);
        jsonw_object_end(w);
    }
    jsonw_array_end(w);
    jsonw_object_end(w);
}
