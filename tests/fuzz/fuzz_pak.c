/* libFuzzer target: .pak and .zip directory parsing and entry reads, from
 * memory. The same input is tried as both formats; then every name-like
 * string in it (pak directory names, zip central directory names) is read
 * back, which exercises the local-header checks, inflate and CRC. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vfs.h"

/* Entry reads are capped well below the vfs's own limit to keep runs fast. */
#define FUZZ_MAX_READ ((size_t)1 << 20)

static void try_read(vfs_t *vfs, const char *name)
{
    uint8_t *out;
    size_t n;
    q2err_t err;
    if (vfs_read(vfs, name, FUZZ_MAX_READ, &out, &n, &err)) free(out);
}

static void read_names(vfs_t *vfs, const uint8_t *data, size_t size)
{
    char name[300];
    int tries = 0;
    for (size_t i = 0; i + 4 <= size && tries < 64; i++) {
        /* Zip central directory record: name length at +28, name at +46. */
        if (data[i] == 'P' && data[i + 1] == 'K' && data[i + 2] == 1 && data[i + 3] == 2 && i + 46 <= size) {
            size_t nl = (size_t)data[i + 28] | (size_t)data[i + 29] << 8;
            if (nl > 0 && nl < sizeof name && i + 46 + nl <= size) {
                memcpy(name, data + i + 46, nl);
                name[nl] = 0;
                try_read(vfs, name);
                tries++;
            }
        }
    }
    /* Pak directory names: NUL-terminated runs of printable characters. */
    size_t start = 0;
    for (size_t i = 0; i < size && tries < 128; i++) {
        if (data[i] == 0) {
            size_t nl = i - start;
            if (nl > 0 && nl < 56) {
                memcpy(name, data + start, nl);
                name[nl] = 0;
                try_read(vfs, name);
                tries++;
            }
            start = i + 1;
        } else if (data[i] < 32 || data[i] > 126) {
            start = i + 1;
        }
    }
    try_read(vfs, "a.txt");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *names[] = {"fuzz.pak", "fuzz.zip"};
    for (int k = 0; k < 2; k++) {
        vfs_t *vfs = vfs_create();
        q2err_t err;
        if (vfs_add_archive_memory(vfs, names[k], data, size, &err)) {
            read_names(vfs, data, size);
            const char **deps;
            (void)vfs_deps(vfs, &deps);
        }
        vfs_free(vfs);
    }
    return 0;
}
