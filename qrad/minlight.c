/* Floors and ambient on style 0, after direct light and bounces (so none of
 * them bounces, as in ericw-tools):
 *   - arghrad's worldspawn _ambient, added to every luxel;
 *   - delay-4 lights (local minlight): each channel raised to the level
 *     those lights reach where they are seen;
 *   - _minlight (per model, worldspawn's by default, -minlight): each
 *     channel raised to minlight * _minlight_color, times the dirt factor
 *     with _minlight_dirt, except on faces of the _minlight_exclude
 *     texture; with _minlight_mottle, a value noise of 0..47 fixed in world
 *     space is added to the floor first (ericw's replacement for qrad3's
 *     rand() % 48). Luxels never go down;
 *   - ericw's autominlight on bmodel faces (autominlight.c, -preset ericw);
 *   - then negative lights take their light away, down to 0 (ericw-tools
 *     lights them after its minlight, so they darken the floor too).
 * Then, on every style, the final touches ericw-tools makes before it
 * writes: a model's _lightignore clears all but the floor, _maxlight clamps
 * (keeping the hue), -soft averages each luxel with its square of
 * neighbours on its face, and worldspawn's _gamma bends the byte curve. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "minlight.h"
#include "autominlight.h"
#include "keys.h"
#include "qrad.h"
#include "../common/crmath.h"
#include "../common/mem.h"

/* Mottle: a lattice of hashed values every MOTTLE_CELL units, interpolated
 * trilinearly, in 0..MOTTLE_RANGE luxel units (ericw's scale). */
#define MOTTLE_CELL 16.0
#define MOTTLE_RANGE 48.0

static uint32_t mottle_hash(int x, int y, int z)
{
    uint32_t h = (uint32_t)x * 0x8da6b343U ^ (uint32_t)y * 0xd8163841U ^ (uint32_t)z * 0xcb1ab31fU;
    h ^= h >> 16;
    h *= 0x7feb352dU;
    h ^= h >> 15;
    h *= 0x846ca68bU;
    h ^= h >> 16;
    return h;
}

static double mottle(vec3_t p)
{
    double c[3] = {p.x / MOTTLE_CELL, p.y / MOTTLE_CELL, p.z / MOTTLE_CELL};
    int b[3];
    double t[3];
    for (int k = 0; k < 3; k++) {
        double fl = floor(c[k]);
        b[k] = (int)fl;
        t[k] = c[k] - fl;
    }
    double v = 0;
    for (int corner = 0; corner < 8; corner++) {
        int dx = corner & 1, dy = (corner >> 1) & 1, dz = corner >> 2;
        double w = (dx ? t[0] : 1 - t[0]) * (dy ? t[1] : 1 - t[1]) * (dz ? t[2] : 1 - t[2]);
        v += w * (mottle_hash(b[0] + dx, b[1] + dy, b[2] + dz) & 0xff) / 255.0;
    }
    return v * MOTTLE_RANGE;
}

/* -soft: the mean over the (2r+1)^2 luxels around each one on its face. */
static void soften(float *light, int w, int h, int r)
{
    size_t n = (size_t)w * h;
    float *src = q2_malloc(sizeof(float) * n * 3 + 1);
    memcpy(src, light, sizeof(float) * n * 3);
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++) {
            double sum[3] = {0, 0, 0};
            int count = 0;
            for (int b = j - r; b <= j + r; b++)
                for (int a = i - r; a <= i + r; a++) {
                    if (a < 0 || b < 0 || a >= w || b >= h) continue;
                    const float *s = src + ((size_t)b * w + a) * 3;
                    sum[0] += s[0], sum[1] += s[1], sum[2] += s[2];
                    count++;
                }
            float *o = light + ((size_t)j * w + i) * 3;
            for (int c = 0; c < 3; c++) o[c] = (float)(sum[c] / count);
        }
    free(src);
}

/* The touches on every style of one face (see the file's comment). */
static void finish_face(const qrad_t *q, rface_t *f, double gamma)
{
    const model_keys_t *k = &q->mkeys[f->keys];
    size_t n = (size_t)f->w * f->h;
    if (k->maxlight > 0)
        for (size_t i = 0; i < n * f->numstyles; i++) {
            float *o = f->light + i * 3;
            float mx = fmaxf(o[0], fmaxf(o[1], o[2]));
            if (mx > k->maxlight)
                for (int c = 0; c < 3; c++) o[c] = (float)(o[c] * (k->maxlight / mx));
        }
    if (q->opts->soft > 0)
        for (int s = 0; s < f->numstyles; s++) soften(f->light + (size_t)s * n * 3, f->w, f->h, q->opts->soft);
    if (gamma != 1 && q->opts->scale > 0)
        /* On the byte scale (after -scale): 255 (v / 255)^(1 / gamma). */
        for (size_t i = 0; i < n * f->numstyles * 3; i++) {
            double v = f->light[i] * q->opts->scale;
            if (v > 0) f->light[i] = (float)(255.0 * cr_pow(v / 255.0, 1.0 / gamma) / q->opts->scale);
        }
}

bool qrad_minlight_begin(qrad_t *q, qrad_minlight_t *m)
{
    m->ambient = q->ambient.x > 0 || q->ambient.y > 0 || q->ambient.z > 0;
    const entity_t *ws = qrad_worldspawn(q);
    m->gamma = ws ? qrad_key_float(q, ws, "_gamma", 1, 0.01, 10) : 1;
    m->any = m->ambient || q->any_localmin || q->any_negative || q->automin;
    m->finish = m->gamma != 1 || q->opts->soft > 0;
    for (int k = 0; k < q->nummkeys; k++) {
        m->any |= q->mkeys[k].minlight > 0 || q->mkeys[k].lightignore;
        m->finish |= q->mkeys[k].maxlight > 0;
    }
    return m->any || m->finish;
}

/* qrad3's _minlight (lightmap.c FinalLightFace), on every style: a luxel
 * whose brightest channel, on the byte scale with each channel at least 1
 * (as qrad_final_color makes it), is under the floor is scaled up, hue
 * kept, to the floor plus rand() % 48. That term is left to chance there
 * and cannot be reproduced; it is taken at its mean, 23.5, the value
 * nearest every draw on average. */
#define QRAD3_MINLIGHT_RAND_MEAN 23.5

static void qrad3_minlight_face(const qrad_t *q, rface_t *f, double floor_level)
{
    double sc = q->opts->scale;
    if (floor_level <= 0 || sc <= 0) return;
    size_t n = (size_t)f->w * f->h;
    for (int st = 0; st < f->numstyles; st++)
        for (size_t i = 0; i < n; i++) {
            float *o = f->light + ((size_t)st * n + i) * 3;
            double amb = st == 0 ? q->opts->ambient : 0, v[3], mx = 0;
            for (int c = 0; c < 3; c++) {
                v[c] = o[c] * sc + amb;
                if (!(v[c] >= 1)) v[c] = 1;
                if (v[c] > mx) mx = v[c];
            }
            if (mx >= floor_level) continue;
            double k = (floor_level + QRAD3_MINLIGHT_RAND_MEAN) / mx;
            for (int c = 0; c < 3; c++) o[c] = (float)((v[c] * k - amb) / sc);
        }
}

void qrad_minlight_face(qrad_t *q, const qrad_minlight_t *m, int fi)
{
    rface_t *f = &q->faces[fi];
    if (!f->lit || !f->light) return;
    const model_keys_t *k = &q->mkeys[f->keys];
    if (q->opts->qrad3_minlight) {
        qrad3_minlight_face(q, f, k->minlight);
        if (m->finish) finish_face(q, f, m->gamma);
        return;
    }
    const char *tex = q->bsp->texinfo[q->bsp->faces[fi].texinfo].texture;
    bool floor = k->minlight > 0 && !(k->minlight_exclude[0] && !strcasecmp(k->minlight_exclude, tex));
    int n = f->w * f->h;
    if (k->lightignore) {
        /* Bounced light too: the floor is all it gets. */
        f->numstyles = 1;
        memset(f->light, 0, sizeof(float) * (size_t)n * 3);
    }
    for (int i = 0; i < n; i++) {
        float *o = f->light + (size_t)i * 3;
        if (m->ambient) {
            o[0] += (float)q->ambient.x;
            o[1] += (float)q->ambient.y;
            o[2] += (float)q->ambient.z;
        }
        if (f->localmin && !k->lightignore)
            for (int c = 0; c < 3; c++) o[c] = fmaxf(o[c], f->localmin[(size_t)i * 3 + c]);
        if (floor) {
            double s = k->minlight * (k->minlight_dirt && f->dirtmap ? f->dirtmap[i] : 1.0);
            if (k->mottle) s += mottle(f->samples[i]);
            o[0] = fmaxf(o[0], (float)(s * k->minlight_color.x));
            o[1] = fmaxf(o[1], (float)(s * k->minlight_color.y));
            o[2] = fmaxf(o[2], (float)(s * k->minlight_color.z));
        }
    }
    /* ericw-tools' order: its autominlight after the floors, before the
     * negative lights (it may add styles: f->light moves) */
    qrad_autominlight_face(q, f);
    if (f->negative && !k->lightignore)
        for (int i = 0; i < n; i++) {
            float *o = f->light + (size_t)i * 3;
            for (int c = 0; c < 3; c++) o[c] = fmaxf(0.0f, o[c] - f->negative[(size_t)i * 3 + c]);
        }
    if (m->finish) finish_face(q, f, m->gamma);
}

void qrad_minlight(qrad_t *q)
{
    qrad_minlight_t m;
    if (!qrad_minlight_begin(q, &m)) return;
#pragma omp parallel for schedule(dynamic, 16) num_threads(q->opts->threads)
    for (int fi = 0; fi < q->bsp->numfaces; fi++) qrad_minlight_face(q, &m, fi);
}
