/* Light sources: `light*` entities (points and spots), the sun and sky dome
 * from worldspawn keys or `_sun` light entities (surface lights: surflights.c).
 *
 * Keys are read as the compilers designers use read them: qrad3 for `light`,
 * `_light`, `_color`, `style`, `_cone`, `target`, `angle`; q2tools-220 for
 * `_falloff`, `wait`, `_sun`, `_sun_light`, `_sun_color`, `_sun_ambient`;
 * ericw-tools for `delay`, `mangle`, `_sunlight`, `_sun_mangle`,
 * `_sunlight_color`, `_sunlight_penumbra`, `_sunlight2` and `_sun` lights,
 * `_softangle`, `_nostaticlight`, `_suntexture`, a light's `_dirtscale` and
 * `_dirtgain`, worldspawn `_dist`, `_range`, `_spotlightautofalloff` and
 * `_sunlight_dirt`; arghrad for `_sun_vector`, `_sun_style`, `_sun_target`,
 * and its light keys `_fade` (wait), `_distance` (where a linear light
 * reaches 0) and `_angfade`/`_angwait` (0..2, half of it is the
 * _anglescale), as ericw-tools' -arghradcompat renames them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lights.h"
#include "keys.h"
#include "qrad.h"
#include "trace.h"
#include "../common/crmath.h"
#include "../common/mem.h"

vec3_t qrad_angles_to_vec(double yaw, double pitch)
{
    double y = yaw * M_PI / 180.0, p = pitch * M_PI / 180.0;
    return vec3(cr_cos(p) * cr_cos(y), cr_cos(p) * cr_sin(y), cr_sin(p));
}

/* The entities' targetnames sorted (by name, then entity), so the lights'
 * targets are found by bisection instead of a scan of every entity for
 * each light. */
typedef struct target_t {
    const char *name;
    int ent;
} target_t;

typedef struct targets_t {
    target_t *t;
    int n;
} targets_t;

static int cmp_target(const void *a, const void *b)
{
    const target_t *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : x->ent - y->ent;
}

static void targets_build(const qrad_t *q, targets_t *ts)
{
    ts->t = q2_malloc(sizeof *ts->t * (size_t)(q->ents.count > 0 ? q->ents.count : 1));
    ts->n = 0;
    for (int i = 0; i < q->ents.count; i++) {
        const char *tn = entity_get(&q->ents.ents[i], "targetname");
        if (tn && tn[0]) ts->t[ts->n++] = (target_t){tn, i};
    }
    qsort(ts->t, (size_t)ts->n, sizeof *ts->t, cmp_target);
}

/* The first entity (in entity order) whose targetname is name; ts may be
 * NULL (a scan). */
static const entity_t *find_target(const qrad_t *q, const targets_t *ts, const char *name)
{
    if (!name || !name[0]) return NULL;
    if (!ts) {
        for (int i = 0; i < q->ents.count; i++) {
            const char *tn = entity_get(&q->ents.ents[i], "targetname");
            if (tn && !strcmp(tn, name)) return &q->ents.ents[i];
        }
        return NULL;
    }
    int lo = 0, hi = ts->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (strcmp(ts->t[mid].name, name) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < ts->n && !strcmp(ts->t[lo].name, name) ? &q->ents.ents[ts->t[lo].ent] : NULL;
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
    case FALLOFF_LINEAR: return l->fade_dist > 0 ? l->fade_dist : l->intensity / l->wait;
    case FALLOFF_INVERSE2B: return 128.0 * fmax(0.0, sqrt(l->intensity / LIGHT_CUTOFF) - 1.0) / l->wait;
    case FALLOFF_INVERSE: return l->intensity * 128.0 / (l->wait * LIGHT_CUTOFF);
    case FALLOFF_INVERSE2: return 128.0 * sqrt(l->intensity / LIGHT_CUTOFF) / l->wait;
    default: return 1e30;
    }
}

static void add_light(qrad_t *q, const light_t *l) { ARRAY_PUSH(q->lights, q->numlights, q->caplights, *l); }

/* Worldspawn keys that change every light entity (ericw-tools'). */

static void read_world_light_keys(qrad_t *q, const entity_t *w, world_light_keys_t *k)
{
    k->dist = w ? qrad_key_float(q, w, "_dist", 1, 0.01, 100) : 1;
    k->range = w ? qrad_key_float(q, w, "_range", 0.5, 0.01, 100) : 0.5;
    k->spotauto = w && qrad_key_int(q, w, "_spotlightautofalloff", 0, 0, 1) == 1;
    int sd = w ? qrad_key_int(q, w, "_sunlight_dirt", 0, -1, 1) : 0;
    k->sun_dirt = q->opts->dirt >= 0 && (sd > 0 || (sd == 0 && q->dirt.global));
    if (k->sun_dirt) q->dirt.on = true;
}

/* A light's _dirt: 1 on, -1 off, 0 (absent) the default. */
static bool light_dirt(const qrad_t *q, const entity_t *e, bool dflt)
{
    int dirt = qrad_key_int(q, e, "_dirt", 0, -1, 1);
    if (q->opts->dirt < 0) return false;
    return dirt > 0 || (dirt == 0 && dflt);
}

static bool sun_from_entity(qrad_t *q, const targets_t *ts, const entity_t *e, vec3_t origin,
                            const world_light_keys_t *wk)
{
    /* ericw: a light with "_sun" "1" is a sun shining from it towards its
     * target (or along its mangle). */
    vec3_t travel = vec3(0, 0, -1), v;
    const entity_t *t = find_target(q, ts, entity_get(e, "target"));
    if (t && entity_get_vec3(t, "origin", &v)) travel = vec_normalize(vec_sub(v, origin), NULL);
    else if (entity_get_vec3(e, "mangle", &v)) travel = qrad_angles_to_vec(v.x, v.y);
    if (vec_len(travel) == 0) travel = vec3(0, 0, -1);
    double intensity = entity_get_float(e, "light", entity_get_float(e, "_light", 300));
    /* The first sun light is the sun unless worldspawn made one; every
     * other is one more sun, as ericw-tools lights with all of them. */
    sun_t *s = &q->sun;
    if (q->sun_from_world || q->sun_lights > 0) {
        if (q->numsuns >= MAX_EXTRA_SUNS) {
            log_warn(q->log, "light at line %d: more than %d suns; ignored", e->line, MAX_EXTRA_SUNS + 1);
            return true;
        }
        s = &q->suns[q->numsuns++];
        memset(s, 0, sizeof *s);
        s->penumbra = q->sun.penumbra;
    }
    q->sun_lights++;
    s->on = true;
    s->dir = vec_neg(travel);
    s->intensity = intensity * q->opts->entity;
    s->color = read_color(e, "_color", NULL);
    s->penumbra = entity_get_float(e, "_sunlight_penumbra", s->penumbra);
    /* ericw: the light's _dirt is its _sunlight_dirt, its style the sun's,
     * and _suntexture limits it to sky faces of that texture. */
    s->dirt = light_dirt(q, e, wk->sun_dirt);
    if (s->dirt) q->dirt.on = true;
    const char *st = get2(e, "style", "_style");
    s->style = st ? qrad_key_int(q, e, entity_get(e, "style") ? "style" : "_style", 0, 0, 254) : 0;
    const char *tex = entity_get(e, "_suntexture");
    s->texture[0] = 0;
    if (tex) snprintf(s->texture, sizeof s->texture, "%s", tex);
    return true;
}

/* arghrad's "_sun_vector" "x y z": the direction the sunlight travels. */
static bool sun_vector(const qrad_t *q, const entity_t *e, const char *key, vec3_t *travel)
{
    const char *v = entity_get(e, key);
    if (!v) return false;
    vec3_t d;
    double len = 0;
    if (entity_get_vec3(e, key, &d) && isfinite(d.x) && isfinite(d.y) && isfinite(d.z)) d = vec_normalize(d, &len);
    if (!(len > 0)) {
        log_warn(q->log, "entity %d (%s, line %d): \"%s\" \"%s\" is not a direction \"x y z\"; ignored",
                 (int)(e - q->ents.ents), entity_classname(e), qrad_key_line(e, key), key, v);
        return false;
    }
    *travel = d;
    return true;
}

/* arghrad's "_sun_angle" "yaw pitch": the direction the sunlight travels. */
static bool sun_angle(const qrad_t *q, const entity_t *e, const char *key, vec3_t *out)
{
    const char *v = entity_get(e, key);
    if (!v) return false;
    double y, p;
    char extra;
    if (sscanf(v, "%lf %lf %c", &y, &p, &extra) != 2 || !isfinite(y) || !isfinite(p) || p < -90 || p > 90) {
        log_warn(q->log, "entity %d (%s, line %d): \"%s\" \"%s\" is not \"yaw pitch\" with pitch in -90..90; ignored",
                 (int)(e - q->ents.ents), entity_classname(e), qrad_key_line(e, key), key, v);
        return false;
    }
    *out = vec3(y, p, 0);
    return true;
}

/* arghrad's worldspawn suns 2..9 (_sun2_light, _sun2_angle/_sun2_mangle,
 * _sun2_color) and ericw-tools' _sun2 (_sun2, _sun2_mangle, _sun2_color). */
static void extra_world_suns(qrad_t *q, const entity_t *world, const world_light_keys_t *wk)
{
    for (int n = 2; n <= 9; n++) {
        char key[32], key2[32];
        snprintf(key, sizeof key, "_sun%d_light", n);
        snprintf(key2, sizeof key2, "_sun%d", n);
        const char *lk = entity_get(world, key) ? key : key2;
        double intensity = qrad_key_float(q, world, lk, 0, 0, 1e6);
        if (intensity <= 0) continue;
        if (q->numsuns >= MAX_EXTRA_SUNS) break;
        sun_t *s = &q->suns[q->numsuns++];
        memset(s, 0, sizeof *s);
        s->on = true;
        s->intensity = intensity * q->opts->entity;
        vec3_t v = vec3(0, -90, 0), travel;
        snprintf(key, sizeof key, "_sun%d_vector", n);
        if (sun_vector(q, world, key, &travel)) {
            s->dir = vec_neg(travel);
        } else {
            snprintf(key, sizeof key, "_sun%d_mangle", n);
            snprintf(key2, sizeof key2, "_sun%d_angle", n);
            if (!entity_get_vec3(world, key, &v)) sun_angle(q, world, key2, &v);
            s->dir = vec_neg(qrad_angles_to_vec(v.x, v.y));
        }
        snprintf(key, sizeof key, "_sun%d_color", n);
        s->color = read_color(world, key, NULL);
        snprintf(key, sizeof key, "_sun%d_style", n);
        s->style = qrad_key_int(q, world, key, 0, 0, 254);
        s->penumbra = q->sun.penumbra;
        s->dirt = wk->sun_dirt;
    }
}

static void setup_sun(qrad_t *q, const entity_t *world, const world_light_keys_t *wk)
{
    sun_t *s = &q->sun;
    memset(s, 0, sizeof *s);
    s->dir = vec3(0, 0, 1);
    s->color = vec3(1, 1, 1);
    s->dome_color = vec3(1, 1, 1);
    if (!world) return;
    vec3_t v;
    /* arghrad spells q2tools' "_sun" (the entity naming the direction) as
     * "_sun_target" too. */
    const char *sunname = entity_get(world, "_sun");
    if (!sunname || !sunname[0]) sunname = entity_get(world, "_sun_target");
    bool have_dir = false;
    if (sun_vector(q, world, "_sun_vector", &v)) {
        /* arghrad: the vector wins over every other way of aiming. */
        s->dir = vec_neg(v);
        have_dir = true;
    } else if (entity_get_vec3(world, "_sun_mangle", &v) || entity_get_vec3(world, "_sunlight_mangle", &v) ||
        sun_angle(q, world, "_sun_angle", &v)) {
        s->dir = vec_neg(qrad_angles_to_vec(v.x, v.y));
        have_dir = true;
    } else if (sunname && sunname[0]) {
        /* q2tools: "_sun" names an entity; the light travels from it to its
         * target. */
        const entity_t *se = find_target(q, NULL, sunname);
        vec3_t a, b;
        const entity_t *te = se ? find_target(q, NULL, entity_get(se, "target")) : NULL;
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
    /* q2tools and arghrad light a sun of 250 once it is aimed; ericw-tools'
     * _sunlight is 0 unless given (its mangle alone lights nothing). */
    double dflt_sun = have_dir && q->opts->tool_keys != QRAD_TOOL_ERICW ? 250 : 0;
    double intensity = entity_get_float(world, "_sunlight", entity_get_float(world, "_sun_light", dflt_sun));
    if (intensity > 0) {
        s->on = true;
        s->intensity = intensity * q->opts->entity;
    }
    s->color = read_color(world, "_sunlight_color", "_sun_color");
    s->penumbra = entity_get_float(world, "_sunlight_penumbra", 0);
    s->dome = entity_get_float(world, "_sunlight2", entity_get_float(world, "_sun_ambient", 0)) * q->opts->entity;
    s->dome_color = read_color(world, "_sunlight2_color", entity_get(world, "_sunlight_color2") ? "_sunlight_color2" : "_sun_color");
    s->dome3 = qrad_key_float(q, world, "_sunlight3", 0, 0, 1e6) * q->opts->entity;
    s->dome3_color = read_color(world, "_sunlight3_color", "_sunlight_color3");
    /* arghrad: diffused sunlight around the sunlit areas, fading over about
     * 64 units scaled down by _sun_difwait (the spirit maps spell it
     * _sun_diffwait). */
    s->diffuse = qrad_key_float(q, world, "_sun_diffuse", 0, 0, 1e6) * q->opts->entity;
    const char *dw = entity_get(world, "_sun_diffwait") ? "_sun_diffwait"
                     : entity_get(world, "_sun_difwait") ? "_sun_difwait" : "_sun_diffade";
    s->diffwait = qrad_key_float(q, world, dw, 1, 0.01, 100);
    s->style = qrad_key_int(q, world, "_sun_style", 0, 0, 254);
    s->dirt = wk->sun_dirt;
    if (s->intensity > 0) q->sun_from_world = true;
    extra_world_suns(q, world, wk);
    /* arghrad: worldspawn "_ambient" is light added to every luxel, one
     * brightness or "r g b" (0..255 each). */
    const char *amb = entity_get(world, "_ambient");
    if (amb) {
        vec3_t c;
        if (entity_get_vec3(world, "_ambient", &c) && c.x >= 0 && c.y >= 0 && c.z >= 0) q->ambient = c;
        else {
            double a = qrad_key_float(q, world, "_ambient", 0, 0, 255);
            q->ambient = vec3(a, a, a);
        }
    }
}

static bool parse_point_light(qrad_t *q, const targets_t *ts, const entity_t *e, int index,
                              const world_light_keys_t *wk)
{
    light_t l;
    memset(&l, 0, sizeof l);
    l.face = -1;
    /* ericw: "_nostaticlight" "1" is a light for the engine alone (an
     * rtlight): no baked light, and no sun either. */
    if (qrad_key_int(q, e, "_nostaticlight", 0, 0, 1) == 1) return true;
    if (!entity_get_vec3(e, "origin", &l.origin)) {
        log_warn(q->log, "entity %d (%s, line %d) has no origin; ignored", index, entity_classname(e), e->line);
        return true;
    }
    double intensity = entity_get_float(e, "light", entity_get_float(e, "_light", 300));
    if (intensity == 0) intensity = 300;
    const char *sunkey = entity_get(e, "_sun");
    if (sunkey && atoi(sunkey) == 1) return sun_from_entity(q, ts, e, l.origin, wk);
    /* A negative light darkens (ericw-tools): it falls off as a positive
     * one of its size would and is taken away after the floors. */
    l.negative = intensity < 0;
    if (l.negative) q->any_negative = true;
    l.intensity = fabs(intensity) * q->opts->entity;
    /* ericw's _range scales the brightness, not the fade distance: the
     * colour carries it (0.5 leaves the light as it is). */
    l.color = vec_scale(read_color(e, "_color", NULL), wk->range / 0.5);
    const char *st = get2(e, "style", "_style");
    l.style = st ? atoi(st) : 0;
    if (l.style < 0 || l.style > 254) {
        log_warn(q->log, "light at line %d: style %d out of range; using 0", e->line, l.style);
        l.style = 0;
    }
    /* q2tools-220's "_falloff" picks the formula (0..3, what qrad has
     * always read); a larger value is ericw-tools' distance at which a
     * linear light reaches 0. ericw's "delay" 0..5 picks the formula. */
    const char *fo = entity_get(e, "_falloff");
    const char *dl = entity_get(e, "delay");
    l.falloff = FALLOFF_LINEAR;
    double fov = fo ? qrad_key_float(q, e, "_falloff", 0, 0, 1e6) : 0;
    if (fo && fov <= FALLOFF_NONE) l.falloff = (int)fov;
    else if (fo) l.fade_dist = fov;
    else if (dl) {
        l.falloff = atoi(dl);
        if (l.falloff < 0 || l.falloff > FALLOFF_INVERSE2B) l.falloff = FALLOFF_LINEAR;
    }
    if (l.falloff != FALLOFF_LINEAR) l.fade_dist = 0;
    /* arghrad's _distance: where its linear light reaches 0 (ericw's
     * _falloff distance). */
    if (l.falloff == FALLOFF_LINEAR && l.fade_dist <= 0 && entity_get(e, "_distance"))
        l.fade_dist = qrad_key_float(q, e, "_distance", 0, 1, 1e6);
    l.wait = entity_get_float(e, "wait", entity_get_float(e, "_wait", 1.0));
    if (!entity_get(e, "wait") && !entity_get(e, "_wait") && entity_get(e, "_fade"))
        l.wait = qrad_key_float(q, e, "_fade", 1, 0.001, 1000); /* arghrad's name for wait */
    if (l.wait <= 0) l.wait = 1.0;
    l.wait *= wk->dist;
    l.light_mask = qrad_key_int(q, e, "_light_channel_mask", 1, 0, 0x7fffffff);
    l.shadow_mask = qrad_key_int(q, e, "_shadow_channel_mask", l.light_mask, 0, 0x7fffffff);
    if (l.light_mask != 1 || l.shadow_mask != 1) q->any_channels = true;
    l.dirt = light_dirt(q, e, q->dirt.global);
    if (l.dirt) q->dirt.on = true;
    /* ericw: a light's own dirt strength and exponent. */
    l.dirtscale = entity_get(e, "_dirtscale") ? qrad_key_float(q, e, "_dirtscale", q->dirt.scale, 0, 100) : -1;
    l.dirtgain = entity_get(e, "_dirtgain") ? qrad_key_float(q, e, "_dirtgain", q->dirt.gain, 0.01, 100) : -1;
    l.dirtcustom = l.dirt && (l.dirtscale >= 0 || l.dirtgain >= 0);
    if (l.dirtcustom) q->dirt.custom = true;
    l.bouncescale = qrad_key_float(q, e, "_bouncescale", 1, 0, 100);
    /* ericw's _anglescale (_anglesense): how much the angle of incidence
     * dims the light; worldspawn's is every light's default. */
    const char *ak = entity_get(e, "_anglescale") ? "_anglescale" : "_anglesense";
    l.anglescale = qrad_key_float(q, e, ak, q->world_anglescale, 0, 1);
    /* arghrad's _angfade (q2tools reads _angwait but never uses it): 0..2,
     * 1 its default; ericw's -arghradcompat halves it into _anglescale. */
    const char *af = entity_get(e, "_angfade") ? "_angfade" : "_angwait";
    if (!entity_get(e, "_anglescale") && !entity_get(e, "_anglesense") && entity_get(e, af))
        l.anglescale = qrad_key_float(q, e, af, 2 * l.anglescale, 0, 2) * 0.5;
    if (q->opts->anglescale >= 0) l.anglescale = q->opts->anglescale;
    if (l.bouncescale != 1) q->any_bouncescale = true;
    if (l.falloff == FALLOFF_LOCALMIN) q->any_localmin = true;
    l.type = LIGHT_POINT;
    const char *cls = entity_classname(e);
    const char *target = entity_get(e, "target");
    vec3_t v;
    bool spot = false;
    if (target && target[0]) {
        const entity_t *t = find_target(q, ts, target);
        vec3_t to;
        if (t && entity_get_vec3(t, "origin", &to)) {
            double len;
            l.dir = vec_normalize(vec_sub(to, l.origin), &len);
            spot = len > 0;
            /* ericw's _spotlightautofalloff: a linear spotlight without a
             * falloff distance of its own fades out at its target. */
            if (spot && wk->spotauto && l.falloff == FALLOFF_LINEAR && l.fade_dist <= 0) l.fade_dist = len;
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
        l.stopdot = cr_cos(cone * M_PI / 180.0);
        /* ericw's _softangle is the full angle of an inner cone (its cones
         * are full angles; qrad3's _cone is the half angle): full light
         * inside, fading linearly in the cosine to 0 at the cone's edge. */
        double soft = qrad_key_float(q, e, "_softangle", 0, 0, 360);
        if (soft > 0 && soft / 2 < cone) l.softdot = cr_cos(soft / 2 * M_PI / 180.0);
    }
    l.range = light_range(&l);
    double deviance = qrad_key_float(q, e, "_deviance", 0, 0, 65536);
    int samples = qrad_key_int(q, e, "_samples", 16, 1, 1024);
    if (deviance <= 0 || samples <= 1) {
        l.cluster = qrad_point_cluster(q->bsp, l.origin);
        add_light(q, &l);
        return true;
    }
    /* _deviance: copies spread through a ball of that radius on a
     * Fibonacci spiral (fixed, never rand()), each with 1/N of the
     * colour so the sum keeps the light's brightness and its range. */
    vec3_t centre = l.origin;
    l.color = vec_scale(l.color, 1.0 / samples);
    for (int k = 0; k < samples; k++) {
        double z = 1.0 - 2.0 * (k + 0.5) / samples, r = sqrt(fmax(0.0, 1 - z * z)), a = k * 2.39996322972865332;
        double rad = deviance * cr_cbrt((k + 0.5) / samples);
        l.origin = vec_add(centre, vec_scale(vec3(r * cr_cos(a), r * cr_sin(a), z), rad));
        l.range = light_range(&l) + rad;
        l.cluster = qrad_point_cluster(q->bsp, l.origin);
        add_light(q, &l);
    }
    return true;
}

bool qrad_lights_setup(qrad_t *q, q2err_t *err)
{
    const entity_t *world = NULL;
    for (int i = 0; i < q->ents.count; i++)
        if (!strcmp(entity_classname(&q->ents.ents[i]), "worldspawn")) {
            world = &q->ents.ents[i];
            break;
        }
    world_light_keys_t *wk = &q->world_light_keys;
    read_world_light_keys(q, world, wk);
    setup_sun(q, world, wk);
    q->world_anglescale = q->opts->anglescale_default >= 0 ? q->opts->anglescale_default : 1;
    if (world) {
        const char *wak = entity_get(world, "_anglescale") ? "_anglescale" : "_anglesense";
        q->world_anglescale = qrad_key_float(q, world, wak, q->world_anglescale, 0, 1);
    }
    q->sun_anglescale = q->opts->anglescale >= 0 ? q->opts->anglescale : q->world_anglescale;
    targets_t ts;
    targets_build(q, &ts);
    for (int i = 0; i < q->ents.count; i++) {
        const entity_t *e = &q->ents.ents[i];
        if (strncmp(entity_classname(e), "light", 5) || qrad_surface_template(e)) continue;
        if (!parse_point_light(q, &ts, e, i, wk)) {
            free(ts.t);
            return false;
        }
    }
    free(ts.t);
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

bool qrad_surface_template(const entity_t *e)
{
    const char *s = entity_get(e, "_surface");
    return s && s[0] && !strncmp(entity_classname(e), "light", 5);
}

/* For surface-light templates (surflights.c), after qrad_lights_setup has
 * read the worldspawn's light keys. */
bool qrad_light_from_entity(qrad_t *q, const entity_t *e, int index)
{
    return parse_point_light(q, NULL, e, index, &q->world_light_keys);
}
