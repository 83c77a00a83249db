#include "timer.h"

#include "os.h"

double time_now(void) { return os_monotonic_s(); }

void stages_init(stage_times_t *st)
{
    st->count = 0;
    st->started = 0;
}

void stages_end(stage_times_t *st)
{
    if (st->started > 0 && st->count > 0) {
        st->stage[st->count - 1].seconds += time_now() - st->started;
        st->started = 0;
    }
}

void stages_mark(stage_times_t *st, const char *name)
{
    stages_end(st);
    if (st->count >= STAGE_MAX) return;
    st->stage[st->count].name = name;
    st->stage[st->count].seconds = 0;
    st->count++;
    st->started = time_now();
}

double stages_total(const stage_times_t *st)
{
    double t = 0;
    for (int i = 0; i < st->count; i++) t += st->stage[i].seconds;
    return t;
}
