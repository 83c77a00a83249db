#include "live.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/fileio.h"
#include "../common/mem.h"
#include "../common/os.h"
#include "../common/timer.h"

/* At most this many files are watched (map, textures, paks). */
#define MAX_WATCHED 4096

bool live_start(live_t *l, const live_opts_t *o, q2err_t *err)
{
    memset(l, 0, sizeof *l);
    l->o = *o;
    l->final = o->final;
    if (!file_exists(o->map)) return q2err_set(err, o->map, 0, 0, "no such map");
    compile_job_find_q2map(l->q2map, sizeof l->q2map);
    if (!os_make_temp_dir("qview-watch", l->root, sizeof l->root, err)) {
        l->root[0] = '\0';
        return false;
    }
    l->wf = watch_files_create(o->force_poll, err);
    const char *first = o->map;
    if (!l->wf || !watch_files_set(l->wf, &first, 1, err)) {
        live_stop(l);
        return false;
    }
    l->due = true;
    return true;
}

void live_stop(live_t *l)
{
    if (compile_job_running(&l->job)) compile_job_cancel(&l->job);
    if (l->job.dir[0]) compile_job_remove_dir(l->job.dir);
    l->job.dir[0] = '\0';
    if (l->root[0]) os_remove_dir(l->root);
    l->root[0] = '\0';
    watch_files_free(l->wf);
    l->wf = NULL;
}

void live_wait(live_t *l, int timeout_ms)
{
    if (l->wf) watch_files_wait(l->wf, timeout_ms);
    else os_sleep_ns((long)timeout_ms * 1000000L);
}
bool live_compiling(const live_t *l) { return compile_job_running(&l->job); }
const char *live_preset_name(const live_t *l) { return l->final ? "final" : "fast"; }

void live_request(live_t *l)
{
    l->due = true;
    l->change_t = 0;
}

void live_toggle_preset(live_t *l)
{
    l->final = !l->final;
    live_request(l);
}

int live_parse_deps(const char *text, const char *map, char ***out)
{
    char **v = q2_calloc(MAX_WATCHED, sizeof *v);
    int n = 0;
    v[n++] = q2_strdup(map);
    const char *s = text ? strstr(text, ": ") : NULL;
    if (s) {
        s += 2;
        char tok[Q2_PATH_MAX];
        size_t tl = 0;
        bool first = true;
        for (;; s++) {
            bool end = *s == '\0' || *s == ' ' || *s == '\n' || *s == '\t';
            if (*s == '\\' && (s[1] == ' ' || s[1] == '#')) {
                s++;
            } else if (*s == '\\' && s[1] == '\n') {
                s++;
                end = true;
            } else if (*s == '$' && s[1] == '$') {
                s++;
            }
            if (end) {
                if (tl > 0 && n < MAX_WATCHED) {
                    tok[tl] = '\0';
                    /* The first name is the map itself, already there. */
                    if (!first) v[n++] = q2_strdup(tok);
                    first = false;
                }
                tl = 0;
                if (*s == '\0') break;
                continue;
            }
            if (tl + 1 < sizeof tok) tok[tl++] = *s;
        }
    }
    *out = v;
    return n;
}

static int read_deps(const char *path, const char *map, char ***out)
{
    uint8_t *data = NULL;
    size_t size = 0;
    q2err_t e;
    bool ok = file_read_all(path, (size_t)16 << 20, &data, &size, &e);
    int n = live_parse_deps(ok ? (const char *)data : NULL, map, out);
    free(data);
    return n;
}

static void start_job(live_t *l, double now, live_update_t *u)
{
    char dir[Q2_PATH_MAX];
    l->started++;
    q2err_t err;
    if (snprintf(dir, sizeof dir, "%s/%d", l->root, l->started) >= (int)sizeof dir) dir[0] = '\0';
    l->job_t0 = now;
    if (!compile_job_start(&l->job, l->q2map, l->o.map, l->o.compile_opts, l->o.ncompile_opts, l->final, dir,
                           &err)) {
        /* Counts as an ended compile that failed: the HUD says why. */
        memset(&l->last, 0, sizeof l->last);
        l->last.status = 127;
        l->have_last = true;
        l->last_ok = false;
        l->finished++;
        l->last_serial = l->finished;
        snprintf(l->last_error, sizeof l->last_error, "%s", err.msg);
        u->ended = true;
        u->serial = l->finished;
        log_error(l->o.log, "qview: %s", err.msg);
        return;
    }
    u->started = true;
    u->serial = l->finished + 1;
    log_verbose(l->o.log, "qview: compile %d (%s) of %s started", u->serial, live_preset_name(l), l->o.map);
}

static void end_job(live_t *l, double now, live_update_t *u)
{
    compile_result_t *r = &l->last;
    u->ended = true;
    l->finished++;
    u->serial = l->finished;
    l->have_last = true;
    l->last_ok = false;
    l->last_serial = l->finished;
    l->last_error[0] = '\0';
    if (r->status != 0) {
        if (r->numerrors > 0)
            snprintf(l->last_error, sizeof l->last_error, "%s", r->errors[0]);
        else
            snprintf(l->last_error, sizeof l->last_error, "q2map compile failed (exit status %d)", r->status);
    } else {
        world_t *w = q2_calloc(1, sizeof *w);
        q2err_t err;
        double t0 = time_now();
        bool loaded = world_load(w, r->bsp, l->o.db, l->o.log, &err);
        u->load_s = time_now() - t0;
        if (!loaded) {
            snprintf(l->last_error, sizeof l->last_error, "%s", err.msg);
            free(w);
        } else {
            if (r->leaked && !overlays_load_pointfile(&u->leak, r->pts, &err))
                log_warn(l->o.log, "qview: %s", err.msg);
            u->world = w;
            u->ok = true;
            l->last_ok = true;
            /* The next save to look for: the map and whatever it read. */
            char **deps;
            int n = read_deps(r->deps, l->o.map, &deps);
            if (!watch_files_set(l->wf, (const char *const *)deps, n, &err)) log_warn(l->o.log, "qview: %s", err.msg);
            for (int i = 0; i < n; i++) free(deps[i]);
            free(deps);
        }
    }
    u->ok = l->last_ok;
    u->job_s = now - l->job_t0;
    if (l->change_t > 0) {
        u->save_to_ready_s = time_now() - l->change_t;
        u->settle_s = l->job_t0 - l->change_t;
    }
    compile_job_remove_dir(l->job.dir);
    l->job.dir[0] = '\0';
}

void live_poll(live_t *l, double now, live_update_t *u)
{
    memset(u, 0, sizeof *u);
    watch_event_t ev = watch_files_poll(l->wf, now);
    if (ev == WATCH_CHANGING) {
        if (l->change_t == 0) l->change_t = now;
        if (compile_job_running(&l->job)) {
            /* Its input is being rewritten: what it makes is stale. The
             * save to time from is this one. */
            compile_job_cancel(&l->job);
            compile_job_remove_dir(l->job.dir);
            l->job.dir[0] = '\0';
            l->cancelled++;
            l->change_t = now;
            u->cancelled = true;
            u->serial = l->finished + 1;
        }
    } else if (ev == WATCH_STABLE) {
        l->due = true;
    }
    if (compile_job_running(&l->job)) {
        if (compile_job_poll(&l->job, &l->last)) {
            end_job(l, now, u);
            l->change_t = 0;
        } else if (l->due) {
            /* F5 or a settled save while compiling: start over. */
            compile_job_cancel(&l->job);
            compile_job_remove_dir(l->job.dir);
            l->job.dir[0] = '\0';
            l->cancelled++;
            u->cancelled = true;
            u->serial = l->finished + 1;
        }
        if (!l->due) return;
    }
    if (l->due && !compile_job_running(&l->job) && !u->ended) {
        l->due = false;
        start_job(l, now, u);
    }
}

static void set_line(live_hud_t *h, const uint8_t rgb[3], const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void set_line(live_hud_t *h, const uint8_t rgb[3], const char *fmt, ...)
{
    if (h->n >= LIVE_HUD_LINES) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->text[h->n], sizeof h->text[h->n], fmt, ap);
    va_end(ap);
    memcpy(h->rgb[h->n], rgb, 3);
    h->n++;
}

void live_hud(const live_t *l, double now, live_hud_t *h)
{
    static const uint8_t white[3] = {235, 235, 235}, green[3] = {120, 235, 120}, yellow[3] = {255, 220, 80},
                         red[3] = {255, 80, 70};
    h->n = 0;
    const char *name = path_basename(l->o.map);
    if (compile_job_running(&l->job))
        set_line(h, yellow, "WATCH %s %s: COMPILING %d... %.1f S", name, live_preset_name(l), l->finished + 1,
                 now - l->job_t0);
    else
        set_line(h, white, "WATCH %s %s: F5 COMPILE, F6 FAST/FINAL", name, live_preset_name(l));
    if (!l->have_last) return;
    const compile_result_t *r = &l->last;
    if (l->last_ok) {
        char sb[3][32];
        set_line(h, green, "COMPILE %d OK %.2f S: QBSP %s QVIS %s QRAD %s", l->last_serial, r->total_s,
                 compile_stage_text(r, JOB_QBSP, sb[0], sizeof sb[0]), compile_stage_text(r, JOB_QVIS, sb[1], sizeof sb[1]),
                 compile_stage_text(r, JOB_QRAD, sb[2], sizeof sb[2]));
    } else {
        set_line(h, red, "COMPILE %d FAILED: LAST GOOD MAP SHOWN", l->last_serial);
        set_line(h, red, "%s", l->last_error);
        for (int i = 1; i < r->numerrors && i < JOB_MAX_LINES && h->n < LIVE_HUD_LINES - 2; i++)
            set_line(h, red, "%s", r->errors[i]);
    }
    if (r->numwarnings > 0) {
        for (int i = 0; i < r->numwarnings && i < JOB_MAX_LINES && h->n < LIVE_HUD_LINES - 1; i++)
            set_line(h, strstr(r->warnings[i], "LEAK") ? red : yellow, "%s", r->warnings[i]);
        if (r->numwarnings > 1) set_line(h, yellow, "%d WARNINGS", r->numwarnings);
    }
}
