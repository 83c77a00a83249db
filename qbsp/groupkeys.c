#include "groupkeys.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "../formats/bspx.h"
#include "../formats/groupkeys.h"

/* What each key's value must be; qbsp passes on only good values, so a bad
 * one is warned about here, with the map's line, and qrad uses its default. */
typedef enum { V_BOOL, V_INT, V_MASK, V_ANGLE, V_NONNEG, V_POSITIVE, V_COLOR, V_TEXT } vkind_t;

/* The keys passed on, each with the kind of its value. */
static const struct {
    const char *name;
    vkind_t kind;
} keys[] = {
    {"_phong", V_BOOL}, {"_phong_angle", V_ANGLE}, {"_phong_group", V_MASK}, {"_minlight", V_NONNEG},
    {"_minlight_color", V_COLOR}, {"_mincolor", V_COLOR}, {"_minlight_exclude", V_TEXT},
    {"_minlight_dirt", V_INT}, {"_dirt", V_INT}, {"_bounce", V_INT}, {"_object_channel_mask", V_MASK},
    {"_world_units_per_luxel", V_POSITIVE}, {"_phong_angle_concave", V_ANGLE}, {"_maxlight", V_NONNEG},
    {"_lightignore", V_BOOL}, {"_minlight_mottle", V_BOOL}, {"_minlightMottle", V_BOOL},
    {"_light_alpha", V_NONNEG}, {"_light_twosided", V_BOOL},
};
enum { NKEYS = sizeof keys / sizeof keys[0] };

const char *groupkeys_key(int i) { return i >= 0 && i < NKEYS ? keys[i].name : NULL; }

static bool number(const char **s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(*s, &end);
    if (end == *s || errno || !isfinite(v)) return false;
    *s = end;
    *out = v;
    return true;
}

/* Why the value is bad, or NULL when it is good. */
static const char *bad_value(vkind_t kind, const char *v)
{
    const char *s = v;
    double x;
    if (kind == V_TEXT) return NULL;
    if (kind == V_COLOR) {
        for (int i = 0; i < 3; i++)
            if (!number(&s, &x) || x < 0) return "not three non-negative numbers (r g b)";
        while (*s == ' ' || *s == '\t') s++;
        return *s ? "not three non-negative numbers (r g b)" : NULL;
    }
    if (!number(&s, &x)) return "not a number";
    while (*s == ' ' || *s == '\t') s++;
    if (*s) return "not a number";
    switch (kind) {
    case V_BOOL: return x == 0 || x == 1 ? NULL : "not 0 or 1";
    case V_INT: return x == floor(x) && x >= -1 && x <= 1000 ? NULL : "not a whole number from -1";
    case V_MASK: return x == floor(x) && x >= 0 && x <= 2147483647.0 ? NULL : "not a whole number of at least 0";
    case V_ANGLE: return x >= 0 && x <= 180 ? NULL : "not an angle from 0 to 180 degrees";
    case V_NONNEG: return x >= 0 ? NULL : "negative";
    case V_POSITIVE: return x > 0 ? NULL : "not a positive number";
    default: return NULL;
    }
}

static int pair_line(const entity_t *ent, const char *key)
{
    for (int i = ent->numpairs - 1; i >= 0; i--)
        if (!strcmp(ent->pairs[i].key, key)) return ent->pairs[i].line ? ent->pairs[i].line : ent->line;
    return ent->line;
}

/* The entities whose brushes are compiled into the world's model. */
static bool joins_world(const qbsp_t *q, int e)
{
    const char *c = entity_classname(&q->map.entities[e].ent);
    return e > 0 && (strcmp(c, "func_group") == 0 || strncmp(c, "func_detail", 11) == 0 ||
                     strcmp(c, "func_illusionary_visblocker") == 0);
}

void groupkeys_collect(qbsp_t *q)
{
    groupkeys_free(q);
    for (int e = 1; e < q->map.numentities; e++) {
        if (!joins_world(q, e)) continue;
        const entity_t *ent = &q->map.entities[e].ent;
        bool any = false;
        for (int k = 0; k < NKEYS; k++) {
            const char *v = entity_get(ent, keys[k].name);
            if (!v) continue;
            const char *why = bad_value(keys[k].kind, v);
            if (why) {
                log_warn(q->log, "%s:%d: entity %d (%s): key \"%s\" \"%s\" is %s; qrad uses its default",
                         qbsp_entity_path(q, e), pair_line(ent, keys[k].name), e, entity_classname(ent), keys[k].name, v,
                         why);
                continue;
            }
            any = true;
        }
        if (!any) continue;
        if (!q->ent_keyset) q->ent_keyset = q2_calloc((size_t)q->map.numentities, sizeof(int));
        if (q->numkeysets >= 0xffff) {
            log_warn(q->log, "%s:%d: entity %d (%s): more than 65535 entities with lighting keys; its keys are not passed "
                     "to qrad", qbsp_entity_path(q, e), ent->line, e, entity_classname(ent));
            continue;
        }
        q->ent_keyset[e] = ++q->numkeysets;
    }
    if (q->numkeysets)
        log_verbose(q->log, "%6d func_group/func_detail entities pass lighting keys to qrad", q->numkeysets);
}

int groupkeys_of_face(const qbsp_t *q, const face_t *f)
{
    if (!q->ent_keyset || !f->brush) return 0;
    return q->ent_keyset[f->brush->entitynum];
}

void groupkeys_note_face(qbsp_t *q, int outnum, const face_t *f)
{
    if (!q->ent_keyset) return;
    q->face_keyset = q2_grow(q->face_keyset, sizeof *q->face_keyset, &q->cap_face_keyset, outnum + 1);
    q->face_keyset[outnum] = (uint16_t)groupkeys_of_face(q, f);
}

bool groupkeys_write(qbsp_t *q, q2err_t *err)
{
    if (!q->ent_keyset) return true;
    int nf = q->bsp.numfaces;
    groupkeys_t g;
    memset(&g, 0, sizeof g);
    g.numfaces = nf;
    g.set = q2_calloc(nf > 0 ? (size_t)nf : 1, sizeof *g.set);
    bool used = false;
    for (int i = 0; i < nf && i < q->cap_face_keyset; i++) {
        g.set[i] = q->face_keyset[i];
        used |= g.set[i] != 0;
    }
    if (!used) {
        free(g.set);
        return true;
    }
    for (int e = 1; e < q->map.numentities; e++) {
        if (!q->ent_keyset[e]) continue;
        const entity_t *src = &q->map.entities[e].ent;
        entity_t ent;
        memset(&ent, 0, sizeof ent);
        entity_set(&ent, "classname", entity_classname(src));
        for (int k = 0; k < NKEYS; k++) {
            const char *v = entity_get(src, keys[k].name);
            if (v && !bad_value(keys[k].kind, v)) entity_set(&ent, keys[k].name, v);
        }
        ARRAY_PUSH(g.sets.ents, g.sets.count, g.sets.cap, ent);
    }
    uint8_t *data;
    size_t size;
    groupkeys_encode(&g, &data, &size);
    groupkeys_lump_free(&g);
    free(q->groupkeys_file);
    groupkeys_file_encode(data, size, &q->bsp, &q->groupkeys_file, &q->groupkeys_file_size);
    free(data);
    (void)err;
    return true;
}

void groupkeys_free(qbsp_t *q)
{
    free(q->ent_keyset);
    free(q->face_keyset);
    free(q->groupkeys_file);
    q->ent_keyset = NULL;
    q->face_keyset = NULL;
    q->groupkeys_file = NULL;
    q->groupkeys_file_size = 0;
    q->numkeysets = q->cap_face_keyset = 0;
}
