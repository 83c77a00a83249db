/* qbsp's shared data: the compile context and the structures that flow
 * from stage to stage (map brushes -> bsp brushes -> tree -> portals ->
 * faces -> .bsp). One stage per file:
 *
 *   prepare.c   the parsed .map as meant: key warnings, TrenchBroom layers,
 *               external maps, regions, per-entity face flags
 *   load.c      .map -> entities, map brushes (planes, texinfo, contents)
 *   csg.c       overlapping brushes clipped by contents priority
 *   brushbsp.c  recursive partition into a tree of convex leaves
 *   portals.c   portals between leaves, flood from entities, fill outside,
 *               clusters, areas
 *   leak.c      leak path and pointfiles
 *   prtfile.c   the .prt file
 *   faces.c     faces from visible sides: merge, subdivide, T-junctions
 *   texinfo.c   texinfo table (dedup, animation chains)
 *   writebsp.c  nodes, leafs, faces, edges, brushes with bevels, models,
 *               areas, light styles, entities -> bsp_t
 *
 * No globals: every stage takes the qbsp_t context. Data flows one way; a
 * stage may read what earlier stages produced and adds its own results. */
#ifndef Q2M_QBSP_H
#define Q2M_QBSP_H

#include <stdbool.h>
#include <stdint.h>

#include "../common/log.h"
#include "../common/mathlib.h"
#include "../common/mem.h"
#include "../common/planes.h"
#include "../common/timer.h"
#include "../common/winding.h"
#include "../formats/bspfile.h"
#include "../formats/mapfile.h"
#include "../formats/textures.h"

/* winding_is_tiny with the same arithmetic in the same order, stopping as
 * soon as the running area reaches the threshold: every term is a length,
 * never negative, so the sum can only grow and the answer is the same
 * (NaN included: it compares false either way). Real windings stop at the
 * first triangle instead of taking a square root per point. */
static inline bool qbsp_winding_tiny(const winding_t *w)
{
    if (w->numpoints < 3) return true;
    const double limit = DEGENERATE_EPSILON * DEGENERATE_EPSILON;
    double total = 0;
    for (int i = 2; i < w->numpoints; i++) {
        vec3_t c = vec_cross(vec_sub(w->p[i - 1], w->p[0]), vec_sub(w->p[i], w->p[0]));
        total += 0.5 * vec_len(c);
        if (total >= limit) return false;
    }
    return total < limit;
}

typedef struct qbsp_options_t {
    int threads;          /* resolved thread count */
    int halves_min_nodes; /* portals.c makes the root's two halves at once from this many split nodes (0: its own
                             threshold; tests lower it) */
    double subdivide;     /* -chop: max texture-space face extent, default 240 */
    double micro;         /* -micro: brushes thinner than this are dropped */
    bool nocsg, noweld, noshare, notjunc, nowater, noprune, nomerge, nosubdiv;
    bool nodetail, fulldetail, nofill, onlyents, leaktest;
    bool onepass;         /* -onepass: no second tree weighing only the sides the first found visible */
    bool qbism;           /* -qbism: write the extended QBSP format whatever the map's size */
    bool noallowupgrade;  /* -noallowupgrade: a map past IBSP 38's limits is an error, not QBSP */
    bool strict;          /* -strict: engine-limit findings are errors; no .bsp is written */
    bool includeskip;     /* -includeskip: SURF_NODRAW faces are written (ericw-tools', for Q2RTX) */
    bool miststructural;  /* -nomistdetail: mist and aux brushes stay structural outside detail entities (qbsp3) */
    bool truncatetexnames; /* -truncatetexnames: names over 31 characters are cut with a warning (ericw-tools') */
    bool nodetailseal;    /* -nodetailseal: the entity flood passes detail solid, as in ericw-tools */
    const char *add_path; /* -add FILE: another .map whose entities are appended (its world brushes join ours) */
    const char *basedir, *gamedir;
    /* -path DIR (repeatable, ericw-tools' name): more directories (or
     * .pak/.pk3/.zip archives) of textures/ and .wal_json metadata,
     * searched before the game directories, the last given first. */
#define QBSP_MAX_PATHS 16
    const char *paths[QBSP_MAX_PATHS];
    int numpaths;
} qbsp_options_t;

/* A brush side after loading. */
typedef struct side_t {
    int planenum;      /* index into qbsp_t.planes */
    int texinfo;       /* index into qbsp_t.texinfo, -1 for none */
    winding_t *winding;
    struct side_t *original; /* the map brush side this came from */
    int contents;      /* from the face line / texture */
    int surf;          /* surface flags */
    bool visible;      /* touches empty space: makes a face */
    bool tested;       /* planenum already used as a splitter */
    bool bevel;        /* added for collision only, never makes a face */
    bool clip;         /* a clip brush's side not yet on a node: never drawn (texinfo -1), but split on
                          last so leaf contents follow the clip brush (brushbsp.c) */
} side_t;

typedef struct mapbrush_t {
    int entitynum;     /* entity index in the map */
    int brushnum;      /* brush index within that entity, for messages */
    int line;          /* source line of the brush */
    int contents;
    aabb_t bounds;
    int numsides;
    side_t *original_sides; /* numsides entries (bevels appended last) */
    int outputnumber;  /* index in the .bsp brushes lump */
    bool mirror_off;   /* no faces seen from inside: _mirrorinside 0, or by default windows, aux,
                          func_detail_fence and func_detail_illusionary (ericw-tools' Quake 2 defaults) */
    bool noclipfaces;  /* _noclipfaces 1: same-contents brushes of the entity keep the faces between them */
    bool nochop;       /* _chop 0: CSG leaves the brush whole */
    bool detail_wall;  /* func_detail_wall: world faces it covers are still drawn (faces.c) */
    int chop_order;    /* _chop_order: of two brushes that bite each other, the higher bites */
} mapbrush_t;

#define MAX_FACE_POINTS 64

typedef struct face_t {
    struct face_t *next;     /* in the node's face list */
    struct face_t *merged;   /* set when merged into another face */
    struct face_t *split[2]; /* set when subdivided */
    struct face_t *leafnext; /* in its leaf's list (node_t.leaffaces) */
    struct node_t *onnode;   /* faces_make: the node whose list it joins */
    /* The brush it is drawn from: its portal's _noclipfaces brush on its
     * side, else the brush of the side found for the portal; NULL for
     * none and for func_detail_wall's overdraw. */
    const struct mapbrush_t *brush;
    int texinfo;
    int planenum;
    int contents;            /* contents of the leaf in front */
    int outputnumber;        /* index in the .bsp faces lump, -1 if none */
    winding_t *w;
    int numpoints;
    int *vertexnums;         /* numpoints entries, from emit_vertexnums (freed with the faces) */
} face_t;

typedef struct bspbrush_t {
    struct bspbrush_t *next;
    aabb_t bounds;
    int side, testside;      /* side of the node's plane, for partitioning */
    mapbrush_t *original;
    int numsides;
    int maxsides;            /* room allocated for sides (brush_alloc) */
    side_t sides[];          /* flexible */
} bspbrush_t;

#define PLANENUM_LEAF -1

typedef struct node_t {
    /* Both nodes and leafs. */
    int planenum;            /* PLANENUM_LEAF for leafs; even planes only */
    struct node_t *parent;
    aabb_t bounds;
    bspbrush_t *volume;      /* the convex region of the node, as a brush */
    winding_t *portal_base;  /* the node's plane clipped to its region (brushbsp.c), where portals.c starts */

    /* Nodes. */
    side_t *side;            /* the side that created the node */
    struct node_t *children[2];
    face_t *faces;

    /* Leafs. */
    bspbrush_t *brushlist;   /* brushes (fragments) in the leaf */
    face_t *leaffaces;       /* the faces seen from the leaf, in its portals' order (faces_make) */
    int contents;
    int occupied;            /* flood distance from an entity, 0 = not reached */
    const map_entity_t *occupant;
    int occupant_index;      /* entity index of the occupant */
    bool detail_seperator;   /* a node on a detail plane: leafs below share a cluster */
    bool detail_fill;        /* a solid leaf filled by detail brushes only (-nodetailseal floods through it) */
    int cluster;             /* -1 for solid */
    int area;                /* 0 for none */
    struct portal_t *portals;

    int outputnumber;        /* index in the .bsp nodes or leafs lump */
} node_t;

/* _noclipfaces between two brushes of one visible contents: the portal's
 * face[s] is drawn from side[s], a side of brush[s] in the portal's
 * nodes[!s] (each brush shows its own face). Made for the few portals
 * that need it, so the other portals (hundreds of thousands) do not carry
 * four pointers each: on base1-test those cost 3 MB of peak memory. */
typedef struct noclip_pair_t {
    side_t *side[2];
    const mapbrush_t *brush[2];
} noclip_pair_t;

typedef struct portal_t {
    plane_t plane;
    node_t *onnode;          /* NULL for outside portals */
    node_t *nodes[2];        /* [0] front, [1] back */
    struct portal_t *next[2];
    winding_t *winding;
    side_t *side;            /* the visible side this portal makes a face for */
    const mapbrush_t *sidebrush; /* the brush of side */
    noclip_pair_t *noclip;   /* NULL but between _noclipfaces brushes; in the tree's portal pool */
    bool sidefound;
    signed char inside;      /* which node (0, 1) is inside sidebrush's contents; -1 unknown */
    int live_index;          /* in the tree's portal_store_t.live */
} portal_t;

/* The noclip side and brush a portal's face on side s is drawn from; NULL
 * for every portal but a _noclipfaces junction. */
static inline side_t *portal_noclip_side(const portal_t *p, int s) { return p->noclip ? p->noclip->side[s] : NULL; }
static inline const mapbrush_t *portal_noclip_brush(const portal_t *p, int s)
{
    return p->noclip ? p->noclip->brush[s] : NULL;
}

/* A tree's portals (portals.c): the memory of the portals, their windings
 * and noclip pairs, and the live portals listed in no particular order, for
 * the passes whose result does not depend on the order: in live, and in
 * more where the portal build made a half of the tree on another thread
 * (that half's own list, kept as it is: copying it into live cost up to
 * 6.6 ms of fresh pages on base1-test). While a list is grown its portals'
 * live_index is their place in it; once the tree's portals are made none
 * is freed alone, and live_index is not read. */
typedef struct portal_store_t {
    pool_t pool;
    struct portal_t **live, **more;
    int numlive, caplive, nummore;
} portal_store_t;

typedef struct tree_t {
    node_t *headnode;
    node_t outside_node;     /* the void */
    aabb_t bounds;
    portal_store_t portals;
} tree_t;

/* qbsp_t.ent_flags bits. */
/* ENT_MIRROR_OFF/ON: _mirrorinside 0/1 given; neither: the default by contents. */
enum { ENT_MIRROR_OFF = 1, ENT_NOCLIPFACES = 2, ENT_MIRROR_ON = 4, ENT_NOCHOP = 8 };

/* The compile context. Created by main, threaded through every stage. */
typedef struct qbsp_t {
    qbsp_options_t opt;
    log_t *log;
    stage_times_t *times;
    texdb_t *texdb;

    map_t map;               /* the parsed source */
    plane_table_t planes;

    mapbrush_t *mapbrushes;  /* all brushes of all entities, entity order */
    int nummapbrushes, cap_mapbrushes;
    /* brushes of entity e are mapbrushes[firstbrush[e] .. +numbrushes[e]] */
    int *ent_firstbrush, *ent_numbrushes;
    /* per entity: a brush entity of its own whose every brush was left out
     * (-nodetail/-omitdetail, -nowater, or invalid): it has no model, and
     * a game spawning it would stop on the missing model, so it is not
     * written (writebsp_entities) */
    bool *ent_emptied;
    vec3_t *ent_origin;      /* per entity, from "origin" or origin brushes */
    unsigned char *ent_flags; /* per entity, ENT_* from prepare.c */
    int *ent_chop_order;     /* per entity, _chop_order from prepare.c */
    /* groupkeys.c: per entity its keyset (0: none), NULL when no entity has
     * one; per output face its keyset. */
    int *ent_keyset;
    int numkeysets;
    uint16_t *face_keyset;
    int cap_face_keyset;
    /* MAP.groupkeys's bytes (groupkeys_write), NULL when no face has a
     * keyset: main writes the file beside the bsp, or removes a stale one. */
    uint8_t *groupkeys_file;
    size_t groupkeys_file_size;
    bool any_noclipfaces;    /* some entity has ENT_NOCLIPFACES */
    bool any_detail_wall;    /* some brush is a func_detail_wall brush */

    dtexinfo_t *texinfo;
    int numtexinfo, cap_texinfo;
    /* texinfo.c's lookup hash over q->texinfo (chained by index). */
    int *texinfo_hash_head, *texinfo_hash_next;
    int cap_texinfo_hash_next;

    bsp_t bsp;               /* the output being built */

    int leaked_entity;       /* entity index that reached the void, -1 if sealed */
    /* Private state of faces.c, tjunc.c, areas.c and writebsp.c (vertex and
     * edge hashes, areaportal numbers), created on first use; freed by
     * writebsp_free. */
    struct qbsp_emit_t *emit;
    int numclusters;
    int numareas;
} qbsp_t;

/* The file an entity came from (qbsp -add), for messages. */
static inline const char *qbsp_entity_path(const qbsp_t *q, int e)
{
    const char *s = q->map.entities[e].source;
    return s ? s : q->map.path;
}

#endif
