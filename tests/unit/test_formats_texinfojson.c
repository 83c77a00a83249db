/* formats/texinfojson.c: ericw-tools' MAP.texinfo.json turned into keysets
 * with qrad's key names and units; every malformed file an error naming the
 * file and the line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "texinfojson.h"
#include "test_util.h"

static bool decode(const char *text, int numtexinfo, texinfojson_t *t, q2err_t *err)
{
    return texinfojson_decode((const uint8_t *)text, strlen(text), numtexinfo, "m.texinfo.json", t, err);
}

static const char *key(const texinfojson_t *t, int ti, const char *k)
{
    assert_true(ti < t->numtexinfo);
    if (!t->set[ti]) return NULL;
    return entity_get(&t->sets.ents[t->set[ti] - 1], k);
}

/* The file ericw-tools' qbsp wrote for q2_light_low_luxel_res (one
 * func_group with _minlight 2 and _minlight_color 1 0.8 0; tests/data/
 * texinfojson/README.md). */
static void test_ericw_file(void **state)
{
    (void)state;
    size_t n;
    uint8_t *data = tu_read_file(Q2MAP_TEST_DATA "/texinfojson/q2_light_low_luxel_res.texinfo.json", 1 << 20, &n);
    texinfojson_t t;
    q2err_t err;
    assert_true(texinfojson_decode(data, n, 12, "x.texinfo.json", &t, &err));
    assert_int_equal(t.numentries, 12);
    assert_int_equal(t.sets.count, 1); /* nine texinfos, one keyset */
    for (int ti = 0; ti < 12; ti++) assert_int_equal(t.set[ti], ti >= 3 ? 1 : 0);
    assert_string_equal(key(&t, 3, "_minlight"), "2");
    assert_string_equal(key(&t, 3, "_minlight_color"), "1 0.8 0");
    assert_string_equal(key(&t, 3, "classname"), "texinfo.json");
    texinfojson_free(&t);
    /* a bsp with fewer texinfos: the file is another compile's */
    assert_false(texinfojson_decode(data, n, 11, "x.texinfo.json", &t, &err));
    assert_non_null(strstr(err.msg, "x.texinfo.json:"));
    assert_non_null(strstr(err.msg, "\"11\" is not a texinfo number of the bsp (it has 11)"));
    free(data);
}

static void test_fields(void **state)
{
    (void)state;
    const char *text = "{\n"
                       "  \"0\": { \"minlight\": 0.5, \"no_minlight\": true, \"no_dirt\": true, \"no_bounce\": false },\n"
                       "  \"1\": { \"phong_angle\": 200, \"phong_angle_concave\": 30, \"phong_group\": 3,\n"
                       "         \"maxlight\": 3, \"light_ignore\": true },\n"
                       "  \"2\": { \"object_channel_mask\": 8, \"world_units_per_luxel\": 16, \"is_sky\": true,\n"
                       "         \"some_later_field\": [1, {\"a\": 2}], \"light_alpha\": 0.5 },\n"
                       "  \"3\": { \"object_channel_mask\": 8, \"world_units_per_luxel\": 16 },\n"
                       "  \"4\": { \"is_light\": true, \"no_shadow\": true },\n"
                       "  \"6\": { \"minlight_color\": [255, 0, 51] }\n"
                       "}\n";
    texinfojson_t t;
    q2err_t err;
    assert_true(decode(text, 8, &t, &err));
    assert_int_equal(t.numentries, 6);
    /* no_minlight wins over minlight, as in ericw-tools' light */
    assert_string_equal(key(&t, 0, "_minlight"), "0");
    assert_string_equal(key(&t, 0, "_dirt"), "-1");
    assert_null(key(&t, 0, "_bounce"));
    /* angles over 180 smooth as 180 does; maxlight over 2 caps nothing */
    assert_string_equal(key(&t, 1, "_phong_angle"), "180");
    assert_string_equal(key(&t, 1, "_phong_angle_concave"), "30");
    assert_string_equal(key(&t, 1, "_phong_group"), "3");
    assert_string_equal(key(&t, 1, "_maxlight"), "2");
    assert_string_equal(key(&t, 1, "_lightignore"), "1");
    assert_string_equal(key(&t, 2, "_object_channel_mask"), "8");
    assert_string_equal(key(&t, 2, "_world_units_per_luxel"), "16");
    assert_string_equal(key(&t, 6, "_minlight_color"), "1 0 0.2");
    /* the same keys: one keyset; only flags the bsp has: none */
    assert_int_equal(t.set[2], t.set[3]);
    assert_int_equal(t.set[4], 0);
    assert_int_equal(t.set[5], 0);
    assert_int_equal(t.set[7], 0);
    assert_int_equal(t.sets.count, 4);
    /* each pair keeps its field's line */
    const entity_t *e = &t.sets.ents[t.set[1] - 1];
    for (int p = 0; p < e->numpairs; p++)
        if (!strcmp(e->pairs[p].key, "_maxlight")) assert_int_equal(e->pairs[p].line, 4);
    /* settings qrad takes from entity keys only, with the line of their first use */
    for (int i = 0; i < TEXINFOJSON_NUNREAD; i++) {
        const char *name = texinfojson_unread_name(i);
        if (!strcmp(name, "light_alpha")) assert_int_equal(t.unread_line[i], 6);
        else if (!strcmp(name, "no_shadow")) assert_int_equal(t.unread_line[i], 8);
        else assert_int_equal(t.unread_line[i], 0);
    }
    assert_null(texinfojson_unread_name(TEXINFOJSON_NUNREAD));
    texinfojson_free(&t);
    /* an empty object: no keys */
    assert_true(decode(" {} ", 3, &t, &err));
    assert_int_equal(t.sets.count, 0);
    texinfojson_free(&t);
}

/* Each malformed file: false, and the message names the file and line. */
static void bad(const char *text, size_t len, int line, const char *why)
{
    texinfojson_t t;
    q2err_t err;
    memset(&err, 0, sizeof err);
    bool ok = texinfojson_decode((const uint8_t *)text, len, 4, "m.texinfo.json", &t, &err);
    if (ok) fail_msg("accepted: %s", text);
    char where[64];
    snprintf(where, sizeof where, "m.texinfo.json:%d:", line);
    if (!strstr(err.msg, where) || !strstr(err.msg, why))
        fail_msg("for %s\n  got \"%s\"\n  want \"%s\" and \"%s\"", text, err.msg, where, why);
    assert_null(t.set);
    assert_int_equal(t.sets.count, 0);
}

static void test_malformed(void **state)
{
    (void)state;
#define BAD(text, line, why) bad(text, strlen(text), line, why)
    BAD("", 1, "not valid JSON");
    BAD("{\n \"0\": {\n  \"minlight\": 1.0,\n }\n}", 4, "not valid JSON");
    BAD("{\n \"0\": {}\n}\n}", 4, "not valid JSON");
    BAD("{\n \"0\": { \"minlight\": 1.0 }", 2, "not valid JSON");
    BAD("[1, 2]", 1, "not a JSON object of texinfo numbers");
    BAD("{\n\"0\": {},\n\"x\": {}\n}", 3, "\"x\" is not a texinfo number of the bsp (it has 4)");
    BAD("{\n\"0\": {},\n\"-1\": {}\n}", 3, "not a texinfo number");
    BAD("{\n\"0\": {},\n\"4\": {}\n}", 3, "not a texinfo number");
    BAD("{\n\"\": {}\n}", 2, "not a texinfo number");
    BAD("{\n\"1\": {},\n\n\"1\": {}\n}", 4, "texinfo 1 given twice (first on line 2)");
    BAD("{\n\"0\": {},\n\"2\": 5\n}", 3, "texinfo 2: not an object of settings");
    BAD("{\n\"0\": {\n\"minlight\": \"2\"}\n}", 3, "\"minlight\" is not a number in 0..1e+06");
    BAD("{\n\"0\": {\"is_sky\": true,\n\"minlight\": -1}\n}", 3, "\"minlight\" is not a number");
    BAD("{\"0\": {\"phong_angle\": 400}}", 1, "\"phong_angle\" is not a number in 0..360");
    BAD("{\"0\": {}, \"1\": {\n\"object_channel_mask\": 1.5}}", 2, "\"object_channel_mask\" is not a whole number");
    BAD("{\"0\": {\n\"phong_group\": -2}}", 2, "\"phong_group\" is not a whole number");
    BAD("{\"0\": {\n\"no_dirt\": 1}}", 2, "\"no_dirt\" is not true or false");
    BAD("{\"0\": {\n\"minlight_color\": [255, 0]}}", 2, "\"minlight_color\" is not [r, g, b] with each 0..255");
    BAD("{\"0\": {\n\"minlight_color\": [255, 0, 0, 0]}}", 2, "\"minlight_color\" is not [r, g, b]");
    BAD("{\"0\": {\n\"minlight_color\": [256, 0, 0]}}", 2, "\"minlight_color\" is not [r, g, b]");
    BAD("{\"0\": {\n\"minlight_color\": \"1 0 0\"}}", 2, "\"minlight_color\" is not [r, g, b]");
    BAD("{\"0\": {\"minlight\": 1,\n\n\"minlight\": 2}}", 3, "\"minlight\" given twice in one texinfo entry (first on line 1)");
    bad("{\"0\": {}\n\0}", 10, 2, "NUL byte");
#undef BAD
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ericw_file),
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
