/* .map parser and texture projection.
 *
 * Every map in tests/data/map/ is parsed and its entity/brush/side counts are
 * checked twice: against COUNTS.tsv (counts taken from the maps' manifest,
 * made by a different program) and against a crude line-based count done
 * here without the tokenizer. The projection cases are derived by hand from
 * the definition of Quake's axial projection (see the comments). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <errno.h>

#include "../../common/fileio.h"
#include "../../formats/lexer.h"
#include "../../formats/mapfile.h"
#include "test_util.h"

#define MAPDIR Q2MAP_TEST_DATA "/map/"

/* Per face line, what a whitespace split of the line says: a Valve line has
 * the '[' tokens, and the trailing contents/flags/value make 3 more fields
 * than the bare form (21 standard, 31 Valve). */
typedef struct line_counts_t {
    int sides, open_braces;
    int valve_sides, trailing_sides;
    char *valve;    /* per side: 1 if Valve */
    char *trailing; /* per side: 1 if it has contents/flags/value */
} line_counts_t;

static void count_lines(const char *text, line_counts_t *lc)
{
    memset(lc, 0, sizeof *lc);
    size_t cap = 1024;
    lc->valve = calloc(cap, 1);
    lc->trailing = calloc(cap, 1);
    const char *p = text;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char *line = malloc(len + 1);
        memcpy(line, p, len);
        line[len] = 0;
        const char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (s[0] == '{' && (s[1] == 0 || s[1] == '\r')) lc->open_braces++;
        if (s[0] == '(') {
            int nf = 0;
            bool valve = false;
            for (char *tok = strtok(line, " \t\r"); tok; tok = strtok(NULL, " \t\r")) {
                nf++;
                if (strcmp(tok, "[") == 0) valve = true;
            }
            if ((size_t)lc->sides + 1 >= cap) {
                cap *= 2;
                lc->valve = realloc(lc->valve, cap);
                lc->trailing = realloc(lc->trailing, cap);
            }
            bool trailing = nf == (valve ? 34 : 24);
            assert_true(nf == (valve ? 31 : 21) || trailing);
            lc->valve[lc->sides] = valve;
            lc->trailing[lc->sides] = trailing;
            lc->valve_sides += valve;
            lc->trailing_sides += trailing;
            lc->sides++;
        }
        free(line);
        p = eol ? eol + 1 : p + len;
    }
}

static void test_parse_all_maps(void **state)
{
    FILE *f = fopen(MAPDIR "COUNTS.tsv", "r");
    assert_non_null(f);
    char line[512];
    int nmaps = 0, nq1 = 0, nvalve = 0;
    while (fgets(line, sizeof line, f)) {
        char name[256], format[128];
        int ents, brushes, faces;
        if (sscanf(line, "%255[^\t]\t%d\t%d\t%d\t%127[^\n]", name, &ents, &brushes, &faces, format) != 5) continue;
        char path[1024];
        snprintf(path, sizeof path, MAPDIR "%s", name);
        uint8_t *data;
        size_t size;
        q2err_t err;
        assert_true(file_read_all(path, 64u << 20, &data, &size, &err));
        line_counts_t lc;
        count_lines((const char *)data, &lc);

        map_t map;
        bool ok = map_read_file(path, &map, &err);
        if (!ok) fail_msg("%s: %s", name, err.msg);
        int nb = 0, ns = 0, nvs = 0, nts = 0, k = 0;
        for (int i = 0; i < map.numentities; i++) {
            nb += map.entities[i].numbrushes;
            for (int j = 0; j < map.entities[i].numbrushes; j++) {
                const map_brush_t *b = &map.entities[i].brushes[j];
                assert_int_equal(b->entity_brush_index, j);
                ns += b->numsides;
                for (int s = 0; s < b->numsides; s++, k++) {
                    const map_side_t *sd = &b->sides[s];
                    nvs += sd->proj == MAP_PROJ_VALVE220;
                    nts += sd->has_surface;
                    /* Sides come in file order, so the k-th side is the k-th
                     * face line. */
                    assert_int_equal(sd->proj == MAP_PROJ_VALVE220, lc.valve[k]);
                    assert_int_equal(sd->has_surface, lc.trailing[k]);
                    assert_true(sd->texture[0] != 0);
                    assert_true(sd->line > 0);
                }
            }
        }
        print_message("%-28s entities %4d brushes %4d sides %5d valve %5d trailing %5d\n", name, map.numentities,
                      nb, ns, nvs, nts);
        assert_int_equal(map.numentities, ents);
        assert_int_equal(nb, brushes);
        assert_int_equal(ns, faces);
        assert_int_equal(ns, lc.sides);
        assert_int_equal(map.numentities + nb, lc.open_braces);
        assert_int_equal(nvs, lc.valve_sides);
        assert_int_equal(nts, lc.trailing_sides);
        assert_int_equal(map.valve220, strstr(format, "Valve") != NULL);
        /* worldspawn first, with a classname */
        assert_string_equal(entity_classname(&map.entities[0].ent), "worldspawn");
        if (strstr(format, "Quake 1")) {
            nq1++;
            assert_int_equal(nts, 0); /* Quake 1 lines have no trailing fields */
        }
        nvalve += map.valve220;
        nmaps++;
        map_free(&map);
        free(lc.valve);
        free(lc.trailing);
        free(data);
    }
    fclose(f);
    assert_int_equal(nmaps, 17);
    assert_true(nq1 >= 2);
    assert_true(nvalve >= 3);
}

static void test_trenchbroom_keys_and_comments(void **state)
{
    const char *text = "// Game: Quake 2\n"
                       "// Format: Quake2\n"
                       "// entity 0\n"
                       "{\n"
                       "\"classname\" \"worldspawn\" // trailing comment\n"
                       "\"_tb_textures\" \"textures/e1u1\"\n"
                       "// brush 0\n"
                       "{\n"
                       "( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) e1u1/floor1_3 0.5 -2.25 0 1 1 1 2 3\n"
                       "( 0 0 64.5 ) ( 1 0 64.5 ) ( 0 1 64.5 ) {fence 0 0 0 1 1\n"
                       "}\n"
                       "}\n"
                       "{\n\"classname\" \"func_group\"\n\"_tb_type\" \"_tb_layer\"\n\"_tb_id\" \"3\"\n}\n";
    map_t map;
    q2err_t err;
    assert_true(map_parse(text, strlen(text), "tb.map", &map, &err));
    assert_int_equal(map.numentities, 2);
    assert_false(map.valve220);
    assert_string_equal(entity_get(&map.entities[0].ent, "_tb_textures"), "textures/e1u1");
    assert_string_equal(entity_get(&map.entities[1].ent, "_tb_type"), "_tb_layer");
    assert_string_equal(entity_get(&map.entities[1].ent, "_tb_id"), "3");
    assert_int_equal(map.entities[0].numbrushes, 1);
    const map_brush_t *b = &map.entities[0].brushes[0];
    assert_int_equal(b->line, 8);
    assert_int_equal(b->numsides, 2);
    assert_string_equal(b->sides[0].texture, "e1u1/floor1_3");
    assert_true(b->sides[0].has_surface);
    assert_int_equal(b->sides[0].contents, 1);
    assert_int_equal(b->sides[0].flags, 2);
    assert_int_equal(b->sides[0].value, 3);
    assert_true(b->sides[0].shift[0] == 0.5 && b->sides[0].shift[1] == -2.25);
    assert_int_equal(b->sides[0].line, 9);
    assert_int_equal(b->sides[0].col, 1);
    assert_false(b->sides[1].has_surface);
    assert_true(b->sides[1].points[0].z == 64.5);
    assert_string_equal(b->sides[1].texture, "{fence");
    map_free(&map);
}

static void test_valve_line(void **state)
{
    const char *text = "{\n\"classname\" \"worldspawn\"\n\"mapversion\" \"220\"\n{\n"
                       "( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) tex [ 1 0 0 16 ] [ 0 -1 0 -8.5 ] 45 0.5 2 0 4 0\n"
                       "}\n}\n";
    map_t map;
    q2err_t err;
    assert_true(map_parse(text, strlen(text), "v.map", &map, &err));
    assert_true(map.valve220);
    const map_side_t *s = &map.entities[0].brushes[0].sides[0];
    assert_int_equal(s->proj, MAP_PROJ_VALVE220);
    assert_true(s->axis[0].x == 1 && s->axis[0].y == 0 && s->axis[1].y == -1);
    assert_true(s->shift[0] == 16 && s->shift[1] == -8.5);
    assert_true(s->rotate == 45 && s->scale[0] == 0.5 && s->scale[1] == 2);
    assert_true(s->has_surface && s->flags == 4);
    map_free(&map);
}

/* ---- projection ---- */

static map_side_t std_side(double xoff, double yoff, double rot, double xs, double ys)
{
    map_side_t s;
    memset(&s, 0, sizeof s);
    s.proj = MAP_PROJ_STANDARD;
    s.shift[0] = xoff;
    s.shift[1] = yoff;
    s.rotate = rot;
    s.scale[0] = xs;
    s.scale[1] = ys;
    return s;
}

static void expect_vecs(double v[2][4], double s0, double s1, double s2, double s3, double t0, double t1, double t2,
                        double t3)
{
    const double e = 1e-12;
    double want[2][4] = {{s0, s1, s2, s3}, {t0, t1, t2, t3}};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++)
            if (fabs(v[i][j] - want[i][j]) > e)
                fail_msg("vecs[%d][%d] = %.17g, expected %.17g", i, j, v[i][j], want[i][j]);
}

static void test_projection_axial(void **state)
{
    double v[2][4];
    vec3_t o = vec3(0, 0, 0);
    map_side_t s = std_side(0, 0, 0, 1, 1);
    /* Floor (normal +Z) and ceiling (-Z) project onto XY with t pointing
     * down the Y axis, so the texture reads the right way from above. */
    map_texture_vectors(&s, vec3(0, 0, 1), o, v);
    expect_vecs(v, 1, 0, 0, 0, 0, -1, 0, 0);
    map_texture_vectors(&s, vec3(0, 0, -1), o, v);
    expect_vecs(v, 1, 0, 0, 0, 0, -1, 0, 0);
    /* X walls: s along +Y, t down (-Z). */
    map_texture_vectors(&s, vec3(1, 0, 0), o, v);
    expect_vecs(v, 0, 1, 0, 0, 0, 0, -1, 0);
    map_texture_vectors(&s, vec3(-1, 0, 0), o, v);
    expect_vecs(v, 0, 1, 0, 0, 0, 0, -1, 0);
    /* Y walls: s along +X, t down. */
    map_texture_vectors(&s, vec3(0, -1, 0), o, v);
    expect_vecs(v, 1, 0, 0, 0, 0, 0, -1, 0);
    /* A 45-degree slope ties floor and wall: the floor comes first in the
     * table and ties do not replace it. */
    double h = sqrt(0.5);
    map_texture_vectors(&s, vec3(h, 0, h), o, v);
    expect_vecs(v, 1, 0, 0, 0, 0, -1, 0, 0);
    /* A steeper wall-ish plane picks the wall. */
    vec3_t n = vec_normalize(vec3(0, 2, 1), NULL);
    map_texture_vectors(&s, n, o, v);
    expect_vecs(v, 1, 0, 0, 0, 0, 0, -1, 0);
}

static void test_projection_rotate_scale_shift(void **state)
{
    double v[2][4];
    vec3_t o = vec3(0, 0, 0);
    /* Rotating the floor axes s=(1,0,0), t=(0,-1,0) by 90 degrees in the XY
     * plane: (x,y) -> (x cos - y sin, x sin + y cos) gives s=(0,1,0) and
     * t=(1,0,0), exactly (no sin/cos rounding at right angles). */
    map_side_t s = std_side(0, 0, 90, 1, 1);
    map_texture_vectors(&s, vec3(0, 0, 1), o, v);
    assert_true(v[0][0] == 0 && v[0][1] == 1 && v[0][2] == 0);
    assert_true(v[1][0] == 1 && v[1][1] == 0 && v[1][2] == 0);
    s.rotate = 180;
    map_texture_vectors(&s, vec3(0, 0, 1), o, v);
    assert_true(v[0][0] == -1 && v[0][1] == 0 && v[1][0] == 0 && v[1][1] == 1);
    s.rotate = 270;
    map_texture_vectors(&s, vec3(0, 0, 1), o, v);
    assert_true(v[0][0] == 0 && v[0][1] == -1 && v[1][0] == -1 && v[1][1] == 0);
    /* An arbitrary angle: s=(cos a, sin a, 0), t=(sin a, -cos a, 0). */
    s.rotate = 30;
    map_texture_vectors(&s, vec3(0, 0, 1), o, v);
    double c = cos(M_PI / 6), sn = sin(M_PI / 6);
    expect_vecs(v, c, sn, 0, 0, sn, -c, 0, 0);
    /* On an X wall the rotation plane is Y/Z: s=(0,1,0) -> (0,cos,sin)... with
     * sv=Y and tv=Z: s' = (0, cos*1 - sin*0, sin*1) and t=(0,0,-1) ->
     * (0, -sin*-1, cos*-1). */
    map_texture_vectors(&s, vec3(1, 0, 0), o, v);
    expect_vecs(v, 0, c, sn, 0, 0, sn, -c, 0);

    /* Scale divides the axes; 0 means 1. */
    s = std_side(0, 0, 0, 2, 0.5);
    map_texture_vectors(&s, vec3(0, 0, 1), o, v);
    expect_vecs(v, 0.5, 0, 0, 0, 0, -2, 0, 0);
    s = std_side(0, 0, 0, 0, 0);
    map_texture_vectors(&s, vec3(0, 0, 1), o, v);
    expect_vecs(v, 1, 0, 0, 0, 0, -1, 0, 0);
    /* Shift is the offset, in texels, unscaled. */
    s = std_side(16, -8, 0, 2, 2);
    map_texture_vectors(&s, vec3(0, 0, 1), o, v);
    expect_vecs(v, 0.5, 0, 0, 16, 0, -0.5, 0, -8);
}

static void test_projection_origin(void **state)
{
    double v[2][4];
    /* A brush model with origin (64,32,16): its brushes are moved by -origin,
     * and the offsets gain the origin's projection on the base axes, so an
     * unrotated, unscaled texture stays where it was in the world. */
    map_side_t s = std_side(4, 2, 0, 1, 1);
    vec3_t origin = vec3(64, 32, 16);
    map_texture_vectors(&s, vec3(0, 0, 1), origin, v);
    expect_vecs(v, 1, 0, 0, 4 + 64, 0, -1, 0, 2 - 32);
    /* Check it as a property: a world point p and its model-space p-origin
     * get the same texel coordinates. */
    double w[2][4];
    map_texture_vectors(&s, vec3(0, 0, 1), vec3(0, 0, 0), w);
    vec3_t p = vec3(100, -37, 5);
    vec3_t pm = vec_sub(p, origin);
    for (int i = 0; i < 2; i++) {
        double world = p.x * w[i][0] + p.y * w[i][1] + p.z * w[i][2] + w[i][3];
        double model = pm.x * v[i][0] + pm.y * v[i][1] + pm.z * v[i][2] + v[i][3];
        assert_true(fabs(world - model) < 1e-9);
    }
    /* id computes the origin shift from the unrotated, unscaled axes. */
    s = std_side(0, 0, 90, 2, 2);
    map_texture_vectors(&s, vec3(0, 0, 1), origin, v);
    assert_true(fabs(v[0][3] - 64) < 1e-12 && fabs(v[1][3] + 32) < 1e-12);
}

static void test_projection_valve(void **state)
{
    double v[2][4];
    map_side_t s;
    memset(&s, 0, sizeof s);
    s.proj = MAP_PROJ_VALVE220;
    s.axis[0] = vec3(0, 1, 0);
    s.axis[1] = vec3(0, 0, -1);
    s.shift[0] = 5;
    s.shift[1] = 6;
    s.rotate = 33; /* Valve axes already include the rotation */
    s.scale[0] = 2;
    s.scale[1] = 0; /* 0 -> 1 */
    /* The plane normal does not matter for Valve. */
    map_texture_vectors(&s, vec3(0, 0, 1), vec3(0, 0, 0), v);
    expect_vecs(v, 0, 0.5, 0, 5, 0, 0, -1, 6);
    /* Texture lock holds for any axes: world point p and model point
     * p-origin map to the same texel. */
    uint32_t x = 12345;
    for (int it = 0; it < 100; it++) {
        double r[9];
        for (int k = 0; k < 9; k++) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            r[k] = (double)(x % 2001) - 1000.0;
        }
        s.axis[0] = vec_normalize(vec3(r[0], r[1], r[2] + 0.5), NULL);
        s.axis[1] = vec_normalize(vec3(r[3] + 0.5, r[4], r[5]), NULL);
        s.scale[0] = 0.25 + (it % 7) * 0.5;
        s.scale[1] = 0.5 + (it % 5) * 0.25;
        vec3_t origin = vec3(r[6], r[7], r[8]);
        double w[2][4];
        map_texture_vectors(&s, vec3(1, 0, 0), vec3(0, 0, 0), w);
        map_texture_vectors(&s, vec3(1, 0, 0), origin, v);
        vec3_t p = vec3(r[8], r[6], r[7]);
        vec3_t pm = vec_sub(p, origin);
        for (int i = 0; i < 2; i++) {
            double world = p.x * w[i][0] + p.y * w[i][1] + p.z * w[i][2] + w[i][3];
            double model = pm.x * v[i][0] + pm.y * v[i][1] + pm.z * v[i][2] + v[i][3];
            assert_true(fabs(world - model) < 1e-6);
        }
    }
}

/* ---- errors ---- */

/* ---- number conversion ---- */

/* The fast decimal conversion must give strtod's exact bits (so -0 and 0
 * differ) whenever it accepts a string, and strtod must consume all of that
 * string. Returns whether the fast path took it. */
static bool check_fast_decimal(const char *s)
{
    double fast = 12345.678; /* a value no test string produces by accident */
    bool took = lexer_fast_decimal(s, strlen(s), &fast);
    if (!took) {
        assert_true(fast == 12345.678); /* left alone */
        return false;
    }
    char *end;
    errno = 0;
    double ref = strtod(s, &end);
    if (*end != 0 || end == s) fail_msg("fast path accepted '%s', which strtod does not take whole", s);
    if (errno == ERANGE) fail_msg("fast path accepted '%s', which strtod reports out of range", s);
    if (memcmp(&fast, &ref, sizeof fast) != 0) fail_msg("'%s': fast %.17g, strtod %.17g", s, fast, ref);
    return true;
}

static void append_digits(char *buf, size_t *n, int count, uint32_t *rng)
{
    for (int i = 0; i < count; i++) buf[(*n)++] = (char)('0' + tu_xorshift(rng) % 10);
}

static void test_fast_decimal_edges(void **state)
{
    /* Must be accepted (the forms editors write) and equal strtod. */
    static const char *const fast[] = {
        "0", "-0", "+0", "-0.0", "0.", ".0", "-.0", "5.", ".5", "-.5", "1.000000", "-1024", "0.125", "0.1", "0.3",
        "-12.25", "1e22", "1E22", "-1e22", "1e-22", "1.5e3", "1.5E+3", "25e-1", "9007199254740992",
        "-9007199254740992", "900719925474099.2", "0.000000000000000000001", "123456789012345", "9007199254740991e-4",
        "0000000000000000000000000001", "0.0000000000000000000000", "3.14159265358979", "1e0", "1e-0", "1.e5",
    };
    for (size_t i = 0; i < sizeof fast / sizeof fast[0]; i++)
        if (!check_fast_decimal(fast[i])) fail_msg("'%s' should take the fast path", fast[i]);
    /* -0 keeps its sign, as strtod's does. */
    double z = 1;
    assert_true(lexer_fast_decimal("-0", 2, &z) && z == 0 && signbit(z));
    /* Must be declined: beyond the exact range (strtod decides), or not a
     * plain decimal at all (strtod decides, and lexer_number reports it). */
    static const char *const slow[] = {
        "", "-", "+", ".", "-.", "e5", ".e5", "1e", "1e+", "1e-", "nan", "inf", "-inf", "infinity", "0x10", "0x1p3",
        "1.5.3", "1,5", " 5", "5 ", "--5", "+-5", "1x", "1e22.5", "1e23", "1e-23", "9007199254740993",
        "9007199254740994", "12345678901234567890", "1.7976931348623157e308", "4.9e-324", "1e400", "1e-400",
        "0.1e-22", "100000000000000000000000", "1e99999999999", "1234567890123456789e-4",
    };
    for (size_t i = 0; i < sizeof slow / sizeof slow[0]; i++)
        if (check_fast_decimal(slow[i])) fail_msg("'%s' should not take the fast path", slow[i]);
}

/* Generated strings: every one the fast path takes must match strtod bit for
 * bit, and every plain decimal with at most 15 digits and at most 22
 * fraction digits (an exact mantissa and power) must be taken, so the test
 * fails both for a wrong fast path and for one that declines everything. */
static void test_fast_decimal_generated(void **state)
{
    uint32_t rng = 0x9e3779b9u;
    int taken = 0, must = 0;
    for (int iter = 0; iter < 400000; iter++) {
        char buf[128];
        size_t n = 0;
        uint32_t r = tu_xorshift(&rng);
        if (r & 1) buf[n++] = '-';
        else if ((r & 6) == 2) buf[n++] = '+';
        int form = (int)(tu_xorshift(&rng) % 4);
        /* Lengths favour the boundaries: 15 to 20 significant digits, where
         * a too generous fast path would round twice. */
        int ni = (int)(tu_xorshift(&rng) % 22), nf = 0, lz = 0;
        if (tu_xorshift(&rng) % 4 == 0) lz = 1 + (int)(tu_xorshift(&rng) % 4);
        for (int i = 0; i < lz; i++) buf[n++] = '0';
        append_digits(buf, &n, ni, &rng);
        if (form >= 1) {
            buf[n++] = '.';
            nf = (int)(tu_xorshift(&rng) % 26);
            append_digits(buf, &n, nf, &rng);
        }
        int ex = 0;
        if (form == 3) {
            ex = (int)(tu_xorshift(&rng) % 61) - 30;
            n += (size_t)snprintf(buf + n, sizeof buf - n, "e%+d", ex);
        }
        buf[n] = 0;
        bool took = check_fast_decimal(buf);
        taken += took;
        /* The mantissa digits that can be significant: leading zeros of the
         * integer part never are, so counting all digits here is an upper
         * bound and the condition is sufficient. */
        bool plain = form != 3 && ni + nf >= 1 && ni + nf <= 15 && nf <= 22;
        if (plain) {
            must++;
            if (!took) fail_msg("plain decimal '%s' was not taken by the fast path", buf);
        }
    }
    print_message("fast decimal: %d of 400000 generated strings taken, %d required\n", taken, must);
    assert_true(must > 50000);
    /* Integers and decimals in the exact range of every kind of face line
     * (what real maps hold). */
    for (int v = -70000; v <= 70000; v += 7) {
        char buf[64];
        snprintf(buf, sizeof buf, "%d", v);
        assert_true(check_fast_decimal(buf));
        snprintf(buf, sizeof buf, "%.6f", v / 64.0);
        assert_true(check_fast_decimal(buf));
        snprintf(buf, sizeof buf, "%.15g", v / 3.0);
        check_fast_decimal(buf);
    }
}

/* Face lines of generated numbers, through the whole parser: every value
 * equals strtod of its text, trailing integers equal strtoll of theirs, and
 * sides keep their line. */
static void test_parse_numbers_match_strtod(void **state)
{
    enum { NSIDES = 3000, NNUM = 14 };
    uint32_t rng = 12345;
    size_t cap = (size_t)NSIDES * 600 + 256, n = 0;
    char *text = malloc(cap);
    static char tok[NSIDES][NNUM][48];
    static long long ints[NSIDES][3];
    n += (size_t)snprintf(text + n, cap - n, "{\n\"classname\" \"worldspawn\"\n{\n");
    for (int s = 0; s < NSIDES; s++) {
        for (int k = 0; k < NNUM; k++) {
            uint32_t r = tu_xorshift(&rng);
            switch (r % 6) {
            case 0: snprintf(tok[s][k], 48, "%d", (int)(tu_xorshift(&rng) % 20001) - 10000); break;
            case 1: snprintf(tok[s][k], 48, "%.6f", tu_frand(&rng, -4096, 4096)); break;
            case 2: snprintf(tok[s][k], 48, "%.17g", tu_frand(&rng, -4096, 4096)); break;
            case 3: snprintf(tok[s][k], 48, "%.3e", tu_frand(&rng, -1e6, 1e6)); break;
            case 4: snprintf(tok[s][k], 48, "%.20f", tu_frand(&rng, -1, 1)); break;
            default: snprintf(tok[s][k], 48, "-0"); break;
            }
        }
        for (int k = 0; k < 3; k++) {
            uint32_t r = tu_xorshift(&rng);
            ints[s][k] = r % 3 == 0 ? (long long)(r >> 1) * 2 : (long long)(int)r / 1000;
        }
        char(*t)[48] = tok[s];
        /* Every other line packs numbers against brackets, tabs and a
         * comment: a number ends wherever a word ends. */
        const char *fmt = s & 1 ? "(%s\t%s %s)(%s %s %s)( %s %s %s) tex%d %s %s %s %s %s %lld %lld %lld// c\r\n"
                                : "( %s %s %s ) ( %s %s %s ) ( %s %s %s ) tex%d %s %s %s %s %s %lld %lld %lld\n";
        n += (size_t)snprintf(text + n, cap - n, fmt, t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], s, t[9],
                              t[10], t[11], t[12], t[13], ints[s][0], ints[s][1], ints[s][2]);
    }
    n += (size_t)snprintf(text + n, cap - n, "}\n}\n");
    assert_true(n < cap);
    map_t map;
    q2err_t err;
    if (!map_parse(text, n, "gen.map", &map, &err)) fail_msg("%s", err.msg);
    assert_int_equal(map.numentities, 1);
    assert_int_equal(map.entities[0].numbrushes, 1);
    const map_brush_t *b = &map.entities[0].brushes[0];
    assert_int_equal(b->numsides, NSIDES);
    for (int s = 0; s < NSIDES; s++) {
        const map_side_t *sd = &b->sides[s];
        double got[NNUM] = {sd->points[0].x, sd->points[0].y, sd->points[0].z, sd->points[1].x, sd->points[1].y,
                            sd->points[1].z, sd->points[2].x, sd->points[2].y, sd->points[2].z, sd->shift[0],
                            sd->shift[1], sd->rotate,         sd->scale[0],    sd->scale[1]};
        for (int k = 0; k < NNUM; k++) {
            double ref = strtod(tok[s][k], NULL);
            if (memcmp(&got[k], &ref, sizeof ref) != 0)
                fail_msg("side %d number %d '%s': parsed %.17g, strtod %.17g", s, k, tok[s][k], got[k], ref);
        }
        assert_int_equal(sd->contents, (int)(unsigned int)ints[s][0]);
        assert_int_equal(sd->flags, (int)(unsigned int)ints[s][1]);
        assert_int_equal(sd->value, (int)(unsigned int)ints[s][2]);
        assert_int_equal(sd->line, 4 + s);
        assert_int_equal(sd->col, 1);
    }
    map_free(&map);
    free(text);
}

/* Positions count bytes from 1 within a line: a tab or a carriage return is
 * one column, comments and CRLF line ends are skipped like spaces. */
static void test_error_positions(void **state)
{
    static const struct {
        const char *text, *where, *phrase;
    } cases[] = {
        {"{\r\n\t// c\r\n\t{\r\n\t( 0 0 x ) ( 0 1 0 ) ( 1 0 0 ) t 0 0 0 1 1\r\n}\r\n}\r\n", "bad.map:4:8:",
         "z coordinate of point 1"},
        {"// a\n//\n{ // x\n{ ( 0 0 0 )//c\n( 0 1 0 ) (1 0 0)\tt 0 0 0 1 1 0 0 4294967296\n}\n}\n", "bad.map:5:35:",
         "out of range"},
        {"{\n{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) t 0 0 0 1 1 0 -2147483649 0\n}\n}\n", "bad.map:3:45:", "out of range"},
        {"{\n{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) t 0 0 0 1 \"1\"\n}\n}\n", "bad.map:3:41:", "texture y scale"},
        {"{\n{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) t 0 0 0 1 1e-400\n}\n}\n", "bad.map:3:41:", "not a finite number"},
        {"{\n{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) t 0 0 0 1 1e\n}\n}\n", "bad.map:3:41:", "(a number)"},
        {"{\n{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) t 0 0 0 1 1 0 0 1e\n}\n}\n", "bad.map:3:47:", "(an integer)"},
        {"{\n\"a\" \"b\n\"c\" \"d\"\n}\n", "bad.map:2:5:", "unterminated"},
        /* A number followed by more word characters is one bad word. */
        {"{\n{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) t 0 0 0 1 1.5x\n}\n}\n", "bad.map:3:41:", "found '1.5x'"},
        {"{\n{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) t 0 0 0 1 2/3\n}\n}\n", "bad.map:3:41:", "found '2/3'"},
        {"{\n{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) t 0 0 0 1 7e5e\n}\n}\n", "bad.map:3:41:", "found '7e5e'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        map_t map;
        q2err_t err;
        memset(&err, 0, sizeof err);
        if (map_parse(cases[i].text, strlen(cases[i].text), "bad.map", &map, &err))
            fail_msg("case %zu parsed but should not have", i);
        if (strncmp(err.msg, cases[i].where, strlen(cases[i].where)) != 0 || !strstr(err.msg, cases[i].phrase))
            fail_msg("case %zu: got '%s', expected '%s ... %s'", i, err.msg, cases[i].where, cases[i].phrase);
    }
    /* Over-long tokens and strings: the limit is inclusive. */
    char *text = malloc(4 * LEXER_TOKEN_MAX);
    for (int quoted = 0; quoted < 2; quoted++)
        for (int extra = 0; extra < 2; extra++) {
            int len = LEXER_TOKEN_MAX + extra;
            size_t n = (size_t)snprintf(text, 64, "{\n\"k\" %s", quoted ? "\"" : "");
            memset(text + n, 'a', (size_t)len);
            n += (size_t)len;
            n += (size_t)snprintf(text + n, 64, "%s\n}\n", quoted ? "\"" : "");
            map_t map;
            q2err_t err;
            memset(&err, 0, sizeof err);
            bool ok = map_parse(text, n, "long.map", &map, &err);
            assert_false(ok);
            if (extra) {
                if (!strstr(err.msg, "long.map:2:5:") || !strstr(err.msg, "longer than"))
                    fail_msg("quoted %d: got '%s'", quoted, err.msg);
            } else if (quoted) {
                /* A full-length value parses; the map then fails on the
                 * value's length limit in the entity parser, or not at all. */
                assert_null(strstr(err.msg, "longer than 1024"));
            } else {
                assert_non_null(strstr(err.msg, "no quoted value"));
            }
        }
    free(text);
}

typedef struct bad_case_t {
    const char *text;
    const char *where;  /* "bad.map:L:C:" */
    const char *phrase; /* part of the message */
} bad_case_t;

static void test_errors(void **state)
{
    static const bad_case_t cases[] = {
        /* brace missing at the end of the file */
        {"{\n\"classname\" \"worldspawn\"\n{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) t 0 0 0 1 1\n", "bad.map:5:1:",
         "file ended"},
        /* entity never closed */
        {"{\n\"classname\" \"worldspawn\"\n", "bad.map:3:1:", "file ended"},
        /* a word where a number belongs */
        {"{\n\"classname\" \"worldspawn\"\n{\n( 0 0 x ) ( 0 1 0 ) ( 1 0 0 ) t 0 0 0 1 1\n}\n}\n", "bad.map:4:7:",
         "z coordinate of point 1"},
        {"{\n{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) t 0 0 0 1 1.5.3\n}\n}\n", "bad.map:3:41:", "texture y scale"},
        /* non-finite coordinates */
        {"{\n{\n( 0 0 0 ) ( nan 1 0 ) ( 1 0 0 ) t 0 0 0 1 1\n}\n}\n", "bad.map:3:13:", "not a finite number"},
        {"{\n{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 1e999 ) t 0 0 0 1 1\n}\n}\n", "bad.map:3:27:", "not a finite number"},
        /* unterminated string */
        {"{\n\"classname\" \"worldspawn\n}\n", "bad.map:2:13:", "unterminated"},
        /* only two points */
        {"{\n{\n( 0 0 0 ) ( 0 1 0 ) t 0 0 0 1 1\n}\n}\n", "bad.map:3:21:", "expected '('"},
        /* brush primitives */
        {"{\n\"classname\" \"worldspawn\"\n{\nbrushDef\n{\n}\n}\n}\n", "bad.map:4:1:", "brushDef"},
        {"{\n{\npatchDef2\n{\n}\n}\n}\n", "bad.map:3:1:", "patchDef2"},
        /* a missing scale: the closing brace is found instead */
        {"{\n{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) t 0 0 0 1\n}\n}\n", "bad.map:4:1:", "texture y scale"},
        /* two of the three trailing integers */
        {"{\n{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) t 0 0 0 1 1 0 0\n}\n}\n", "bad.map:4:1:", "surface value"},
        /* a float where an integer flag belongs */
        {"{\n{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) t 0 0 0 1 1 0 0.5 0\n}\n}\n", "bad.map:3:45:", "surface flags"},
        /* garbage at the top level */
        {"worldspawn\n", "bad.map:1:1:", "expected '{'"},
        {"{\n}\n}\n", "bad.map:3:1:", "expected '{'"},
        /* a closing bracket missing from a Valve axis */
        {"{\n{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) t [ 1 0 0 0 [ 0 1 0 0 ] 0 1 1\n}\n}\n", "bad.map:3:43:", "']'"},
        /* a key without a value */
        {"{\n\"classname\"\n}\n", "bad.map:3:1:", "classname"},
        /* a pair after a brush */
        {"{\n{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) t 0 0 0 1 1\n}\n\"origin\" \"0 0 0\"\n}\n", "bad.map:5:1:",
         "must come before"},
        /* no texture name */
        {"{\n{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) ( 0 0 0 1 1\n}\n}\n", "bad.map:3:31:", "texture name"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        map_t map;
        q2err_t err;
        memset(&err, 0, sizeof err);
        bool ok = map_parse(cases[i].text, strlen(cases[i].text), "bad.map", &map, &err);
        if (ok) fail_msg("case %zu parsed but should not have", i);
        if (strncmp(err.msg, cases[i].where, strlen(cases[i].where)) != 0 || !strstr(err.msg, cases[i].phrase))
            fail_msg("case %zu: got '%s', expected '%s ... %s'", i, err.msg, cases[i].where, cases[i].phrase);
        assert_int_equal(map.numentities, 0); /* freed on failure */
    }
    /* A name too long for the side's buffer. */
    char text[512];
    snprintf(text, sizeof text, "{\n{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) %0100d 0 0 0 1 1\n}\n}\n", 7);
    map_t map;
    q2err_t err;
    assert_false(map_parse(text, strlen(text), "bad.map", &map, &err));
    assert_non_null(strstr(err.msg, "longer than"));
    /* A missing file names the path. */
    assert_false(map_read_file(Q2MAP_TEST_DATA "/map/no-such.map", &map, &err));
    assert_non_null(strstr(err.msg, "no-such.map"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_all_maps),
        cmocka_unit_test(test_trenchbroom_keys_and_comments),
        cmocka_unit_test(test_valve_line),
        cmocka_unit_test(test_projection_axial),
        cmocka_unit_test(test_projection_rotate_scale_shift),
        cmocka_unit_test(test_projection_origin),
        cmocka_unit_test(test_projection_valve),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_fast_decimal_edges),
        cmocka_unit_test(test_fast_decimal_generated),
        cmocka_unit_test(test_parse_numbers_match_strtod),
        cmocka_unit_test(test_error_positions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
