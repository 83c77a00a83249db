/* Entity keys as qrad reads them: numbers, integers and colours with their
 * range checked. A value that is not what the key expects (a word for a
 * number, a negative scale, an angle out of range, a mask that is not an
 * integer) is a warning naming the entity, the key and its line in the
 * entity lump, and the key's default is used: a map is never lit with a NaN
 * or a value the formulas were not made for. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "qrad.h"

const entity_t *qrad_worldspawn(const qrad_t *q)
{
    for (int i = 0; i < q->ents.count; i++)
        if (!strcmp(entity_classname(&q->ents.ents[i]), "worldspawn")) return &q->ents.ents[i];
    return NULL;
}

int qrad_key_line(const entity_t *e, const char *key)
{
    for (int i = e->numpairs - 1; i >= 0; i--)
        if (!strcmp(e->pairs[i].key, key)) return e->pairs[i].line ? e->pairs[i].line : e->line;
    return e->line;
}

/* -1 for entities outside the entity lump (qbsp's Q2MAP_GROUPKEYS sets). */
static int entity_index(const qrad_t *q, const entity_t *e)
{
    for (int i = 0; i < q->ents.count; i++)
        if (&q->ents.ents[i] == e) return i;
    return -1;
}

static void warn_bad(const qrad_t *q, const entity_t *e, const char *key, const char *val, const char *want,
                     double dflt)
{
    log_warn(q->log, "entity %d (%s, line %d): \"%s\" \"%s\" is not %s; using %g", entity_index(q, e),
             entity_classname(e), qrad_key_line(e, key), key, val, want, dflt);
}

/* A leading number, then only blanks (Quake's atof would take "1.5x" too,
 * but for keys qrad newly reads, trailing junk is more likely a typo). */
static bool parse_double(const char *v, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || !isfinite(d) || errno == ERANGE) return false;
    while (*end == ' ' || *end == '\t') end++;
    if (*end) return false;
    *out = d;
    return true;
}

double qrad_key_float(const qrad_t *q, const entity_t *e, const char *key, double dflt, double lo, double hi)
{
    const char *v = entity_get(e, key);
    if (!v) return dflt;
    double d;
    char want[96];
    snprintf(want, sizeof want, "a number in %g..%g", lo, hi);
    if (!parse_double(v, &d) || d < lo || d > hi) {
        warn_bad(q, e, key, v, want, dflt);
        return dflt;
    }
    return d;
}

int qrad_key_int(const qrad_t *q, const entity_t *e, const char *key, int dflt, int lo, int hi)
{
    const char *v = entity_get(e, key);
    if (!v) return dflt;
    double d;
    char want[96];
    snprintf(want, sizeof want, "an integer in %d..%d", lo, hi);
    if (!parse_double(v, &d) || d != floor(d) || d < lo || d > hi) {
        warn_bad(q, e, key, v, want, dflt);
        return dflt;
    }
    return (int)d;
}

bool qrad_key_color(const qrad_t *q, const entity_t *e, const char *key, vec3_t *out)
{
    const char *v = entity_get(e, key);
    if (!v) return false;
    vec3_t c;
    if (!entity_get_vec3(e, key, &c) || c.x < 0 || c.y < 0 || c.z < 0) {
        log_warn(q->log, "entity %d (%s, line %d): \"%s\" \"%s\" is not a colour \"r g b\"; using white",
                 entity_index(q, e), entity_classname(e), qrad_key_line(e, key), key, v);
        return false;
    }
    /* ericw-tools: 0..1 or 0..255, told apart by the largest channel. */
    double m = fmax(c.x, fmax(c.y, c.z));
    if (m > 1) c = vec_scale(c, 1.0 / 255.0);
    *out = vec_min(c, vec3(1, 1, 1));
    return true;
}
