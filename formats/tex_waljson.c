/* ericw-tools' .wal_json side-car metadata: one flat JSON object such as
 *   { "contents": ["MONSTERCLIP", "PLAYERCLIP"], "flags": ["NODRAW"],
 *     "value": 0, "width": 64, "height": 64, "animation": "e1u1/x2",
 *     "color": [255, 128, 64] }
 * where "contents" and "flags" are an integer or a list of bit names. A
 * small recursive-descent reader is enough; it tracks lines for errors and
 * skips keys it does not know. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "q2defs.h"
#include "tex_internal.h"

/* Deepest nesting skipped inside an unknown value; real files are flat. */
#define JSON_MAX_DEPTH 32
#define JSON_MAX_STRING 256

typedef struct bitname_t {
    const char *name;
    int bit;
} bitname_t;

/* Names as ericw-tools writes them; NO_WATERJUMP and PROJECTILECLIP are the
 * re-release bits 1<<13 and 1<<14 it also knows. */
static const bitname_t content_names[] = {
    {"SOLID", CONTENTS_SOLID},
    {"WINDOW", CONTENTS_WINDOW},
    {"AUX", CONTENTS_AUX},
    {"LAVA", CONTENTS_LAVA},
    {"SLIME", CONTENTS_SLIME},
    {"WATER", CONTENTS_WATER},
    {"MIST", CONTENTS_MIST},
    {"NO_WATERJUMP", 1 << 13},
    {"PROJECTILECLIP", 1 << 14},
    {"AREAPORTAL", CONTENTS_AREAPORTAL},
    {"PLAYERCLIP", CONTENTS_PLAYERCLIP},
    {"MONSTERCLIP", CONTENTS_MONSTERCLIP},
    {"CURRENT_0", CONTENTS_CURRENT_0},
    {"CURRENT_90", CONTENTS_CURRENT_90},
    {"CURRENT_180", CONTENTS_CURRENT_180},
    {"CURRENT_270", CONTENTS_CURRENT_270},
    {"CURRENT_UP", CONTENTS_CURRENT_UP},
    {"CURRENT_DOWN", CONTENTS_CURRENT_DOWN},
    {"ORIGIN", CONTENTS_ORIGIN},
    {"MONSTER", CONTENTS_MONSTER},
    {"DEADMONSTER", CONTENTS_DEADMONSTER},
    {"DETAIL", CONTENTS_DETAIL},
    {"TRANSLUCENT", CONTENTS_TRANSLUCENT},
    {"LADDER", CONTENTS_LADDER},
    {NULL, 0},
};

static const bitname_t surface_names[] = {
    {"LIGHT", SURF_LIGHT},     {"SLICK", SURF_SLICK},   {"SKY", SURF_SKY},   {"WARP", SURF_WARP},
    {"TRANS33", SURF_TRANS33}, {"TRANS66", SURF_TRANS66}, {"FLOWING", SURF_FLOWING}, {"NODRAW", SURF_NODRAW},
    {"HINT", SURF_HINT},       {"SKIP", SURF_SKIP},     {NULL, 0},
};

typedef struct jp_t {
    const char *s;
    size_t n, pos;
    int line;
    const char *name;
    q2err_t *err;
} jp_t;

static bool jerr(jp_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool jerr(jp_t *p, const char *fmt, ...)
{
    char buf[Q2ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return q2err_set(p->err, p->name, p->line, 0, "%s", buf);
}

static void ws(jp_t *p)
{
    while (p->pos < p->n) {
        char c = p->s[p->pos];
        if (c == '\n')
            p->line++;
        else if (c != ' ' && c != '\t' && c != '\r')
            return;
        p->pos++;
    }
}

static int peek(jp_t *p)
{
    ws(p);
    return p->pos < p->n ? (unsigned char)p->s[p->pos] : -1;
}

static bool expect(jp_t *p, char c)
{
    int got = peek(p);
    if (got != c) {
        if (got < 0) return jerr(p, "expected '%c' but the file ended", c);
        return jerr(p, "expected '%c' but found '%c'", c, got);
    }
    p->pos++;
    return true;
}

/* A string without escapes beyond \" \\ \/ (names and paths need none). */
static bool jstring(jp_t *p, char *out, size_t outsz)
{
    if (!expect(p, '"')) return false;
    size_t k = 0;
    for (;;) {
        if (p->pos >= p->n || p->s[p->pos] == '\n') return jerr(p, "unterminated string");
        char c = p->s[p->pos++];
        if (c == '"') break;
        if (c == '\\') {
            if (p->pos >= p->n) return jerr(p, "unterminated string");
            c = p->s[p->pos++];
            if (c != '"' && c != '\\' && c != '/') return jerr(p, "unsupported escape '\\%c' in string", c);
        }
        if (k + 1 >= outsz) return jerr(p, "string longer than %zu characters", outsz - 1);
        out[k++] = c;
    }
    out[k] = 0;
    return true;
}

static bool jint(jp_t *p, long long lo, long long hi, const char *what, long long *out)
{
    ws(p);
    char buf[64];
    size_t k = 0;
    while (p->pos < p->n && k + 1 < sizeof buf && p->s[p->pos] && strchr("+-0123456789.eE", p->s[p->pos])) buf[k++] = p->s[p->pos++];
    buf[k] = 0;
    char *end;
    errno = 0;
    long long v = strtoll(buf, &end, 10);
    if (k == 0 || *end != 0 || errno == ERANGE) return jerr(p, "expected an integer for %s, found '%s'", what, k ? buf : "nothing");
    if (v < lo || v > hi) return jerr(p, "%s %lld is out of range %lld..%lld", what, v, lo, hi);
    *out = v;
    return true;
}

static bool skip_value(jp_t *p, int depth)
{
    if (depth > JSON_MAX_DEPTH) return jerr(p, "values nested more than %d deep", JSON_MAX_DEPTH);
    int c = peek(p);
    char tmp[JSON_MAX_STRING];
    if (c == '"') return jstring(p, tmp, sizeof tmp);
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        p->pos++;
        if (peek(p) == close) {
            p->pos++;
            return true;
        }
        for (;;) {
            if (c == '{') {
                if (!jstring(p, tmp, sizeof tmp) || !expect(p, ':')) return false;
            }
            if (!skip_value(p, depth + 1)) return false;
            int d = peek(p);
            if (d == ',') {
                p->pos++;
                continue;
            }
            return expect(p, close);
        }
    }
    /* Numbers and the literals true/false/null. */
    size_t start = p->pos;
    while (p->pos < p->n && p->s[p->pos] && strchr("+-0123456789.eEtruefalsn", p->s[p->pos])) p->pos++;
    if (p->pos == start) {
        if (c < 0) return jerr(p, "expected a value but the file ended");
        return jerr(p, "unexpected character '%c'", c);
    }
    return true;
}

/* An integer, or a list of names from `names`, OR-ed together. */
static bool jbits(jp_t *p, const bitname_t *names, const char *what, int *out)
{
    if (peek(p) != '[') {
        long long v;
        if (!jint(p, INT32_MIN, UINT32_MAX, what, &v)) return false;
        *out = (int)(uint32_t)v;
        return true;
    }
    p->pos++;
    int bits = 0;
    if (peek(p) == ']') {
        p->pos++;
        *out = 0;
        return true;
    }
    for (;;) {
        char nm[JSON_MAX_STRING];
        if (!jstring(p, nm, sizeof nm)) return false;
        int i;
        for (i = 0; names[i].name; i++)
            if (strcasecmp(names[i].name, nm) == 0) break;
        if (!names[i].name) return jerr(p, "unknown %s name '%s'", what, nm);
        bits |= names[i].bit;
        int c = peek(p);
        if (c == ',') {
            p->pos++;
            continue;
        }
        if (!expect(p, ']')) return false;
        break;
    }
    *out = bits;
    return true;
}

bool wal_json_parse(const char *text, size_t size, const char *name, texmeta_t *meta, bool *has_color,
                    uint8_t color[3], q2err_t *err)
{
    jp_t p = {text, size, 0, 1, name, err};
    memset(meta, 0, sizeof *meta);
    *has_color = false;
    if (!expect(&p, '{')) return false;
    if (peek(&p) == '}') {
        p.pos++;
    } else {
        for (;;) {
            char key[JSON_MAX_STRING];
            if (!jstring(&p, key, sizeof key) || !expect(&p, ':')) return false;
            long long v;
            if (!strcmp(key, "contents")) {
                if (!jbits(&p, content_names, "contents", &meta->contents)) return false;
            } else if (!strcmp(key, "flags")) {
                if (!jbits(&p, surface_names, "flag", &meta->flags)) return false;
            } else if (!strcmp(key, "value")) {
                if (!jint(&p, INT32_MIN, INT32_MAX, "value", &v)) return false;
                meta->value = (int)v;
            } else if (!strcmp(key, "width") || !strcmp(key, "height")) {
                if (!jint(&p, 1, TEX_MAX_DIM, key, &v)) return false;
                if (key[0] == 'w')
                    meta->width = (int)v;
                else
                    meta->height = (int)v;
            } else if (!strcmp(key, "animation")) {
                if (!jstring(&p, meta->animname, sizeof meta->animname)) return false;
            } else if (!strcmp(key, "color")) {
                if (!expect(&p, '[')) return false;
                for (int i = 0; i < 3; i++) {
                    if (i && !expect(&p, ',')) return false;
                    if (!jint(&p, 0, 255, "colour component", &v)) return false;
                    color[i] = (uint8_t)v;
                }
                if (!expect(&p, ']')) return false;
                *has_color = true;
            } else if (!skip_value(&p, 0)) {
                return false;
            }
            int c = peek(&p);
            if (c == ',') {
                p.pos++;
                continue;
            }
            if (!expect(&p, '}')) return false;
            break;
        }
    }
    /* Only whitespace may follow, and NUL bytes (a buffer's terminator). */
    while (p.pos < p.n && (p.s[p.pos] == 0 || strchr(" \t\r\n", p.s[p.pos]))) {
        if (p.s[p.pos] == '\n') p.line++;
        p.pos++;
    }
    if (p.pos < p.n) return jerr(&p, "unexpected '%c' after the object", p.s[p.pos]);
    meta->found = true;
    return true;
}

bool wal_json_read(const char *text, size_t size, const char *name, texmeta_t *meta, q2err_t *err)
{
    bool has_color;
    uint8_t color[3];
    return wal_json_parse(text, size, name, meta, &has_color, color, err);
}
