/* A small streaming JSON writer for -json reports (stage timings, counts).
 * Output is deterministic: keys are written in call order, doubles with a
 * fixed precision. */
#ifndef Q2M_JSONW_H
#define Q2M_JSONW_H

#include <stdbool.h>
#include <stdio.h>

#define JSONW_DEPTH 32

typedef struct jsonw_t {
    FILE *f;
    int depth;
    bool need_comma[JSONW_DEPTH];
} jsonw_t;

void jsonw_init(jsonw_t *w, FILE *f);
/* key may be NULL inside arrays and at the top level. */
void jsonw_object_begin(jsonw_t *w, const char *key);
void jsonw_object_end(jsonw_t *w);
void jsonw_array_begin(jsonw_t *w, const char *key);
void jsonw_array_end(jsonw_t *w);
void jsonw_int(jsonw_t *w, const char *key, long long v);
void jsonw_double(jsonw_t *w, const char *key, double v);
void jsonw_bool(jsonw_t *w, const char *key, bool v);
void jsonw_string(jsonw_t *w, const char *key, const char *s);

#endif
