/* The tokenizer shared by the .map parser and the entity-lump parser.
 *
 * Tokens are separated by whitespace; `//` starts a comment to the end of
 * the line; "quoted strings" are one token (without the quotes; a quoted
 * string may not span lines); `{ } ( ) [ ]` are single-character tokens.
 * Every token records the line and column where it starts, so parse errors
 * can name file:line:col. */
#ifndef Q2M_LEXER_H
#define Q2M_LEXER_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/error.h"

#define LEXER_TOKEN_MAX 1024

typedef struct lexer_t {
    const char *text;
    size_t size;
    size_t pos;
    int line, col;
    size_t line_start; /* offset of the first byte of the current line */
    const char *name;  /* file name for errors */
    /* The current token. */
    char token[LEXER_TOKEN_MAX + 1];
    size_t token_len;
    bool quoted;
    int tok_line, tok_col;
    /* A token pushed back by lexer_unget. */
    bool have_unget;
} lexer_t;

void lexer_init(lexer_t *lx, const char *text, size_t size, const char *name);

/* Reads the next token. Returns false at end of input (err untouched) or on
 * a malformed token such as an unterminated string or an over-long token (err
 * set; check err->msg[0]). */
bool lexer_next(lexer_t *lx, q2err_t *err);
/* Makes the next lexer_next return the current token again. */
void lexer_unget(lexer_t *lx);

/* True if the current token is the unquoted punctuation or word `s`. */
bool lexer_is(const lexer_t *lx, const char *s);

/* Reads the next token and checks it is `s`; the error says what was
 * expected and what was found, with file:line:col. */
bool lexer_expect(lexer_t *lx, const char *s, q2err_t *err);

/* Reads the next token as a finite number (integer or float, with optional
 * exponent). `what` names the value in the error ("x coordinate"). */
bool lexer_number(lexer_t *lx, double *out, const char *what, q2err_t *err);
/* lexer_number's common case alone: a plain decimal that converts exactly,
 * taken as the next token; false, with nothing taken and no error, for
 * anything else (the caller then calls lexer_number, which names what it
 * expected: a reader of many numbers formats that name only then). */
bool lexer_try_number(lexer_t *lx, double *out);

/* The exact part of lexer_number's conversion: a plain decimal ("-12",
 * "0.125", "5.", ".5", "1.5e3") whose digits fit in 2^53 and whose power of
 * ten is at most 22 is one correctly rounded multiplication or division, so
 * the result equals strtod's. Returns false, leaving *out alone, for
 * anything else (more digits, larger exponents, hex, inf/nan, junk), which
 * lexer_number hands to strtod. Exposed for the tests. */
bool lexer_fast_decimal(const char *s, size_t len, double *out);

/* Reads the next token as an integer in [INT32_MIN, INT32_MAX]. */
bool lexer_int(lexer_t *lx, int *out, const char *what, q2err_t *err);

/* True if the next token (without consuming it) is on the same line as the
 * current one; used for optional trailing fields. */
bool lexer_more_on_line(lexer_t *lx);

/* Sets err to "name:line:col: msg" at the current token. */
bool lexer_error(const lexer_t *lx, q2err_t *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
