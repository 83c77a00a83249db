/* The game file system: a search path of directories and archives, as
 * built from -basedir/-gamedir. Lookups go from the most recently added
 * source to the first, like Quake 2's FS_FOpenFile (a gamedir overrides
 * baseq2, a later pak overrides an earlier one).
 *
 * After setup the vfs is read-only except for the dependency list, which is
 * guarded, so threads may call vfs_read concurrently. */
#ifndef Q2M_VFS_H
#define Q2M_VFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"

typedef struct vfs_t vfs_t;

vfs_t *vfs_create(void);
void vfs_free(vfs_t *vfs);

/* Adds a game directory: its loose files, then pak0.pak, pak1.pak ... and
 * every *.pk3 / *.zip in it (sorted by name), so later archives override
 * earlier ones and archives override loose files as in Quake 2. A missing
 * directory is an error. */
bool vfs_add_gamedir(vfs_t *vfs, const char *dir, q2err_t *err);
/* Adds one archive (.pak or .pk3/.zip) explicitly. */
bool vfs_add_archive(vfs_t *vfs, const char *path, q2err_t *err);
/* Adds an archive held in memory (copied); `name` (ending in .pak, .pk3 or
 * .zip) picks the format and labels errors. For tests and fuzzing. */
bool vfs_add_archive_memory(vfs_t *vfs, const char *name, const uint8_t *data, size_t size, q2err_t *err);

/* Reads `name` (a relative path like "textures/e1u1/floor1_1.wal", matched
 * case-insensitively inside archives). Returns false when not found (err
 * untouched) or on a read or decompression error (err set). Files larger
 * than `max_size` are refused. On success records the file for -deps.
 * The data gets a NUL byte appended (not counted in *size), as
 * file_read_all does, so text files can be parsed in place. */
bool vfs_read(vfs_t *vfs, const char *name, size_t max_size, uint8_t **data, size_t *size, q2err_t *err);

/* Every file successfully read so far, as a path a Makefile can depend on
 * (the loose file, or the archive that held it), each once, sorted. */
int vfs_deps(vfs_t *vfs, const char ***paths);

#endif
