#include "texinfojson.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "../common/mem.h"

/* How a field becomes a key. The accepted ranges are what ericw-tools' qbsp
 * can write (it clamps minlight to 0..510 and angles to 0..360); a value is
 * then brought into the range qrad reads the key in (see F_ANGLE, F_MAXLIGHT)
 * rather than refused, as the same file lights with ericw-tools' light. */
typedef enum {
    F_NUM,      /* number in lo..hi, written as it is */
    F_ANGLE,    /* degrees 0..360: over 180 smooths every edge, as 180 does in qrad */
    F_MAXLIGHT, /* 0 or more; over 2 (256) caps nothing qrad's _maxlight can, so 2 */
    F_INT,      /* whole number in lo..hi */
    F_TRUE,     /* true or false; true sets key to val */
    F_COLOR,    /* [r, g, b] 0..255, written 0..1 so that qrad never rescales it */
    F_SKIP,     /* surface flags the bsp's texinfo has, and qbsp-only flags */
    F_UNREAD,   /* a setting qrad reads only from entity keys */
} fkind_t;

typedef struct field_t {
    const char *name;
    fkind_t kind;
    const char *key;
    const char *val;
    double lo, hi;
} field_t;

/* The order of the keys in a keyset; no_minlight comes after minlight so
 * that it wins, as in ericw-tools' light. */
static const field_t fields[] = {
    {"minlight", F_NUM, "_minlight", NULL, 0, 1e6},
    {"maxlight", F_MAXLIGHT, "_maxlight", NULL, 0, 1e6},
    {"minlight_color", F_COLOR, "_minlight_color", NULL, 0, 255},
    {"phong_angle", F_ANGLE, "_phong_angle", NULL, 0, 360},
    {"phong_angle_concave", F_ANGLE, "_phong_angle_concave", NULL, 0, 360},
    {"phong_group", F_INT, "_phong_group", NULL, 0, 2147483647.0},
    {"object_channel_mask", F_INT, "_object_channel_mask", NULL, 0, 2147483647.0},
    {"world_units_per_luxel", F_NUM, "_world_units_per_luxel", NULL, 0, 1e6},
    {"no_dirt", F_TRUE, "_dirt", "-1", 0, 0},
    {"no_bounce", F_TRUE, "_bounce", "-1", 0, 0},
    {"light_ignore", F_TRUE, "_lightignore", "1", 0, 0},
    {"no_minlight", F_TRUE, "_minlight", "0", 0, 0},
    /* TEXINFOJSON_NUNREAD of these, in texinfojson_unread_name's order */
    {"no_shadow", F_UNREAD, NULL, NULL, 0, 0},
    {"light_alpha", F_UNREAD, NULL, NULL, 0, 0},
    {"light_twosided", F_UNREAD, NULL, NULL, 0, 0},
    {"lightcolorscale", F_UNREAD, NULL, NULL, 0, 0},
    {"noambient", F_UNREAD, NULL, NULL, 0, 0},
    {"surflight_rescale", F_UNREAD, NULL, NULL, 0, 0},
    {"surflight_style", F_UNREAD, NULL, NULL, 0, 0},
    {"surflight_targetname", F_UNREAD, NULL, NULL, 0, 0},
    {"surflight_color", F_UNREAD, NULL, NULL, 0, 0},
    {"surflight_minlight_scale", F_UNREAD, NULL, NULL, 0, 0},
    {"surflight_atten", F_UNREAD, NULL, NULL, 0, 0},
    {"surflight_group", F_UNREAD, NULL, NULL, 0, 0},
    {"is_light", F_SKIP, NULL, NULL, 0, 0},
    {"is_slick", F_SKIP, NULL, NULL, 0, 0},
    {"is_sky", F_SKIP, NULL, NULL, 0, 0},
    {"is_warp", F_SKIP, NULL, NULL, 0, 0},
    {"is_trans33", F_SKIP, NULL, NULL, 0, 0},
    {"is_trans66", F_SKIP, NULL, NULL, 0, 0},
    {"is_flowing", F_SKIP, NULL, NULL, 0, 0},
    {"is_nodraw", F_SKIP, NULL, NULL, 0, 0},
    {"is_hint", F_SKIP, NULL, NULL, 0, 0},
    {"is_hintskip", F_SKIP, NULL, NULL, 0, 0},
    {"is_skip", F_SKIP, NULL, NULL, 0, 0},
    {"is_alphatest", F_SKIP, NULL, NULL, 0, 0},
    {"is_special", F_SKIP, NULL, NULL, 0, 0},
    {"no_expand", F_SKIP, NULL, NULL, 0, 0},
};
enum { NFIELDS = sizeof fields / sizeof fields[0], FIRST_UNREAD = 12 };

const char *texinfojson_unread_name(int i)
{
    return i >= 0 && i < TEXINFOJSON_NUNREAD ? fields[FIRST_UNREAD + i].name : NULL;
}

/* Where each member starts. cJSON keeps no positions, so the lines are
 * found in the text: once cJSON has accepted it as JSON, a scan that skips
 * strings and follows the nesting meets the members of the top object and
 * of its member objects in the order of cJSON's child lists. */
typedef struct lines_t {
    int *top;      /* line of the i-th member of the top object */
    int *first;    /* index in sub of its first member, when its value is an object */
    int ntop, captop, capfirst;
    int *sub;      /* lines of the members of those objects, in order */
    int nsub, capsub;
} lines_t;

#define SCAN_DEPTH 3 /* members of depth 1 and 2 are counted; deeper ones only nest */

static void scan_lines(const char *s, size_t n, lines_t *L)
{
    int depth = 0, line = 1;
    bool is_obj[SCAN_DEPTH] = {false}, want_key[SCAN_DEPTH] = {false};
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\n') {
            line++;
        } else if (c == '"') {
            for (i++; i < n && s[i] != '"'; i++)
                if (s[i] == '\\') i++;
            if (depth >= 1 && depth < SCAN_DEPTH && is_obj[depth] && want_key[depth]) {
                want_key[depth] = false;
                if (depth == 1) {
                    L->top = q2_grow(L->top, sizeof *L->top, &L->captop, L->ntop + 1);
                    L->first = q2_grow(L->first, sizeof *L->first, &L->capfirst, L->ntop + 1);
                    L->top[L->ntop] = line;
                    L->first[L->ntop++] = L->nsub;
                } else {
                    L->sub = q2_grow(L->sub, sizeof *L->sub, &L->capsub, L->nsub + 1);
                    L->sub[L->nsub++] = line;
                }
            }
        } else if (c == '{' || c == '[') {
            depth++;
            if (depth < SCAN_DEPTH) {
                is_obj[depth] = c == '{';
                want_key[depth] = c == '{';
            }
        } else if (c == '}' || c == ']') {
            depth--;
        } else if (c == ',' && depth >= 1 && depth < SCAN_DEPTH && is_obj[depth]) {
            want_key[depth] = true;
        }
    }
}

static void lines_free(lines_t *L)
{
    free(L->top);
    free(L->first);
    free(L->sub);
}

static int top_line(const lines_t *L, int i) { return i < L->ntop ? L->top[i] : 0; }

static int sub_line(const lines_t *L, int i, int j)
{
    if (i >= L->ntop) return 0;
    int k = L->first[i] + j, end = i + 1 < L->ntop ? L->first[i + 1] : L->nsub;
    return k < end ? L->sub[k] : top_line(L, i);
}

/* FNV-1a over the keyset's pairs, to find an equal keyset quickly. */
static uint32_t keyset_hash(const entity_t *e)
{
    uint32_t h = 2166136261u;
    for (int p = 0; p < e->numpairs; p++) {
        for (int w = 0; w < 2; w++) {
            const char *s = w ? e->pairs[p].value : e->pairs[p].key;
            for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
            h = (h ^ 0xffu) * 16777619u;
        }
    }
    return h;
}

static bool keyset_equal(const entity_t *a, const entity_t *b)
{
    if (a->numpairs != b->numpairs) return false;
    for (int p = 0; p < a->numpairs; p++)
        if (strcmp(a->pairs[p].key, b->pairs[p].key) || strcmp(a->pairs[p].value, b->pairs[p].value)) return false;
    return true;
}

static bool is_number_in(const cJSON *v, double lo, double hi)
{
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble >= lo && v->valuedouble <= hi;
}

static void add_pair(entity_t *e, const char *key, const char *value, int line)
{
    entity_set(e, key, value);
    for (int p = 0; p < e->numpairs; p++)
        if (!strcmp(e->pairs[p].key, key)) e->pairs[p].line = line;
}

/* The keyset of one entry (members checked against the table); false with
 * *err set for a bad one. */
static bool entry_keyset(const cJSON *obj, int ti, const lines_t *L, const char *name, entity_t *e, int *unread_line,
                         q2err_t *err)
{
    const cJSON *val[NFIELDS] = {NULL};
    int line[NFIELDS] = {0};
    int j = 0;
    for (const cJSON *m = obj->child; m; m = m->next, j++) {
        int f = 0;
        while (f < NFIELDS && strcmp(fields[f].name, m->string)) f++;
        if (f == NFIELDS) continue; /* a field of a later ericw-tools: skipped, as its light does */
        int ln = sub_line(L, ti, j);
        if (val[f])
            return q2err_set(err, name, ln, 0, "\"%s\" given twice in one texinfo entry (first on line %d)",
                             fields[f].name, line[f]);
        val[f] = m;
        line[f] = ln;
    }
    char buf[96];
    for (int f = 0; f < NFIELDS; f++) {
        const cJSON *v = val[f];
        const field_t *fd = &fields[f];
        if (!v) continue;
        int ln = line[f];
        switch (fd->kind) {
        case F_NUM:
        case F_ANGLE:
        case F_MAXLIGHT: {
            if (!is_number_in(v, fd->lo, fd->hi))
                return q2err_set(err, name, ln, 0, "\"%s\" is not a number in %g..%g", fd->name, fd->lo, fd->hi);
            double d = v->valuedouble;
            if (fd->kind == F_ANGLE && d > 180) d = 180;
            if (fd->kind == F_MAXLIGHT && d > 2) d = 2;
            snprintf(buf, sizeof buf, "%.9g", d);
            add_pair(e, fd->key, buf, ln);
            break;
        }
        case F_INT:
            if (!is_number_in(v, fd->lo, fd->hi) || v->valuedouble != floor(v->valuedouble))
                return q2err_set(err, name, ln, 0, "\"%s\" is not a whole number in %.0f..%.0f", fd->name, fd->lo, fd->hi);
            snprintf(buf, sizeof buf, "%.0f", v->valuedouble);
            add_pair(e, fd->key, buf, ln);
            break;
        case F_TRUE:
            if (!cJSON_IsBool(v)) return q2err_set(err, name, ln, 0, "\"%s\" is not true or false", fd->name);
            if (cJSON_IsTrue(v)) add_pair(e, fd->key, fd->val, ln);
            break;
        case F_COLOR: {
            double c[3];
            int k = 0;
            for (const cJSON *x = cJSON_IsArray(v) ? v->child : NULL; x; x = x->next, k++) {
                if (k == 3 || !is_number_in(x, 0, 255)) break;
                c[k] = x->valuedouble;
            }
            if (!cJSON_IsArray(v) || k != 3 || cJSON_GetArraySize(v) != 3)
                return q2err_set(err, name, ln, 0, "\"%s\" is not [r, g, b] with each 0..255", fd->name);
            snprintf(buf, sizeof buf, "%.9g %.9g %.9g", c[0] / 255.0, c[1] / 255.0, c[2] / 255.0);
            add_pair(e, fd->key, buf, ln);
            break;
        }
        case F_UNREAD:
            if (!unread_line[f - FIRST_UNREAD]) unread_line[f - FIRST_UNREAD] = ln;
            break;
        case F_SKIP: break;
        }
    }
    return true;
}

/* A texinfo number: decimal digits only, below numtexinfo. */
static int texinfo_number(const char *s, int numtexinfo)
{
    if (!*s) return -1;
    long v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return -1;
        v = v * 10 + (*s - '0');
        if (v >= numtexinfo) return -1;
    }
    return (int)v;
}

static void line_col(const char *text, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

bool texinfojson_decode(const uint8_t *data, size_t size, int numtexinfo, const char *name, texinfojson_t *out,
                        q2err_t *err)
{
    memset(out, 0, sizeof *out);
    const uint8_t *nul = memchr(data, 0, size);
    if (nul) {
        int line, col;
        line_col((const char *)data, (size_t)(nul - data), &line, &col);
        return q2err_set(err, name, line, col, "NUL byte in the JSON text");
    }
    /* cJSON reads a NUL-terminated copy: with its length-limited parse it
     * would refuse a file that ends right after the object. */
    char *text = q2_malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, size + 1, &end, 1);
    if (!root) {
        int line, col;
        size_t off = end && end >= text && end <= text + size ? (size_t)(end - text) : size;
        line_col(text, off, &line, &col);
        free(text);
        return q2err_set(err, name, line, col, "not valid JSON here");
    }
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        free(text);
        return q2err_set(err, name, 1, 0, "not a JSON object of texinfo numbers");
    }
    lines_t L;
    memset(&L, 0, sizeof L);
    scan_lines(text, size, &L);
    out->numtexinfo = numtexinfo;
    out->set = q2_calloc(numtexinfo > 0 ? (size_t)numtexinfo : 1, sizeof *out->set);
    int *seen = q2_calloc(numtexinfo > 0 ? (size_t)numtexinfo : 1, sizeof *seen);
    uint32_t *hash = NULL;
    int caphash = 0;
    bool ok = true;
    int i = 0;
    for (const cJSON *m = root->child; m && ok; m = m->next, i++) {
        int ln = top_line(&L, i);
        int ti = texinfo_number(m->string, numtexinfo);
        if (ti < 0) {
            ok = q2err_set(err, name, ln, 0,
                           "\"%s\" is not a texinfo number of the bsp (it has %d): the file is of another compile; "
                           "compile the map again, or delete the file",
                           m->string, numtexinfo);
        } else if (seen[ti]) {
            ok = q2err_set(err, name, ln, 0, "texinfo %d given twice (first on line %d)", ti, seen[ti]);
        } else if (!cJSON_IsObject(m)) {
            ok = q2err_set(err, name, ln, 0, "texinfo %d: not an object of settings", ti);
        } else {
            seen[ti] = ln > 0 ? ln : 1;
            out->numentries++;
            entity_t e;
            memset(&e, 0, sizeof e);
            e.line = ln;
            entity_set(&e, "classname", "texinfo.json");
            ok = entry_keyset(m, i, &L, name, &e, out->unread_line, err);
            if (ok && e.numpairs > 1) {
                uint32_t h = keyset_hash(&e);
                int k = 0;
                while (k < out->sets.count && !(hash[k] == h && keyset_equal(&out->sets.ents[k], &e))) k++;
                if (k == out->sets.count) {
                    hash = q2_grow(hash, sizeof *hash, &caphash, k + 1);
                    hash[k] = h;
                    ARRAY_PUSH(out->sets.ents, out->sets.count, out->sets.cap, e);
                    memset(&e, 0, sizeof e);
                }
                out->set[ti] = k + 1;
            }
            entity_free(&e);
        }
    }
    free(hash);
    free(seen);
    lines_free(&L);
    cJSON_Delete(root);
    free(text);
    if (!ok) texinfojson_free(out);
    return ok;
}

void texinfojson_free(texinfojson_t *t)
{
    free(t->set);
    entities_free(&t->sets);
    memset(t, 0, sizeof *t);
}
