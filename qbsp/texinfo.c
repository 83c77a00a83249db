#include "texinfo.h"

#include <stdio.h>
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

static int find_existing(const qbsp_t *q, const dtexinfo_t *tx)
{
    for (int i = 0; i < q->numtexinfo; i++)
        if (same_texinfo(&q->texinfo[i], tx)) return i;
    return -1;
}

static int add_texinfo(qbsp_t *q, const dtexinfo_t *tx)
{
    q->texinfo = q2_grow(q->texinfo, sizeof *q->texinfo, &q->cap_texinfo, q->numtexinfo + 1);
    q->texinfo[q->numtexinfo] = *tx;
    q->texinfo[q->numtexinfo].nexttexinfo = -1;
    return q->numtexinfo++;
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
    if (strlen(side->texture) > TEXNAME_MAX) {
        q2err_set(err, q->map.path, side->line, side->col,
                  "texture name \"%s\" is %zu characters; Quake 2 allows at most %d", side->texture,
                  strlen(side->texture), TEXNAME_MAX);
        return -1;
    }
    double vecs[2][4];
    map_texture_vectors(side, normal, origin, vecs);
    dtexinfo_t tx;
    memset(&tx, 0, sizeof tx);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) tx.vecs[i][j] = (float)vecs[i][j];
    tx.flags = flags;
    tx.value = value;
    strcpy(tx.texture, side->texture);
    tx.nexttexinfo = -1;
    return texinfo_find(q, &tx);
}
