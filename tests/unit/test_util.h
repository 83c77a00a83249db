/* Helpers shared by the unit tests: a fixed-seed PRNG (tests must be
 * reproducible, so no rand()), scratch directories, and whole-file reads and
 * writes that fail the running test instead of returning errors. Include
 * after <cmocka.h>: the helpers use its assertions. */
#ifndef Q2M_TEST_UTIL_H
#define Q2M_TEST_UTIL_H

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/fileio.h"
#include "../../common/mathlib.h"

/* xorshift32: the seed must be non-zero. */
static inline uint32_t tu_xorshift(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* Uniform in [lo, hi). */
static inline double tu_frand(uint32_t *s, double lo, double hi)
{
    return lo + (hi - lo) * (tu_xorshift(s) / 4294967296.0);
}

/* A uniformly distributed unit vector (rejection sampling in the unit
 * ball, away from the centre where normalising loses precision). */
static inline vec3_t tu_random_unit(uint32_t *s)
{
    for (;;) {
        vec3_t v = vec3(tu_frand(s, -1, 1), tu_frand(s, -1, 1), tu_frand(s, -1, 1));
        double len = vec_len(v);
        if (len > 0.1 && len <= 1) return vec_scale(v, 1 / len);
    }
}

/* Removes path and, for a directory, everything below it (links are
 * removed, not followed). True when nothing is left at path. */
static inline bool tu_rm_rf(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return true;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *de;
        while (d && (de = readdir(d)) != NULL) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
            char sub[4096];
            if (snprintf(sub, sizeof sub, "%s/%s", path, de->d_name) < (int)sizeof sub) tu_rm_rf(sub);
        }
        if (d) closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
    return lstat(path, &st) != 0;
}

/* A fresh directory under $TMPDIR (or /tmp) named <prefix>_XXXXXX; the
 * caller frees the returned path. */
static inline char *tu_make_tmpdir(const char *prefix)
{
    const char *base = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/%s_XXXXXX", base && *base ? base : "/tmp", prefix);
    char *d = mkdtemp(tmpl);
    assert_non_null(d);
    return strdup(d);
}

/* A test file's scratch directory NAME (a static char *) with the cmocka
 * group fixtures NAME_setup, which makes it under PREFIX, and
 * NAME_teardown, which removes it with all it holds (Q2MAP_KEEP_TMP=1 keeps
 * it, to look at what a test wrote). */
#define TU_SCRATCH_DIR(name, prefix)                                        \
    static char *name;                                                      \
    static int name##_setup(void **state)                                   \
    {                                                                       \
        (void)state;                                                        \
        name = tu_make_tmpdir(prefix);                                      \
        return 0;                                                           \
    }                                                                       \
    static int name##_teardown(void **state)                                \
    {                                                                       \
        (void)state;                                                        \
        bool ok = getenv("Q2MAP_KEEP_TMP") || tu_rm_rf(name);               \
        free(name);                                                         \
        return ok ? 0 : -1;                                                 \
    }

/* Writes dir/rel, creating the directories in rel first. */
static inline void tu_write_file(const char *dir, const char *rel, const void *data, size_t size)
{
    char path[4096];
    assert_true(snprintf(path, sizeof path, "%s/%s", dir, rel) < (int)sizeof path);
    for (char *p = path + strlen(dir) + 1; *p; p++) {
        if (*p == '/') {
            *p = 0;
            mkdir(path, 0755);
            *p = '/';
        }
    }
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    bool ok = fwrite(data, 1, size, f) == size;
    assert_true(fclose(f) == 0 && ok);
}

/* The whole file (at most max bytes); the caller frees it. */
static inline uint8_t *tu_read_file(const char *path, size_t max, size_t *size)
{
    uint8_t *data;
    q2err_t err = {0};
    if (!file_read_all(path, max, &data, size, &err)) fail_msg("%s", err.msg);
    return data;
}

#endif
