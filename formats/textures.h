/* Textures: .wal, PNG, TGA and PCX decoding, .wal_json metadata, the
 * built-in table of Quake 2 tool textures, and a cached lookup by texture
 * name that all tools share.
 *
 * Lookup order for a texture name N (as written in the map, e.g.
 * "e1u1/floor1_1"): metadata comes from textures/N.wal's header, else
 * textures/N.wal_json, else the built-in tool-texture table, else defaults
 * (no flags, no contents, 64x64); the image comes from textures/N.wal (with
 * the palette from pics/colormap.pcx, or the built-in Quake 2 palette),
 * else textures/N.png, else textures/N.tga. Missing textures are warned
 * about once per name and never stop a tool. */
#ifndef Q2M_TEXTURES_H
#define Q2M_TEXTURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "../common/log.h"
#include "vfs.h"

typedef struct image_t {
    int width, height;
    uint8_t *rgba; /* width*height*4 bytes, rows top to bottom */
    /* From palette indices (.wal): index 255, the Quake 2 re-release's
     * transparent index for SURF_ALPHATEST textures, has alpha 0 and every
     * other texel 255. The average colour still counts those texels, as it
     * did before they had an alpha (a .wal's colour is all its texels). */
    bool indexed;
} image_t;

typedef struct texmeta_t {
    int width, height;
    int flags, contents, value;
    char animname[33];
    bool found;       /* a .wal, .wal_json or image was found */
    bool from_table;  /* metadata came from the built-in tool-texture table */
} texmeta_t;

typedef struct palette_t {
    uint8_t rgb[256 * 3];
} palette_t;

void image_free(image_t *img);

/* Decoders. `name` labels errors. Each validates sizes against the data
 * (a header claiming more pixels than the file holds is an error). */
bool wal_read(const uint8_t *data, size_t size, const char *name, const palette_t *pal, texmeta_t *meta,
              image_t *img /* may be NULL */, q2err_t *err);
bool png_read(const uint8_t *data, size_t size, const char *name, image_t *img, q2err_t *err);
bool png_write_file(const char *path, const image_t *img, q2err_t *err); /* atomic */
bool tga_read(const uint8_t *data, size_t size, const char *name, image_t *img, q2err_t *err);
/* 8-bit PCX; returns the image expanded to RGBA and the palette. */
bool pcx_read(const uint8_t *data, size_t size, const char *name, image_t *img, palette_t *pal, q2err_t *err);
/* ericw-tools' .wal_json: {"width":..,"height":..,"flags":..,"contents":..,"value":..,"animation":".."};
 * "flags" and "contents" are an integer or a list of names (["NODRAW", "HINT"]). */
bool wal_json_read(const char *text, size_t size, const char *name, texmeta_t *meta, q2err_t *err);

/* Quake 2's palette, used when pics/colormap.pcx is not found. */
const palette_t *palette_quake2(void);

/* Built-in metadata for tool textures when the game data is absent: Quake 2
 * names (clip, trigger, hint, skip, sky, origin, nodraw, ...) and Quake 1
 * names (*water, *slime, *lava, sky*, clip, trigger). Returns false for other
 * names. Matching is on the last path component, case-insensitive. */
bool tooltex_lookup(const char *name, int *contents, int *flags, int *value);

typedef struct texdb_t texdb_t;

/* vfs may be NULL (no game data): then only the built-in table applies. */
texdb_t *texdb_create(vfs_t *vfs, log_t *log);
void texdb_free(texdb_t *db);
/* Never NULL. Thread-safe. */
const texmeta_t *texdb_meta(texdb_t *db, const char *name);
/* NULL when no image was found. Thread-safe; the image lives as long as db. */
const image_t *texdb_image(texdb_t *db, const char *name);
/* Average colour of the image in 0..1 (for surface lights and radiosity);
 * without an image the .wal_json "color", else mid grey (0.5). */
void texdb_average_color(texdb_t *db, const char *name, double rgb[3]);
/* Whether the texture has a colour of its own: an image, or a .wal_json
 * "color". Thread-safe. */
bool texdb_has_color(texdb_t *db, const char *name);
/* Every texture looked up so far (metadata, image, average colour), as
 * bytes, and those bytes added to another table: rank 0 of a distributed
 * qrad sends its textures to hosts that have no game data. */
bool texdb_pack(texdb_t *db, uint8_t **data, size_t *size);
bool texdb_unpack(texdb_t *db, const uint8_t *data, size_t size, q2err_t *err);
/* A stable, pleasant flat colour derived from the name (viewer fallback). */
void texture_name_color(const char *name, uint8_t rgb[3]);

#endif
