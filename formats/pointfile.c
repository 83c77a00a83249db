#include "pointfile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/fileio.h"
#include "../common/mem.h"

/* A leak path crosses at most a few thousand portals of a world 8192 units
 * wide; more samples than this means a spacing too fine to be useful. */
#define PTS_MAX_SAMPLES 10000000

static bool check_points(const char *path, const vec3_t *pts, int n, q2err_t *err)
{
    if (n < 0 || (n > 0 && !pts)) return q2err_set(err, path, 0, 0, "no points to write");
    for (int i = 0; i < n; i++)
        if (!vec_is_finite(pts[i])) return q2err_set(err, path, 0, 0, "point %d is not finite", i);
    return true;
}

/* "%f", but never "-0.000000": a coordinate that prints as zero prints
 * unsigned, whatever the sign the arithmetic gave it (-0.0 or a tiny
 * negative), so the file's bytes do not depend on the build (issue 37). */
static void put_coord(FILE *f, double v, char end)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%f", v);
    fputs(strcmp(buf, "-0.000000") ? buf : "0.000000", f);
    fputc(end, f);
}

static void put_point(FILE *f, vec3_t p)
{
    put_coord(f, p.x, ' ');
    put_coord(f, p.y, ' ');
    put_coord(f, p.z, '\n');
}

bool pointfile_write_pts(const char *path, const vec3_t *pts, int n, double spacing, q2err_t *err)
{
    if (!check_points(path, pts, n, err)) return false;
    long long samples = n;
    if (spacing > 0) {
        for (int i = 0; i + 1 < n; i++) samples += (long long)ceil(vec_len(vec_sub(pts[i + 1], pts[i])) / spacing);
        if (samples > PTS_MAX_SAMPLES)
            return q2err_set(err, path, 0, 0, "spacing %g gives %lld points (more than %d)", spacing, samples,
                             PTS_MAX_SAMPLES);
    }
    atomic_file_t af;
    if (!atomic_open(&af, path, err)) return false;
    for (int i = 0; i < n; i++) {
        put_point(af.f, pts[i]);
        if (i + 1 == n || !(spacing > 0)) continue;
        /* Evenly spaced samples strictly between the two vertices, no more
         * than `spacing` apart; the next vertex is written by the next
         * iteration. */
        double len = vec_len(vec_sub(pts[i + 1], pts[i]));
        int steps = (int)ceil(len / spacing);
        for (int k = 1; k < steps; k++) put_point(af.f, vec_lerp(pts[i], pts[i + 1], (double)k / steps));
    }
    return atomic_commit(&af, err);
}

bool pointfile_write_lin(const char *path, const vec3_t *pts, int n, q2err_t *err)
{
    if (!check_points(path, pts, n, err)) return false;
    atomic_file_t af;
    if (!atomic_open(&af, path, err)) return false;
    for (int i = 0; i < n; i++) put_point(af.f, pts[i]);
    return atomic_commit(&af, err);
}

bool pointfile_read(const char *path, vec3_t **pts, int *n, q2err_t *err)
{
    uint8_t *data;
    size_t size;
    *pts = NULL;
    *n = 0;
    if (!file_read_all(path, (size_t)256 * 1024 * 1024, &data, &size, err)) return false;
    vec3_t *out = NULL;
    int count = 0, cap = 0, line = 0;
    char *p = (char *)data;
    char *end = p + size;
    while (p < end) {
        line++;
        char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        *eol = 0;
        char *s = p;
        while (*s == ' ' || *s == '\t' || *s == '\r') s++;
        if (*s) {
            double v[3];
            char *q = s;
            for (int c = 0; c < 3; c++) {
                char *e;
                v[c] = strtod(q, &e);
                if (e == q) {
                    free(out);
                    free(data);
                    return q2err_set(err, path, line, 0, "expected 3 numbers (x y z) on the line");
                }
                if (!isfinite(v[c])) {
                    free(out);
                    free(data);
                    return q2err_set(err, path, line, 0, "coordinate is not a finite number");
                }
                q = e;
            }
            while (*q == ' ' || *q == '\t' || *q == '\r') q++;
            if (*q) {
                free(out);
                free(data);
                return q2err_set(err, path, line, 0, "unexpected text after the 3 coordinates");
            }
            ARRAY_PUSH(out, count, cap, vec3(v[0], v[1], v[2]));
        }
        p = eol + 1;
    }
    free(data);
    *pts = out;
    *n = count;
    return true;
}
