#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive_build.h"
#include "test_util.h"
#include "fileio.h"
#include "log.h"
#include "q2defs.h"
#include "textures.h"
#include "vfs.h"

#define DATA Q2MAP_TEST_DATA "/textures"
#define GAMEDIR DATA "/baseq2"
#define MAXSZ ((size_t)1 << 26)

static uint8_t *slurp(const char *path, size_t *size) { return tu_read_file(path, MAXSZ, size); }

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* Every PNG in the test data decodes at the size its IHDR chunk states. */
static void test_png_files(void **state)
{
    (void)state;
    const char *dirs[] = {GAMEDIR "/textures/lq", GAMEDIR "/textures/e1u1"};
    int decoded = 0;
    for (int d = 0; d < 2; d++) {
        DIR *dir = opendir(dirs[d]);
        assert_non_null(dir);
        struct dirent *de;
        while ((de = readdir(dir)) != NULL) {
            size_t n = strlen(de->d_name);
            if (n < 4 || strcmp(de->d_name + n - 4, ".png") != 0) continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dirs[d], de->d_name);
            size_t size;
            uint8_t *data = slurp(path, &size);
            image_t img;
            q2err_t err = {0};
            if (!png_read(data, size, path, &img, &err)) fail_msg("%s", err.msg);
            assert_int_equal(img.width, (int)be32(data + 16));
            assert_int_equal(img.height, (int)be32(data + 20));
            image_free(&img);
            free(data);
            decoded++;
        }
        closedir(dir);
    }
    assert_true(decoded >= 15);

    size_t size;
    uint8_t *data = slurp(GAMEDIR "/textures/e1u1/yellow32x32.png", &size);
    image_t img;
    q2err_t err = {0};
    assert_true(png_read(data, size, "yellow", &img, &err));
    for (int i = 0; i < 32 * 32; i++) {
        assert_int_equal(img.rgba[4 * i + 0], 255);
        assert_int_equal(img.rgba[4 * i + 1], 255);
        assert_int_equal(img.rgba[4 * i + 2], 0);
        assert_int_equal(img.rgba[4 * i + 3], 255);
    }
    image_free(&img);
    free(data);
}

static void test_png_write_read(void **state)
{
    (void)state;
    char *tmp = tu_make_tmpdir("q2m_tex");
    char path[4096];
    snprintf(path, sizeof path, "%s/shot.png", tmp);
    image_t img;
    img.width = 37;
    img.height = 11;
    img.rgba = malloc(37 * 11 * 4);
    uint32_t seed = 99;
    for (int i = 0; i < 37 * 11 * 4; i++) {
        seed = seed * 1664525u + 1013904223u;
        img.rgba[i] = (uint8_t)(seed >> 24);
    }
    q2err_t err = {0};
    if (!png_write_file(path, &img, &err)) fail_msg("%s", err.msg);
    size_t size;
    uint8_t *data = slurp(path, &size);
    image_t back;
    assert_true(png_read(data, size, path, &back, &err));
    assert_int_equal(back.width, 37);
    assert_int_equal(back.height, 11);
    assert_memory_equal(back.rgba, img.rgba, 37 * 11 * 4);
    image_free(&back);
    free(data);

    /* A failed write leaves no file (and no temporary) behind. */
    char bad[4096];
    snprintf(bad, sizeof bad, "%s/no/such/dir/x.png", tmp);
    assert_false(png_write_file(bad, &img, &err));
    assert_false(file_exists(bad));
    image_t empty = {0};
    assert_false(png_write_file(path, &empty, &err));
    /* The earlier file is untouched by the failed write. */
    data = slurp(path, &size);
    assert_true(png_read(data, size, path, &back, &err));
    image_free(&back);
    free(data);
    image_free(&img);
    tu_rm_rf(tmp);
    free(tmp);
}

static void test_wal_files(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = slurp(GAMEDIR "/textures/bricks/bricks.wal", &size);
    texmeta_t meta;
    image_t img;
    q2err_t err = {0};
    const palette_t *pal = palette_quake2();
    if (!wal_read(data, size, "bricks.wal", NULL, &meta, &img, &err)) fail_msg("%s", err.msg);
    uint32_t w = data[32] | data[33] << 8 | data[34] << 16 | (uint32_t)data[35] << 24;
    uint32_t h = data[36] | data[37] << 8 | data[38] << 16 | (uint32_t)data[39] << 24;
    uint32_t ofs = data[40] | data[41] << 8 | data[42] << 16 | (uint32_t)data[43] << 24;
    assert_int_equal(meta.width, (int)w);
    assert_int_equal(meta.height, (int)h);
    assert_int_equal(img.width, (int)w);
    assert_true(meta.found && !meta.from_table);
    /* Every texel is its palette entry; index 255 (the re-release's
     * alpha-test hole, which bricks.wal has too) is transparent. */
    assert_true(img.indexed);
    int holes = 0;
    for (uint32_t i = 0; i < w * h; i++) {
        const uint8_t *c = pal->rgb + 3 * data[ofs + i];
        assert_memory_equal(img.rgba + 4 * i, c, 3);
        assert_int_equal(img.rgba[4 * i + 3], data[ofs + i] == 255 ? 0 : 255);
        holes += data[ofs + i] == 255;
    }
    assert_true(holes > 0);
    image_free(&img);
    /* Metadata only. */
    assert_true(wal_read(data, size, "bricks.wal", pal, &meta, NULL, &err));
    free(data);

    /* A custom palette is used when given. */
    palette_t inv;
    for (int i = 0; i < 768; i++) inv.rgb[i] = (uint8_t)(255 - pal->rgb[i]);
    data = slurp(GAMEDIR "/textures/e1u1/test.wal", &size);
    assert_true(wal_read(data, size, "test.wal", &inv, &meta, &img, &err));
    assert_int_equal(img.rgba[0], 255 - pal->rgb[3 * data[100]]);
    image_free(&img);
    free(data);
}

/* Header fields at the offsets of Quake 2's miptex_t: a 32-byte animname
 * with no terminator, then flags, contents and value. */
static void test_wal_header_fields(void **state)
{
    (void)state;
    enum { W = 8, H = 4 };
    uint8_t buf[100 + W * H + W * H / 4 + W * H / 16 + W * H / 64 + 4];
    memset(buf, 0, sizeof buf);
    memcpy(buf, "e1u1/self", 9);
    buf[32] = W;
    buf[36] = H;
    uint32_t ofs[4] = {100, 100 + W * H, 100 + W * H + W * H / 4, 100 + W * H + W * H / 4 + W * H / 16};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 4; k++) buf[40 + 4 * i + k] = (uint8_t)(ofs[i] >> (8 * k));
    memcpy(buf + 56, "e1u1/next_frame_name_is_32_chars", 32);
    const int32_t fields[3] = {SURF_LIGHT | SURF_WARP, CONTENTS_WATER | CONTENTS_CURRENT_90, -7};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 4; k++) buf[88 + 4 * i + k] = (uint8_t)((uint32_t)fields[i] >> (8 * k));
    for (int i = 0; i < W * H; i++) buf[100 + i] = (uint8_t)(i * 3);
    texmeta_t meta;
    image_t img;
    q2err_t err = {0};
    if (!wal_read(buf, sizeof buf, "hdr.wal", NULL, &meta, &img, &err)) fail_msg("%s", err.msg);
    assert_int_equal(meta.width, W);
    assert_int_equal(meta.height, H);
    assert_string_equal(meta.animname, "e1u1/next_frame_name_is_32_chars");
    assert_int_equal(meta.flags, fields[0]);
    assert_int_equal(meta.contents, fields[1]);
    assert_int_equal(meta.value, fields[2]);
    const palette_t *pal = palette_quake2();
    for (int i = 0; i < W * H; i++) assert_memory_equal(img.rgba + 4 * i, pal->rgb + 3 * (uint8_t)(i * 3), 3);
    image_free(&img);
    /* Mip 0 alone is enough: the smaller levels are not needed. */
    assert_true(wal_read(buf, 100 + W * H, "hdr.wal", NULL, &meta, NULL, &err));
    assert_false(wal_read(buf, 100 + W * H - 1, "hdr.wal", NULL, &meta, NULL, &err));
}

/* The built-in palette is the ericw-tools palette file it was generated
 * from. */
static void test_palette(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = slurp(DATA "/palettes/q2_palette_from_ericw-tools.lmp", &size);
    assert_int_equal(size, 768);
    assert_memory_equal(palette_quake2()->rgb, data, 768);
    free(data);
}

static void tga_header(ab_buf_t *b, int type, int w, int h, int bits, int desc)
{
    uint8_t hdr[18] = {0};
    hdr[0] = 3; /* an image ID to skip */
    hdr[2] = (uint8_t)type;
    hdr[12] = (uint8_t)w;
    hdr[13] = (uint8_t)(w >> 8);
    hdr[14] = (uint8_t)h;
    hdr[15] = (uint8_t)(h >> 8);
    hdr[16] = (uint8_t)bits;
    hdr[17] = (uint8_t)desc;
    ab_put(b, hdr, 18);
    ab_put(b, "id!", 3);
}

/* Encodes the image as TGA: bpp 1 (grey: uses R), 3 or 4; rle; rows bottom
 * first unless top_first. RLE mixes repeat and raw packets. */
static ab_buf_t tga_encode(const image_t *img, int bpp, bool rle, bool top_first)
{
    ab_buf_t b = {0};
    int type = bpp == 1 ? (rle ? 11 : 3) : (rle ? 10 : 2);
    tga_header(&b, type, img->width, img->height, bpp * 8, (top_first ? 0x20 : 0) | (bpp == 4 ? 8 : 0));
    int n = img->width * img->height;
    uint8_t *pix = malloc((size_t)n * 4);
    for (int y = 0; y < img->height; y++) {
        int sy = top_first ? y : img->height - 1 - y;
        for (int x = 0; x < img->width; x++) {
            const uint8_t *s = img->rgba + 4 * (sy * img->width + x);
            uint8_t *d = pix + 4 * (y * img->width + x);
            if (bpp == 1) {
                d[0] = s[0];
            } else {
                d[0] = s[2];
                d[1] = s[1];
                d[2] = s[0];
                d[3] = s[3];
            }
        }
    }
    int i = 0;
    while (i < n) {
        if (!rle) {
            ab_put(&b, pix + 4 * i, (size_t)bpp);
            i++;
            continue;
        }
        int run = 1;
        while (i + run < n && run < 128 && memcmp(pix + 4 * i, pix + 4 * (i + run), (size_t)bpp) == 0) run++;
        if (run > 1) {
            uint8_t h = (uint8_t)(0x80 | (run - 1));
            ab_put(&b, &h, 1);
            ab_put(&b, pix + 4 * i, (size_t)bpp);
            i += run;
        } else {
            int raw = 1;
            while (i + raw < n && raw < 128 &&
                   memcmp(pix + 4 * (i + raw), pix + 4 * (i + raw - 1), (size_t)bpp) != 0)
                raw++;
            uint8_t h = (uint8_t)(raw - 1);
            ab_put(&b, &h, 1);
            for (int k = 0; k < raw; k++) ab_put(&b, pix + 4 * (i + k), (size_t)bpp);
            i += raw;
        }
    }
    free(pix);
    return b;
}

static void test_tga(void **state)
{
    (void)state;
    /* Runs of equal pixels and noise, non-square, rows that differ. */
    image_t img = {23, 17, malloc(23 * 17 * 4), false};
    uint32_t seed = 7;
    for (int i = 0; i < 23 * 17; i++) {
        seed = seed * 1664525u + 1013904223u;
        bool flat = (i / 5) % 3 == 0;
        for (int k = 0; k < 4; k++) img.rgba[4 * i + k] = flat ? (uint8_t)(40 * k + 10) : (uint8_t)(seed >> (8 * k));
    }
    for (int bpp = 1; bpp <= 4; bpp++) {
        if (bpp == 2) continue;
        image_t want = {img.width, img.height, malloc(23 * 17 * 4), false};
        for (int i = 0; i < 23 * 17; i++) {
            const uint8_t *s = img.rgba + 4 * i;
            uint8_t *d = want.rgba + 4 * i;
            if (bpp == 1)
                d[0] = d[1] = d[2] = s[0], d[3] = 255;
            else
                d[0] = s[0], d[1] = s[1], d[2] = s[2], d[3] = bpp == 4 ? s[3] : 255;
        }
        for (int rle = 0; rle < 2; rle++) {
            for (int top = 0; top < 2; top++) {
                ab_buf_t b = tga_encode(&img, bpp, rle, top);
                image_t out;
                q2err_t err = {0};
                if (!tga_read(b.p, b.len, "t.tga", &out, &err)) fail_msg("bpp %d rle %d: %s", bpp, rle, err.msg);
                assert_int_equal(out.width, 23);
                assert_int_equal(out.height, 17);
                if (memcmp(out.rgba, want.rgba, 23 * 17 * 4) != 0) fail_msg("bpp %d rle %d top %d differs", bpp, rle, top);
                image_free(&out);
                /* Every truncation is an error, never a crash. */
                for (size_t len = 0; len + 1 < b.len; len += 1 + len / 8) {
                    assert_false(tga_read(b.p, len, "t.tga", &out, &err));
                    assert_null(out.rgba);
                }
                free(b.p);
            }
        }
        image_free(&want);
    }
    image_free(&img);
}

/* PCX RLE: bytes >= 0xC0 always need a run prefix. */
static void pcx_put_run(ab_buf_t *b, uint8_t v, int count)
{
    while (count > 0) {
        int c = count > 63 ? 63 : count;
        if (c == 1 && v < 0xc0) {
            ab_put(b, &v, 1);
        } else {
            uint8_t r = (uint8_t)(0xc0 | c);
            ab_put(b, &r, 1);
            ab_put(b, &v, 1);
        }
        count -= c;
    }
}

static void test_pcx(void **state)
{
    (void)state;
    enum { W = 70, H = 9, BPL = 72 };
    uint8_t idx[H][BPL];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < BPL; x++) idx[y][x] = (uint8_t)(x < 30 ? 200 + y : (x * 37 + y * 11) & 0xff);
    ab_buf_t b = {0};
    uint8_t hdr[128] = {0};
    hdr[0] = 0x0a;
    hdr[1] = 5;
    hdr[2] = 1;
    hdr[3] = 8;
    hdr[8] = W - 1;
    hdr[10] = H - 1;
    hdr[65] = 1;
    hdr[66] = BPL;
    ab_put(&b, hdr, 128);
    for (int y = 0; y < H; y++) {
        int x = 0;
        while (x < BPL) {
            int run = 1;
            while (x + run < BPL && idx[y][x + run] == idx[y][x]) run++;
            pcx_put_run(&b, idx[y][x], run);
            x += run;
        }
    }
    palette_t pal;
    for (int i = 0; i < 768; i++) pal.rgb[i] = (uint8_t)(i * 5 + 3);
    uint8_t marker = 0x0c;
    ab_put(&b, &marker, 1);
    ab_put(&b, pal.rgb, 768);

    image_t img;
    palette_t got;
    q2err_t err = {0};
    if (!pcx_read(b.p, b.len, "c.pcx", &img, &got, &err)) fail_msg("%s", err.msg);
    assert_memory_equal(got.rgb, pal.rgb, 768);
    assert_int_equal(img.width, W);
    assert_int_equal(img.height, H);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t *p = img.rgba + 4 * (y * W + x);
            assert_memory_equal(p, pal.rgb + 3 * idx[y][x], 3);
        }
    image_free(&img);
    /* Truncations inside the pixel data run into the palette marker check
     * or the end of the data; either way an error. */
    for (size_t len = 0; len < b.len; len += 7) {
        assert_false(pcx_read(b.p, len, "c.pcx", &img, &got, &err));
        assert_null(img.rgba);
    }
    free(b.p);
}

typedef struct waljson_case_t {
    const char *file;
    int contents, flags, value;
    bool color;
} waljson_case_t;

static int count_files_with_ext(const char *dir, const char *ext)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        size_t l = strlen(de->d_name), m = strlen(ext);
        if (l > m && strcmp(de->d_name + l - m, ext) == 0) n++;
    }
    if (d) closedir(d);
    return n;
}

/* Each .wal_json decodes to what its text says (checked by name here), and
 * the built-in tool table agrees with every one that names a tool texture;
 * the others are ordinary textures the table must not claim. */
static void test_wal_json_and_tool_table(void **state)
{
    (void)state;
    static const waljson_case_t cases[] = {
        {"clip", CONTENTS_MONSTERCLIP | CONTENTS_PLAYERCLIP, SURF_NODRAW, 0, false},
        {"clip_mon", CONTENTS_MONSTERCLIP, SURF_NODRAW, 0, false},
        {"hint", 0, SURF_NODRAW | SURF_HINT, 0, false},
        {"origin", CONTENTS_ORIGIN, SURF_NODRAW, 0, false},
        {"sky1", 0, SURF_SKY | SURF_NODRAW, 0, true},
        {"trigger", 0, SURF_NODRAW, 0, false},
        {"bluwter", CONTENTS_WATER, SURF_LIGHT | SURF_WARP | SURF_TRANS33, 100, false},
        {"baselt_5", CONTENTS_SOLID, SURF_LIGHT, 1000, true},
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    /* No .wal_json in the data goes unchecked. */
    assert_int_equal(count_files_with_ext(GAMEDIR "/textures/e1u1", ".wal_json"), ncases);
    int tools = 0;
    for (int i = 0; i < ncases; i++) {
        char path[4096];
        snprintf(path, sizeof path, GAMEDIR "/textures/e1u1/%s.wal_json", cases[i].file);
        size_t size;
        uint8_t *data = slurp(path, &size);
        texmeta_t meta;
        q2err_t err = {0};
        if (!wal_json_read((const char *)data, size, path, &meta, &err)) fail_msg("%s", err.msg);
        assert_int_equal(meta.contents, cases[i].contents);
        assert_int_equal(meta.flags, cases[i].flags);
        assert_int_equal(meta.value, cases[i].value);
        int c = -1, f = -1, v = -1;
        char name[64];
        snprintf(name, sizeof name, "e1u1/%s", cases[i].file);
        if (tooltex_lookup(name, &c, &f, &v)) {
            tools++;
            if (c != meta.contents || f != meta.flags || v != meta.value)
                fail_msg("tool table for %s: contents %#x flags %#x value %d; .wal_json says %#x %#x %d", name, c, f, v,
                         meta.contents, meta.flags, meta.value);
        } else {
            /* Only textures whose metadata is more than a tool marker may be
             * missing from the table. */
            assert_true(meta.value != 0 || (meta.flags & SURF_LIGHT));
        }
        free(data);
    }
    assert_int_equal(tools, 6);

    /* Both integer and named forms, unknown keys skipped, animation. */
    texmeta_t meta;
    q2err_t err = {0};
    const char *j = "{ \"width\": 128, \"height\": 32, \"flags\": 136, \"contents\": [], \"value\": -5,\n"
                    "  \"animation\": \"e1u1/anim2\", \"extra\": {\"a\": [1, 2.5e3, true, null, \"x\"]} }";
    assert_true(wal_json_read(j, strlen(j), "j", &meta, &err));
    assert_int_equal(meta.width, 128);
    assert_int_equal(meta.height, 32);
    assert_int_equal(meta.flags, SURF_NODRAW | SURF_WARP);
    assert_int_equal(meta.contents, 0);
    assert_int_equal(meta.value, -5);
    assert_string_equal(meta.animname, "e1u1/anim2");
    assert_true(wal_json_read("{}", 2, "empty", &meta, &err));
    assert_false(wal_json_read("", 0, "nothing", &meta, &err));
}

static void test_tool_table_names(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int contents, flags;
    } yes[] = {
        {"e1u1/clip", CONTENTS_PLAYERCLIP | CONTENTS_MONSTERCLIP, SURF_NODRAW},
        {"CLIP", CONTENTS_PLAYERCLIP | CONTENTS_MONSTERCLIP, SURF_NODRAW},
        {"tools\\monclip", CONTENTS_MONSTERCLIP, SURF_NODRAW},
        {"e2u1/sky2", 0, SURF_SKY | SURF_NODRAW},
        {"sky4", 0, SURF_SKY | SURF_NODRAW},
        {"e1u1/skip", 0, SURF_SKIP | SURF_NODRAW},
        {"lq/hintskip", 0, SURF_SKIP | SURF_NODRAW},
        {"e1u1/nodraw", 0, SURF_NODRAW},
        {"areaportal", CONTENTS_AREAPORTAL, SURF_NODRAW},
        {"*water1", CONTENTS_WATER, SURF_WARP},
        {"*04water2", CONTENTS_WATER, SURF_WARP},
        {"*teleport", CONTENTS_WATER, SURF_WARP},
        {"*slime0", CONTENTS_SLIME, SURF_WARP},
        {"*LAVA1", CONTENTS_LAVA, SURF_WARP},
        {"q1/trigger", 0, SURF_NODRAW},
        {"mist", CONTENTS_MIST, 0},
        {"ladder", CONTENTS_LADDER, 0},
    };
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        int c = -1, f = -1, v = -1;
        if (!tooltex_lookup(yes[i].name, &c, &f, &v)) fail_msg("%s not in the table", yes[i].name);
        if (c != yes[i].contents || f != yes[i].flags || v != 0)
            fail_msg("%s: contents %#x flags %#x value %d", yes[i].name, c, f, v);
    }
    const char *no[] = {"e1u1/floor1_1", "water1", "e1u1/clip2", "clipper", "lava", "", "e1u1/", "bluesky"};
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) assert_false(tooltex_lookup(no[i], NULL, NULL, NULL));
}

static log_t *capture_log(FILE **errf)
{
    log_t *log = calloc(1, sizeof *log);
    *errf = tmpfile();
    assert_non_null(*errf);
    log_init(log, LOG_NORMAL, *errf, *errf);
    return log;
}

static char *read_stream(FILE *f)
{
    fflush(f);
    long n = ftell(f);
    char *s = calloc((size_t)n + 1, 1);
    rewind(f);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = 0;
    return s;
}

static int count_substr(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

static void put_json(ab_file_t *f, const char *name, const char *json)
{
    *f = (ab_file_t){name, json, strlen(json), 8};
}

/* Lookup through a search path: loose directory < pak0 < pak1 < pk3, and a
 * later game directory over all of them. */
static void test_texdb_override(void **state)
{
    (void)state;
    char *tmp = tu_make_tmpdir("q2m_tex");
    char base[4096], mod[4096];
    snprintf(base, sizeof base, "%s/baseq2", tmp);
    snprintf(mod, sizeof mod, "%s/mod", tmp);
    mkdir(base, 0755);
    mkdir(mod, 0755);

    const char *v1 = "{ \"value\": 1 }", *v2 = "{ \"value\": 2 }", *v3 = "{ \"value\": 3 }", *v4 = "{ \"value\": 4 }";
    tu_write_file(base, "textures/t/a.wal_json", v1, strlen(v1));
    tu_write_file(base, "textures/t/loose.wal_json", v1, strlen(v1));

    size_t wsz;
    uint8_t *wal = slurp(GAMEDIR "/textures/e1u1/test.wal", &wsz);
    size_t psz;
    uint8_t *png = slurp(GAMEDIR "/textures/e1u1/yellow32x32.png", &psz);

    ab_file_t p0[3];
    put_json(&p0[0], "textures/t/a.wal_json", v2);
    put_json(&p0[1], "textures/t/b.wal_json", v2);
    p0[2] = (ab_file_t){"textures/t/inpak.wal", wal, wsz, 0};
    assert_true(ab_save(base, "pak0.pak", ab_pak(p0, 3)));
    ab_file_t p1[1];
    put_json(&p1[0], "textures/t/b.wal_json", v3);
    assert_true(ab_save(base, "pak1.pak", ab_pak(p1, 1)));
    ab_file_t z[3];
    put_json(&z[0], "textures/t/a.wal_json", v3);
    z[1] = (ab_file_t){"textures/t/img.png", png, psz, 8};
    z[2] = (ab_file_t){"textures/T/Upper.wal", wal, wsz, 8};
    assert_true(ab_save(base, "zz.pk3", ab_zip(z, 3)));
    tu_write_file(mod, "textures/t/b.wal_json", v4, strlen(v4));

    vfs_t *vfs = vfs_create();
    q2err_t err = {0};
    if (!vfs_add_gamedir(vfs, base, &err)) fail_msg("%s", err.msg);
    FILE *ef;
    log_t *log = capture_log(&ef);
    texdb_t *db = texdb_create(vfs, log);
    assert_int_equal(texdb_meta(db, "t/a")->value, 3);     /* pk3 over pak0 over loose */
    assert_int_equal(texdb_meta(db, "t/b")->value, 3);     /* pak1 over pak0 */
    assert_int_equal(texdb_meta(db, "t/loose")->value, 1); /* only loose */
    const texmeta_t *m = texdb_meta(db, "t/inpak");
    assert_true(m->found && !m->from_table);
    assert_int_equal(m->width, 64);
    assert_non_null(texdb_image(db, "t/inpak"));
    /* Names are case-insensitive inside archives; the cache too. */
    assert_ptr_equal(texdb_meta(db, "t/upper"), texdb_meta(db, "T/UPPER"));
    assert_true(texdb_meta(db, "t/upper")->found);
    const image_t *img = texdb_image(db, "t/img");
    assert_non_null(img);
    assert_int_equal(img->width, 32);
    double rgb[3];
    texdb_average_color(db, "t/img", rgb);
    assert_true(rgb[0] == 1.0 && rgb[1] == 1.0 && rgb[2] == 0.0);
    texdb_free(db);

    /* A mod directory added after the base game overrides it. */
    if (!vfs_add_gamedir(vfs, mod, &err)) fail_msg("%s", err.msg);
    db = texdb_create(vfs, log);
    assert_int_equal(texdb_meta(db, "t/b")->value, 4);
    assert_int_equal(texdb_meta(db, "t/a")->value, 3);
    texdb_free(db);
    assert_int_equal(log->warnings, 0);
    const char **deps;
    int nd = vfs_deps(vfs, &deps);
    assert_true(nd >= 5);
    vfs_free(vfs);
    char *text = read_stream(ef);
    assert_string_equal(text, "");
    free(text);
    fclose(ef);
    free(log);
    free(wal);
    free(png);
    tu_rm_rf(tmp);
    free(tmp);
}

static void test_texdb_real_data(void **state)
{
    (void)state;
    vfs_t *vfs = vfs_create();
    q2err_t err = {0};
    if (!vfs_add_gamedir(vfs, GAMEDIR, &err)) fail_msg("%s", err.msg);
    FILE *ef;
    log_t *log = capture_log(&ef);
    texdb_t *db = texdb_create(vfs, log);

    const texmeta_t *m = texdb_meta(db, "e1u1/clip");
    assert_true(m->found && !m->from_table);
    assert_int_equal(m->contents, CONTENTS_MONSTERCLIP | CONTENTS_PLAYERCLIP);
    assert_int_equal(m->width, 64); /* no size in the json, no image: default */
    assert_null(texdb_image(db, "e1u1/clip"));

    m = texdb_meta(db, "bricks/bricks");
    assert_true(m->found);
    assert_int_equal(m->width, 256);
    const image_t *img = texdb_image(db, "bricks/bricks");
    assert_non_null(img);
    /* The average is the mean of the decoded texels. */
    double sum[3] = {0, 0, 0};
    for (int i = 0; i < img->width * img->height; i++)
        for (int k = 0; k < 3; k++) sum[k] += img->rgba[4 * i + k];
    double rgb[3];
    texdb_average_color(db, "bricks/bricks", rgb);
    for (int k = 0; k < 3; k++) assert_true(fabs(rgb[k] - sum[k] / (255.0 * img->width * img->height)) < 1e-12);

    /* PNG image, metadata from the tool table (no .wal or .wal_json). */
    m = texdb_meta(db, "lq/clip");
    assert_true(m->found && m->from_table);
    assert_int_equal(m->contents, CONTENTS_PLAYERCLIP | CONTENTS_MONSTERCLIP);
    assert_non_null(texdb_image(db, "lq/clip"));
    m = texdb_meta(db, "lq/wall_grey_a");
    assert_true(m->found && !m->from_table);
    assert_int_equal(m->flags, 0);

    /* .wal_json colour is the average when there is no image. */
    texdb_average_color(db, "e1u1/baselt_5", rgb);
    assert_true(fabs(rgb[0] - 1.0) < 1e-12 && fabs(rgb[1] - 128 / 255.0) < 1e-12 && fabs(rgb[2] - 64 / 255.0) < 1e-12);

    /* Missing: warned once per name, however often and from however many
     * threads it is asked for; tool names still get their flags. */
    int bad = 0;
#pragma omp parallel for num_threads(4) reduction(+ : bad)
    for (int i = 0; i < 64; i++) {
        const texmeta_t *mm = texdb_meta(db, (i % 2) ? "nope/missing" : "e9u9/sky9");
        if (mm->found) bad++;
        if (texdb_image(db, "nope/missing")) bad++;
    }
    assert_int_equal(bad, 0);
    m = texdb_meta(db, "e9u9/sky9");
    assert_true(m->from_table);
    assert_int_equal(m->flags, SURF_SKY | SURF_NODRAW);
    m = texdb_meta(db, "nope/missing");
    assert_false(m->from_table);
    assert_int_equal(m->flags, 0);
    assert_int_equal(m->width, 64);
    texdb_average_color(db, "nope/missing", rgb);
    assert_true(rgb[0] == 0.5 && rgb[1] == 0.5 && rgb[2] == 0.5);
    texdb_free(db);
    vfs_free(vfs);
    char *text = read_stream(ef);
    assert_int_equal(count_substr(text, "nope/missing"), 1);
    assert_int_equal(count_substr(text, "e9u9/sky9"), 1);
    assert_int_equal(log->warnings, 2);
    free(text);
    fclose(ef);
    free(log);

    /* No game data: the table alone, without warnings. */
    db = texdb_create(NULL, NULL);
    m = texdb_meta(db, "e1u1/trigger");
    assert_true(!m->found && m->from_table);
    assert_int_equal(m->flags, SURF_NODRAW);
    assert_null(texdb_image(db, "e1u1/trigger"));
    texdb_free(db);
}

/* Concurrent first lookups of many names agree on one cached entry each. */
static void test_texdb_threads(void **state)
{
    (void)state;
    vfs_t *vfs = vfs_create();
    q2err_t err = {0};
    assert_true(vfs_add_gamedir(vfs, GAMEDIR, &err));
    texdb_t *db = texdb_create(vfs, NULL);
    enum { N = 300 };
    static const texmeta_t *got[4][N];
    static const char *real[] = {"e1u1/clip", "bricks/bricks", "lq/sky_dev", "e1u1/test", "lq/hint"};
#pragma omp parallel for num_threads(4) schedule(static, 1)
    for (int t = 0; t < 4; t++) {
        for (int i = 0; i < N; i++) {
            int k = (i + t * 77) % N;
            char name[64];
            if (k < 5)
                snprintf(name, sizeof name, "%s", real[k]);
            else
                snprintf(name, sizeof name, "gen/tex%d", k);
            got[t][k] = texdb_meta(db, name);
            if (k < 5) texdb_image(db, name);
        }
    }
    for (int k = 0; k < N; k++)
        for (int t = 1; t < 4; t++) assert_ptr_equal(got[t][k], got[0][k]);
    assert_true(got[0][1]->found && got[0][1]->width == 256);
    texdb_free(db);
    vfs_free(vfs);
}

static void test_name_color(void **state)
{
    (void)state;
    uint8_t a[3], b[3];
    texture_name_color("e1u1/floor1_1", a);
    texture_name_color("E1U1/FLOOR1_1", b);
    assert_memory_equal(a, b, 3);
    int distinct = 0;
    uint8_t seen[200][3];
    for (int i = 0; i < 200; i++) {
        char n[32];
        snprintf(n, sizeof n, "e1u1/tex%d", i);
        texture_name_color(n, seen[i]);
        int mx = seen[i][0], mn = seen[i][0];
        for (int k = 1; k < 3; k++) {
            if (seen[i][k] > mx) mx = seen[i][k];
            if (seen[i][k] < mn) mn = seen[i][k];
        }
        /* Bright enough to read, never grey, never fully saturated. */
        assert_true(mx >= 170);
        assert_true(mx - mn >= 0.3 * mx && mn >= 0.4 * mx);
        bool dup = false;
        for (int j = 0; j < i; j++)
            if (!memcmp(seen[j], seen[i], 3)) dup = true;
        distinct += !dup;
    }
    assert_true(distinct >= 150);
}

typedef enum kind_t { K_WAL, K_PNG, K_TGA, K_PCX, K_JSON } kind_t;

/* Committed malformed images (tests/data/textures/bad/, written by
 * make_bad.py there): each gives its specific error and no image. */
static void test_bad_files(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        kind_t kind;
        const char *msg;
        int line;
    } cases[] = {
        {"truncated.wal", K_WAL, "outside the", 0},
        {"short_header.wal", K_WAL, "header", 0},
        {"huge_dims.wal", K_WAL, "size", 0},
        {"zero_width.wal", K_WAL, "size 0x16", 0},
        {"offset_outside.wal", K_WAL, "offset 5000", 0},
        {"offset_in_header.wal", K_WAL, "offset 10", 0},
        {"truncated.png", K_PNG, "PNG", 0},
        {"bad_crc.png", K_PNG, "PNG", 0},
        {"short_rows.png", K_PNG, "PNG", 0},
        {"huge.png", K_PNG, "PNG", 0},
        {"not_png.png", K_PNG, "not a readable PNG", 0},
        {"truncated.tga", K_TGA, "truncated", 0},
        {"rle_overrun.tga", K_TGA, "past the image", 0},
        {"rle_truncated.tga", K_TGA, "truncated", 0},
        {"colormapped.tga", K_TGA, "type 1", 0},
        {"bits16.tga", K_TGA, "16 bits", 0},
        {"cmap_past_end.tga", K_TGA, "past the end", 0},
        {"truncated.pcx", K_PCX, "truncated", 0},
        {"no_palette.pcx", K_PCX, "palette", 0},
        {"bits4.pcx", K_PCX, "4 bits", 0},
        {"unknown_flag.wal_json", K_JSON, "unknown flag name 'SPARKLY'", 3},
        {"bad_syntax.wal_json", K_JSON, "expected '}'", 3},
        {"trailing.wal_json", K_JSON, "after the object", 2},
        {"bad_value.wal_json", K_JSON, "integer for value", 3},
        {"deep.wal_json", K_JSON, "nested", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, DATA "/bad/%s", cases[i].file);
        size_t size;
        uint8_t *data = slurp(path, &size);
        q2err_t err = {0};
        image_t img = {1, 1, (uint8_t *)"junk", false};
        texmeta_t meta;
        palette_t pal;
        bool ok = false;
        switch (cases[i].kind) {
        case K_WAL: ok = wal_read(data, size, cases[i].file, NULL, &meta, &img, &err); break;
        case K_PNG: ok = png_read(data, size, cases[i].file, &img, &err); break;
        case K_TGA: ok = tga_read(data, size, cases[i].file, &img, &err); break;
        case K_PCX: ok = pcx_read(data, size, cases[i].file, &img, &pal, &err); break;
        case K_JSON:
            img.rgba = NULL;
            ok = wal_json_read((const char *)data, size, cases[i].file, &meta, &err);
            break;
        }
        if (ok) fail_msg("%s: accepted", cases[i].file);
        if (!strstr(err.msg, cases[i].msg) || !strstr(err.msg, cases[i].file))
            fail_msg("%s: expected '%s' in error, got: %s", cases[i].file, cases[i].msg, err.msg);
        if (cases[i].line && err.line != cases[i].line)
            fail_msg("%s: expected line %d, got %d (%s)", cases[i].file, cases[i].line, err.line, err.msg);
        assert_null(img.rgba);
        free(data);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_png_files),
        cmocka_unit_test(test_png_write_read),
        cmocka_unit_test(test_wal_files),
        cmocka_unit_test(test_wal_header_fields),
        cmocka_unit_test(test_palette),
        cmocka_unit_test(test_tga),
        cmocka_unit_test(test_pcx),
        cmocka_unit_test(test_wal_json_and_tool_table),
        cmocka_unit_test(test_tool_table_names),
        cmocka_unit_test(test_texdb_override),
        cmocka_unit_test(test_texdb_real_data),
        cmocka_unit_test(test_texdb_threads),
        cmocka_unit_test(test_name_color),
        cmocka_unit_test(test_bad_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
