#include "engineaccept.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"

/* Offsets into the raw file; every rule here reads the bytes the engines
 * read, not our decoded bsp, so that a reader's own arithmetic (which lumps
 * it counts, how it rounds) is what decides. */
#define EA_LUMP_POP 16
#define EA_MAX_STYLES 4      /* MAX_LIGHTMAPS in Q2PRO */
#define EA_DECOUPLED_REC 40  /* DECOUPLED_LM_BYTES in Q2PRO */
#define EA_LG_NODE_BYTES 44  /* int32 point[3] + uint32 children[8] */
#define EA_LG_LEAF_BYTES 24  /* int32 mins[3] + size[3] */
#define EA_LG_NODES_AT 45    /* 3 floats, 3 ints, 3 floats, styles, root, numnodes */
#define EA_LG_LEAF (1u << 31)
#define EA_LG_OCCLUDED (1u << 30)
/* Q2PRO's GL renderer packs DECOUPLED_LM lightmaps into blocks of
 * 1 << (8 + 2) = 1024 luxels a side (gl_lightmap_bits unset; a GPU whose
 * largest texture is smaller lowers it) and drops a larger one with
 * "Bad lightmap extents" (src/refresh/surf.c, LM_BeginBuilding and
 * build_surface_light). */
#define EA_Q2PRO_DECOUPLED_BLOCK 1024

static uint32_t rd32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint32_t lump_ofs(const uint8_t *d, int i) { return rd32(d + 8 + 8 * i); }
static uint32_t lump_len(const uint8_t *d, int i) { return rd32(d + 12 + 8 * i); }

uint64_t engaccept_bspx_pos_q2pro(const uint8_t *data)
{
    /* Q2PRO src/common/bsp.c, BSP_Load: maxpos over bsp_lumps[], which has
     * every lump but POP; BSP_ParseExtensionHeader aligns it to 4. */
    uint64_t maxpos = 0;
    for (int i = 0; i < HEADER_LUMPS; i++) {
        if (i == EA_LUMP_POP) continue;
        uint64_t end = (uint64_t)lump_ofs(data, i) + lump_len(data, i);
        if (end > maxpos) maxpos = end;
    }
    return (maxpos + 3) & ~(uint64_t)3;
}

uint64_t engaccept_bspx_pos_all(const uint8_t *data)
{
    /* yquake2remaster src/client/refresh/files/maps.c, Mod_LoadBSPX, and
     * src/common/maps.c, Mod_HasBSPXHeader; ericw-tools common/bspfile.cc,
     * LoadBSPFile: the end of all 19 lumps, rounded up to 4. */
    uint64_t pos = 0;
    for (int i = 0; i < HEADER_LUMPS; i++) {
        uint64_t end = ((uint64_t)lump_ofs(data, i) + lump_len(data, i) + 3) & ~(uint64_t)3;
        if (end > pos) pos = end;
    }
    return pos;
}

typedef struct ea_t {
    const uint8_t *d;
    size_t n;
    const bsp_t *bsp;
    engaccept_report_fn report;
    void *ctx;
    int warnings;
} ea_t;

__attribute__((format(printf, 3, 4))) static void say(ea_t *e, engaccept_kind_t kind, const char *fmt, ...)
{
    if (kind == ENGACCEPT_WARNING) e->warnings++;
    if (!e->report) return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    e->report(e->ctx, kind, buf);
}

static bool block_at(const ea_t *e, uint64_t pos)
{
    return pos <= e->n && e->n - pos >= 8 && memcmp(e->d + pos, "BSPX", 4) == 0;
}

/* The BSPX block of the file, found where the bsp reader found it (the
 * 4-aligned end of the largest lump); false when there is none. */
static bool find_block(const ea_t *e, uint64_t *pos)
{
    if (e->bsp->extrasize < 8 || memcmp(e->bsp->extra, "BSPX", 4) != 0) return false;
    *pos = e->bsp->extra_offset;
    return block_at(e, *pos);
}

/* ---- LIGHTGRID_OCTREE as Q2PRO takes it ------------------------------ */

typedef struct cursor_t {
    const uint8_t *p;
    size_t n, at;
} cursor_t;

static bool cur_u32(cursor_t *c, uint32_t *v)
{
    if (c->n - c->at < 4) return false;
    *v = rd32(c->p + c->at);
    c->at += 4;
    return true;
}

static bool cur_u8(cursor_t *c, uint8_t *v)
{
    if (c->at >= c->n) return false;
    *v = c->p[c->at++];
    return true;
}

static bool cur_skip(cursor_t *c, uint64_t k)
{
    if (c->n - c->at < k) return false;
    c->at += (size_t)k;
    return true;
}

/* BSP_ParseLightgridHeader_: the header's counts and every sample's style
 * count; any of these off and Q2PRO prints "Bad LIGHTGRID_OCTREE header"
 * and loads no grid. Reads past the lump's end count as off here (Q2PRO's
 * sizebuf reads then return -1, which fails the next test). */
static const char *lightgrid_header_fault(const uint8_t *p, size_t n, uint32_t *numstyles, uint32_t *root,
                                          uint32_t *numnodes, uint32_t *numleafs)
{
    cursor_t c = {p, n, 0};
    uint8_t styles;
    if (!cur_skip(&c, 36) || !cur_u8(&c, &styles)) return "the header is cut short";
    if (styles == 0 || styles > EA_MAX_STYLES) return "its style count must be 1 to 4";
    *numstyles = styles;
    if (!cur_u32(&c, root) || !cur_u32(&c, numnodes)) return "the header is cut short";
    if (*numnodes > (c.n - c.at) / EA_LG_NODE_BYTES) return "more nodes than the lump holds";
    c.at += (size_t)*numnodes * EA_LG_NODE_BYTES;
    if (!cur_u32(&c, numleafs)) return "the leaf count is cut short";
    /* `numleafs - 1 >= remaining / 24` on unsigned: no leafs fails too. */
    if (*numleafs == 0 || *numleafs - 1 >= (c.n - c.at) / EA_LG_LEAF_BYTES)
        return *numleafs == 0 ? "it has no leafs" : "more leafs than the lump holds";
    for (uint32_t i = 0; i < *numleafs; i++) {
        uint32_t x, y, z;
        if (!cur_skip(&c, 12) || !cur_u32(&c, &x) || !cur_u32(&c, &y) || !cur_u32(&c, &z))
            return "a leaf is cut short";
        uint32_t count = x * y * z; /* Q2PRO multiplies in uint32_t */
        while (count--) {
            uint8_t k;
            if (!cur_u8(&c, &k)) return "a leaf's samples are cut short";
            if (k == 255) continue;
            if (k > styles) return "a sample holds more styles than the header";
            if (!cur_skip(&c, 4u * k)) return "a leaf's samples are cut short";
        }
    }
    return NULL;
}

/* BSP_ValidateLightgrid_r from the root: a node index past the nodes, a leaf
 * index past the leafs, or a node reached twice ("Bad LIGHTGRID_OCTREE
 * structure"). An explicit stack instead of recursion: the links are the
 * file's, so their depth is too. */
static bool lightgrid_structure_ok(const uint8_t *p, uint32_t root, uint32_t numnodes, uint32_t numleafs)
{
    uint8_t *seen = q2_calloc(numnodes ? numnodes : 1, 1);
    uint32_t *stack = q2_malloc(sizeof *stack * ((size_t)numnodes * 8 + 1));
    size_t top = 0;
    bool ok = true;
    stack[top++] = root;
    while (top && ok) {
        uint32_t link = stack[--top];
        if (link & EA_LG_OCCLUDED) continue;
        if (link & EA_LG_LEAF) {
            ok = (link & ~EA_LG_LEAF) < numleafs;
            continue;
        }
        if (link >= numnodes || seen[link]) {
            ok = false;
            break;
        }
        seen[link] = 1;
        const uint8_t *node = p + EA_LG_NODES_AT + (size_t)link * EA_LG_NODE_BYTES;
        /* Children pushed last-first so they are visited in Q2PRO's order. */
        for (int k = 7; k >= 0; k--) stack[top++] = rd32(node + 12 + 4 * k);
    }
    free(stack);
    free(seen);
    return ok;
}

static void check_lightgrid(ea_t *e, const uint8_t *p, size_t n)
{
    uint32_t styles = 0, root = 0, nodes = 0, leafs = 0;
    const char *fault = lightgrid_header_fault(p, n, &styles, &root, &nodes, &leafs);
    if (fault) {
        say(e, ENGACCEPT_WARNING,
            "Q2PRO refuses the light grid (src/common/bsp.c, BSP_ParseLightgridHeader: \"Bad LIGHTGRID_OCTREE "
            "header\"): %s; models are lit from the floor instead",
            fault);
        return;
    }
    if (e->bsp->lightdatasize == 0) {
        say(e, ENGACCEPT_WARNING,
            "Q2PRO ignores the light grid of an unlit map (src/common/bsp.c, BSP_ParseLightgrid: \"Ignoring "
            "LIGHTGRID_OCTREE, map isn't lit\")");
        return;
    }
    if (!lightgrid_structure_ok(p, root, nodes, leafs))
        say(e, ENGACCEPT_WARNING,
            "Q2PRO refuses the light grid (src/common/bsp.c, BSP_ValidateLightgrid_r: \"Bad LIGHTGRID_OCTREE "
            "structure\"): a link from the root leads past the nodes or leafs, or reaches a node twice");
}

/* ---- DECOUPLED_LM as Q2PRO takes it ---------------------------------- */

static void check_decoupled(ea_t *e, const uint8_t *p, size_t n)
{
    const bsp_t *b = e->bsp;
    if (n % EA_DECOUPLED_REC) {
        say(e, ENGACCEPT_WARNING,
            "Q2PRO ignores DECOUPLED_LM (src/common/bsp.c, BSP_ParseDecoupledLM: \"DECOUPLED_LM lump has odd "
            "size\"): %zu bytes is not a multiple of %d",
            n, EA_DECOUPLED_REC);
        return;
    }
    if ((size_t)b->numfaces > n / EA_DECOUPLED_REC) {
        say(e, ENGACCEPT_WARNING,
            "Q2PRO ignores DECOUPLED_LM (src/common/bsp.c, BSP_ParseDecoupledLM: \"DECOUPLED_LM lump too "
            "short\"): %zu records for %d faces",
            n / EA_DECOUPLED_REC, b->numfaces);
        return;
    }
    int past = 0, big = 0, first_past = -1, first_big = -1, bw = 0, bh = 0;
    for (int i = 0; i < b->numfaces; i++) {
        const uint8_t *r = p + (size_t)i * EA_DECOUPLED_REC;
        int w = r[0] | r[1] << 8, h = r[2] | r[3] << 8;
        uint32_t ofs = rd32(r + 4);
        if (ofs == 0xffffffffu) continue;
        if (ofs >= (uint32_t)b->lightdatasize) {
            if (past++ == 0) first_past = i;
            continue;
        }
        if (w < 1 || h < 1 || w > EA_Q2PRO_DECOUPLED_BLOCK || h > EA_Q2PRO_DECOUPLED_BLOCK) {
            if (big++ == 0) first_big = i, bw = w, bh = h;
        }
    }
    if (past)
        say(e, ENGACCEPT_WARNING,
            "Q2PRO drops the decoupled lightmap of %d face%s (src/common/bsp.c, BSP_ParseDecoupledLM: "
            "\"DECOUPLED_LM lump possibly corrupted\"): the offset is past the lighting lump (first: face %d)",
            past, past == 1 ? "" : "s", first_past);
    if (big)
        say(e, ENGACCEPT_WARNING,
            "Q2PRO's GL renderer drops %d decoupled lightmap%s (src/refresh/surf.c, build_surface_light: \"Bad "
            "lightmap extents\"): sides must be 1 to %d luxels (first: face %d, %d x %d)",
            big, big == 1 ? "" : "s", EA_Q2PRO_DECOUPLED_BLOCK, first_big, bw, bh);
}

/* ---- the BSPX block --------------------------------------------------- */

static void check_bspx(ea_t *e)
{
    uint64_t at;
    if (!find_block(e, &at)) return;
    uint64_t q2pro = engaccept_bspx_pos_q2pro(e->d), all = engaccept_bspx_pos_all(e->d);
    bool q2pro_sees = q2pro == at, all_see = all == at;
    if (!q2pro_sees)
        say(e, ENGACCEPT_WARNING,
            "Q2PRO does not find the BSPX block (src/common/bsp.c, BSP_Load, BSP_ParseExtensionHeader: it looks "
            "at offset %llu, the end of every lump but POP; the block is at %llu%s): it uses none of its lumps",
            (unsigned long long)q2pro, (unsigned long long)at,
            lump_ofs(e->d, EA_LUMP_POP) + (uint64_t)lump_len(e->d, EA_LUMP_POP) > q2pro ? ", behind the POP lump"
                                                                                          : "");
    if (!all_see)
        say(e, ENGACCEPT_WARNING,
            "yquake2remaster and ericw-tools do not find the BSPX block (src/client/refresh/files/maps.c, "
            "Mod_LoadBSPX; common/bspfile.cc, LoadBSPFile: they look at offset %llu; the block is at %llu)",
            (unsigned long long)all, (unsigned long long)at);
    if (e->bsp->format == BSP_FORMAT_IBSP && all_see)
        say(e, ENGACCEPT_NOTE,
            "yquake2remaster reads an IBSP 38 file with a BSPX block as a re-release map (src/common/maps.c, "
            "Mod_HasBSPXHeader, Mod_Load2QBSP): it keeps SURF_NODRAW faces undrawn and does not remap the "
            "surface flags");

    /* The directory itself passed bspx_check; here only what an engine
     * takes of each entry. Q2PRO looks lumps up with strcmp and reads only
     * two of them. */
    uint32_t num = rd32(e->d + at + 4);
    for (uint32_t i = 0; i < num; i++) {
        const uint8_t *ent = e->d + at + 8 + (size_t)i * 32;
        char name[25];
        memcpy(name, ent, 24);
        name[24] = 0;
        uint32_t ofs = rd32(ent + 24), len = rd32(ent + 28);
        bool grid = !strcmp(name, "LIGHTGRID_OCTREE"), dec = !strcmp(name, "DECOUPLED_LM");
        if (!grid && !dec) continue;
        if (len == 0) {
            if (q2pro_sees)
                say(e, ENGACCEPT_WARNING,
                    "Q2PRO ignores the empty %s lump (src/common/bsp.c, BSP_ParseExtensionHeader: \"Ignoring "
                    "empty %s lump\")",
                    name, name);
            continue;
        }
        if ((uint64_t)ofs + len > e->n) continue; /* bspx_check refuses it */
        if (!q2pro_sees) continue;                /* said above: Q2PRO reads none */
        if (grid) check_lightgrid(e, e->d + ofs, len);
        else check_decoupled(e, e->d + ofs, len);
    }
}

/* ---- record sizes ----------------------------------------------------- */

/* Bytes per record of each lump as the engines divide them: Q2PRO's
 * bsp_lumps[] disksize (src/common/bsp.c) for IBSP and for QBSP, and
 * yquake2remaster's qbsplumps[] (src/common/maps.c; dqnode_t 44, dqface_t 28,
 * dqleaf_t 52, dqedge_t 8, dqbrushside_t 8 bytes), which are the same; POP
 * is read by neither (0). A lump whose size is not a multiple is refused
 * ("lump has odd size"): the engine does not load the map. */
static const int ea_ibsp_size[HEADER_LUMPS] = {1, 20, 12, 1, 28, 76, 20, 1, 28, 2, 2, 4, 4, 48, 12, 4, 0, 8, 8};
static const int ea_qbsp_size[HEADER_LUMPS] = {1, 20, 12, 1, 44, 76, 28, 1, 52, 4, 4, 8, 4, 48, 12, 8, 0, 8, 8};

static void check_record_sizes(ea_t *e)
{
    bool q = e->bsp->format == BSP_FORMAT_QBSP;
    const int *rs = q ? ea_qbsp_size : ea_ibsp_size;
    for (int l = 0; l < HEADER_LUMPS; l++) {
        if (!rs[l]) continue;
        uint32_t len = lump_len(e->d, l);
        if (len % (uint32_t)rs[l])
            say(e, ENGACCEPT_WARNING,
                "Q2PRO%s refuses the map: lump %d (%s) is %u bytes, not a multiple of its %d-byte %s record "
                "(src/common/bsp.c, BSP_Load: \"lump has odd size\"%s)",
                q ? " and yquake2remaster" : "", l, bsp_lump_names[l], len, rs[l], q ? "QBSP" : "IBSP",
                q ? "; src/common/maps.c, qbsplumps" : "");
    }
}

int engaccept_check(const uint8_t *data, size_t size, const bsp_t *bsp, engaccept_report_fn report, void *ctx)
{
    ea_t e = {data, size, bsp, report, ctx, 0};
    if (size < BSP_HEADER_SIZE) return 0;
    check_record_sizes(&e);
    check_bspx(&e);
    return e.warnings;
}
