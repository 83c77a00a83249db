/* libFuzzer target: the .bsp reader (IBSP and QBSP), bsp_check, the
 * statistics, the engine-limit checks on files bsp_check accepts (as
 * bspinfo runs them), and the writer on whatever the reader accepts
 * (writing it must work and read back). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../formats/bspcheck.h"
#include "../../formats/bspfile.h"
#include "../../formats/enginelimits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bsp_t bsp;
    q2err_t err;
    if (!bsp_read_memory(data, size, "fuzz.bsp", &bsp, &err)) return 0;
    bsp_stats_t st;
    bsp_compute_stats(&bsp, &st);
    if (bsp_check(&bsp, 0, NULL, NULL) == 0) {
        englimit_list_t found = {0};
        englimits_check(&bsp, &found, &err);
        englimits_free(&found);
    }
    uint8_t *out;
    size_t outsize;
    if (bsp_write_memory(&bsp, &out, &outsize, &err)) {
        bsp_t again;
        if (!bsp_read_memory(out, outsize, "rewritten", &again, &err)) abort();
        bsp_free(&again);
        free(out);
    }
    bsp_free(&bsp);
    return 0;
}
