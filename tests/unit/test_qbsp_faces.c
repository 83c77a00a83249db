/* qbsp engineer 2's stages on hand-built inputs: face merging, lightmap
 * subdivision at luxel boundaries, T-junction repair and bsp emission of a
 * tiny hand-made tree (with brush bevels and areas). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "../../common/mem.h"
#include "../../formats/bspcheck.h"
#include "../../formats/lightmap.h"
#include "../../qbsp/areas.h"
#include "../../qbsp/emit.h"
#include "../../qbsp/faces.h"
#include "../../qbsp/writebsp.h"

static winding_t *quad(vec3_t a, vec3_t b, vec3_t c, vec3_t d)
{
    winding_t *w = winding_alloc(4);
    w->numpoints = 4;
    w->p[0] = a;
    w->p[1] = b;
    w->p[2] = c;
    w->p[3] = d;
    return w;
}

/* A z=0 floor rectangle seen from above (+z), clockwise from the front. */
static winding_t *floor_rect(double x0, double y0, double x1, double y1)
{
    return quad(vec3(x0, y0, 0), vec3(x0, y1, 0), vec3(x1, y1, 0), vec3(x1, y0, 0));
}

static void test_merge(void **state)
{
    (void)state;
    vec3_t up = vec3(0, 0, 1);
    winding_t *a = floor_rect(0, 0, 64, 64), *b = floor_rect(64, 0, 128, 64);
    winding_t *m = faces_try_merge_windings(a, b, up);
    assert_non_null(m);
    /* Collinear junction points are dropped: a rectangle again. */
    assert_int_equal(m->numpoints, 4);
    assert_float_equal(winding_area(m), 128.0 * 64.0, 1e-6);
    winding_free(m);

    /* An L shape is not convex: no merge. */
    winding_t *c = floor_rect(64, 0, 128, 32);
    assert_null(faces_try_merge_windings(a, c, up));
    /* Not sharing an edge: no merge. */
    winding_t *d = floor_rect(200, 0, 264, 64);
    assert_null(faces_try_merge_windings(a, d, up));
    /* A triangle completing a trapezoid keeps both corners. */
    winding_t *t = winding_alloc(3);
    t->numpoints = 3;
    t->p[0] = vec3(64, 0, 0);
    t->p[1] = vec3(64, 64, 0);
    t->p[2] = vec3(96, 0, 0);
    m = faces_try_merge_windings(a, t, up);
    assert_non_null(m);
    assert_int_equal(m->numpoints, 4);
    assert_float_equal(winding_area(m), 64.0 * 64.0 + 32.0 * 64.0 / 2, 1e-6);
    winding_free(m);
    winding_free(a);
    winding_free(b);
    winding_free(c);
    winding_free(d);
    winding_free(t);
}

/* Luxel count as an engine computes it in single precision. */
static int float_size(const winding_t *w, const dtexinfo_t *tex, int axis)
{
    float mn = 1e30f, mx = -1e30f;
    for (int k = 0; k < w->numpoints; k++) {
        float p[3] = {(float)w->p[k].x, (float)w->p[k].y, (float)w->p[k].z};
        float v = p[0] * tex->vecs[axis][0] + p[1] * tex->vecs[axis][1] + p[2] * tex->vecs[axis][2] +
                  tex->vecs[axis][3];
        if (v < mn) mn = v;
        if (v > mx) mx = v;
    }
    int bmin = (int)floorf(mn / 16.0f), bmax = (int)ceilf(mx / 16.0f);
    return bmax - bmin + 1;
}

static void test_subdivide_boundaries(void **state)
{
    (void)state;
    const double sizes[] = {16, 128, 224, 240, 241, 256, 257, 1000};
    const double offsets[] = {0, 0.5, 8, 15.5, 16, -0.5};
    const double scales[] = {0.5, 1, 2};
    const double rots[] = {0, 30, 45, 90};
    int cases = 0, split_cases = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (size_t oi = 0; oi < sizeof offsets / sizeof *offsets; oi++)
            for (size_t ci = 0; ci < sizeof scales / sizeof *scales; ci++)
                for (size_t ri = 0; ri < sizeof rots / sizeof *rots; ri++) {
                    double r = rots[ri] * M_PI / 180.0, sc = scales[ci];
                    dtexinfo_t tex;
                    memset(&tex, 0, sizeof tex);
                    tex.vecs[0][0] = (float)(cos(r) / sc);
                    tex.vecs[0][1] = (float)(sin(r) / sc);
                    tex.vecs[0][3] = (float)offsets[oi];
                    tex.vecs[1][0] = (float)(-sin(r) / sc);
                    tex.vecs[1][1] = (float)(cos(r) / sc);
                    tex.vecs[1][3] = (float)offsets[oi];
                    /* Face corners on the grid, the far one at `size`. */
                    double s = sizes[si];
                    winding_t *w = floor_rect(-8, 16, -8 + s, 16 + s);
                    winding_t **pieces;
                    int n = faces_subdivide_winding(w, &tex, 240, &pieces);
                    assert_true(n >= 1);
                    double area = 0;
                    for (int k = 0; k < n; k++) {
                        face_extents_t e;
                        double pts[64][3];
                        assert_true(pieces[k]->numpoints <= 64);
                        for (int j = 0; j < pieces[k]->numpoints; j++) {
                            pts[j][0] = pieces[k]->p[j].x;
                            pts[j][1] = pieces[k]->p[j].y;
                            pts[j][2] = pieces[k]->p[j].z;
                        }
                        lightmap_extents((const double(*)[3])pts, pieces[k]->numpoints, tex.vecs, &e);
                        assert_true(e.size[0] <= MAX_LIGHTMAP_DIM && e.size[1] <= MAX_LIGHTMAP_DIM);
                        assert_true(float_size(pieces[k], &tex, 0) <= MAX_LIGHTMAP_DIM);
                        assert_true(float_size(pieces[k], &tex, 1) <= MAX_LIGHTMAP_DIM);
                        assert_false(faces_needs_subdivide(pieces[k], &tex, 240, NULL));
                        area += winding_area(pieces[k]);
                        winding_free(pieces[k]);
                    }
                    /* The pieces tile the face. */
                    assert_float_equal(area, s * s, 1e-6 * s * s);
                    /* Small faces stay whole. */
                    if (s * (1.0 / sc) * 1.5 < 200) assert_int_equal(n, 1);
                    if (n > 1) split_cases++;
                    free(pieces);
                    winding_free(w);
                    cases++;
                }
    assert_true(split_cases > 0 && split_cases < cases);
}

static void test_subdivide_exact_256(void **state)
{
    (void)state;
    dtexinfo_t tex;
    memset(&tex, 0, sizeof tex);
    tex.vecs[0][0] = 1;
    tex.vecs[1][1] = 1;
    /* Exactly 256 texels between luxel boundaries is 17 luxels; with
     * integer vertices and an axial texture every float evaluation is
     * exact, so the face fits (chop aside). */
    winding_t *w = floor_rect(0, 0, 256, 64);
    assert_false(faces_needs_subdivide(w, &tex, 1000, NULL));
    int axis = -1;
    assert_true(faces_needs_subdivide(w, &tex, 240, &axis));
    assert_int_equal(axis, 0);
    winding_free(w);
    /* The same span from vertices that floats cannot hold (x = 0.1 ...)
     * and an offset bringing it onto the boundaries: an engine may round
     * either bound outward and see 18 luxels, so it must be split. */
    tex.vecs[0][3] = -0.1f;
    w = floor_rect(0.1, 0, 256.1, 64);
    assert_true(faces_needs_subdivide(w, &tex, 1000, &axis));
    assert_int_equal(axis, 0);
    winding_t **pieces;
    int n = faces_subdivide_winding(w, &tex, 1000, &pieces);
    assert_true(n >= 2);
    for (int k = 0; k < n; k++) {
        assert_true(float_size(pieces[k], &tex, 0) <= MAX_LIGHTMAP_DIM);
        winding_free(pieces[k]);
    }
    free(pieces);
    winding_free(w);
    /* 224 texels between boundaries is fine. */
    tex.vecs[0][3] = 0;
    w = floor_rect(16, 0, 240, 64);
    assert_false(faces_needs_subdivide(w, &tex, 240, NULL));
    winding_free(w);
}

/* --- Hand-built tree: one floor node between an empty and a solid leaf. */

typedef struct world_t {
    qbsp_t q;
    tree_t tree;
    node_t head, leaf_empty, leaf_solid;
    portal_t portal;
    side_t side;
    mapbrush_t brushes[2];
    side_t bsides[2][6];
    bspbrush_t *frag;
} world_t;

static void add_face(qbsp_t *q, node_t *node, winding_t *w, int texinfo, int planenum)
{
    face_t *f = emit_new_face(q);
    f->w = w;
    f->texinfo = texinfo;
    f->planenum = planenum;
    f->next = node->faces;
    node->faces = f;
}

static void world_init(world_t *wd)
{
    memset(wd, 0, sizeof *wd);
    qbsp_t *q = &wd->q;
    plane_table_init(&q->planes);
    q->opt.threads = 2;
    q->opt.subdivide = 240;
    q->texinfo = q2_calloc(1, sizeof *q->texinfo);
    q->numtexinfo = q->cap_texinfo = 1;
    q->texinfo[0].vecs[0][0] = 1;
    q->texinfo[0].vecs[1][1] = -1;
    strcpy(q->texinfo[0].texture, "e1u1/floor1_3");
    q->texinfo[0].nexttexinfo = -1;
    q->map.numentities = q->map.cap = 1;
    q->map.entities = q2_calloc(1, sizeof *q->map.entities);
    entity_set(&q->map.entities[0].ent, "classname", "worldspawn");
    q->map.path = q2_strdup("hand-made.map");
}

static void world_free(world_t *wd)
{
    qbsp_t *q = &wd->q;
    writebsp_free(q);
    bsp_free(&q->bsp);
    plane_table_free(&q->planes);
    free(q->texinfo);
    map_free(&q->map);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 6; j++) winding_free(wd->bsides[i][j].winding);
    free(wd->frag);
    winding_free(wd->portal.winding);
}

static void test_tjunctions(void **state)
{
    (void)state;
    world_t wd;
    world_init(&wd);
    qbsp_t *q = &wd.q;
    int pn = plane_table_find(&q->planes, vec3(0, 0, 1), 0);
    node_t *node = &wd.head;
    node->planenum = pn;
    node->children[0] = &wd.leaf_empty;
    node->children[1] = &wd.leaf_solid;
    wd.leaf_empty.planenum = wd.leaf_solid.planenum = PLANENUM_LEAF;
    wd.tree.headnode = node;
    /* One big face beside two small ones: (128,64) is a T-junction. */
    add_face(q, node, floor_rect(0, 0, 128, 128), 0, pn);
    add_face(q, node, floor_rect(128, 0, 192, 64), 0, pn);
    add_face(q, node, floor_rect(128, 64, 192, 128), 0, pn);
    writebsp_begin(q);
    faces_fix_tjunctions(q, &wd.tree);
    qbsp_emit_t *em = q->emit;
    int checked = 0;
    for (face_t *f = node->faces; f; f = f->next)
        for (face_t *g = node->faces; g; g = g->next) {
            if (f == g) continue;
            for (int k = 0; k < g->numpoints; k++) {
                vec3_t p = em->vpos[g->vertexnums[k]];
                for (int e = 0; e < f->numpoints; e++) {
                    vec3_t a = em->vpos[f->vertexnums[e]], b = em->vpos[f->vertexnums[(e + 1) % f->numpoints]];
                    double len;
                    vec3_t dir = vec_normalize(vec_sub(b, a), &len);
                    double t = vec_dot(vec_sub(p, a), dir);
                    vec3_t off = vec_sub(vec_sub(p, a), vec_scale(dir, t));
                    if (t > 0.1 && t < len - 0.1 && vec_len(off) < 0.01) {
                        bool found = false;
                        for (int j = 0; j < f->numpoints; j++)
                            if (f->vertexnums[j] == g->vertexnums[k]) found = true;
                        assert_true(found);
                        checked++;
                    }
                }
            }
        }
    /* The junction vertex was inserted, so the scan sees no interior hit. */
    assert_int_equal(checked, 0);
    int maxpts = 0;
    for (face_t *f = node->faces; f; f = f->next)
        if (f->numpoints > maxpts) maxpts = f->numpoints;
    assert_int_equal(maxpts, 5);
    /* Welding: 3 faces, 12 corners, 8 distinct points, plus vertex 0. */
    assert_int_equal(q->bsp.numvertexes, 1 + 8);
    emit_free_faces(q, &wd.tree);
    world_free(&wd);
}

static void make_box_brush(world_t *wd, int bi, vec3_t mins, vec3_t maxs, int contents)
{
    qbsp_t *q = &wd->q;
    mapbrush_t *b = &wd->brushes[bi];
    b->contents = contents;
    b->numsides = 6;
    b->original_sides = wd->bsides[bi];
    b->bounds.mins = mins;
    b->bounds.maxs = maxs;
    for (int a = 0; a < 3; a++)
        for (int d = 0; d < 2; d++) {
            vec3_t n = vec3(0, 0, 0);
            vec_set_comp(&n, a, d ? 1 : -1);
            double dist = d ? vec_comp(maxs, a) : -vec_comp(mins, a);
            side_t *s = &b->original_sides[a * 2 + d];
            s->planenum = plane_table_find(&q->planes, n, dist);
            s->texinfo = 0;
        }
}

static void test_writebsp_tiny_tree(void **state)
{
    (void)state;
    world_t wd;
    world_init(&wd);
    qbsp_t *q = &wd.q;
    /* A floor slab brush and a wedge (one sloped side). */
    q->mapbrushes = wd.brushes;
    q->nummapbrushes = 2;
    make_box_brush(&wd, 0, vec3(0, 0, -16), vec3(512, 512, 0), CONTENTS_SOLID);
    make_box_brush(&wd, 1, vec3(0, 0, 0), vec3(64, 64, 64), CONTENTS_SOLID);
    /* Replace the wedge's +x side with a 45 degree slope. */
    vec3_t sn = vec_normalize(vec3(1, 0, 1), NULL);
    wd.bsides[1][1].planenum = plane_table_find(&q->planes, sn, vec_dot(sn, vec3(64, 0, 0)));
    int first = 0, numb = 2;
    q->ent_firstbrush = &first;
    q->ent_numbrushes = &numb;

    int pn = plane_table_find(&q->planes, vec3(0, 0, 1), 0);
    assert_int_equal(pn & 1, 0);
    node_t *node = &wd.head;
    node->planenum = pn;
    node->children[0] = &wd.leaf_empty;
    node->children[1] = &wd.leaf_solid;
    node->bounds = (aabb_t){vec3(0, 0, -16), vec3(512, 512, 64)};
    wd.leaf_empty.planenum = wd.leaf_solid.planenum = PLANENUM_LEAF;
    wd.leaf_empty.contents = 0;
    wd.leaf_empty.occupied = 1;
    wd.leaf_empty.cluster = 0;
    wd.leaf_empty.bounds = (aabb_t){vec3(0, 0, 0), vec3(512, 512, 64)};
    wd.leaf_solid.contents = CONTENTS_SOLID;
    wd.leaf_solid.cluster = -1;
    wd.leaf_solid.bounds = (aabb_t){vec3(0, 0, -16), vec3(512, 512, 0)};
    wd.frag = q2_calloc(1, sizeof(bspbrush_t));
    wd.frag->original = &wd.brushes[0];
    wd.leaf_solid.brushlist = wd.frag;
    wd.tree.headnode = node;
    /* The portal between the leafs carries the visible floor side. */
    portal_t *p = &wd.portal;
    p->onnode = node;
    p->nodes[0] = &wd.leaf_empty;
    p->nodes[1] = &wd.leaf_solid;
    p->winding = floor_rect(0, 0, 512, 512);
    wd.side.planenum = pn;
    wd.side.texinfo = 0;
    p->side = &wd.side;
    wd.leaf_empty.portals = p;
    wd.leaf_solid.portals = p;

    q2err_t err;
    writebsp_begin(q);
    assert_true(areas_flood(q, &wd.tree, &err));
    assert_int_equal(q->numareas, 1);
    assert_int_equal(wd.leaf_empty.area, 1);
    faces_make(q, &wd.tree);
    faces_fix_tjunctions(q, &wd.tree);
    assert_true(writebsp_model(q, 0, &wd.tree, &err));
    assert_true(writebsp_finish(q, NULL, &err));
    bsp_t *bsp = &q->bsp;

    /* 512 texels: subdivided so every lightmap fits. */
    assert_true(bsp->numfaces >= 4);
    for (int f = 0; f < bsp->numfaces; f++) {
        face_extents_t e;
        assert_true(bsp_face_extents(bsp, f, &e, &err));
        assert_true(e.size[0] <= 17 && e.size[1] <= 17);
        assert_int_equal(bsp->faces[f].planenum, pn);
        assert_int_equal(bsp->faces[f].lightofs, -1);
    }
    assert_int_equal(bsp->leafs[0].contents, CONTENTS_SOLID);
    assert_int_equal(bsp->numleafs, 3);
    assert_int_equal(bsp->numnodes, 1);
    assert_int_equal(bsp->nodes[0].children[0], -2);
    assert_int_equal(bsp->nodes[0].children[1], -3);
    assert_int_equal(bsp->nodes[0].numfaces, bsp->numfaces);
    assert_int_equal(bsp->leafs[1].numleaffaces, bsp->numfaces);
    assert_int_equal(bsp->leafs[1].area, 1);
    assert_int_equal(bsp->leafs[2].numleafbrushes, 1);
    assert_int_equal(bsp->models[0].headnode, 0);
    assert_int_equal(bsp->numareas, 2);
    assert_int_equal(bsp->numareaportals, 1);

    /* Brushes: the box has its 6 sides and no bevels; the wedge gets the
     * axial plane x=64 and edge bevels, and every bevel touches the brush
     * without cutting it. */
    assert_int_equal(bsp->numbrushes, 2);
    assert_int_equal(bsp->brushes[0].numsides, 6);
    assert_true(bsp->brushes[1].numsides > 6);
    bool have_x64 = false;
    vec3_t wedge[] = {vec3(0, 0, 0), vec3(64, 0, 0), vec3(0, 0, 64), vec3(0, 64, 0), vec3(64, 64, 0),
                      vec3(0, 64, 64)};
    for (int s = 0; s < bsp->brushes[1].numsides; s++) {
        const dplane_t *pl = &bsp->planes[bsp->brushsides[bsp->brushes[1].firstside + s].planenum];
        if (pl->normal[0] == 1 && pl->dist == 64) have_x64 = true;
        double maxd = -1e9;
        for (int k = 0; k < 6; k++) {
            double d = pl->normal[0] * wedge[k].x + pl->normal[1] * wedge[k].y + pl->normal[2] * wedge[k].z -
                       pl->dist;
            if (d > maxd) maxd = d;
        }
        assert_true(fabs(maxd) < 0.01);
    }
    assert_true(have_x64);

    /* The result is a structurally valid bsp that survives a round trip. */
    assert_int_equal(bsp_check(bsp, 10, NULL, NULL), 0);
    uint8_t *data;
    size_t size;
    assert_true(bsp_write_memory(bsp, &data, &size, &err));
    bsp_t back;
    bsp_init(&back);
    assert_true(bsp_read_memory(data, size, "mem", &back, &err));
    assert_int_equal(back.numfaces, bsp->numfaces);
    assert_non_null(strstr(back.entities, "worldspawn"));
    bsp_free(&back);
    free(data);
    world_free(&wd);
}

static map_entity_t *add_entity(qbsp_t *q, const char *cls)
{
    q->map.entities = q2_realloc(q->map.entities, sizeof *q->map.entities * (q->map.numentities + 1));
    map_entity_t *me = &q->map.entities[q->map.numentities++];
    memset(me, 0, sizeof *me);
    q->map.cap = q->map.numentities;
    entity_set(&me->ent, "classname", cls);
    return me;
}

static void test_entities_and_styles(void **state)
{
    (void)state;
    world_t wd;
    world_init(&wd);
    qbsp_t *q = &wd.q;
    entity_set(&add_entity(q, "light")->ent, "targetname", "a");   /* 1 */
    entity_set(&add_entity(q, "light")->ent, "targetname", "b");   /* 2 */
    entity_set(&add_entity(q, "light")->ent, "targetname", "a");   /* 3 */
    add_entity(q, "light");                                        /* 4: not switchable */
    add_entity(q, "func_group");                                   /* 5 */
    add_entity(q, "func_areaportal");                              /* 6 */
    add_entity(q, "func_areaportal");                              /* 7 */
    entity_set(&add_entity(q, "light_mine1")->ent, "targetname", "c"); /* 8 */
    q2err_t err;
    assert_true(writebsp_entities(q, &err));
    entity_list_t ents = {0};
    assert_true(entities_parse(q->bsp.entities, "bsp", &ents, &err));
    /* func_group is gone; everything else stays, in order. */
    assert_int_equal(ents.count, q->map.numentities - 1);
    for (int i = 0; i < ents.count; i++)
        assert_string_not_equal(entity_classname(&ents.ents[i]), "func_group");
    /* Same targetname, same style, from 32 up; untargeted lights untouched. */
    assert_string_equal(entity_get(&ents.ents[1], "style"), "32");
    assert_string_equal(entity_get(&ents.ents[2], "style"), "33");
    assert_string_equal(entity_get(&ents.ents[3], "style"), "32");
    assert_null(entity_get(&ents.ents[4], "style"));
    assert_string_equal(entity_get(&ents.ents[7], "style"), "34");
    /* Areaportals are numbered from 1 in entity order. */
    assert_string_equal(entity_get(&ents.ents[5], "style"), "1");
    assert_string_equal(entity_get(&ents.ents[6], "style"), "2");
    entities_free(&ents);
    world_free(&wd);
}

static void test_areaportal_one_area_is_an_error(void **state)
{
    (void)state;
    world_t wd;
    world_init(&wd);
    qbsp_t *q = &wd.q;
    q->leaked_entity = -1;
    map_entity_t *ap = add_entity(q, "func_areaportal");
    ap->ent.line = 42;
    entity_set(&ap->ent, "origin", "8 8 8");
    /* Tree: an empty leaf beside an areaportal leaf that leads nowhere. */
    int pn = plane_table_find(&q->planes, vec3(1, 0, 0), 0);
    node_t *node = &wd.head;
    node->planenum = pn;
    node->children[0] = &wd.leaf_empty;
    node->children[1] = &wd.leaf_solid;
    wd.leaf_empty.planenum = wd.leaf_solid.planenum = PLANENUM_LEAF;
    wd.leaf_empty.occupied = 1;
    wd.leaf_solid.contents = CONTENTS_AREAPORTAL; /* the portal leaf */
    wd.brushes[0].entitynum = 1;
    wd.brushes[0].contents = CONTENTS_AREAPORTAL;
    wd.frag = q2_calloc(1, sizeof(bspbrush_t));
    wd.frag->original = &wd.brushes[0];
    wd.leaf_solid.brushlist = wd.frag;
    portal_t *p = &wd.portal;
    p->onnode = node;
    p->nodes[0] = &wd.leaf_empty;
    p->nodes[1] = &wd.leaf_solid;
    wd.leaf_empty.portals = p;
    wd.leaf_solid.portals = p;
    wd.tree.headnode = node;
    q2err_t err;
    assert_false(areas_flood(q, &wd.tree, &err));
    assert_non_null(strstr(err.msg, "func_areaportal"));
    assert_non_null(strstr(err.msg, "one area"));
    assert_non_null(strstr(err.msg, ":42"));
    /* The same map with a leak is only warned about. */
    wd.leaf_empty.area = 0;
    q->leaked_entity = 0;
    assert_true(areas_flood(q, &wd.tree, &err));
    world_free(&wd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_subdivide_boundaries),
        cmocka_unit_test(test_subdivide_exact_256),
        cmocka_unit_test(test_tjunctions),
        cmocka_unit_test(test_writebsp_tiny_tree),
        cmocka_unit_test(test_entities_and_styles),
        cmocka_unit_test(test_areaportal_one_area_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
