#include "fileio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "os.h"

bool file_read_all(const char *path, size_t max_size, uint8_t **data, size_t *size, q2err_t *err)
{
    *data = NULL;
    *size = 0;
    FILE *f;
    uint64_t fsize;
    if (!os_open_regular(path, &f, &fsize, err)) return false;
    if (fsize > (uint64_t)max_size) {
        fclose(f);
        return q2err_set(err, path, 0, 0, "file is %lld bytes, larger than the %zu-byte limit", (long long)fsize,
                         max_size);
    }
    size_t n = (size_t)fsize;
    uint8_t *buf = q2_malloc(n + 1);
    if (n > 0 && fread(buf, 1, n, f) != n) {
        free(buf);
        fclose(f);
        return q2err_set(err, path, 0, 0, "read error");
    }
    fclose(f);
    buf[n] = 0;
    *data = buf;
    *size = n;
    return true;
}

bool file_map(const char *path, size_t max_size, file_map_t *m, q2err_t *err)
{
    memset(m, 0, sizeof *m);
    FILE *f;
    uint64_t fsize;
    if (!os_open_regular(path, &f, &fsize, err)) return false;
    if (fsize > (uint64_t)max_size) {
        fclose(f);
        return q2err_set(err, path, 0, 0, "file is %lld bytes, larger than the %zu-byte limit", (long long)fsize,
                         max_size);
    }
    const void *p = os_map_stream(f, (size_t)fsize);
    fclose(f);
    if (p) {
        m->data = p;
        m->size = (size_t)fsize;
        m->mapped = true;
        return true;
    }
    /* anything the system does not map (an empty file) goes the way of
     * file_read_all, with its checks and messages */
    uint8_t *data;
    size_t size;
    if (!file_read_all(path, max_size, &data, &size, err)) return false;
    m->data = data;
    m->size = size;
    return true;
}

void file_unmap(file_map_t *m)
{
    if (m->mapped) os_unmap(m->data, m->size);
    else free((void *)m->data);
    memset(m, 0, sizeof *m);
}

bool atomic_open(atomic_file_t *af, const char *path, q2err_t *err)
{
    memset(af, 0, sizeof *af);
    if (strlen(path) >= sizeof af->path) return q2err_set(err, path, 0, 0, "path too long");
    strcpy(af->path, path);
    snprintf(af->tmp, sizeof af->tmp, "%s.tmp%ld", path, os_process_id());
    af->f = os_fopen(af->tmp, "wb");
    if (!af->f) return q2err_set(err, af->path, 0, 0, "cannot create: %s", strerror(errno));
    return true;
}

bool atomic_commit(atomic_file_t *af, q2err_t *err)
{
    if (!af->f) return q2err_set(err, af->path, 0, 0, "internal error: file not open");
    bool ok = !ferror(af->f);
    if (fflush(af->f) != 0) ok = false;
    if (fclose(af->f) != 0) ok = false;
    af->f = NULL;
    if (!ok) {
        os_remove_file(af->tmp);
        return q2err_set(err, af->path, 0, 0, "write error (disk full?)");
    }
    if (!os_replace_file(af->tmp, af->path, err)) {
        os_remove_file(af->tmp);
        return false;
    }
    return true;
}

void atomic_abort(atomic_file_t *af)
{
    if (af->f) {
        fclose(af->f);
        af->f = NULL;
        os_remove_file(af->tmp);
    }
}

bool file_write_atomic(const char *path, const void *data, size_t size, q2err_t *err)
{
    atomic_file_t af;
    if (!atomic_open(&af, path, err)) return false;
    if (size > 0 && fwrite(data, 1, size, af.f) != size) {
        atomic_abort(&af);
        return q2err_set(err, path, 0, 0, "write error");
    }
    return atomic_commit(&af, err);
}

bool file_write_atomic_parts(const char *path, const file_part_t *parts, int n, q2err_t *err)
{
    atomic_file_t af;
    if (!atomic_open(&af, path, err)) return false;
    for (int i = 0; i < n; i++)
        if (parts[i].size > 0 && fwrite(parts[i].data, 1, parts[i].size, af.f) != parts[i].size) {
            atomic_abort(&af);
            return q2err_set(err, path, 0, 0, "write error");
        }
    return atomic_commit(&af, err);
}

bool file_exists(const char *path) { return os_is_file(path); }

/* The last folder separator in path (os_is_sep), or NULL. */
static const char *last_sep(const char *path)
{
    const char *s = NULL;
    for (const char *p = path; *p; p++)
        if (os_is_sep(*p)) s = p;
    return s;
}

const char *path_basename(const char *path)
{
    const char *s = last_sep(path);
    return s ? s + 1 : path;
}

void path_dirname(char *out, size_t outsz, const char *path)
{
    const char *s = last_sep(path);
    if (!s) {
        snprintf(out, outsz, ".");
        return;
    }
    size_t n = (size_t)(s - path);
    /* "/file" -> "/", and on Windows "C:\\file" -> "C:\\": a root keeps its
     * separator. */
    if (n == 0 || (n == 2 && path[1] == ':' && os_path_is_absolute(path))) n++;
    if (n >= outsz) n = outsz - 1;
    memcpy(out, path, n);
    out[n] = 0;
}

bool path_replace_ext(char *out, size_t outsz, const char *path, const char *ext)
{
    const char *base = path_basename(path);
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - path) : strlen(path);
    if (stem + strlen(ext) + 1 > outsz) return false;
    memcpy(out, path, stem);
    strcpy(out + stem, ext);
    return true;
}

bool path_dir_writable(const char *path, q2err_t *err)
{
    char dir[Q2_PATH_MAX];
    path_dirname(dir, sizeof dir, path);
    if (!os_is_dir(dir)) return q2err_set(err, path, 0, 0, "cannot create: directory %s does not exist", dir);
    if (!os_dir_writable(dir)) return q2err_set(err, path, 0, 0, "cannot create: directory %s is not writable", dir);
    return true;
}

bool path_join(char *out, size_t outsz, const char *a, const char *b)
{
    size_t la = strlen(a);
    int n;
    if (la == 0)
        n = snprintf(out, outsz, "%s", b);
    else if (os_is_sep(a[la - 1]))
        n = snprintf(out, outsz, "%s%s", a, b);
    else /* a folder written with backslashes (Windows) is continued with one */
        n = snprintf(out, outsz, "%s%c%s", a, os_is_sep('\\') && strchr(a, '\\') && !strchr(a, '/') ? '\\' : '/', b);
    return n >= 0 && (size_t)n < outsz;
}
