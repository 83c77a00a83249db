/* libFuzzer target: the BSPX directory and the lumps q2map decodes, on
 * whatever the .bsp reader accepts: parse, each known lump decoded, every
 * light-grid point looked up, a decoded grid encoded and decoded again to
 * the same bytes, and the summary bspinfo prints. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../formats/bspfile.h"
#include "../../formats/bspx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bsp_t bsp;
    q2err_t err;
    if (!bsp_read_memory(data, size, "fuzz.bsp", &bsp, &err)) return 0;
    bspx_t x;
    if (bspx_parse(&bsp, &x, NULL, &err)) {
        const bspx_lump_t *l = bspx_find(&x, "LIGHTGRID_OCTREE");
        lightgrid_t g;
        if (l && lightgrid_decode(l->data, l->size, &g, &err)) {
            long long points = (long long)g.size[0] * g.size[1] * g.size[2];
            if (points <= 1 << 16)
                for (int z = 0; z < g.size[2]; z++)
                    for (int y = 0; y < g.size[1]; y++)
                        for (int xx = 0; xx < g.size[0]; xx++) (void)lightgrid_lookup(&g, xx, y, z);
            uint8_t *enc;
            size_t n;
            if (!lightgrid_encode(&g, &enc, &n, &err) || n != l->size || memcmp(enc, l->data, n)) abort();
            free(enc);
            lightgrid_free(&g);
        }
        facenormals_t fn;
        l = bspx_find(&x, "FACENORMALS");
        if (l && facenormals_decode(&bsp, l->data, l->size, &fn, &err)) facenormals_free(&fn);
        decoupled_lm_t *d;
        l = bspx_find(&x, "DECOUPLED_LM");
        if (l && decoupled_decode(&bsp, l->data, l->size, &d, &err)) free(d);
        bspx_free(&x);
    }
    FILE *devnull = fopen("/dev/null", "w");
    if (devnull) {
        bspx_print_summary(&bsp, devnull);
        fclose(devnull);
    }
    bsp_free(&bsp);
    return 0;
}
