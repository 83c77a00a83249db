#include "prepare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../common/crmath.h"
#include "../common/fileio.h"
#include "../common/mem.h"
#include "../common/os.h"
#include "../formats/keytable.h"

/* Brush bounds for region tests are taken from side windings clipped by
 * the other sides, before any plane snapping; this is the slack allowed
 * when asking whether two boxes touch. */
#define REGION_EPSILON 0.01

static const char *cls_of(const qbsp_t *q, int e) { return entity_classname(&q->map.entities[e].ent); }

static int key_line(const entity_t *ent, const char *key)
{
    for (int i = ent->numpairs - 1; i >= 0; i--)
        if (strcmp(ent->pairs[i].key, key) == 0) return ent->pairs[i].line ? ent->pairs[i].line : ent->line;
    return ent->line;
}

int prepare_int_key(const qbsp_t *q, int e, const char *key, int dflt, bool warn)
{
    const entity_t *ent = &q->map.entities[e].ent;
    const char *v = entity_get(ent, key);
    if (!v) return dflt;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    while (*end == ' ' || *end == '\t') end++;
    if (end == v || *end || errno || x < -1000000 || x > 1000000) {
        if (warn)
            log_warn(q->log, "%s:%d: entity %d (%s): key \"%s\" \"%s\" is not a whole number; using %d", qbsp_entity_path(q, e),
                     key_line(ent, key), e, cls_of(q, e), key, v, dflt);
        return dflt;
    }
    return (int)x;
}

/* 0 or 1 keys: other numbers are warned about too. */
static bool bool_key(const qbsp_t *q, int e, const char *key, bool dflt)
{
    int v = prepare_int_key(q, e, key, dflt ? 1 : 0, true);
    if (v != 0 && v != 1) {
        const entity_t *ent = &q->map.entities[e].ent;
        log_warn(q->log, "%s:%d: entity %d (%s): key \"%s\" \"%s\" should be 0 or 1; using %d", qbsp_entity_path(q, e),
                 key_line(ent, key), e, cls_of(q, e), key, entity_get(ent, key), dflt ? 1 : 0);
        return dflt;
    }
    return v != 0;
}

/* ------------------------------------------------------------ 1. keys */

static void warn_unread_keys(qbsp_t *q)
{
    for (int e = 0; e < q->map.numentities; e++) {
        const map_entity_t *me = &q->map.entities[e];
        const entity_t *ent = &me->ent;
        unsigned kind = keytable_entity_kind(entity_classname(ent), me->numbrushes > 0);
        for (int i = 0; i < ent->numpairs; i++) {
            const char *key = ent->pairs[i].key;
            bool seen = false;
            for (int j = 0; j < i && !seen; j++) seen = strcmp(ent->pairs[j].key, key) == 0;
            char why[256];
            if (seen || !keytable_key_warning(key, kind, why, sizeof why)) continue;
            log_warn(q->log, "%s:%d: entity %d (%s): key \"%s\": %s", qbsp_entity_path(q, e),
                     ent->pairs[i].line ? ent->pairs[i].line : ent->line, e, entity_classname(ent), key, why);
        }
    }
}

/* ------------------------------------------------- 2. TrenchBroom layers */

static bool is_tb(const entity_t *ent, const char *type)
{
    const char *t = entity_get(ent, "_tb_type");
    return t && strcmp(t, type) == 0 && strcmp(entity_classname(ent), "func_group") == 0;
}

static void remove_entity(qbsp_t *q, int e)
{
    map_entity_t *me = &q->map.entities[e];
    for (int b = 0; b < me->numbrushes; b++) free(me->brushes[b].sides);
    free(me->brushes);
    entity_free(&me->ent);
    memmove(me, me + 1, sizeof *me * (size_t)(q->map.numentities - e - 1));
    q->map.numentities--;
}

/* The container (layer or group entity index) of entity e, or -1 for the
 * default layer. */
static int tb_parent(const qbsp_t *q, int e, const int *ids, int n)
{
    const entity_t *ent = &q->map.entities[e].ent;
    const char *g = entity_get(ent, "_tb_group");
    const char *l = entity_get(ent, "_tb_layer");
    const char *want = g ? g : l;
    const char *type = g ? "_tb_group" : "_tb_layer";
    if (!want) return -1;
    for (int i = 0; i < n; i++) {
        if (ids[i] < 0 || i == e) continue;
        const entity_t *o = &q->map.entities[i].ent;
        const char *id = entity_get(o, "_tb_id");
        if (id && strcmp(id, want) == 0 && is_tb(o, type)) return i;
    }
    return -1;
}

static void omit_tb_layers(qbsp_t *q)
{
    int n = q->map.numentities;
    /* ids[i] >= 0 marks a layer or group entity. */
    int *ids = q2_calloc((size_t)n, sizeof *ids);
    int *parent = q2_calloc((size_t)n, sizeof *parent);
    signed char *omit = q2_calloc((size_t)n, 1);
    bool *omit_final = q2_calloc((size_t)n, sizeof *omit_final);
    bool any = false;
    for (int e = 0; e < n; e++) {
        const entity_t *ent = &q->map.entities[e].ent;
        ids[e] = (is_tb(ent, "_tb_layer") || is_tb(ent, "_tb_group")) ? e : -1;
        if (entity_get(ent, "_tb_layer_omit_from_export")) any = true;
    }
    if (!any) goto done;
    for (int e = 1; e < n; e++) parent[e] = tb_parent(q, e, ids, n);
    bool default_omitted = bool_key(q, 0, "_tb_layer_omit_from_export", false);
    for (int e = 1; e < n; e++) {
        if (is_tb(&q->map.entities[e].ent, "_tb_layer"))
            omit[e] = bool_key(q, e, "_tb_layer_omit_from_export", false);
        else if (entity_get(&q->map.entities[e].ent, "_tb_layer_omit_from_export"))
            log_warn(q->log, "%s:%d: entity %d (%s): key \"_tb_layer_omit_from_export\" is read only on layers", qbsp_entity_path(q, e),
                     key_line(&q->map.entities[e].ent, "_tb_layer_omit_from_export"), e, cls_of(q, e));
    }
    /* Walk up to the layer (depth bounded by the entity count, so a cycle
     * of groups naming each other ends). */
    int brushes = 0, ents = 0;
    for (int e = 1; e < n; e++) {
        int c = e, steps = 0;
        bool out = false;
        while (steps++ < n) {
            /* A layer is top-level: its own flag decides. */
            if (is_tb(&q->map.entities[c].ent, "_tb_layer")) {
                out = omit[c] != 0;
                break;
            }
            int p = parent[c];
            if (p < 0) {
                out = default_omitted;
                break;
            }
            c = p;
        }
        omit_final[e] = out;
    }
    if (default_omitted) {
        brushes += q->map.entities[0].numbrushes;
        for (int b = 0; b < q->map.entities[0].numbrushes; b++) free(q->map.entities[0].brushes[b].sides);
        q->map.entities[0].numbrushes = 0;
    }
    for (int e = n - 1; e >= 1; e--) {
        if (!omit_final[e]) continue;
        brushes += q->map.entities[e].numbrushes;
        if (ids[e] < 0) ents++;
        remove_entity(q, e);
    }
    if (brushes || ents)
        log_info(q->log, "%6d brushes and %d entities in TrenchBroom layers marked _tb_layer_omit_from_export left out",
                 brushes, ents);
done:
    free(ids);
    free(parent);
    free(omit);
    free(omit_final);
}

/* ------------------------------------------------------- 3. _omitbrushes */

static void omit_brushes(qbsp_t *q)
{
    int total = 0;
    for (int e = 0; e < q->map.numentities; e++) {
        map_entity_t *me = &q->map.entities[e];
        if (!entity_get(&me->ent, "_omitbrushes") || !bool_key(q, e, "_omitbrushes", false)) continue;
        total += me->numbrushes;
        for (int b = 0; b < me->numbrushes; b++) free(me->brushes[b].sides);
        me->numbrushes = 0;
    }
    if (total) log_info(q->log, "%6d brushes of _omitbrushes entities left out", total);
}

/* -------------------------------------------------- 4. misc_external_map */

/* Numbers from a key ("a" or "a b c"); returns how many were read (0 on
 * any word that is not a finite number). */
static int key_numbers(const char *v, double *out, int max)
{
    int n = 0;
    const char *s = v;
    while (*s) {
        while (*s == ' ' || *s == '\t') s++;
        if (!*s) break;
        char *end;
        errno = 0;
        double x = strtod(s, &end);
        if (end == s || errno || !isfinite(x) || n == max) return 0;
        out[n++] = x;
        s = end;
        if (*s && *s != ' ' && *s != '\t') return 0;
    }
    return n;
}

/* Quake's angles: yaw about +Z, then pitch (positive looks down), then
 * roll about the forward axis; the prefab faces +X. */
static void angles_matrix(double pitch, double yaw, double roll, double m[3][3])
{
    double p = pitch * M_PI / 180, y = yaw * M_PI / 180, r = roll * M_PI / 180;
    double cp = cr_cos(p), sp = cr_sin(p), cy = cr_cos(y), sy = cr_sin(y), cr = cr_cos(r), sr = cr_sin(r);
    /* Columns: where +X, +Y and +Z go (forward, left, up). */
    vec3_t fwd = vec3(cp * cy, cp * sy, -sp);
    vec3_t left = vec3(sr * sp * cy - cr * sy, sr * sp * sy + cr * cy, sr * cp);
    vec3_t up = vec3(cr * sp * cy + sr * sy, cr * sp * sy - sr * cy, cr * cp);
    const vec3_t cols[3] = {fwd, left, up};
    for (int j = 0; j < 3; j++) {
        m[0][j] = cols[j].x;
        m[1][j] = cols[j].y;
        m[2][j] = cols[j].z;
    }
    /* Exact right angles stay exact (cos(pi/2) is not 0 in floating point). */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double v = m[i][j], rv = round(v);
            if (fabs(v - rv) < 1e-12) m[i][j] = rv;
        }
}

static vec3_t mat_apply(const double m[3][3], vec3_t v)
{
    return vec3(m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z, m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
                m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z);
}

typedef struct xform_t {
    double m[3][3];
    vec3_t scale, origin;
} xform_t;

static vec3_t xform_point(const xform_t *x, vec3_t p)
{
    return vec_add(mat_apply(x->m, vec3(p.x * x->scale.x, p.y * x->scale.y, p.z * x->scale.z)), x->origin);
}

/* Valve 220 texture axes follow the brush: the texture coordinate of a
 * moved point equals that of the original point. Standard-projection
 * faces are re-projected by their new plane (as they would be in the
 * editor without texture lock). */
static void xform_side(const xform_t *x, map_side_t *s)
{
    for (int k = 0; k < 3; k++) s->points[k] = xform_point(x, s->points[k]);
    if (s->proj != MAP_PROJ_VALVE220) return;
    for (int i = 0; i < 2; i++) {
        double sc = s->scale[i] == 0 ? 1.0 : s->scale[i];
        vec3_t a = vec_scale(s->axis[i], 1.0 / sc);
        a = vec3(a.x / x->scale.x, a.y / x->scale.y, a.z / x->scale.z);
        a = mat_apply(x->m, a);
        double len = vec_len(a);
        if (len <= 0) continue;
        s->axis[i] = vec_scale(a, 1.0 / len);
        s->scale[i] = 1.0 / len;
        s->shift[i] -= vec_dot(a, x->origin);
    }
}

static bool read_xform(qbsp_t *q, int e, xform_t *x)
{
    const entity_t *ent = &q->map.entities[e].ent;
    double v[3];
    x->origin = vec3(0, 0, 0);
    if (!entity_get_vec3(ent, "origin", &x->origin)) x->origin = vec3(0, 0, 0);
    x->scale = vec3(1, 1, 1);
    const char *sv = entity_get(ent, "_external_map_scale");
    if (sv) {
        int n = key_numbers(sv, v, 3);
        if (n == 1) x->scale = vec3(v[0], v[0], v[0]);
        else if (n == 3) x->scale = vec3(v[0], v[1], v[2]);
        if ((n != 1 && n != 3) || x->scale.x <= 0 || x->scale.y <= 0 || x->scale.z <= 0) {
            log_warn(q->log, "%s:%d: entity %d (misc_external_map): key \"_external_map_scale\" \"%s\" is not one or three "
                     "positive numbers; using 1", qbsp_entity_path(q, e), key_line(ent, "_external_map_scale"), e, sv);
            x->scale = vec3(1, 1, 1);
        }
    }
    double ang[3] = {0, 0, 0};
    const char *av = entity_get(ent, "_external_map_angles");
    const char *yv = entity_get(ent, "_external_map_angle");
    if (av) {
        if (key_numbers(av, v, 3) == 3) {
            ang[0] = v[0], ang[1] = v[1], ang[2] = v[2];
        } else {
            log_warn(q->log, "%s:%d: entity %d (misc_external_map): key \"_external_map_angles\" \"%s\" is not three numbers "
                     "(pitch yaw roll); using 0 0 0", qbsp_entity_path(q, e), key_line(ent, "_external_map_angles"), e, av);
        }
    } else if (yv) {
        if (key_numbers(yv, v, 1) == 1) ang[1] = v[0];
        else
            log_warn(q->log, "%s:%d: entity %d (misc_external_map): key \"_external_map_angle\" \"%s\" is not a number; using 0",
                     qbsp_entity_path(q, e), key_line(ent, "_external_map_angle"), e, yv);
    }
    for (int i = 0; i < 3; i++)
        if (fabs(ang[i]) > 360) {
            static const char *const names[3] = {"pitch", "yaw", "roll"};
            log_warn(q->log, "%s:%d: entity %d (misc_external_map): %s %g is beyond +-360 degrees; taken modulo 360",
                     qbsp_entity_path(q, e), key_line(ent, av ? "_external_map_angles" : "_external_map_angle"), e, names[i], ang[i]);
            ang[i] = fmod(ang[i], 360);
        }
    angles_matrix(ang[0], ang[1], ang[2], x->m);
    return true;
}

static bool import_external_map(qbsp_t *q, int e, q2err_t *err)
{
    map_entity_t *me = &q->map.entities[e];
    const char *file = entity_get(&me->ent, "_external_map");
    if (!file || !file[0])
        return q2err_set(err, qbsp_entity_path(q, e), me->ent.line, 0, "entity %d (misc_external_map) has no \"_external_map\" key", e);
    char dir[Q2_PATH_MAX], path[Q2_PATH_MAX];
    path_dirname(dir, sizeof dir, qbsp_entity_path(q, e));
    if (os_path_is_absolute(file) || !path_join(path, sizeof path, dir, file)) snprintf(path, sizeof path, "%s", file);
    if (!os_is_file(path))
        return q2err_set(err, qbsp_entity_path(q, e), key_line(&me->ent, "_external_map"), 0,
                         "entity %d (misc_external_map): external map \"%s\" not found or not a file (looked for %s)", e, file, path);
    map_t ext;
    q2err_t xerr;
    q2err_clear(&xerr);
    if (!map_read_file(path, &ext, &xerr))
        return q2err_set(err, qbsp_entity_path(q, e), key_line(&me->ent, "_external_map"), 0,
                         "entity %d (misc_external_map): external map \"%s\": %s", e, file, xerr.msg);
    xform_t x;
    read_xform(q, e, &x);
    int imported = 0;
    /* Every brush of the file (worldspawn and brush entities alike);
     * point entities and worldspawn keys are ignored, as in ericw-tools. */
    for (int i = 0; i < ext.numentities; i++) {
        map_entity_t *src = &ext.entities[i];
        for (int b = 0; b < src->numbrushes; b++) {
            map_brush_t mb = src->brushes[b];
            src->brushes[b].sides = NULL;
            src->brushes[b].numsides = 0;
            for (int s = 0; s < mb.numsides; s++) {
                xform_side(&x, &mb.sides[s]);
                /* Messages name the including entity's line. */
                mb.sides[s].line = me->ent.line;
            }
            mb.line = me->ent.line;
            mb.source = me->source;
            mb.entity_brush_index = me->numbrushes;
            ARRAY_PUSH(me->brushes, me->numbrushes, me->cap, mb);
            imported++;
        }
    }
    if (ext.valve220) q->map.valve220 = true;
    map_free(&ext);
    const char *cls = entity_get(&me->ent, "_external_map_classname");
    entity_set(&me->ent, "classname", cls && cls[0] ? cls : "func_group");
    /* The brushes are placed already: the model sits at the world origin. */
    entity_set(&me->ent, "origin", "0 0 0");
    log_verbose(q->log, "entity %d: %d brushes from external map %s", e, imported, path);
    return true;
}

static bool external_maps(qbsp_t *q, q2err_t *err)
{
    for (int e = 1; e < q->map.numentities; e++)
        if (strcmp(cls_of(q, e), "misc_external_map") == 0 && !import_external_map(q, e, err)) return false;
    return true;
}

/* ----------------------------------------------------------- 5. region */

static bool all_sides_named(const map_brush_t *b, const char *name)
{
    if (b->numsides == 0) return false;
    for (int i = 0; i < b->numsides; i++) {
        const char *t = b->sides[i].texture;
        const char *slash = strrchr(t, '/');
        if (strcasecmp(slash ? slash + 1 : t, name) != 0) return false;
    }
    return true;
}

static bool brush_bounds(const map_brush_t *b, aabb_t *out)
{
    *out = aabb_empty();
    plane_t *pl = q2_calloc((size_t)(b->numsides > 0 ? b->numsides : 1), sizeof *pl);
    bool *ok = q2_calloc((size_t)(b->numsides > 0 ? b->numsides : 1), sizeof *ok);
    for (int i = 0; i < b->numsides; i++)
        ok[i] = plane_from_points(b->sides[i].points[0], b->sides[i].points[1], b->sides[i].points[2], &pl[i]);
    for (int i = 0; i < b->numsides; i++) {
        if (!ok[i]) continue;
        winding_t *w = winding_for_plane(pl[i].normal, pl[i].dist, WORLD_EXTENT);
        for (int j = 0; j < b->numsides && w; j++)
            if (j != i && ok[j]) w = winding_clip(w, vec_neg(pl[j].normal), -pl[j].dist, ON_EPSILON, false);
        if (!w) continue;
        for (int k = 0; k < w->numpoints; k++) aabb_add_point(out, w->p[k]);
        winding_free(w);
    }
    free(pl);
    free(ok);
    return !aabb_is_empty(out);
}

static bool boxes_touch(const aabb_t *a, const aabb_t *b)
{
    return a->mins.x <= b->maxs.x + REGION_EPSILON && a->maxs.x >= b->mins.x - REGION_EPSILON &&
           a->mins.y <= b->maxs.y + REGION_EPSILON && a->maxs.y >= b->mins.y - REGION_EPSILON &&
           a->mins.z <= b->maxs.z + REGION_EPSILON && a->maxs.z >= b->mins.z - REGION_EPSILON;
}

static bool world_brush_entity(const qbsp_t *q, int e)
{
    const char *c = cls_of(q, e);
    return e == 0 || strcmp(c, "func_group") == 0 || strncmp(c, "func_detail", 11) == 0 ||
           strcmp(c, "func_illusionary_visblocker") == 0;
}

static void drop_brush(map_entity_t *me, int b)
{
    free(me->brushes[b].sides);
    memmove(&me->brushes[b], &me->brushes[b + 1], sizeof me->brushes[0] * (size_t)(me->numbrushes - b - 1));
    me->numbrushes--;
}

static void regions(qbsp_t *q)
{
    aabb_t region = aabb_empty();
    bool have_region = false;
    aabb_t *anti = NULL;
    int nanti = 0, capanti = 0, nregion = 0;
    for (int e = 0; e < q->map.numentities; e++) {
        map_entity_t *me = &q->map.entities[e];
        for (int b = me->numbrushes - 1; b >= 0; b--) {
            bool r = all_sides_named(&me->brushes[b], "region");
            bool a = !r && all_sides_named(&me->brushes[b], "antiregion");
            if (!r && !a) continue;
            aabb_t box;
            if (brush_bounds(&me->brushes[b], &box)) {
                if (r) {
                    if (have_region)
                        log_warn(q->log, "%s:%d: a second region brush; the last one in the file is used",
                                 me->brushes[b].source ? me->brushes[b].source : qbsp_entity_path(q, e),
                                 me->brushes[b].line);
                    if (!have_region) region = box;
                    have_region = true;
                    nregion++;
                } else {
                    ARRAY_PUSH(anti, nanti, capanti, box);
                }
            }
            drop_brush(me, b);
        }
    }
    if (!have_region && nanti == 0) return;
    int dropped = 0;
    for (int e = 0; e < q->map.numentities; e++) {
        if (!world_brush_entity(q, e)) continue;
        map_entity_t *me = &q->map.entities[e];
        for (int b = me->numbrushes - 1; b >= 0; b--) {
            aabb_t box;
            if (!brush_bounds(&me->brushes[b], &box)) continue;
            bool out = have_region && !boxes_touch(&box, &region);
            for (int i = 0; i < nanti && !out; i++) out = boxes_touch(&box, &anti[i]);
            if (!out) continue;
            drop_brush(me, b);
            dropped++;
        }
        for (int b = 0; b < me->numbrushes; b++) me->brushes[b].entity_brush_index = b;
    }
    free(anti);
    log_info(q->log, "%6d world brushes left out by %s%s%s (the region is not sealed: expect a leak)", dropped,
             have_region ? "the region brush" : "", have_region && nanti ? " and " : "", nanti ? "antiregion brushes" : "");
}

/* ------------------------------------------------------ 6. face flags */

static void face_flags(qbsp_t *q)
{
    free(q->ent_flags);
    free(q->ent_chop_order);
    size_t n = (size_t)(q->map.numentities > 0 ? q->map.numentities : 1);
    q->ent_flags = q2_calloc(n, 1);
    q->ent_chop_order = q2_calloc(n, sizeof(int));
    for (int e = 0; e < q->map.numentities; e++) {
        const entity_t *ent = &q->map.entities[e].ent;
        if (entity_get(ent, "_chop_order")) q->ent_chop_order[e] = prepare_int_key(q, e, "_chop_order", 0, true);
        if (entity_get(ent, "_chop") && !bool_key(q, e, "_chop", true)) q->ent_flags[e] |= ENT_NOCHOP;
        if (entity_get(ent, "_mirrorinside")) {
            /* A bad value warns and leaves the default by contents. */
            int v = prepare_int_key(q, e, "_mirrorinside", -1, false);
            if (v == 0) q->ent_flags[e] |= ENT_MIRROR_OFF;
            else if (v == 1) q->ent_flags[e] |= ENT_MIRROR_ON;
            else
                log_warn(q->log, "%s:%d: entity %d (%s): key \"_mirrorinside\" \"%s\" should be 0 or 1; using the default "
                         "for the brushes' contents", qbsp_entity_path(q, e), key_line(ent, "_mirrorinside"), e, cls_of(q, e),
                         entity_get(ent, "_mirrorinside"));
        }
        if (entity_get(ent, "_noclipfaces") && bool_key(q, e, "_noclipfaces", false)) {
            q->ent_flags[e] |= ENT_NOCLIPFACES;
            q->any_noclipfaces = true;
        }
    }
}

/* TrenchBroom's own worldspawn keys (_tb_textures, _tb_def, _tb_mod, the
 * default layer's _tb_layer_*) are editor bookkeeping, read (if at all)
 * before this: they are not written to the bsp, as ericw-tools' qbsp
 * leaves them out. */
static void strip_tb_worldspawn_keys(qbsp_t *q)
{
    if (q->map.numentities < 1) return;
    entity_t *w = &q->map.entities[0].ent;
    for (int i = w->numpairs - 1; i >= 0; i--)
        if (i < w->numpairs && strncmp(w->pairs[i].key, "_tb_", 4) == 0) {
            /* entity_remove frees the stored key: pass a copy. */
            char *key = q2_strdup(w->pairs[i].key);
            entity_remove(w, key);
            free(key);
        }
}

bool prepare_map(qbsp_t *q, q2err_t *err)
{
    omit_tb_layers(q);
    warn_unread_keys(q);
    strip_tb_worldspawn_keys(q);
    omit_brushes(q);
    if (!external_maps(q, err)) return false;
    regions(q);
    face_flags(q);
    return true;
}
