/* The interactive window. Both renderers draw off screen (the GL one on its
 * own EGL context), the frame is read back, the figures are drawn over it
 * and SDL's software renderer shows it; so switching renderers live needs
 * no GL context sharing with the window, and the window works on any X
 * server, Xvfb included.
 *
 * Keys: mouse or arrows look; W A S D move; Space up; Ctrl down; Shift
 * fast; R renderer; M mode; X wireframe; L PVS lock; P portals; K leak
 * line; H figures; F12 or C screenshot (F11: with the figures); Escape
 * quits. In watch mode F5 compiles again and F6 switches -fast and
 * -final; a new world is swapped in under the same camera. */
#include "window.h"

#include <SDL.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/fileio.h"
#include "../common/mem.h"
#include "../common/os.h"
#include "../common/timer.h"
#include "../formats/textures.h"
#include "cameras.h"
#include "hud.h"

typedef struct rend_slot_t {
    const refexport_t *ref;
    void *state;
    bool failed;
} rend_slot_t;

static bool ensure(rend_slot_t *s, const world_t *w, int width, int height, int threads, log_t *log)
{
    if (s->state) return true;
    if (s->failed) return false;
    q2err_t err;
    q2err_clear(&err);
    if (!s->ref->init(&s->state, w, width, height, threads, &err)) {
        log_warn(log, "qview: %s renderer unavailable: %s", s->ref->name, err.msg);
        s->failed = true;
        s->state = NULL;
        return false;
    }
    return true;
}

static bool screenshot(const char *dir, const uint8_t *rgba, int w, int h, char *path, size_t pathsz, q2err_t *err)
{
    os_make_dir(dir);
    for (int i = 0; i < 10000; i++) {
        snprintf(path, pathsz, "%s/qview_%04d.png", dir, i);
        if (file_exists(path)) continue;
        image_t im = {w, h, (uint8_t *)rgba, false};
        return png_write_file(path, &im, err);
    }
    return q2err_set(err, dir, 0, 0, "too many screenshots already");
}

static void take_shot(const window_opts_t *o, const uint8_t *frame, int width, int height, const camera_t *cam,
                      int *shots)
{
    char path[Q2_PATH_MAX];
    q2err_t e2;
    if (screenshot(o->shot_dir, frame, width, height, path, sizeof path, &e2)) {
        /* The camera in full, so that a test can render the same view. */
        log_info(o->log, "qview: screenshot %s camera %.17g %.17g %.17g %.17g %.17g", path, cam->origin[0],
                 cam->origin[1], cam->origin[2], cam->yaw, cam->pitch);
        (*shots)++;
    } else {
        log_warn(o->log, "qview: screenshot failed: %s", e2.msg);
    }
}

bool window_run(const world_t *w, const window_opts_t *o, q2err_t *err)
{
    int width = o->width, height = o->height;
    /* Both renderers start before SDL: once SDL's X11 video is up, Mesa
     * refuses to make a surfaceless EGL context current. */
    rend_slot_t slots[2] = {{&ref_soft, NULL, false}, {&ref_gl, NULL, false}};
    if (w) {
        ensure(&slots[0], w, width, height, o->threads, o->log);
        ensure(&slots[1], w, width, height, o->threads, o->log);
    }
    /* Present through X11 shared memory, never a GL context of SDL's own
     * that would fight the renderer's EGL context. */
    SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0");
    SDL_SetHint(SDL_HINT_RENDER_DRIVER, "software");
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        for (int i = 0; i < 2; i++)
            if (slots[i].state) slots[i].ref->shutdown(slots[i].state);
        return q2err_set(err, NULL, 0, 0, "SDL: %s", SDL_GetError());
    }
    char title[Q2_PATH_MAX + 64];
    snprintf(title, sizeof title, "%s%s", o->title ? o->title : "qview", w && w->unlit ? " (unlit: drawn fullbright)" : "");
    SDL_Window *win = SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, width, height, 0);
    if (!win) {
        q2err_set(err, NULL, 0, 0, "SDL: no window: %s", SDL_GetError());
        SDL_Quit();
        return false;
    }
    SDL_Renderer *sr = SDL_CreateRenderer(win, -1, SDL_RENDERER_SOFTWARE);
    SDL_Texture *tex = sr ? SDL_CreateTexture(sr, SDL_PIXELFORMAT_RGBA32, SDL_TEXTUREACCESS_STREAMING, width, height) : NULL;
    if (!tex) {
        q2err_set(err, NULL, 0, 0, "SDL: no renderer: %s", SDL_GetError());
        if (sr) SDL_DestroyRenderer(sr);
        SDL_DestroyWindow(win);
        SDL_Quit();
        return false;
    }
    int cur = (o->renderer && !strcmp(o->renderer, "gl")) ? 1 : 0;
    if (w && !ensure(&slots[cur], w, width, height, o->threads, o->log)) cur = 0;
    if (w && !ensure(&slots[cur], w, width, height, o->threads, o->log)) {
        q2err_set(err, NULL, 0, 0, "no renderer could start");
        SDL_DestroyTexture(tex);
        SDL_DestroyRenderer(sr);
        SDL_DestroyWindow(win);
        SDL_Quit();
        return false;
    }

    camera_t cam = {{0, 0, 0}, 0, 0, 90};
    bool have_cam = true;
    if (o->start)
        cam = *o->start;
    else if (!w || !camera_start(w, &cam))
        have_cam = w != NULL;
    world_t *owned = NULL;   /* watch mode: the world shown, from the last good compile */
    overlays_t live_ov;      /* ... and its leak line */
    memset(&live_ov, 0, sizeof live_ov);
    const overlays_t *ov = o->overlays;
    render_opts_t ropts = o->render;
    bool show_hud = true, show_portals = false, show_leak = true, mouse = false;
    uint8_t *frame = q2_malloc((size_t)width * height * 4);
    double last = time_now(), frame_ms = 0;
    render_stats_t stats = {0};
    int shots = 0;
    bool running = true, ok = true;
    if (SDL_SetRelativeMouseMode(SDL_TRUE) == 0) mouse = true;
    log_info(o->log, "qview: window open (%s renderer)", w ? slots[cur].ref->name : "none yet");

    while (running) {
        SDL_Event ev;
        bool shot = false, shot_hud = false;
        while (SDL_PollEvent(&ev)) {
            if (ev.type == SDL_QUIT) running = false;
            if (ev.type == SDL_MOUSEMOTION && mouse) {
                cam.yaw -= ev.motion.xrel * 0.2;
                cam.pitch += ev.motion.yrel * 0.2;
            }
            if (ev.type != SDL_KEYDOWN) continue;
            if (!ev.key.repeat) {
                /* A tap moves or turns one step even when it falls between
                 * two frames, so slow frames never swallow a key. */
                view_t tv;
                view_setup(&tv, &cam, width, height);
                double step = 8.0, f = 0, r = 0, u = 0;
                switch (ev.key.keysym.scancode) {
                case SDL_SCANCODE_LEFT: cam.yaw += 5; break;
                case SDL_SCANCODE_RIGHT: cam.yaw -= 5; break;
                case SDL_SCANCODE_UP: cam.pitch -= 5; break;
                case SDL_SCANCODE_DOWN: cam.pitch += 5; break;
                case SDL_SCANCODE_W: f = step; break;
                case SDL_SCANCODE_S: f = -step; break;
                case SDL_SCANCODE_D: r = step; break;
                case SDL_SCANCODE_A: r = -step; break;
                case SDL_SCANCODE_SPACE: u = step; break;
                case SDL_SCANCODE_LCTRL:
                case SDL_SCANCODE_RCTRL: u = -step; break;
                default: break;
                }
                for (int i = 0; i < 3; i++) cam.origin[i] += tv.fwd[i] * f + tv.right[i] * r + (i == 2 ? u : 0);
            }
            switch (ev.key.keysym.sym) {
            case SDLK_ESCAPE: running = false; break;
            case SDLK_r: {
                if (!w) break;
                int next = !cur;
                if (ensure(&slots[next], w, width, height, o->threads, o->log)) cur = next;
                log_info(o->log, "qview: renderer %s", slots[cur].ref->name);
                break;
            }
            case SDLK_m:
                ropts.mode = (ropts.mode + 1) % RMODE_COUNT;
                log_info(o->log, "qview: mode %s", rmode_names[ropts.mode]);
                break;
            case SDLK_x: ropts.wireframe = !ropts.wireframe; break;
            case SDLK_l:
                if (!w) break;
                ropts.pvs_cluster = ropts.pvs_cluster == -2 ? world_point_cluster(w, cam.origin) : -2;
                log_info(o->log, "qview: PVS %s", ropts.pvs_cluster == -2 ? "follows the camera" : "locked");
                break;
            case SDLK_p: show_portals = !show_portals; break;
            case SDLK_k: show_leak = !show_leak; break;
            case SDLK_h: show_hud = !show_hud; break;
            case SDLK_F12:
            case SDLK_c: shot = true; break;
            case SDLK_F11: shot_hud = true; break;
            case SDLK_F5:
                if (o->live) {
                    live_request(o->live);
                    log_info(o->log, "qview: compile requested (%s)", live_preset_name(o->live));
                }
                break;
            case SDLK_F6:
                if (o->live) {
                    live_toggle_preset(o->live);
                    log_info(o->log, "qview: preset %s", live_preset_name(o->live));
                }
                break;
            default: break;
            }
        }
        double now = time_now(), dt = now - last;
        last = now;
        if (dt > 0.1) dt = 0.1;
        const Uint8 *keys = SDL_GetKeyboardState(NULL);
        double speed = (keys[SDL_SCANCODE_LSHIFT] || keys[SDL_SCANCODE_RSHIFT]) ? 1200 : 400;
        double turn = 120 * dt;
        if (keys[SDL_SCANCODE_LEFT]) cam.yaw += turn;
        if (keys[SDL_SCANCODE_RIGHT]) cam.yaw -= turn;
        if (keys[SDL_SCANCODE_UP]) cam.pitch -= turn;
        if (keys[SDL_SCANCODE_DOWN]) cam.pitch += turn;
        if (cam.pitch > 89) cam.pitch = 89;
        if (cam.pitch < -89) cam.pitch = -89;
        view_t v;
        view_setup(&v, &cam, width, height);
        double move[3] = {0, 0, 0};
        double fw = keys[SDL_SCANCODE_W] - keys[SDL_SCANCODE_S], rt = keys[SDL_SCANCODE_D] - keys[SDL_SCANCODE_A];
        double upd = keys[SDL_SCANCODE_SPACE] - (keys[SDL_SCANCODE_LCTRL] || keys[SDL_SCANCODE_RCTRL]);
        for (int i = 0; i < 3; i++) move[i] = v.fwd[i] * fw + v.right[i] * rt + (i == 2 ? upd : 0);
        for (int i = 0; i < 3; i++) cam.origin[i] += move[i] * speed * dt;

        if (o->live) {
            live_update_t u;
            live_poll(o->live, time_now(), &u);
            if (u.ended && u.ok) {
                /* The renderers hold the old world: start them on the new
                 * one, then let the old go. The camera stays. These starts
                 * come after SDL's: where Mesa then refuses a GL context,
                 * ensure() says so and the soft renderer takes over. */
                for (int i = 0; i < 2; i++) {
                    if (slots[i].state) slots[i].ref->shutdown(slots[i].state);
                    slots[i].state = NULL;
                    slots[i].failed = false;
                }
                bool had_leak = live_ov.numleak > 0;
                overlays_free(&live_ov);
                live_ov = u.leak;
                ov = &live_ov;
                if (owned) world_free(owned);
                free(owned);
                owned = u.world;
                w = owned;
                if (!ensure(&slots[cur], w, width, height, o->threads, o->log)) cur = 0;
                if (!ensure(&slots[cur], w, width, height, o->threads, o->log)) {
                    ok = false;
                    q2err_set(err, NULL, 0, 0, "no renderer could start");
                    break;
                }
                if (!have_cam) have_cam = camera_start(w, &cam);
                have_cam = true;
                /* A new leak: look at it from its start; a leak that stays
                 * leaves the camera where the designer put it. */
                if (live_ov.numleak && !had_leak) overlays_leak_camera(&live_ov, &cam);
                snprintf(title, sizeof title, "%s%s", o->title ? o->title : "qview",
                         w->unlit ? " (unlit: drawn fullbright)" : "");
                SDL_SetWindowTitle(win, title);
                char since[64] = "";
                if (u.save_to_ready_s > 0) snprintf(since, sizeof since, ", %.3f s after the save", u.save_to_ready_s);
                log_info(o->log,
                         "qview: compile %d swapped in (%s renderer%s%s%s), camera %.17g %.17g %.17g %.17g %.17g",
                         o->live->finished, slots[cur].ref->name, live_ov.numleak ? ", leak" : "",
                         w->unlit ? ", unlit: drawn fullbright" : "", since, cam.origin[0], cam.origin[1],
                         cam.origin[2], cam.yaw, cam.pitch);
            } else if (u.ended) {
                log_info(o->log, "qview: compile %d failed: %s%s", o->live->finished, o->live->last_error,
                         w ? "; the last good map stays" : "");
            } else if (u.cancelled) {
                log_info(o->log, "qview: compile %d cancelled: the map changed", u.serial);
            }
        }

        rend_slot_t *s = &slots[cur];
        double t0 = time_now();
        if (w) {
            s->ref->begin_frame(s->state, &ropts);
            s->ref->draw_world(s->state, &cam, &stats);
            if (show_leak && ov && ov->numleak) s->ref->draw_lines(s->state, &cam, ov->leak, ov->numleak);
            if (ov && ov->numbspx) s->ref->draw_lines(s->state, &cam, ov->bspx, ov->numbspx);
            if (show_portals && ov && ov->numportals) s->ref->draw_lines(s->state, &cam, ov->portals, ov->numportals);
            s->ref->end_frame(s->state);
            s->ref->read_pixels(s->state, frame);
        } else {
            for (size_t i = 0; i < (size_t)width * height; i++) {
                frame[i * 4 + 0] = ropts.background[0];
                frame[i * 4 + 1] = ropts.background[1];
                frame[i * 4 + 2] = ropts.background[2];
                frame[i * 4 + 3] = 255;
            }
        }
        frame_ms = (time_now() - t0) * 1000.0;
        if (shot) take_shot(o, frame, width, height, &cam, &shots);
        if (show_hud) {
            char line[256];
            static const uint8_t white[3] = {255, 255, 255}, yellow[3] = {255, 230, 90};
            int sc = width >= 480 ? 2 : 1;
            if (w) {
                snprintf(line, sizeof line, "%s %s %.1f MS", s->ref->name, rmode_names[ropts.mode], frame_ms);
                hud_text(frame, width, height, 6, 6, sc, line, white);
                snprintf(line, sizeof line, "FACES %d CLUSTERS %d/%d IN %d%s", stats.faces_drawn,
                         stats.clusters_visible, w->numclusters, stats.view_cluster,
                         ropts.pvs_cluster != -2 ? " PVS LOCKED" : "");
                hud_text(frame, width, height, 6, 6 + HUD_LINE(sc), sc, line, white);
                snprintf(line, sizeof line, "%.0f %.0f %.0f", cam.origin[0], cam.origin[1], cam.origin[2]);
                hud_text(frame, width, height, 6, 6 + 2 * HUD_LINE(sc), sc, line, yellow);
                if (w->unlit)
                    hud_text(frame, width, height, 6, 6 + 3 * HUD_LINE(sc), sc, "UNLIT BSP: DRAWN FULLBRIGHT", yellow);
            }
            if (o->live) {
                /* What the compiles did, from the bottom edge up. */
                live_hud_t lh;
                live_hud(o->live, time_now(), &lh);
                int rows = 0;
                for (int i = 0; i < lh.n; i++) rows += hud_text_rows(width, 6, sc, lh.text[i]);
                int y = height - 4 - rows * HUD_LINE(sc);
                for (int i = 0; i < lh.n; i++)
                    y += HUD_LINE(sc) * hud_text_wrap(frame, width, height, 6, y, sc, lh.text[i], lh.rgb[i]);
            }
        }
        if (shot_hud) take_shot(o, frame, width, height, &cam, &shots);
        SDL_UpdateTexture(tex, NULL, frame, width * 4);
        SDL_RenderClear(sr);
        SDL_RenderCopy(sr, tex, NULL, NULL);
        SDL_RenderPresent(sr);
        SDL_Delay(1);
    }
    (void)shots;
    free(frame);
    overlays_free(&live_ov);
    if (owned) world_free(owned);
    free(owned);
    for (int i = 0; i < 2; i++)
        if (slots[i].state) slots[i].ref->shutdown(slots[i].state);
    SDL_DestroyTexture(tex);
    SDL_DestroyRenderer(sr);
    SDL_DestroyWindow(win);
    SDL_Quit();
    return ok;
}
