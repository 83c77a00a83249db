#include "mapfile.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/crmath.h"
#include "../common/fileio.h"

/* Larger than any real map (the biggest known community maps are tens of
 * megabytes); a bound so that a wrong path to a huge file fails cleanly. */
#define MAP_FILE_MAX ((size_t)512 * 1024 * 1024)

static bool grow(void **arr, int *cap, int need, size_t elem)
{
    if (need <= *cap) return true;
    int ncap = *cap ? *cap : 8;
    while (ncap < need) {
        if (ncap > INT32_MAX / 2) return false;
        ncap *= 2;
    }
    void *p = realloc(*arr, (size_t)ncap * elem);
    if (!p) return false;
    memset((char *)p + (size_t)*cap * elem, 0, (size_t)(ncap - *cap) * elem);
    *arr = p;
    *cap = ncap;
    return true;
}

/* Reads the next token, turning the end of the file into an error that says
 * what was expected there. */
static bool next_or_eof(lexer_t *lx, const char *expected, q2err_t *err)
{
    if (lexer_next(lx, err)) return true;
    if (err && err->msg[0]) return false;
    return lexer_error(lx, err, "expected %s but the file ended", expected);
}

static bool parse_point(lexer_t *lx, vec3_t *p, int index, q2err_t *err)
{
    /* Constant names rather than one snprintf per number (a twentieth of
     * a whole qbsp run went to formatting names no error used). */
    static const char *const what[3][3] = {
        {"x coordinate of point 1", "y coordinate of point 1", "z coordinate of point 1"},
        {"x coordinate of point 2", "y coordinate of point 2", "z coordinate of point 2"},
        {"x coordinate of point 3", "y coordinate of point 3", "z coordinate of point 3"}};
    if (index < 0 || index > 2) index = 2;
    if (!lexer_expect(lx, "(", err)) return false;
    double v[3];
    for (int i = 0; i < 3; i++)
        if (!lexer_number(lx, &v[i], what[index][i], err)) return false;
    if (!lexer_expect(lx, ")", err)) return false;
    *p = vec3(v[0], v[1], v[2]);
    return true;
}

/* Quake 1 fence textures start with '{', which the tokenizer returns as a
 * brace of its own; a brace directly followed by more name characters is
 * glued back onto the name. */
static bool parse_texture_name(lexer_t *lx, map_side_t *side, q2err_t *err)
{
    if (!next_or_eof(lx, "a texture name", err)) return false;
    char name[LEXER_TOKEN_MAX + 2];
    if (!lx->quoted && strchr("{}()[]", lx->token[0]) && lx->token[1] == 0) {
        bool glued = lx->token[0] == '{' && lx->pos < lx->size && !strchr(" \t\r\n\f\v", lx->text[lx->pos]) &&
                     !strchr("{}()[]\"", lx->text[lx->pos]);
        if (!glued) return lexer_error(lx, err, "expected a texture name but found '%s'", lx->token);
        int line = lx->tok_line, col = lx->tok_col;
        if (!lexer_next(lx, err)) return false;
        /* strlen, not token_len: a NUL inside a quoted token ends the name. */
        size_t len = strlen(lx->token);
        name[0] = '{';
        memcpy(name + 1, lx->token, len + 1);
        lx->tok_line = line;
        lx->tok_col = col;
    } else {
        memcpy(name, lx->token, strlen(lx->token) + 1);
    }
    if (name[0] == 0) return lexer_error(lx, err, "expected a texture name but found an empty string");
    if (strlen(name) >= sizeof side->texture)
        return lexer_error(lx, err, "texture name '%.40s...' is longer than %d characters", name,
                           (int)sizeof side->texture - 1);
    memcpy(side->texture, name, strlen(name) + 1);
    return true;
}

static bool parse_valve_axis(lexer_t *lx, vec3_t *axis, double *offset, int uv, q2err_t *err)
{
    /* Constant names, as in parse_point: no formatting per number. */
    static const char *const what[2][4] = {
        {"U axis x component", "U axis y component", "U axis z component", "U offset"},
        {"V axis x component", "V axis y component", "V axis z component", "V offset"}};
    double v[4];
    for (int i = 0; i < 4; i++)
        if (!lexer_number(lx, &v[i], what[uv][i], err)) return false;
    if (!lexer_expect(lx, "]", err)) return false;
    *axis = vec3(v[0], v[1], v[2]);
    *offset = v[3];
    return true;
}

static bool parse_side(lexer_t *lx, map_t *map, map_side_t *side, q2err_t *err)
{
    /* The caller has read the opening '(' and pushed it back. */
    memset(side, 0, sizeof *side);
    if (!lexer_next(lx, err)) return false;
    side->line = lx->tok_line;
    side->col = lx->tok_col;
    lexer_unget(lx);
    for (int i = 0; i < 3; i++)
        if (!parse_point(lx, &side->points[i], i, err)) return false;
    if (!parse_texture_name(lx, side, err)) return false;

    if (!next_or_eof(lx, "texture offsets or '['", err)) return false;
    if (lexer_is(lx, "[")) {
        side->proj = MAP_PROJ_VALVE220;
        map->valve220 = true;
        if (!parse_valve_axis(lx, &side->axis[0], &side->shift[0], 0, err)) return false;
        if (!lexer_expect(lx, "[", err)) return false;
        if (!parse_valve_axis(lx, &side->axis[1], &side->shift[1], 1, err)) return false;
    } else {
        lexer_unget(lx);
        side->proj = MAP_PROJ_STANDARD;
        if (!lexer_number(lx, &side->shift[0], "texture x offset", err)) return false;
        if (!lexer_number(lx, &side->shift[1], "texture y offset", err)) return false;
    }
    if (!lexer_number(lx, &side->rotate, "texture rotation", err)) return false;
    if (!lexer_number(lx, &side->scale[0], "texture x scale", err)) return false;
    if (!lexer_number(lx, &side->scale[1], "texture y scale", err)) return false;

    /* Optional contents/flags/value: present when the next token is neither
     * the next side nor the end of the brush. */
    if (!lexer_next(lx, err)) {
        if (err && err->msg[0]) return false;
        return true; /* end of file: the brush loop reports the missing '}' */
    }
    bool trailing = !(lexer_is(lx, "(") || lexer_is(lx, "}"));
    lexer_unget(lx);
    if (trailing) {
        if (!lexer_int(lx, &side->contents, "surface contents", err)) return false;
        if (!lexer_int(lx, &side->flags, "surface flags", err)) return false;
        if (!lexer_int(lx, &side->value, "surface value", err)) return false;
        side->has_surface = true;
    }
    return true;
}

static bool parse_brush(lexer_t *lx, map_t *map, map_brush_t *b, q2err_t *err)
{
    b->line = lx->tok_line;
    for (;;) {
        if (!next_or_eof(lx, "'(' (a brush side) or '}' (end of brush)", err)) return false;
        if (lexer_is(lx, "}")) break;
        if (!lx->quoted && (strcmp(lx->token, "brushDef") == 0 || strcmp(lx->token, "brushDef3") == 0 ||
                            strcmp(lx->token, "patchDef2") == 0 || strcmp(lx->token, "patchDef3") == 0))
            return lexer_error(lx, err,
                               "%s (brush primitives/patches) is not supported; save the map in the Quake 2 "
                               "standard or Valve 220 format",
                               lx->token);
        if (!lexer_is(lx, "("))
            return lexer_error(lx, err, "expected '(' (a brush side) or '}' (end of brush) but found '%s'",
                               lx->token);
        lexer_unget(lx);
        if (!grow((void **)&b->sides, &b->cap, b->numsides + 1, sizeof *b->sides))
            return lexer_error(lx, err, "out of memory");
        if (!parse_side(lx, map, &b->sides[b->numsides], err)) return false;
        b->numsides++;
    }
    return true;
}

static void brush_free(map_brush_t *b)
{
    free(b->sides);
    memset(b, 0, sizeof *b);
}

static bool parse_entity(lexer_t *lx, map_t *map, map_entity_t *e, q2err_t *err)
{
    e->ent.line = lx->tok_line;
    if (!entity_parse_pairs(lx, &e->ent, err)) return false;
    for (;;) {
        if (!next_or_eof(lx, "'{' (a brush) or '}' (end of entity)", err)) return false;
        if (lexer_is(lx, "}")) break;
        if (lx->quoted)
            return lexer_error(lx, err, "key/value pairs must come before the entity's brushes (found \"%.40s\")",
                               lx->token);
        if (!lexer_is(lx, "{"))
            return lexer_error(lx, err, "expected '{' (a brush) or '}' (end of entity) but found '%s'", lx->token);
        if (!grow((void **)&e->brushes, &e->cap, e->numbrushes + 1, sizeof *e->brushes))
            return lexer_error(lx, err, "out of memory");
        map_brush_t *b = &e->brushes[e->numbrushes++];
        b->entity_brush_index = e->numbrushes - 1;
        if (!parse_brush(lx, map, b, err)) return false;
    }
    return true;
}

bool map_parse(const char *text, size_t size, const char *name, map_t *out, q2err_t *err)
{
    memset(out, 0, sizeof *out);
    if (err) q2err_clear(err);
    out->path = strdup(name ? name : "(map)");
    if (!out->path) return q2err_set(err, name, 0, 0, "out of memory");
    lexer_t *lx = malloc(sizeof *lx);
    if (!lx) {
        map_free(out);
        return q2err_set(err, name, 0, 0, "out of memory");
    }
    lexer_init(lx, text, size, out->path);
    bool ok = true;
    for (;;) {
        if (!lexer_next(lx, err)) {
            if (err && err->msg[0]) ok = false;
            break;
        }
        if (!lexer_is(lx, "{")) {
            ok = lexer_error(lx, err, "expected '{' (start of an entity) but found '%s'", lx->token);
            break;
        }
        if (!grow((void **)&out->entities, &out->cap, out->numentities + 1, sizeof *out->entities)) {
            ok = lexer_error(lx, err, "out of memory");
            break;
        }
        map_entity_t *e = &out->entities[out->numentities++];
        if (!parse_entity(lx, out, e, err)) {
            ok = false;
            break;
        }
    }
    free(lx);
    if (!ok) {
        /* The message names out->path, which map_free releases: the message
         * was already formatted into err, so nothing dangles. */
        map_free(out);
        return false;
    }
    return true;
}

bool map_read_file(const char *path, map_t *out, q2err_t *err)
{
    uint8_t *data;
    size_t size;
    memset(out, 0, sizeof *out);
    if (!file_read_all(path, MAP_FILE_MAX, &data, &size, err)) return false;
    bool ok = map_parse((const char *)data, size, path, out, err);
    free(data);
    return ok;
}

void map_free_brushes(map_t *map)
{
    if (!map) return;
    for (int i = 0; i < map->numentities; i++) {
        map_entity_t *e = &map->entities[i];
        for (int j = 0; j < e->numbrushes; j++) brush_free(&e->brushes[j]);
        free(e->brushes);
        e->brushes = NULL;
        e->numbrushes = e->cap = 0;
    }
}

void map_free(map_t *map)
{
    if (!map) return;
    map_free_brushes(map);
    for (int i = 0; i < map->numentities; i++) entity_free(&map->entities[i].ent);
    free(map->entities);
    free(map->path);
    memset(map, 0, sizeof *map);
}

/* Quake's texture-plane table: for each of the six axial directions, the
 * normal that selects it and the (unrotated) s and t axes projected onto. */
static const double k_base_axis[6][3][3] = {
    {{0, 0, 1}, {1, 0, 0}, {0, -1, 0}},  /* floor */
    {{0, 0, -1}, {1, 0, 0}, {0, -1, 0}}, /* ceiling */
    {{1, 0, 0}, {0, 1, 0}, {0, 0, -1}},  /* west wall */
    {{-1, 0, 0}, {0, 1, 0}, {0, 0, -1}}, /* east wall */
    {{0, 1, 0}, {1, 0, 0}, {0, 0, -1}},  /* south wall */
    {{0, -1, 0}, {1, 0, 0}, {0, 0, -1}}, /* north wall */
};

void map_texture_vectors(const map_side_t *side, vec3_t plane_normal, vec3_t origin, double vecs[2][4])
{
    double scale[2];
    for (int i = 0; i < 2; i++) scale[i] = side->scale[i] == 0 ? 1.0 : side->scale[i];

    if (side->proj == MAP_PROJ_VALVE220) {
        for (int i = 0; i < 2; i++) {
            vec3_t a = vec_scale(side->axis[i], 1.0 / scale[i]);
            vecs[i][0] = a.x;
            vecs[i][1] = a.y;
            vecs[i][2] = a.z;
            /* Brush models are moved so their origin is at (0,0,0); adding
             * the origin's projection keeps the texture where the editor
             * showed it. */
            vecs[i][3] = side->shift[i] + vec_dot(origin, a);
        }
        return;
    }

    /* The first axis with the strictly largest dot product wins, so a
     * 45-degree slope projects like the floor/ceiling, as in id's tools. */
    int best_axis = 0;
    double best = 0;
    for (int i = 0; i < 6; i++) {
        const double *n = k_base_axis[i][0];
        double d = plane_normal.x * n[0] + plane_normal.y * n[1] + plane_normal.z * n[2];
        if (d > best) {
            best = d;
            best_axis = i;
        }
    }
    double v[2][3];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) v[i][j] = k_base_axis[best_axis][i + 1][j];

    /* id computes the texture-lock shift with the unrotated, unscaled axes. */
    double shift[2];
    for (int i = 0; i < 2; i++) shift[i] = origin.x * v[i][0] + origin.y * v[i][1] + origin.z * v[i][2];

    /* Exact values for the right angles, so that axial textures stay exactly
     * axial (sin(pi) is not 0 in floating point); other angles through
     * cr_sin/cr_cos, which give the same bits on every platform. */
    double sinv, cosv;
    if (side->rotate == 0) {
        sinv = 0, cosv = 1;
    } else if (side->rotate == 90) {
        sinv = 1, cosv = 0;
    } else if (side->rotate == 180) {
        sinv = 0, cosv = -1;
    } else if (side->rotate == 270) {
        sinv = -1, cosv = 0;
    } else {
        double ang = side->rotate / 180.0 * M_PI;
        sinv = cr_sin(ang);
        cosv = cr_cos(ang);
    }

    /* Rotation happens in the plane of the two axis components the base
     * axes use (their first non-zero components). */
    int sv = v[0][0] != 0 ? 0 : v[0][1] != 0 ? 1 : 2;
    int tv = v[1][0] != 0 ? 0 : v[1][1] != 0 ? 1 : 2;
    for (int i = 0; i < 2; i++) {
        double ns = cosv * v[i][sv] - sinv * v[i][tv];
        double nt = sinv * v[i][sv] + cosv * v[i][tv];
        v[i][sv] = ns;
        v[i][tv] = nt;
    }
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 3; j++) vecs[i][j] = v[i][j] / scale[i];
        vecs[i][3] = side->shift[i] + shift[i];
    }
}

/* ---------------------------------------------------------------- writing */

bool map_convert_format_parse(const char *name, map_format_t *out)
{
    if (!strcmp(name, "quake2")) *out = MAP_FORMAT_QUAKE2;
    else if (!strcmp(name, "valve") || !strcmp(name, "valve220")) *out = MAP_FORMAT_VALVE220;
    else return false;
    return true;
}

const char *map_format_name(map_format_t fmt) { return fmt == MAP_FORMAT_VALVE220 ? "valve" : "quake2"; }

/* Two numbers closer than this (texels, or texels per unit) are the same
 * when deciding whether a conversion was exact. */
#define CONVERT_EPSILON 1e-6

static bool side_plane(const map_side_t *s, vec3_t *normal, double *dist)
{
    vec3_t a = vec_sub(s->points[0], s->points[1]), b = vec_sub(s->points[2], s->points[1]);
    vec3_t n = vec_cross(a, b);
    double len = vec_len(n);
    if (!(len > 0)) return false;
    *normal = vec_scale(n, 1.0 / len);
    *dist = vec_dot(*normal, s->points[1]);
    return true;
}

static void to_valve(map_side_t *s, vec3_t normal)
{
    double vecs[2][4];
    map_texture_vectors(s, normal, vec3(0, 0, 0), vecs);
    for (int i = 0; i < 2; i++) {
        vec3_t a = vec3(vecs[i][0], vecs[i][1], vecs[i][2]);
        double len = vec_len(a);
        s->axis[i] = vec_scale(a, 1.0 / len);
        s->scale[i] = 1.0 / len;
        s->shift[i] = vecs[i][3];
    }
    s->proj = MAP_PROJ_VALVE220;
}

/* The standard projection whose texture coordinates on the side's plane
 * best match the Valve axes: the 2x2 map from the two projected
 * coordinates to (s, t) is split into a rotation and two scales. */
static bool to_standard(map_side_t *s, vec3_t normal, double dist)
{
    double vecs[2][4];
    map_texture_vectors(s, normal, vec3(0, 0, 0), vecs);
    /* The base axes the standard projection would choose. */
    map_side_t probe = *s;
    probe.proj = MAP_PROJ_STANDARD;
    probe.shift[0] = probe.shift[1] = probe.rotate = 0;
    probe.scale[0] = probe.scale[1] = 1;
    double base[2][4];
    map_texture_vectors(&probe, normal, vec3(0, 0, 0), base);
    int sv = base[0][0] != 0 ? 0 : base[0][1] != 0 ? 1 : 2;
    int tv = base[1][0] != 0 ? 0 : base[1][1] != 0 ? 1 : 2;
    int cv = 3 - sv - tv;
    double e0 = base[0][sv], e1 = base[1][tv];
    double nc = vec_comp(normal, cv);
    /* On the plane, the third coordinate is (dist - n_s a - n_t b) / n_c. */
    double m[2][2], off[2];
    for (int i = 0; i < 2; i++) {
        double u[3] = {vecs[i][0], vecs[i][1], vecs[i][2]};
        m[i][0] = u[sv] - u[cv] * vec_comp(normal, sv) / nc;
        m[i][1] = u[tv] - u[cv] * vec_comp(normal, tv) / nc;
        off[i] = vecs[i][3] + u[cv] * dist / nc;
    }
    double h = cr_hypot(m[0][0], m[0][1]);
    if (!(h > 0)) return false;
    double xs = 1.0 / h;
    double c = m[0][0] * xs * e0, sn = m[0][1] * xs * e0;
    double ang = cr_atan2(sn, c) * 180.0 / M_PI;
    /* The t row of that rotation is (-sin e1, cos e1) / ys. */
    double tr0 = -sn * e1, tr1 = c * e1;
    double proj = m[1][0] * tr0 + m[1][1] * tr1;
    if (fabs(proj) < 1e-12) return false;
    double ys = 1.0 / proj;
    bool exact = fabs(m[1][0] - tr0 / ys) < CONVERT_EPSILON && fabs(m[1][1] - tr1 / ys) < CONVERT_EPSILON;
    /* Whole degrees stay whole (the projection has exact right angles). */
    double r = round(ang);
    if (fabs(ang - r) < 1e-9) ang = r;
    if (ang < 0) ang += 360;
    if (ang >= 360) ang -= 360;
    s->proj = MAP_PROJ_STANDARD;
    s->rotate = ang;
    s->scale[0] = xs;
    s->scale[1] = ys;
    s->shift[0] = off[0];
    s->shift[1] = off[1];
    return exact;
}

int map_convert(map_t *map, map_format_t fmt)
{
    int inexact = 0;
    for (int e = 0; e < map->numentities; e++) {
        map_entity_t *me = &map->entities[e];
        for (int b = 0; b < me->numbrushes; b++)
            for (int i = 0; i < me->brushes[b].numsides; i++) {
                map_side_t *s = &me->brushes[b].sides[i];
                vec3_t n;
                double d;
                if (!side_plane(s, &n, &d)) continue; /* qbsp drops such sides anyway */
                if (fmt == MAP_FORMAT_VALVE220 && s->proj != MAP_PROJ_VALVE220) to_valve(s, n);
                else if (fmt == MAP_FORMAT_QUAKE2 && s->proj == MAP_PROJ_VALVE220 && !to_standard(s, n, d)) inexact++;
            }
    }
    map->valve220 = fmt == MAP_FORMAT_VALVE220;
    return inexact;
}

/* The fewest decimals (no exponent, as editors write maps) that read back
 * as the same double; %.17g for magnitudes a map never has. */
static void put_num(FILE *f, double v)
{
    char buf[64];
    if (v == 0) v = 0; /* no "-0" */
    if (fabs(v) < 1e15) {
        for (int p = 0; p <= 20; p++) {
            snprintf(buf, sizeof buf, "%.*f", p, v);
            if (strtod(buf, NULL) == v) {
                fputs(buf, f);
                return;
            }
        }
    }
    snprintf(buf, sizeof buf, "%.17g", v);
    fputs(buf, f);
}

bool map_write(FILE *f, const map_t *map, map_format_t fmt)
{
    fprintf(f, "// Game: Quake 2\n// Format: %s\n", fmt == MAP_FORMAT_VALVE220 ? "Quake2 (Valve)" : "Quake2");
    for (int e = 0; e < map->numentities; e++) {
        const map_entity_t *me = &map->entities[e];
        fprintf(f, "// entity %d\n{\n", e);
        bool world = strcmp(entity_classname(&me->ent), "worldspawn") == 0;
        for (int i = 0; i < me->ent.numpairs; i++) {
            const epair_t *p = &me->ent.pairs[i];
            if (world && !strcmp(p->key, "mapversion")) continue;
            fprintf(f, "\"%s\" \"%s\"\n", p->key, p->value);
            if (world && i == 0 && fmt == MAP_FORMAT_VALVE220 && !strcmp(p->key, "classname"))
                fputs("\"mapversion\" \"220\"\n", f);
        }
        for (int b = 0; b < me->numbrushes; b++) {
            fprintf(f, "// brush %d\n{\n", b);
            const map_brush_t *br = &me->brushes[b];
            for (int i = 0; i < br->numsides; i++) {
                const map_side_t *s = &br->sides[i];
                for (int k = 0; k < 3; k++) {
                    fputs("( ", f);
                    put_num(f, s->points[k].x), fputc(' ', f);
                    put_num(f, s->points[k].y), fputc(' ', f);
                    put_num(f, s->points[k].z), fputs(" ) ", f);
                }
                fputs(s->texture, f);
                if (s->proj == MAP_PROJ_VALVE220) {
                    for (int a = 0; a < 2; a++) {
                        fputs(" [ ", f);
                        put_num(f, s->axis[a].x), fputc(' ', f);
                        put_num(f, s->axis[a].y), fputc(' ', f);
                        put_num(f, s->axis[a].z), fputc(' ', f);
                        put_num(f, s->shift[a]), fputs(" ]", f);
                    }
                } else {
                    fputc(' ', f), put_num(f, s->shift[0]);
                    fputc(' ', f), put_num(f, s->shift[1]);
                }
                fputc(' ', f), put_num(f, s->rotate);
                fputc(' ', f), put_num(f, s->scale[0]);
                fputc(' ', f), put_num(f, s->scale[1]);
                if (s->has_surface) fprintf(f, " %d %d %d", s->contents, s->flags, s->value);
                fputc('\n', f);
            }
            fputs("}\n", f);
        }
        fputs("}\n", f);
    }
    return !ferror(f);
}
