/* libFuzzer target: the .prt reader, and validity checks of the portal
 * windings it returns. */
#include <stddef.h>
#include <stdint.h>

#include "../../formats/prt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    prt_t prt;
    q2err_t err;
    if (!prt_read_memory((const char *)data, size, "fuzz.prt", &prt, &err)) return 0;
    for (int i = 0; i < prt.numportals; i++) {
        winding_check(prt.portals[i].winding, &err);
        winding_area(prt.portals[i].winding);
    }
    prt_free(&prt);
    return 0;
}
