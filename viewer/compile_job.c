#include "compile_job.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "../common/fileio.h"
#include "../common/mem.h"

extern char **environ;

#define MAX_ARGV 160
/* The compile's own output is read back up to this size; a longer log
 * (qrad -v on a huge map) only loses lines at the end. */
#define OUTPUT_MAX ((size_t)8 << 20)

void compile_job_find_q2map(char *out, size_t outsz)
{
    char self[Q2_PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len > 0) {
        self[len] = '\0';
        char dir[Q2_PATH_MAX];
        path_dirname(dir, sizeof dir, self);
        if (path_join(out, outsz, dir, "q2map") && access(out, X_OK) == 0) return;
    }
    snprintf(out, outsz, "q2map");
}

bool compile_job_start(compile_job_t *j, const char *q2map, const char *map, const char *const *opts, int nopts,
                       bool final, const char *dir, q2err_t *err)
{
    memset(j, 0, sizeof *j);
    if (mkdir(dir, 0700) != 0) return q2err_set(err, dir, 0, 0, "cannot create: %s", strerror(errno));
    snprintf(j->dir, sizeof j->dir, "%s", dir);
    char base[Q2_PATH_MAX];
    snprintf(base, sizeof base, "%s", path_basename(map));
    char *dot = strrchr(base, '.');
    if (dot && dot != base) *dot = '\0';
    snprintf(j->name, sizeof j->name, "%s", base);

    char bsp[Q2_PATH_MAX], logp[Q2_PATH_MAX], deps[Q2_PATH_MAX], out[Q2_PATH_MAX];
    if (snprintf(bsp, sizeof bsp, "%s/%s.pts", dir, base) >= (int)sizeof bsp ||
        snprintf(bsp, sizeof bsp, "%s/%s.bsp", dir, base) >= (int)sizeof bsp ||
        snprintf(logp, sizeof logp, "%s/compile.log", dir) >= (int)sizeof logp ||
        snprintf(deps, sizeof deps, "%s/deps.d", dir) >= (int)sizeof deps ||
        snprintf(out, sizeof out, "%s/output.txt", dir) >= (int)sizeof out)
        return q2err_set(err, dir, 0, 0, "path too long");
    const char *argv[MAX_ARGV + 1];
    int n = 0;
    argv[n++] = q2map;
    argv[n++] = "compile";
    argv[n++] = map;
    for (int i = 0; i < nopts && n < MAX_ARGV - 12; i++) argv[n++] = opts[i];
    argv[n++] = final ? "-final" : "-fast";
    argv[n++] = "-o";
    argv[n++] = bsp;
    argv[n++] = "-log";
    argv[n++] = logp;
    /* qbsp lists the files it read (the map, loose textures or their
     * paks): the next set to watch. */
    argv[n++] = "-qbsp";
    argv[n++] = "-deps";
    argv[n++] = "-qbsp";
    argv[n++] = deps;
    argv[n] = NULL;

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
#ifdef __linux__
    /* Orphans of a killed compile come to us, to be reaped (reap_group). */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
#endif
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    /* A group of its own: one kill reaches q2map and the stage it runs. */
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    pid_t pid;
    int rc = posix_spawnp(&pid, q2map, &fa, &at, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (rc != 0) {
        compile_job_remove_dir(dir);
        return q2err_set(err, q2map, 0, 0, "cannot run: %s", strerror(rc));
    }
    j->pid = pid;
    return true;
}

bool compile_job_running(const compile_job_t *j) { return j->pid > 0; }

/* After q2map itself is reaped: reaps what is left of its group. The stage
 * it ran was orphaned by the kill and, with us as subreaper, is our child
 * now; waiting for it means that when a cancel returns nothing of the
 * compile is running any more. Where subreapers do not exist this finds no
 * child and returns at once. */
static void reap_group(pid_t pgid)
{
    int status;
    for (;;) {
        pid_t p = waitpid(-pgid, &status, 0);
        if (p > 0 || (p < 0 && errno == EINTR)) continue;
        break;
    }
}

static void copy_line(char *dst, const char *src, size_t n)
{
    if (n >= JOB_LINE_MAX) n = JOB_LINE_MAX - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

void compile_parse_output(const char *text, compile_result_t *r)
{
    static const char *const names[JOB_STAGES] = {"qbsp", "qvis", "qrad"};
    const char *s = text;
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        char line[JOB_LINE_MAX];
        copy_line(line, s, len);
        if (len >= 9 && !strncmp(s, "warning: ", 9)) {
            if (r->numwarnings < JOB_MAX_LINES) copy_line(r->warnings[r->numwarnings], s + 9, len - 9);
            r->numwarnings++;
            if (strstr(line, "LEAK")) r->leaked = true;
        } else if (len >= 7 && !strncmp(s, "error: ", 7)) {
            if (r->numerrors < JOB_MAX_LINES) copy_line(r->errors[r->numerrors], s + 7, len - 7);
            r->numerrors++;
        } else if (len > 6 && !strncmp(s, "total ", 6)) {
            r->total_s = atof(line + 6);
        } else {
            /* The table q2map prints at the end: "qbsp   0.02  ok". */
            for (int k = 0; k < JOB_STAGES; k++) {
                size_t nl2 = strlen(names[k]);
                if (len <= nl2 || strncmp(s, names[k], nl2) || s[nl2] != ' ') continue;
                char secs[32] = "", note[32] = "";
                if (sscanf(line + nl2, "%31s %31[^\n]", secs, note) == 2) {
                    r->stage_s[k] = strcmp(secs, "-") ? atof(secs) : 0;
                    snprintf(r->stage_note[k], sizeof r->stage_note[k], "%s", note);
                }
            }
        }
        if (!nl) break;
        s = nl + 1;
    }
}

/* Reads the job's output file into r. */
static void parse_output(compile_result_t *r)
{
    uint8_t *data = NULL;
    size_t size = 0;
    q2err_t e;
    if (!file_read_all(r->output, OUTPUT_MAX, &data, &size, &e)) return;
    compile_parse_output((const char *)data, r);
    free(data);
}

static void finish(compile_job_t *j, int status, compile_result_t *r)
{
    memset(r, 0, sizeof *r);
    if (WIFEXITED(status))
        r->status = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        r->status = 128 + WTERMSIG(status);
    else
        r->status = 1;
    /* The same paths compile_job_start checked for length. */
    if (snprintf(r->bsp, sizeof r->bsp, "%s/%s.bsp", j->dir, j->name) >= (int)sizeof r->bsp ||
        snprintf(r->pts, sizeof r->pts, "%s/%s.pts", j->dir, j->name) >= (int)sizeof r->pts ||
        snprintf(r->deps, sizeof r->deps, "%s/deps.d", j->dir) >= (int)sizeof r->deps ||
        snprintf(r->output, sizeof r->output, "%s/output.txt", j->dir) >= (int)sizeof r->output)
        r->status = r->status ? r->status : 1;
    for (int k = 0; k < JOB_STAGES; k++) snprintf(r->stage_note[k], sizeof r->stage_note[k], "not run");
    parse_output(r);
    if (file_exists(r->pts)) r->leaked = true;
    j->pid = 0;
}

bool compile_job_poll(compile_job_t *j, compile_result_t *r)
{
    if (j->pid <= 0) return false;
    /* Looked at without reaping: while q2map is a zombie its pid (the
     * group's id) cannot be reused, so the kill below reaches only what it
     * may have left in its group (nothing, normally). */
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)j->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0) {
        if (errno == EINTR) return false;
    } else if (si.si_pid == 0) {
        return false;
    }
    kill(-j->pid, SIGKILL);
    int status = 1 << 8; /* lost: counts as a failure */
    while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR) {
    }
    reap_group(j->pid);
    finish(j, status, r);
    return true;
}

void compile_job_cancel(compile_job_t *j)
{
    if (j->pid <= 0) return;
    kill(-j->pid, SIGKILL);
    int status;
    while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR) {
    }
    reap_group(j->pid);
    j->pid = 0;
}

const char *compile_stage_text(const compile_result_t *r, int stage, char *buf, size_t n)
{
    if (!strcmp(r->stage_note[stage], "ok"))
        snprintf(buf, n, "%.2f", r->stage_s[stage]);
    else
        snprintf(buf, n, "%s", r->stage_note[stage]);
    return buf;
}

void compile_job_remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char p[Q2_PATH_MAX];
            if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) < (int)sizeof p) unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
}
