#include "cameras.h"

#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"

/* Smallest extent of a leaf's box for its centre to be used as a camera:
 * keeps the near plane well away from the walls around it. */
#define CAMERA_MIN_LEAF_EXTENT 24

/* Half-size of the cube around a generated camera that must be empty: a
 * leaf's box centre can lie on a sloped wall that cuts the box (the leaf is
 * only the part in front of it), and a camera there looks into the wall. */
#define CAMERA_CLEARANCE 8.0

static bool empty_at(const world_t *w, const double p[3])
{
    const dleaf_t *l = &w->bsp.leafs[world_point_leaf(w, p)];
    return l->contents == 0 && l->cluster >= 0;
}

static bool clear_around(const world_t *w, const double p[3])
{
    for (int corner = 0; corner < 8; corner++) {
        double q[3];
        for (int k = 0; k < 3; k++) q[k] = p[k] + ((corner >> k) & 1 ? CAMERA_CLEARANCE : -CAMERA_CLEARANCE);
        if (!empty_at(w, q)) return false;
    }
    return true;
}

static int player_starts(const world_t *w, int n, camera_t *out)
{
    static const char *const classes[] = {"info_player_start", "info_player_deathmatch", "info_player_coop"};
    int m = 0;
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < w->ents.count && m < n; i++) {
            const entity_t *e = &w->ents.ents[i];
            if (strcmp(entity_classname(e), classes[c])) continue;
            vec3_t o;
            if (!entity_get_vec3(e, "origin", &o)) continue;
            camera_t cam = {{o.x, o.y, o.z + PLAYER_VIEW_HEIGHT}, entity_get_float(e, "angle", 0), 0, 90};
            vec3_t ang;
            if (entity_get_vec3(e, "angles", &ang)) {
                cam.pitch = ang.x;
                cam.yaw = ang.y;
            }
            if (!empty_at(w, cam.origin)) continue;
            out[m++] = cam;
        }
    return m;
}

int cameras_generate(const world_t *w, int n, camera_t *out)
{
    if (n <= 0) return 0;
    int m = player_starts(w, n, out);
    if (m >= n) return m;
    /* One candidate per cluster: its largest empty leaf whose centre is in
     * empty space. */
    const bsp_t *b = &w->bsp;
    int maxc = 0;
    for (int l = 0; l < b->numleafs; l++)
        if (b->leafs[l].cluster + 1 > maxc) maxc = b->leafs[l].cluster + 1;
    int *best = q2_malloc(sizeof(int) * (maxc + 1));
    double *vol = q2_malloc(sizeof(double) * (maxc + 1));
    for (int c = 0; c < maxc; c++) {
        best[c] = -1;
        vol[c] = 0;
    }
    for (int l = 0; l < b->numleafs; l++) {
        const dleaf_t *lf = &b->leafs[l];
        if (lf->cluster < 0 || lf->contents != 0) continue;
        double ext[3], v = 1;
        bool ok = true;
        for (int k = 0; k < 3; k++) {
            ext[k] = lf->maxs[k] - lf->mins[k];
            if (ext[k] < CAMERA_MIN_LEAF_EXTENT) ok = false;
            v *= ext[k];
        }
        if (!ok) continue;
        double p[3];
        for (int k = 0; k < 3; k++) p[k] = (lf->mins[k] + lf->maxs[k]) * 0.5;
        if (world_point_leaf(w, p) != l || !clear_around(w, p)) continue;
        if (v > vol[lf->cluster]) {
            vol[lf->cluster] = v;
            best[lf->cluster] = l;
        }
    }
    int ncand = 0;
    for (int c = 0; c < maxc; c++)
        if (best[c] >= 0) best[ncand++] = best[c];
    int want = n - m;
    if (want > ncand) want = ncand;
    for (int i = 0; i < want; i++) {
        int l = best[(long)i * ncand / want];
        const dleaf_t *lf = &b->leafs[l];
        camera_t cam;
        for (int k = 0; k < 3; k++) cam.origin[k] = (lf->mins[k] + lf->maxs[k]) * 0.5;
        /* Look along the leaf's longer horizontal side, turning a quarter
         * further for every other view so both directions get seen. */
        double ex = lf->maxs[0] - lf->mins[0], ey = lf->maxs[1] - lf->mins[1];
        cam.yaw = (ex >= ey ? 0.0 : 90.0) + (i & 1 ? 180.0 : 0.0);
        cam.pitch = (i % 3 == 2) ? 15.0 : 0.0;
        cam.fov_x = 90;
        out[m++] = cam;
    }
    free(best);
    free(vol);
    return m;
}

bool camera_start(const world_t *w, camera_t *out)
{
    if (player_starts(w, 1, out) == 1) return true;
    return cameras_generate(w, 1, out) == 1;
}
