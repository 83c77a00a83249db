#include "overlays.h"

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
    memset(ov, 0, sizeof *ov);
}
