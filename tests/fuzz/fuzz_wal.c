/* libFuzzer target: every texture decoder (.wal, PNG, TGA, PCX, .wal_json)
 * on the same input, so seeds of any of those formats reach all of them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "textures.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    q2err_t err;
    texmeta_t meta;
    image_t img;
    palette_t pal;

    if (wal_read(data, size, "fuzz.wal", NULL, &meta, &img, &err)) image_free(&img);
    if (png_read(data, size, "fuzz.png", &img, &err)) image_free(&img);
    if (tga_read(data, size, "fuzz.tga", &img, &err)) image_free(&img);
    if (pcx_read(data, size, "fuzz.pcx", &img, &pal, &err)) image_free(&img);
    /* The JSON reader gets an exact-size copy so reads past the end are
     * caught by ASan. */
    char *text = malloc(size ? size : 1);
    if (size) memcpy(text, data, size);
    wal_json_read(text, size, "fuzz.wal_json", &meta, &err);
    free(text);
    (void)tooltex_lookup((const char *)meta.animname, NULL, NULL, NULL);
    return 0;
}
