/* The OpenGL 3.3 core renderer (loaded through libepoxy). The world's faces
 * are triangulated into one vertex buffer when the renderer starts;
 * lightmaps are packed into atlas pages; each frame the faces that the
 * shared cull returns are grouped by texture and lightmap page and drawn
 * with one glMultiDrawArrays per group. It renders into its own RGBA8
 * framebuffer object, on a headless EGL context, so the same code serves
 * the command line and the window. */
#include <stdbool.h>

#include "refexport.h"

#ifndef Q2MAP_NO_GL /* Windows builds: software renderer only (see the end) */
#include <epoxy/gl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "../common/timer.h"
#include "egl_headless.h"
#include "refexport.h"

#define LM_PAGE 1024

typedef struct glvert_t {
    float pos[3];
    float tc[2];
    float lm[2];
    uint8_t flat[4];
    uint8_t clus[4];
} glvert_t;

typedef struct glr_t {
    const world_t *w;
    int width, height;
    egl_ctx_t *egl;
    GLuint fbo, rb_color, rb_depth;
    GLuint prog, vao, vbo, line_vao, line_vbo;
    GLint u_org, u_right, u_up, u_fwd, u_scale, u_depth, u_mode, u_kind, u_alpha, u_tex, u_lmap;
    GLuint *textures;
    GLuint *lm_pages;
    int numpages;
    GLint *face_first;
    GLsizei *face_count;
    int *batch_of_face; /* tex * numpages + page */
    int numbatches;
    int *bucket_count, *bucket_start;
    GLint *firsts;
    GLsizei *counts;
    render_opts_t opts;
    cull_t cull;
    view_t view;
} glr_t;

static const char *vs_src =
    "#version 330 core\n"
    "layout(location=0) in vec3 a_pos;\n"
    "layout(location=1) in vec2 a_tc;\n"
    "layout(location=2) in vec2 a_lm;\n"
    "layout(location=3) in vec3 a_flat;\n"
    "layout(location=4) in vec3 a_clus;\n"
    "uniform vec3 u_org, u_right, u_up, u_fwd;\n"
    "uniform vec2 u_scale, u_depth;\n"
    "out vec2 v_tc; out vec2 v_lm; out vec3 v_flat; out vec3 v_clus;\n"
    "void main() {\n"
    "  vec3 d = a_pos - u_org;\n"
    "  float x = dot(d, u_right), y = dot(d, u_up), z = dot(d, u_fwd);\n"
    "  gl_Position = vec4(x * u_scale.x, y * u_scale.y, z * u_depth.x + u_depth.y, z);\n"
    "  v_tc = a_tc; v_lm = a_lm; v_flat = a_flat; v_clus = a_clus;\n"
    "}\n";

static const char *fs_src =
    "#version 330 core\n"
    "in vec2 v_tc; in vec2 v_lm; in vec3 v_flat; in vec3 v_clus;\n"
    "uniform sampler2D u_tex, u_lmap;\n"
    "uniform int u_mode, u_kind;\n"
    "uniform float u_alpha;\n"
    "out vec4 o_color;\n"
    "void main() {\n"
    "  if (u_kind == 1) { o_color = vec4(" "%d.0/255.0, %d.0/255.0, %d.0/255.0, 1.0); return; }\n"
    "  if (u_kind == 3) { o_color = vec4(v_flat, 1.0); return; }\n"
    "  vec3 base = u_mode == 0 ? texture(u_tex, v_tc).rgb : u_mode == 1 ? vec3(1.0) :\n"
    "              u_mode == 2 ? v_flat : v_clus;\n"
    "  o_color = vec4(base * texture(u_lmap, v_lm).rgb, u_alpha);\n"
    "}\n";

static GLuint compile(GLenum type, const char *src, q2err_t *err)
{
    GLuint sh = glCreateShader(type);
    glShaderSource(sh, 1, &src, NULL);
    glCompileShader(sh);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024] = "";
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        q2err_set(err, NULL, 0, 0, "GL: shader does not compile: %s", log);
        glDeleteShader(sh);
        return 0;
    }
    return sh;
}

static void gl_shutdown(void *state)
{
    glr_t *g = state;
    if (!g) return;
    if (g->egl && egl_headless_make_current(g->egl)) {
        if (g->textures) glDeleteTextures(g->w->numtextures, g->textures);
        if (g->lm_pages) glDeleteTextures(g->numpages, g->lm_pages);
        glDeleteBuffers(1, &g->vbo);
        glDeleteBuffers(1, &g->line_vbo);
        glDeleteVertexArrays(1, &g->vao);
        glDeleteVertexArrays(1, &g->line_vao);
        glDeleteProgram(g->prog);
        glDeleteRenderbuffers(1, &g->rb_color);
        glDeleteRenderbuffers(1, &g->rb_depth);
        glDeleteFramebuffers(1, &g->fbo);
    }
    egl_headless_destroy(g->egl);
    free(g->textures);
    free(g->lm_pages);
    free(g->face_first);
    free(g->face_count);
    free(g->batch_of_face);
    free(g->bucket_count);
    free(g->bucket_start);
    free(g->firsts);
    free(g->counts);
    cull_free(&g->cull);
    free(g);
}

static void setup_attribs(void)
{
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(glvert_t), (void *)offsetof(glvert_t, pos));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, sizeof(glvert_t), (void *)offsetof(glvert_t, tc));
    glEnableVertexAttribArray(2);
    glVertexAttribPointer(2, 2, GL_FLOAT, GL_FALSE, sizeof(glvert_t), (void *)offsetof(glvert_t, lm));
    glEnableVertexAttribArray(3);
    glVertexAttribPointer(3, 3, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(glvert_t), (void *)offsetof(glvert_t, flat));
    glEnableVertexAttribArray(4);
    glVertexAttribPointer(4, 3, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(glvert_t), (void *)offsetof(glvert_t, clus));
}

/* Shelf packing of the faces' lightmaps into pages, in face order; the
 * first 2x2 luxels of page 0 are white for faces without a lightmap. */
static void pack_lightmaps(glr_t *g, wface_t *place_out_faces)
{
    const world_t *w = g->w;
    int page = 0, x = 2, y = 0, shelf = 2;
    for (int i = 0; i < w->numfaces; i++) {
        const wface_t *f = &w->faces[i];
        wface_t *o = &place_out_faces[i];
        if (f->lm_ofs < 0) {
            o->lm_page = 0;
            o->lm_x = 0;
            o->lm_y = 0;
            continue;
        }
        if (x + f->lm_w > LM_PAGE) {
            x = 0;
            y += shelf;
            shelf = 0;
        }
        if (y + f->lm_h > LM_PAGE) {
            page++;
            x = y = shelf = 0;
        }
        o->lm_page = page;
        o->lm_x = x;
        o->lm_y = y;
        x += f->lm_w;
        if (f->lm_h > shelf) shelf = f->lm_h;
    }
    g->numpages = page + 1;
}

/* Faces are drawn as fans around their centroid, not around a corner:
 * T-junction fixing leaves collinear points on edges, and a corner fan would
 * turn those into zero-area triangles whose removal (or llvmpipe's handling
 * of them) leaves the long edge without its middle vertices, a crack against
 * the neighbour. Around the centroid every polygon edge, split points
 * included, is an edge of exactly one non-degenerate triangle. Texture and
 * lightmap coordinates are affine over the plane, so the centroid's are the
 * average of the corners'. */
static wvert_t face_centroid(const world_t *w, const wface_t *f)
{
    wvert_t c;
    memset(&c, 0, sizeof c);
    for (int k = 0; k < f->numverts; k++) {
        const wvert_t *v = &w->verts[f->firstvert + k];
        for (int i = 0; i < 3; i++) c.xyz[i] += v->xyz[i];
        for (int i = 0; i < 2; i++) {
            c.st[i] += v->st[i];
            c.lm[i] += v->lm[i];
        }
    }
    float inv = 1.0f / (float)f->numverts;
    for (int i = 0; i < 3; i++) c.xyz[i] *= inv;
    for (int i = 0; i < 2; i++) {
        c.st[i] *= inv;
        c.lm[i] *= inv;
    }
    return c;
}

static bool same_point(const wvert_t *a, const wvert_t *b)
{
    return a->xyz[0] == b->xyz[0] && a->xyz[1] == b->xyz[1] && a->xyz[2] == b->xyz[2];
}

static bool gl_init(void **state, const world_t *w, int width, int height, int threads, q2err_t *err)
{
    (void)threads;
    if (width < 1 || height < 1 || width > 8192 || height > 8192)
        return q2err_set(err, NULL, 0, 0, "image size %dx%d out of range", width, height);
    glr_t *g = q2_calloc(1, sizeof *g);
    g->w = w;
    g->width = width;
    g->height = height;
    cull_init(&g->cull, w);
    render_opts_default(&g->opts);
    g->egl = egl_headless_create(err);
    if (!g->egl) {
        gl_shutdown(g);
        return false;
    }
    if (epoxy_gl_version() < 33) {
        q2err_set(err, NULL, 0, 0, "GL: version %d.%d is below 3.3", epoxy_gl_version() / 10, epoxy_gl_version() % 10);
        gl_shutdown(g);
        return false;
    }

    glGenFramebuffers(1, &g->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, g->fbo);
    glGenRenderbuffers(1, &g->rb_color);
    glBindRenderbuffer(GL_RENDERBUFFER, g->rb_color);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, g->rb_color);
    glGenRenderbuffers(1, &g->rb_depth);
    glBindRenderbuffer(GL_RENDERBUFFER, g->rb_depth);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, width, height);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, g->rb_depth);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
        q2err_set(err, NULL, 0, 0, "GL: RGBA8 framebuffer object incomplete");
        gl_shutdown(g);
        return false;
    }

    char fs[2048];
    snprintf(fs, sizeof fs, fs_src, SKY_R, SKY_G, SKY_B);
    GLuint vs = compile(GL_VERTEX_SHADER, vs_src, err);
    GLuint fsh = vs ? compile(GL_FRAGMENT_SHADER, fs, err) : 0;
    if (!vs || !fsh) {
        gl_shutdown(g);
        return false;
    }
    g->prog = glCreateProgram();
    glAttachShader(g->prog, vs);
    glAttachShader(g->prog, fsh);
    glLinkProgram(g->prog);
    glDeleteShader(vs);
    glDeleteShader(fsh);
    GLint ok = 0;
    glGetProgramiv(g->prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        q2err_set(err, NULL, 0, 0, "GL: shader program does not link");
        gl_shutdown(g);
        return false;
    }
#define U(n) g->n = glGetUniformLocation(g->prog, #n)
    U(u_org);
    U(u_right);
    U(u_up);
    U(u_fwd);
    U(u_scale);
    U(u_depth);
    U(u_mode);
    U(u_kind);
    U(u_alpha);
    U(u_tex);
    U(u_lmap);
#undef U

    /* Lightmap atlas. */
    wface_t *place = q2_calloc(w->numfaces > 0 ? w->numfaces : 1, sizeof *place);
    pack_lightmaps(g, place);
    g->lm_pages = q2_calloc(g->numpages, sizeof(GLuint));
    glGenTextures(g->numpages, g->lm_pages);
    uint8_t *pix = q2_malloc((size_t)LM_PAGE * LM_PAGE * 3);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    for (int p = 0; p < g->numpages; p++) {
        memset(pix, 0, (size_t)LM_PAGE * LM_PAGE * 3);
        if (p == 0)
            for (int k = 0; k < 2; k++) memset(pix + (size_t)k * LM_PAGE * 3, 255, 6);
        for (int i = 0; i < w->numfaces; i++) {
            const wface_t *f = &w->faces[i];
            if (f->lm_ofs < 0 || place[i].lm_page != p) continue;
            for (int r = 0; r < f->lm_h; r++)
                memcpy(pix + ((size_t)(place[i].lm_y + r) * LM_PAGE + place[i].lm_x) * 3,
                       w->lightmaps + f->lm_ofs + (size_t)r * f->lm_w * 3, (size_t)f->lm_w * 3);
        }
        glBindTexture(GL_TEXTURE_2D, g->lm_pages[p]);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB8, LM_PAGE, LM_PAGE, 0, GL_RGB, GL_UNSIGNED_BYTE, pix);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    }
    free(pix);

    g->textures = q2_calloc(w->numtextures > 0 ? w->numtextures : 1, sizeof(GLuint));
    glGenTextures(w->numtextures, g->textures);
    for (int t = 0; t < w->numtextures; t++) {
        glBindTexture(GL_TEXTURE_2D, g->textures[t]);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w->textures[t].width, w->textures[t].height, 0, GL_RGBA,
                     GL_UNSIGNED_BYTE, w->textures[t].rgba);
        /* Nearest texels, no mipmaps: what the software renderer does. */
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
    }

    /* Vertex buffer: each face as a triangle fan unrolled into triangles. */
    int nf = w->numfaces;
    g->face_first = q2_calloc(nf + 1, sizeof(GLint));
    g->face_count = q2_calloc(nf + 1, sizeof(GLsizei));
    g->batch_of_face = q2_calloc(nf + 1, sizeof(int));
    size_t total = 0;
    for (int i = 0; i < nf; i++)
        if (w->faces[i].numverts >= 3) total += 3 * (size_t)w->faces[i].numverts;
    glvert_t *vb = q2_malloc((total > 0 ? total : 1) * sizeof *vb);
    size_t at = 0;
    for (int i = 0; i < nf; i++) {
        const wface_t *f = &w->faces[i];
        const wtexture_t *tx = &w->textures[f->tex];
        g->face_first[i] = (GLint)at;
        g->batch_of_face[i] = f->tex * g->numpages + place[i].lm_page;
        wvert_t centre = face_centroid(w, f);
        for (int k = 0; f->numverts >= 3 && k < f->numverts; k++) {
            const wvert_t *tri[3] = {&centre, &w->verts[f->firstvert + k],
                                     &w->verts[f->firstvert + (k + 1) % f->numverts]};
            if (same_point(tri[1], tri[2])) continue;
            for (int j = 0; j < 3; j++) {
                const wvert_t *v = tri[j];
                glvert_t *o = &vb[at++];
                memcpy(o->pos, v->xyz, sizeof o->pos);
                o->tc[0] = v->st[0] / tx->width;
                o->tc[1] = v->st[1] / tx->height;
                if (f->lm_ofs >= 0) {
                    o->lm[0] = (place[i].lm_x + v->lm[0] + 0.5f) / LM_PAGE;
                    o->lm[1] = (place[i].lm_y + v->lm[1] + 0.5f) / LM_PAGE;
                } else {
                    o->lm[0] = o->lm[1] = 1.0f / LM_PAGE;
                }
                memcpy(o->flat, f->flat, 3);
                memcpy(o->clus, f->clustercol, 3);
                o->flat[3] = o->clus[3] = 255;
            }
        }
        g->face_count[i] = (GLsizei)(at - (size_t)g->face_first[i]);
    }
    free(place);
    glGenVertexArrays(1, &g->vao);
    glBindVertexArray(g->vao);
    glGenBuffers(1, &g->vbo);
    glBindBuffer(GL_ARRAY_BUFFER, g->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((at > 0 ? at : 1) * sizeof *vb), vb, GL_STATIC_DRAW);
    setup_attribs();
    free(vb);
    glGenVertexArrays(1, &g->line_vao);
    glBindVertexArray(g->line_vao);
    glGenBuffers(1, &g->line_vbo);
    glBindBuffer(GL_ARRAY_BUFFER, g->line_vbo);
    setup_attribs();
    glBindVertexArray(0);

    g->numbatches = w->numtextures * g->numpages;
    g->bucket_count = q2_calloc(g->numbatches + 1, sizeof(int));
    g->bucket_start = q2_calloc(g->numbatches + 1, sizeof(int));
    g->firsts = q2_calloc(nf + 1, sizeof(GLint));
    g->counts = q2_calloc(nf + 1, sizeof(GLsizei));
    if (glGetError() != GL_NO_ERROR) {
        q2err_set(err, NULL, 0, 0, "GL: error while uploading the world");
        gl_shutdown(g);
        return false;
    }
    *state = g;
    return true;
}

static void gl_begin(void *state, const render_opts_t *o)
{
    glr_t *g = state;
    g->opts = *o;
    egl_headless_make_current(g->egl);
    glBindFramebuffer(GL_FRAMEBUFFER, g->fbo);
    glViewport(0, 0, g->width, g->height);
    glClearColor(o->background[0] / 255.0f, o->background[1] / 255.0f, o->background[2] / 255.0f, 1.0f);
    glClearDepth(1.0);
    glDepthMask(GL_TRUE);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
}

static void set_view_uniforms(glr_t *g, const view_t *v)
{
    glUseProgram(g->prog);
    glUniform3f(g->u_org, (float)v->org[0], (float)v->org[1], (float)v->org[2]);
    glUniform3f(g->u_right, (float)v->right[0], (float)v->right[1], (float)v->right[2]);
    glUniform3f(g->u_up, (float)v->up[0], (float)v->up[1], (float)v->up[2]);
    glUniform3f(g->u_fwd, (float)v->fwd[0], (float)v->fwd[1], (float)v->fwd[2]);
    glUniform2f(g->u_scale, (float)(v->scale / (g->width * 0.5)), (float)(v->scale / (g->height * 0.5)));
    double n = VIEW_NEAR, f = VIEW_FAR;
    glUniform2f(g->u_depth, (float)((f + n) / (f - n)), (float)(-2.0 * f * n / (f - n)));
    glUniform1i(g->u_mode, g->opts.mode);
    glUniform1i(g->u_tex, 0);
    glUniform1i(g->u_lmap, 1);
    glUniform1f(g->u_alpha, 1.0f);
}

static void gl_draw_world(void *state, const camera_t *cam, render_stats_t *stats)
{
    glr_t *g = state;
    const world_t *w = g->w;
    double t0 = time_now();
    view_setup(&g->view, cam, g->width, g->height);
    cull_world(w, &g->cull, &g->view, &g->opts);
    set_view_uniforms(g, &g->view);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDisable(GL_CULL_FACE);
    glDisable(GL_BLEND);
    glBindVertexArray(g->vao);

    /* Sky first, in one call. */
    int nsky = 0;
    for (int i = 0; i < g->cull.numopaque; i++) {
        int fi = g->cull.opaque[i];
        if (!(w->faces[fi].flags & SURF_SKY)) continue;
        g->firsts[nsky] = g->face_first[fi];
        g->counts[nsky] = g->face_count[fi];
        nsky++;
    }
    glUniform1i(g->u_kind, 1);
    if (nsky) glMultiDrawArrays(GL_TRIANGLES, g->firsts, g->counts, nsky);

    /* Then the other opaque faces grouped by texture and lightmap page. */
    memset(g->bucket_count, 0, sizeof(int) * (g->numbatches + 1));
    for (int i = 0; i < g->cull.numopaque; i++) {
        int fi = g->cull.opaque[i];
        if (w->faces[fi].flags & SURF_SKY) continue;
        g->bucket_count[g->batch_of_face[fi]]++;
    }
    int sum = 0;
    for (int b = 0; b < g->numbatches; b++) {
        g->bucket_start[b] = sum;
        sum += g->bucket_count[b];
    }
    for (int i = 0; i < g->cull.numopaque; i++) {
        int fi = g->cull.opaque[i];
        if (w->faces[fi].flags & SURF_SKY) continue;
        int at = g->bucket_start[g->batch_of_face[fi]]++;
        g->firsts[at] = g->face_first[fi];
        g->counts[at] = g->face_count[fi];
    }
    glUniform1i(g->u_kind, 0);
    int start = 0;
    for (int b = 0; b < g->numbatches; b++) {
        int n = g->bucket_start[b] - start;
        if (n > 0) {
            glActiveTexture(GL_TEXTURE0);
            glBindTexture(GL_TEXTURE_2D, g->textures[b / g->numpages]);
            glActiveTexture(GL_TEXTURE1);
            glBindTexture(GL_TEXTURE_2D, g->lm_pages[b % g->numpages]);
            glMultiDrawArrays(GL_TRIANGLES, g->firsts + start, g->counts + start, n);
        }
        start = g->bucket_start[b];
    }

    /* Translucent faces back to front, blended, without writing depth. */
    if (g->cull.numtrans) {
        glEnable(GL_BLEND);
        /* Colour blends; the framebuffer's alpha stays opaque for the PNGs. */
        glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
        glDepthMask(GL_FALSE);
        for (int i = 0; i < g->cull.numtrans; i++) {
            int fi = g->cull.trans[i];
            const wface_t *f = &w->faces[fi];
            glUniform1f(g->u_alpha, (f->flags & SURF_TRANS33) ? 0.33f : 0.66f);
            glActiveTexture(GL_TEXTURE0);
            glBindTexture(GL_TEXTURE_2D, g->textures[f->tex]);
            glActiveTexture(GL_TEXTURE1);
            glBindTexture(GL_TEXTURE_2D, g->lm_pages[g->batch_of_face[fi] % g->numpages]);
            glDrawArrays(GL_TRIANGLES, g->face_first[fi], g->face_count[fi]);
        }
        glDepthMask(GL_TRUE);
        glDisable(GL_BLEND);
        glUniform1f(g->u_alpha, 1.0f);
    }

    if (g->opts.wireframe) {
        glDisable(GL_DEPTH_TEST);
        glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
        glUniform1i(g->u_kind, 3);
        glVertexAttrib3f(3, 1, 1, 1);
        glDisableVertexAttribArray(3);
        for (int i = 0; i < g->cull.numopaque; i++)
            glDrawArrays(GL_TRIANGLES, g->face_first[g->cull.opaque[i]], g->face_count[g->cull.opaque[i]]);
        glEnableVertexAttribArray(3);
        glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
        glEnable(GL_DEPTH_TEST);
    }
    glBindVertexArray(0);
    if (stats) {
        stats->faces_drawn = g->cull.numopaque + g->cull.numtrans;
        stats->clusters_visible = g->cull.clusters_visible;
        stats->view_cluster = g->cull.view_cluster;
        stats->ms = (time_now() - t0) * 1000.0;
    }
}

static void gl_draw_lines(void *state, const camera_t *cam, const overlay_line_t *lines, int n)
{
    glr_t *g = state;
    if (n <= 0) return;
    view_t v;
    view_setup(&v, cam, g->width, g->height);
    set_view_uniforms(g, &v);
    glvert_t *vb = q2_calloc((size_t)n * 2, sizeof *vb);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 2; k++) {
            memcpy(vb[i * 2 + k].pos, k ? lines[i].b : lines[i].a, sizeof(float) * 3);
            memcpy(vb[i * 2 + k].flat, lines[i].rgb, 3);
        }
    glBindVertexArray(g->line_vao);
    glBindBuffer(GL_ARRAY_BUFFER, g->line_vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof *vb * n * 2), vb, GL_STREAM_DRAW);
    glDisable(GL_DEPTH_TEST);
    glUniform1i(g->u_kind, 3);
    glDrawArrays(GL_LINES, 0, n * 2);
    glEnable(GL_DEPTH_TEST);
    glBindVertexArray(0);
    free(vb);
}

static void gl_end(void *state)
{
    (void)state;
    glFinish();
}

static void gl_read(void *state, uint8_t *rgba)
{
    glr_t *g = state;
    egl_headless_make_current(g->egl);
    glBindFramebuffer(GL_FRAMEBUFFER, g->fbo);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    uint8_t *tmp = q2_malloc((size_t)g->width * g->height * 4);
    glReadPixels(0, 0, g->width, g->height, GL_RGBA, GL_UNSIGNED_BYTE, tmp);
    /* GL's rows go bottom to top. */
    size_t row = (size_t)g->width * 4;
    for (int y = 0; y < g->height; y++) memcpy(rgba + (size_t)y * row, tmp + (size_t)(g->height - 1 - y) * row, row);
    free(tmp);
}

const refexport_t ref_gl = {
    "gl", gl_init, gl_begin, gl_draw_world, gl_draw_lines, gl_end, gl_read, gl_shutdown,
};

bool ref_gl_built(void) { return true; }

#else /* Q2MAP_NO_GL */

/* A build without GL (Windows, where there is no surfaceless EGL): the
 * renderer exists so that --renderer gl can be named, and its init says
 * why it cannot run; main falls back to the software renderer. */
static bool gl_missing_init(void **state, const world_t *w, int width, int height, int threads, q2err_t *err)
{
    (void)state, (void)w, (void)width, (void)height, (void)threads;
    return q2err_set(err, NULL, 0, 0, "the GL renderer is not in this build (no EGL on this platform)");
}

const refexport_t ref_gl = {"gl", gl_missing_init, NULL, NULL, NULL, NULL, NULL, NULL};

bool ref_gl_built(void) { return false; }

#endif
