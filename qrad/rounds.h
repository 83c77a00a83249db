/* rounds.c: the order in which -preset ericw's bounce (bouncelights.c,
 * gather_face) finds a face's luxels' visibility from one light, in three
 * rounds, and what a round settles without rays.
 *
 * The rounds: the luxels on the grid of step 4 are traced first, then
 * those of step 2, then the rest; a luxel of a later round whose
 * neighbours of the round before (2 or 4, half a step away, inside the
 * face) were all found, and agree, takes their answer, so only the cells a
 * shadow edge crosses are traced finer.
 *
 * Takes: the face's luxel grid (w by h), each luxel's light (lit where
 * above 0: an unlit luxel is never traced and keeps VIS_NONE).
 * Gives: the order and each luxel's neighbours, the answer a luxel takes
 * from them (rounds_agreed); after the first round, the answers of the
 * cells that round settles. Plain data, no qrad state:
 * test_qrad_rounds checks the fill against the luxel-by-luxel rule. */
#ifndef Q2M_QRAD_ROUNDS_H
#define Q2M_QRAD_ROUNDS_H

#include <stdint.h>

/* A luxel's visibility from the light: not found (or unlit), clear,
 * blocked, or waiting in a packet of rays (bouncelights.c). */
enum { VIS_NONE, VIS_CLEAR, VIS_BLOCKED, VIS_WAITING };

/* One luxel in the rounds' order, with the luxels of the round before that
 * it lies between (none in the first round): the same for every light, so
 * made once per face. */
typedef struct lorder_t {
    int idx, nn;
    int nb[4];
} lorder_t;

/* The w*h luxels in order (the caller frees it); the first
 * rounds_first(w, h) are the first round's. */
lorder_t *rounds_order(int w, int h);
int rounds_first(int w, int h);

/* The answer a later round's luxel takes without a ray: its neighbours'
 * of the round before (two or four of them) where all were found and
 * agree, else VIS_NONE (it is traced). */
static inline uint8_t rounds_agreed(const lorder_t *lo, const uint8_t *vis)
{
    if (lo->nn < 2 || vis[lo->nb[0]] == VIS_NONE) return VIS_NONE;
    for (int k = 1; k < lo->nn; k++)
        if (vis[lo->nb[k]] != vis[lo->nb[0]]) return VIS_NONE;
    return vis[lo->nb[0]];
}

/* After the first round (every lit luxel of it VIS_CLEAR or VIS_BLOCKED):
 * a cell of the step-4 grid whose four corners got one answer, with every
 * luxel of it lit (its edges included), gets that answer at all its
 * luxels, which is what the later rounds would give them. */
void rounds_fill_cells(int w, int h, const double *val, uint8_t *vis);

#endif
