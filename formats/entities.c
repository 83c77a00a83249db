#include "entities.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "q2defs.h"

static void pair_push(entity_t *e, const char *key, const char *value, int line)
{
    epair_t p = {q2_strdup(key), q2_strdup(value), line};
    ARRAY_PUSH(e->pairs, e->numpairs, e->cap, p);
}

bool entity_parse_pairs(lexer_t *lx, entity_t *e, q2err_t *err)
{
    char key[LEXER_TOKEN_MAX + 1];
    for (;;) {
        if (!lexer_next(lx, err)) {
            if (err && err->msg[0]) return false;
            return lexer_error(lx, err, "expected a key or '}' but the file ended");
        }
        if (!lx->quoted) {
            lexer_unget(lx);
            return true;
        }
        /* The engine copies keys and values into fixed buffers of MAX_KEY and
         * MAX_VALUE bytes (NUL included); longer ones would be cut there, so
         * they are refused here where the line is still known. */
        if (strlen(lx->token) > MAX_KEY - 1)
            return lexer_error(lx, err, "key '%.40s...' is longer than %d characters", lx->token, MAX_KEY - 1);
        memcpy(key, lx->token, strlen(lx->token) + 1);
        int line = lx->tok_line;
        if (!lexer_next(lx, err)) {
            if (err && err->msg[0]) return false;
            return lexer_error(lx, err, "key '%s' has no value (the file ended)", key);
        }
        if (!lx->quoted) return lexer_error(lx, err, "key '%s' has no quoted value (found '%s')", key, lx->token);
        if (strlen(lx->token) > MAX_VALUE - 1)
            return lexer_error(lx, err, "value of key '%s' is longer than %d characters", key, MAX_VALUE - 1);
        pair_push(e, key, lx->token, line);
    }
}

bool entities_parse(const char *text, const char *name, entity_list_t *out, q2err_t *err)
{
    memset(out, 0, sizeof *out);
    lexer_t *lx = q2_malloc(sizeof *lx);
    lexer_init(lx, text, text ? strlen(text) : 0, name);
    q2err_t local;
    if (!err) err = &local;
    for (;;) {
        if (!lexer_next(lx, err)) {
            if (err->msg[0]) goto fail;
            break;
        }
        if (!lexer_is(lx, "{")) {
            lexer_error(lx, err, "expected '{' to start an entity but found '%s'", lx->token);
            goto fail;
        }
        entity_t e = {0};
        e.line = lx->tok_line;
        if (!entity_parse_pairs(lx, &e, err) || !lexer_expect(lx, "}", err)) {
            entity_free(&e);
            goto fail;
        }
        ARRAY_PUSH(out->ents, out->count, out->cap, e);
    }
    free(lx);
    return true;
fail:
    free(lx);
    entities_free(out);
    return false;
}

typedef struct strbuf_t {
    char *s;
    size_t len, cap;
} strbuf_t;

static void sb_add(strbuf_t *b, const char *s)
{
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (b->len + n + 1 > cap) cap *= 2;
        b->s = q2_realloc(b->s, cap);
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

char *entities_unparse(const entity_list_t *list)
{
    strbuf_t b = {0};
    sb_add(&b, "");
    for (int i = 0; i < list->count; i++) {
        const entity_t *e = &list->ents[i];
        sb_add(&b, "{\n");
        for (int j = 0; j < e->numpairs; j++) {
            sb_add(&b, "\"");
            sb_add(&b, e->pairs[j].key);
            sb_add(&b, "\" \"");
            sb_add(&b, e->pairs[j].value);
            sb_add(&b, "\"\n");
        }
        sb_add(&b, "}\n");
    }
    return b.s;
}

void entity_free(entity_t *e)
{
    for (int i = 0; i < e->numpairs; i++) {
        free(e->pairs[i].key);
        free(e->pairs[i].value);
    }
    free(e->pairs);
    e->pairs = NULL;
    e->numpairs = e->cap = 0;
}

void entities_free(entity_list_t *list)
{
    for (int i = 0; i < list->count; i++) entity_free(&list->ents[i]);
    free(list->ents);
    list->ents = NULL;
    list->count = list->cap = 0;
}

static int find_last(const entity_t *e, const char *key)
{
    for (int i = e->numpairs - 1; i >= 0; i--)
        if (strcmp(e->pairs[i].key, key) == 0) return i;
    return -1;
}

const char *entity_get(const entity_t *e, const char *key)
{
    int i = find_last(e, key);
    return i >= 0 ? e->pairs[i].value : NULL;
}

double entity_get_float(const entity_t *e, const char *key, double dflt)
{
    const char *v = entity_get(e, key);
    if (!v) return dflt;
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    /* Quake's atof reads a leading number and ignores the rest, so "300 "
     * or "1.5x" still count; an empty or non-numeric value takes the
     * default rather than silently becoming 0. */
    if (end == v || !isfinite(d) || errno == ERANGE) return dflt;
    return d;
}

bool entity_get_vec3(const entity_t *e, const char *key, vec3_t *out)
{
    const char *v = entity_get(e, key);
    if (!v) return false;
    double tmp[3];
    const char *p = v;
    for (int i = 0; i < 3; i++) {
        char *end;
        errno = 0;
        tmp[i] = strtod(p, &end);
        if (end == p || !isfinite(tmp[i]) || errno == ERANGE) return false;
        p = end;
    }
    while (*p == ' ' || *p == '\t') p++;
    if (*p) return false;
    out->x = tmp[0];
    out->y = tmp[1];
    out->z = tmp[2];
    return true;
}

void entity_set(entity_t *e, const char *key, const char *value)
{
    int i = find_last(e, key);
    if (i >= 0) {
        char *v = q2_strdup(value);
        free(e->pairs[i].value);
        e->pairs[i].value = v;
        return;
    }
    pair_push(e, key, value, 0);
}

void entity_remove(entity_t *e, const char *key)
{
    int w = 0;
    for (int i = 0; i < e->numpairs; i++) {
        if (strcmp(e->pairs[i].key, key) == 0) {
            free(e->pairs[i].key);
            free(e->pairs[i].value);
        } else {
            e->pairs[w++] = e->pairs[i];
        }
    }
    e->numpairs = w;
}

const char *entity_classname(const entity_t *e)
{
    const char *c = entity_get(e, "classname");
    return c ? c : "";
}
