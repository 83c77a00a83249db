#include "watch_headless.h"

#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "../common/os.h"
#include "../common/timer.h"
#include "../formats/textures.h"
#include "cameras.h"

/* Longest wait between two looks at the files and the compile. */
#define TICK_MS 10

static bool render_png(const world_t *w, const overlays_t *leak, const camera_t *cam, const watch_headless_opts_t *o,
                       const char *path, const char *latest, q2err_t *err)
{
    void *st = NULL;
    if (!o->ref->init(&st, w, o->width, o->height, o->threads, err)) return false;
    o->ref->begin_frame(st, &o->render);
    render_stats_t stats;
    o->ref->draw_world(st, cam, &stats);
    if (leak->numleak) o->ref->draw_lines(st, cam, leak->leak, leak->numleak);
    o->ref->end_frame(st);
    uint8_t *img = q2_malloc((size_t)o->width * o->height * 4);
    o->ref->read_pixels(st, img);
    o->ref->shutdown(st);
    image_t im = {o->width, o->height, img, false};
    bool ok = png_write_file(path, &im, err);
    if (ok) {
        /* latest.png: the same file under a second name, swapped in whole
         * (an editor showing it never reads a half-written one); written
         * again only where hard links do not work. */
        char tmp[Q2_PATH_MAX + 8];
        snprintf(tmp, sizeof tmp, "%s.new", latest);
        os_remove_file(tmp);
        if (os_hard_link(path, tmp)) {
            ok = os_replace_file(tmp, latest, err);
        } else {
            ok = png_write_file(latest, &im, err);
        }
    }
    free(img);
    return ok;
}

int watch_headless_run(live_t *l, const watch_headless_opts_t *o, log_t *log)
{
    if (!os_make_dir(o->out_dir)) {
        log_error(log, "qview: %s: cannot create the folder", o->out_dir);
        return 1;
    }
    world_t *world = NULL;
    camera_t cam;
    bool have_cam = false;
    if (o->camera) {
        cam = *o->camera;
        have_cam = true;
    }
    int rc = 1;
    while (!*o->stop && (o->max_compiles <= 0 || l->finished < o->max_compiles)) {
        live_wait(l, TICK_MS);
        live_update_t u;
        live_poll(l, time_now(), &u);
        if (u.cancelled) fprintf(o->out, "watch: compile %d cancelled: the map changed\n", u.serial);
        if (!u.ended) {
            fflush(o->out);
            continue;
        }
        const compile_result_t *r = &l->last;
        int n = l->finished;
        if (!u.ok) {
            fprintf(o->out, "watch: compile %d (%s): FAILED: %s; the last good picture is kept\n", n,
                    live_preset_name(l), l->last_error);
            for (int i = 0; i < r->numerrors && i < JOB_MAX_LINES; i++) fprintf(o->out, "watch:   error: %s\n", r->errors[i]);
            rc = 1;
        } else {
            if (world) world_free(world);
            free(world);
            world = u.world;
            if (!have_cam) have_cam = camera_start(world, &cam);
            if (!have_cam) cam = (camera_t){{0, 0, 0}, 0, 0, 90};
            have_cam = true;
            /* A leak is shown from its start; the next sealed compile goes
             * back to the kept camera. */
            camera_t view = cam;
            if (u.leak.numleak) overlays_leak_camera(&u.leak, &view);
            char path[Q2_PATH_MAX], latest[Q2_PATH_MAX];
            snprintf(path, sizeof path, "%s/compile_%03d.png", o->out_dir, n);
            snprintf(latest, sizeof latest, "%s/latest.png", o->out_dir);
            q2err_t err;
            double t0 = time_now();
            if (!render_png(world, &u.leak, &view, o, path, latest, &err)) {
                log_error(log, "qview: %s", err.msg);
                overlays_free(&u.leak);
                rc = 1;
                break;
            }
            double render_s = time_now() - t0;
            char sb[3][32];
            fprintf(o->out, "watch: compile %d (%s): ok in %.2f s (qbsp %s, qvis %s, qrad %s)", n,
                    live_preset_name(l), r->total_s, compile_stage_text(r, JOB_QBSP, sb[0], sizeof sb[0]),
                    compile_stage_text(r, JOB_QVIS, sb[1], sizeof sb[1]),
                    compile_stage_text(r, JOB_QRAD, sb[2], sizeof sb[2]));
            if (u.save_to_ready_s > 0)
                fprintf(o->out, ", save to picture %.3f s (settle %.3f, compile %.3f, load %.3f, render %.3f)",
                        u.save_to_ready_s + render_s, u.settle_s, u.job_s, u.load_s, render_s);
            fprintf(o->out, ", %d warnings%s%s: %s\n", r->numwarnings, world->unlit ? ", unlit: drawn fullbright" : "",
                    u.leak.numleak ? ", LEAK shown from its start" : "", path);
            rc = 0;
        }
        for (int i = 0; i < r->numwarnings && i < JOB_MAX_LINES; i++) fprintf(o->out, "watch:   warning: %s\n", r->warnings[i]);
        overlays_free(&u.leak);
        fflush(o->out);
    }
    if (world) world_free(world);
    free(world);
    return rc;
}
