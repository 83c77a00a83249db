/* The operating system behind one small interface, so that formats/, the
 * stages and the tools' logic never include a platform header: what kind of
 * thing a path names, directory listings, files read at an offset, removing
 * a file, and whether a stream is a console.
 *
 * Paths are UTF-8. common/os_posix.c implements this for Linux and the other
 * POSIX systems; a Windows implementation (wide-character API at the edge)
 * goes beside it, selected by CMake, with the same contracts. */
#ifndef Q2M_OS_H
#define Q2M_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"

/* A regular file (following links). */
bool os_is_file(const char *path);
/* A directory (following links). */
bool os_is_dir(const char *path);
/* Removes a file; true when it is gone (also when it was never there). */
bool os_remove_file(const char *path);

/* The names in a directory, "." and ".." left out, in the file system's
 * order (callers sort what must not depend on it). *names is malloc'd, each
 * name too; free with os_free_names. */
bool os_list_dir(const char *dir, char ***names, int *count, q2err_t *err);
static inline void os_free_names(char **names, int count)
{
    for (int i = 0; i < count; i++) free(names[i]);
    free(names);
}

/* A regular file opened for reads at given offsets (archives). */
typedef struct os_file_t {
    intptr_t handle; /* -1: not open */
    uint64_t size;
} os_file_t;

/* Opens `path`, which must be a regular file; errors name the path. */
bool os_file_open_read(const char *path, os_file_t *f, q2err_t *err);
/* Reads exactly `len` bytes at `off`; a short read (the file shrank) or an
 * I/O error is an error naming `name`. */
bool os_file_pread(const os_file_t *f, const char *name, uint64_t off, void *buf, size_t len, q2err_t *err);
void os_file_close(os_file_t *f);

/* True when `f` is a terminal (console) that takes progress lines with
 * carriage returns. */
bool os_is_console(FILE *f);

/* fopen with a UTF-8 path. */
FILE *os_fopen(const char *path, const char *mode);
/* Opens a regular file for reading as a stream and gives its size; a
 * directory, FIFO or device is refused ("not a regular file") without
 * blocking on it. */
bool os_open_regular(const char *path, FILE **f, uint64_t *size, q2err_t *err);
/* Maps the `size` bytes of a regular file opened with os_open_regular
 * read-only, its pages loaded at once; NULL where the system will not (the
 * caller reads the stream instead). The mapping outlives the stream. */
const void *os_map_stream(FILE *f, size_t size);
void os_unmap(const void *p, size_t size);
/* Renames `from` over `to`, replacing it in one step: a reader sees the old
 * file or the new one, never a part. */
bool os_replace_file(const char *from, const char *to, q2err_t *err);
/* True when files can be created in `dir`. */
bool os_dir_writable(const char *dir);
/* This process's id, to name temporary files. */
long os_process_id(void);
/* Creates a directory; true when one is there afterwards (also when it was
 * there already; false where a file of that name stands). */
bool os_make_dir(const char *path);

/* A clock that never steps back, for intervals only: seconds, and whole
 * nanoseconds (for lock-free comparisons). */
double os_monotonic_s(void);
long long os_monotonic_ns(void);
/* CPU seconds used so far by the calling thread, and by the whole process. */
double os_cpu_thread_s(void);
double os_cpu_process_s(void);
/* Sleeps for `ns` nanoseconds, below one second (polling loops). */
void os_sleep_ns(long ns);
/* Ends the process at once, as a crash would: no atexit handlers, no
 * flushing (dist.c's injected rank faults). */
_Noreturn void os_kill_self(void);

/* This machine's name (logs of runs over several hosts); "?" when unknown. */
void os_host_name(char *out, size_t size);

#endif
