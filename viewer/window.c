#include "window.h"
bool window_run(const world_t *w, const window_opts_t *o, q2err_t *err)
{
    (void)w; (void)o;
    return q2err_set(err, NULL, 0, 0, "not yet");
}
