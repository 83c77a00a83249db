#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "entities.h"
#include "q2defs.h"

static const char *sample =
    "{\n"
    "\"classname\" \"worldspawn\"\n"
    "\"message\" \"A test // not a comment\"\n"
    "\"sky\" \"unit1_\"\n"
    "}\n"
    "// a comment between entities\n"
    "{\n"
    "\"classname\" \"light\"\n"
    "\"origin\" \"16 -32.5 1e2\"\n"
    "\"light\" \"300\"\n"
    "}\n"
    "{\n"
    "}\n";

static void test_parse_and_get(void **state)
{
    (void)state;
    entity_list_t l;
    q2err_t err = {0};
    assert_true(entities_parse(sample, "sample", &l, &err));
    assert_int_equal(l.count, 3);
    assert_string_equal(entity_classname(&l.ents[0]), "worldspawn");
    assert_string_equal(entity_get(&l.ents[0], "message"), "A test // not a comment");
    assert_int_equal(l.ents[0].line, 1);
    assert_int_equal(l.ents[0].pairs[1].line, 3);
    assert_int_equal(l.ents[1].line, 7);
    assert_string_equal(entity_classname(&l.ents[2]), "");
    assert_null(entity_get(&l.ents[0], "nothere"));
    assert_true(entity_get_float(&l.ents[1], "light", 0) == 300.0);
    assert_true(entity_get_float(&l.ents[1], "missing", 7.5) == 7.5);
    vec3_t v = {1, 2, 3};
    assert_true(entity_get_vec3(&l.ents[1], "origin", &v));
    assert_true(v.x == 16 && v.y == -32.5 && v.z == 100);
    entities_free(&l);
    assert_int_equal(l.count, 0);
}

static void test_vec3_malformed(void **state)
{
    (void)state;
    entity_t e = {0};
    vec3_t v = {9, 9, 9};
    assert_false(entity_get_vec3(&e, "origin", &v));
    const char *bad[] = {"1 2", "1 2 x", "1 2 3 4", "", "a b c", "1 2 nan", "1 1e999 2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        entity_set(&e, "origin", bad[i]);
        assert_false(entity_get_vec3(&e, "origin", &v));
        assert_true(v.x == 9 && v.y == 9 && v.z == 9);
    }
    entity_set(&e, "origin", "  -1\t2.25 3  ");
    assert_true(entity_get_vec3(&e, "origin", &v));
    assert_true(v.x == -1 && v.y == 2.25 && v.z == 3);
    entity_set(&e, "light", "abc");
    assert_true(entity_get_float(&e, "light", 200) == 200);
    entity_free(&e);
}

static void test_set_remove(void **state)
{
    (void)state;
    entity_t e = {0};
    entity_set(&e, "classname", "info_null");
    entity_set(&e, "targetname", "t1");
    entity_set(&e, "classname", "light");
    assert_int_equal(e.numpairs, 2);
    assert_string_equal(entity_classname(&e), "light");
    entity_remove(&e, "classname");
    assert_int_equal(e.numpairs, 1);
    assert_null(entity_get(&e, "classname"));
    assert_string_equal(entity_get(&e, "targetname"), "t1");
    entity_remove(&e, "nothing");
    assert_int_equal(e.numpairs, 1);
    entity_free(&e);
}

static void test_duplicate_keys_last_wins(void **state)
{
    (void)state;
    entity_list_t l;
    q2err_t err = {0};
    assert_true(entities_parse("{ \"a\" \"1\" \"b\" \"x\" \"a\" \"2\" }", "dup", &l, &err));
    assert_string_equal(entity_get(&l.ents[0], "a"), "2");
    entity_remove(&l.ents[0], "a");
    assert_int_equal(l.ents[0].numpairs, 1);
    entities_free(&l);
}

/* The same entities with the same pairs in the same order. */
static void assert_same_entities(const entity_list_t *a, const entity_list_t *b)
{
    assert_int_equal(a->count, b->count);
    for (int i = 0; i < a->count; i++) {
        assert_int_equal(a->ents[i].numpairs, b->ents[i].numpairs);
        for (int j = 0; j < a->ents[i].numpairs; j++) {
            assert_string_equal(a->ents[i].pairs[j].key, b->ents[i].pairs[j].key);
            assert_string_equal(a->ents[i].pairs[j].value, b->ents[i].pairs[j].value);
        }
    }
}

static void test_round_trip(void **state)
{
    (void)state;
    entity_list_t l, l2;
    q2err_t err = {0};
    assert_true(entities_parse(sample, "sample", &l, &err));
    char *text = entities_unparse(&l);
    assert_non_null(text);
    assert_true(strncmp(text, "{\n\"classname\" \"worldspawn\"\n", 27) == 0);
    assert_true(entities_parse(text, "unparsed", &l2, &err));
    assert_same_entities(&l, &l2);
    /* Unparsing the re-parsed list gives the same text: a fixed point. */
    char *text2 = entities_unparse(&l2);
    assert_string_equal(text, text2);
    free(text);
    free(text2);
    entities_free(&l);
    entities_free(&l2);

    entity_list_t empty = {0};
    char *t = entities_unparse(&empty);
    assert_string_equal(t, "");
    free(t);
}

static void test_random_round_trips(void **state)
{
    (void)state;
    /* Deterministic pseudo-random keys and values of printable characters
     * (no quote, no newline), lengths up to the limits. */
    uint32_t seed = 12345;
    for (int iter = 0; iter < 50; iter++) {
        entity_list_t l = {0};
        int ne = 1 + (int)(seed % 5);
        for (int i = 0; i < ne; i++) {
            entity_t e = {0};
            int np = (int)((seed >> 3) % 6);
            for (int j = 0; j < np; j++) {
                char k[MAX_KEY], v[MAX_VALUE];
                seed = seed * 1664525u + 1013904223u;
                int kl = 1 + (int)((seed >> 8) % (MAX_KEY - 1));
                seed = seed * 1664525u + 1013904223u;
                int vl = (int)((seed >> 8) % (MAX_VALUE));
                for (int c = 0; c < kl; c++) {
                    seed = seed * 1664525u + 1013904223u;
                    char ch = (char)(' ' + (seed >> 16) % 95);
                    k[c] = ch == '"' ? '_' : ch;
                }
                k[kl] = 0;
                for (int c = 0; c < vl; c++) {
                    seed = seed * 1664525u + 1013904223u;
                    char ch = (char)(' ' + (seed >> 16) % 95);
                    v[c] = ch == '"' ? '_' : ch;
                }
                v[vl] = 0;
                /* Append directly so duplicate keys are kept too. */
                epair_t p = {strdup(k), strdup(v), 0};
                if (e.numpairs == e.cap) {
                    e.cap = e.cap ? e.cap * 2 : 4;
                    e.pairs = realloc(e.pairs, (size_t)e.cap * sizeof *e.pairs);
                }
                e.pairs[e.numpairs++] = p;
            }
            if (l.count == l.cap) {
                l.cap = l.cap ? l.cap * 2 : 4;
                l.ents = realloc(l.ents, (size_t)l.cap * sizeof *l.ents);
            }
            l.ents[l.count++] = e;
        }
        char *text = entities_unparse(&l);
        entity_list_t l2;
        q2err_t err = {0};
        assert_true(entities_parse(text, "random", &l2, &err));
        assert_same_entities(&l, &l2);
        free(text);
        entities_free(&l);
        entities_free(&l2);
    }
}

static void expect_error(const char *text, int line, const char *needle)
{
    entity_list_t l;
    q2err_t err = {0};
    assert_false(entities_parse(text, "bad.ent", &l, &err));
    if (err.line != line || !strstr(err.msg, needle) || !strstr(err.msg, "bad.ent:"))
        fail_msg("for %s: expected line %d and '%s', got line %d: %s", text, line, needle, err.line, err.msg);
    assert_int_equal(l.count, 0);
    assert_null(l.ents);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("{\n\"a\" \"b\"\n", 3, "file ended");
    expect_error("\"a\" \"b\"", 1, "expected '{'");
    expect_error("{\n\"a\" \"b\"\n}\n{\n\"key\"\n}\n", 6, "no quoted value");
    expect_error("{\n\"a\" \"b\"\n}\n{\n\"key\"", 5, "no value");
    expect_error("{\n\"a\" \"unterminated\n}\n", 2, "unterminated");
    expect_error("{\n\n\"a\" \"b\" x\n}\n", 3, "expected '}'");
    expect_error("{ { } }", 1, "expected '}'");
    expect_error("}", 1, "expected '{'");

    char buf[4096];
    /* A key of MAX_KEY-1 characters is fine; one more is an error. */
    snprintf(buf, sizeof buf, "{\n\"%0*d\" \"v\"\n}\n", MAX_KEY - 1, 0);
    entity_list_t l;
    q2err_t err = {0};
    assert_true(entities_parse(buf, "ok", &l, &err));
    entities_free(&l);
    snprintf(buf, sizeof buf, "{\n\n\"%0*d\" \"v\"\n}\n", MAX_KEY, 0);
    expect_error(buf, 3, "key");

    char *big = malloc(MAX_VALUE + 64);
    memset(big, 'x', MAX_VALUE + 64);
    memcpy(big, "{\n\"k\" \"", 7);
    big[7 + MAX_VALUE - 1] = '"';
    strcpy(big + 7 + MAX_VALUE, "\n}\n");
    assert_true(entities_parse(big, "ok", &l, &err));
    assert_int_equal((int)strlen(entity_get(&l.ents[0], "k")), MAX_VALUE - 1);
    entities_free(&l);
    memset(big, 'x', MAX_VALUE + 64);
    memcpy(big, "{\n\"k\" \"", 7);
    big[7 + MAX_VALUE] = '"';
    strcpy(big + 7 + MAX_VALUE + 1, "\n}\n");
    expect_error(big, 2, "longer than");
    free(big);
}

static void test_empty_input(void **state)
{
    (void)state;
    entity_list_t l;
    q2err_t err = {0};
    assert_true(entities_parse("", "empty", &l, &err));
    assert_int_equal(l.count, 0);
    entities_free(&l);
    assert_true(entities_parse("  \n// only a comment\n", "empty", &l, &err));
    assert_int_equal(l.count, 0);
    entities_free(&l);
}

static void test_parse_pairs_stops_at_brush(void **state)
{
    (void)state;
    /* The .map parser's use: pairs, then a brush's '{' left unconsumed. */
    const char *text = "\"classname\" \"func_door\"\n\"angle\" \"-1\"\n{\n";
    lexer_t lx;
    lexer_init(&lx, text, strlen(text), "m.map");
    entity_t e = {0};
    q2err_t err = {0};
    assert_true(entity_parse_pairs(&lx, &e, &err));
    assert_int_equal(e.numpairs, 2);
    assert_int_equal(e.pairs[1].line, 2);
    assert_true(lexer_next(&lx, &err));
    assert_true(lexer_is(&lx, "{"));
    assert_int_equal(lx.tok_line, 3);
    entity_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_and_get),
        cmocka_unit_test(test_vec3_malformed),
        cmocka_unit_test(test_set_remove),
        cmocka_unit_test(test_duplicate_keys_last_wins),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_random_round_trips),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_empty_input),
        cmocka_unit_test(test_parse_pairs_stops_at_brush),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
