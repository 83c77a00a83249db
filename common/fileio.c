#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mem.h"
#include "os.h"

bool file_read_all(const char *path, size_t max_size, uint8_t **data, size_t *size, q2err_t *err)
{
    *data = NULL;
    *size = 0;
    /* O_NONBLOCK so that a FIFO or device given by mistake is refused below
     * instead of blocking the open forever. */
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) return q2err_set(err, path, 0, 0, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return q2err_set(err, path, 0, 0, "not a regular file");
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return q2err_set(err, path, 0, 0, "cannot open: %s", strerror(errno));
    }
    if ((uint64_t)st.st_size > (uint64_t)max_size) {
        fclose(f);
        return q2err_set(err, path, 0, 0, "file is %lld bytes, larger than the %zu-byte limit",
                         (long long)st.st_size, max_size);
    }
    size_t n = (size_t)st.st_size;
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
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) return q2err_set(err, path, 0, 0, "cannot open: %s", strerror(errno));
    struct stat st;
    bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (regular && (uint64_t)st.st_size > (uint64_t)max_size) {
        close(fd);
        return q2err_set(err, path, 0, 0, "file is %lld bytes, larger than the %zu-byte limit", (long long)st.st_size,
                         max_size);
    }
    if (regular && st.st_size > 0) {
        /* MAP_POPULATE maps the cached pages at once: no fault per page and
         * no copy, where a read into fresh memory zero-fills and faults
         * every page of it first. */
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        if (p != MAP_FAILED) {
            close(fd);
            m->data = p;
            m->size = (size_t)st.st_size;
            m->mapped = true;
            return true;
        }
    }
    close(fd);
    /* anything mmap does not take (an empty file, a special file) goes the
     * way of file_read_all, with its checks and messages */
    uint8_t *data;
    size_t size;
    if (!file_read_all(path, max_size, &data, &size, err)) return false;
    m->data = data;
    m->size = size;
    return true;
}

void file_unmap(file_map_t *m)
{
    if (m->mapped) munmap((void *)m->data, m->size);
    else free((void *)m->data);
    memset(m, 0, sizeof *m);
}

bool atomic_open(atomic_file_t *af, const char *path, q2err_t *err)
{
    memset(af, 0, sizeof *af);
    if (strlen(path) >= sizeof af->path) return q2err_set(err, path, 0, 0, "path too long");
    strcpy(af->path, path);
    snprintf(af->tmp, sizeof af->tmp, "%s.tmp%ld", path, (long)getpid());
    af->f = fopen(af->tmp, "wb");
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
        remove(af->tmp);
        return q2err_set(err, af->path, 0, 0, "write error (disk full?)");
    }
    if (rename(af->tmp, af->path) != 0) {
        int e = errno;
        remove(af->tmp);
        return q2err_set(err, af->path, 0, 0, "cannot replace: %s", strerror(e));
    }
    return true;
}

void atomic_abort(atomic_file_t *af)
{
    if (af->f) {
        fclose(af->f);
        af->f = NULL;
        remove(af->tmp);
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

const char *path_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

void path_dirname(char *out, size_t outsz, const char *path)
{
    const char *s = strrchr(path, '/');
    if (!s) {
        snprintf(out, outsz, ".");
        return;
    }
    size_t n = (size_t)(s - path);
    if (n == 0) n = 1; /* "/file" -> "/" */
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
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return q2err_set(err, path, 0, 0, "cannot create: directory %s does not exist", dir);
    if (access(dir, W_OK) != 0) return q2err_set(err, path, 0, 0, "cannot create: directory %s is not writable", dir);
    return true;
}

bool path_join(char *out, size_t outsz, const char *a, const char *b)
{
    size_t la = strlen(a);
    int n;
    if (la == 0)
        n = snprintf(out, outsz, "%s", b);
    else if (a[la - 1] == '/')
        n = snprintf(out, outsz, "%s%s", a, b);
    else
        n = snprintf(out, outsz, "%s/%s", a, b);
    return n >= 0 && (size_t)n < outsz;
}
