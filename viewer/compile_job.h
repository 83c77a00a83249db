/* One background compile: `q2map compile` as a child process in its own
 * process group, writing into a directory of its own, so that cancelling it
 * (a newer save) kills qbsp, qvis and qrad with it and nothing half-written
 * ever lands where a finished compile is looked for. Its stdout and stderr
 * go to a file there, read once it ends for the stage times, warnings,
 * errors and whether the map leaked. */
#ifndef QVIEW_COMPILE_JOB_H
#define QVIEW_COMPILE_JOB_H

#include <stdbool.h>

#include "../common/error.h"
#include "../common/fileio.h"
#include "../common/os.h"

#define JOB_MAX_LINES 8
#define JOB_LINE_MAX 256

enum { JOB_QBSP, JOB_QVIS, JOB_QRAD, JOB_STAGES };

typedef struct compile_result_t {
    int status; /* q2map's exit status (os_run_piped's form); 0: a bsp was written */
    bool leaked;
    double total_s;
    double stage_s[JOB_STAGES];
    char stage_note[JOB_STAGES][16]; /* "ok", "skipped", "not run", "FAILED (1)" */
    int numwarnings, numerrors;      /* all of them; the first few kept below */
    char warnings[JOB_MAX_LINES][JOB_LINE_MAX];
    char errors[JOB_MAX_LINES][JOB_LINE_MAX]; /* "file:line:col: message" as the tools print them */
    char bsp[Q2_PATH_MAX], pts[Q2_PATH_MAX], deps[Q2_PATH_MAX], output[Q2_PATH_MAX];
} compile_result_t;

typedef struct compile_job_t {
    os_job_t proc; /* q2map and the stage it runs */
    char dir[Q2_PATH_MAX];
    char name[Q2_PATH_MAX]; /* the map's base name without extension */
} compile_job_t;

/* Starts `q2map compile MAP OPTS... -fast|-final` writing into dir (made
 * here, must not exist). */
bool compile_job_start(compile_job_t *j, const char *q2map, const char *map, const char *const *opts, int nopts,
                       bool final, const char *dir, q2err_t *err);
bool compile_job_running(const compile_job_t *j);
/* Non-blocking; true once the job has ended, with r filled in. */
bool compile_job_poll(compile_job_t *j, compile_result_t *r);
/* Kills the job's whole process group and reaps it: when it returns, no
 * process of the compile is left (on Linux, where qview is the subreaper
 * of the stages q2map leaves behind). */
void compile_job_cancel(compile_job_t *j);

/* Adds what q2map's output says (NUL-terminated text) to r: warnings,
 * errors, whether the map leaked, the stage table's times and notes. */
void compile_parse_output(const char *text, compile_result_t *r);

/* A stage's seconds ("0.42") when it ran well, else its note ("skipped"). */
const char *compile_stage_text(const compile_result_t *r, int stage, char *buf, size_t n);

/* Removes a job directory and the files in it. */
void compile_job_remove_dir(const char *dir);

/* The q2map beside this program, else "q2map" from PATH. */
void compile_job_find_q2map(char *out, size_t outsz);

#endif
