/* libFuzzer target: what qview's watch mode reads back from a compile,
 * q2map's output and qbsp's -deps rule, on any text. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../viewer/compile_job.h"
#include "../../viewer/live.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    compile_result_t r;
    memset(&r, 0, sizeof r);
    compile_parse_output(text, &r);
    char **v;
    int n = live_parse_deps(text, "fuzz.map", &v);
    if (n < 1) abort();
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
    free(text);
    return 0;
}
