#include "bspfile.h"

#include <stdlib.h>
#include <string.h>

#include "../common/fileio.h"
#include "../common/mem.h"
#include "bytes.h"

const char *const bsp_lump_names[HEADER_LUMPS] = {
    "entities", "planes",    "vertexes",    "visibility", "nodes",      "texinfo", "faces",
    "lighting", "leafs",     "leaffaces",   "leafbrushes", "edges",     "surfedges", "models",
    "brushes",  "brushsides", "pop",        "areas",      "areaportals",
};

const int bsp_lump_record_size[HEADER_LUMPS] = {
    1, 20, 12, 1, 28, 76, 20, 1, 28, 2, 2, 4, 4, 48, 12, 4, 1, 8, 8,
};

/* id's WriteBSPFile order; keeping it makes our files diff cleanly against
 * qbsp3's and keeps the output a pure function of the data. */
static const int write_order[HEADER_LUMPS] = {
    LUMP_PLANES,      LUMP_LEAFS,     LUMP_VERTEXES,  LUMP_NODES,       LUMP_TEXINFO,
    LUMP_FACES,       LUMP_BRUSHES,   LUMP_BRUSHSIDES, LUMP_LEAFFACES,  LUMP_LEAFBRUSHES,
    LUMP_SURFEDGES,   LUMP_EDGES,     LUMP_MODELS,    LUMP_AREAS,       LUMP_AREAPORTALS,
    LUMP_LIGHTING,    LUMP_VISIBILITY, LUMP_ENTITIES, LUMP_POP,
};

void bsp_init(bsp_t *bsp) { memset(bsp, 0, sizeof *bsp); }

void bsp_free(bsp_t *bsp)
{
    free(bsp->entities);
    free(bsp->planes);
    free(bsp->vertexes);
    free(bsp->visdata);
    free(bsp->nodes);
    free(bsp->texinfo);
    free(bsp->faces);
    free(bsp->lightdata);
    free(bsp->leafs);
    free(bsp->leaffaces);
    free(bsp->leafbrushes);
    free(bsp->edges);
    free(bsp->surfedges);
    free(bsp->models);
    free(bsp->brushes);
    free(bsp->brushsides);
    free(bsp->pop);
    free(bsp->areas);
    free(bsp->areaportals);
    free(bsp->extra);
    memset(bsp, 0, sizeof *bsp);
}

void bsp_set_entities(bsp_t *bsp, const char *text)
{
    free(bsp->entities);
    bsp->entities = q2_strdup(text);
    bsp->entities_size = (int)strlen(text) + 1;
}

int bsp_num_clusters(const bsp_t *bsp)
{
    if (bsp->visdatasize < 4) return 0;
    return (int)rd_i32(bsp->visdata);
}

static void read_planes(const uint8_t *p, int n, dplane_t *out)
{
    for (int i = 0; i < n; i++, p += 20) {
        for (int k = 0; k < 3; k++) out[i].normal[k] = rd_f32(p + 4 * k);
        out[i].dist = rd_f32(p + 12);
        out[i].type = rd_i32(p + 16);
    }
}

static void read_vertexes(const uint8_t *p, int n, dvertex_t *out)
{
    for (int i = 0; i < n; i++, p += 12)
        for (int k = 0; k < 3; k++) out[i].point[k] = rd_f32(p + 4 * k);
}

static void read_nodes(const uint8_t *p, int n, dnode_t *out)
{
    for (int i = 0; i < n; i++, p += 28) {
        out[i].planenum = rd_i32(p);
        out[i].children[0] = rd_i32(p + 4);
        out[i].children[1] = rd_i32(p + 8);
        for (int k = 0; k < 3; k++) {
            out[i].mins[k] = rd_i16(p + 12 + 2 * k);
            out[i].maxs[k] = rd_i16(p + 18 + 2 * k);
        }
        out[i].firstface = rd_u16(p + 24);
        out[i].numfaces = rd_u16(p + 26);
    }
}

static void read_texinfo(const uint8_t *p, int n, dtexinfo_t *out)
{
    for (int i = 0; i < n; i++, p += 76) {
        for (int s = 0; s < 2; s++)
            for (int k = 0; k < 4; k++) out[i].vecs[s][k] = rd_f32(p + 16 * s + 4 * k);
        out[i].flags = rd_i32(p + 32);
        out[i].value = rd_i32(p + 36);
        memcpy(out[i].texture, p + 40, 32);
        out[i].texture[32] = 0;
        out[i].nexttexinfo = rd_i32(p + 72);
    }
}

static void read_faces(const uint8_t *p, int n, dface_t *out)
{
    for (int i = 0; i < n; i++, p += 20) {
        out[i].planenum = rd_u16(p);
        out[i].side = rd_i16(p + 2);
        out[i].firstedge = rd_i32(p + 4);
        out[i].numedges = rd_i16(p + 8);
        out[i].texinfo = rd_i16(p + 10);
        memcpy(out[i].styles, p + 12, 4);
        out[i].lightofs = rd_i32(p + 16);
    }
}

static void read_leafs(const uint8_t *p, int n, dleaf_t *out)
{
    for (int i = 0; i < n; i++, p += 28) {
        out[i].contents = rd_i32(p);
        out[i].cluster = rd_i16(p + 4);
        out[i].area = rd_i16(p + 6);
        for (int k = 0; k < 3; k++) {
            out[i].mins[k] = rd_i16(p + 8 + 2 * k);
            out[i].maxs[k] = rd_i16(p + 14 + 2 * k);
        }
        out[i].firstleafface = rd_u16(p + 20);
        out[i].numleaffaces = rd_u16(p + 22);
        out[i].firstleafbrush = rd_u16(p + 24);
        out[i].numleafbrushes = rd_u16(p + 26);
    }
}

static void read_models(const uint8_t *p, int n, dmodel_t *out)
{
    for (int i = 0; i < n; i++, p += 48) {
        for (int k = 0; k < 3; k++) {
            out[i].mins[k] = rd_f32(p + 4 * k);
            out[i].maxs[k] = rd_f32(p + 12 + 4 * k);
            out[i].origin[k] = rd_f32(p + 24 + 4 * k);
        }
        out[i].headnode = rd_i32(p + 36);
        out[i].firstface = rd_i32(p + 40);
        out[i].numfaces = rd_i32(p + 44);
    }
}

bool bsp_read_memory(const uint8_t *data, size_t size, const char *name, bsp_t *bsp, q2err_t *err)
{
    bsp_init(bsp);
    if (size < BSP_HEADER_SIZE)
        return q2err_set(err, name, 0, 0, "truncated: %zu bytes, a .bsp header needs %d", size, BSP_HEADER_SIZE);
    int32_t ident = rd_i32(data);
    if (ident != BSP_IDENT) {
        if (memcmp(data, "QBSP", 4) == 0)
            return q2err_set(err, name, 0, 0, "extended QBSP format is not supported (only IBSP version 38)");
        return q2err_set(err, name, 0, 0, "not a Quake 2 .bsp (ident is not IBSP)");
    }
    int32_t version = rd_i32(data + 4);
    if (version != BSP_VERSION)
        return q2err_set(err, name, 0, 0, "unsupported IBSP version %d (expected %d)", version, BSP_VERSION);

    int64_t ofs[HEADER_LUMPS], len[HEADER_LUMPS];
    size_t end = BSP_HEADER_SIZE;
    for (int l = 0; l < HEADER_LUMPS; l++) {
        ofs[l] = rd_i32(data + 8 + 8 * l);
        len[l] = rd_i32(data + 12 + 8 * l);
        if (ofs[l] < 0 || len[l] < 0 || (uint64_t)ofs[l] + (uint64_t)len[l] > size)
            return q2err_set(err, name, 0, 0, "lump %s (offset %lld, length %lld) lies outside the %zu-byte file",
                             bsp_lump_names[l], (long long)ofs[l], (long long)len[l], size);
        if (len[l] % bsp_lump_record_size[l] != 0)
            return q2err_set(err, name, 0, 0, "lump %s has length %lld, not a multiple of its %d-byte records",
                             bsp_lump_names[l], (long long)len[l], bsp_lump_record_size[l]);
        if (len[l] > 0 && (size_t)(ofs[l] + len[l]) > end) end = (size_t)(ofs[l] + len[l]);
    }

#define COUNT(l) ((int)(len[l] / bsp_lump_record_size[l]))
#define LUMP(l) (data + ofs[l])
    bsp->entities_size = (int)len[LUMP_ENTITIES];
    bsp->entities = q2_malloc((size_t)bsp->entities_size + 1);
    memcpy(bsp->entities, LUMP(LUMP_ENTITIES), (size_t)bsp->entities_size);
    bsp->entities[bsp->entities_size] = 0;

    bsp->numplanes = COUNT(LUMP_PLANES);
    bsp->planes = q2_calloc((size_t)bsp->numplanes, sizeof *bsp->planes);
    read_planes(LUMP(LUMP_PLANES), bsp->numplanes, bsp->planes);

    bsp->numvertexes = COUNT(LUMP_VERTEXES);
    bsp->vertexes = q2_calloc((size_t)bsp->numvertexes, sizeof *bsp->vertexes);
    read_vertexes(LUMP(LUMP_VERTEXES), bsp->numvertexes, bsp->vertexes);

    bsp->visdatasize = (int)len[LUMP_VISIBILITY];
    bsp->visdata = q2_malloc((size_t)bsp->visdatasize);
    memcpy(bsp->visdata, LUMP(LUMP_VISIBILITY), (size_t)bsp->visdatasize);

    bsp->numnodes = COUNT(LUMP_NODES);
    bsp->nodes = q2_calloc((size_t)bsp->numnodes, sizeof *bsp->nodes);
    read_nodes(LUMP(LUMP_NODES), bsp->numnodes, bsp->nodes);

    bsp->numtexinfo = COUNT(LUMP_TEXINFO);
    bsp->texinfo = q2_calloc((size_t)bsp->numtexinfo, sizeof *bsp->texinfo);
    read_texinfo(LUMP(LUMP_TEXINFO), bsp->numtexinfo, bsp->texinfo);

    bsp->numfaces = COUNT(LUMP_FACES);
    bsp->faces = q2_calloc((size_t)bsp->numfaces, sizeof *bsp->faces);
    read_faces(LUMP(LUMP_FACES), bsp->numfaces, bsp->faces);

    bsp->lightdatasize = (int)len[LUMP_LIGHTING];
    bsp->lightdata = q2_malloc((size_t)bsp->lightdatasize);
    memcpy(bsp->lightdata, LUMP(LUMP_LIGHTING), (size_t)bsp->lightdatasize);

    bsp->numleafs = COUNT(LUMP_LEAFS);
    bsp->leafs = q2_calloc((size_t)bsp->numleafs, sizeof *bsp->leafs);
    read_leafs(LUMP(LUMP_LEAFS), bsp->numleafs, bsp->leafs);

    bsp->numleaffaces = COUNT(LUMP_LEAFFACES);
    bsp->leaffaces = q2_calloc((size_t)bsp->numleaffaces, sizeof *bsp->leaffaces);
    for (int i = 0; i < bsp->numleaffaces; i++) bsp->leaffaces[i] = rd_u16(LUMP(LUMP_LEAFFACES) + 2 * i);

    bsp->numleafbrushes = COUNT(LUMP_LEAFBRUSHES);
    bsp->leafbrushes = q2_calloc((size_t)bsp->numleafbrushes, sizeof *bsp->leafbrushes);
    for (int i = 0; i < bsp->numleafbrushes; i++) bsp->leafbrushes[i] = rd_u16(LUMP(LUMP_LEAFBRUSHES) + 2 * i);

    bsp->numedges = COUNT(LUMP_EDGES);
    bsp->edges = q2_calloc((size_t)bsp->numedges, sizeof *bsp->edges);
    for (int i = 0; i < bsp->numedges; i++) {
        bsp->edges[i].v[0] = rd_u16(LUMP(LUMP_EDGES) + 4 * i);
        bsp->edges[i].v[1] = rd_u16(LUMP(LUMP_EDGES) + 4 * i + 2);
    }

    bsp->numsurfedges = COUNT(LUMP_SURFEDGES);
    bsp->surfedges = q2_calloc((size_t)bsp->numsurfedges, sizeof *bsp->surfedges);
    for (int i = 0; i < bsp->numsurfedges; i++) bsp->surfedges[i] = rd_i32(LUMP(LUMP_SURFEDGES) + 4 * i);

    bsp->nummodels = COUNT(LUMP_MODELS);
    bsp->models = q2_calloc((size_t)bsp->nummodels, sizeof *bsp->models);
    read_models(LUMP(LUMP_MODELS), bsp->nummodels, bsp->models);

    bsp->numbrushes = COUNT(LUMP_BRUSHES);
    bsp->brushes = q2_calloc((size_t)bsp->numbrushes, sizeof *bsp->brushes);
    for (int i = 0; i < bsp->numbrushes; i++) {
        const uint8_t *p = LUMP(LUMP_BRUSHES) + 12 * i;
        bsp->brushes[i].firstside = rd_i32(p);
        bsp->brushes[i].numsides = rd_i32(p + 4);
        bsp->brushes[i].contents = rd_i32(p + 8);
    }

    bsp->numbrushsides = COUNT(LUMP_BRUSHSIDES);
    bsp->brushsides = q2_calloc((size_t)bsp->numbrushsides, sizeof *bsp->brushsides);
    for (int i = 0; i < bsp->numbrushsides; i++) {
        bsp->brushsides[i].planenum = rd_u16(LUMP(LUMP_BRUSHSIDES) + 4 * i);
        bsp->brushsides[i].texinfo = rd_i16(LUMP(LUMP_BRUSHSIDES) + 4 * i + 2);
    }

    bsp->popsize = (int)len[LUMP_POP];
    bsp->pop = q2_malloc((size_t)bsp->popsize);
    memcpy(bsp->pop, LUMP(LUMP_POP), (size_t)bsp->popsize);

    bsp->numareas = COUNT(LUMP_AREAS);
    bsp->areas = q2_calloc((size_t)bsp->numareas, sizeof *bsp->areas);
    for (int i = 0; i < bsp->numareas; i++) {
        bsp->areas[i].numareaportals = rd_i32(LUMP(LUMP_AREAS) + 8 * i);
        bsp->areas[i].firstareaportal = rd_i32(LUMP(LUMP_AREAS) + 8 * i + 4);
    }

    bsp->numareaportals = COUNT(LUMP_AREAPORTALS);
    bsp->areaportals = q2_calloc((size_t)bsp->numareaportals, sizeof *bsp->areaportals);
    for (int i = 0; i < bsp->numareaportals; i++) {
        bsp->areaportals[i].portalnum = rd_i32(LUMP(LUMP_AREAPORTALS) + 8 * i);
        bsp->areaportals[i].otherarea = rd_i32(LUMP(LUMP_AREAPORTALS) + 8 * i + 4);
    }
#undef COUNT
#undef LUMP

    /* Lumps are 4-byte aligned, so up to 3 bytes of padding after the last
     * one are not "extra" data. */
    size_t aligned_end = (end + 3) & ~(size_t)3;
    if (aligned_end < size) {
        bsp->extra_offset = aligned_end;
        bsp->extrasize = size - aligned_end;
        bsp->extra = q2_malloc(bsp->extrasize);
        memcpy(bsp->extra, data + aligned_end, bsp->extrasize);
    }
    return true;
}

bool bsp_read_file(const char *path, bsp_t *bsp, q2err_t *err)
{
    uint8_t *data;
    size_t size;
    bsp_init(bsp);
    if (!file_read_all(path, BSP_MAX_FILE_SIZE, &data, &size, err)) return false;
    bool ok = bsp_read_memory(data, size, path, bsp, err);
    free(data);
    if (!ok) bsp_free(bsp);
    return ok;
}

/* Entities in the lump: opening braces outside quoted strings (the lump
 * has no nesting), without a full parse on every write. */
static long count_entities(const bsp_t *bsp)
{
    long n = 0;
    bool quoted = false;
    for (int i = 0; i < bsp->entities_size && bsp->entities[i]; i++) {
        char c = bsp->entities[i];
        if (c == '"') quoted = !quoted;
        else if (c == '\n') quoted = false;
        else if (c == '{' && !quoted) n++;
    }
    return n;
}

bool bsp_check_limits(const bsp_t *bsp, q2err_t *err)
{
    struct {
        const char *name;
        long count, limit;
    } checks[] = {
        {"MAX_MAP_ENTSTRING", bsp->entities_size, MAX_MAP_ENTSTRING},
        {"MAX_MAP_ENTITIES", count_entities(bsp), MAX_MAP_ENTITIES},
        {"MAX_MAP_PLANES", bsp->numplanes, MAX_MAP_PLANES},
        {"MAX_MAP_VERTS", bsp->numvertexes, MAX_MAP_VERTS},
        {"MAX_MAP_VISIBILITY", bsp->visdatasize, MAX_MAP_VISIBILITY},
        {"MAX_MAP_NODES", bsp->numnodes, MAX_MAP_NODES},
        {"MAX_MAP_TEXINFO", bsp->numtexinfo, MAX_MAP_TEXINFO},
        {"MAX_MAP_FACES", bsp->numfaces, MAX_MAP_FACES},
        {"MAX_MAP_LIGHTING", bsp->lightdatasize, MAX_MAP_LIGHTING},
        {"MAX_MAP_LEAFS", bsp->numleafs, MAX_MAP_LEAFS},
        {"MAX_MAP_LEAFFACES", bsp->numleaffaces, MAX_MAP_LEAFFACES},
        {"MAX_MAP_LEAFBRUSHES", bsp->numleafbrushes, MAX_MAP_LEAFBRUSHES},
        {"MAX_MAP_EDGES", bsp->numedges, MAX_MAP_EDGES},
        {"MAX_MAP_SURFEDGES", bsp->numsurfedges, MAX_MAP_SURFEDGES},
        {"MAX_MAP_MODELS", bsp->nummodels, MAX_MAP_MODELS},
        {"MAX_MAP_BRUSHES", bsp->numbrushes, MAX_MAP_BRUSHES},
        {"MAX_MAP_BRUSHSIDES", bsp->numbrushsides, MAX_MAP_BRUSHSIDES},
        {"MAX_MAP_AREAS", bsp->numareas, MAX_MAP_AREAS},
        {"MAX_MAP_AREAPORTALS", bsp->numareaportals, MAX_MAP_AREAPORTALS},
    };
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
        if (checks[i].count > checks[i].limit)
            return q2err_set(err, NULL, 0, 0, "%s exceeded: %ld > %ld", checks[i].name, checks[i].count,
                             checks[i].limit);
    return true;
}

typedef struct outbuf_t {
    uint8_t *data;
    size_t size, cap;
} outbuf_t;

static uint8_t *ob_reserve(outbuf_t *b, size_t n)
{
    if (b->size + n > b->cap) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < b->size + n) cap *= 2;
        b->data = q2_realloc(b->data, cap);
        b->cap = cap;
    }
    uint8_t *p = b->data + b->size;
    memset(p, 0, n);
    b->size += n;
    return p;
}

static void write_lump(outbuf_t *b, int l, const bsp_t *bsp, uint8_t *header)
{
    size_t start = b->size;
    int n;
    uint8_t *p;
    switch (l) {
    case LUMP_ENTITIES:
        p = ob_reserve(b, (size_t)bsp->entities_size);
        if (bsp->entities_size > 0) memcpy(p, bsp->entities, (size_t)bsp->entities_size);
        break;
    case LUMP_PLANES:
        n = bsp->numplanes;
        p = ob_reserve(b, 20 * (size_t)n);
        for (int i = 0; i < n; i++, p += 20) {
            for (int k = 0; k < 3; k++) wr_f32(p + 4 * k, bsp->planes[i].normal[k]);
            wr_f32(p + 12, bsp->planes[i].dist);
            wr_i32(p + 16, bsp->planes[i].type);
        }
        break;
    case LUMP_VERTEXES:
        n = bsp->numvertexes;
        p = ob_reserve(b, 12 * (size_t)n);
        for (int i = 0; i < n; i++, p += 12)
            for (int k = 0; k < 3; k++) wr_f32(p + 4 * k, bsp->vertexes[i].point[k]);
        break;
    case LUMP_VISIBILITY:
        p = ob_reserve(b, (size_t)bsp->visdatasize);
        if (bsp->visdatasize) memcpy(p, bsp->visdata, (size_t)bsp->visdatasize);
        break;
    case LUMP_NODES:
        n = bsp->numnodes;
        p = ob_reserve(b, 28 * (size_t)n);
        for (int i = 0; i < n; i++, p += 28) {
            const dnode_t *d = &bsp->nodes[i];
            wr_i32(p, d->planenum);
            wr_i32(p + 4, d->children[0]);
            wr_i32(p + 8, d->children[1]);
            for (int k = 0; k < 3; k++) {
                wr_i16(p + 12 + 2 * k, d->mins[k]);
                wr_i16(p + 18 + 2 * k, d->maxs[k]);
            }
            wr_u16(p + 24, d->firstface);
            wr_u16(p + 26, d->numfaces);
        }
        break;
    case LUMP_TEXINFO:
        n = bsp->numtexinfo;
        p = ob_reserve(b, 76 * (size_t)n);
        for (int i = 0; i < n; i++, p += 76) {
            const dtexinfo_t *t = &bsp->texinfo[i];
            for (int s = 0; s < 2; s++)
                for (int k = 0; k < 4; k++) wr_f32(p + 16 * s + 4 * k, t->vecs[s][k]);
            wr_i32(p + 32, t->flags);
            wr_i32(p + 36, t->value);
            /* Copy up to the NUL; bytes after it stay zero so output does
             * not depend on stale memory. */
            size_t tl = strnlen(t->texture, 32);
            memcpy(p + 40, t->texture, tl);
            wr_i32(p + 72, t->nexttexinfo);
        }
        break;
    case LUMP_FACES:
        n = bsp->numfaces;
        p = ob_reserve(b, 20 * (size_t)n);
        for (int i = 0; i < n; i++, p += 20) {
            const dface_t *f = &bsp->faces[i];
            wr_u16(p, f->planenum);
            wr_i16(p + 2, f->side);
            wr_i32(p + 4, f->firstedge);
            wr_i16(p + 8, f->numedges);
            wr_i16(p + 10, f->texinfo);
            memcpy(p + 12, f->styles, 4);
            wr_i32(p + 16, f->lightofs);
        }
        break;
    case LUMP_LIGHTING:
        p = ob_reserve(b, (size_t)bsp->lightdatasize);
        if (bsp->lightdatasize) memcpy(p, bsp->lightdata, (size_t)bsp->lightdatasize);
        break;
    case LUMP_LEAFS:
        n = bsp->numleafs;
        p = ob_reserve(b, 28 * (size_t)n);
        for (int i = 0; i < n; i++, p += 28) {
            const dleaf_t *d = &bsp->leafs[i];
            wr_i32(p, d->contents);
            wr_i16(p + 4, d->cluster);
            wr_i16(p + 6, d->area);
            for (int k = 0; k < 3; k++) {
                wr_i16(p + 8 + 2 * k, d->mins[k]);
                wr_i16(p + 14 + 2 * k, d->maxs[k]);
            }
            wr_u16(p + 20, d->firstleafface);
            wr_u16(p + 22, d->numleaffaces);
            wr_u16(p + 24, d->firstleafbrush);
            wr_u16(p + 26, d->numleafbrushes);
        }
        break;
    case LUMP_LEAFFACES:
        p = ob_reserve(b, 2 * (size_t)bsp->numleaffaces);
        for (int i = 0; i < bsp->numleaffaces; i++) wr_u16(p + 2 * i, bsp->leaffaces[i]);
        break;
    case LUMP_LEAFBRUSHES:
        p = ob_reserve(b, 2 * (size_t)bsp->numleafbrushes);
        for (int i = 0; i < bsp->numleafbrushes; i++) wr_u16(p + 2 * i, bsp->leafbrushes[i]);
        break;
    case LUMP_EDGES:
        p = ob_reserve(b, 4 * (size_t)bsp->numedges);
        for (int i = 0; i < bsp->numedges; i++) {
            wr_u16(p + 4 * i, bsp->edges[i].v[0]);
            wr_u16(p + 4 * i + 2, bsp->edges[i].v[1]);
        }
        break;
    case LUMP_SURFEDGES:
        p = ob_reserve(b, 4 * (size_t)bsp->numsurfedges);
        for (int i = 0; i < bsp->numsurfedges; i++) wr_i32(p + 4 * i, bsp->surfedges[i]);
        break;
    case LUMP_MODELS:
        n = bsp->nummodels;
        p = ob_reserve(b, 48 * (size_t)n);
        for (int i = 0; i < n; i++, p += 48) {
            const dmodel_t *m = &bsp->models[i];
            for (int k = 0; k < 3; k++) {
                wr_f32(p + 4 * k, m->mins[k]);
                wr_f32(p + 12 + 4 * k, m->maxs[k]);
                wr_f32(p + 24 + 4 * k, m->origin[k]);
            }
            wr_i32(p + 36, m->headnode);
            wr_i32(p + 40, m->firstface);
            wr_i32(p + 44, m->numfaces);
        }
        break;
    case LUMP_BRUSHES:
        p = ob_reserve(b, 12 * (size_t)bsp->numbrushes);
        for (int i = 0; i < bsp->numbrushes; i++) {
            wr_i32(p + 12 * i, bsp->brushes[i].firstside);
            wr_i32(p + 12 * i + 4, bsp->brushes[i].numsides);
            wr_i32(p + 12 * i + 8, bsp->brushes[i].contents);
        }
        break;
    case LUMP_BRUSHSIDES:
        p = ob_reserve(b, 4 * (size_t)bsp->numbrushsides);
        for (int i = 0; i < bsp->numbrushsides; i++) {
            wr_u16(p + 4 * i, bsp->brushsides[i].planenum);
            wr_i16(p + 4 * i + 2, bsp->brushsides[i].texinfo);
        }
        break;
    case LUMP_POP:
        p = ob_reserve(b, (size_t)bsp->popsize);
        if (bsp->popsize) memcpy(p, bsp->pop, (size_t)bsp->popsize);
        break;
    case LUMP_AREAS:
        p = ob_reserve(b, 8 * (size_t)bsp->numareas);
        for (int i = 0; i < bsp->numareas; i++) {
            wr_i32(p + 8 * i, bsp->areas[i].numareaportals);
            wr_i32(p + 8 * i + 4, bsp->areas[i].firstareaportal);
        }
        break;
    case LUMP_AREAPORTALS:
        p = ob_reserve(b, 8 * (size_t)bsp->numareaportals);
        for (int i = 0; i < bsp->numareaportals; i++) {
            wr_i32(p + 8 * i, bsp->areaportals[i].portalnum);
            wr_i32(p + 8 * i + 4, bsp->areaportals[i].otherarea);
        }
        break;
    }
    size_t length = b->size - start;
    wr_i32(header + 8 + 8 * l, length ? (int32_t)start : 0);
    wr_i32(header + 12 + 8 * l, (int32_t)length);
    /* Use the header through the buffer, which may have moved. */
    size_t pad = (4 - (b->size & 3)) & 3;
    ob_reserve(b, pad);
}

bool bsp_write_memory(const bsp_t *bsp, uint8_t **data, size_t *size, q2err_t *err)
{
    (void)err;
    outbuf_t b = {0};
    uint8_t header[BSP_HEADER_SIZE];
    memset(header, 0, sizeof header);
    ob_reserve(&b, BSP_HEADER_SIZE);
    wr_i32(header, BSP_IDENT);
    wr_i32(header + 4, BSP_VERSION);
    for (int i = 0; i < HEADER_LUMPS; i++) write_lump(&b, write_order[i], bsp, header);
    memcpy(b.data, header, BSP_HEADER_SIZE);

    if (bsp->extrasize > 0) {
        size_t at = b.size;
        uint8_t *p = ob_reserve(&b, bsp->extrasize);
        memcpy(p, bsp->extra, bsp->extrasize);
        /* A BSPX directory holds absolute file offsets: move them by the
         * distance the block moved. */
        if (bsp->extrasize >= 8 && memcmp(p, "BSPX", 4) == 0) {
            uint32_t count = (uint32_t)rd_i32(p + 4);
            int64_t delta = (int64_t)at - (int64_t)bsp->extra_offset;
            if ((uint64_t)count * 32 + 8 <= bsp->extrasize) {
                for (uint32_t i = 0; i < count; i++) {
                    uint8_t *e = p + 8 + 32 * i;
                    uint32_t o = (uint32_t)rd_i32(e + 24);
                    wr_i32(e + 24, (int32_t)(uint32_t)((int64_t)o + delta));
                }
            }
        }
    }
    *data = b.data;
    *size = b.size;
    return true;
}

bool bsp_write_file(const char *path, const bsp_t *bsp, q2err_t *err)
{
    if (!bsp_check_limits(bsp, err)) return q2err_wrap(err, "%s: not written", path);
    uint8_t *data;
    size_t size;
    if (!bsp_write_memory(bsp, &data, &size, err)) return false;
    bool ok = file_write_atomic(path, data, size, err);
    free(data);
    return ok;
}
