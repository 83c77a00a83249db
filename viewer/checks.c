#include "checks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "soft_raster.h"

static inline bool is_key_pixel(const uint8_t *c) { return c[0] == KEY_R && c[1] == KEY_G && c[2] == KEY_B; }

long count_key_pixels(const uint8_t *rgba, int w, int h)
{
    long n = 0;
    for (size_t i = 0; i < (size_t)w * h; i++)
        if (is_key_pixel(rgba + i * 4)) n++;
    return n;
}

double image_mae(const uint8_t *a, const uint8_t *b, int w, int h)
{
    double sum = 0;
    size_t n = (size_t)w * h;
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < 3; c++) sum += abs((int)a[i * 4 + c] - (int)b[i * 4 + c]);
    return n ? sum / (3.0 * n) : 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

void image_stats(const uint8_t *rgba, int w, int h, const uint8_t bg[3], double *covered, int *colors)
{
    size_t n = (size_t)w * h, cov = 0;
    uint32_t *c = q2_malloc(sizeof(uint32_t) * (n ? n : 1));
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = rgba + i * 4;
        if (p[0] != bg[0] || p[1] != bg[1] || p[2] != bg[2]) cov++;
        c[i] = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
    }
    qsort(c, n, sizeof *c, cmp_u32);
    int distinct = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || c[i] != c[i - 1]) distinct++;
    free(c);
    if (covered) *covered = n ? (double)cov / n : 0;
    if (colors) *colors = distinct;
}

void render_view(const refexport_t *ref, void *state, const camera_t *cam, const render_opts_t *o,
                 render_stats_t *stats, uint8_t *rgba)
{
    ref->begin_frame(state, o);
    ref->draw_world(state, cam, stats);
    ref->end_frame(state);
    ref->read_pixels(state, rgba);
}

bool check_cracks(const world_t *w, const refexport_t *ref, const camera_t *cams, int n, int width, int height,
                  int threads, int skip_face, long *counts, q2err_t *err)
{
    int npx;
    return check_cracks_locate(w, ref, cams, n, width, height, threads, skip_face, counts, NULL, 0, &npx, err);
}

bool check_cracks_locate(const world_t *w, const refexport_t *ref, const camera_t *cams, int n, int width,
                         int height, int threads, int skip_face, long *counts, key_pixel_t *px, int maxpx, int *npx,
                         q2err_t *err)
{
    *npx = 0;
    void *st = NULL;
    if (!ref->init(&st, w, width, height, threads, err)) return false;
    render_opts_t o;
    render_opts_default(&o);
    o.background[0] = KEY_R;
    o.background[1] = KEY_G;
    o.background[2] = KEY_B;
    o.skip_face = skip_face;
    uint8_t *img = q2_malloc((size_t)width * height * 4);
    for (int i = 0; i < n; i++) {
        render_view(ref, st, &cams[i], &o, NULL, img);
        counts[i] = count_key_pixels(img, width, height);
        for (int y = 0; y < height && counts[i] && *npx < maxpx; y++)
            for (int x = 0; x < width && *npx < maxpx; x++) {
                if (is_key_pixel(img + ((size_t)y * width + x) * 4)) px[(*npx)++] = (key_pixel_t){i, x, y};
            }
    }
    free(img);
    ref->shutdown(st);
    return true;
}

bool compare_renderers(const world_t *w, const camera_t *cams, int n, int width, int height, int threads,
                       double *mae, q2err_t *err)
{
    void *ss = NULL, *gs = NULL;
    if (!ref_soft.init(&ss, w, width, height, threads, err)) return false;
    if (!ref_gl.init(&gs, w, width, height, threads, err)) {
        ref_soft.shutdown(ss);
        return false;
    }
    render_opts_t o;
    render_opts_default(&o);
    uint8_t *a = q2_malloc((size_t)width * height * 4), *b = q2_malloc((size_t)width * height * 4);
    for (int i = 0; i < n; i++) {
        render_view(&ref_soft, ss, &cams[i], &o, NULL, a);
        render_view(&ref_gl, gs, &cams[i], &o, NULL, b);
        mae[i] = image_mae(a, b, width, height);
    }
    free(a);
    free(b);
    ref_soft.shutdown(ss);
    ref_gl.shutdown(gs);
    return true;
}

static bool inside_poly(double (*p)[2], int n, double x, double y)
{
    /* Convex polygon of either winding: the point is on the same side of
     * every edge. */
    int pos = 0, neg = 0;
    for (int k = 0; k < n; k++) {
        const double *a = p[k], *b = p[(k + 1) % n];
        double c = (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]);
        if (c > 0) pos++;
        if (c < 0) neg++;
    }
    return !(pos && neg);
}

int face_at_pixel(const world_t *w, const camera_t *cam, int width, int height, int px, int py)
{
    view_t v;
    view_setup(&v, cam, width, height);
    cull_t c;
    cull_init(&c, w);
    render_opts_t o;
    render_opts_default(&o);
    cull_world(w, &c, &v, &o);
    int found = -1;
    for (int i = 0; i < c.numopaque && found < 0; i++) {
        double pts[SOFT_MAX_POINTS][2];
        int n = soft_project_face(w, &v, c.opaque[i], pts, SOFT_MAX_POINTS);
        if (n >= 3 && inside_poly(pts, n, px + 0.5, py + 0.5)) found = c.opaque[i];
    }
    cull_free(&c);
    return found;
}
