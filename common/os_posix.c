/* common/os.h on POSIX systems. */
#define _GNU_SOURCE
#include "os.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mem.h"

bool os_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool os_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool os_remove_file(const char *path) { return unlink(path) == 0 || errno == ENOENT; }

bool os_list_dir(const char *dir, char ***names, int *count, q2err_t *err)
{
    *names = NULL;
    *count = 0;
    struct stat st;
    if (stat(dir, &st) != 0) return q2err_set(err, dir, 0, 0, "directory not found: %s", strerror(errno));
    if (!S_ISDIR(st.st_mode)) return q2err_set(err, dir, 0, 0, "not a directory");
    DIR *d = opendir(dir);
    if (!d) return q2err_set(err, dir, 0, 0, "cannot list directory: %s", strerror(errno));
    int cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        char *n = q2_strdup(de->d_name);
        ARRAY_PUSH(*names, *count, cap, n);
    }
    closedir(d);
    return true;
}

void os_free_names(char **names, int count)
{
    for (int i = 0; i < count; i++) free(names[i]);
    free(names);
}

bool os_file_open_read(const char *path, os_file_t *f, q2err_t *err)
{
    f->handle = -1;
    f->size = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return q2err_set(err, path, 0, 0, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return q2err_set(err, path, 0, 0, "not a regular file");
    }
    f->handle = fd;
    f->size = (uint64_t)st.st_size;
    return true;
}

bool os_file_pread(const os_file_t *f, const char *name, uint64_t off, void *buf, size_t len, q2err_t *err)
{
    size_t done = 0;
    while (done < len) {
        ssize_t r = pread((int)f->handle, (uint8_t *)buf + done, len - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0)
            return q2err_set(err, name, 0, 0, "read error at offset %llu: %s", (unsigned long long)(off + done),
                             r < 0 ? strerror(errno) : "file shorter than when it was opened");
        done += (size_t)r;
    }
    return true;
}

void os_file_close(os_file_t *f)
{
    if (f->handle >= 0) close((int)f->handle);
    f->handle = -1;
}

bool os_is_console(FILE *f) { return f && isatty(fileno(f)); }
