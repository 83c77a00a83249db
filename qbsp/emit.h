/* Private state shared by faces.c, tjunc.c, areas.c and writebsp.c (not
 * part of qbsp's stage interface). */
#ifndef Q2M_QBSP_EMIT_H
#define Q2M_QBSP_EMIT_H

#include "../common/mem.h"
#include "qbsp.h"

/* Texture-space tolerance of the T-junction search: a vertex closer than
 * this to a face edge (and not within it of either end) lies on the edge.
 * Same scale as ON_EPSILON, since vertices come from the same clipping. */
#define TJUNC_EPSILON ON_EPSILON
/* Output vertices within this of each other (per axis) are one vertex;
 * coordinates within it of an integer are snapped to the integer, so the
 * floats written are exact where the designer's grid was. */
#define WELD_EPSILON ON_EPSILON
/* Merging two faces drops a junction point that is closer than this to the
 * line through its neighbours, and refuses a merge that would make a corner
 * bend inward by more than this (qbsp3 uses 0.005). */
#define MERGE_EPSILON 0.005
/* An edge bevel plane is kept only when no brush vertex lies more than this
 * in front of it (qbsp3's value; brush vertices come from clipping). */
#define BEVEL_EPSILON 0.1

/* Face records carved from large blocks, with a list of every face made
 * (for freeing its winding). faces_make gives each thread its own while
 * the faces are made and merged, and hands theirs to the model's after. */
typedef struct face_alloc_t {
    face_t **faces;
    int numfaces, cap_faces;
    void **blocks;
    int numblocks, cap_blocks;
    size_t used; /* records taken from the last block */
} face_alloc_t;

face_t *face_alloc_new(face_alloc_t *fa);
/* Moves src's faces and blocks to dst; src is then empty. */
void face_alloc_adopt(face_alloc_t *dst, face_alloc_t *src);

typedef struct qbsp_emit_t {
    /* Vertex welding, across all models. */
    vec3_t *vpos;      /* exact positions, parallel to q->bsp.vertexes */
    int cap_vertexes;
    int *vhash_head, *vhash_next;
    bool vertex0_reserved; /* vertex 0 is a placeholder, never welded to */
    int vhash_size, cap_vhash_next;

    /* Every face_t allocated for the current model; freed after it is
     * written. */
    face_alloc_t fa;
    /* Their vertex number lists, carved likewise (emit_vertexnums). */
    int **vnum_blocks;
    int numvnum_blocks, cap_vnum_blocks;
    size_t vnum_block_used, vnum_block_size;

    /* Edge sharing within the current model. */
    int firstmodeledge;
    int *ehash_head, *ehash_next;
    int ehash_size, cap_ehash_next;
    const face_t **edgefaces; /* [2 * edge]: first and second user */
    int cap_edgefaces;

    int cap_nodes, cap_leafs, cap_leaffaces, cap_leafbrushes, cap_faces_out, cap_edges, cap_surfedges,
        cap_models, cap_brushes, cap_brushsides;

    /* Brush output numbers, assigned on first use. */
    bool brushes_numbered;
    int numbrushes_out;

    /* Areas: per entity, the areaportal number (0 none) and the two areas
     * it touches. */
    int *ent_portalnum;
    int (*ent_portalareas)[2];
    int numentities;
    int numareaportals; /* entities numbered 1..numareaportals */
    bool areas_done;
} qbsp_emit_t;

qbsp_emit_t *emit_get(qbsp_t *q);

/* A new face registered for freeing; outputnumber -1. */
face_t *emit_new_face(qbsp_t *q);

/* Room for n vertex numbers, freed with the model's faces (main thread
 * only, like emit_new_face). */
int *emit_vertexnums(qbsp_t *q, int n);

/* Index of the vertex at p, welding with an existing one unless noweld. */
int emit_vertex(qbsp_t *q, vec3_t p, bool noweld);

/* Frees every face registered for the current model and clears node and
 * portal references to them. */
void emit_free_faces(qbsp_t *q, tree_t *tree);

/* Final faces (neither merged nor split) are the ones written. */
static inline bool face_is_final(const face_t *f) { return !f->merged && !f->split[0] && !f->split[1]; }

#endif
