/* Monotonic timing of stages, for logs and -json reports. */
#ifndef Q2M_TIMER_H
#define Q2M_TIMER_H

/* Seconds from an arbitrary fixed point; never goes backwards. */
double time_now(void);

#define STAGE_MAX 32

/* Per-run record of stage durations; main() owns one and passes it down. */
typedef struct stage_times_t {
    int count;
    struct {
        const char *name; /* string literal */
        double seconds;
    } stage[STAGE_MAX];
    double started;
} stage_times_t;

void stages_init(stage_times_t *st);
/* Starts timing a stage; the previous one (if any) ends here. */
void stages_mark(stage_times_t *st, const char *name);
/* Ends the current stage. */
void stages_end(stage_times_t *st);
double stages_total(const stage_times_t *st);

#endif
