/* Entities: key/value lists, as in the .bsp entity lump and .map files.
 * One parser serves both (the .map parser calls entity_parse_pairs for the
 * pairs of each entity). */
#ifndef Q2M_ENTITIES_H
#define Q2M_ENTITIES_H

#include <stdbool.h>

#include "../common/error.h"
#include "../common/mathlib.h"
#include "lexer.h"

typedef struct epair_t {
    char *key;
    char *value;
    int line; /* source line, 0 if unknown */
} epair_t;

typedef struct entity_t {
    epair_t *pairs;
    int numpairs, cap;
    int line; /* line of the opening brace */
} entity_t;

typedef struct entity_list_t {
    entity_t *ents;
    int count, cap;
} entity_list_t;

/* Parses `{ "key" "value" ... }` blocks. Keys longer than MAX_KEY-1 or values
 * longer than MAX_VALUE-1 are errors naming the line. */
bool entities_parse(const char *text, const char *name, entity_list_t *out, q2err_t *err);

/* Reads "key" "value" pairs after an opening brace until a token that is not
 * a quoted string (left unconsumed with lexer_unget). */
bool entity_parse_pairs(lexer_t *lx, entity_t *e, q2err_t *err);

/* Text in the form engines read: "{\n\"k\" \"v\"\n}\n" per entity. */
char *entities_unparse(const entity_list_t *list);

void entities_free(entity_list_t *list);
void entity_free(entity_t *e);

/* The value of the last pair with this key, or NULL. */
const char *entity_get(const entity_t *e, const char *key);
double entity_get_float(const entity_t *e, const char *key, double dflt);
/* Parses "x y z"; returns false (and leaves *out) when missing or malformed. */
bool entity_get_vec3(const entity_t *e, const char *key, vec3_t *out);
/* Replaces the value of an existing key or appends the pair. */
void entity_set(entity_t *e, const char *key, const char *value);
void entity_remove(entity_t *e, const char *key);
const char *entity_classname(const entity_t *e); /* "" when absent */

#endif
