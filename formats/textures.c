/* The texture database: resolves a texture name once, caches the result
 * and hands out stable pointers. One OpenMP lock per database serialises
 * lookups; each name is resolved only once, so the lock is held for a
 * file read and decode a few hundred times per compile, which is cheap
 * next to the compile itself. */
#include <ctype.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../common/fileio.h"
#include "../common/mem.h"
#include "tex_internal.h"

/* A texture larger than this is not something a map compiler should load. */
#define TEX_MAX_FILE_SIZE ((size_t)64 << 20)
#define TEX_DEFAULT_SIZE 64

typedef struct texentry_t {
    char *key; /* lower case */
    texmeta_t meta;
    image_t img;
    bool has_img;
    bool has_color; /* .wal_json "color" */
    uint8_t color[3];
    bool avg_done;
    double avg[3];
} texentry_t;

struct texdb_t {
    vfs_t *vfs;
    log_t *log;
    omp_lock_t lock;
    /* Open-addressing hash table of entries (pointers stay valid). */
    texentry_t **slots;
    size_t nslots, count;
    bool palette_loaded;
    palette_t palette;
};

texdb_t *texdb_create(vfs_t *vfs, log_t *log)
{
    texdb_t *db = q2_calloc(1, sizeof *db);
    db->vfs = vfs;
    db->log = log;
    omp_init_lock(&db->lock);
    db->nslots = 256;
    db->slots = q2_calloc(db->nslots, sizeof *db->slots);
    return db;
}

void texdb_free(texdb_t *db)
{
    if (!db) return;
    for (size_t i = 0; i < db->nslots; i++) {
        texentry_t *e = db->slots[i];
        if (!e) continue;
        image_free(&e->img);
        free(e->key);
        free(e);
    }
    free(db->slots);
    omp_destroy_lock(&db->lock);
    free(db);
}

/* FNV-1a: stable across runs and platforms (texture_name_color relies on
 * that). */
static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) {
        h ^= (uint8_t)tolower((unsigned char)*s);
        h *= 16777619u;
    }
    return h;
}

static texentry_t **find_slot(texdb_t *db, const char *key)
{
    size_t mask = db->nslots - 1;
    for (size_t i = name_hash(key) & mask;; i = (i + 1) & mask) {
        if (!db->slots[i] || strcmp(db->slots[i]->key, key) == 0) return &db->slots[i];
    }
}

static void insert(texdb_t *db, texentry_t *e)
{
    if ((db->count + 1) * 2 > db->nslots) {
        texentry_t **old = db->slots;
        size_t oldn = db->nslots;
        db->nslots *= 2;
        db->slots = q2_calloc(db->nslots, sizeof *db->slots);
        for (size_t i = 0; i < oldn; i++)
            if (old[i]) *find_slot(db, old[i]->key) = old[i];
        free(old);
    }
    *find_slot(db, e->key) = e;
    db->count++;
}

/* Reads textures/<name><ext>; false when absent or unreadable (the latter
 * warned about, since it is a broken game file rather than a missing one). */
static bool read_tex_file(texdb_t *db, const char *name, const char *ext, uint8_t **data, size_t *size)
{
    char path[Q2_PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "textures/%s%s", name, ext) >= sizeof path) return false;
    q2err_t err = {0};
    if (vfs_read(db->vfs, path, TEX_MAX_FILE_SIZE, data, size, &err)) return true;
    if (err.msg[0]) log_warn(db->log, "texture '%s': %s", name, err.msg);
    return false;
}

static const palette_t *wal_palette(texdb_t *db)
{
    if (!db->palette_loaded) {
        db->palette_loaded = true;
        db->palette = *palette_quake2();
        uint8_t *data;
        size_t size;
        q2err_t err = {0};
        if (vfs_read(db->vfs, "pics/colormap.pcx", TEX_MAX_FILE_SIZE, &data, &size, &err)) {
            image_t img;
            palette_t pal;
            if (pcx_read(data, size, "pics/colormap.pcx", &img, &pal, &err)) {
                db->palette = pal;
                image_free(&img);
            } else {
                log_warn(db->log, "%s; using the built-in Quake 2 palette", err.msg);
            }
            free(data);
        } else if (err.msg[0]) {
            log_warn(db->log, "%s; using the built-in Quake 2 palette", err.msg);
        }
    }
    return &db->palette;
}

static void resolve(texdb_t *db, const char *name, texentry_t *e)
{
    texmeta_t *m = &e->meta;
    memset(m, 0, sizeof *m);
    bool have_meta = false;
    uint8_t *data;
    size_t size;
    q2err_t err = {0};
    char label[Q2_PATH_MAX];

    if (db->vfs) {
        snprintf(label, sizeof label, "textures/%s.wal", name);
        if (read_tex_file(db, name, ".wal", &data, &size)) {
            if (wal_read(data, size, label, wal_palette(db), m, &e->img, &err)) {
                have_meta = e->has_img = true;
            } else {
                log_warn(db->log, "%s", err.msg);
                memset(m, 0, sizeof *m);
            }
            free(data);
        }
        if (!have_meta) {
            snprintf(label, sizeof label, "textures/%s.wal_json", name);
            if (read_tex_file(db, name, ".wal_json", &data, &size)) {
                if (wal_json_parse((const char *)data, size, label, m, &e->has_color, e->color, &err)) {
                    have_meta = true;
                } else {
                    log_warn(db->log, "%s", err.msg);
                    memset(m, 0, sizeof *m);
                }
                free(data);
            }
        }
        static const struct {
            const char *ext;
            bool (*decode)(const uint8_t *, size_t, const char *, image_t *, q2err_t *);
        } images[] = {{".png", png_read}, {".tga", tga_read}};
        for (size_t i = 0; i < 2 && !e->has_img; i++) {
            snprintf(label, sizeof label, "textures/%s%s", name, images[i].ext);
            if (!read_tex_file(db, name, images[i].ext, &data, &size)) continue;
            if (images[i].decode(data, size, label, &e->img, &err))
                e->has_img = true;
            else
                log_warn(db->log, "%s", err.msg);
            free(data);
        }
    }
    bool found = have_meta || e->has_img;
    if (!have_meta) {
        m->from_table = tooltex_lookup(name, &m->contents, &m->flags, &m->value);
        m->animname[0] = 0;
    }
    /* Sizes: the .wal header's, else the .wal_json's, else the image's. */
    if (e->has_img) {
        if (!m->width) m->width = e->img.width;
        if (!m->height) m->height = e->img.height;
    }
    if (!m->width) m->width = TEX_DEFAULT_SIZE;
    if (!m->height) m->height = TEX_DEFAULT_SIZE;
    m->found = found;
    if (!found) {
        /* Without game data every texture is missing, and saying so per
         * name is noise; with game data a missing name is worth a warning. */
        const char *what = m->from_table ? "using built-in tool-texture flags" : "using defaults";
        if (db->vfs)
            log_warn(db->log, "texture '%s' not found; %s", name, what);
        else
            log_verbose(db->log, "texture '%s': no game data; %s", name, what);
    }
}

static texentry_t *lookup(texdb_t *db, const char *name)
{
    if (!name) name = "";
    size_t n = strlen(name);
    char *key = q2_malloc(n + 1);
    for (size_t i = 0; i <= n; i++) key[i] = name[i] == '\\' ? '/' : (char)tolower((unsigned char)name[i]);
    omp_set_lock(&db->lock);
    texentry_t *e = *find_slot(db, key);
    if (!e) {
        e = q2_calloc(1, sizeof *e);
        e->key = key;
        key = NULL;
        resolve(db, name, e);
        insert(db, e);
    }
    omp_unset_lock(&db->lock);
    free(key);
    return e;
}

const texmeta_t *texdb_meta(texdb_t *db, const char *name) { return &lookup(db, name)->meta; }

const image_t *texdb_image(texdb_t *db, const char *name)
{
    texentry_t *e = lookup(db, name);
    return e->has_img ? &e->img : NULL;
}

bool texdb_has_color(texdb_t *db, const char *name)
{
    texentry_t *e = lookup(db, name);
    return e->has_img || e->has_color;
}

void texdb_average_color(texdb_t *db, const char *name, double rgb[3])
{
    texentry_t *e = lookup(db, name);
    omp_set_lock(&db->lock);
    if (!e->avg_done) {
        e->avg[0] = e->avg[1] = e->avg[2] = 0.5;
        if (e->has_img) {
            /* Fully transparent texels (alpha-tested fences) are not part of
             * the surface's colour; an image with no opaque texel counts all
             * of them. */
            double sum[3] = {0, 0, 0};
            size_t npix = (size_t)e->img.width * (size_t)e->img.height, used = 0;
            for (int pass = 0; pass < 2 && used == 0; pass++) {
                for (size_t i = 0; i < npix; i++) {
                    const uint8_t *p = e->img.rgba + 4 * i;
                    if (pass == 0 && p[3] == 0 && !e->img.indexed) continue;
                    sum[0] += p[0];
                    sum[1] += p[1];
                    sum[2] += p[2];
                    used++;
                }
            }
            for (int k = 0; k < 3; k++) e->avg[k] = sum[k] / (255.0 * (double)used);
        } else if (e->has_color) {
            for (int k = 0; k < 3; k++) e->avg[k] = e->color[k] / 255.0;
        }
        e->avg_done = true;
    }
    for (int k = 0; k < 3; k++) rgb[k] = e->avg[k];
    omp_unset_lock(&db->lock);
}

void texture_name_color(const char *name, uint8_t rgb[3])
{
    uint32_t h = name_hash(name ? name : "");
    /* A hue from the hash at fixed, moderate saturation and brightness:
     * distinct neighbours, never garish or too dark to read. */
    double hue = (double)(h % 360u) / 60.0;
    double s = 0.35 + 0.2 * (double)((h >> 9) % 100u) / 100.0;
    double v = 0.70 + 0.2 * (double)((h >> 17) % 100u) / 100.0;
    int sector = (int)hue;
    double f = hue - sector;
    double p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    double r, g, b;
    switch (sector) {
    case 0: r = v, g = t, b = p; break;
    case 1: r = q, g = v, b = p; break;
    case 2: r = p, g = v, b = t; break;
    case 3: r = p, g = q, b = v; break;
    case 4: r = t, g = p, b = v; break;
    default: r = v, g = p, b = q; break;
    }
    rgb[0] = (uint8_t)(r * 255.0 + 0.5);
    rgb[1] = (uint8_t)(g * 255.0 + 0.5);
    rgb[2] = (uint8_t)(b * 255.0 + 0.5);
}

/* texdb_pack/texdb_unpack: every entry as key length, key, meta, image size
 * and pixels, the .wal_json colour and the average, back to back. */
typedef struct texwire_t {
    uint32_t keylen;
    texmeta_t meta;
    int32_t width, height;
    uint8_t has_img, has_color, avg_done, indexed;
    uint8_t color[3];
    double avg[3];
} texwire_t;

bool texdb_pack(texdb_t *db, uint8_t **data, size_t *size)
{
    omp_set_lock(&db->lock);
    size_t total = sizeof(uint64_t);
    for (size_t i = 0; i < db->nslots; i++) {
        const texentry_t *e = db->slots[i];
        if (!e) continue;
        total += sizeof(texwire_t) + strlen(e->key);
        if (e->has_img) total += (size_t)e->img.width * (size_t)e->img.height * 4;
    }
    uint8_t *buf = q2_malloc(total), *p = buf;
    uint64_t count = db->count;
    memcpy(p, &count, sizeof count);
    p += sizeof count;
    for (size_t i = 0; i < db->nslots; i++) {
        const texentry_t *e = db->slots[i];
        if (!e) continue;
        texwire_t w;
        memset(&w, 0, sizeof w);
        w.keylen = (uint32_t)strlen(e->key);
        w.meta = e->meta;
        w.has_img = e->has_img;
        w.indexed = e->has_img && e->img.indexed;
        w.width = e->has_img ? e->img.width : 0;
        w.height = e->has_img ? e->img.height : 0;
        w.has_color = e->has_color;
        memcpy(w.color, e->color, 3);
        w.avg_done = e->avg_done;
        memcpy(w.avg, e->avg, sizeof w.avg);
        memcpy(p, &w, sizeof w);
        p += sizeof w;
        memcpy(p, e->key, w.keylen);
        p += w.keylen;
        size_t px = (size_t)w.width * (size_t)w.height * 4;
        if (px) memcpy(p, e->img.rgba, px);
        p += px;
    }
    omp_unset_lock(&db->lock);
    *data = buf;
    *size = total;
    return true;
}

bool texdb_unpack(texdb_t *db, const uint8_t *data, size_t size, q2err_t *err)
{
    const uint8_t *p = data, *end = data + size;
    uint64_t count;
    if (size < sizeof count) return q2err_set(err, NULL, 0, 0, "texture table: truncated");
    memcpy(&count, p, sizeof count);
    p += sizeof count;
    omp_set_lock(&db->lock);
    bool ok = true;
    for (uint64_t k = 0; k < count && ok; k++) {
        texwire_t w;
        if ((size_t)(end - p) < sizeof w) {
            ok = false;
            break;
        }
        memcpy(&w, p, sizeof w);
        p += sizeof w;
        size_t px = (size_t)(w.width > 0 ? w.width : 0) * (size_t)(w.height > 0 ? w.height : 0) * 4;
        if ((size_t)(end - p) < (size_t)w.keylen + px || w.keylen > Q2_PATH_MAX) {
            ok = false;
            break;
        }
        texentry_t *e = q2_calloc(1, sizeof *e);
        e->key = q2_malloc((size_t)w.keylen + 1);
        memcpy(e->key, p, w.keylen);
        e->key[w.keylen] = 0;
        p += w.keylen;
        e->meta = w.meta;
        e->has_img = w.has_img;
        if (e->has_img) {
            e->img.width = w.width;
            e->img.height = w.height;
            e->img.indexed = w.indexed != 0;
            e->img.rgba = q2_malloc(px + 1);
            memcpy(e->img.rgba, p, px);
        }
        p += px;
        e->has_color = w.has_color;
        memcpy(e->color, w.color, 3);
        e->avg_done = w.avg_done;
        memcpy(e->avg, w.avg, sizeof e->avg);
        texentry_t **slot = find_slot(db, e->key);
        if (*slot) {
            image_free(&e->img);
            free(e->key);
            free(e);
        } else {
            insert(db, e);
        }
    }
    omp_unset_lock(&db->lock);
    if (!ok) return q2err_set(err, NULL, 0, 0, "texture table: truncated");
    return true;
}
