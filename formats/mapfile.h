/* .map source files: Quake 2 standard face lines, Valve 220 face lines,
 * Quake 1 face lines (no trailing contents/flags/value), `//` comments
 * (TrenchBroom's header included), entities with key/value pairs and
 * brushes. The parser only reads; turning sides into planes, texinfo and
 * contents is qbsp's job, with map_texture_vectors below as the one place
 * texture projection is computed.
 *
 * Face line forms:
 *   ( x y z ) ( x y z ) ( x y z ) TEX xoff yoff rot xscale yscale [contents flags value]
 *   ( x y z ) ( x y z ) ( x y z ) TEX [ ux uy uz uoff ] [ vx vy vz voff ] rot xscale yscale [contents flags value]
 * Numbers may be integers or floats. Brush primitives (brushDef) are
 * rejected with a clear error. */
#ifndef Q2M_MAPFILE_H
#define Q2M_MAPFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "../common/error.h"
#include "../common/mathlib.h"
#include "entities.h"

typedef enum map_projection_t {
    MAP_PROJ_STANDARD = 0, /* Quake axis-aligned projection: xoff yoff rot xscale yscale */
    MAP_PROJ_VALVE220 = 1, /* explicit U/V axes with offsets */
} map_projection_t;

typedef struct map_side_t {
    vec3_t points[3];
    char texture[64]; /* as written; qbsp checks it fits Quake 2's 32 bytes */
    map_projection_t proj;
    double shift[2];  /* xoff yoff (standard) or uoff voff (Valve) */
    double rotate;
    double scale[2];  /* 0 means 1, as id's tools read it */
    vec3_t axis[2];   /* Valve 220 only: U and V axes */
    bool has_surface; /* the trailing contents/flags/value were present */
    int contents, flags, value;
    int line, col;
} map_side_t;

typedef struct map_brush_t {
    map_side_t *sides;
    int numsides, cap;
    int line; /* opening brace */
    int entity_brush_index; /* 0-based index within its entity, for messages */
    const char *source; /* the file it came from when not the map's own (qbsp -add), else NULL; not owned */
} map_brush_t;

typedef struct map_entity_t {
    entity_t ent; /* key/value pairs and line */
    map_brush_t *brushes;
    int numbrushes, cap;
    const char *source; /* as map_brush_t.source */
} map_entity_t;

typedef struct map_t {
    char *path;
    map_entity_t *entities;
    int numentities, cap;
    bool valve220; /* any Valve 220 face line was read */
} map_t;

/* Parses a whole file. Errors name file:line:col and what was expected. */
bool map_parse(const char *text, size_t size, const char *name, map_t *out, q2err_t *err);
bool map_read_file(const char *path, map_t *out, q2err_t *err);
void map_free(map_t *map);
/* Frees every entity's brushes and keeps the entities' keys: for a caller
 * that has made its own brushes and needs only the keys from then on. */
void map_free_brushes(map_t *map);

/* Quake 2 texinfo vectors for a side on a plane with the given normal:
 * vecs[0] = (s axis / xscale, s offset), vecs[1] = (t axis / yscale, t
 * offset), in texels, exactly as qbsp3's TexinfoForBrushTexture (standard)
 * and as Valve 220 editors define it. `origin` is the brush entity's origin
 * (texture lock for brush models); pass (0,0,0) for the world. */
void map_texture_vectors(const map_side_t *side, vec3_t plane_normal, vec3_t origin, double vecs[2][4]);

/* ---- writing (qbsp -convert, as ericw-tools' qbsp -convert) ---- */

typedef enum map_format_t {
    MAP_FORMAT_NONE = 0,
    MAP_FORMAT_QUAKE2,   /* standard face lines: xoff yoff rot xscale yscale */
    MAP_FORMAT_VALVE220, /* [ U off ] [ V off ] rot xscale yscale; worldspawn "mapversion" "220" */
} map_format_t;

/* "quake2", or "valve"/"valve220"; false for anything else. */
bool map_convert_format_parse(const char *name, map_format_t *out);
/* "quake2" or "valve": the suffix of the converted file's name. */
const char *map_format_name(map_format_t fmt);

/* Rewrites every side in the format's projection. Standard to Valve 220 is
 * exact (the same texture vectors on the side's plane). Valve 220 to
 * standard is exact when the U and V axes, seen along the plane's
 * projection axis, are perpendicular; otherwise the shear is lost (as in
 * ericw-tools). Texture vectors are taken as for the world (origin 0 0 0):
 * qbsp3's texture lock on a brush model with an origin differs between the
 * two projections for rotated or scaled textures. Returns how many sides
 * could not be matched exactly. */
int map_convert(map_t *map, map_format_t fmt);

/* The map as text in the format of its sides (one entity after another,
 * keys in order, then brushes), numbers in the shortest form that reads
 * back to the same double. */
bool map_write(FILE *f, const map_t *map, map_format_t fmt);

#endif
