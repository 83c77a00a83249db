#include "jsonw.h"

#include <math.h>

void jsonw_init(jsonw_t *w, FILE *f)
{
    w->f = f;
    w->depth = 0;
    w->need_comma[0] = false;
}

static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void prefix(jsonw_t *w, const char *key)
{
    if (w->need_comma[w->depth]) fputc(',', w->f);
    w->need_comma[w->depth] = true;
    if (w->depth > 0) {
        fputc('\n', w->f);
        for (int i = 0; i < w->depth; i++) fputs("  ", w->f);
    }
    if (key) {
        put_string(w->f, key);
        fputs(": ", w->f);
    }
}

static void open(jsonw_t *w, const char *key, char c)
{
    prefix(w, key);
    fputc(c, w->f);
    if (w->depth + 1 < JSONW_DEPTH) w->depth++;
    w->need_comma[w->depth] = false;
}

static void close(jsonw_t *w, char c)
{
    bool had = w->need_comma[w->depth];
    if (w->depth > 0) w->depth--;
    if (had) {
        fputc('\n', w->f);
        for (int i = 0; i < w->depth; i++) fputs("  ", w->f);
    }
    fputc(c, w->f);
    if (w->depth == 0) fputc('\n', w->f);
}

void jsonw_object_begin(jsonw_t *w, const char *key) { open(w, key, '{'); }
void jsonw_object_end(jsonw_t *w) { close(w, '}'); }
void jsonw_array_begin(jsonw_t *w, const char *key) { open(w, key, '['); }
void jsonw_array_end(jsonw_t *w) { close(w, ']'); }

void jsonw_int(jsonw_t *w, const char *key, long long v)
{
    prefix(w, key);
    fprintf(w->f, "%lld", v);
}

void jsonw_double(jsonw_t *w, const char *key, double v)
{
    prefix(w, key);
    if (isfinite(v))
        fprintf(w->f, "%.6g", v);
    else
        fputs("null", w->f);
}

void jsonw_bool(jsonw_t *w, const char *key, bool v)
{
    prefix(w, key);
    fputs(v ? "true" : "false", w->f);
}

void jsonw_string(jsonw_t *w, const char *key, const char *s)
{
    prefix(w, key);
    put_string(w->f, s ? s : "");
}
