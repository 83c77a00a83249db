/* Errors as values. Library code never exits or prints: a function that can
 * fail takes a q2err_t * and returns false (or NULL) after filling it in;
 * main() decides what to print and which exit status to use. */
#ifndef Q2M_ERROR_H
#define Q2M_ERROR_H

#include <stdbool.h>

#define Q2ERR_MSG_MAX 1024

typedef struct q2err_t {
    char msg[Q2ERR_MSG_MAX]; /* full message, "path:line:col: text" */
    int line;                /* 0 when not tied to a line */
    int col;                 /* 0 when not tied to a column */
} q2err_t;

/* Fills *err (if err is not NULL) with "path:line:col: message" (parts that
 * are NULL or 0 are left out) and returns false so callers can write
 * `return q2err_set(err, path, line, col, "...")`. */
bool q2err_set(q2err_t *err, const char *path, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Prefixes an existing error with more context ("while reading X: ..."). */
bool q2err_wrap(q2err_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void q2err_clear(q2err_t *err);

#endif
