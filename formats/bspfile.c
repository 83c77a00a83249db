#include "bspfile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/dist.h"
#include "../common/fileio.h"
#include "../common/mem.h"
#include "bytes.h"
#include "bspx.h"

const char *const bsp_lump_names[HEADER_LUMPS] = {
    "entities", "planes",    "vertexes",    "visibility", "nodes",      "texinfo", "faces",
    "lighting", "leafs",     "leaffaces",   "leafbrushes", "edges",     "surfedges", "models",
    "brushes",  "brushsides", "pop",        "areas",      "areaportals",
};

const int bsp_lump_record_size[HEADER_LUMPS] = {
    1, 20, 12, 1, 28, 76, 20, 1, 28, 2, 2, 4, 4, 48, 12, 4, 1, 8, 8,
};

/* QBSP widens nodes (float bounds, 32-bit face range), faces, leafs, the
 * leafface and leafbrush lists, edges and brushsides
 * [q2tools-220 qfiles.h dnode_tx...; ericw-tools bspfile_q2.hh *_qbism_t]. */
static const int qbsp_record_size[HEADER_LUMPS] = {
    1, 20, 12, 1, 44, 76, 28, 1, 52, 4, 4, 8, 4, 48, 12, 8, 1, 8, 8,
};

int bsp_record_size(bsp_format_t format, int lump)
{
    return format == BSP_FORMAT_QBSP ? qbsp_record_size[lump] : bsp_lump_record_size[lump];
}

const char *bsp_format_name(bsp_format_t format) { return format == BSP_FORMAT_QBSP ? "QBSP" : "IBSP"; }

/* id's WriteBSPFile order; keeping it makes our files diff cleanly against
 * qbsp3's and keeps the output a pure function of the data. */
static const int write_order[HEADER_LUMPS] = {
    LUMP_PLANES,      LUMP_LEAFS,     LUMP_VERTEXES,  LUMP_NODES,       LUMP_TEXINFO,
    LUMP_FACES,       LUMP_BRUSHES,   LUMP_BRUSHSIDES, LUMP_LEAFFACES,  LUMP_LEAFBRUSHES,
    LUMP_SURFEDGES,   LUMP_EDGES,     LUMP_MODELS,    LUMP_AREAS,       LUMP_AREAPORTALS,
    LUMP_LIGHTING,    LUMP_VISIBILITY, LUMP_ENTITIES, LUMP_POP,
};

/* The same with POP before the entities, for a bsp with a BSPX block and a
 * non-empty POP lump (qbsp3's and q2tools-220's 256 bytes). Q2PRO looks for
 * the BSPX header at the 4-aligned end of the lumps it loads, which are all
 * but POP; yquake2remaster and ericw-tools look at the end of all 19. With
 * POP last those two places differ by POP's size and Q2PRO finds nothing;
 * with the entities last they are one place (docs/formats.md, "BSPX"). */
static const int write_order_bspx[HEADER_LUMPS] = {
    LUMP_PLANES,      LUMP_LEAFS,     LUMP_VERTEXES,  LUMP_NODES,       LUMP_TEXINFO,
    LUMP_FACES,       LUMP_BRUSHES,   LUMP_BRUSHSIDES, LUMP_LEAFFACES,  LUMP_LEAFBRUSHES,
    LUMP_SURFEDGES,   LUMP_EDGES,     LUMP_MODELS,    LUMP_AREAS,       LUMP_AREAPORTALS,
    LUMP_LIGHTING,    LUMP_VISIBILITY, LUMP_POP,      LUMP_ENTITIES,
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

static void read_nodes(const uint8_t *p, int n, bool q, dnode_t *out)
{
    for (int i = 0; i < n; i++) {
        out[i].planenum = rd_i32(p);
        out[i].children[0] = rd_i32(p + 4);
        out[i].children[1] = rd_i32(p + 8);
        if (q) {
            for (int k = 0; k < 3; k++) {
                out[i].mins[k] = rd_f32(p + 12 + 4 * k);
                out[i].maxs[k] = rd_f32(p + 24 + 4 * k);
            }
            out[i].firstface = (uint32_t)rd_i32(p + 36);
            out[i].numfaces = (uint32_t)rd_i32(p + 40);
            p += 44;
        } else {
            for (int k = 0; k < 3; k++) {
                out[i].mins[k] = rd_i16(p + 12 + 2 * k);
                out[i].maxs[k] = rd_i16(p + 18 + 2 * k);
            }
            out[i].firstface = rd_u16(p + 24);
            out[i].numfaces = rd_u16(p + 26);
            p += 28;
        }
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

static void read_faces(const uint8_t *p, int n, bool q, dface_t *out)
{
    for (int i = 0; i < n; i++) {
        if (q) {
            out[i].planenum = (uint32_t)rd_i32(p);
            out[i].side = rd_i32(p + 4);
            out[i].firstedge = rd_i32(p + 8);
            out[i].numedges = rd_i32(p + 12);
            out[i].texinfo = rd_i32(p + 16);
            memcpy(out[i].styles, p + 20, 4);
            out[i].lightofs = rd_i32(p + 24);
            p += 28;
        } else {
            out[i].planenum = rd_u16(p);
            out[i].side = rd_i16(p + 2);
            out[i].firstedge = rd_i32(p + 4);
            out[i].numedges = rd_i16(p + 8);
            out[i].texinfo = rd_i16(p + 10);
            memcpy(out[i].styles, p + 12, 4);
            out[i].lightofs = rd_i32(p + 16);
            p += 20;
        }
    }
}

static void read_leafs(const uint8_t *p, int n, bool q, dleaf_t *out)
{
    for (int i = 0; i < n; i++) {
        out[i].contents = rd_i32(p);
        if (q) {
            out[i].cluster = rd_i32(p + 4);
            out[i].area = rd_i32(p + 8);
            for (int k = 0; k < 3; k++) {
                out[i].mins[k] = rd_f32(p + 12 + 4 * k);
                out[i].maxs[k] = rd_f32(p + 24 + 4 * k);
            }
            out[i].firstleafface = (uint32_t)rd_i32(p + 36);
            out[i].numleaffaces = (uint32_t)rd_i32(p + 40);
            out[i].firstleafbrush = (uint32_t)rd_i32(p + 44);
            out[i].numleafbrushes = (uint32_t)rd_i32(p + 48);
            p += 52;
        } else {
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
            p += 28;
        }
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

/* Records [first, first + n) of lump l, from p (the lump's start). */
static void read_range(bsp_t *bsp, int l, const uint8_t *p, bool q, int first, int n)
{
    const int rs = bsp_record_size(bsp->format, l);
    const uint8_t *r = p + (size_t)first * rs;
    switch (l) {
    case LUMP_ENTITIES: memcpy(bsp->entities + first, r, (size_t)n); break;
    case LUMP_PLANES: read_planes(r, n, bsp->planes + first); break;
    case LUMP_VERTEXES: read_vertexes(r, n, bsp->vertexes + first); break;
    case LUMP_VISIBILITY: memcpy(bsp->visdata + first, r, (size_t)n); break;
    case LUMP_NODES: read_nodes(r, n, q, bsp->nodes + first); break;
    case LUMP_TEXINFO: read_texinfo(r, n, bsp->texinfo + first); break;
    case LUMP_FACES: read_faces(r, n, q, bsp->faces + first); break;
    case LUMP_LIGHTING: memcpy(bsp->lightdata + first, r, (size_t)n); break;
    case LUMP_LEAFS: read_leafs(r, n, q, bsp->leafs + first); break;
    case LUMP_LEAFFACES:
        for (int i = 0; i < n; i++) bsp->leaffaces[first + i] = q ? (uint32_t)rd_i32(r + 4 * i) : rd_u16(r + 2 * i);
        break;
    case LUMP_LEAFBRUSHES:
        for (int i = 0; i < n; i++) bsp->leafbrushes[first + i] = q ? (uint32_t)rd_i32(r + 4 * i) : rd_u16(r + 2 * i);
        break;
    case LUMP_EDGES:
        for (int i = 0; i < n; i++) {
            dedge_t *e = &bsp->edges[first + i];
            if (q) {
                e->v[0] = (uint32_t)rd_i32(r + 8 * i);
                e->v[1] = (uint32_t)rd_i32(r + 8 * i + 4);
            } else {
                e->v[0] = rd_u16(r + 4 * i);
                e->v[1] = rd_u16(r + 4 * i + 2);
            }
        }
        break;
    case LUMP_SURFEDGES:
        for (int i = 0; i < n; i++) bsp->surfedges[first + i] = rd_i32(r + 4 * i);
        break;
    case LUMP_MODELS: read_models(r, n, bsp->models + first); break;
    case LUMP_BRUSHES:
        for (int i = 0; i < n; i++) {
            dbrush_t *b = &bsp->brushes[first + i];
            b->firstside = rd_i32(r + 12 * i);
            b->numsides = rd_i32(r + 12 * i + 4);
            b->contents = rd_i32(r + 12 * i + 8);
        }
        break;
    case LUMP_BRUSHSIDES:
        for (int i = 0; i < n; i++) {
            dbrushside_t *sd = &bsp->brushsides[first + i];
            if (q) {
                sd->planenum = (uint32_t)rd_i32(r + 8 * i);
                sd->texinfo = rd_i32(r + 8 * i + 4);
            } else {
                sd->planenum = rd_u16(r + 4 * i);
                sd->texinfo = rd_i16(r + 4 * i + 2);
            }
        }
        break;
    case LUMP_POP: memcpy(bsp->pop + first, r, (size_t)n); break;
    case LUMP_AREAS:
        for (int i = 0; i < n; i++) {
            bsp->areas[first + i].numareaportals = rd_i32(r + 8 * i);
            bsp->areas[first + i].firstareaportal = rd_i32(r + 8 * i + 4);
        }
        break;
    case LUMP_AREAPORTALS:
        for (int i = 0; i < n; i++) {
            bsp->areaportals[first + i].portalnum = rd_i32(r + 8 * i);
            bsp->areaportals[first + i].otherarea = rd_i32(r + 8 * i + 4);
        }
        break;
    }
}

/* A piece of the decoding: records [first, first + n) of one lump; pieces
 * of up to this many input bytes, so a large lump spreads over threads. */
#define BSP_READ_PIECE 32768

typedef struct read_piece_t {
    int lump, first, n;
} read_piece_t;

bool bsp_read_memory_threads(const uint8_t *data, size_t size, const char *name, bsp_t *bsp, dist_t *dist, int threads,
                             q2err_t *err)
{
    bsp_init(bsp);
    if (size < BSP_HEADER_SIZE)
        return q2err_set(err, name, 0, 0, "truncated: %zu bytes, a .bsp header needs %d", size, BSP_HEADER_SIZE);
    int32_t ident = rd_i32(data);
    if (ident != BSP_IDENT && ident != QBSP_IDENT)
        return q2err_set(err, name, 0, 0, "not a Quake 2 .bsp (ident is not IBSP or QBSP)");
    const bsp_format_t format = ident == QBSP_IDENT ? BSP_FORMAT_QBSP : BSP_FORMAT_IBSP;
    const bool q = format == BSP_FORMAT_QBSP;
    bsp->format = format;
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
        if (len[l] % bsp_record_size(format, l) != 0)
            return q2err_set(err, name, 0, 0, "lump %s has length %lld, not a multiple of its %d-byte %s records",
                             bsp_lump_names[l], (long long)len[l], bsp_record_size(format, l),
                             bsp_format_name(format));
        if (len[l] > 0 && (size_t)(ofs[l] + len[l]) > end) end = (size_t)(ofs[l] + len[l]);
    }

#define COUNT(l) ((int)(len[l] / bsp_record_size(format, l)))
    /* Every array first (calloc: zero padding, and fresh pages cost nothing
     * until their piece touches them), then the pieces, which write
     * disjoint records. */
    bsp->entities_size = (int)len[LUMP_ENTITIES];
    bsp->entities = q2_malloc((size_t)bsp->entities_size + 1);
    bsp->entities[bsp->entities_size] = 0;
    bsp->numplanes = COUNT(LUMP_PLANES);
    bsp->planes = q2_calloc((size_t)bsp->numplanes, sizeof *bsp->planes);
    bsp->numvertexes = COUNT(LUMP_VERTEXES);
    bsp->vertexes = q2_calloc((size_t)bsp->numvertexes, sizeof *bsp->vertexes);
    bsp->visdatasize = (int)len[LUMP_VISIBILITY];
    bsp->visdata = q2_malloc((size_t)bsp->visdatasize);
    bsp->numnodes = COUNT(LUMP_NODES);
    bsp->nodes = q2_calloc((size_t)bsp->numnodes, sizeof *bsp->nodes);
    bsp->numtexinfo = COUNT(LUMP_TEXINFO);
    bsp->texinfo = q2_calloc((size_t)bsp->numtexinfo, sizeof *bsp->texinfo);
    bsp->numfaces = COUNT(LUMP_FACES);
    bsp->faces = q2_calloc((size_t)bsp->numfaces, sizeof *bsp->faces);
    bsp->lightdatasize = (int)len[LUMP_LIGHTING];
    bsp->lightdata = q2_malloc((size_t)bsp->lightdatasize);
    bsp->numleafs = COUNT(LUMP_LEAFS);
    bsp->leafs = q2_calloc((size_t)bsp->numleafs, sizeof *bsp->leafs);
    bsp->numleaffaces = COUNT(LUMP_LEAFFACES);
    bsp->leaffaces = q2_calloc((size_t)bsp->numleaffaces, sizeof *bsp->leaffaces);
    bsp->numleafbrushes = COUNT(LUMP_LEAFBRUSHES);
    bsp->leafbrushes = q2_calloc((size_t)bsp->numleafbrushes, sizeof *bsp->leafbrushes);
    bsp->numedges = COUNT(LUMP_EDGES);
    bsp->edges = q2_calloc((size_t)bsp->numedges, sizeof *bsp->edges);
    bsp->numsurfedges = COUNT(LUMP_SURFEDGES);
    bsp->surfedges = q2_calloc((size_t)bsp->numsurfedges, sizeof *bsp->surfedges);
    bsp->nummodels = COUNT(LUMP_MODELS);
    bsp->models = q2_calloc((size_t)bsp->nummodels, sizeof *bsp->models);
    bsp->numbrushes = COUNT(LUMP_BRUSHES);
    bsp->brushes = q2_calloc((size_t)bsp->numbrushes, sizeof *bsp->brushes);
    bsp->numbrushsides = COUNT(LUMP_BRUSHSIDES);
    bsp->brushsides = q2_calloc((size_t)bsp->numbrushsides, sizeof *bsp->brushsides);
    bsp->popsize = (int)len[LUMP_POP];
    bsp->pop = q2_malloc((size_t)bsp->popsize);
    bsp->numareas = COUNT(LUMP_AREAS);
    bsp->areas = q2_calloc((size_t)bsp->numareas, sizeof *bsp->areas);
    bsp->numareaportals = COUNT(LUMP_AREAPORTALS);
    bsp->areaportals = q2_calloc((size_t)bsp->numareaportals, sizeof *bsp->areaportals);

    /* Lumps are 4-byte aligned, so up to 3 bytes of padding after the last
     * one are not "extra" data. */
    size_t aligned_end = (end + 3) & ~(size_t)3;
    if (aligned_end < size) {
        bsp->extra_offset = aligned_end;
        bsp->extrasize = size - aligned_end;
        bsp->extra = q2_malloc(bsp->extrasize);
    }

    int npieces = 0;
    for (int l = 0; l < HEADER_LUMPS; l++) {
        int per = BSP_READ_PIECE / bsp_record_size(format, l);
        npieces += (COUNT(l) + per - 1) / per;
    }
    read_piece_t *pieces = q2_malloc(sizeof *pieces * (size_t)(npieces + 1));
    npieces = 0;
    for (int l = 0; l < HEADER_LUMPS; l++) {
        int per = BSP_READ_PIECE / bsp_record_size(format, l), n = COUNT(l);
        for (int first = 0; first < n; first += per)
            pieces[npieces++] = (read_piece_t){l, first, n - first < per ? n - first : per};
    }
    /* the extra data, if any, is the last piece */
    int items = npieces + (bsp->extrasize > 0);
    if (!dist && threads <= 1) {
        for (int i = 0; i < npieces; i++) read_range(bsp, pieces[i].lump, data + ofs[pieces[i].lump], q, pieces[i].first, pieces[i].n);
        if (bsp->extrasize > 0) memcpy(bsp->extra, data + aligned_end, bsp->extrasize);
    } else {
        dist_local_t *lt = dist_local_begin(dist, items);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads > 0 ? threads : 1)
        for (int i = 0; i < items; i++) {
            double t0 = dist_local_start(lt);
            if (i < npieces) read_range(bsp, pieces[i].lump, data + ofs[pieces[i].lump], q, pieces[i].first, pieces[i].n);
            else memcpy(bsp->extra, data + aligned_end, bsp->extrasize);
            dist_local_done(lt, i, t0);
        }
        dist_local_end(lt);
    }
    free(pieces);
#undef COUNT
    return true;
}

bool bsp_read_memory(const uint8_t *data, size_t size, const char *name, bsp_t *bsp, q2err_t *err)
{
    return bsp_read_memory_threads(data, size, name, bsp, NULL, 1, err);
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

/* The MAX_MAP_* counts of each format: IBSP's from id's qfiles.h, QBSP's
 * from q2tools-220's qfiles.h (*_QBSP). Areas and areaportals are the same
 * in both: area bits travel in the network protocol. */
typedef struct limit_row_t {
    const char *name;
    long long ibsp, qbsp;
} limit_row_t;

enum {
    LIM_ENTSTRING, LIM_ENTITIES, LIM_PLANES, LIM_VERTS, LIM_VISIBILITY, LIM_NODES, LIM_TEXINFO, LIM_FACES,
    LIM_LIGHTING, LIM_LEAFS, LIM_LEAFFACES, LIM_LEAFBRUSHES, LIM_EDGES, LIM_SURFEDGES, LIM_MODELS, LIM_BRUSHES,
    LIM_BRUSHSIDES, LIM_AREAS, LIM_AREAPORTALS, LIM_COUNT
};

static const limit_row_t limit_rows[LIM_COUNT] = {
    {"MAX_MAP_ENTSTRING", MAX_MAP_ENTSTRING, 13631488},
    {"MAX_MAP_ENTITIES", MAX_MAP_ENTITIES, 131072},
    {"MAX_MAP_PLANES", MAX_MAP_PLANES, 1048576},
    {"MAX_MAP_VERTS", MAX_MAP_VERTS, 4194304},
    {"MAX_MAP_VISIBILITY", MAX_MAP_VISIBILITY, 0x8000000},
    {"MAX_MAP_NODES", MAX_MAP_NODES, 1048576},
    {"MAX_MAP_TEXINFO", MAX_MAP_TEXINFO, 1048576},
    {"MAX_MAP_FACES", MAX_MAP_FACES, 1048576},
    {"MAX_MAP_LIGHTING", MAX_MAP_LIGHTING, 54525952},
    {"MAX_MAP_LEAFS", MAX_MAP_LEAFS, 1048576},
    {"MAX_MAP_LEAFFACES", MAX_MAP_LEAFFACES, 1048576},
    {"MAX_MAP_LEAFBRUSHES", MAX_MAP_LEAFBRUSHES, 1048576},
    {"MAX_MAP_EDGES", MAX_MAP_EDGES, 1048576},
    {"MAX_MAP_SURFEDGES", MAX_MAP_SURFEDGES, 4194304},
    {"MAX_MAP_MODELS", MAX_MAP_MODELS, 131072},
    {"MAX_MAP_BRUSHES", MAX_MAP_BRUSHES, 1048576},
    {"MAX_MAP_BRUSHSIDES", MAX_MAP_BRUSHSIDES, 4194304},
    {"MAX_MAP_AREAS", MAX_MAP_AREAS, MAX_MAP_AREAS},
    {"MAX_MAP_AREAPORTALS", MAX_MAP_AREAPORTALS, MAX_MAP_AREAPORTALS},
};

static void add_excess(bsp_excess_t *out, int max, int *n, const char *name, long long count, long long limit)
{
    if (count <= limit) return;
    if (*n < max) out[*n] = (bsp_excess_t){name, count, limit};
    (*n)++;
}

/* A box whose max_abs_bound is at most 32767 (the limit it is held to),
 * without the floor and ceil: such boxes never raise the bound past the
 * limit, and only a bound past it is reported. NaNs go the long way. */
static bool box_fits_short(const float *mins, const float *maxs)
{
    for (int k = 0; k < 3; k++)
        if (!(mins[k] >= -32768.0f && maxs[k] <= 32767.0f)) return false;
    return true;
}

static double max_abs_bound(const float *mins, const float *maxs)
{
    double m = 0;
    for (int k = 0; k < 3; k++) {
        if (-floor(mins[k]) - 1 > m) m = -floor(mins[k]) - 1; /* -32768 fits */
        if (ceil(maxs[k]) > m) m = ceil(maxs[k]);
    }
    return m;
}

int bsp_format_excesses(const bsp_t *bsp, bsp_format_t format, bsp_excess_t *out, int max)
{
    const bool q = format == BSP_FORMAT_QBSP;
    /* MAX_MAP_LIGHTING is the size of id's tool buffer; engines that read
     * DECOUPLED_LM (Q2PRO, the re-release) have no such limit, and the finer
     * lightmaps need the room (enginelimits.c still warns for vanilla). */
    const long long lighting = bspx_has_lump(bsp, "DECOUPLED_LM") ? 0 : bsp->lightdatasize;
    const long long counts[LIM_COUNT] = {
        bsp->entities_size, count_entities(bsp), bsp->numplanes,   bsp->numvertexes,  bsp->visdatasize,
        bsp->numnodes,      bsp->numtexinfo,     bsp->numfaces,    lighting,           bsp->numleafs,
        bsp->numleaffaces,  bsp->numleafbrushes, bsp->numedges,    bsp->numsurfedges, bsp->nummodels,
        bsp->numbrushes,    bsp->numbrushsides,  bsp->numareas,    bsp->numareaportals,
    };
    int n = 0;
    for (int i = 0; i < LIM_COUNT; i++)
        add_excess(out, max, &n, limit_rows[i].name, counts[i], q ? limit_rows[i].qbsp : limit_rows[i].ibsp);
    if (q) return n;

    /* IBSP's 16-bit fields. Indices below the counts above fit once the
     * counts do; these are the values the counts do not bound. */
    long long numedges = 0, cluster = 0, nodefaces = 0, firstleafface = 0, bound = 0;
    for (int i = 0; i < bsp->numfaces; i++)
        if (bsp->faces[i].numedges > numedges) numedges = bsp->faces[i].numedges;
    for (int i = 0; i < bsp->numnodes; i++) {
        const dnode_t *d = &bsp->nodes[i];
        if ((long long)d->firstface > nodefaces) nodefaces = d->firstface;
        if ((long long)d->numfaces > nodefaces) nodefaces = d->numfaces;
        if (!box_fits_short(d->mins, d->maxs)) {
            double b = max_abs_bound(d->mins, d->maxs);
            if (b > bound) bound = (long long)b;
        }
    }
    for (int i = 0; i < bsp->numleafs; i++) {
        const dleaf_t *d = &bsp->leafs[i];
        if (d->cluster > cluster) cluster = d->cluster;
        if ((long long)d->firstleafface > firstleafface) firstleafface = d->firstleafface;
        if ((long long)d->firstleafbrush > firstleafface) firstleafface = d->firstleafbrush;
        if (!box_fits_short(d->mins, d->maxs)) {
            double b = max_abs_bound(d->mins, d->maxs);
            if (b > bound) bound = (long long)b;
        }
    }
    add_excess(out, max, &n, "16-bit face numedges", numedges, 32767);
    add_excess(out, max, &n, "16-bit leaf cluster", cluster, 32767);
    add_excess(out, max, &n, "16-bit node face index", nodefaces, 65535);
    add_excess(out, max, &n, "16-bit leaf list index", firstleafface, 65535);
    add_excess(out, max, &n, "16-bit node/leaf bounds", bound, 32767);
    return n;
}

bool bsp_check_limits(const bsp_t *bsp, q2err_t *err)
{
    bsp_excess_t e;
    if (bsp_format_excesses(bsp, bsp->format, &e, 1) == 0) return true;
    if (strncmp(e.name, "MAX_", 4) == 0)
        return q2err_set(err, NULL, 0, 0, "%s exceeded: %lld > %lld", e.name, e.count, e.limit);
    return q2err_set(err, NULL, 0, 0, "%s exceeded: %lld > %lld (%s format)", e.name, e.count, e.limit,
                     bsp_format_name(bsp->format));
}

/* IBSP's short bounds: mins round down, maxs up, both clamped to the
 * field (bsp_format_excesses reports values that do not fit). */
static int16_t short_floor(float v)
{
    double f = floor(v);
    return (int16_t)(f < -32768.0 ? -32768.0 : f > 32767.0 ? 32767.0 : f);
}

static int16_t short_ceil(float v)
{
    double f = ceil(v);
    return (int16_t)(f < -32768.0 ? -32768.0 : f > 32767.0 ? 32767.0 : f);
}

/* A lump's bytes as written: IBSP or QBSP records, or the raw bytes. */
static size_t lump_size(const bsp_t *bsp, int l)
{
    const size_t rs = (size_t)bsp_record_size(bsp->format, l);
    switch (l) {
    case LUMP_ENTITIES: return (size_t)bsp->entities_size;
    case LUMP_PLANES: return rs * (size_t)bsp->numplanes;
    case LUMP_VERTEXES: return rs * (size_t)bsp->numvertexes;
    case LUMP_VISIBILITY: return (size_t)bsp->visdatasize;
    case LUMP_NODES: return rs * (size_t)bsp->numnodes;
    case LUMP_TEXINFO: return rs * (size_t)bsp->numtexinfo;
    case LUMP_FACES: return rs * (size_t)bsp->numfaces;
    case LUMP_LIGHTING: return (size_t)bsp->lightdatasize;
    case LUMP_LEAFS: return rs * (size_t)bsp->numleafs;
    case LUMP_LEAFFACES: return rs * (size_t)bsp->numleaffaces;
    case LUMP_LEAFBRUSHES: return rs * (size_t)bsp->numleafbrushes;
    case LUMP_EDGES: return rs * (size_t)bsp->numedges;
    case LUMP_SURFEDGES: return rs * (size_t)bsp->numsurfedges;
    case LUMP_MODELS: return rs * (size_t)bsp->nummodels;
    case LUMP_BRUSHES: return rs * (size_t)bsp->numbrushes;
    case LUMP_BRUSHSIDES: return rs * (size_t)bsp->numbrushsides;
    case LUMP_POP: return (size_t)bsp->popsize;
    case LUMP_AREAS: return rs * (size_t)bsp->numareas;
    case LUMP_AREAPORTALS: return rs * (size_t)bsp->numareaportals;
    }
    return 0;
}

/* The lumps written as they are in memory (the file can take them from
 * there without a copy); NULL for the others. */
static const uint8_t *lump_raw(const bsp_t *bsp, int l)
{
    switch (l) {
    case LUMP_ENTITIES: return (const uint8_t *)bsp->entities;
    case LUMP_VISIBILITY: return bsp->visdata;
    case LUMP_LIGHTING: return bsp->lightdata;
    case LUMP_POP: return bsp->pop;
    }
    return NULL;
}

/* Writes records [first, end) of lump l into the lump's bytes at base;
 * every byte of every record is set, so the buffer needs no zeroing. */
static void write_lump(const bsp_t *bsp, int l, uint8_t *base, int first, int end)
{
    const bool q = bsp->format == BSP_FORMAT_QBSP;
    const size_t rs = (size_t)bsp_record_size(bsp->format, l);
    const uint8_t *raw = lump_raw(bsp, l);
    if (raw) {
        if (end > first) memcpy(base + first, raw + first, (size_t)(end - first));
        return;
    }
    uint8_t *p = base + rs * (size_t)first;
    switch (l) {
    case LUMP_PLANES:
        for (int i = first; i < end; i++, p += 20) {
            for (int k = 0; k < 3; k++) wr_f32(p + 4 * k, bsp->planes[i].normal[k]);
            wr_f32(p + 12, bsp->planes[i].dist);
            wr_i32(p + 16, bsp->planes[i].type);
        }
        break;
    case LUMP_VERTEXES:
        for (int i = first; i < end; i++, p += 12)
            for (int k = 0; k < 3; k++) wr_f32(p + 4 * k, bsp->vertexes[i].point[k]);
        break;
    case LUMP_NODES:
        for (int i = first; i < end; i++, p += rs) {
            const dnode_t *d = &bsp->nodes[i];
            wr_i32(p, d->planenum);
            wr_i32(p + 4, d->children[0]);
            wr_i32(p + 8, d->children[1]);
            if (q) {
                for (int k = 0; k < 3; k++) {
                    wr_f32(p + 12 + 4 * k, d->mins[k]);
                    wr_f32(p + 24 + 4 * k, d->maxs[k]);
                }
                wr_i32(p + 36, (int32_t)d->firstface);
                wr_i32(p + 40, (int32_t)d->numfaces);
            } else {
                for (int k = 0; k < 3; k++) {
                    wr_i16(p + 12 + 2 * k, short_floor(d->mins[k]));
                    wr_i16(p + 18 + 2 * k, short_ceil(d->maxs[k]));
                }
                wr_u16(p + 24, (uint16_t)d->firstface);
                wr_u16(p + 26, (uint16_t)d->numfaces);
            }
        }
        break;
    case LUMP_TEXINFO:
        for (int i = first; i < end; i++, p += 76) {
            const dtexinfo_t *t = &bsp->texinfo[i];
            for (int s = 0; s < 2; s++)
                for (int k = 0; k < 4; k++) wr_f32(p + 16 * s + 4 * k, t->vecs[s][k]);
            wr_i32(p + 32, t->flags);
            wr_i32(p + 36, t->value);
            /* Copy up to the NUL; the bytes after it are zero so output
             * does not depend on stale memory. */
            size_t tl = strnlen(t->texture, 32);
            memcpy(p + 40, t->texture, tl);
            memset(p + 40 + tl, 0, 32 - tl);
            wr_i32(p + 72, t->nexttexinfo);
        }
        break;
    case LUMP_FACES:
        for (int i = first; i < end; i++, p += rs) {
            const dface_t *f = &bsp->faces[i];
            if (q) {
                wr_i32(p, (int32_t)f->planenum);
                wr_i32(p + 4, f->side);
                wr_i32(p + 8, f->firstedge);
                wr_i32(p + 12, f->numedges);
                wr_i32(p + 16, f->texinfo);
                memcpy(p + 20, f->styles, 4);
                wr_i32(p + 24, f->lightofs);
            } else {
                wr_u16(p, (uint16_t)f->planenum);
                wr_i16(p + 2, (int16_t)f->side);
                wr_i32(p + 4, f->firstedge);
                wr_i16(p + 8, (int16_t)f->numedges);
                wr_i16(p + 10, (int16_t)f->texinfo);
                memcpy(p + 12, f->styles, 4);
                wr_i32(p + 16, f->lightofs);
            }
        }
        break;
    case LUMP_LEAFS:
        for (int i = first; i < end; i++, p += rs) {
            const dleaf_t *d = &bsp->leafs[i];
            wr_i32(p, d->contents);
            if (q) {
                wr_i32(p + 4, d->cluster);
                wr_i32(p + 8, d->area);
                for (int k = 0; k < 3; k++) {
                    wr_f32(p + 12 + 4 * k, d->mins[k]);
                    wr_f32(p + 24 + 4 * k, d->maxs[k]);
                }
                wr_i32(p + 36, (int32_t)d->firstleafface);
                wr_i32(p + 40, (int32_t)d->numleaffaces);
                wr_i32(p + 44, (int32_t)d->firstleafbrush);
                wr_i32(p + 48, (int32_t)d->numleafbrushes);
            } else {
                wr_i16(p + 4, (int16_t)d->cluster);
                wr_i16(p + 6, (int16_t)d->area);
                for (int k = 0; k < 3; k++) {
                    wr_i16(p + 8 + 2 * k, short_floor(d->mins[k]));
                    wr_i16(p + 14 + 2 * k, short_ceil(d->maxs[k]));
                }
                wr_u16(p + 20, (uint16_t)d->firstleafface);
                wr_u16(p + 22, (uint16_t)d->numleaffaces);
                wr_u16(p + 24, (uint16_t)d->firstleafbrush);
                wr_u16(p + 26, (uint16_t)d->numleafbrushes);
            }
        }
        break;
    case LUMP_LEAFFACES:
        for (int i = first; i < end; i++) {
            if (q) wr_i32(base + 4 * i, (int32_t)bsp->leaffaces[i]);
            else wr_u16(base + 2 * i, (uint16_t)bsp->leaffaces[i]);
        }
        break;
    case LUMP_LEAFBRUSHES:
        for (int i = first; i < end; i++) {
            if (q) wr_i32(base + 4 * i, (int32_t)bsp->leafbrushes[i]);
            else wr_u16(base + 2 * i, (uint16_t)bsp->leafbrushes[i]);
        }
        break;
    case LUMP_EDGES:
        for (int i = first; i < end; i++) {
            if (q) {
                wr_i32(base + 8 * i, (int32_t)bsp->edges[i].v[0]);
                wr_i32(base + 8 * i + 4, (int32_t)bsp->edges[i].v[1]);
            } else {
                wr_u16(base + 4 * i, (uint16_t)bsp->edges[i].v[0]);
                wr_u16(base + 4 * i + 2, (uint16_t)bsp->edges[i].v[1]);
            }
        }
        break;
    case LUMP_SURFEDGES:
        for (int i = first; i < end; i++) wr_i32(base + 4 * i, bsp->surfedges[i]);
        break;
    case LUMP_MODELS:
        for (int i = first; i < end; i++, p += 48) {
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
        for (int i = first; i < end; i++) {
            wr_i32(base + 12 * i, bsp->brushes[i].firstside);
            wr_i32(base + 12 * i + 4, bsp->brushes[i].numsides);
            wr_i32(base + 12 * i + 8, bsp->brushes[i].contents);
        }
        break;
    case LUMP_BRUSHSIDES:
        for (int i = first; i < end; i++) {
            if (q) {
                wr_i32(base + 8 * i, (int32_t)bsp->brushsides[i].planenum);
                wr_i32(base + 8 * i + 4, bsp->brushsides[i].texinfo);
            } else {
                wr_u16(base + 4 * i, (uint16_t)bsp->brushsides[i].planenum);
                wr_i16(base + 4 * i + 2, (int16_t)bsp->brushsides[i].texinfo);
            }
        }
        break;
    case LUMP_AREAS:
        for (int i = first; i < end; i++) {
            wr_i32(base + 8 * i, bsp->areas[i].numareaportals);
            wr_i32(base + 8 * i + 4, bsp->areas[i].firstareaportal);
        }
        break;
    case LUMP_AREAPORTALS:
        for (int i = first; i < end; i++) {
            wr_i32(base + 8 * i, bsp->areaportals[i].portalnum);
            wr_i32(base + 8 * i + 4, bsp->areaportals[i].otherarea);
        }
        break;
    }
}

/* Where each part of the file goes: the header, the lumps in write_order
 * each padded to 4 bytes, then the extra data (BSPX); indexed by position
 * in write_order. */
typedef struct layout_t {
    const int *order; /* write_order or write_order_bspx */
    size_t ofs[HEADER_LUMPS], size[HEADER_LUMPS], pad[HEADER_LUMPS];
    size_t extra_ofs, total;
} layout_t;

static void plan_layout(const bsp_t *bsp, layout_t *lo, uint8_t *header)
{
    memset(header, 0, BSP_HEADER_SIZE);
    /* ericw-tools' 160-byte header for both idents (q2tools-220 writes 16
     * more zero bytes before the first lump, which readers skip). */
    wr_i32(header, bsp->format == BSP_FORMAT_QBSP ? QBSP_IDENT : BSP_IDENT);
    wr_i32(header + 4, BSP_VERSION);
    lo->order = bsp->extrasize > 0 && bsp->popsize > 0 ? write_order_bspx : write_order;
    size_t at = BSP_HEADER_SIZE;
    for (int i = 0; i < HEADER_LUMPS; i++) {
        int l = lo->order[i];
        size_t sz = lump_size(bsp, l);
        lo->ofs[i] = at;
        lo->size[i] = sz;
        wr_i32(header + 8 + 8 * l, sz ? (int32_t)at : 0);
        wr_i32(header + 12 + 8 * l, (int32_t)sz);
        at += sz;
        lo->pad[i] = (4 - (at & 3)) & 3;
        at += lo->pad[i];
    }
    lo->extra_ofs = at;
    lo->total = at + (bsp->extrasize > 0 ? bsp->extrasize : 0);
}

/* The extra data at its new offset: a BSPX directory holds absolute file
 * offsets, moved by the distance the block moved. */
static void write_extra(const bsp_t *bsp, size_t at, uint8_t *p)
{
    memcpy(p, bsp->extra, bsp->extrasize);
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

/* Records in lump l as written. */
static int lump_records(const bsp_t *bsp, int l) { return (int)(lump_size(bsp, l) / (size_t)bsp_record_size(bsp->format, l)); }

bool bsp_write_memory(const bsp_t *bsp, uint8_t **data, size_t *size, q2err_t *err)
{
    (void)err;
    layout_t lo;
    uint8_t header[BSP_HEADER_SIZE];
    plan_layout(bsp, &lo, header);
    /* one buffer of the exact size: no growing, no zeroing but the pads */
    uint8_t *out = q2_malloc(lo.total);
    memcpy(out, header, BSP_HEADER_SIZE);
    for (int i = 0; i < HEADER_LUMPS; i++) {
        write_lump(bsp, lo.order[i], out + lo.ofs[i], 0, lump_records(bsp, lo.order[i]));
        memset(out + lo.ofs[i] + lo.size[i], 0, lo.pad[i]);
    }
    if (bsp->extrasize > 0) write_extra(bsp, lo.extra_ofs, out + lo.extra_ofs);
    *data = out;
    *size = lo.total;
    return true;
}

/* A piece of the encoding: records [first, end) of one lump, written at
 * base (the lump's start in the buffer). */
typedef struct write_piece_t {
    int lump, first, end;
    uint8_t *base;
} write_piece_t;

bool bsp_write_file_threads(const char *path, const bsp_t *bsp, dist_t *dist, int threads, q2err_t *err)
{
    if (!bsp_check_limits(bsp, err)) return q2err_wrap(err, "%s: not written", path);
    layout_t lo;
    uint8_t header[BSP_HEADER_SIZE];
    plan_layout(bsp, &lo, header);
    /* The converted lumps go into one buffer, in pieces of up to
     * BSP_READ_PIECE bytes on the threads; the raw ones (the lighting, the
     * visibility, the entities: half of a lit map) go to the file from
     * where they are, without a copy into fresh memory. */
    size_t conv = bsp->extrasize;
    int npieces = 0;
    for (int i = 0; i < HEADER_LUMPS; i++) {
        int l = lo.order[i], per = BSP_READ_PIECE / bsp_record_size(bsp->format, l);
        if (lump_raw(bsp, l)) continue;
        conv += lo.size[i];
        npieces += (lump_records(bsp, l) + per - 1) / per;
    }
    uint8_t *buf = q2_malloc(conv > 0 ? conv : 1);
    write_piece_t *pieces = q2_malloc(sizeof *pieces * (size_t)(npieces + 1));
    static const uint8_t zeros[4] = {0, 0, 0, 0};
    file_part_t parts[2 * HEADER_LUMPS + 2];
    int np = 0;
    parts[np++] = (file_part_t){header, BSP_HEADER_SIZE};
    size_t used = 0;
    npieces = 0;
    for (int i = 0; i < HEADER_LUMPS; i++) {
        int l = lo.order[i];
        const void *raw = lump_raw(bsp, l);
        if (raw) {
            parts[np++] = (file_part_t){raw, lo.size[i]};
        } else {
            int per = BSP_READ_PIECE / bsp_record_size(bsp->format, l), n = lump_records(bsp, l);
            for (int first = 0; first < n; first += per)
                pieces[npieces++] = (write_piece_t){l, first, n - first < per ? n : first + per, buf + used};
            parts[np++] = (file_part_t){buf + used, lo.size[i]};
            used += lo.size[i];
        }
        if (lo.pad[i]) parts[np++] = (file_part_t){zeros, lo.pad[i]};
    }
    if (bsp->extrasize > 0) {
        write_extra(bsp, lo.extra_ofs, buf + used);
        parts[np++] = (file_part_t){buf + used, bsp->extrasize};
    }
    if (!dist && threads <= 1) {
        for (int i = 0; i < npieces; i++) write_lump(bsp, pieces[i].lump, pieces[i].base, pieces[i].first, pieces[i].end);
    } else {
        dist_local_t *lt = dist_local_begin(dist, npieces);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads > 0 ? threads : 1)
        for (int i = 0; i < npieces; i++) {
            double t0 = dist_local_start(lt);
            write_lump(bsp, pieces[i].lump, pieces[i].base, pieces[i].first, pieces[i].end);
            dist_local_done(lt, i, t0);
        }
        dist_local_end(lt);
    }
    free(pieces);
    bool ok = file_write_atomic_parts(path, parts, np, err);
    free(buf);
    return ok;
}

bool bsp_write_file(const char *path, const bsp_t *bsp, q2err_t *err)
{
    return bsp_write_file_threads(path, bsp, NULL, 1, err);
}
