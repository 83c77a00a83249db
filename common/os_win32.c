/* common/os.h on Windows: UTF-8 paths in, the wide-character API out, so
 * that names outside ASCII and long paths behave as on Linux. */
#include "os.h"

#define WIN32_LEAN_AND_MEAN
#include <errno.h>
#include <io.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include <shellapi.h>
#include <stdio.h>

#include "mem.h"

/* A malloc'd UTF-16 copy of a UTF-8 string, NULL when it is not valid UTF-8. */
static wchar_t *widen(const char *s)
{
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
    if (n <= 0) return NULL;
    wchar_t *w = q2_malloc(sizeof *w * (size_t)n);
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
    return w;
}

static char *narrow(const wchar_t *w)
{
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
    char *s = q2_malloc(n > 0 ? (size_t)n : 1);
    if (n <= 0) s[0] = 0;
    else WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
    return s;
}

static const char *last_error_text(char *buf, size_t n)
{
    DWORD e = GetLastError();
    if (!FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, e, 0, buf, (DWORD)n, NULL))
        snprintf(buf, n, "error %lu", (unsigned long)e);
    size_t l = strlen(buf);
    while (l && (buf[l - 1] == '\n' || buf[l - 1] == '\r' || buf[l - 1] == '.')) buf[--l] = 0;
    return buf;
}

static DWORD attributes(const char *path)
{
    wchar_t *w = widen(path);
    if (!w) return INVALID_FILE_ATTRIBUTES;
    DWORD a = GetFileAttributesW(w);
    free(w);
    return a;
}

bool os_is_sep(char c) { return c == '/' || c == '\\'; }

bool os_path_is_absolute(const char *path)
{
    if (os_is_sep(path[0])) return true; /* \\x, and \\\\host\\share */
    bool drive = ((path[0] | 0x20) >= 'a' && (path[0] | 0x20) <= 'z') && path[1] == ':';
    return drive && os_is_sep(path[2]);
}

bool os_absolute_path(const char *path, char *out, size_t size)
{
    wchar_t *w = widen(path), full[32768];
    DWORD n = w ? GetFullPathNameW(w, (DWORD)(sizeof full / sizeof full[0]), full, NULL) : 0;
    free(w);
    if (n == 0 || n >= sizeof full / sizeof full[0]) return false;
    char *s = narrow(full);
    bool ok = (size_t)snprintf(out, size, "%s", s) < size;
    free(s);
    return ok;
}

bool os_is_file(const char *path)
{
    DWORD a = attributes(path);
    return a != INVALID_FILE_ATTRIBUTES && !(a & FILE_ATTRIBUTE_DIRECTORY);
}

bool os_is_dir(const char *path)
{
    DWORD a = attributes(path);
    return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY);
}

bool os_remove_file(const char *path)
{
    wchar_t *w = widen(path);
    if (!w) return false;
    BOOL ok = DeleteFileW(w);
    DWORD e = ok ? 0 : GetLastError();
    free(w);
    return ok || e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND;
}

bool os_list_dir(const char *dir, char ***names, int *count, q2err_t *err)
{
    *names = NULL;
    *count = 0;
    char msg[256];
    DWORD a = attributes(dir);
    if (a == INVALID_FILE_ATTRIBUTES) return q2err_set(err, dir, 0, 0, "directory not found: %s", last_error_text(msg, sizeof msg));
    if (!(a & FILE_ATTRIBUTE_DIRECTORY)) return q2err_set(err, dir, 0, 0, "not a directory");
    size_t n = strlen(dir);
    char *pattern = q2_malloc(n + 3);
    memcpy(pattern, dir, n);
    /* Both separators are accepted in the paths a user types. */
    if (n && dir[n - 1] != '/' && dir[n - 1] != '\\') pattern[n++] = '\\';
    pattern[n++] = '*';
    pattern[n] = 0;
    wchar_t *w = widen(pattern);
    free(pattern);
    if (!w) return q2err_set(err, dir, 0, 0, "the path is not valid UTF-8");
    WIN32_FIND_DATAW fd;
    HANDLE h = FindFirstFileW(w, &fd);
    free(w);
    if (h == INVALID_HANDLE_VALUE) {
        if (GetLastError() == ERROR_FILE_NOT_FOUND) return true;
        return q2err_set(err, dir, 0, 0, "cannot list directory: %s", last_error_text(msg, sizeof msg));
    }
    int cap = 0;
    do {
        if (!wcscmp(fd.cFileName, L".") || !wcscmp(fd.cFileName, L"..")) continue;
        char *name = narrow(fd.cFileName);
        ARRAY_PUSH(*names, *count, cap, name);
    } while (FindNextFileW(h, &fd));
    FindClose(h);
    return true;
}

bool os_file_open_read(const char *path, os_file_t *f, q2err_t *err)
{
    f->handle = -1;
    f->size = 0;
    char msg[256];
    wchar_t *w = widen(path);
    if (!w) return q2err_set(err, path, 0, 0, "cannot open: the path is not valid UTF-8");
    /* FILE_SHARE_DELETE too: an editor may replace the file while it is read,
     * as on Linux. */
    HANDLE h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE) return q2err_set(err, path, 0, 0, "cannot open: %s", last_error_text(msg, sizeof msg));
    BY_HANDLE_FILE_INFORMATION info;
    if (!GetFileInformationByHandle(h, &info) || (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)) {
        CloseHandle(h);
        return q2err_set(err, path, 0, 0, "not a regular file");
    }
    f->handle = (intptr_t)h;
    f->size = ((uint64_t)info.nFileSizeHigh << 32) | info.nFileSizeLow;
    return true;
}

bool os_file_pread(const os_file_t *f, const char *name, uint64_t off, void *buf, size_t len, q2err_t *err)
{
    size_t done = 0;
    char msg[256];
    while (done < len) {
        OVERLAPPED ov;
        memset(&ov, 0, sizeof ov);
        uint64_t at = off + done;
        ov.Offset = (DWORD)at;
        ov.OffsetHigh = (DWORD)(at >> 32);
        DWORD want = len - done > 0x40000000u ? 0x40000000u : (DWORD)(len - done), got = 0;
        if (!ReadFile((HANDLE)f->handle, (uint8_t *)buf + done, want, &got, &ov) || got == 0)
            return q2err_set(err, name, 0, 0, "read error at offset %llu: %s", (unsigned long long)at,
                             got == 0 && GetLastError() == ERROR_HANDLE_EOF ? "file shorter than when it was opened"
                                                                            : last_error_text(msg, sizeof msg));
        done += got;
    }
    return true;
}

void os_file_close(os_file_t *f)
{
    if (f->handle != -1) CloseHandle((HANDLE)f->handle);
    f->handle = -1;
}

bool os_is_console(FILE *f)
{
    if (!f) return false;
    intptr_t h = _get_osfhandle(_fileno(f));
    DWORD mode;
    /* A console takes progress lines; a pipe (TrenchBroom's output pane, a
     * CI log) or a file gets none, as on Linux. */
    return h != -1 && GetConsoleMode((HANDLE)h, &mode);
}

FILE *os_fopen(const char *path, const char *mode)
{
    wchar_t *w = widen(path), *wm = widen(mode);
    FILE *f = w && wm ? _wfopen(w, wm) : NULL;
    free(w);
    free(wm);
    return f;
}

bool os_open_regular(const char *path, FILE **f, uint64_t *size, q2err_t *err)
{
    *f = NULL;
    *size = 0;
    char msg[256];
    DWORD a = attributes(path);
    if (a == INVALID_FILE_ATTRIBUTES) return q2err_set(err, path, 0, 0, "cannot open: %s", last_error_text(msg, sizeof msg));
    if (a & FILE_ATTRIBUTE_DIRECTORY) return q2err_set(err, path, 0, 0, "not a regular file");
    os_file_t h;
    if (!os_file_open_read(path, &h, err)) return false;
    os_file_close(&h);
    *f = os_fopen(path, "rb");
    if (!*f) return q2err_set(err, path, 0, 0, "cannot open: %s", strerror(errno));
    *size = h.size;
    return true;
}

const void *os_map_stream(FILE *f, size_t size)
{
    intptr_t h = _get_osfhandle(_fileno(f));
    if (h == -1 || size == 0) return NULL;
    HANDLE m = CreateFileMappingW((HANDLE)h, NULL, PAGE_READONLY, 0, 0, NULL);
    if (!m) return NULL;
    const void *p = MapViewOfFile(m, FILE_MAP_READ, 0, 0, size);
    CloseHandle(m); /* the view keeps the mapping */
    return p;
}

void os_unmap(const void *p, size_t size)
{
    (void)size;
    if (p) UnmapViewOfFile(p);
}

bool os_replace_file(const char *from, const char *to, q2err_t *err)
{
    char msg[256];
    wchar_t *wf = widen(from), *wt = widen(to);
    BOOL ok = wf && wt && MoveFileExW(wf, wt, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH);
    free(wf);
    free(wt);
    if (ok) return true;
    return q2err_set(err, to, 0, 0, "cannot replace: %s", last_error_text(msg, sizeof msg));
}

bool os_dir_writable(const char *dir)
{
    wchar_t *w = widen(dir);
    bool ok = w && _waccess(w, 2) == 0;
    free(w);
    return ok;
}

bool os_make_dir(const char *path)
{
    wchar_t *w = widen(path);
    bool ok = w && (CreateDirectoryW(w, NULL) || (GetLastError() == ERROR_ALREADY_EXISTS && os_is_dir(path)));
    free(w);
    return ok;
}

static long long perf_frequency(void)
{
    LARGE_INTEGER f;
    QueryPerformanceFrequency(&f);
    return f.QuadPart;
}

double os_monotonic_s(void)
{
    LARGE_INTEGER c;
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart / (double)perf_frequency();
}

long long os_monotonic_ns(void)
{
    LARGE_INTEGER c;
    QueryPerformanceCounter(&c);
    long long f = perf_frequency();
    /* split so that the product does not overflow after a long uptime */
    return c.QuadPart / f * 1000000000LL + c.QuadPart % f * 1000000000LL / f;
}

/* Kernel plus user time, in FILETIME's 100 ns units. */
static double cpu_seconds(FILETIME k, FILETIME u)
{
    unsigned long long a = ((unsigned long long)k.dwHighDateTime << 32) | k.dwLowDateTime;
    unsigned long long b = ((unsigned long long)u.dwHighDateTime << 32) | u.dwLowDateTime;
    return (double)(a + b) * 1e-7;
}

double os_cpu_thread_s(void)
{
    FILETIME c, e, k, u;
    return GetThreadTimes(GetCurrentThread(), &c, &e, &k, &u) ? cpu_seconds(k, u) : 0;
}

double os_cpu_process_s(void)
{
    FILETIME c, e, k, u;
    return GetProcessTimes(GetCurrentProcess(), &c, &e, &k, &u) ? cpu_seconds(k, u) : 0;
}

void os_sleep_ns(long ns)
{
    /* Sleep's resolution is a scheduler tick; 0 would only yield */
    DWORD ms = (DWORD)(ns / 1000000);
    Sleep(ms ? ms : 1);
}

void os_nap(void)
{
    /* (returns at once where nothing else is ready: then the wait spins) */
    SwitchToThread();
}

_Noreturn void os_kill_self(void)
{
    TerminateProcess(GetCurrentProcess(), 137);
    ExitProcess(137);
}

long os_process_id(void) { return (long)GetCurrentProcessId(); }

int os_current_cpu(void) { return -1; }

bool os_move_off_cpu(void) { return false; }

bool os_start_passing_thread(void) { return false; }

void os_host_name(char *out, size_t size)
{
    if (size == 0) return;
    DWORD n = (DWORD)size;
    if (!GetComputerNameA(out, &n)) snprintf(out, size, "?");
    out[size - 1] = 0;
}

void os_main_init(int *argc, char ***argv)
{
    int n = 0;
    wchar_t **w = CommandLineToArgvW(GetCommandLineW(), &n);
    if (w && n > 0) {
        /* Kept for the life of the process, as the runtime's argv is. */
        char **v = q2_malloc(sizeof *v * ((size_t)n + 1));
        for (int i = 0; i < n; i++) v[i] = narrow(w[i]);
        v[n] = NULL;
        *argc = n;
        *argv = v;
    }
    if (w) LocalFree(w);
    SetConsoleOutputCP(CP_UTF8);
}

const char *os_exe_suffix(void) { return ".exe"; }

bool os_self_dir(char *out, size_t size)
{
    wchar_t w[32768];
    DWORD n = GetModuleFileNameW(NULL, w, (DWORD)(sizeof w / sizeof w[0]));
    if (n == 0 || n >= sizeof w / sizeof w[0]) return false;
    char *s = narrow(w);
    char *cut = strrchr(s, '\\'), *fwd = strrchr(s, '/');
    if (fwd && (!cut || fwd > cut)) cut = fwd;
    bool ok = cut != NULL;
    if (ok) {
        *cut = 0;
        ok = (size_t)snprintf(out, size, "%s", s) < size;
    }
    free(s);
    return ok;
}

bool os_is_executable(const char *path) { return os_is_file(path); }

bool os_file_stamp(const char *path, os_stamp_t *st)
{
    wchar_t *w = widen(path);
    if (!w) return false;
    HANDLE h = CreateFileW(w, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE) return false;
    BY_HANDLE_FILE_INFORMATION info;
    BOOL ok = GetFileInformationByHandle(h, &info);
    CloseHandle(h);
    if (!ok) return false;
    ULARGE_INTEGER t = {.LowPart = info.ftLastWriteTime.dwLowDateTime, .HighPart = info.ftLastWriteTime.dwHighDateTime};
    st->mtime_ns = (long long)t.QuadPart * 100; /* 100 ns ticks */
    st->id = ((unsigned long long)info.nFileIndexHigh << 32) | info.nFileIndexLow;
    st->size = ((unsigned long long)info.nFileSizeHigh << 32) | info.nFileSizeLow;
    return true;
}

void os_ignore_broken_pipe(void) {}

/* Appends `arg` to a command line as the C runtime's parser reads it back
 * (CommandLineToArgvW's rules): quoted when it has a space, a tab or a
 * quote or is empty; backslashes doubled only before a quote. */
static void append_arg(wchar_t **line, size_t *len, size_t *cap, const wchar_t *arg)
{
    size_t need = *len + 2 * wcslen(arg) + 4;
    if (need > *cap) {
        *cap = need * 2;
        *line = q2_realloc(*line, sizeof **line * *cap);
    }
    wchar_t *o = *line + *len;
    if (*len) *o++ = L' ';
    bool quote = !*arg || wcspbrk(arg, L" \t\"") != NULL;
    if (!quote) {
        wcscpy(o, arg);
        o += wcslen(arg);
    } else {
        *o++ = L'"';
        for (const wchar_t *p = arg;; p++) {
            size_t bs = 0;
            while (*p == L'\\') bs++, p++;
            if (!*p) {
                for (size_t i = 0; i < 2 * bs; i++) *o++ = L'\\';
                break;
            }
            if (*p == L'"') {
                for (size_t i = 0; i < 2 * bs + 1; i++) *o++ = L'\\';
            } else {
                for (size_t i = 0; i < bs; i++) *o++ = L'\\';
            }
            *o++ = *p;
        }
        *o++ = L'"';
    }
    *o = 0;
    *len = (size_t)(o - *line);
}

/* The command line for argv (append_arg's quoting); NULL when an argument
 * is not UTF-8. */
static wchar_t *command_line(const char *const *argv)
{
    wchar_t *line = NULL;
    size_t len = 0, cap = 0;
    for (int i = 0; argv[i]; i++) {
        wchar_t *w = widen(argv[i]);
        if (!w) {
            free(line);
            return NULL;
        }
        append_arg(&line, &len, &cap, w);
        free(w);
    }
    return line;
}

typedef struct pipe_reader_t {
    HANDLE h;
    int stream;
    os_output_fn sink;
    void *ctx;
    CRITICAL_SECTION *lock;
} pipe_reader_t;

/* A child's text-mode output ends its lines with CR LF; the sink gets LF, as
 * on POSIX, so that a caller writing it to its own text-mode stream does not
 * double the CR. A CR at the end of one read waits for the next. */
static DWORD WINAPI read_pipe(void *arg)
{
    pipe_reader_t *r = arg;
    char buf[8192], out[8193];
    bool held_cr = false;
    DWORD n;
    while (ReadFile(r->h, buf, sizeof buf, &n, NULL) && n > 0) {
        size_t k = 0;
        for (DWORD i = 0; i < n; i++) {
            if (held_cr && buf[i] != '\n') out[k++] = '\r';
            held_cr = buf[i] == '\r';
            if (!held_cr) out[k++] = buf[i];
        }
        EnterCriticalSection(r->lock);
        if (k) r->sink(r->ctx, r->stream, out, k);
        LeaveCriticalSection(r->lock);
    }
    if (held_cr) {
        EnterCriticalSection(r->lock);
        r->sink(r->ctx, r->stream, "\r", 1);
        LeaveCriticalSection(r->lock);
    }
    return 0;
}

/* CreateProcessW (no application name: it searches PATH and adds .exe to
 * the first word, as posix_spawnp does), tried again after a pause where
 * it failed for want of a resource rather than because of the program:
 * under wine a start now and then fails with ERROR_INTERNAL_ERROR
 * ("Internal error"; twice in scripts/test's Windows stage, never when
 * that stage ran alone) where the same call a moment later starts it. A
 * missing or broken program fails at once. */
#define START_ATTEMPTS 4
static BOOL start_process(wchar_t *line, DWORD flags, STARTUPINFOW *si, PROCESS_INFORMATION *pi)
{
    for (int attempt = 1;; attempt++) {
        if (CreateProcessW(NULL, line, NULL, NULL, TRUE, flags, NULL, NULL, si, pi)) return TRUE;
        DWORD e = GetLastError();
        bool transient = e == ERROR_INTERNAL_ERROR || e == ERROR_NOT_ENOUGH_MEMORY || e == ERROR_NO_SYSTEM_RESOURCES ||
                         e == ERROR_COMMITMENT_LIMIT;
        if (!transient || attempt == START_ATTEMPTS) {
            SetLastError(e);
            return FALSE;
        }
        Sleep(100u << attempt);
    }
}

int os_run_piped(const char *const *argv, os_output_fn sink, void *ctx, q2err_t *err)
{
    char msg[256];
    wchar_t *line = command_line(argv);
    if (!line) return q2err_set(err, argv[0], 0, 0, "cannot run: an argument is not UTF-8"), -1;
    SECURITY_ATTRIBUTES sa = {.nLength = sizeof sa, .bInheritHandle = TRUE};
    HANDLE rd[2] = {NULL, NULL}, wr[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        if (!CreatePipe(&rd[i], &wr[i], &sa, 0)) {
            q2err_set(err, argv[0], 0, 0, "cannot run: %s", last_error_text(msg, sizeof msg));
            for (int j = 0; j < i; j++) CloseHandle(rd[j]), CloseHandle(wr[j]);
            free(line);
            return -1;
        }
        /* Only the write ends go to the child. */
        SetHandleInformation(rd[i], HANDLE_FLAG_INHERIT, 0);
    }
    STARTUPINFOW si = {.cb = sizeof si, .dwFlags = STARTF_USESTDHANDLES};
    si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
    si.hStdOutput = wr[0];
    si.hStdError = wr[1];
    PROCESS_INFORMATION pi;
    BOOL started = start_process(line, 0, &si, &pi);
    if (!started) q2err_set(err, argv[0], 0, 0, "cannot run: %s", last_error_text(msg, sizeof msg));
    free(line);
    CloseHandle(wr[0]);
    CloseHandle(wr[1]);
    if (!started) {
        CloseHandle(rd[0]);
        CloseHandle(rd[1]);
        return -1;
    }
    CloseHandle(pi.hThread);

    CRITICAL_SECTION lock;
    InitializeCriticalSection(&lock);
    pipe_reader_t readers[2] = {{rd[0], 1, sink, ctx, &lock}, {rd[1], 2, sink, ctx, &lock}};
    HANDLE t = CreateThread(NULL, 0, read_pipe, &readers[1], 0, NULL);
    read_pipe(&readers[0]);
    if (t) {
        WaitForSingleObject(t, INFINITE);
        CloseHandle(t);
    } else {
        read_pipe(&readers[1]);
    }
    DeleteCriticalSection(&lock);
    CloseHandle(rd[0]);
    CloseHandle(rd[1]);

    WaitForSingleObject(pi.hProcess, INFINITE);
    DWORD code = 1;
    BOOL got = GetExitCodeProcess(pi.hProcess, &code);
    CloseHandle(pi.hProcess);
    if (!got) return q2err_set(err, argv[0], 0, 0, "lost the child: %s", last_error_text(msg, sizeof msg)), -1;
    return code <= 0x7fffffff ? (int)code : (int)(code & 0x7fffffff);
}

void os_status_text(int status, char *out, size_t size)
{
    if (status > 255) snprintf(out, size, "ended by exception 0x%08lX", (unsigned long)status | 0x80000000UL);
    else snprintf(out, size, "exit status %d", status);
}

bool os_job_start(os_job_t *j, const char *const *argv, const char *out_path, q2err_t *err)
{
    memset(j, 0, sizeof *j);
    char msg[256];
    wchar_t *line = command_line(argv), *wout = widen(out_path);
    if (!line || !wout) {
        free(line);
        free(wout);
        return q2err_set(err, argv[0], 0, 0, "cannot run: an argument is not UTF-8");
    }
    SECURITY_ATTRIBUTES sa = {.nLength = sizeof sa, .bInheritHandle = TRUE};
    HANDLE out = CreateFileW(wout, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa, CREATE_ALWAYS,
                             FILE_ATTRIBUTE_NORMAL, NULL);
    HANDLE nul = CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa, OPEN_EXISTING, 0, NULL);
    free(wout);
    if (out == INVALID_HANDLE_VALUE || nul == INVALID_HANDLE_VALUE) {
        q2err_set(err, out_path, 0, 0, "cannot create: %s", last_error_text(msg, sizeof msg));
        if (out != INVALID_HANDLE_VALUE) CloseHandle(out);
        if (nul != INVALID_HANDLE_VALUE) CloseHandle(nul);
        free(line);
        return false;
    }
    /* Every process the compile starts belongs to the job; closing the job's
     * last handle (qview ending in any way) kills them too. */
    HANDLE group = CreateJobObjectW(NULL, NULL);
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION lim;
    memset(&lim, 0, sizeof lim);
    lim.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    if (group) SetInformationJobObject(group, JobObjectExtendedLimitInformation, &lim, sizeof lim);
    STARTUPINFOW si = {.cb = sizeof si, .dwFlags = STARTF_USESTDHANDLES};
    si.hStdInput = nul;
    si.hStdOutput = out;
    si.hStdError = out;
    PROCESS_INFORMATION pi;
    BOOL started = start_process(line, CREATE_SUSPENDED | CREATE_NO_WINDOW, &si, &pi);
    if (!started) q2err_set(err, argv[0], 0, 0, "cannot run: %s", last_error_text(msg, sizeof msg));
    free(line);
    CloseHandle(out);
    CloseHandle(nul);
    if (!started) {
        if (group) CloseHandle(group);
        return false;
    }
    if (group) AssignProcessToJobObject(group, pi.hProcess);
    ResumeThread(pi.hThread);
    CloseHandle(pi.hThread);
    j->pid = (long long)pi.dwProcessId;
    j->proc = (intptr_t)pi.hProcess;
    j->group = (intptr_t)group;
    return true;
}

/* Ends what is left of the job and waits until no process of it runs. */
static void end_group(os_job_t *j)
{
    HANDLE group = (HANDLE)j->group;
    if (group) {
        TerminateJobObject(group, 1);
        for (int tries = 0; tries < 1000; tries++) {
            JOBOBJECT_BASIC_ACCOUNTING_INFORMATION acct;
            if (!QueryInformationJobObject(group, JobObjectBasicAccountingInformation, &acct, sizeof acct, NULL) ||
                acct.ActiveProcesses == 0)
                break;
            Sleep(5);
        }
        CloseHandle(group);
    }
    CloseHandle((HANDLE)j->proc);
    memset(j, 0, sizeof *j);
}

bool os_job_poll(os_job_t *j, int *status)
{
    if (j->pid <= 0) return false;
    if (WaitForSingleObject((HANDLE)j->proc, 0) != WAIT_OBJECT_0) return false;
    DWORD code = 1;
    if (!GetExitCodeProcess((HANDLE)j->proc, &code)) code = 1;
    *status = code <= 0x7fffffff ? (int)code : (int)(code & 0x7fffffff);
    end_group(j);
    return true;
}

void os_job_kill(os_job_t *j)
{
    if (j->pid <= 0) return;
    TerminateProcess((HANDLE)j->proc, 1);
    WaitForSingleObject((HANDLE)j->proc, INFINITE);
    end_group(j);
}

bool os_make_temp_dir(const char *prefix, char *out, size_t size, q2err_t *err)
{
    wchar_t wtmp[MAX_PATH + 1];
    DWORD n = GetTempPathW(MAX_PATH + 1, wtmp);
    if (n == 0 || n > MAX_PATH) return q2err_set(err, prefix, 0, 0, "no folder for temporary files");
    char *tmp = narrow(wtmp);
    size_t l = strlen(tmp);
    if (l && (tmp[l - 1] == '\\' || tmp[l - 1] == '/')) tmp[--l] = 0;
    /* Names from the process id and a counter: CreateDirectoryW fails on
     * one that exists, so a name is never shared. */
    bool ok = false;
    for (unsigned k = 0; k < 1000 && !ok; k++) {
        if ((size_t)snprintf(out, size, "%s\\%s-%lu-%u", tmp, prefix, (unsigned long)GetCurrentProcessId(), k) >= size)
            break;
        wchar_t *w = widen(out);
        ok = w && CreateDirectoryW(w, NULL);
        free(w);
    }
    free(tmp);
    return ok ? true : q2err_set(err, out, 0, 0, "cannot create a temporary folder");
}

char os_path_sep(void) { return '\\'; }

bool os_remove_empty_dir(const char *dir)
{
    wchar_t *w = widen(dir);
    bool ok = w && RemoveDirectoryW(w);
    free(w);
    return ok;
}

/* One change handle per folder; WaitForMultipleObjects takes at most
 * MAXIMUM_WAIT_OBJECTS (64), so folders past that are not watched (their
 * files are polled). */
struct os_dirwatch_t {
    HANDLE h[MAXIMUM_WAIT_OBJECTS];
    char *dirs[MAXIMUM_WAIT_OBJECTS];
    int n;
};

const char *os_dirwatch_name(void) { return "change notifications"; }

os_dirwatch_t *os_dirwatch_create(void) { return q2_calloc(1, sizeof(os_dirwatch_t)); }

void os_dirwatch_clear(os_dirwatch_t *w)
{
    for (int i = 0; i < w->n; i++) {
        FindCloseChangeNotification(w->h[i]);
        free(w->dirs[i]);
    }
    w->n = 0;
}

void os_dirwatch_free(os_dirwatch_t *w)
{
    if (!w) return;
    os_dirwatch_clear(w);
    free(w);
}

bool os_dirwatch_add(os_dirwatch_t *w, const char *dir)
{
    for (int i = 0; i < w->n; i++)
        if (!strcmp(w->dirs[i], dir)) return true;
    if (w->n == MAXIMUM_WAIT_OBJECTS) return false;
    wchar_t *wd = widen(dir);
    HANDLE h = wd ? FindFirstChangeNotificationW(wd, FALSE,
                                                 FILE_NOTIFY_CHANGE_FILE_NAME | FILE_NOTIFY_CHANGE_SIZE |
                                                     FILE_NOTIFY_CHANGE_LAST_WRITE)
                  : INVALID_HANDLE_VALUE;
    free(wd);
    if (h == INVALID_HANDLE_VALUE) return false;
    w->h[w->n] = h;
    w->dirs[w->n] = q2_strdup(dir);
    w->n++;
    return true;
}

bool os_dirwatch_wait(os_dirwatch_t *w, int timeout_ms)
{
    if (w->n == 0) {
        if (timeout_ms > 0) Sleep((DWORD)timeout_ms);
        return false;
    }
    bool any = false;
    DWORD wait = timeout_ms > 0 ? (DWORD)timeout_ms : 0;
    /* Bounded: a folder written to without pause must not hold us here. */
    for (int rounds = 0; rounds < 4 * MAXIMUM_WAIT_OBJECTS; rounds++) {
        DWORD r = WaitForMultipleObjects((DWORD)w->n, w->h, FALSE, wait);
        if (r >= WAIT_OBJECT_0 + (DWORD)w->n) break; /* timeout or failure */
        any = true;
        FindNextChangeNotification(w->h[r - WAIT_OBJECT_0]);
        wait = 0; /* drain what else is pending, without waiting */
    }
    return any;
}

static volatile sig_atomic_t *stop_flag;

static BOOL WINAPI on_console_event(DWORD ev)
{
    (void)ev;
    if (!stop_flag) return FALSE;
    *stop_flag = 1;
    return TRUE;
}

void os_on_stop_request(volatile sig_atomic_t *flag)
{
    stop_flag = flag;
    SetConsoleCtrlHandler(on_console_event, TRUE);
}

bool os_hard_link(const char *existing, const char *newpath)
{
    wchar_t *we = widen(existing), *wn = widen(newpath);
    bool ok = we && wn && CreateHardLinkW(wn, we, NULL);
    free(we);
    free(wn);
    return ok;
}

/* The Windows heap needs neither hint: its large blocks come from
 * VirtualAlloc, committed as they are touched. */
void os_hint_huge_pages(void *p, size_t size)
{
    (void)p;
    (void)size;
}

void os_heap_setup(void) {}
