/* Light sources: `light*` entities (points and spots), the sun and sky dome
 * from worldspawn keys or `_sun` light entities, and surface lights cut from
 * SURF_LIGHT faces.
 *
 * Keys are read as the compilers designers use read them: qrad3 for `light`,
 * `_light`, `_color`, `style`, `_cone`, `target`, `angle`; q2tools-220 for
 * `_falloff`, `wait`, `_sun`, `_sun_light`, `_sun_color`, `_sun_ambient`;
 * ericw-tools for `delay`, `mangle`, `_sunlight`, `_sun_mangle`,
 * `_sunlight_color`, `_sunlight_penumbra`, `_sunlight2` and `_sun` lights. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qrad.h"
#include "../common/mem.h"

vec3_t qrad_angles_to_vec(double yaw, double pitch)
{
    double y = yaw * M_PI / 180.0, p = pitch * M_PI / 180.0;
    return vec3(cos(p) * cos(y), cos(p) * sin(y), sin(p));
}

static const entity_t *find_target(const qrad_t *q, const char *name)
{
    if (!name || !name[0]) return NULL;
    for (int i = 0; i < q->ents.count; i++) {
        const char *tn = entity_get(&q->ents.ents[i], "targetname");
        if (tn && !strcmp(tn, name)) return &q->ents.ents[i];
    }
    return NULL;
}

/* "r g b" in 0..1 or 0..255, normalized so the brightest channel is 1 as
 * qrad3 does (colour never changes a light's brightness). */
static vec3_t read_color(const entity_t *e, const char *key, const char *key2)
{
    vec3_t c;
    if (!entity_get_vec3(e, key, &c) && !(key2 && entity_get_vec3(e, key2, &c))) return vec3(1, 1, 1);
    c = vec_max(c, vec3(0, 0, 0));
    double m = fmax(c.x, fmax(c.y, c.z));
    if (m <= 0) return vec3(1, 1, 1);
    return vec_scale(c, 1.0 / m);
}

static const char *get2(const entity_t *e, const char *a, const char *b)
{
    const char *v = entity_get(e, a);
    return v ? v : entity_get(e, b);
}

static double light_range(const light_t *l)
{
    switch (l->falloff) {
    case FALLOFF_LINEAR: return l->intensity / l->wait;
    case FALLOFF_INVERSE: return l->intensity * 128.0 / (l->wait * LIGHT_CUTOFF);
    case FALLOFF_INVERSE2: return 128.0 * sqrt(l->intensity / LIGHT_CUTOFF) / l->wait;
    default: return 1e30;
    }
}

static void add_light(qrad_t *q, const light_t *l) { ARRAY_PUSH(q->lights, q->numlights, q->caplights, *l); }

static bool sun_from_entity(qrad_t *q, const entity_t *e, vec3_t origin)
{
    /* ericw: a light with "_sun" "1" is a sun shining from it towards its
     * target (or along its mangle). */
    vec3_t travel = vec3(0, 0, -1), v;
    const entity_t *t = find_target(q, entity_get(e, "target"));
    if (t && entity_get_vec3(t, "origin", &v)) travel = vec_normalize(vec_sub(v, origin), NULL);
    else if (entity_get_vec3(e, "mangle", &v)) travel = qrad_angles_to_vec(v.x, v.y);
    if (vec_len(travel) == 0) travel = vec3(0, 0, -1);
    double intensity = entity_get_float(e, "light", entity_get_float(e, "_light", 300));
    q->sun.on = true;
    q->sun.dir = vec_neg(travel);
    q->sun.intensity = intensity * q->opts->entity;
    q->sun.color = read_color(e, "_color", NULL);
    q->sun.penumbra = entity_get_float(e, "_sunlight_penumbra", q->sun.penumbra);
    return true;
}

static void setup_sun(qrad_t *q, const entity_t *world)
{
    sun_t *s = &q->sun;
    memset(s, 0, sizeof *s);
    s->dir = vec3(0, 0, 1);
    s->color = vec3(1, 1, 1);
    s->dome_color = vec3(1, 1, 1);
    if (!world) return;
    vec3_t v;
    const char *sunname = entity_get(world, "_sun");
    bool have_dir = false;
    if (entity_get_vec3(world, "_sun_mangle", &v) || entity_get_vec3(world, "_sunlight_mangle", &v)) {
        s->dir = vec_neg(qrad_angles_to_vec(v.x, v.y));
        have_dir = true;
    } else if (sunname && sunname[0]) {
        /* q2tools: "_sun" names an entity; the light travels from it to its
         * target. */
        const entity_t *se = find_target(q, sunname);
        vec3_t a, b;
        const entity_t *te = se ? find_target(q, entity_get(se, "target")) : NULL;
        if (se && !te) {
            /* The named entity is the sun's target: the light travels to
             * it from the entity that targets it. */
            te = se;
            se = NULL;
            for (int i = 0; i < q->ents.count && !se; i++) {
                const char *tg = entity_get(&q->ents.ents[i], "target");
                if (tg && !strcmp(tg, sunname)) se = &q->ents.ents[i];
            }
        }
        if (se && te && entity_get_vec3(se, "origin", &a) && entity_get_vec3(te, "origin", &b)) {
            double len;
            vec3_t d = vec_normalize(vec_sub(b, a), &len);
            if (len > 0) {
                s->dir = vec_neg(d);
                have_dir = true;
            }
        } else {
            log_warn(q->log, "worldspawn \"_sun\" \"%s\": no entity pair (named and targeting) gives its direction",
                     sunname);
        }
    }
    double intensity = entity_get_float(world, "_sunlight", entity_get_float(world, "_sun_light", have_dir ? 250 : 0));
    if (intensity > 0) {
        s->on = true;
        s->intensity = intensity * q->opts->entity;
    }
    s->color = read_color(world, "_sunlight_color", "_sun_color");
    s->penumbra = entity_get_float(world, "_sunlight_penumbra", 0);
    s->dome = entity_get_float(world, "_sunlight2", entity_get_float(world, "_sun_ambient", 0)) * q->opts->entity;
    s->dome_color = read_color(world, "_sunlight2_color", "_sun_color");
}

static bool parse_point_light(qrad_t *q, const entity_t *e, int index)
{
    light_t l;
    memset(&l, 0, sizeof l);
    l.face = -1;
    if (!entity_get_vec3(e, "origin", &l.origin)) {
        log_warn(q->log, "entity %d (%s, line %d) has no origin; ignored", index, entity_classname(e), e->line);
        return true;
    }
    double intensity = entity_get_float(e, "light", entity_get_float(e, "_light", 300));
    if (intensity == 0) intensity = 300;
    const char *sunkey = entity_get(e, "_sun");
    if (sunkey && atoi(sunkey) == 1) return sun_from_entity(q, e, l.origin);
    l.intensity = intensity * q->opts->entity;
    l.color = read_color(e, "_color", NULL);
    const char *st = get2(e, "style", "_style");
    l.style = st ? atoi(st) : 0;
    if (l.style < 0 || l.style > 254) {
        log_warn(q->log, "light at line %d: style %d out of range; using 0", e->line, l.style);
        l.style = 0;
    }
    const char *fo = entity_get(e, "_falloff");
    const char *dl = entity_get(e, "delay");
    l.falloff = fo ? atoi(fo) : dl ? atoi(dl) : FALLOFF_LINEAR;
    if (l.falloff < 0 || l.falloff > FALLOFF_NONE) l.falloff = FALLOFF_LINEAR;
    l.wait = entity_get_float(e, "wait", entity_get_float(e, "_wait", 1.0));
    if (l.wait <= 0) l.wait = 1.0;
    l.type = LIGHT_POINT;
    const char *cls = entity_classname(e);
    const char *target = entity_get(e, "target");
    vec3_t v;
    bool spot = false;
    if (target && target[0]) {
        const entity_t *t = find_target(q, target);
        vec3_t to;
        if (t && entity_get_vec3(t, "origin", &to)) {
            double len;
            l.dir = vec_normalize(vec_sub(to, l.origin), &len);
            spot = len > 0;
        } else {
            log_warn(q->log, "light at line %d targets \"%s\", which does not exist", e->line, target);
        }
    }
    if (!spot && (entity_get_vec3(e, "mangle", &v) || entity_get_vec3(e, "_mangle", &v))) {
        l.dir = qrad_angles_to_vec(v.x, v.y);
        spot = true;
    }
    if (!spot && !strcmp(cls, "light_spot")) {
        double angle = entity_get_float(e, "angle", 0);
        if (angle == -1) l.dir = vec3(0, 0, 1);
        else if (angle == -2) l.dir = vec3(0, 0, -1);
        else l.dir = qrad_angles_to_vec(angle, 0);
        spot = true;
    }
    if (spot) {
        double cone = entity_get_float(e, "_cone", 10);
        if (cone <= 0) cone = 10;
        l.type = LIGHT_SPOT;
        l.stopdot = cos(cone * M_PI / 180.0);
    }
    l.range = light_range(&l);
    l.cluster = qrad_point_cluster(q->bsp, l.origin);
    add_light(q, &l);
    return true;
}

/* Cuts a SURF_LIGHT face into pieces no larger than -chop on each world
 * axis; each piece is an area light of uniform exitance. */
static void surface_lights(qrad_t *q)
{
    /* Emitters are cut coarser than bounce patches (as ericw-tools'
     * surflight_subdivide 128): the polygon formula is exact at any size, and
     * fewer pieces mean fewer shadow rays. */
    double chop = 2 * (q->opts->chop > 1 ? q->opts->chop : 64);
    for (int fi = 0; fi < q->bsp->numfaces; fi++) {
        const rface_t *f = &q->faces[fi];
        if (!f->emits || f->model != 0 || f->numpoints < 3) continue;
        const dtexinfo_t *ti = &q->bsp->texinfo[q->bsp->faces[fi].texinfo];
        /* qrad3 makes a surface light's emission value times the texture's
         * reflectivity, its brightest channel raised to at most twice the
         * average (1 at most), and 0.5 for a texture it cannot load. */
        double rgb[3] = {1, 1, 1}, refl = 0.5;
        if (q->texdb && texdb_image(q->texdb, ti->texture)) {
            texdb_average_color(q->texdb, ti->texture, rgb);
            double mx = fmax(rgb[0], fmax(rgb[1], rgb[2]));
            refl = mx < 0.5 ? 2 * mx : 1.0;
        }
        /* qrad3's emit_surface: irradiance = value * direct_scale * area *
         * cos * cos / d^2, which is a uniform emitter of exitance
         * value * direct_scale * pi. The colour keeps its hue at the
         * brightest channel's level, as qrad3's ColorNormalize. */
        double m = fmax(rgb[0], fmax(rgb[1], rgb[2]));
        vec3_t col = m > 0 ? vec3(rgb[0] / m, rgb[1] / m, rgb[2] / m) : vec3(1, 1, 1);
        double exitance = ti->value * refl * q->opts->direct * M_PI;
        /* Split on axial planes at multiples of chop. */
        winding_t *queue[1024];
        int nq = 0;
        winding_t *w = winding_alloc(f->numpoints);
        w->numpoints = f->numpoints;
        for (int k = 0; k < f->numpoints; k++) w->p[k] = f->points[k];
        queue[nq++] = w;
        while (nq > 0) {
            winding_t *cur = queue[--nq];
            aabb_t b = winding_bounds(cur);
            bool split = false;
            for (int ax = 0; ax < 3 && !split; ax++) {
                double lo = vec_comp(b.mins, ax), hi = vec_comp(b.maxs, ax);
                if (hi - lo <= chop + ON_EPSILON) continue;
                double cut = floor((lo + chop) / chop) * chop;
                if (cut <= lo + ON_EPSILON) cut += chop;
                if (cut >= hi - ON_EPSILON || nq + 2 > 1024) continue;
                vec3_t n = vec3(0, 0, 0);
                vec_set_comp(&n, ax, 1);
                winding_t *fr, *bk;
                winding_split(cur, n, cut, ON_EPSILON, &fr, &bk);
                if (fr && bk) {
                    winding_free(cur);
                    queue[nq++] = fr;
                    queue[nq++] = bk;
                    split = true;
                } else {
                    winding_free(fr);
                    winding_free(bk);
                }
            }
            if (split) continue;
            double area = winding_area(cur);
            if (area > DEGENERATE_EPSILON) {
                light_t l;
                memset(&l, 0, sizeof l);
                l.type = LIGHT_SURFACE;
                l.face = fi;
                l.dir = f->normal;
                l.area = area;
                l.origin = winding_center(cur);
                l.color = vec_scale(col, exitance);
                l.intensity = exitance;
                l.style = 0;
                l.numpoints = cur->numpoints;
                l.points = q2_malloc(sizeof(vec3_t) * cur->numpoints);
                memcpy(l.points, cur->p, sizeof(vec3_t) * cur->numpoints);
                l.range = sqrt(exitance * area / (M_PI * LIGHT_CUTOFF));
                l.cluster = qrad_point_cluster(q->bsp, vec_ma(l.origin, SAMPLE_NUDGE, f->normal));
                add_light(q, &l);
                q->surface_pieces++;
            }
            winding_free(cur);
        }
    }
}

bool qrad_lights_setup(qrad_t *q, q2err_t *err)
{
    const entity_t *world = NULL;
    for (int i = 0; i < q->ents.count; i++)
        if (!strcmp(entity_classname(&q->ents.ents[i]), "worldspawn")) {
            world = &q->ents.ents[i];
            break;
        }
    setup_sun(q, world);
    for (int i = 0; i < q->ents.count; i++) {
        const entity_t *e = &q->ents.ents[i];
        if (strncmp(entity_classname(e), "light", 5)) continue;
        if (!parse_point_light(q, e, i)) return false;
    }
    surface_lights(q);
    (void)err;
    return true;
}

void qrad_lights_free(qrad_t *q)
{
    for (int i = 0; i < q->numlights; i++) free(q->lights[i].points);
    free(q->lights);
    q->lights = NULL;
    q->numlights = q->caplights = 0;
}
