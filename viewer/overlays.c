#include "overlays.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "../formats/pointfile.h"
#include "../formats/prt.h"

static overlay_line_t line(vec3_t a, vec3_t b, uint8_t r, uint8_t g, uint8_t bl)
{
    overlay_line_t l = {{(float)a.x, (float)a.y, (float)a.z}, {(float)b.x, (float)b.y, (float)b.z}, {r, g, bl}};
    return l;
}

bool overlays_load_pointfile(overlays_t *ov, const char *path, q2err_t *err)
{
    vec3_t *pts = NULL;
    int n = 0;
    if (!pointfile_read(path, &pts, &n, err)) return false;
    for (int i = 0; i + 1 < n; i++) ARRAY_PUSH(ov->leak, ov->numleak, ov->capleak, line(pts[i], pts[i + 1], 255, 40, 40));
    free(pts);
    return true;
}

bool overlays_load_prt(overlays_t *ov, const char *path, q2err_t *err)
{
    prt_t prt;
    if (!prt_read_file(path, &prt, err)) return false;
    for (int i = 0; i < prt.numportals; i++) {
        const winding_t *w = prt.portals[i].winding;
        if (!w) continue;
        for (int k = 0; k < w->numpoints; k++)
            ARRAY_PUSH(ov->portals, ov->numportals, ov->capportals,
                       line(w->p[k], w->p[(k + 1) % w->numpoints], 255, 220, 40));
    }
    prt_free(&prt);
    return true;
}

void overlays_free(overlays_t *ov)
{
    free(ov->leak);
    free(ov->portals);
    free(ov->bspx);
    memset(ov, 0, sizeof *ov);
}

bool overlays_leak_camera(const overlays_t *ov, camera_t *out)
{
    if (ov->numleak == 0) return false;
    const float *a = ov->leak[0].a;
    /* Aim at the path a little way along it (or its end), so the first
     * bends are in view and the line is not seen end-on. */
    const float *t = ov->leak[ov->numleak - 1].b;
    double along = 0;
    for (int i = 0; i < ov->numleak; i++) {
        const overlay_line_t *l = &ov->leak[i];
        double d[3] = {l->b[0] - l->a[0], l->b[1] - l->a[1], l->b[2] - l->a[2]};
        along += sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (along >= LEAK_CAMERA_AIM) {
            t = l->b;
            break;
        }
    }
    double d[3] = {t[0] - a[0], t[1] - a[1], t[2] - a[2]};
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (len < 1e-6) d[0] = 1, len = 1;
    for (int k = 0; k < 3; k++) d[k] /= len;
    memset(out, 0, sizeof *out);
    for (int k = 0; k < 3; k++) out->origin[k] = a[k] - d[k] * LEAK_CAMERA_BACK;
    out->origin[2] += LEAK_CAMERA_UP;
    double v[3] = {t[0] - out->origin[0], t[1] - out->origin[1], t[2] - out->origin[2]};
    out->yaw = atan2(v[1], v[0]) * 180.0 / M_PI;
    out->pitch = -atan2(v[2], sqrt(v[0] * v[0] + v[1] * v[1])) * 180.0 / M_PI;
    out->fov_x = 90;
    return true;
}
