/* The keys another tool reads. Under -preset qrad3 or -preset ericw a map
 * must be lit as that tool lights it, and a tool lights nothing from a key
 * it does not know: qrad3 reads no worldspawn key at all (no sun, no sky
 * dome, no _ambient: only its -ambient option), and ericw-tools' light
 * reads some of arghrad's keys under its own names (_sun_light is its
 * _sunlight) but not the others (_ambient, _sun_ambient, _sun_diffuse, ...;
 * its light entities' _fade, _distance and _angfade only with
 * -arghradcompat). So before any stage reads a key, the keys the tool would
 * not read are taken out of qrad's own copy of the entities (the bsp's
 * entity lump is written back as it was), and each such key is reported
 * once, naming the tool. The lists and where each rule comes from are in
 * docs/qrad.md ("What each preset reads"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolkeys.h"
#include "../common/mem.h"

/* qrad3's CreateDirectLights: a `light*` entity's light (or _light), style,
 * _color, target (or angle for light_spot) and _cone, and its origin. */
static const char *const qrad3_light_keys[] = {"classname", "origin", "light", "_light", "style", "_color",
                                                "target", "targetname", "_cone", "angle", "spawnflags", NULL};

/* ericw-tools' light (2.0.0-alpha11), Quake 2 mode without -arghradcompat:
 * worldspawn keys of arghrad and q2tools it has no setting for. Its own
 * second sun is "_sun2" with "_sun2_color" and "_sun2_mangle", which stay. */
static const char *const ericw_world_drop[] = {"_ambient",     "_sun_ambient", "_sun_diffuse", "_sun_diffwait",
                                               "_sun_difwait", "_sun_diffade", "_sun_vector",  "_sun_target",
                                               "_sun_style",   "_sun",         NULL};
/* arghrad's per-light keys, which its light renames only with
 * -arghradcompat. */
static const char *const ericw_light_drop[] = {"_fade", "_distance", "_angfade", "_angwait", NULL};

static bool listed(const char *const *list, const char *key)
{
    for (int i = 0; list[i]; i++)
        if (!strcmp(list[i], key)) return true;
    return false;
}

/* arghrad's numbered suns: "_sunN_light", "_sunN_vector", ... for N 2..9;
 * ericw's "_sun2", "_sun2_color" and "_sun2_mangle" are its own. */
static bool arghrad_numbered_sun(const char *key)
{
    if (strncmp(key, "_sun", 4) || key[4] < '2' || key[4] > '9') return false;
    const char *rest = key + 5;
    if (!*rest) return key[4] != '2';
    if (*rest != '_') return false;
    if (key[4] == '2' && (!strcmp(rest, "_color") || !strcmp(rest, "_mangle"))) return false;
    return true;
}

static bool is_light(const entity_t *e) { return !strncmp(entity_classname(e), "light", 5); }

/* Whether the tool leaves this key unread, of a light, of worldspawn or of
 * another entity. */
static bool dropped(int tool, bool light, bool world, const char *key)
{
    if (tool == QRAD_TOOL_QRAD3) {
        if (light) return !listed(qrad3_light_keys, key);
        /* Every other entity: qrad3 reads one lighting key of a model or of
         * worldspawn, _minlight (lightmap.c FinalLightFace reads it from
         * the entity of the face's model, worldspawn for the world's); qrad
         * reads only underscored ones there. */
        return key[0] == '_' && strcmp(key, "_minlight") != 0;
    }
    if (tool == QRAD_TOOL_ERICW) {
        if (world) return listed(ericw_world_drop, key) || arghrad_numbered_sun(key);
        if (light) return listed(ericw_light_drop, key);
    }
    return false;
}

/* One warning for each key (and kind of entity), with how many entities had
 * it and the line of the first. */
typedef struct dropped_key_t {
    char key[64];
    const char *kind;
    int count, line;
} dropped_key_t;

void qrad_tool_keys(qrad_t *q)
{
    int tool = q->opts->tool_keys;
    if (tool == QRAD_TOOL_ALL) return;
    const char *name = tool == QRAD_TOOL_QRAD3 ? "qrad3" : "ericw-tools' light";
    dropped_key_t *seen = NULL;
    int nseen = 0, capseen = 0;
    for (int i = 0; i < q->ents.count; i++) {
        entity_t *e = &q->ents.ents[i];
        /* decided before any pair is freed: the loop below frees pairs the
         * classname lookup would walk */
        bool world = !strcmp(entity_classname(e), "worldspawn"), light = is_light(e);
        const char *kind = world ? "worldspawn" : light ? "light" : "entity";
        int kept = 0;
        for (int k = 0; k < e->numpairs; k++) {
            const char *key = e->pairs[k].key;
            /* TrenchBroom's bookkeeping is no lighting key of anyone's. */
            if (!dropped(tool, light, world, key) || !strncmp(key, "_tb_", 4)) {
                e->pairs[kept++] = e->pairs[k];
                continue;
            }
            int s = 0;
            while (s < nseen && (strcmp(seen[s].key, key) || seen[s].kind != kind)) s++;
            if (s == nseen) {
                dropped_key_t d;
                memset(&d, 0, sizeof d);
                snprintf(d.key, sizeof d.key, "%s", key);
                d.kind = kind;
                d.line = e->pairs[k].line ? e->pairs[k].line : e->line;
                ARRAY_PUSH(seen, nseen, capseen, d);
            }
            seen[s].count++;
            free(e->pairs[k].key);
            free(e->pairs[k].value);
        }
        e->numpairs = kept;
    }
    for (int s = 0; s < nseen; s++)
        log_warn(q->log, "-preset %s: %s does not read the %s key \"%s\" (%d %s, the first at line %d); ignored",
                 tool == QRAD_TOOL_QRAD3 ? "qrad3" : "ericw", name, seen[s].kind, seen[s].key, seen[s].count,
                 seen[s].count == 1 ? "entity" : "entities", seen[s].line);
    free(seen);
}
