/* A headless OpenGL 3.3 core context: EGL on Mesa's surfaceless platform
 * (llvmpipe when no GPU is present), no window and no display server. The
 * GL renderer draws into its own framebuffer object. */
#ifndef QVIEW_EGL_HEADLESS_H
#define QVIEW_EGL_HEADLESS_H

#include <stdbool.h>

#include "../common/error.h"

typedef struct egl_ctx_t egl_ctx_t;

egl_ctx_t *egl_headless_create(q2err_t *err);
bool egl_headless_make_current(egl_ctx_t *c);
void egl_headless_destroy(egl_ctx_t *c);

#endif
