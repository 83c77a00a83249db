#include "texinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "../formats/q2defs.h"

/* Longest texture name: the field is 32 bytes on disk and engines read it
 * as a NUL-terminated string. */
#define TEXNAME_MAX 31

/* Animation chains longer than this are cut, so a malformed metadata loop
 * that never returns to its first frame cannot run away. */
#define ANIM_MAX_FRAMES 64

static bool same_texinfo(const dtexinfo_t *a, const dtexinfo_t *b)
{
    if (a->flags != b->flags || a->value != b->value) return false;
    if (memcmp(a->vecs, b->vecs, sizeof a->vecs) != 0) return false;
    return strcmp(a->texture, b->texture) == 0;
}

#define TEXINFO_HASH_SIZE 4096

static unsigned texinfo_hash(const dtexinfo_t *tx)
{
    /* FNV-1a over the fields that identify a texinfo. */
    unsigned h = 2166136261u;
    const unsigned char *p = (const unsigned char *)tx->vecs;
    for (size_t i = 0; i < sizeof tx->vecs; i++) h = (h ^ p[i]) * 16777619u;
    for (const char *c = tx->texture; *c; c++) h = (h ^ (unsigned char)*c) * 16777619u;
    h = (h ^ (unsigned)tx->flags) * 16777619u;
    h = (h ^ (unsigned)tx->value) * 16777619u;
    return h % TEXINFO_HASH_SIZE;
}

static int find_existing(const qbsp_t *q, const dtexinfo_t *tx)
{
    if (!q->texinfo_hash_head) return -1;
    for (int i = q->texinfo_hash_head[texinfo_hash(tx)]; i >= 0; i = q->texinfo_hash_next[i])
        if (same_texinfo(&q->texinfo[i], tx)) return i;
    return -1;
}

static void hash_insert(qbsp_t *q, int i)
{
    if (!q->texinfo_hash_head) {
        q->texinfo_hash_head = q2_malloc(sizeof(int) * TEXINFO_HASH_SIZE);
        for (int k = 0; k < TEXINFO_HASH_SIZE; k++) q->texinfo_hash_head[k] = -1;
    }
    q->texinfo_hash_next = q2_grow(q->texinfo_hash_next, sizeof(int), &q->cap_texinfo_hash_next, i + 1);
    unsigned h = texinfo_hash(&q->texinfo[i]);
    q->texinfo_hash_next[i] = q->texinfo_hash_head[h];
    q->texinfo_hash_head[h] = i;
}

static int add_texinfo(qbsp_t *q, const dtexinfo_t *tx)
{
    q->texinfo = q2_grow(q->texinfo, sizeof *q->texinfo, &q->cap_texinfo, q->numtexinfo + 1);
    q->texinfo[q->numtexinfo] = *tx;
    q->texinfo[q->numtexinfo].nexttexinfo = -1;
    hash_insert(q, q->numtexinfo);
    return q->numtexinfo++;
}

void texinfo_free(qbsp_t *q)
{
    free(q->texinfo);
    free(q->texinfo_hash_head);
    free(q->texinfo_hash_next);
    q->texinfo = NULL;
    q->texinfo_hash_head = q->texinfo_hash_next = NULL;
    q->numtexinfo = q->cap_texinfo = q->cap_texinfo_hash_next = 0;
}

static bool same_surface(const dtexinfo_t *a, const dtexinfo_t *b)
{
    return a->flags == b->flags && a->value == b->value && strcmp(a->texture, b->texture) == 0;
}

static void mark_chain(const qbsp_t *q, bool *keep, int i)
{
    for (int n = 0; i >= 0 && n <= ANIM_MAX_FRAMES; n++) {
        keep[i] = true;
        i = q->texinfo[i].nexttexinfo;
        if (i >= 0 && keep[i]) break;
    }
}

int texinfo_compact(qbsp_t *q)
{
    int n = q->numtexinfo;
    if (n == 0) return 0;
    bool *used = q2_calloc((size_t)n, sizeof(bool));
    bool *keep = q2_calloc((size_t)n, sizeof(bool));
    int *canon = q2_malloc(sizeof(int) * (size_t)n);
    int *remap = q2_malloc(sizeof(int) * (size_t)n);
    for (int f = 0; f < q->bsp.numfaces; f++) {
        int t = q->bsp.faces[f].texinfo;
        if (t >= 0 && t < n) used[t] = true;
    }
    for (int i = 0; i < n; i++)
        if (used[i]) mark_chain(q, keep, i);
    for (int i = 0; i < n; i++) used[i] = keep[i];

    /* Canonical texinfo per surface (name, flags, value): the first one a
     * face uses, else the first one. Quadratic only in the number of
     * distinct surfaces, which is small. */
    int *reps = NULL, nreps = 0, capreps = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            if (pass == 0 && !used[i]) continue;
            int r;
            for (r = 0; r < nreps; r++)
                if (same_surface(&q->texinfo[reps[r]], &q->texinfo[i])) break;
            if (r == nreps) ARRAY_PUSH(reps, nreps, capreps, i);
        }
    for (int i = 0; i < n; i++) {
        canon[i] = i;
        if (used[i]) continue;
        for (int r = 0; r < nreps; r++)
            if (same_surface(&q->texinfo[reps[r]], &q->texinfo[i])) {
                canon[i] = reps[r];
                break;
            }
    }
    free(reps);
    for (int b = 0; b < q->nummapbrushes; b++) {
        mapbrush_t *mb = &q->mapbrushes[b];
        for (int s = 0; s < mb->numsides; s++) {
            int t = mb->original_sides[s].texinfo;
            if (t < 0 || t >= n) continue;
            t = canon[t];
            mb->original_sides[s].texinfo = t;
            if (!keep[t]) mark_chain(q, keep, t);
        }
    }
    int m = 0;
    for (int i = 0; i < n; i++) remap[i] = keep[i] ? m++ : -1;
    dtexinfo_t *table = q2_calloc((size_t)(m > 0 ? m : 1), sizeof *table);
    for (int i = 0; i < n; i++) {
        if (!keep[i]) continue;
        table[remap[i]] = q->texinfo[i];
        int nx = q->texinfo[i].nexttexinfo;
        table[remap[i]].nexttexinfo = nx >= 0 ? remap[nx] : -1;
    }
    for (int f = 0; f < q->bsp.numfaces; f++) {
        int t = q->bsp.faces[f].texinfo;
        if (t >= 0 && t < n) q->bsp.faces[f].texinfo = remap[t];
    }
    for (int b = 0; b < q->nummapbrushes; b++) {
        mapbrush_t *mb = &q->mapbrushes[b];
        for (int s = 0; s < mb->numsides; s++) {
            int t = mb->original_sides[s].texinfo;
            if (t >= 0 && t < n) mb->original_sides[s].texinfo = remap[t];
        }
    }
    texinfo_free(q);
    for (int i = 0; i < m; i++) add_texinfo(q, &table[i]), q->texinfo[i].nexttexinfo = table[i].nexttexinfo;
    free(table);
    free(used);
    free(keep);
    free(canon);
    free(remap);
    return n - m;
}

int texinfo_find(qbsp_t *q, const dtexinfo_t *tx)
{
    int first = find_existing(q, tx);
    if (first >= 0) return first;
    first = add_texinfo(q, tx);

    /* Walk the animation chain: each frame is a texinfo with the same
     * projection; the last frame links back to an existing one (normally the
     * first), which closes the loop. */
    int prev = first;
    for (int n = 0; n < ANIM_MAX_FRAMES && q->texdb; n++) {
        const texmeta_t *m = texdb_meta(q->texdb, q->texinfo[prev].texture);
        if (!m->animname[0]) break;
        dtexinfo_t next = q->texinfo[prev];
        memset(next.texture, 0, sizeof next.texture);
        snprintf(next.texture, TEXNAME_MAX + 1, "%.31s", m->animname);
        int idx = find_existing(q, &next);
        if (idx >= 0) {
            q->texinfo[prev].nexttexinfo = idx;
            break;
        }
        idx = add_texinfo(q, &next);
        q->texinfo[prev].nexttexinfo = idx;
        prev = idx;
    }
    return first;
}

int texinfo_for_side(qbsp_t *q, const map_side_t *side, vec3_t normal, vec3_t origin, int flags, int value,
                     q2err_t *err)
{
    bool cut = strlen(side->texture) > TEXNAME_MAX && q->opt.truncatetexnames;
    if (cut)
        log_warn(q->log, "%s:%d: texture name \"%s\" is %zu characters; cut to Quake 2's %d (-truncatetexnames)",
                 q->map.path, side->line, side->texture, strlen(side->texture), TEXNAME_MAX);
    else if (strlen(side->texture) > TEXNAME_MAX) {
        q2err_set(err, q->map.path, side->line, side->col,
                  "texture name \"%s\" is %zu characters; Quake 2 allows at most %d", side->texture,
                  strlen(side->texture), TEXNAME_MAX);
        return -1;
    }
    double vecs[2][4];
    map_texture_vectors(side, normal, origin, vecs);
    dtexinfo_t tx;
    memset(&tx, 0, sizeof tx);
    /* Narrowed before texinfo_find, which compares bytes: a -0.0 would make
     * a second texinfo of the same projection. */
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) tx.vecs[i][j] = float_for_file(vecs[i][j]);
    tx.flags = flags;
    tx.value = value;
    /* (tx is zeroed: the name stays terminated and its tail zero) */
    size_t len = strlen(side->texture);
    memcpy(tx.texture, side->texture, len < TEXNAME_MAX ? len : TEXNAME_MAX);
    tx.nexttexinfo = -1;
    return texinfo_find(q, &tx);
}
