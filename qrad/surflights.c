/* Surface lights: SURF_LIGHT faces (the texinfo's value is the light) cut
 * into area lights of uniform exitance, with ericw-tools' worldspawn scales
 * _surflightscale and _surflightskyscale. */
#include <string.h>

#include "qrad.h"
#include "surflights.h"
#include "../common/mem.h"

/* Cuts a SURF_LIGHT face into pieces no larger than -chop on each world
 * axis; each piece is an area light of uniform exitance. */
void qrad_surface_lights(qrad_t *q)
{
    /* Emitters are cut coarser than bounce patches (as ericw-tools'
     * surflight_subdivide 128): the polygon formula is exact at any size, and
     * fewer pieces mean fewer shadow rays. */
    double chop = 2 * (q->opts->chop > 1 ? q->opts->chop : 64);
    /* ericw-tools' worldspawn scales of surface lights (here relative to
     * qrad3's -direct, so 1 keeps today's brightness). */
    const entity_t *ws = qrad_worldspawn(q);
    double surfscale = ws ? qrad_key_float(q, ws, "_surflightscale", 1, 0, 1000) : 1;
    double skyscale = ws ? qrad_key_float(q, ws, "_surflightskyscale", 1, 0, 1000) : 1;
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
        double exitance = ti->value * refl * q->opts->direct * M_PI * (f->sky ? skyscale : surfscale);
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
                l.light_mask = l.shadow_mask = 1;
                l.dirt = q->dirt.global;
                l.bouncescale = 1;
                l.anglescale = 1;
                l.numpoints = cur->numpoints;
                l.points = q2_malloc(sizeof(vec3_t) * cur->numpoints);
                memcpy(l.points, cur->p, sizeof(vec3_t) * cur->numpoints);
                l.range = sqrt(exitance * area / (M_PI * LIGHT_CUTOFF));
                l.cluster = qrad_point_cluster(q->bsp, vec_ma(l.origin, SAMPLE_NUDGE, f->normal));
                ARRAY_PUSH(q->lights, q->numlights, q->caplights, l);
                q->surface_pieces++;
            }
            winding_free(cur);
        }
    }
}

