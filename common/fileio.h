/* Whole-file reads, crash-safe writes and path helpers.
 *
 * Outputs are never written in place: atomic_file_t writes to a temporary
 * file beside the target and renames it over the target only when the whole
 * output was written, so a failed or interrupted run leaves the previous file
 * untouched and never a half-written one. */
#ifndef Q2M_FILEIO_H
#define Q2M_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

#define Q2_PATH_MAX 4096

/* Reads a whole file into a malloc'ed buffer with a NUL byte appended (not
 * counted in *size). Files larger than max_size are refused with an error. */
bool file_read_all(const char *path, size_t max_size, uint8_t **data, size_t *size, q2err_t *err);

/* A whole file to read, mapped (mmap) where it can be, else read into a
 * malloc'ed buffer; no NUL is appended. The same checks and errors as
 * file_read_all. Read-only; release with file_unmap. */
typedef struct file_map_t {
    const uint8_t *data;
    size_t size;
    bool mapped;
} file_map_t;

bool file_map(const char *path, size_t max_size, file_map_t *m, q2err_t *err);
void file_unmap(file_map_t *m);

typedef struct atomic_file_t {
    FILE *f;
    char path[Q2_PATH_MAX];
    char tmp[Q2_PATH_MAX + 32];
} atomic_file_t;

bool atomic_open(atomic_file_t *af, const char *path, q2err_t *err);
/* Flushes, closes and renames into place; on failure removes the temporary. */
bool atomic_commit(atomic_file_t *af, q2err_t *err);
/* Discards the temporary file. Safe to call on a committed or unopened file. */
void atomic_abort(atomic_file_t *af);

bool file_write_atomic(const char *path, const void *data, size_t size, q2err_t *err);

/* One piece of a file written from several places in memory. */
typedef struct file_part_t {
    const void *data;
    size_t size;
} file_part_t;

/* file_write_atomic of the parts one after the other, without gathering
 * them into one buffer first. */
bool file_write_atomic_parts(const char *path, const file_part_t *parts, int n, q2err_t *err);

bool file_exists(const char *path);

/* Copies `path` to out with its extension (the part after the last '.' in
 * the last component) replaced by `ext` (which includes the dot). Returns
 * false if the result does not fit. */
bool path_replace_ext(char *out, size_t outsz, const char *path, const char *ext);
/* Pointer to the last component of path. */
const char *path_basename(const char *path);
/* Copies the directory part of path ("." when none) into out. */
void path_dirname(char *out, size_t outsz, const char *path);
/* True when the directory that `path` would be created in exists and is
 * writable. Tools check their report files (-json, -deps) before any work so
 * that a typo in a path fails fast instead of after the .bsp is written. */
bool path_dir_writable(const char *path, q2err_t *err);
/* out = a + "/" + b (a backslash where a is a Windows path written with
 * them); no separator added after one that ends a. */
bool path_join(char *out, size_t outsz, const char *a, const char *b);

#endif
