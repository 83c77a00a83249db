#include "rounds.h"

#include <stdbool.h>
#include <string.h>

#include "../common/mem.h"

/* The round a luxel's visibility is found in: 2 on the grid of step 4, 1
 * on that of step 2, else 0. */
static int luxel_level(int i, int j)
{
    if (!(i & 3) && !(j & 3)) return 2;
    return !(i & 1) && !(j & 1) ? 1 : 0;
}

/* The luxels of the round before that luxel (i, j) of `level` lies
 * between: half a step of that round away along each axis on which it is
 * off that round's grid. Returns their count (those inside the face). */
static int coarser_neighbours(int w, int h, int i, int j, int level, int nb[4])
{
    int st = 1 << level, di = i % (2 * st) ? st : 0, dj = j % (2 * st) ? st : 0, nn = 0;
    for (int a = -di; a <= di; a += di ? 2 * di : 1)
        for (int b = -dj; b <= dj; b += dj ? 2 * dj : 1) {
            int ni = i + a, nj = j + b;
            if (ni >= 0 && ni < w && nj >= 0 && nj < h) nb[nn++] = nj * w + ni;
        }
    return nn;
}

lorder_t *rounds_order(int w, int h)
{
    lorder_t *o = q2_malloc(sizeof(lorder_t) * (size_t)(w * h > 0 ? w * h : 1));
    int k = 0;
    for (int level = 2; level >= 0; level--)
        for (int j = 0; j < h; j += level == 2 ? 4 : 1)
            for (int i = 0; i < w; i += level == 2 ? 4 : 1) {
                if (luxel_level(i, j) != level) continue;
                o[k].idx = j * w + i;
                o[k].nn = level < 2 ? coarser_neighbours(w, h, i, j, level, o[k].nb) : 0;
                k++;
            }
    return o;
}

int rounds_first(int w, int h) { return ((w + 3) / 4) * ((h + 3) / 4); }

/* Why the fill gives the later rounds' answers: each luxel of a closed cell
 * [i0, i0 + 4] x [j0, j0 + 4] takes its answer from luxels of the same
 * closed cell (coarser_neighbours: the corners, then the edges' and the
 * centre's), two or four, all lit, so by induction over the rounds every
 * one agrees with the corners. A luxel on an edge two cells share gets the
 * same answer from either (its edge's corners). */
void rounds_fill_cells(int w, int h, const double *val, uint8_t *vis)
{
    for (int j0 = 0; j0 + 4 < h; j0 += 4)
        for (int i0 = 0; i0 + 4 < w; i0 += 4) {
            const uint8_t c = vis[j0 * w + i0];
            if ((c != VIS_CLEAR && c != VIS_BLOCKED) || vis[j0 * w + i0 + 4] != c || vis[(j0 + 4) * w + i0] != c ||
                vis[(j0 + 4) * w + i0 + 4] != c)
                continue;
            bool lit = true;
            for (int j = j0; j <= j0 + 4 && lit; j++)
                for (int i = i0; i <= i0 + 4; i++) lit &= val[j * w + i] > 0;
            if (!lit) continue;
            for (int j = j0; j <= j0 + 4; j++) memset(vis + j * w + i0, c, 5);
        }
}
