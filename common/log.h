/* Logging with levels, an optional log file and a terminal progress display.
 *
 * A log_t is created by main() and passed down explicitly; library code that
 * has nothing to report takes a NULL log. Messages go to the streams main()
 * chose (normally stdout for information, stderr for warnings and errors) and
 * everything, verbose lines included, also goes to the log file when one is
 * open. Calls are safe from several threads: lines never interleave. */
#ifndef Q2M_LOG_H
#define Q2M_LOG_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"

typedef enum log_level_t {
    LOG_QUIET = 0,   /* warnings and errors only */
    LOG_NORMAL = 1,  /* plus stage summaries */
    LOG_VERBOSE = 2, /* plus details */
} log_level_t;

typedef struct log_t {
    log_level_t level;
    FILE *out;        /* information */
    FILE *err;        /* warnings and errors */
    FILE *file;       /* optional log file; receives every level */
    bool progress_on; /* draw progress bars (only when out is a terminal) */
    int warnings;     /* counts, for the final summary and -json */
    int errors;
    bool progress_line_open; /* a progress line is drawn and needs clearing */
} log_t;

/* progress_on is enabled only when `out` is a terminal and the level is not
 * LOG_QUIET. */
void log_init(log_t *log, log_level_t level, FILE *out, FILE *err);
bool log_open_file(log_t *log, const char *path, q2err_t *err);
void log_close(log_t *log);

void log_info(log_t *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_verbose(log_t *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_warn(log_t *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_error(log_t *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A progress display: "label: 42% (1234/2938) ETA 0:12". Updates are
 * rate-limited to a few per second; nothing is drawn when the log's
 * progress_on is false (pipes, CI logs). progress_update may be called from
 * any thread with a monotonically growing `done`. */
typedef struct progress_t {
    log_t *log;
    const char *label;
    long total;
    double start;
    double last_draw;
    int last_percent;
} progress_t;

void progress_begin(progress_t *p, log_t *log, const char *label, long total);
void progress_update(progress_t *p, long done);
void progress_end(progress_t *p);

#endif
