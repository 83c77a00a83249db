#include "load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/fileio.h"
#include "../common/mem.h"
#include "../formats/q2defs.h"
#include "csg.h"
#include "groupkeys.h"
#include "prepare.h"
#include "texinfo.h"

/* A side winding that still reaches this far was never clipped by the
 * brush's other planes: the brush is open on that side. */
#define OPEN_BRUSH_EXTENT (WORLD_EXTENT * 0.5)

/* ericw-tools' detail entities: editor groups whose brushes join the
 * world as detail (fence: see-through window; illusionary: no collision). */
static bool is_detail_entity(const char *cls)
{
    return strcmp(cls, "func_detail") == 0 || strcmp(cls, "func_detail_wall") == 0 ||
           strcmp(cls, "func_detail_fence") == 0 || strcmp(cls, "func_detail_illusionary") == 0;
}

static bool joins_world(const map_entity_t *me)
{
    const char *cls = entity_classname(&me->ent);
    return strcmp(cls, "func_group") == 0 || strcmp(cls, "func_areaportal") == 0 || is_detail_entity(cls) ||
           strcmp(cls, "func_illusionary_visblocker") == 0;
}

/* ericw-tools' func_illusionary_visblocker: structural mist, so the player
 * walks through it but vis does not see through it (a portal between mist
 * and empty space that is neither detail nor translucent stops vis, as in
 * qbsp3's Portal_VisFlood). */
static int visblocker_contents(int contents)
{
    if (contents & (CONTENTS_SOLID | CONTENTS_WINDOW))
        contents = (contents & ~(CONTENTS_SOLID | CONTENTS_WINDOW)) | CONTENTS_MIST;
    return contents & ~(CONTENTS_DETAIL | CONTENTS_TRANSLUCENT);
}

/* Whether the faces of a brush seen from inside it are left out: the
 * entity's _mirrorinside when given, else ericw-tools' Quake 2 defaults
 * (qbsp's portal_generates_face): windows (translucent solids included) and
 * aux have no inside faces, and func_detail_fence and
 * func_detail_illusionary start with them off; liquids and other mist keep
 * them. */
static bool mirror_off(const qbsp_t *q, int e, int contents)
{
    unsigned flags = q->ent_flags ? q->ent_flags[e] : 0;
    if (flags & ENT_MIRROR_OFF) return true;
    if (flags & ENT_MIRROR_ON) return false;
    const char *cls = entity_classname(&q->map.entities[e].ent);
    if (e > 0 && (strcmp(cls, "func_detail_fence") == 0 || strcmp(cls, "func_detail_illusionary") == 0)) return true;
    return (contents & (CONTENTS_WINDOW | CONTENTS_AUX)) != 0;
}

static int detail_entity_contents(const qbsp_t *q, const char *cls, int contents)
{
    if (strcmp(cls, "func_detail_fence") == 0 && (contents & CONTENTS_SOLID))
        contents = (contents & ~CONTENTS_SOLID) | CONTENTS_WINDOW | CONTENTS_TRANSLUCENT;
    if (strcmp(cls, "func_detail_illusionary") == 0 && (contents & CONTENTS_SOLID))
        contents = (contents & ~CONTENTS_SOLID) | CONTENTS_MIST;
    if (!q->opt.fulldetail && contents) contents |= CONTENTS_DETAIL;
    return contents;
}

/* The face line's contents/flags/value when written, else the texture's
 * metadata (which falls back to the built-in tool table), else the table. */
static void surface_for_side(const qbsp_t *q, const map_side_t *ms, int *contents, int *flags, int *value)
{
    if (ms->has_surface) {
        *contents = ms->contents;
        *flags = ms->flags;
        *value = ms->value;
        return;
    }
    *contents = *flags = *value = 0;
    if (q->texdb) {
        const texmeta_t *m = texdb_meta(q->texdb, ms->texture);
        *contents = m->contents;
        *flags = m->flags;
        *value = m->value;
        return;
    }
    tooltex_lookup(ms->texture, contents, flags, value);
}

/* qbsp3's per-side rules: translucent and clip sides are detail, sides
 * without visible contents are solid, hint and skip sides have none. The
 * re-release's alpha-tested sides count as translucent (ericw-tools). */
#define SURF_SEE_THROUGH (SURF_TRANS33 | SURF_TRANS66 | SURF_ALPHATEST)
static int side_contents(const qbsp_t *q, int contents, int *surf)
{
    if (*surf & SURF_SEE_THROUGH) contents |= CONTENTS_DETAIL;
    if (contents & (CONTENTS_PLAYERCLIP | CONTENTS_MONSTERCLIP)) contents |= CONTENTS_DETAIL;
    /* Mist and aux are detail by themselves, as in ericw-tools, whose maps
     * place fog and trigger-like volumes anywhere without cutting
     * clusters. -nomistdetail keeps qbsp3's structural mist, a slightly
     * tighter PVS where mist walls off rooms (spirit2dm4: visible faces per
     * leaf 2334 -> 2260) at the cost of more portals. */
    if (!q->opt.miststructural && (contents & (CONTENTS_MIST | CONTENTS_AUX))) contents |= CONTENTS_DETAIL;
    if (q->opt.fulldetail) contents &= ~CONTENTS_DETAIL;
    if (!(contents & ((LAST_VISIBLE_CONTENTS - 1) | CONTENTS_PLAYERCLIP | CONTENTS_MONSTERCLIP | CONTENTS_MIST)))
        contents |= CONTENTS_SOLID;
    if (*surf & (SURF_HINT | SURF_SKIP)) contents = 0;
    return contents;
}

static const char *ent_desc(const qbsp_t *q, int e, char *buf, size_t sz)
{
    const map_entity_t *me = &q->map.entities[e];
    snprintf(buf, sz, "entity %d (%s)", e, entity_classname(&me->ent));
    return buf;
}

bool load_make_brush_windings(const qbsp_t *q, mapbrush_t *b)
{
    b->bounds = aabb_empty();
    int withwinding = 0;
    for (int i = 0; i < b->numsides; i++) {
        side_t *s = &b->original_sides[i];
        winding_free(s->winding);
        s->winding = NULL;
        if (s->bevel) continue;
        const plane_t *p = plane_table_get(&q->planes, s->planenum);
        winding_t *w = qbsp_chain_for_plane(p->normal, p->dist);
        for (int j = 0; j < b->numsides && w; j++) {
            if (j == i || b->original_sides[j].bevel) continue;
            const plane_t *pj = plane_table_get(&q->planes, b->original_sides[j].planenum);
            w = qbsp_chain_clip(w, vec_neg(pj->normal), -pj->dist, ON_EPSILON, false);
        }
        w = qbsp_chain_fit(w);
        if (w && qbsp_winding_tiny(w)) {
            winding_free(w);
            w = NULL;
        }
        s->winding = w;
        if (!w) continue;
        withwinding++;
        for (int k = 0; k < w->numpoints; k++) aabb_add_point(&b->bounds, w->p[k]);
    }
    return withwinding >= 4 && !aabb_is_empty(&b->bounds);
}

static void free_brush_sides(mapbrush_t *b)
{
    for (int i = 0; i < b->numsides; i++) winding_free(b->original_sides[i].winding);
    free(b->original_sides);
    b->original_sides = NULL;
    b->numsides = 0;
}

/* Whether the brush is thinner than `limit` across one of its faces (its
 * depth behind that face's plane: the farthest of its points). A face's
 * scan stops once a point lies `limit` deep, which settles that face. */
static bool brush_thinner_than(const qbsp_t *q, const mapbrush_t *b, double limit)
{
    for (int i = 0; i < b->numsides; i++) {
        const side_t *s = &b->original_sides[i];
        if (!s->winding) continue;
        const plane_t *p = plane_table_get(&q->planes, s->planenum);
        double depth = 0;
        for (int j = 0; j < b->numsides && !(depth >= limit); j++) {
            const winding_t *w = b->original_sides[j].winding;
            if (!w) continue;
            for (int k = 0; k < w->numpoints; k++) {
                double d = p->dist - vec_dot(p->normal, w->p[k]);
                if (d > depth) depth = d;
            }
        }
        if (depth < limit) return true;
    }
    return false;
}

enum { BRUSH_OK = 0, BRUSH_DROPPED = 1, BRUSH_ERROR = -1 };

/* Builds one map brush. `origin` is subtracted from every point (brush
 * models are stored around their origin). Returns BRUSH_OK with *out
 * filled, BRUSH_DROPPED (warned) or BRUSH_ERROR (err set). When
 * `origin_only` is set, only an origin brush is built (others are
 * dropped silently) so its bounds can give the entity's origin. */
static int build_brush(qbsp_t *q, int e, const map_brush_t *mb, vec3_t origin, bool origin_only, mapbrush_t *out,
                       q2err_t *err)
{
    char ebuf[128];
    const char *path = mb->source ? mb->source : qbsp_entity_path(q, e);
    memset(out, 0, sizeof *out);
    out->entitynum = e;
    out->brushnum = mb->entity_brush_index;
    out->line = mb->line;
    out->outputnumber = -1;
    if (q->ent_flags) {
        out->noclipfaces = (q->ent_flags[e] & ENT_NOCLIPFACES) != 0;
        out->nochop = (q->ent_flags[e] & ENT_NOCHOP) != 0;
    }
    if (q->ent_chop_order) out->chop_order = q->ent_chop_order[e];
    out->original_sides = q2_calloc(mb->numsides > 0 ? (size_t)mb->numsides : 1, sizeof(side_t));

    int first_real = -1, contents = 0, trans = 0;
    bool mixed = false, is_origin = false;
    /* -includeskip: skip sides of brushes that are not hint brushes count
     * as drawn sides of their brush (their texinfo keeps SURF_SKIP). */
    bool keep_skip = false;
    if (q->opt.includeskip) {
        keep_skip = true;
        for (int i = 0; i < mb->numsides && keep_skip; i++) {
            int c, flags, value;
            surface_for_side(q, &mb->sides[i], &c, &flags, &value);
            if (flags & SURF_HINT) keep_skip = false;
        }
    }
    for (int i = 0; i < mb->numsides; i++) {
        const map_side_t *ms = &mb->sides[i];
        int c, flags, value;
        surface_for_side(q, ms, &c, &flags, &value);
        if (c & CONTENTS_ORIGIN) is_origin = true;
        int texflags = flags;
        if (keep_skip) flags &= ~SURF_SKIP;
        c = side_contents(q, c, &flags);

        plane_t pl;
        vec3_t p[3];
        for (int k = 0; k < 3; k++) p[k] = vec_sub(ms->points[k], origin);
        if (!plane_from_points(p[0], p[1], p[2], &pl)) {
            log_warn(q->log, "%s:%d: %s, brush %d: plane with no normal (collinear points), side dropped", path,
                     ms->line, ent_desc(q, e, ebuf, sizeof ebuf), mb->entity_brush_index);
            continue;
        }
        int pn = plane_table_find(&q->planes, pl.normal, pl.dist);
        if (pn < 0) {
            log_warn(q->log, "%s:%d: %s, brush %d: invalid plane, side dropped", path, ms->line,
                     ent_desc(q, e, ebuf, sizeof ebuf), mb->entity_brush_index);
            continue;
        }
        bool dup = false;
        for (int k = 0; k < out->numsides; k++) {
            int other = out->original_sides[k].planenum;
            if (other == pn || other == (pn ^ 1)) {
                log_warn(q->log, "%s:%d: %s, brush %d: %s plane, side dropped", path, ms->line,
                         ent_desc(q, e, ebuf, sizeof ebuf), mb->entity_brush_index,
                         other == pn ? "duplicate" : "mirrored");
                dup = true;
                break;
            }
        }
        if (dup) continue;

        side_t *s = &out->original_sides[out->numsides++];
        s->planenum = pn;
        s->contents = c;
        s->surf = flags;
        s->visible = !(flags & SURF_SKIP);
        s->texinfo = -1;
        if (!origin_only) {
            s->texinfo = texinfo_for_side(q, ms, plane_table_get(&q->planes, pn)->normal, origin, texflags, value, err);
            if (s->texinfo < 0) {
                free_brush_sides(out);
                return BRUSH_ERROR;
            }
        }
        trans |= flags;
        if (!(flags & (SURF_HINT | SURF_SKIP))) {
            if (first_real < 0) {
                first_real = i;
                contents = c;
            } else if (c != contents) {
                mixed = true;
            }
        }
    }
    if (origin_only && !is_origin) {
        free_brush_sides(out);
        return BRUSH_DROPPED;
    }
    if (mixed)
        log_warn(q->log, "%s:%d: %s, brush %d: mixed face contents, using the first face's", path, mb->line,
                 ent_desc(q, e, ebuf, sizeof ebuf), mb->entity_brush_index);
    if (trans & SURF_SEE_THROUGH) {
        contents |= CONTENTS_TRANSLUCENT;
        if (contents & CONTENTS_SOLID) contents = (contents & ~CONTENTS_SOLID) | CONTENTS_WINDOW;
    }
    if (is_origin) contents |= CONTENTS_ORIGIN;
    out->contents = contents;

    if (!load_make_brush_windings(q, out)) {
        log_warn(q->log, "%s:%d: %s, brush %d: brush has no volume, dropped", path, mb->line,
                 ent_desc(q, e, ebuf, sizeof ebuf), mb->entity_brush_index);
        free_brush_sides(out);
        return BRUSH_DROPPED;
    }
    vec3_t lo = vec_add(out->bounds.mins, origin), hi = vec_add(out->bounds.maxs, origin);
    for (int i = 0; i < 3; i++) {
        if (vec_comp(lo, i) < -OPEN_BRUSH_EXTENT || vec_comp(hi, i) > OPEN_BRUSH_EXTENT) {
            log_warn(q->log, "%s:%d: %s, brush %d: open brush (its planes do not enclose a volume), dropped", path,
                     mb->line, ent_desc(q, e, ebuf, sizeof ebuf), mb->entity_brush_index);
            free_brush_sides(out);
            return BRUSH_DROPPED;
        }
    }
    for (int i = 0; i < 3; i++) {
        if (vec_comp(lo, i) < -MAX_WORLD_COORD || vec_comp(hi, i) > MAX_WORLD_COORD) {
            q2err_set(err, path, mb->line, 0,
                      "%s, brush %d: coordinates beyond the world (%g %g %g)-(%g %g %g); Quake 2 allows +-%g", ent_desc(q, e, ebuf, sizeof ebuf),
                      mb->entity_brush_index, lo.x, lo.y, lo.z, hi.x, hi.y, hi.z, MAX_WORLD_COORD);
            free_brush_sides(out);
            return BRUSH_ERROR;
        }
    }
    if (origin_only) return BRUSH_OK;

    if (q->opt.micro > 0 && brush_thinner_than(q, out, q->opt.micro)) {
        log_warn(q->log, "%s:%d: %s, brush %d: brush thinner than -micro %g, dropped", path, mb->line,
                 ent_desc(q, e, ebuf, sizeof ebuf), mb->entity_brush_index, q->opt.micro);
        free_brush_sides(out);
        return BRUSH_DROPPED;
    }
    if (e > 0 && is_detail_entity(entity_classname(&q->map.entities[e].ent))) {
        out->contents = contents = detail_entity_contents(q, entity_classname(&q->map.entities[e].ent), contents);
        out->detail_wall = strcmp(entity_classname(&q->map.entities[e].ent), "func_detail_wall") == 0 &&
                           (contents & CONTENTS_SOLID) && (contents & CONTENTS_DETAIL);
    }
    if (e > 0 && strcmp(entity_classname(&q->map.entities[e].ent), "func_illusionary_visblocker") == 0)
        out->contents = contents = visblocker_contents(contents);
    out->mirror_off = mirror_off(q, e, out->contents);
    if (q->opt.nodetail && (contents & CONTENTS_DETAIL)) {
        free_brush_sides(out);
        return BRUSH_DROPPED;
    }
    if (q->opt.nowater && (contents & MASK_LIQUID)) {
        free_brush_sides(out);
        return BRUSH_DROPPED;
    }
    /* Clip brushes are never drawn: qbsp3 marks their sides as node sides.
     * They still split the tree, after every other side (brushbsp.c). */
    if (contents & (CONTENTS_PLAYERCLIP | CONTENTS_MONSTERCLIP))
        for (int i = 0; i < out->numsides; i++) {
            out->original_sides[i].texinfo = -1;
            out->original_sides[i].clip = !out->original_sides[i].bevel;
        }
    if (e > 0 && strcmp(entity_classname(&q->map.entities[e].ent), "func_areaportal") == 0)
        out->contents = CONTENTS_AREAPORTAL;
    return BRUSH_OK;
}

static bool add_entity_brushes(qbsp_t *q, int e, vec3_t origin, q2err_t *err)
{
    const map_entity_t *me = &q->map.entities[e];
    for (int b = 0; b < me->numbrushes; b++) {
        mapbrush_t mb;
        int r = build_brush(q, e, &me->brushes[b], origin, false, &mb, err);
        if (r == BRUSH_ERROR) return false;
        if (r == BRUSH_DROPPED) continue;
        if (mb.contents & CONTENTS_ORIGIN) {
            /* Already turned into the entity's origin (or meaningless in the
             * world); never part of the model. */
            if (e == 0 || joins_world(me)) {
                char ebuf[128];
                log_warn(q->log, "%s:%d: %s, brush %d: origin brush in the world, dropped",
                         me->brushes[b].source ? me->brushes[b].source : qbsp_entity_path(q, e),
                         me->brushes[b].line, ent_desc(q, e, ebuf, sizeof ebuf), me->brushes[b].entity_brush_index);
            }
            free_brush_sides(&mb);
            continue;
        }
        if (mb.detail_wall) q->any_detail_wall = true;
        q->mapbrushes = q2_grow(q->mapbrushes, sizeof *q->mapbrushes, &q->cap_mapbrushes, q->nummapbrushes + 1);
        q->mapbrushes[q->nummapbrushes++] = mb;
    }
    if (e > 0 && strcmp(entity_classname(&me->ent), "func_areaportal") == 0 && me->numbrushes != 1)
        return q2err_set(err, qbsp_entity_path(q, e), me->ent.line, 0, "entity %d (func_areaportal) has %d brushes; it must have exactly one", e,
                         me->numbrushes);
    return true;
}

/* The origin of a brush entity: the centre of its origin brush, else its
 * "origin" key. Writes the key back so the game places the model. */
static bool entity_origin(qbsp_t *q, int e, vec3_t *origin, q2err_t *err)
{
    map_entity_t *me = &q->map.entities[e];
    *origin = vec3(0, 0, 0);
    for (int b = 0; b < me->numbrushes; b++) {
        mapbrush_t mb;
        int r = build_brush(q, e, &me->brushes[b], vec3(0, 0, 0), true, &mb, err);
        if (r == BRUSH_ERROR) return false;
        if (r != BRUSH_OK) continue;
        vec3_t c = vec_scale(vec_add(mb.bounds.mins, mb.bounds.maxs), 0.5);
        free_brush_sides(&mb);
        char buf[128];
        snprintf(buf, sizeof buf, "%g %g %g", c.x, c.y, c.z);
        entity_set(&me->ent, "origin", buf);
        break;
    }
    if (!entity_get_vec3(&me->ent, "origin", origin)) *origin = vec3(0, 0, 0);
    return true;
}

bool load_brushes(qbsp_t *q, q2err_t *err)
{
    int n = q->map.numentities;
    if (n < 1 || strcmp(entity_classname(&q->map.entities[0].ent), "worldspawn") != 0)
        return q2err_set(err, q->map.path, n ? q->map.entities[0].ent.line : 0, 0,
                         "the first entity must be worldspawn");
    q->ent_firstbrush = q2_calloc((size_t)n, sizeof(int));
    q->ent_numbrushes = q2_calloc((size_t)n, sizeof(int));
    q->ent_emptied = q2_calloc((size_t)n, sizeof(bool));
    q->ent_origin = q2_calloc((size_t)n, sizeof(vec3_t));
    q->leaked_entity = -1;

    for (int e = 0; e < n; e++) {
        vec3_t o;
        const map_entity_t *me = &q->map.entities[e];
        if (e > 0 && entity_get_vec3(&me->ent, "origin", &o)) {
            if (!vec_is_finite(o) || fabs(o.x) > MAX_WORLD_COORD || fabs(o.y) > MAX_WORLD_COORD ||
                fabs(o.z) > MAX_WORLD_COORD)
                return q2err_set(err, qbsp_entity_path(q, e), me->ent.line, 0,
                                 "entity %d (%s) is outside the world: origin %g %g %g; Quake 2 allows +-%g", e,
                                 entity_classname(&me->ent), o.x, o.y, o.z, MAX_WORLD_COORD);
        }
    }

    /* The world first, with the brushes of the entities that join it. */
    q->ent_firstbrush[0] = 0;
    for (int e = 0; e < n; e++) {
        if (e > 0 && !joins_world(&q->map.entities[e])) continue;
        if (!add_entity_brushes(q, e, vec3(0, 0, 0), err)) return false;
        if (e > 0) q->ent_firstbrush[e] = q->nummapbrushes;
    }
    q->ent_numbrushes[0] = q->nummapbrushes;

    for (int e = 1; e < n; e++) {
        map_entity_t *me = &q->map.entities[e];
        if (joins_world(me)) continue;
        q->ent_firstbrush[e] = q->nummapbrushes;
        if (me->numbrushes == 0) continue;
        vec3_t origin;
        if (!entity_origin(q, e, &origin, err)) return false;
        q->ent_origin[e] = origin;
        if (!add_entity_brushes(q, e, origin, err)) return false;
        q->ent_numbrushes[e] = q->nummapbrushes - q->ent_firstbrush[e];
        if (q->ent_numbrushes[e] == 0) {
            q->ent_emptied[e] = true;
            char ebuf[128];
            log_warn(q->log, "%s:%d: %s: every one of its %d brushes was left out; the entity is not written (with no model the game could not spawn it)",
                     qbsp_entity_path(q, e), me->ent.line, ent_desc(q, e, ebuf, sizeof ebuf), me->numbrushes);
        }
    }
    return true;
}

/* -add FILE (ericw-tools): FILE's world brushes join the world and its other
 * entities follow ours; its worldspawn keys are not used. Messages about
 * them name FILE (map_brush_t/map_entity_t.source; `path` outlives q). */
static bool add_map(qbsp_t *q, const char *path, q2err_t *err)
{
    map_t add;
    q2err_t aerr;
    q2err_clear(&aerr);
    if (!file_exists(path)) return q2err_set(err, path, 0, 0, "-add: map file not found");
    if (!map_read_file(path, &add, &aerr)) {
        *err = aerr;
        return false;
    }
    if (add.numentities > 0 && q->map.numentities > 0) {
        map_entity_t *w = &q->map.entities[0], *aw = &add.entities[0];
        for (int b = 0; b < aw->numbrushes; b++) {
            map_brush_t mb = aw->brushes[b];
            mb.entity_brush_index = w->numbrushes;
            mb.source = path;
            ARRAY_PUSH(w->brushes, w->numbrushes, w->cap, mb);
        }
        aw->numbrushes = 0;
    }
    for (int e = 1; e < add.numentities; e++) {
        add.entities[e].source = path;
        for (int b = 0; b < add.entities[e].numbrushes; b++) add.entities[e].brushes[b].source = path;
        ARRAY_PUSH(q->map.entities, q->map.numentities, q->map.cap, add.entities[e]);
        memset(&add.entities[e], 0, sizeof add.entities[e]);
    }
    if (add.valve220) q->map.valve220 = true;
    log_info(q->log, "%6d entities added from %s", add.numentities > 0 ? add.numentities - 1 : 0, path);
    map_free(&add);
    return true;
}

bool load_map(qbsp_t *q, const char *path, q2err_t *err)
{
    if (!map_read_file(path, &q->map, err)) return false;
    if (q->opt.add_path && !add_map(q, q->opt.add_path, err)) return false;
    if (!prepare_map(q, err)) return false;
    groupkeys_collect(q);
    if (!load_brushes(q, err)) return false;
    /* q->mapbrushes hold everything later stages read of the brushes; the
     * parsed ones (4.1 of spirit2dm1's 22.4 MB heap peak) go now. */
    map_free_brushes(&q->map);
    return true;
}

void load_free(qbsp_t *q)
{
    for (int i = 0; i < q->nummapbrushes; i++) free_brush_sides(&q->mapbrushes[i]);
    free(q->mapbrushes);
    q->mapbrushes = NULL;
    q->nummapbrushes = q->cap_mapbrushes = 0;
    free(q->ent_firstbrush);
    free(q->ent_numbrushes);
    free(q->ent_emptied);
    q->ent_emptied = NULL;
    free(q->ent_origin);
    free(q->ent_flags);
    q->ent_flags = NULL;
    free(q->ent_chop_order);
    q->ent_chop_order = NULL;
    groupkeys_free(q);
    q->ent_firstbrush = q->ent_numbrushes = NULL;
    q->ent_origin = NULL;
}
