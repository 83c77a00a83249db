/* ericw-tools' autominlight (light/ltface.cc, LightFace_AutoMin, run in its
 * PostProcessLightFace for every face that is not the world's, after the
 * minlight floors and before the negative lights). A door or platform
 * built into a wall has luxels in the world's solid, which no light
 * reaches; ericw-tools lights them with the light at the middle of the
 * model instead, so a door opening from a wall is not black:
 *
 *  - a sample is "occluded" when its point is in the world's solid and so
 *    is each of its 8 moves of 0.5 units along the diagonals (ericw's
 *    PositionSamplePointOnFace; it also tests the shadow-casting bmodels,
 *    not done here);
 *  - by default (no "_autominlight" key on the model's entity), a face with
 *    an occluded luxel has each occluded luxel raised, channel by channel,
 *    to the model's sample; "_autominlight" "1" raises every luxel of the
 *    model's faces, "-1" or "0" none;
 *  - the sample is the light at the centre of the model's bounds, (mins +
 *    maxs) / 2 of its dmodel as stored (ericw's), or at the origin of the
 *    entity that "_autominlight_target" names, computed as its light grid
 *    computes a point (FixPointAndCalcLightgrid): a point in solid moves to
 *    the first of its six 2-unit moves that is open, and with none open
 *    the model gets nothing; each light counts as a surface facing it
 *    along the best of the six axes would get it (its LIGHTPOINT_TAKE_MAX:
 *    a light straight along an axis gives its full value, one on a
 *    diagonal (1 - a) + a cos 45 of it for _anglescale a), in its style,
 *    at most 4 styles (the dimmest dropped, as its lightgrid_samples_t).
 *
 * What the point gets: entity lights (not delay 4), suns, the sky dome as
 * ericw's ring of suns, surface lights, then negative lights taken away.
 * Not: ericw's bounce lights at the point (qrad's bounces are patches, and
 * the sample is computed before them, on every rank alike), dirt, minlight.
 * The sample is computed once per model, before the direct pass, by every
 * rank: the bytes are the same at any thread or rank count. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "autominlight.h"
#include "direct.h"
#include "keys.h"
#include "lightgrid.h"
#include "surflights.h"
#include "trace.h"
#include "../common/mem.h"

/* ericw's lightgrid_samples_t: 4 styles. */
#define AM_STYLES 4
/* ericw-tools' sample jitter: +-0.5 units on each axis (8 points). */
#define AM_JITTER 0.5
/* Its -sunsamples default, for a dome without qrad's dome_suns set. */
#define AM_DOME_SUNS 64

enum { AM_OFF = 0, AM_OCCLUDED = 1, AM_ALL = 2 };

typedef struct automin_t {
    int mode;  /* AM_* */
    bool open; /* the sample point is open (after its fix): the sample holds */
    int n;
    int style[AM_STYLES];
    double rgb[AM_STYLES][3];
} automin_t;

/* ericw's lightgrid_samples_t::add: a new style takes a free slot, or with
 * none free the dimmest slot's place. */
static void am_add(automin_t *a, int style, vec3_t c)
{
    for (int k = 0; k < a->n; k++)
        if (a->style[k] == style) {
            a->rgb[k][0] += c.x, a->rgb[k][1] += c.y, a->rgb[k][2] += c.z;
            return;
        }
    int k = a->n;
    if (k == AM_STYLES) {
        double lo = INFINITY;
        for (int i = 0; i < AM_STYLES; i++) {
            double b = (a->rgb[i][0] + a->rgb[i][1] + a->rgb[i][2]) / 3;
            if (b < lo) lo = b, k = i;
        }
    } else {
        a->n++;
    }
    a->style[k] = style;
    a->rgb[k][0] = c.x, a->rgb[k][1] = c.y, a->rgb[k][2] = c.z;
}

/* The cosine of the best of the six axis normals towards unit dir. */
static double best_axis(vec3_t d) { return fmax(fabs(d.x), fmax(fabs(d.y), fabs(d.z))); }

static bool sun_reaches(const qrad_t *q, vec3_t p, vec3_t dir, const char *tex)
{
    double hd;
    int hit = trace_sky(&q->tracer, p, dir, 2 * WORLD_EXTENT, &hd);
    if (hit < 0) return false;
    if (tex && tex[0] && strcasecmp(q->bsp->texinfo[q->bsp->faces[hit].texinfo].texture, tex)) return false;
    return !(qrad_any_model_shadows(q) && trace_occluded_models(q, p, vec_ma(p, hd, dir), 0, 1));
}

/* Light l at p as the best-facing axis surface gets it, unshadowed; false
 * when it gives nothing. */
static bool light_at(const light_t *l, vec3_t p, vec3_t *target, vec3_t *add)
{
    *target = l->type == LIGHT_SURFACE ? vec_ma(l->origin, SAMPLE_NUDGE, l->dir) : l->origin;
    vec3_t delta = vec_sub(*target, p);
    double dist = vec_len(delta);
    if (dist < 1e-9 || dist > l->range + 2) return false;
    vec3_t dir = vec_scale(delta, 1.0 / dist);
    double m = best_axis(dir);
    if (l->type != LIGHT_SURFACE) {
        double ang = l->anglescale == 1 ? m : (1 - l->anglescale) + l->anglescale * m;
        double v = qrad_point_light_value(l, dist, ang, dir);
        if (v <= LIGHT_CUTOFF) return false;
        *add = vec_scale(l->color, v);
        return true;
    }
    double dot2 = -vec_dot(dir, l->dir), ff;
    if (l->point_emitter) {
        if (dot2 <= 0.001) return false;
        *add = vec_scale(l->color, l->area * m * dot2 / (dist * dist));
        return true;
    }
    if (vec_dot(l->dir, vec_sub(p, l->origin)) <= 0) return false;
    if (l->rescale) {
        ff = qrad_surflight_rescaled(l, dist, m, dir);
    } else if (dist * dist < 16.0 * l->area) {
        ff = 0;
        for (int ax = 0; ax < 6; ax++) {
            vec3_t n = vec3(0, 0, 0);
            vec_set_comp(&n, ax >> 1, ax & 1 ? -1 : 1);
            ff = fmax(ff, polygon_irradiance(l->points, l->numpoints, p, n));
        }
    } else {
        if (dot2 <= 0) return false;
        ff = l->area * m * dot2 / (M_PI * dist * dist);
    }
    if (ff * l->intensity < LIGHT_CUTOFF) return false;
    *add = vec_scale(l->color, ff);
    return true;
}

/* ericw's CalcLightgridAtPoint at p (open): its positive lights, suns and
 * surface lights, then its negative lights, clamped at 0. */
static void sample_point(const qrad_t *q, vec3_t p, const vec3_t *dome, int ndome, automin_t *a)
{
    for (int neg = 0; neg < 2; neg++)
        for (int li = 0; li < q->numlights; li++) {
            const light_t *l = &q->lights[li];
            if (l->falloff == FALLOFF_LOCALMIN || l->negative != (neg == 1)) continue;
            vec3_t target, add;
            if (!light_at(l, p, &target, &add)) continue;
            if (trace_occluded_channels(q, p, target, 1)) continue;
            if (qrad_any_model_shadows(q) && trace_occluded_models(q, p, target, 0, 1)) continue;
            if (neg) {
                /* negative lights take style-0 light away (qrad's rule) */
                for (int k = 0; k < a->n; k++)
                    if (a->style[k] == 0) a->rgb[k][0] -= add.x, a->rgb[k][1] -= add.y, a->rgb[k][2] -= add.z;
                continue;
            }
            am_add(a, l->style, add);
        }
    const double sa = q->sun_anglescale;
    for (int si = -1; si < q->numsuns; si++) {
        const sun_t *s = si < 0 ? &q->sun : &q->suns[si];
        if (!s->on || s->intensity <= 0) continue;
        if (!sun_reaches(q, p, s->dir, s->texture)) continue;
        am_add(a, s->style, vec_scale(s->color, s->intensity * ((1 - sa) + sa * best_axis(s->dir))));
    }
    for (int lower = 0; lower < 2; lower++) {
        double level = lower ? q->sun.dome3 : q->sun.dome;
        if (level <= 0) continue;
        double acc = 0;
        for (int k = 0; k < ndome; k++) {
            vec3_t d = dome[k];
            if (lower) d.z = -d.z; /* _sunlight3: the mirrored lower ring */
            if (sun_reaches(q, p, d, NULL)) acc += (1 - sa) + sa * best_axis(d);
        }
        if (acc > 0) am_add(a, 0, vec_scale(lower ? q->sun.dome3_color : q->sun.dome_color, acc * level / ndome));
    }
    for (int k = 0; k < a->n; k++)
        for (int c = 0; c < 3; c++) a->rgb[k][c] = fmax(0.0, a->rgb[k][c]);
}

static bool entity_origin(const entity_t *e, vec3_t *o)
{
    const char *v = entity_get(e, "origin");
    double x, y, z;
    if (!v || sscanf(v, "%lf %lf %lf", &x, &y, &z) != 3) return false;
    *o = vec3(x, y, z);
    return true;
}

void qrad_autominlight_setup(qrad_t *q)
{
    int nm = q->bsp->nummodels;
    if (!q->opts->autominlight || nm < 2) return;
    automin_t *am = q2_calloc((size_t)nm, sizeof(automin_t));
    vec3_t *centre = q2_calloc((size_t)nm, sizeof(vec3_t));
    bool any = false;
    for (int m = 1; m < nm; m++) {
        const dmodel_t *d = &q->bsp->models[m];
        for (int f = d->firstface; f < d->firstface + d->numfaces && f < q->bsp->numfaces; f++)
            if (q->faces[f].lit) am[m].mode = AM_OCCLUDED;
        centre[m] = vec3((d->mins[0] + d->maxs[0]) / 2, (d->mins[1] + d->maxs[1]) / 2, (d->mins[2] + d->maxs[2]) / 2);
    }
    for (int i = 0; i < q->ents.count; i++) {
        const entity_t *e = &q->ents.ents[i];
        const char *model = entity_get(e, "model");
        if (!model || model[0] != '*') continue;
        int m = atoi(model + 1);
        if (m <= 0 || m >= nm || am[m].mode == AM_OFF) continue;
        if (entity_get(e, "_autominlight"))
            am[m].mode = qrad_key_int(q, e, "_autominlight", 0, -1, 1) > 0 ? AM_ALL : AM_OFF;
        const char *target = entity_get(e, "_autominlight_target");
        if (!target || !target[0]) continue;
        /* the first entity of that targetname, as ericw-tools looks it up;
         * none found: the centre stays */
        for (int j = 0; j < q->ents.count; j++) {
            const char *tn = entity_get(&q->ents.ents[j], "targetname");
            if (tn && !strcmp(tn, target)) {
                entity_origin(&q->ents.ents[j], &centre[m]);
                break;
            }
        }
    }
    for (int m = 1; m < nm; m++) any |= am[m].mode != AM_OFF;
    if (!any) {
        free(am);
        free(centre);
        return;
    }
    int ndome = 0;
    vec3_t *dome = NULL;
    if (q->sun.dome > 0 || q->sun.dome3 > 0)
        dome = qrad_dome_ring_dirs(q->opts->dome_suns > 0 ? q->opts->dome_suns : AM_DOME_SUNS, &ndome);
    int lit = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(q->opts->threads) reduction(+ : lit)
    for (int m = 1; m < nm; m++) {
        if (am[m].mode == AM_OFF) continue;
        vec3_t p = centre[m];
        am[m].open = qrad_fix_point(q->bsp, &p);
        if (!am[m].open) continue;
        sample_point(q, p, dome, ndome, &am[m]);
        lit++;
    }
    free(dome);
    free(centre);
    q->automin = am;
    log_verbose(q->log, "autominlight: %d bmodels with a centre sample", lit);
}

/* In the world's solid, and so are its 8 diagonal moves of AM_JITTER. */
static bool occluded(const bsp_t *bsp, vec3_t p)
{
    if (!qrad_point_solid(bsp, p)) return false;
    for (int k = 0; k < 8; k++) {
        vec3_t j = vec3(k & 1 ? AM_JITTER : -AM_JITTER, k & 2 ? AM_JITTER : -AM_JITTER, k & 4 ? AM_JITTER : -AM_JITTER);
        if (!qrad_point_solid(bsp, vec_add(p, j))) return false;
    }
    return true;
}

void qrad_autominlight_face(const qrad_t *q, rface_t *f)
{
    if (!q->automin || f->model <= 0 || !f->lit || !f->light || !f->samples) return;
    const automin_t *a = &q->automin[f->model];
    if (a->mode == AM_OFF || !a->open || a->n == 0) return;
    int n = f->w * f->h;
    uint8_t *occ = NULL;
    if (a->mode == AM_OCCLUDED) {
        occ = q2_malloc((size_t)n + 1);
        bool any = false;
        for (int i = 0; i < n; i++) any |= (occ[i] = occluded(q->bsp, f->samples[i])) != 0;
        if (!any) {
            free(occ);
            return;
        }
    }
    for (int k = 0; k < a->n; k++) {
        int s = 0;
        while (s < f->numstyles && f->styles[s] != a->style[k]) s++;
        if (s == f->numstyles) {
            /* a style the face lacks gets a lightmap where a slot is free
             * and the sample reaches a byte step */
            double mx = fmax(a->rgb[k][0], fmax(a->rgb[k][1], a->rgb[k][2]));
            if (s == MAXLIGHTMAPS || mx * q->opts->scale < 0.5) continue;
            f->light = q2_realloc(f->light, sizeof(float) * (size_t)(s + 1) * n * 3);
            memset(f->light + (size_t)s * n * 3, 0, sizeof(float) * (size_t)n * 3);
            f->styles[s] = a->style[k];
            f->numstyles++;
        }
        float *o = f->light + (size_t)s * n * 3;
        for (int i = 0; i < n; i++) {
            if (occ && !occ[i]) continue;
            for (int c = 0; c < 3; c++) o[i * 3 + c] = fmaxf(o[i * 3 + c], (float)a->rgb[k][c]);
        }
    }
    free(occ);
}

void qrad_autominlight_free(qrad_t *q)
{
    free(q->automin);
    q->automin = NULL;
}
