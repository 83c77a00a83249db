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

#include <signal.h>

#include "error.h"

/* Path syntax: which characters separate folders ('/' everywhere, and '\\'
 * on Windows), and whether a path starts from a root ("/x"; on Windows also
 * "\\x", "C:\\x", "C:/x" and UNC "\\\\host\\share") rather than from the
 * current folder. */
bool os_is_sep(char c);
bool os_path_is_absolute(const char *path);
/* The absolute form of `path` (which need not exist) from the current
 * folder; false when it does not fit or the current folder is unknown. */
bool os_absolute_path(const char *path, char *out, size_t size);

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
/* Gives the processor up for about a tenth of a millisecond (Windows,
 * which cannot sleep so briefly: to any thread ready to run on it), for a
 * waiting thread that should cost a thread beside it nothing. */
void os_nap(void);
/* Ends the process at once, as a crash would: no atexit handlers, no
 * flushing (dist.c's injected rank faults). */
_Noreturn void os_kill_self(void);

/* Memory: asks for the pages of a large block [p, p+size) to be backed by
 * huge pages (a hint; contents unchanged), and sets the heap up for a run
 * of many small allocations (common/mem.h mem_heap_setup). */
void os_hint_huge_pages(void *p, size_t size);
/* The processor the calling thread runs on, or -1 where that is unknown. */
int os_current_cpu(void);
/* Moves the calling thread to another processor it may run on, then lets it
 * run on any of them again (the scheduler leaves it where it is until it
 * has a reason to move it). False where that cannot be done (one allowed
 * processor; not Linux). For threads_start. */
bool os_move_off_cpu(void);
/* Starts a thread that returns at once, and does not wait for it. For
 * threads_start, before libgomp makes its first worker: on the 2-vCPU
 * Linux machines this project is measured on, qrad's threads_start then
 * took 0.10-0.17 ms in 21 of 24 runs, where without it it took 0.09-11.9
 * ms (medians 3.5-8.0 ms in six series of 12; docs/performance.md).
 * False where no thread was made (and on Windows, where it was not
 * measured). */
bool os_start_passing_thread(void);
void os_heap_setup(void);

/* This machine's name (logs of runs over several hosts); "?" when unknown. */
void os_host_name(char *out, size_t size);

/* Every program's main calls this first: on Windows it replaces argv with
 * the command line as UTF-8 (the C runtime's argv is in the ANSI code page,
 * which cannot name every file) and sets the console to UTF-8 output; on
 * POSIX argv is already bytes and nothing changes. */
void os_main_init(int *argc, char ***argv);

/* What ends the name of a program file here ("" or ".exe"). */
const char *os_exe_suffix(void);
/* The folder that holds the running program; false when it is unknown. */
bool os_self_dir(char *out, size_t size);
/* A file this process may run as a program. */
bool os_is_executable(const char *path);

/* When and where a file was last written: two stamps differ when the file
 * was replaced or rewritten between them. */
typedef struct os_stamp_t {
    long long mtime_ns;
    unsigned long long id; /* inode, or the file index on Windows */
    unsigned long long size;
} os_stamp_t;
/* False when there is no file at `path`. */
bool os_file_stamp(const char *path, os_stamp_t *st);
static inline bool os_stamp_equal(const os_stamp_t *a, const os_stamp_t *b)
{
    return a->mtime_ns == b->mtime_ns && a->id == b->id && a->size == b->size;
}

/* Runs the program argv[0] (searched in PATH when it names no folder) with
 * the arguments argv[1..] (NULL-terminated), passed as they are: no shell,
 * so spaces and quotes reach it untouched. Its standard output (stream 1)
 * and error (stream 2) are given to `sink` chunk by chunk as they arrive,
 * one call at a time, with lines ending in LF on every platform (a Windows
 * child's CR LF arrives as LF). Returns the exit status (128 + the signal's number
 * when a signal ended it on POSIX; on Windows the exit code, and for an
 * exception such as an access violation its code without the top bit, so
 * that it stays a positive int above 255), or -1 with `err` set when it
 * could not be started. */
typedef void (*os_output_fn)(void *ctx, int stream, const char *buf, size_t n);
int os_run_piped(const char *const *argv, os_output_fn sink, void *ctx, q2err_t *err);
/* A program run in the background as a group of its own (POSIX: a process
 * group, with the caller as subreaper on Linux; Windows: a job object), so
 * that one kill ends it and every program it started. Its standard input is
 * empty, its output and errors go to the file `out_path` (created). */
typedef struct os_job_t {
    long long pid;     /* 0: none runs */
    intptr_t proc, group; /* Windows handles */
} os_job_t;
bool os_job_start(os_job_t *j, const char *const *argv, const char *out_path, q2err_t *err);
static inline bool os_job_running(const os_job_t *j) { return j->pid > 0; }
/* Never blocks: false while it runs; once it has ended, true with its
 * status as os_run_piped gives it, and whatever is left of its group
 * killed, so that nothing of it runs afterwards. */
bool os_job_poll(os_job_t *j, int *status);
/* Kills the whole group and waits until none of it runs. */
void os_job_kill(os_job_t *j);

/* Change notification on folders: a file in one was written, created,
 * removed or renamed (inotify on Linux, FindFirstChangeNotification on
 * Windows). It only says that something changed; callers compare file
 * stamps to see what. */
typedef struct os_dirwatch_t os_dirwatch_t;
/* What the system calls it ("inotify"), for logs. */
const char *os_dirwatch_name(void);
/* NULL where the system has none (callers poll the stamps instead). */
os_dirwatch_t *os_dirwatch_create(void);
void os_dirwatch_free(os_dirwatch_t *w);
/* Watches one more folder (again: no change); false when it cannot be. */
bool os_dirwatch_add(os_dirwatch_t *w, const char *dir);
void os_dirwatch_clear(os_dirwatch_t *w);
/* Waits up to timeout_ms (0: does not wait) for a change; true when one
 * came since the last call. */
bool os_dirwatch_wait(os_dirwatch_t *w, int timeout_ms);

/* From now on a request to stop the process (Ctrl+C, SIGTERM, SIGHUP; on
 * Windows Ctrl+C, Ctrl+Break and the console closing) sets *flag to 1
 * instead of ending it, so that a loop can end and clean up. A handler can
 * reach nothing but a global: the flag is the caller's, the pointer to it
 * the one thing kept here. */
void os_on_stop_request(volatile sig_atomic_t *flag);
/* Gives `existing` a second name `link` (a hard link); false where the file
 * system has none (the caller copies instead). */
bool os_hard_link(const char *existing, const char *link);

/* Makes a new, empty folder named PREFIX-XXXXXX in the system's folder for
 * temporary files (TMPDIR, TEMP); `out` gets its path. */
bool os_make_temp_dir(const char *prefix, char *out, size_t size, q2err_t *err);
/* Removes the files in `dir` (not folders below it), then `dir`
 * (common/os_common.c, over os_list_dir, os_remove_file and
 * os_remove_empty_dir). */
void os_remove_dir(const char *dir);
/* Removes `dir` if it is empty. */
bool os_remove_empty_dir(const char *dir);
/* The separator this system writes between folder names ('/' or '\\'). */
char os_path_sep(void);

/* How a non-zero status of os_run_piped reads ("exit status 2", "killed by
 * signal 9", "ended by exception 0xC0000005"). */
void os_status_text(int status, char *out, size_t size);
/* A program writing into a pipe that its reader closed gets an error from
 * the write instead of being killed (SIGPIPE on POSIX; nothing to do on
 * Windows). */
void os_ignore_broken_pipe(void);

#endif
