/* Built-in metadata for tool textures, so maps compile with the right
 * contents and flags when the game's .wal files are absent.
 *
 * Quake 2 entries agree with the .wal_json files ericw-tools ships for its
 * Quake 2 test maps (copied to tests/data/textures/baseq2/textures/e1u1/;
 * a unit test checks every one of them against this table). Those files
 * describe what Quake 2's own e1u1 tool textures carry. Entries without
 * such a file say where they come from. Quake 1 names are mapped to the
 * Quake 2 contents that Quake 1's compilers give them. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "q2defs.h"
#include "textures.h"

typedef enum match_t {
    MATCH_EXACT,  /* the whole last path component */
    MATCH_PREFIX, /* the component starts with the pattern */
    MATCH_LIQUID, /* Quake 1 liquids: '*' first, pattern anywhere after */
} match_t;

typedef struct tooltex_t {
    const char *pattern;
    match_t match;
    int contents, flags;
} tooltex_t;

/* First match wins, so specific names precede the patterns that would also
 * match them. */
static const tooltex_t tooltex_table[] = {
    /* e1u1/clip.wal_json: MONSTERCLIP|PLAYERCLIP, NODRAW. Quake 1's "clip"
     * blocks players and monsters alike, so it maps the same way. */
    {"clip", MATCH_EXACT, CONTENTS_PLAYERCLIP | CONTENTS_MONSTERCLIP, SURF_NODRAW},
    /* e1u1/clip_mon.wal_json: MONSTERCLIP, NODRAW; "monclip" is the name in
     * several community texture packs for the same thing. */
    {"clip_mon", MATCH_EXACT, CONTENTS_MONSTERCLIP, SURF_NODRAW},
    {"monclip", MATCH_EXACT, CONTENTS_MONSTERCLIP, SURF_NODRAW},
    /* Player-only clip (CONTENTS_PLAYERCLIP as documented in Quake 2's
     * qfiles.h), under the names community packs use. */
    {"clip_player", MATCH_EXACT, CONTENTS_PLAYERCLIP, SURF_NODRAW},
    {"playerclip", MATCH_EXACT, CONTENTS_PLAYERCLIP, SURF_NODRAW},
    /* e1u1/trigger.wal_json: NODRAW and no contents; qbsp then makes the
     * brush solid like any brush without visible contents, which is what
     * trigger brush models need. Quake 1's "trigger" is the same. */
    {"trigger", MATCH_EXACT, 0, SURF_NODRAW},
    /* e1u1/hint.wal_json: HINT|NODRAW. */
    {"hint", MATCH_EXACT, 0, SURF_HINT | SURF_NODRAW},
    /* Skip faces are dropped by qbsp (SURF_SKIP, qfiles.h) and never drawn;
     * "hintskip" is the name LibreQuake and ericw-tools use for the
     * non-splitting sides of hint brushes. */
    {"skip", MATCH_EXACT, 0, SURF_SKIP | SURF_NODRAW},
    {"hintskip", MATCH_EXACT, 0, SURF_SKIP | SURF_NODRAW},
    /* TrenchBroom's __TB_empty, the name it gives faces with no texture:
     * ericw-tools' qbsp compiles them as skip. */
    {"__TB_empty", MATCH_EXACT, 0, SURF_SKIP | SURF_NODRAW},
    /* e1u1/origin.wal_json: ORIGIN, NODRAW. */
    {"origin", MATCH_EXACT, CONTENTS_ORIGIN, SURF_NODRAW},
    /* A plain invisible face (SURF_NODRAW). */
    {"nodraw", MATCH_EXACT, 0, SURF_NODRAW},
    /* Brushes of func_areaportal entities (CONTENTS_AREAPORTAL); never
     * drawn. */
    {"areaportal", MATCH_EXACT, CONTENTS_AREAPORTAL, SURF_NODRAW},
    /* Visible non-solid volumes: CONTENTS_MIST and CONTENTS_LADDER
     * (qfiles.h); the faces stay drawn. */
    {"mist", MATCH_EXACT, CONTENTS_MIST, 0},
    {"ladder", MATCH_EXACT, CONTENTS_LADDER, 0},
    /* Quake 1 liquids: a leading '*' marks a warped liquid; id's Quake 1
     * qbsp picks lava or slime by name and water otherwise (teleporters
     * included). */
    {"lava", MATCH_LIQUID, CONTENTS_LAVA, SURF_WARP},
    {"slime", MATCH_LIQUID, CONTENTS_SLIME, SURF_WARP},
    {"", MATCH_LIQUID, CONTENTS_WATER, SURF_WARP},
    /* e1u1/sky1.wal_json: SKY|NODRAW, no contents. Quake 2's skies are
     * e1u1/sky1, e2u1/sky2...; Quake 1's are sky1, sky4...; both start with
     * "sky". */
    {"sky", MATCH_PREFIX, 0, SURF_SKY | SURF_NODRAW},
};

static bool ci_contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0) return true;
    return n == 0;
}

bool tooltex_lookup(const char *name, int *contents, int *flags, int *value)
{
    if (!name) return false;
    const char *base = name;
    for (const char *p = name; *p; p++)
        if (*p == '/' || *p == '\\') base = p + 1;
    for (size_t i = 0; i < sizeof tooltex_table / sizeof tooltex_table[0]; i++) {
        const tooltex_t *t = &tooltex_table[i];
        bool hit = false;
        switch (t->match) {
        case MATCH_EXACT: hit = strcasecmp(base, t->pattern) == 0; break;
        case MATCH_PREFIX: hit = strncasecmp(base, t->pattern, strlen(t->pattern)) == 0; break;
        case MATCH_LIQUID: hit = base[0] == '*' && ci_contains(base + 1, t->pattern); break;
        }
        if (hit) {
            if (contents) *contents = t->contents;
            if (flags) *flags = t->flags;
            if (value) *value = 0;
            return true;
        }
    }
    return false;
}
