/* The one table of map keys, classnames, textures and options that
 * Quake 2 compilers (q2map, ericw-tools, q2tools-220, arghrad, qrad3) and
 * TrenchBroom give meaning to: where each applies, which q2map program
 * reads it, its default, q2map's status and the test that shows its
 * effect. qbsp warns about `_` keys from it (keytable_check_entity) and
 * docs/keys.md is generated from it (`qbsp -keys`); a unit test keeps the
 * two equal and checks that every honoured row names a test that exists.
 *
 * Rows live in keytable.c, one per line, so that a status can change one
 * row at a time. */
#ifndef Q2M_KEYTABLE_H
#define Q2M_KEYTABLE_H

#include <stdbool.h>
#include <stdio.h>

/* What a row names. */
typedef enum key_kind_t {
    KIND_KEY = 0,   /* an entity key */
    KIND_CLASS,     /* a classname */
    KIND_TEXTURE,   /* a texture name with a compiler meaning */
    KIND_OPTION,    /* a command-line option (the peer's spelling) */
} key_kind_t;

/* Where a key applies (bits). */
enum {
    AT_WORLD = 1,   /* worldspawn */
    AT_LIGHT = 2,   /* light, light_spot, ... */
    AT_BMODEL = 4,  /* brush entities, func_group and func_detail* included */
    AT_POINT = 8,   /* other point entities */
    AT_GROUP = 16,  /* func_group and func_detail*: their brushes join the world (lighting keys: qbsp/groupkeys.h) */
    AT_ANY = AT_WORLD | AT_LIGHT | AT_BMODEL | AT_POINT | AT_GROUP,
};

/* Which q2map program reads it (bits); none for rows no program reads. */
enum {
    BY_QBSP = 1,
    BY_QVIS = 2,
    BY_QRAD = 4,
    BY_GAME = 8,    /* the game or engine; compilers pass it through */
    BY_EDITOR = 16, /* TrenchBroom's own bookkeeping */
};

typedef enum key_status_t {
    KS_HONOURED = 0, /* read and in effect; `test` shows it */
    KS_UNTESTED,     /* read and in effect, but no test checks it yet */
    KS_NOT_YET,      /* meaningful in Quake 2, not implemented yet */
    KS_MEANINGLESS,  /* no meaning in Quake 2 (note says why) */
    KS_QUIET,        /* editor bookkeeping: known and silent */
} key_status_t;

typedef struct keyrow_t {
    const char *name;   /* a trailing '*' matches any suffix */
    key_kind_t kind;
    unsigned at;        /* AT_* bits (keys only) */
    unsigned readers;   /* BY_* bits */
    const char *dflt;   /* "" when it has none */
    key_status_t status;
    const char *test;   /* a name found in tests/ (honoured rows), else "" */
    const char *origin; /* whose key: "ericw", "q2tools", "arghrad", "qrad3", "TB", "id" */
    const char *note;   /* what it does, or why it is meaningless */
} keyrow_t;

/* The table, in documentation order, and its length. */
const keyrow_t *keytable_rows(int *count);

/* The row for a key of `kind` (exact names before '*' prefixes), or NULL.
 * Keys are compared case-sensitively, as the tools read them. */
const keyrow_t *keytable_find(const char *name, key_kind_t kind);

const char *keytable_status_name(key_status_t s);

/* Where an entity's keys are read: AT_WORLD, AT_LIGHT, AT_GROUP,
 * AT_BMODEL or AT_POINT from its classname and whether it has brushes. */
unsigned keytable_entity_kind(const char *classname, bool has_brushes);

/* Whether a `_` key on an entity of `kind` (AT_*) needs a warning, and
 * why: unknown, not yet honoured, meaningless in Quake 2, or read only on
 * other entities. Writes a sentence into why (no trailing period).
 * Returns false for keys without a leading '_' and for keys read here. */
bool keytable_key_warning(const char *key, unsigned kind, char *why, size_t whysize);

/* docs/keys.md: the whole table as Markdown. */
void keytable_write_markdown(FILE *f);

#endif
