/* facegeom.c: per-face geometry: plane, winding, lightmap extents and
 * the world position, cluster and phong normal of every luxel sample.
 * Takes: the bsp, the models (offsets, phong) and the tracer's tree (for
 * samples in solid). Gives: q->faces' geometry, and the luxel pattern and
 * lightmap block sizes the later stages share. */
#ifndef Q2M_QRAD_FACEGEOM_H
#define Q2M_QRAD_FACEGEOM_H

#include "qrad.h"

bool qrad_faces_setup(qrad_t *q, q2err_t *err);
/* Calls fn for every face on the rank's threads, in chunks of
 * QRAD_LOCAL_CHUNK faces, each chunk an item of a traced local loop
 * (common/dist.h); fn may write only what belongs to face fi. */
void qrad_faces_parallel(const qrad_t *q, void (*fn)(const qrad_t *q, int fi, void *ctx), void *ctx);
void qrad_faces_free(qrad_t *q);
/* World point of texture coordinates (s, t) on the face's plane. */
vec3_t rface_tex_to_world(const rface_t *f, double s, double t);
/* Texture coordinates of a world point. */
void rface_world_to_tex(const qrad_t *q, int face, vec3_t p, double *s, double *t);
/* The closest point of the face's polygon to p (p projected on its plane). */
vec3_t rface_clamp(const rface_t *f, vec3_t p);

/* Luxel sample points, clusters and phong normals of a face whose w, h,
 * ext.texturemins and tex_to_world are set (one luxel per LIGHTMAP_SCALE). */
void qrad_face_samples(const qrad_t *q, rface_t *f);
/* -preset qrad3's sample points instead (its CalcPoints; facegeom.c). */
void qrad3_face_samples(const qrad_t *q, rface_t *f);
/* A face's samples, clusters and phong normals as bytes (for ranks). */
size_t qrad_samples_size(const rface_t *f);
void qrad_samples_pack(const rface_t *f, uint8_t *out);
void qrad_samples_unpack(rface_t *f, const uint8_t *in);
/* Frees a face's per-luxel buffers (samples, clusters, normals, light,
 * dirt and floors); its points and vertex normals stay. */
void rface_free_luxels(rface_t *f);
/* Luxels are lit in two passes: first those with both coordinates even,
 * then the rest, each between 2 or 4 luxels of the first pass (direct.c's
 * dome light, dirt.c). Stores the traced neighbours of luxel (i, j) in nb
 * and returns their count. */
int qrad_traced_neighbours(const rface_t *f, int i, int j, int nb[4]);
/* A face written with no lightmap at all (styles 255, offset -1): a sky
 * face under opts->sky_no_lightmap (facegeom.c; write.c, decoupled.c). */
bool qrad_face_no_lightmap(const qrad_t *q, int fi);
/* The bytes a face's lightmap block takes in the lighting lump: samples
 * times styles, RGB, rounded up to 4 samples under opts->lightmap_pad4
 * (facegeom.c; write.c, decoupled.c). */
size_t qrad_lightmap_block(const qrad_opts_t *o, size_t samples, int numstyles);

#endif
