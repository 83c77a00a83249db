#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive_build.h"
#include "test_util.h"
#include "fileio.h"
#include "vfs.h"

#define MAXSZ ((size_t)1 << 24)

static void expect_content(vfs_t *vfs, const char *name, const char *want)
{
    uint8_t *data;
    size_t size;
    q2err_t err = {0};
    if (!vfs_read(vfs, name, MAXSZ, &data, &size, &err)) fail_msg("read %s failed: %s", name, err.msg);
    assert_int_equal(size, strlen(want));
    assert_memory_equal(data, want, size);
    assert_int_equal(data[size], 0);
    free(data);
}

static void expect_missing(vfs_t *vfs, const char *name)
{
    uint8_t *data = (uint8_t *)"x";
    size_t size = 7;
    q2err_t err = {0};
    assert_false(vfs_read(vfs, name, MAXSZ, &data, &size, &err));
    assert_string_equal(err.msg, "");
    assert_null(data);
    assert_int_equal(size, 0);
}

/* A long, compressible payload so deflate really compresses. */
static char *long_text(int n)
{
    char *s = malloc((size_t)n + 1);
    for (int i = 0; i < n; i++) s[i] = (char)('a' + (i * 7 + i / 13) % 26);
    s[n] = 0;
    return s;
}

static void test_override_order(void **state)
{
    (void)state;
    char *tmp = tu_make_tmpdir("q2m_vfs");
    char base[4096], mod[4096];
    snprintf(base, sizeof base, "%s/baseq2", tmp);
    snprintf(mod, sizeof mod, "%s/mymod", tmp);
    mkdir(base, 0755);
    mkdir(mod, 0755);

    tu_write_file(base, "textures/a.txt", "loose", 5);
    tu_write_file(base, "textures/onlyloose.txt", "L", 1);
    tu_write_file(base, "textures/mixed.txt", "mixedcase", 9);

    ab_file_t p0[] = {{"textures/a.txt", "pak0", 4, 0}, {"textures/onlypak0.txt", "P0", 2, 0},
                      {"textures/Upper.TXT", "upper", 5, 0}};
    assert_true(ab_save(base, "pak0.pak", ab_pak(p0, 3)));
    ab_file_t p1[] = {{"textures/a.txt", "pak1", 4, 0}};
    assert_true(ab_save(base, "pak1.pak", ab_pak(p1, 1)));
    /* pak10 must sort after pak2 (numeric order, as Quake 2 loads them). */
    ab_file_t p10[] = {{"textures/ten.txt", "pak10", 5, 0}};
    assert_true(ab_save(base, "pak10.pak", ab_pak(p10, 1)));
    ab_file_t p2[] = {{"textures/ten.txt", "pak2", 4, 0}};
    assert_true(ab_save(base, "pak2.pak", ab_pak(p2, 1)));

    char *big = long_text(5000);
    ab_file_t z1[] = {{"textures/a.txt", "pk3-deflated", 12, 8},
                      {"textures/", "", 0, 0}, /* a directory entry */
                      {"textures/stored.txt", "stored!", 7, 0},
                      {"textures/big.txt", big, 5000, 8}};
    assert_true(ab_save(base, "a_first.pk3", ab_zip(z1, 4)));
    ab_file_t z2[] = {{"textures/stored.txt", "from b", 6, 8}};
    assert_true(ab_save(base, "b_second.zip", ab_zip(z2, 1)));

    tu_write_file(mod, "textures/onlypak0.txt", "modloose", 8);

    vfs_t *vfs = vfs_create();
    q2err_t err = {0};
    if (!vfs_add_gamedir(vfs, base, &err)) fail_msg("%s", err.msg);
    const char **deps;
    assert_int_equal(vfs_deps(vfs, &deps), 0);

    expect_content(vfs, "textures/a.txt", "pk3-deflated");
    expect_content(vfs, "textures/onlyloose.txt", "L");
    expect_content(vfs, "textures/onlypak0.txt", "P0");
    expect_content(vfs, "TEXTURES/ONLYPAK0.txt", "P0");
    expect_content(vfs, "textures/upper.txt", "upper");
    expect_content(vfs, "textures/ten.txt", "pak10");
    expect_content(vfs, "textures/stored.txt", "from b");
    expect_content(vfs, "textures/big.txt", big);
    expect_content(vfs, "textures/mixed.txt", "mixedcase");
    expect_missing(vfs, "textures/none.txt");
    expect_missing(vfs, "textures");

    /* A file over the caller's limit is refused with an error. */
    uint8_t *data;
    size_t size;
    assert_false(vfs_read(vfs, "textures/big.txt", 100, &data, &size, &err));
    assert_non_null(strstr(err.msg, "limit"));
    assert_false(vfs_read(vfs, "../etc/passwd", MAXSZ, &data, &size, &err));
    assert_non_null(strstr(err.msg, "invalid"));
    assert_false(vfs_read(vfs, "/etc/passwd", MAXSZ, &data, &size, &err));

    /* Only archives actually read are dependencies, each once, sorted. */
    int n = vfs_deps(vfs, &deps);
    assert_int_equal(n, 6);
    for (int i = 1; i < n; i++) assert_true(strcmp(deps[i - 1], deps[i]) < 0);
    const char *want[] = {"a_first.pk3", "b_second.zip", "pak0.pak", "pak10.pak", "textures/mixed.txt",
                          "textures/onlyloose.txt"};
    for (int i = 0; i < n; i++) {
        char full[8192];
        snprintf(full, sizeof full, "%s/%s", base, want[i]);
        assert_string_equal(deps[i], full);
    }

    /* A mod directory added later overrides the base game, even its paks. */
    if (!vfs_add_gamedir(vfs, mod, &err)) fail_msg("%s", err.msg);
    expect_content(vfs, "textures/onlypak0.txt", "modloose");
    expect_content(vfs, "textures/a.txt", "pk3-deflated");
    vfs_free(vfs);
    free(big);

    /* Missing directory: error. */
    vfs = vfs_create();
    char missing[4096];
    snprintf(missing, sizeof missing, "%s/nope", tmp);
    assert_false(vfs_add_gamedir(vfs, missing, &err));
    assert_non_null(strstr(err.msg, "nope"));
    expect_missing(vfs, "textures/a.txt");
    vfs_free(vfs);
    tu_rm_rf(tmp);
    free(tmp);
}

static void test_memory_archives_and_threads(void **state)
{
    (void)state;
    enum { N = 64 };
    ab_file_t files[N];
    char names[N][32];
    char *bodies[N];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "f/%03d.bin", i % 1000);
        bodies[i] = long_text(100 + i * 37);
        files[i] = (ab_file_t){names[i], bodies[i], strlen(bodies[i]), (i % 2) ? 8 : 0};
    }
    ab_buf_t z = ab_zip(files, N);
    ab_buf_t p = ab_pak(files, N);
    vfs_t *vz = vfs_create(), *vp = vfs_create();
    q2err_t err = {0};
    assert_true(vfs_add_archive_memory(vz, "mem.pk3", z.p, z.len, &err));
    assert_true(vfs_add_archive_memory(vp, "mem.pak", p.p, p.len, &err));
    int bad = 0;
    /* Concurrent reads from both archives: each thread checks what it read. */
#pragma omp parallel for num_threads(4) reduction(+ : bad) schedule(dynamic, 1)
    for (int k = 0; k < N * 8; k++) {
        int i = k % N;
        uint8_t *data;
        size_t size;
        q2err_t e2 = {0};
        vfs_t *v = (k / N) % 2 ? vz : vp;
        if (!vfs_read(v, names[i], MAXSZ, &data, &size, &e2) || size != strlen(bodies[i]) ||
            memcmp(data, bodies[i], size) != 0)
            bad++;
        free(data);
    }
    assert_int_equal(bad, 0);
    const char **deps;
    assert_int_equal(vfs_deps(vz, &deps), 1);
    assert_string_equal(deps[0], "mem.pk3");
    vfs_free(vz);
    vfs_free(vp);
    free(z.p);
    free(p.p);
    for (int i = 0; i < N; i++) free(bodies[i]);
}

/* Corrupt archives built in memory from a valid one. */
static void test_corrupt_in_memory(void **state)
{
    (void)state;
    const char *text = "hello hello hello hello hello hello";
    ab_file_t f[] = {{"a.txt", text, strlen(text), 8}};
    ab_buf_t z = ab_zip(f, 1);
    q2err_t err = {0};
    uint8_t *data;
    size_t size;

    /* Every truncation of the zip either fails to open with an error or
     * fails to read the entry with an error; none crash. */
    for (size_t len = 0; len < z.len; len++) {
        vfs_t *v = vfs_create();
        if (vfs_add_archive_memory(v, "t.zip", z.p, len, &err)) {
            err.msg[0] = 0;
            bool ok = vfs_read(v, "a.txt", MAXSZ, &data, &size, &err);
            if (ok) free(data);
            assert_false(ok && len < z.len);
        } else {
            assert_true(err.msg[0] != 0);
        }
        vfs_free(v);
    }

    /* Flip one byte of the deflate data: CRC or inflate must catch it. */
    ab_buf_t c = {0};
    ab_put(&c, z.p, z.len);
    c.p[30 + 5 + 2] ^= 0x55;
    vfs_t *v = vfs_create();
    assert_true(vfs_add_archive_memory(v, "flip.zip", c.p, c.len, &err));
    assert_false(vfs_read(v, "a.txt", MAXSZ, &data, &size, &err));
    assert_true(strstr(err.msg, "CRC") || strstr(err.msg, "corrupt"));
    vfs_free(v);
    free(c.p);

    /* Truncating every pak at every length fails cleanly too. */
    ab_buf_t p = ab_pak(f, 1);
    for (size_t len = 0; len < p.len; len++) {
        v = vfs_create();
        err.msg[0] = 0;
        assert_false(vfs_add_archive_memory(v, "t.pak", p.p, len, &err));
        assert_true(err.msg[0] != 0);
        vfs_free(v);
    }
    v = vfs_create();
    assert_false(vfs_add_archive_memory(v, "t.wad", p.p, p.len, &err));
    assert_non_null(strstr(err.msg, "not an archive"));
    vfs_free(v);
    free(p.p);
    free(z.p);
}

/* Committed malformed archives (tests/data/textures/bad/, made by
 * make_bad.py there): each must be refused with its specific error, either
 * when the directory is read or when the entry is. */
static void test_bad_files(void **state)
{
    (void)state;
    static const struct {
        const char *file, *entry, *msg;
    } cases[] = {
        {"dir_outside.pak", NULL, "outside"},
        {"dir_notmultiple.pak", NULL, "not a multiple"},
        {"entry_outside.pak", NULL, "outside the file"},
        {"unterminated_name.pak", NULL, "unterminated"},
        {"negative_dir.pak", NULL, "outside"},
        {"no_header.pak", NULL, "PACK"},
        {"cd_outside.zip", NULL, "central directory"},
        {"bomb_claim.zip", NULL, "limit"},
        {"local_outside.zip", NULL, "central directory"},
        {"bad_local_sig.zip", "a.txt", "local header"},
        {"bad_method.zip", "a.txt", "compression method"},
        {"bad_crc.zip", "a.txt", "CRC"},
        {"short_inflate.zip", "a.txt", "deflate"},
        {"no_eocd.zip", NULL, "end of central directory"},
        {"zip64.zip", NULL, "zip64"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/textures/bad/%s", Q2MAP_TEST_DATA, cases[i].file);
        vfs_t *v = vfs_create();
        q2err_t err = {0};
        bool opened = vfs_add_archive(v, path, &err);
        if (cases[i].entry) {
            if (!opened) fail_msg("%s: expected to open, got %s", cases[i].file, err.msg);
            uint8_t *data;
            size_t size;
            opened = vfs_read(v, cases[i].entry, MAXSZ, &data, &size, &err);
            if (opened) free(data);
        }
        if (opened) fail_msg("%s: accepted", cases[i].file);
        if (!strstr(err.msg, cases[i].msg) || !strstr(err.msg, cases[i].file))
            fail_msg("%s: expected '%s' in error, got: %s", cases[i].file, cases[i].msg, err.msg);
        vfs_free(v);
    }
}

/* Archives written by real zip tools (Python's zipfile with a directory
 * entry and an archive comment; Info-ZIP with extra fields, and streaming
 * with a data descriptor, so the local header carries no sizes). */
static void test_real_zip_writers(void **state)
{
    (void)state;
    const char *dir = Q2MAP_TEST_DATA "/textures/archives";
    char path[4096];
    q2err_t err = {0};
    uint8_t *data, *want;
    size_t size, wsize;

    vfs_t *v = vfs_create();
    snprintf(path, sizeof path, "%s/python_zipfile.pk3", dir);
    if (!vfs_add_archive(v, path, &err)) fail_msg("%s", err.msg);
    expect_content(v, "textures/zz/a.wal_json", "{ \"flags\": [\"LIGHT\"], \"value\": 300 }\n");
    assert_true(vfs_read(v, "textures/zz/b.png", MAXSZ, &data, &size, &err));
    assert_true(file_read_all(Q2MAP_TEST_DATA "/textures/baseq2/textures/e1u1/yellow32x32.png", MAXSZ, &want, &wsize,
                              &err));
    assert_int_equal(size, wsize);
    assert_memory_equal(data, want, size);
    free(data);
    free(want);
    vfs_free(v);

    v = vfs_create();
    snprintf(path, sizeof path, "%s/infozip.zip", dir);
    if (!vfs_add_archive(v, path, &err)) fail_msg("%s", err.msg);
    expect_content(v, "textures/c.wal_json", "{\"value\": 5}\n");
    vfs_free(v);

    v = vfs_create();
    snprintf(path, sizeof path, "%s/infozip_stream.zip", dir);
    if (!vfs_add_archive(v, path, &err)) fail_msg("%s", err.msg);
    assert_true(vfs_read(v, "-", MAXSZ, &data, &size, &err));
    snprintf(path, sizeof path, "%s/infozip_stream.txt", dir);
    assert_true(file_read_all(path, MAXSZ, &want, &wsize, &err));
    assert_int_equal(size, wsize);
    assert_memory_equal(data, want, size);
    free(data);
    free(want);
    vfs_free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_override_order),
        cmocka_unit_test(test_memory_archives_and_threads),
        cmocka_unit_test(test_corrupt_in_memory),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_real_zip_writers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
