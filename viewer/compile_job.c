#include "compile_job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/fileio.h"
#include "../common/mem.h"
#include "../common/os.h"

#define MAX_ARGV 160
/* The compile's own output is read back up to this size; a longer log
 * (qrad -v on a huge map) only loses lines at the end. */
#define OUTPUT_MAX ((size_t)8 << 20)

void compile_job_find_q2map(char *out, size_t outsz)
{
    char dir[Q2_PATH_MAX], file[64];
    snprintf(file, sizeof file, "q2map%s", os_exe_suffix());
    if (os_self_dir(dir, sizeof dir) && path_join(out, outsz, dir, file) && os_is_executable(out)) return;
    snprintf(out, outsz, "q2map");
}

bool compile_job_start(compile_job_t *j, const char *q2map, const char *map, const char *const *opts, int nopts,
                       bool final, const char *dir, q2err_t *err)
{
    memset(j, 0, sizeof *j);
    if (os_is_dir(dir) || !os_make_dir(dir)) return q2err_set(err, dir, 0, 0, "cannot create the folder");
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

    if (!os_job_start(&j->proc, argv, out, err)) {
        compile_job_remove_dir(dir);
        return false;
    }
    return true;
}

bool compile_job_running(const compile_job_t *j) { return os_job_running(&j->proc); }

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
    r->status = status;
    /* The same paths compile_job_start checked for length. */
    if (snprintf(r->bsp, sizeof r->bsp, "%s/%s.bsp", j->dir, j->name) >= (int)sizeof r->bsp ||
        snprintf(r->pts, sizeof r->pts, "%s/%s.pts", j->dir, j->name) >= (int)sizeof r->pts ||
        snprintf(r->deps, sizeof r->deps, "%s/deps.d", j->dir) >= (int)sizeof r->deps ||
        snprintf(r->output, sizeof r->output, "%s/output.txt", j->dir) >= (int)sizeof r->output)
        r->status = r->status ? r->status : 1;
    for (int k = 0; k < JOB_STAGES; k++) snprintf(r->stage_note[k], sizeof r->stage_note[k], "not run");
    parse_output(r);
    if (file_exists(r->pts)) r->leaked = true;
}

bool compile_job_poll(compile_job_t *j, compile_result_t *r)
{
    int status;
    if (!os_job_poll(&j->proc, &status)) return false;
    finish(j, status, r);
    return true;
}

void compile_job_cancel(compile_job_t *j) { os_job_kill(&j->proc); }

const char *compile_stage_text(const compile_result_t *r, int stage, char *buf, size_t n)
{
    if (!strcmp(r->stage_note[stage], "ok"))
        snprintf(buf, n, "%.2f", r->stage_s[stage]);
    else
        snprintf(buf, n, "%s", r->stage_note[stage]);
    return buf;
}

void compile_job_remove_dir(const char *dir) { os_remove_dir(dir); }
