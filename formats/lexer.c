#include "lexer.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lexer_init(lexer_t *lx, const char *text, size_t size, const char *name)
{
    memset(lx, 0, sizeof *lx);
    lx->text = text;
    lx->size = size;
    lx->line = 1;
    lx->col = 1;
    lx->name = name;
}

static int peekc(const lexer_t *lx, size_t ahead)
{
    return lx->pos + ahead < lx->size ? (unsigned char)lx->text[lx->pos + ahead] : -1;
}

static void advance(lexer_t *lx)
{
    if (lx->text[lx->pos] == '\n') {
        lx->line++;
        lx->col = 1;
    } else {
        lx->col++;
    }
    lx->pos++;
}

bool lexer_error(const lexer_t *lx, q2err_t *err, const char *fmt, ...)
{
    char buf[Q2ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return q2err_set(err, lx->name, lx->tok_line ? lx->tok_line : lx->line, lx->tok_line ? lx->tok_col : lx->col,
                     "%s", buf);
}

static void skip_space(lexer_t *lx)
{
    for (;;) {
        int c = peekc(lx, 0);
        if (c < 0) return;
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v' || c == 0) {
            advance(lx);
        } else if (c == '/' && peekc(lx, 1) == '/') {
            while (peekc(lx, 0) >= 0 && peekc(lx, 0) != '\n') advance(lx);
        } else {
            return;
        }
    }
}

bool lexer_next(lexer_t *lx, q2err_t *err)
{
    if (err) err->msg[0] = 0;
    if (lx->have_unget) {
        lx->have_unget = false;
        return true;
    }
    skip_space(lx);
    lx->quoted = false;
    lx->token[0] = 0;
    lx->tok_line = lx->line;
    lx->tok_col = lx->col;
    int c = peekc(lx, 0);
    if (c < 0) return false;
    size_t n = 0;
    if (c == '"') {
        lx->quoted = true;
        advance(lx);
        for (;;) {
            c = peekc(lx, 0);
            if (c < 0 || c == '\n') return lexer_error(lx, err, "unterminated quoted string");
            advance(lx);
            if (c == '"') break;
            if (n >= LEXER_TOKEN_MAX) return lexer_error(lx, err, "string longer than %d characters", LEXER_TOKEN_MAX);
            lx->token[n++] = (char)c;
        }
        lx->token[n] = 0;
        return true;
    }
    if (strchr("{}()[]", c)) {
        lx->token[0] = (char)c;
        lx->token[1] = 0;
        advance(lx);
        return true;
    }
    for (;;) {
        c = peekc(lx, 0);
        if (c < 0 || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v' || c == 0 ||
            strchr("{}()[]\"", c) || (c == '/' && peekc(lx, 1) == '/'))
            break;
        if (n >= LEXER_TOKEN_MAX) return lexer_error(lx, err, "token longer than %d characters", LEXER_TOKEN_MAX);
        lx->token[n++] = (char)c;
        advance(lx);
    }
    lx->token[n] = 0;
    return true;
}

void lexer_unget(lexer_t *lx) { lx->have_unget = true; }

bool lexer_is(const lexer_t *lx, const char *s) { return !lx->quoted && strcmp(lx->token, s) == 0; }

bool lexer_expect(lexer_t *lx, const char *s, q2err_t *err)
{
    if (!lexer_next(lx, err)) {
        if (err && err->msg[0]) return false;
        return lexer_error(lx, err, "expected '%s' but the file ended", s);
    }
    if (!lexer_is(lx, s)) return lexer_error(lx, err, "expected '%s' but found '%s'", s, lx->token);
    return true;
}

bool lexer_number(lexer_t *lx, double *out, const char *what, q2err_t *err)
{
    if (!lexer_next(lx, err)) {
        if (err && err->msg[0]) return false;
        return lexer_error(lx, err, "expected %s but the file ended", what);
    }
    char *end;
    errno = 0;
    double v = strtod(lx->token, &end);
    if (lx->quoted || end == lx->token || *end != 0)
        return lexer_error(lx, err, "expected %s (a number) but found '%s'", what, lx->token);
    /* strtod accepts "nan" and "inf": geometry must be finite. */
    if (!isfinite(v) || errno == ERANGE) return lexer_error(lx, err, "%s '%s' is not a finite number", what, lx->token);
    *out = v;
    return true;
}

bool lexer_int(lexer_t *lx, int *out, const char *what, q2err_t *err)
{
    if (!lexer_next(lx, err)) {
        if (err && err->msg[0]) return false;
        return lexer_error(lx, err, "expected %s but the file ended", what);
    }
    char *end;
    errno = 0;
    long long v = strtoll(lx->token, &end, 10);
    if (lx->quoted || end == lx->token || *end != 0) {
        /* Some editors write flags as floats ("0.000000"); accept integral
         * values. */
        double d = strtod(lx->token, &end);
        if (!lx->quoted && end != lx->token && *end == 0 && isfinite(d) && d == floor(d) && d >= INT_MIN &&
            d <= INT_MAX) {
            *out = (int)d;
            return true;
        }
        return lexer_error(lx, err, "expected %s (an integer) but found '%s'", what, lx->token);
    }
    if (errno == ERANGE || v < INT_MIN || v > (long long)UINT_MAX)
        return lexer_error(lx, err, "%s '%s' is out of range", what, lx->token);
    /* Values up to UINT_MAX are flag words written unsigned. */
    *out = (int)(unsigned int)v;
    return true;
}

bool lexer_more_on_line(lexer_t *lx)
{
    if (lx->have_unget) return true;
    size_t p = lx->pos;
    while (p < lx->size) {
        char c = lx->text[p];
        if (c == '\n') return false;
        if (c == '/' && p + 1 < lx->size && lx->text[p + 1] == '/') return false;
        if (c != ' ' && c != '\t' && c != '\r') return true;
        p++;
    }
    return false;
}
