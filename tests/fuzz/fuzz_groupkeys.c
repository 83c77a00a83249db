/* libFuzzer target: qbsp's Q2MAP_GROUPKEYS lump (formats/groupkeys.h), as
 * qrad reads it, on whatever the .bsp reader accepts: the lump decoded
 * against the bsp's face count, and a decoded lump encoded and decoded again
 * to the same keysets. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../formats/bspfile.h"
#include "../../formats/bspx.h"
#include "../../formats/groupkeys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bsp_t bsp;
    q2err_t err;
    if (!bsp_read_memory(data, size, "fuzz.bsp", &bsp, &err)) return 0;
    bspx_t x;
    if (bspx_parse(&bsp, &x, NULL, &err)) {
        const bspx_lump_t *l = bspx_find(&x, GROUPKEYS_LUMP);
        groupkeys_t g;
        if (l && groupkeys_decode(l->data, l->size, bsp.numfaces, &g, &err)) {
            uint8_t *enc;
            size_t n;
            groupkeys_encode(&g, &enc, &n);
            groupkeys_t h;
            if (!groupkeys_decode(enc, n, bsp.numfaces, &h, &err) || h.sets.count != g.sets.count ||
                (g.numfaces > 0 && memcmp(h.set, g.set, sizeof *g.set * (size_t)g.numfaces)))
                abort();
            for (int i = 0; i < g.sets.count; i++)
                if (h.sets.ents[i].numpairs != g.sets.ents[i].numpairs) abort();
            groupkeys_lump_free(&h);
            groupkeys_lump_free(&g);
            free(enc);
        }
        bspx_free(&x);
    }
    bsp_free(&bsp);
    return 0;
}
