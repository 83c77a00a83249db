/* libFuzzer target: ericw-tools' MAP.texinfo.json (formats/texinfojson.h),
 * as qrad reads it, against a bsp of 64 texinfos (the seeds, ericw-tools'
 * files for the test maps, have 3 to 101: numbers in and out of range). A
 * file that decodes must give keysets the set[] entries point into, with no
 * keyset twice; one that does not, a message naming the file. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../formats/texinfojson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const int numtexinfo = 64;
    texinfojson_t t;
    q2err_t err;
    if (!texinfojson_decode(data, size, numtexinfo, "fuzz.texinfo.json", &t, &err)) {
        if (!strstr(err.msg, "fuzz.texinfo.json:")) abort();
        return 0;
    }
    if (t.numentries > numtexinfo) abort();
    for (int i = 0; i < numtexinfo; i++)
        if (t.set[i] < 0 || t.set[i] > t.sets.count) abort();
    for (int k = 0; k < t.sets.count; k++)
        for (int j = 0; j < k; j++) {
            const entity_t *a = &t.sets.ents[j], *b = &t.sets.ents[k];
            bool same = a->numpairs == b->numpairs;
            for (int p = 0; same && p < a->numpairs; p++)
                same = !strcmp(a->pairs[p].key, b->pairs[p].key) && !strcmp(a->pairs[p].value, b->pairs[p].value);
            if (same) abort();
        }
    texinfojson_free(&t);
    return 0;
}
