/* qview's render-ready form of a .bsp: every drawable face with its own
 * vertices, texture and lightmap coordinates, lightmaps with every style at
 * its default level, textures (from the texture database, or a flat colour
 * per name), decompressed PVS rows, and the per-view culling (PVS marking
 * with visframe counters, frustum, front-to-back BSP walk) that both
 * renderers share so they draw exactly the same faces. */
#ifndef QVIEW_WORLD_H
#define QVIEW_WORLD_H

#include <stdbool.h>
#include <stdint.h>

#include "../common/error.h"
#include "../common/log.h"
#include "../formats/bspfile.h"
#include "../formats/entities.h"
#include "../formats/textures.h"

/* Distance of the near clip plane from the eye, in map units. Small enough
 * that a camera a few units from a wall does not cut through it. Both
 * renderers clip at exactly this distance. */
#define VIEW_NEAR 1.0
#define VIEW_FAR 16384.0

typedef struct wvert_t {
    float xyz[3];
    float st[2]; /* texture coordinates in texels */
    float lm[2]; /* lightmap coordinates in luxels, 0..size-1 */
} wvert_t;

typedef struct wface_t {
    int firstvert, numverts;
    int tex;        /* index into world_t.textures */
    int texinfo;
    int flags;      /* SURF_* of the texinfo */
    float normal[3], dist; /* the face's front-facing plane */
    float svec[4], tvec[4]; /* texture vectors, with a brush model's origin folded in */
    int texturemins[2];
    int lm_w, lm_h; /* luxels; 0 when the face has no lightmap */
    int lm_ofs;     /* byte offset into world_t.lightmaps (rgb), -1 when unlit */
    /* A decoupled lightmap (bspx_view.c): luxel (u, v) = lm_from_st[i] .
     * (s, t, 1) over the face instead of (s - texturemins) / 16. */
    bool lm_decoupled;
    float lm_from_st[2][3];
    int model;      /* 0 for the world */
    int cluster;    /* a cluster of a leaf that lists the face, -1 when none */
    float mins[3], maxs[3];
    uint8_t flat[3];    /* flat colour of the texture name */
    uint8_t clustercol[3];
    /* lightmap atlas placement (GL) */
    int lm_page, lm_x, lm_y;
} wface_t;

typedef struct wtexture_t {
    char name[33];
    int width, height; /* 1x1 for a flat colour */
    uint8_t *rgba;     /* owned copy */
    bool found;
} wtexture_t;

typedef struct world_t {
    bsp_t bsp;
    char path[1024];
    wvert_t *verts;
    int numverts;
    wface_t *faces; /* parallel to bsp.faces */
    int numfaces;
    wtexture_t *textures;
    int numtextures;
    uint8_t *lightmaps;
    int lightmaps_size;
    int *node_parent; /* -1 for the root */
    int *leaf_parent;
    int numclusters;
    int rowbytes;
    uint8_t *pvs; /* numclusters * rowbytes, decompressed */
    entity_list_t ents;
    int numlitfaces, numtextured;
    /* Faces that want light but have none to read: drawn fullbright. */
    int numunlitfaces;
    /* No lighting lump at all (a bsp before qrad): every face is drawn
     * fullbright and the viewer says so. */
    bool unlit;
} world_t;

/* Loads a bsp; textures come from db when it is not NULL (images found
 * there), otherwise every texture is a flat colour. Warnings (bad lightmap
 * offsets, unparsable entities) go to log. */
bool world_load(world_t *w, const char *path, texdb_t *db, log_t *log, q2err_t *err);
/* The same from an already read bsp (the world takes ownership of it). */
bool world_from_bsp(world_t *w, bsp_t *bsp, const char *name, texdb_t *db, log_t *log, q2err_t *err);
void world_free(world_t *w);

/* Leaf index containing point p (walks the world model's nodes). */
int world_point_leaf(const world_t *w, const double p[3]);
/* Cluster of the leaf containing p, -1 in solid or without vis. */
int world_point_cluster(const world_t *w, const double p[3]);
/* True when cluster b is in cluster a's PVS (always true without vis). */
bool world_cluster_visible(const world_t *w, int a, int b);

/* A viewpoint. Angles in degrees, Quake's convention: yaw about +Z from +X,
 * positive pitch looks down. The horizontal field of view is fov_x. */
typedef struct camera_t {
    double origin[3];
    double yaw, pitch;
    double fov_x;
} camera_t;

/* Camera basis and projection for a width x height image. */
typedef struct view_t {
    double org[3], fwd[3], right[3], up[3];
    double scale;   /* pixels per unit of x/z: (width/2)/tan(fov_x/2) */
    double cx, cy;  /* centre of the image in pixels */
    int width, height;
    double frustum[4][4]; /* inward normals and dists: left, right, top, bottom */
} view_t;

void view_setup(view_t *v, const camera_t *cam, int width, int height);

/* Render options shared by both renderers. */
enum { RMODE_LIT = 0, RMODE_LIGHTMAP, RMODE_FLAT, RMODE_CLUSTERS, RMODE_COUNT };
extern const char *const rmode_names[RMODE_COUNT];

typedef struct render_opts_t {
    int mode;              /* RMODE_* */
    bool wireframe;        /* overlay face edges */
    uint8_t background[3]; /* colour where nothing is drawn */
    int pvs_cluster;       /* -2: from the camera; otherwise a frozen cluster (PVS lock) */
    bool no_pvs;           /* draw every leaf in the frustum */
    int skip_face;         /* a face never drawn (-1: none), to prove the crack check can fail */
    bool draw_models;      /* brush models at their origins */
} render_opts_t;

void render_opts_default(render_opts_t *o);

/* Sky colour: a constant so that both renderers agree and a crack check can
 * tell sky from the background key. */
#define SKY_R 110
#define SKY_G 150
#define SKY_B 215

/* What a view drew, for the on-screen figures and the checks. */
typedef struct render_stats_t {
    int faces_drawn;
    int clusters_visible;
    int view_cluster;
    double ms;
} render_stats_t;

/* Per-renderer culling state: visframe counters over leaves and nodes,
 * rebuilt only when the view cluster changes. */
typedef struct cull_t {
    int visframe, framecount;
    int last_cluster; /* cluster the marks were made for (-3: none yet) */
    bool last_no_pvs;
    int *leaf_visframe, *node_visframe, *face_frame;
    int *opaque, numopaque;      /* front to back */
    int *trans, numtrans;        /* back to front */
    int clusters_visible;
    int view_cluster;
} cull_t;

void cull_init(cull_t *c, const world_t *w);
void cull_free(cull_t *c);
/* Fills c->opaque (front to back, sky included) and c->trans (back to
 * front) with the faces to draw for this view. */
void cull_world(const world_t *w, cull_t *c, const view_t *v, const render_opts_t *o);

/* 0..255 rgb of a cluster number, for the cluster-colour mode. */
void cluster_color(int cluster, uint8_t rgb[3]);

#endif
