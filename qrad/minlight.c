/* Floors and ambient on style 0, after direct light and bounces (so none of
 * them bounces, as in ericw-tools):
 *   - arghrad's worldspawn _ambient, added to every luxel;
 *   - delay-4 lights (local minlight): each channel raised to the level
 *     those lights reach where they are seen;
 *   - _minlight (per model, worldspawn's by default, -minlight): each
 *     channel raised to minlight * _minlight_color, times the dirt factor
 *     with _minlight_dirt, except on faces of the _minlight_exclude
 *     texture. Luxels never go down. */
#include <strings.h>

#include "qrad.h"

void qrad_minlight(qrad_t *q)
{
    bool ambient = q->ambient.x > 0 || q->ambient.y > 0 || q->ambient.z > 0;
    bool any = ambient || q->any_localmin;
    for (int m = 0; m < q->nummkeys && !any; m++) any = q->mkeys[m].minlight > 0;
    if (!any) return;
#pragma omp parallel for schedule(dynamic, 16) num_threads(q->opts->threads)
    for (int fi = 0; fi < q->bsp->numfaces; fi++) {
        rface_t *f = &q->faces[fi];
        if (!f->lit || !f->light) continue;
        const model_keys_t *k = &q->mkeys[f->keys];
        const char *tex = q->bsp->texinfo[q->bsp->faces[fi].texinfo].texture;
        bool floor = k->minlight > 0 && !(k->minlight_exclude[0] && !strcasecmp(k->minlight_exclude, tex));
        int n = f->w * f->h;
        for (int i = 0; i < n; i++) {
            float *o = f->light + (size_t)i * 3;
            if (ambient) {
                o[0] += (float)q->ambient.x;
                o[1] += (float)q->ambient.y;
                o[2] += (float)q->ambient.z;
            }
            if (f->localmin)
                for (int c = 0; c < 3; c++) o[c] = fmaxf(o[c], f->localmin[(size_t)i * 3 + c]);
            if (floor) {
                double s = k->minlight * (k->minlight_dirt && f->dirtmap ? f->dirtmap[i] : 1.0);
                o[0] = fmaxf(o[0], (float)(s * k->minlight_color.x));
                o[1] = fmaxf(o[1], (float)(s * k->minlight_color.y));
                o[2] = fmaxf(o[2], (float)(s * k->minlight_color.z));
            }
        }
    }
}
