/* Colour helpers that several stages share (surface lights, bounces,
 * lightmap bytes, decoupled lightmaps, the light grid): they call nothing
 * of qrad's, so every stage can stand on them. */
#include <math.h>
#include <string.h>

#include "color.h"
#include "qrad.h"

void qrad_final_color(const qrad_opts_t *o, const float in[3], bool style0, uint8_t out[3])
{
    double v[3], mx = 0;
    if (o->qrad3_light) {
        /* qrad3's FinalLightFace: each channel at least 1, the brightest
         * brought down to -maxlight keeping the hue, and the bytes cut
         * (a float converted to a byte), not rounded. */
        double lim = o->maxlight > 255 ? 255 : o->maxlight;
        for (int c = 0; c < 3; c++) {
            v[c] = in[c] * o->scale + (style0 ? o->ambient : 0);
            if (!(v[c] >= 1)) v[c] = 1;
            if (v[c] > mx) mx = v[c];
        }
        double newmax = mx > lim ? lim : mx;
        for (int c = 0; c < 3; c++) {
            double r = floor(v[c] * newmax / mx);
            out[c] = (uint8_t)(r > 255 ? 255 : r < 0 ? 0 : r);
        }
        return;
    }
    for (int c = 0; c < 3; c++) {
        v[c] = in[c] * o->scale + (style0 ? o->ambient : 0);
        if (v[c] < 0) v[c] = 0;
        if (v[c] > mx) mx = v[c];
    }
    /* Keep the hue when clamping, as qrad3 does. */
    double lim = o->maxlight > 255 ? 255 : o->maxlight;
    if (mx > lim && mx > 0)
        for (int c = 0; c < 3; c++) v[c] *= lim / mx;
    for (int c = 0; c < 3; c++) {
        double r = floor(v[c] + 0.5);
        out[c] = (uint8_t)(r > 255 ? 255 : r < 0 ? 0 : r);
    }
}

void qrad_dirtdebug_bytes(const float *dirtmap, int n, uint8_t *out)
{
    /* ericw-tools' -dirtdebug (light/ltface.cc, LightFace_DirtDebug):
     * style 0 holds 255 times the worldspawn dirt factor and nothing else,
     * so no -scale, -maxlight, -ambient or minimum light: a debug view of
     * the occlusion alone. */
    for (int k = 0; k < n; k++) {
        double r = dirtmap ? floor(255.0 * dirtmap[k] + 0.5) : 255;
        uint8_t b = (uint8_t)(r > 255 ? 255 : r < 0 ? 0 : r);
        out[k * 3] = out[k * 3 + 1] = out[k * 3 + 2] = b;
    }
}

void qrad_fill_ambient(const qrad_opts_t *o, uint8_t *data, size_t bytes)
{
    float zero[3] = {0, 0, 0};
    uint8_t c[3];
    /* the faces without a lightmap of their own (sky, warps) keep the
     * ambient level, with qrad3's bytes too (it writes none for them) */
    qrad_opts_t plain = *o;
    plain.qrad3_light = false;
    qrad_final_color(&plain, zero, true, c);
    for (size_t k = 0; k < bytes / 3; k++) memcpy(data + k * 3, c, 3);
}

vec3_t qrad_saturation_boost(vec3_t c, double boost)
{
    vec3_t s = vec3(2 * c.x * c.x, 2 * c.y * c.y, 2 * c.z * c.z);
    double m = fmax(s.x, fmax(s.y, s.z));
    if (m > 1) s = vec_scale(s, 1.0 / m);
    return vec_lerp(c, s, boost);
}
