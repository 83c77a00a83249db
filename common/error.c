#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool q2err_set(q2err_t *err, const char *path, int line, int col, const char *fmt, ...)
{
    if (!err) return false;
    size_t n = 0;
    err->line = line;
    err->col = col;
    err->msg[0] = '\0';
    if (path && *path) {
        if (line > 0 && col > 0)
            n = (size_t)snprintf(err->msg, sizeof err->msg, "%s:%d:%d: ", path, line, col);
        else if (line > 0)
            n = (size_t)snprintf(err->msg, sizeof err->msg, "%s:%d: ", path, line);
        else
            n = (size_t)snprintf(err->msg, sizeof err->msg, "%s: ", path);
        if (n >= sizeof err->msg) n = sizeof err->msg - 1;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg + n, sizeof err->msg - n, fmt, ap);
    va_end(ap);
    return false;
}

bool q2err_wrap(q2err_t *err, const char *fmt, ...)
{
    if (!err) return false;
    char prefix[Q2ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    char old[Q2ERR_MSG_MAX];
    memcpy(old, err->msg, sizeof old);
    size_t n = strlen(prefix);
    if (n > sizeof err->msg - 3) n = sizeof err->msg - 3;
    memcpy(err->msg, prefix, n);
    err->msg[n] = ':';
    err->msg[n + 1] = ' ';
    size_t rest = sizeof err->msg - (n + 2) - 1;
    size_t ol = strnlen(old, rest);
    memcpy(err->msg + n + 2, old, ol);
    err->msg[n + 2 + ol] = 0;
    return false;
}

void q2err_clear(q2err_t *err)
{
    if (!err) return;
    err->msg[0] = '\0';
    err->line = err->col = 0;
}
