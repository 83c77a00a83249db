#include "lexer.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Character classes, so that the scanning loops test one table entry per
 * byte instead of a chain of comparisons or a strchr call. */
enum {
    LX_SPACE = 1, /* separates tokens; NUL counts as space */
    LX_PUNCT = 2, /* a token of its own */
    LX_QUOTE = 4,
    LX_SLASH = 8, /* a comment starts when two follow each other */
    LX_DIGIT = 16,
};

static const unsigned char k_class[256] = {
    [0] = LX_SPACE,    [' '] = LX_SPACE,  ['\t'] = LX_SPACE, ['\r'] = LX_SPACE, ['\n'] = LX_SPACE,
    ['\f'] = LX_SPACE, ['\v'] = LX_SPACE, ['{'] = LX_PUNCT,  ['}'] = LX_PUNCT,  ['('] = LX_PUNCT,
    [')'] = LX_PUNCT,  ['['] = LX_PUNCT,  [']'] = LX_PUNCT,  ['"'] = LX_QUOTE,  ['/'] = LX_SLASH,
    ['0'] = LX_DIGIT,  ['1'] = LX_DIGIT,  ['2'] = LX_DIGIT,  ['3'] = LX_DIGIT,  ['4'] = LX_DIGIT,
    ['5'] = LX_DIGIT,  ['6'] = LX_DIGIT,  ['7'] = LX_DIGIT,  ['8'] = LX_DIGIT,  ['9'] = LX_DIGIT,
};

void lexer_init(lexer_t *lx, const char *text, size_t size, const char *name)
{
    memset(lx, 0, sizeof *lx);
    lx->text = text;
    lx->size = size;
    lx->line = 1;
    lx->col = 1;
    lx->name = name;
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

/* The column is the byte offset within the line, counted from 1 (a tab is
 * one column), so it follows from where the line starts. */
static void set_pos(lexer_t *lx, size_t pos)
{
    lx->pos = pos;
    lx->col = (int)(pos - lx->line_start) + 1;
}

/* Skips whitespace and comments from lx->pos, counting lines; returns the
 * offset of the next token (lx->size at the end). */
static inline size_t skip_space(lexer_t *lx)
{
    const unsigned char *t = (const unsigned char *)lx->text;
    const size_t n = lx->size;
    size_t p = lx->pos;
    for (;;) {
        while (p < n && (k_class[t[p]] & LX_SPACE)) {
            if (t[p] == '\n') {
                lx->line++;
                lx->line_start = p + 1;
            }
            p++;
        }
        if (p + 1 < n && t[p] == '/' && t[p + 1] == '/') {
            /* The newline itself is left to the loop above, which counts it. */
            const void *eol = memchr(t + p, '\n', n - p);
            p = eol ? (size_t)((const unsigned char *)eol - t) : n;
            continue;
        }
        return p;
    }
}

/* True if a word token ends at offset p. */
static inline bool word_ends(const lexer_t *lx, size_t p)
{
    const unsigned char *t = (const unsigned char *)lx->text;
    if (p >= lx->size || (k_class[t[p]] & (LX_SPACE | LX_PUNCT | LX_QUOTE))) return true;
    return t[p] == '/' && p + 1 < lx->size && t[p + 1] == '/';
}

/* Makes [start, end) the current unquoted token, ending at `end`. */
static inline void set_word(lexer_t *lx, size_t start, size_t end)
{
    size_t len = end - start;
    /* Most tokens are short: a fixed 16-byte copy (bytes past the token
     * are overwritten by the terminator or ignored) needs no library call. */
    if (len < 16 && lx->size - start >= 16)
        memcpy(lx->token, lx->text + start, 16);
    else
        memcpy(lx->token, lx->text + start, len);
    lx->token[len] = 0;
    lx->token_len = len;
    lx->quoted = false;
    set_pos(lx, end);
}

bool lexer_next(lexer_t *lx, q2err_t *err)
{
    if (err) err->msg[0] = 0;
    if (lx->have_unget) {
        lx->have_unget = false;
        return true;
    }
    const unsigned char *t = (const unsigned char *)lx->text;
    const size_t n = lx->size;
    size_t p = skip_space(lx);
    set_pos(lx, p);
    lx->quoted = false;
    lx->token[0] = 0;
    lx->token_len = 0;
    lx->tok_line = lx->line;
    lx->tok_col = lx->col;
    if (p >= n) return false;
    unsigned char cls = k_class[t[p]];
    size_t start, len;
    if (cls & LX_QUOTE) {
        lx->quoted = true;
        start = p + 1;
        size_t e = start;
        while (e < n && t[e] != '"' && t[e] != '\n') e++;
        len = e - start;
        /* The length is checked first: a string that is both too long and
         * unterminated is reported as too long, as a scan that stops at the
         * first character past the limit does. */
        if (len > LEXER_TOKEN_MAX) {
            set_pos(lx, start + LEXER_TOKEN_MAX);
            return lexer_error(lx, err, "string longer than %d characters", LEXER_TOKEN_MAX);
        }
        if (e >= n || t[e] != '"') {
            set_pos(lx, e);
            return lexer_error(lx, err, "unterminated quoted string");
        }
        set_pos(lx, e + 1);
    } else if (cls & LX_PUNCT) {
        lx->token[0] = (char)t[p];
        lx->token[1] = 0;
        lx->token_len = 1;
        set_pos(lx, p + 1);
        return true;
    } else {
        start = p;
        for (;;) {
            while (p < n && !(k_class[t[p]] & (LX_SPACE | LX_PUNCT | LX_QUOTE | LX_SLASH))) p++;
            if (word_ends(lx, p)) break;
            p++; /* a single '/' inside a word */
        }
        if (p - start > LEXER_TOKEN_MAX) {
            set_pos(lx, start + LEXER_TOKEN_MAX);
            return lexer_error(lx, err, "token longer than %d characters", LEXER_TOKEN_MAX);
        }
        set_word(lx, start, p);
        return true;
    }
    memcpy(lx->token, t + start, len);
    lx->token[len] = 0;
    lx->token_len = len;
    return true;
}

void lexer_unget(lexer_t *lx) { lx->have_unget = true; }

bool lexer_is(const lexer_t *lx, const char *s)
{
    if (lx->quoted || lx->token[0] != s[0]) return false;
    if (s[0] == 0) return true;
    if (s[1] == 0) return lx->token[1] == 0; /* punctuation: no strcmp call */
    return strcmp(lx->token + 1, s + 1) == 0;
}

bool lexer_expect(lexer_t *lx, const char *s, q2err_t *err)
{
    if (!lexer_next(lx, err)) {
        if (err && err->msg[0]) return false;
        return lexer_error(lx, err, "expected '%s' but the file ended", s);
    }
    if (!lexer_is(lx, s)) return lexer_error(lx, err, "expected '%s' but found '%s'", s, lx->token);
    return true;
}

/* Every power of ten up to 1e22 is exactly representable in a double
 * (5^22 < 2^53), so each literal here is the exact value. */
static const double k_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Converts the plain decimal at the start of [p, end) when the conversion
 * is exact (see lexer_fast_decimal) and returns where it stopped, or NULL
 * when there is no such number there. The caller bounds end - p, which
 * keeps the digit counts in int range. */
static inline const unsigned char *decimal_prefix(const unsigned char *p, const unsigned char *end, double *out)
{
    bool neg = false;
    if (p < end && (*p == '-' || *p == '+')) {
        neg = *p == '-';
        p++;
    }
    /* Leading zeros carry no significant digit; more than 19 significant
     * digits may wrap m, but such input is rejected below before m is used. */
    const unsigned char *d0 = p;
    while (p < end && *p == '0') p++;
    const unsigned char *s0 = p;
    uint64_t m = 0;
    unsigned d;
    while (p < end && (d = (unsigned)*p - '0') < 10) {
        m = m * 10 + d;
        p++;
    }
    int sig = (int)(p - s0);
    int digits = (int)(p - d0);
    int exp10 = 0; /* value = m * 10^exp10 */
    if (p < end && *p == '.') {
        const unsigned char *f0 = ++p;
        if (m == 0)
            while (p < end && *p == '0') p++;
        const unsigned char *f1 = p;
        while (p < end && (d = (unsigned)*p - '0') < 10) {
            m = m * 10 + d;
            p++;
        }
        sig += (int)(p - f1);
        digits += (int)(p - f0);
        exp10 = -(int)(p - f0);
    }
    if (digits == 0 || sig > 19) return NULL;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        bool eneg = false;
        if (p < end && (*p == '-' || *p == '+')) {
            eneg = *p == '-';
            p++;
        }
        const unsigned char *e0 = p;
        int e = 0;
        while (p < end && (d = (unsigned)*p - '0') < 10) {
            if (e > 10000) return NULL; /* far outside the fast range anyway */
            e = e * 10 + (int)d;
            p++;
        }
        if (p == e0) return NULL; /* "1e" is not a number strtod reads whole */
        exp10 += eneg ? -e : e;
    }
    /* Exactly representable mantissa and power: the one operation below is
     * correctly rounded, as strtod's result is. */
    if (m > ((uint64_t)1 << 53) || exp10 < -22 || exp10 > 22) return NULL;
    double v = (double)m;
    if (exp10 > 0)
        v *= k_pow10[exp10];
    else if (exp10 < 0)
        v /= k_pow10[-exp10];
    *out = neg ? -v : v;
    return p;
}

bool lexer_fast_decimal(const char *s, size_t len, double *out)
{
    /* Longer strings never take the fast path (at most 19 significant
     * digits). */
    if (len > 4096) return false;
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    double v = 0;
    const unsigned char *stop = decimal_prefix(p, end, &v);
    if (!stop || stop != end) return false;
    *out = v;
    return true;
}

bool lexer_try_number(lexer_t *lx, double *out)
{
    if (lx->have_unget) return false;
    size_t p = skip_space(lx);
    set_pos(lx, p);
    const unsigned char *t = (const unsigned char *)lx->text;
    size_t lim = lx->size - p > LEXER_TOKEN_MAX ? p + LEXER_TOKEN_MAX : lx->size;
    double v = 0;
    const unsigned char *e = p < lx->size ? decimal_prefix(t + p, t + lim, &v) : NULL;
    if (!e || !word_ends(lx, (size_t)(e - t))) return false;
    lx->tok_line = lx->line;
    lx->tok_col = lx->col;
    set_word(lx, p, (size_t)(e - t));
    *out = v;
    return true;
}

bool lexer_number(lexer_t *lx, double *out, const char *what, q2err_t *err)
{
    /* The common case, a plain decimal, is converted while it is scanned;
     * anything else (a pushed-back token, a word, an inexact number) goes
     * through lexer_next and strtod. */
    if (lexer_try_number(lx, out)) {
        if (err) err->msg[0] = 0;
        return true;
    }
    if (!lexer_next(lx, err)) {
        if (err && err->msg[0]) return false;
        return lexer_error(lx, err, "expected %s but the file ended", what);
    }
    if (!lx->quoted && lexer_fast_decimal(lx->token, lx->token_len, out)) return true;
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
    /* Plain decimal integers of up to 18 digits (no overflow possible) are
     * converted here; anything else takes the strtoll path below, which
     * gives the same value for these. */
    if (!lx->quoted) {
        const char *p = lx->token, *end = p + lx->token_len;
        bool neg = *p == '-';
        if (*p == '-' || *p == '+') p++;
        if (p < end && end - p <= 18) {
            long long v = 0;
            while (p < end && (k_class[(unsigned char)*p] & LX_DIGIT)) v = v * 10 + (*p++ - '0');
            if (p == end) {
                if (neg) v = -v;
                if (v < INT_MIN || v > (long long)UINT_MAX)
                    return lexer_error(lx, err, "%s '%s' is out of range", what, lx->token);
                *out = (int)(unsigned int)v;
                return true;
            }
        }
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
