#include "egl_headless.h"

#ifndef Q2MAP_NO_GL /* Windows builds have no EGL: see gl_render.c */

#include <epoxy/egl.h>
#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"

struct egl_ctx_t {
    EGLDisplay dpy;
    EGLContext ctx;
};

egl_ctx_t *egl_headless_create(q2err_t *err)
{
    const char *cext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (!cext || !strstr(cext, "EGL_MESA_platform_surfaceless")) {
        q2err_set(err, NULL, 0, 0, "EGL: EGL_MESA_platform_surfaceless is not available (need Mesa's EGL)");
        return NULL;
    }
    EGLDisplay dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (dpy == EGL_NO_DISPLAY) {
        q2err_set(err, NULL, 0, 0, "EGL: no surfaceless display (error 0x%x)", (unsigned)eglGetError());
        return NULL;
    }
    EGLint major, minor;
    if (!eglInitialize(dpy, &major, &minor)) {
        q2err_set(err, NULL, 0, 0, "EGL: eglInitialize failed (error 0x%x)", (unsigned)eglGetError());
        return NULL;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
        q2err_set(err, NULL, 0, 0, "EGL: desktop OpenGL is not supported");
        eglTerminate(dpy);
        return NULL;
    }
    const EGLint attrs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                            EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attrs);
    if (ctx == EGL_NO_CONTEXT) {
        q2err_set(err, NULL, 0, 0, "EGL: no OpenGL 3.3 core context (error 0x%x)", (unsigned)eglGetError());
        eglTerminate(dpy);
        return NULL;
    }
    if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
        q2err_set(err, NULL, 0, 0, "EGL: eglMakeCurrent without a surface failed (error 0x%x)",
                  (unsigned)eglGetError());
        eglDestroyContext(dpy, ctx);
        eglTerminate(dpy);
        return NULL;
    }
    egl_ctx_t *c = q2_calloc(1, sizeof *c);
    c->dpy = dpy;
    c->ctx = ctx;
    return c;
}

bool egl_headless_make_current(egl_ctx_t *c)
{
    return c && eglMakeCurrent(c->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, c->ctx);
}

void egl_headless_destroy(egl_ctx_t *c)
{
    if (!c) return;
    eglMakeCurrent(c->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(c->dpy, c->ctx);
    /* The display is shared per process; terminating it would pull it from
     * under another renderer instance, so it is left initialised. */
    free(c);
}

/* Under LeakSanitizer: Mesa keeps its driver state (llvmpipe, LLVM, the
 * EGL display) for the life of the process by design; those allocations are
 * not leaks of this program. Unused in normal builds. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libEGL_mesa\nleak:libgallium\nleak:libLLVM\nleak:_dri.so\nleak:libglapi\nleak:libGLX\n"
           "leak:libX11\nleak:libxcb\nleak:libSDL2\n";
}

#endif /* Q2MAP_NO_GL */
