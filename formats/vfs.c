/* The game file system: loose directories, id .pak files and .pk3/.zip
 * archives.
 *
 * Each archive's directory is read once, validated against the archive's
 * size and kept as an immutable sorted index. Reads are positional reads
 * (common/os.h) of a file held open for the archive's lifetime (or copies
 * from memory),
 * which needs no lock, so any number of threads may read at once. Only the
 * dependency list changes after setup; it is guarded by a named OpenMP
 * critical section. */
#include "vfs.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "../common/fileio.h"
#include "../common/mem.h"
#include "../common/os.h"
#include "bytes.h"

/* Quake 2's pak directory entry: name[56], filepos, filelen. */
#define PAK_HEADER_SIZE 12
#define PAK_ENTRY_SIZE 64
#define PAK_NAME_SIZE 56

/* Zip record sizes and signatures (PKWARE APPNOTE). */
#define ZIP_EOCD_SIZE 22
#define ZIP_EOCD_SIG 0x06054b50u
#define ZIP_CDIR_SIZE 46
#define ZIP_CDIR_SIG 0x02014b50u
#define ZIP_LOCAL_SIZE 30
#define ZIP_LOCAL_SIG 0x04034b50u
#define ZIP_MAX_COMMENT 65535

/* No file a map compiler reads from an archive comes near this; a
 * directory claiming more is corrupt or a decompression bomb. */
#define VFS_MAX_ENTRY_SIZE ((uint64_t)256 << 20)
/* Directory entries per archive: far above any real pak or pk3, low enough
 * that a forged count cannot exhaust memory. */
#define VFS_MAX_ENTRIES (1 << 20)

typedef enum src_kind_t { SRC_DIR, SRC_PAK, SRC_ZIP } src_kind_t;

typedef struct vfs_entry_t {
    char *name; /* lower case */
    uint64_t offset;   /* pak: data; zip: local header */
    uint64_t csize;    /* zip: compressed size; pak: size */
    uint64_t size;     /* uncompressed size */
    uint32_t crc;      /* zip only */
    int method;        /* zip: 0 stored, 8 deflate, other: refused at read */
    bool encrypted;    /* zip only: refused at read */
    int order;         /* position in the directory, to break name ties */
} vfs_entry_t;

typedef struct vfs_source_t {
    src_kind_t kind;
    char *path;          /* directory or archive path (dependency name) */
    os_file_t file;      /* archives on disk; handle -1 for memory and dirs */
    uint8_t *mem;        /* archives in memory */
    uint64_t file_size;  /* archives */
    vfs_entry_t *entries; /* sorted by name, then order */
    int numentries, cap;
    bool dep_recorded;   /* guarded by the deps critical section */
} vfs_source_t;

struct vfs_t {
    vfs_source_t *sources;
    int numsources, cap;
    /* Dependencies, guarded by the critical section q2m_vfs_deps. */
    char **deps;
    int numdeps, capdeps;
    const char **sorted; /* view returned by vfs_deps */
};

vfs_t *vfs_create(void) { return q2_calloc(1, sizeof(vfs_t)); }

static void source_free(vfs_source_t *s)
{
    for (int i = 0; i < s->numentries; i++) free(s->entries[i].name);
    free(s->entries);
    free(s->path);
    free(s->mem);
    os_file_close(&s->file);
}

void vfs_free(vfs_t *vfs)
{
    if (!vfs) return;
    for (int i = 0; i < vfs->numsources; i++) source_free(&vfs->sources[i]);
    free(vfs->sources);
    for (int i = 0; i < vfs->numdeps; i++) free(vfs->deps[i]);
    free(vfs->deps);
    free(vfs->sorted);
    free(vfs);
}

static bool ends_with_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

static void lower_copy(char *dst, const char *src, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = src[i];
        dst[i] = c == '\\' ? '/' : (char)tolower((unsigned char)c);
    }
    dst[n] = 0;
}

static int entry_cmp(const void *a, const void *b)
{
    const vfs_entry_t *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    return (x->order > y->order) - (x->order < y->order);
}

/* The entry for `lname` (lower case); when an archive holds the name twice
 * the later directory entry wins, as a later file would in a directory. */
static const vfs_entry_t *source_find(const vfs_source_t *s, const char *lname)
{
    int lo = 0, hi = s->numentries - 1, found = -1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(s->entries[mid].name, lname);
        if (c <= 0) {
            if (c == 0) found = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return found >= 0 ? &s->entries[found] : NULL;
}

/* Reads `len` bytes at `off` from the archive; the index was validated
 * against the size so a short read means the file changed underneath. */
static bool source_pread(const vfs_source_t *s, uint64_t off, void *buf, size_t len, q2err_t *err)
{
    if (off > s->file_size || len > s->file_size - off)
        return q2err_set(err, s->path, 0, 0, "read of %zu bytes at offset %llu is outside the %llu-byte archive", len,
                         (unsigned long long)off, (unsigned long long)s->file_size);
    if (s->mem) {
        memcpy(buf, s->mem + off, len);
        return true;
    }
    return os_file_pread(&s->file, s->path, off, buf, len, err);
}

static void add_entry(vfs_source_t *s, const char *name, size_t namelen, uint64_t offset, uint64_t csize,
                      uint64_t size)
{
    vfs_entry_t e = {0};
    e.name = q2_malloc(namelen + 1);
    lower_copy(e.name, name, namelen);
    e.offset = offset;
    e.csize = csize;
    e.size = size;
    e.order = s->numentries;
    ARRAY_PUSH(s->entries, s->numentries, s->cap, e);
}

static bool parse_pak(vfs_source_t *s, q2err_t *err)
{
    uint8_t hdr[PAK_HEADER_SIZE];
    if (s->file_size < PAK_HEADER_SIZE)
        return q2err_set(err, s->path, 0, 0, "pak file is %llu bytes, too small for its 12-byte header",
                         (unsigned long long)s->file_size);
    if (!source_pread(s, 0, hdr, sizeof hdr, err)) return false;
    if (memcmp(hdr, "PACK", 4) != 0) return q2err_set(err, s->path, 0, 0, "not a pak file (no PACK header)");
    int32_t dirofs = rd_i32(hdr + 4), dirlen = rd_i32(hdr + 8);
    if (dirofs < PAK_HEADER_SIZE || dirlen < 0 || (uint64_t)dirofs + (uint64_t)dirlen > s->file_size)
        return q2err_set(err, s->path, 0, 0, "pak directory (offset %d, length %d) is outside the %llu-byte file",
                         dirofs, dirlen, (unsigned long long)s->file_size);
    if (dirlen % PAK_ENTRY_SIZE != 0)
        return q2err_set(err, s->path, 0, 0, "pak directory length %d is not a multiple of %d", dirlen,
                         PAK_ENTRY_SIZE);
    int count = dirlen / PAK_ENTRY_SIZE;
    if (count > VFS_MAX_ENTRIES)
        return q2err_set(err, s->path, 0, 0, "pak directory has %d entries, more than %d", count, VFS_MAX_ENTRIES);
    uint8_t *dir = q2_malloc((size_t)dirlen + 1);
    if (!source_pread(s, (uint64_t)dirofs, dir, (size_t)dirlen, err)) {
        free(dir);
        return false;
    }
    for (int i = 0; i < count; i++) {
        const uint8_t *p = dir + (size_t)i * PAK_ENTRY_SIZE;
        size_t namelen = strnlen((const char *)p, PAK_NAME_SIZE);
        int32_t pos = rd_i32(p + PAK_NAME_SIZE), len = rd_i32(p + PAK_NAME_SIZE + 4);
        if (namelen == PAK_NAME_SIZE || namelen == 0) {
            free(dir);
            return q2err_set(err, s->path, 0, 0, "pak entry %d has %s name", i,
                             namelen ? "an unterminated" : "an empty");
        }
        if (pos < 0 || len < 0 || (uint64_t)pos + (uint64_t)len > s->file_size) {
            free(dir);
            return q2err_set(err, s->path, 0, 0, "pak entry %d '%.*s' (offset %d, length %d) is outside the file", i,
                             (int)namelen, (const char *)p, pos, len);
        }
        add_entry(s, (const char *)p, namelen, (uint64_t)pos, (uint64_t)len, (uint64_t)len);
    }
    free(dir);
    return true;
}

static bool parse_zip(vfs_source_t *s, q2err_t *err)
{
    if (s->file_size < ZIP_EOCD_SIZE)
        return q2err_set(err, s->path, 0, 0, "zip file is %llu bytes, too small for an end of central directory",
                         (unsigned long long)s->file_size);
    /* The end record sits at the end, followed only by its comment. */
    uint64_t tail = s->file_size < ZIP_EOCD_SIZE + ZIP_MAX_COMMENT ? s->file_size : ZIP_EOCD_SIZE + ZIP_MAX_COMMENT;
    uint8_t *buf = q2_malloc((size_t)tail);
    uint64_t tail_start = s->file_size - tail;
    if (!source_pread(s, tail_start, buf, (size_t)tail, err)) {
        free(buf);
        return false;
    }
    int64_t eocd = -1;
    for (int64_t i = (int64_t)tail - ZIP_EOCD_SIZE; i >= 0; i--) {
        if (rd_u32(buf + i) == ZIP_EOCD_SIG && (uint64_t)i + ZIP_EOCD_SIZE + rd_u16(buf + i + 20) <= tail) {
            eocd = i;
            break;
        }
    }
    if (eocd < 0) {
        free(buf);
        return q2err_set(err, s->path, 0, 0, "not a zip file (no end of central directory record)");
    }
    const uint8_t *e = buf + eocd;
    uint16_t disk = rd_u16(e + 4), cddisk = rd_u16(e + 6), ndisk = rd_u16(e + 8), ntotal = rd_u16(e + 10);
    uint32_t cdsize = rd_u32(e + 12), cdofs = rd_u32(e + 16);
    uint64_t eocd_pos = tail_start + (uint64_t)eocd;
    free(buf);
    if (disk != 0 || cddisk != 0 || ndisk != ntotal)
        return q2err_set(err, s->path, 0, 0, "multi-part zip archives are not supported");
    if (ntotal == 0xffff || cdsize == 0xffffffffu || cdofs == 0xffffffffu)
        return q2err_set(err, s->path, 0, 0, "zip64 archives are not supported");
    if ((uint64_t)cdofs + cdsize > eocd_pos)
        return q2err_set(err, s->path, 0, 0, "zip central directory (offset %u, size %u) overlaps or passes the end record",
                         cdofs, cdsize);
    if ((uint64_t)ntotal * ZIP_CDIR_SIZE > cdsize)
        return q2err_set(err, s->path, 0, 0, "zip central directory of %u bytes cannot hold %u entries", cdsize, ntotal);
    uint8_t *cd = q2_malloc((size_t)cdsize + 1);
    if (!source_pread(s, cdofs, cd, cdsize, err)) {
        free(cd);
        return false;
    }
    size_t p = 0;
    for (unsigned i = 0; i < ntotal; i++) {
        if (p + ZIP_CDIR_SIZE > cdsize || rd_u32(cd + p) != ZIP_CDIR_SIG) {
            q2err_set(err, s->path, 0, 0, "zip central directory entry %u is malformed", i);
            free(cd);
            return false;
        }
        const uint8_t *c = cd + p;
        uint16_t flags = rd_u16(c + 8), method = rd_u16(c + 10);
        uint32_t crc = rd_u32(c + 16), csize = rd_u32(c + 20), usize = rd_u32(c + 24);
        uint16_t nlen = rd_u16(c + 28), xlen = rd_u16(c + 30), clen = rd_u16(c + 32);
        uint32_t lho = rd_u32(c + 42);
        size_t rec = (size_t)ZIP_CDIR_SIZE + nlen + xlen + clen;
        if (p + rec > cdsize || nlen == 0) {
            q2err_set(err, s->path, 0, 0, "zip central directory entry %u has a bad name or length", i);
            free(cd);
            return false;
        }
        const char *name = (const char *)c + ZIP_CDIR_SIZE;
        p += rec;
        if (memchr(name, 0, nlen)) {
            q2err_set(err, s->path, 0, 0, "zip entry %u has a NUL byte in its name", i);
            free(cd);
            return false;
        }
        if (name[nlen - 1] == '/') continue; /* a directory */
        if (csize == 0xffffffffu || usize == 0xffffffffu || lho == 0xffffffffu) {
            q2err_set(err, s->path, 0, 0, "zip entry '%.*s' needs zip64, which is not supported", (int)nlen,
                             name);
            free(cd);
            return false;
        }
        if (usize > VFS_MAX_ENTRY_SIZE) {
            q2err_set(err, s->path, 0, 0, "zip entry '%.*s' claims %u bytes, more than the %llu-byte limit",
                             (int)nlen, name, usize, (unsigned long long)VFS_MAX_ENTRY_SIZE);
            free(cd);
            return false;
        }
        if ((uint64_t)lho + ZIP_LOCAL_SIZE + csize > cdofs) {
            q2err_set(err, s->path, 0, 0,
                             "zip entry '%.*s' (local header at %u, %u compressed bytes) runs into the central directory",
                             (int)nlen, name, lho, csize);
            free(cd);
            return false;
        }
        if (method == 0 && csize != usize) {
            q2err_set(err, s->path, 0, 0, "stored zip entry '%.*s' has compressed size %u but size %u",
                             (int)nlen, name, csize, usize);
            free(cd);
            return false;
        }
        add_entry(s, name, nlen, lho, csize, usize);
        vfs_entry_t *ent = &s->entries[s->numentries - 1];
        ent->crc = crc;
        ent->method = method;
        ent->encrypted = (flags & 1) != 0;
    }
    free(cd);
    return true;
}

static vfs_source_t *push_source(vfs_t *vfs, src_kind_t kind, const char *path)
{
    vfs_source_t s = {0};
    s.kind = kind;
    s.path = q2_strdup(path);
    s.file.handle = -1;
    ARRAY_PUSH(vfs->sources, vfs->numsources, vfs->cap, s);
    return &vfs->sources[vfs->numsources - 1];
}

/* Parses the directory of the source just pushed; on failure pops it. */
static bool finish_archive(vfs_t *vfs, vfs_source_t *s, q2err_t *err)
{
    bool ok = s->kind == SRC_PAK ? parse_pak(s, err) : parse_zip(s, err);
    if (!ok) {
        source_free(s);
        vfs->numsources--;
        return false;
    }
    if (s->numentries > 0) qsort(s->entries, (size_t)s->numentries, sizeof *s->entries, entry_cmp);
    return true;
}

static bool archive_kind(const char *name, src_kind_t *kind, q2err_t *err)
{
    *kind = SRC_DIR;
    if (ends_with_ci(name, ".pak"))
        *kind = SRC_PAK;
    else if (ends_with_ci(name, ".pk3") || ends_with_ci(name, ".zip"))
        *kind = SRC_ZIP;
    else
        return q2err_set(err, name, 0, 0, "not an archive name (expected .pak, .pk3 or .zip)");
    return true;
}

bool vfs_add_archive(vfs_t *vfs, const char *path, q2err_t *err)
{
    src_kind_t kind;
    if (!archive_kind(path, &kind, err)) return false;
    os_file_t f;
    if (!os_file_open_read(path, &f, err)) return false;
    vfs_source_t *s = push_source(vfs, kind, path);
    s->file = f;
    s->file_size = f.size;
    return finish_archive(vfs, s, err);
}

bool vfs_add_archive_memory(vfs_t *vfs, const char *name, const uint8_t *data, size_t size, q2err_t *err)
{
    src_kind_t kind;
    if (!archive_kind(name, &kind, err)) return false;
    vfs_source_t *s = push_source(vfs, kind, name);
    s->mem = q2_malloc(size ? size : 1);
    if (size) memcpy(s->mem, data, size);
    s->file_size = size;
    return finish_archive(vfs, s, err);
}

static int strcmp_ptr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The number N of a name "pakN.pak", or -1. */
static long pak_number(const char *name)
{
    if (strncasecmp(name, "pak", 3) != 0 || !ends_with_ci(name, ".pak")) return -1;
    const char *p = name + 3, *end = name + strlen(name) - 4;
    if (p == end || end - p > 6) return -1;
    long n = 0;
    for (; p < end; p++) {
        if (!isdigit((unsigned char)*p)) return -1;
        n = n * 10 + (*p - '0');
    }
    return n;
}

typedef struct pakname_t {
    long num;
    char *name;
} pakname_t;

static int pakname_cmp(const void *a, const void *b)
{
    const pakname_t *x = a, *y = b;
    if (x->num != y->num) return (x->num > y->num) - (x->num < y->num);
    return strcmp(x->name, y->name);
}

bool vfs_add_gamedir(vfs_t *vfs, const char *dir, q2err_t *err)
{
    char **names;
    int nnames;
    if (!os_list_dir(dir, &names, &nnames, err)) return false;
    pakname_t *paks = NULL;
    int npaks = 0, cpaks = 0;
    char **zips = NULL;
    int nzips = 0, czips = 0;
    for (int i = 0; i < nnames; i++) {
        const char *name = names[i];
        long n = pak_number(name);
        if (n >= 0) {
            pakname_t pn = {n, q2_strdup(name)};
            ARRAY_PUSH(paks, npaks, cpaks, pn);
        } else if (ends_with_ci(name, ".pk3") || ends_with_ci(name, ".zip")) {
            char *z = q2_strdup(name);
            ARRAY_PUSH(zips, nzips, czips, z);
        }
    }
    os_free_names(names, nnames);
    /* Listing order depends on the file system; sorting keeps the override
     * order (and so the output) the same everywhere. */
    if (npaks > 0) qsort(paks, (size_t)npaks, sizeof *paks, pakname_cmp);
    if (nzips > 0) qsort(zips, (size_t)nzips, sizeof *zips, strcmp_ptr);

    push_source(vfs, SRC_DIR, dir);
    bool ok = true;
    char path[Q2_PATH_MAX];
    for (int i = 0; i < npaks && ok; i++) {
        if (!path_join(path, sizeof path, dir, paks[i].name))
            ok = q2err_set(err, dir, 0, 0, "path too long");
        else
            ok = vfs_add_archive(vfs, path, err);
    }
    for (int i = 0; i < nzips && ok; i++) {
        if (!path_join(path, sizeof path, dir, zips[i]))
            ok = q2err_set(err, dir, 0, 0, "path too long");
        else
            ok = vfs_add_archive(vfs, path, err);
    }
    for (int i = 0; i < npaks; i++) free(paks[i].name);
    for (int i = 0; i < nzips; i++) free(zips[i]);
    free(paks);
    free(zips);
    return ok;
}

static void record_dep(vfs_t *vfs, vfs_source_t *s, const char *loose_path)
{
#pragma omp critical(q2m_vfs_deps)
    {
        if (loose_path || !s->dep_recorded) {
            char *d = q2_strdup(loose_path ? loose_path : s->path);
            ARRAY_PUSH(vfs->deps, vfs->numdeps, vfs->capdeps, d);
            if (!loose_path) s->dep_recorded = true;
        }
    }
}

int vfs_deps(vfs_t *vfs, const char ***paths)
{
    int n = 0;
#pragma omp critical(q2m_vfs_deps)
    {
        if (vfs->numdeps > 0) qsort(vfs->deps, (size_t)vfs->numdeps, sizeof *vfs->deps, strcmp_ptr);
        int w = 0;
        for (int i = 0; i < vfs->numdeps; i++) {
            if (w > 0 && strcmp(vfs->deps[w - 1], vfs->deps[i]) == 0)
                free(vfs->deps[i]);
            else
                vfs->deps[w++] = vfs->deps[i];
        }
        vfs->numdeps = w;
        free(vfs->sorted);
        vfs->sorted = q2_malloc(sizeof *vfs->sorted * (size_t)(w ? w : 1));
        for (int i = 0; i < w; i++) vfs->sorted[i] = vfs->deps[i];
        n = w;
        *paths = vfs->sorted;
    }
    return n;
}

/* Game paths are relative and stay inside the search path. */
static bool valid_game_path(const char *name)
{
    if (!name[0] || name[0] == '/' || name[0] == '\\' || strchr(name, ':')) return false;
    const char *p = name;
    while (*p) {
        const char *q = p;
        while (*q && *q != '/' && *q != '\\') q++;
        if (q - p == 2 && p[0] == '.' && p[1] == '.') return false;
        p = *q ? q + 1 : q;
    }
    return true;
}

static bool read_zip_entry(const vfs_source_t *s, const vfs_entry_t *e, uint8_t *out, q2err_t *err)
{
    if (e->encrypted) return q2err_set(err, s->path, 0, 0, "zip entry '%s' is encrypted", e->name);
    if (e->method != 0 && e->method != 8)
        return q2err_set(err, s->path, 0, 0, "zip entry '%s' uses compression method %d (only stored and deflate are supported)",
                         e->name, e->method);
    uint8_t lh[ZIP_LOCAL_SIZE];
    if (!source_pread(s, e->offset, lh, sizeof lh, err)) return false;
    if (rd_u32(lh) != ZIP_LOCAL_SIG)
        return q2err_set(err, s->path, 0, 0, "zip entry '%s': no local header at offset %llu", e->name,
                         (unsigned long long)e->offset);
    uint64_t data = e->offset + ZIP_LOCAL_SIZE + rd_u16(lh + 26) + rd_u16(lh + 28);
    if (data > s->file_size || e->csize > s->file_size - data)
        return q2err_set(err, s->path, 0, 0, "zip entry '%s': data (%llu bytes at %llu) is outside the archive",
                         e->name, (unsigned long long)e->csize, (unsigned long long)data);
    if (e->method == 0) {
        if (!source_pread(s, data, out, (size_t)e->size, err)) return false;
    } else {
        uint8_t *comp = q2_malloc((size_t)e->csize + 1);
        if (!source_pread(s, data, comp, (size_t)e->csize, err)) {
            free(comp);
            return false;
        }
        z_stream zs;
        memset(&zs, 0, sizeof zs);
        /* Negative window bits: raw deflate data, as zip stores it. */
        if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) {
            free(comp);
            return q2err_set(err, s->path, 0, 0, "zlib initialisation failed");
        }
        zs.next_in = comp;
        zs.avail_in = (uInt)e->csize;
        zs.next_out = out;
        zs.avail_out = (uInt)e->size;
        int r = inflate(&zs, Z_FINISH);
        bool ok = r == Z_STREAM_END && zs.total_out == e->size;
        inflateEnd(&zs);
        free(comp);
        if (!ok)
            return q2err_set(err, s->path, 0, 0, "zip entry '%s': deflate data is corrupt or not %llu bytes long (%s)",
                             e->name, (unsigned long long)e->size, r == Z_STREAM_END ? "short" : zs.msg ? zs.msg : "truncated");
    }
    uint32_t crc = (uint32_t)crc32(0L, out, (uInt)e->size);
    if (crc != e->crc)
        return q2err_set(err, s->path, 0, 0, "zip entry '%s': CRC mismatch (%08x, directory says %08x)", e->name, crc,
                         e->crc);
    return true;
}

bool vfs_read(vfs_t *vfs, const char *name, size_t max_size, uint8_t **data, size_t *size, q2err_t *err)
{
    *data = NULL;
    *size = 0;
    if (!valid_game_path(name)) return q2err_set(err, name, 0, 0, "invalid game path (absolute or containing '..')");
    size_t nlen = strlen(name);
    if (nlen >= Q2_PATH_MAX) return q2err_set(err, name, 0, 0, "game path too long");
    char lname[Q2_PATH_MAX];
    lower_copy(lname, name, nlen);
    for (int i = vfs->numsources - 1; i >= 0; i--) {
        vfs_source_t *s = &vfs->sources[i];
        if (s->kind == SRC_DIR) {
            /* Loose files: the name as written, then lower case, since
             * Quake 2 data is conventionally lower case on case-sensitive
             * file systems. */
            char path[Q2_PATH_MAX];
            for (int pass = 0; pass < 2; pass++) {
                if (pass == 1 && strcmp(lname, name) == 0) break;
                if (!path_join(path, sizeof path, s->path, pass ? lname : name)) continue;
                if (!os_is_file(path)) continue;
                if (!file_read_all(path, max_size, data, size, err)) return false;
                record_dep(vfs, s, path);
                return true;
            }
            continue;
        }
        const vfs_entry_t *e = source_find(s, lname);
        if (!e) continue;
        if (e->size > max_size)
            return q2err_set(err, s->path, 0, 0, "'%s' is %llu bytes, larger than the %zu-byte limit", name,
                             (unsigned long long)e->size, max_size);
        uint8_t *buf = q2_malloc((size_t)e->size + 1);
        bool ok = s->kind == SRC_PAK ? source_pread(s, e->offset, buf, (size_t)e->size, err)
                                     : read_zip_entry(s, e, buf, err);
        if (!ok) {
            free(buf);
            return false;
        }
        buf[e->size] = 0;
        *data = buf;
        *size = (size_t)e->size;
        record_dep(vfs, s, NULL);
        return true;
    }
    return false;
}
