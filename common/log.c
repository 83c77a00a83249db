#include "log.h"

#include <stdarg.h>
#include <string.h>

#include "os.h"
#include "timer.h"

void log_init(log_t *log, log_level_t level, FILE *out, FILE *err)
{
    memset(log, 0, sizeof *log);
    log->level = level;
    log->out = out;
    log->err = err;
    log->progress_on = out && level != LOG_QUIET && os_is_console(out);
}

bool log_open_file(log_t *log, const char *path, q2err_t *err)
{
    FILE *f = os_fopen(path, "w");
    if (!f) return q2err_set(err, path, 0, 0, "cannot open log file for writing");
    log->file = f;
    return true;
}

void log_close(log_t *log)
{
    if (log && log->file) {
        fclose(log->file);
        log->file = NULL;
    }
}

static void clear_progress(log_t *log)
{
    if (log->progress_line_open) {
        fputs("\r\033[K", log->out);
        log->progress_line_open = false;
    }
}

static void emit(log_t *log, FILE *stream, const char *prefix, const char *fmt, va_list ap)
{
    char buf[4096];
    vsnprintf(buf, sizeof buf, fmt, ap);
    size_t n = strlen(buf);
    const char *nl = (n > 0 && buf[n - 1] == '\n') ? "" : "\n";
#pragma omp critical(q2m_log)
    {
        if (stream) {
            clear_progress(log);
            fprintf(stream, "%s%s%s", prefix, buf, nl);
            fflush(stream);
        }
        if (log->file) {
            fprintf(log->file, "%s%s%s", prefix, buf, nl);
            fflush(log->file);
        }
    }
}

#define LOG_BODY(stream, prefix)              \
    if (!log) return;                         \
    va_list ap;                               \
    va_start(ap, fmt);                        \
    emit(log, stream, prefix, fmt, ap);       \
    va_end(ap)

void log_info(log_t *log, const char *fmt, ...)
{
    if (!log) return;
    LOG_BODY(log->level >= LOG_NORMAL ? log->out : NULL, "");
}

void log_verbose(log_t *log, const char *fmt, ...)
{
    if (!log) return;
    LOG_BODY(log->level >= LOG_VERBOSE ? log->out : NULL, "");
}

void log_warn(log_t *log, const char *fmt, ...)
{
    if (!log) return;
#pragma omp atomic
    log->warnings++;
    LOG_BODY(log->err, "warning: ");
}

void log_error(log_t *log, const char *fmt, ...)
{
    if (!log) return;
#pragma omp atomic
    log->errors++;
    LOG_BODY(log->err, "error: ");
}

void progress_begin(progress_t *p, log_t *log, const char *label, long total)
{
    p->log = log;
    p->label = label;
    p->total = total > 0 ? total : 1;
    p->start = time_now();
    p->last_draw = 0;
    p->last_percent = -1;
}

void progress_update(progress_t *p, long done)
{
    log_t *log = p->log;
    if (!log || !log->progress_on) return;
    double now = time_now();
    int percent = (int)(100.0 * (double)done / (double)p->total);
    if (percent > 100) percent = 100;
    if (percent == p->last_percent || now - p->last_draw < 0.2) return;
#pragma omp critical(q2m_log)
    {
        if (percent != p->last_percent && now - p->last_draw >= 0.2) {
            p->last_percent = percent;
            p->last_draw = now;
            double elapsed = now - p->start;
            double eta = done > 0 ? elapsed * (double)(p->total - done) / (double)done : 0.0;
            int es = (int)(eta + 0.5);
            fprintf(log->out, "\r\033[K%s: %3d%% (%ld/%ld) ETA %d:%02d", p->label, percent, done, p->total,
                    es / 60, es % 60);
            fflush(log->out);
            log->progress_line_open = true;
        }
    }
}

void progress_end(progress_t *p)
{
    log_t *log = p->log;
    if (!log || !log->progress_on) return;
#pragma omp critical(q2m_log)
    {
        clear_progress(log);
        fflush(log->out);
    }
}
