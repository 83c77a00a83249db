#include "prt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/fileio.h"
#include "../common/mem.h"
#include "lexer.h"

/* qbsp3 and ericw-tools never write portal windings with more than a few
 * dozen points (MAX_POINTS_ON_WINDING is 64 there); a bound keeps a corrupt
 * count from asking for gigabytes. */
#define PRT_MAX_POINTS 4096

static bool next_or_eof(lexer_t *lx, const char *expected, q2err_t *err)
{
    if (lexer_next(lx, err)) return true;
    if (err && err->msg[0]) return false;
    return lexer_error(lx, err, "truncated portal file: expected %s but the file ended", expected);
}

static bool read_count(lexer_t *lx, int *out, const char *what, q2err_t *err)
{
    if (!next_or_eof(lx, what, err)) return false;
    lexer_unget(lx);
    if (!lexer_int(lx, out, what, err)) return false;
    if (*out < 0) return lexer_error(lx, err, "%s %d is negative", what, *out);
    return true;
}

static bool read_portal(lexer_t *lx, const prt_t *prt, int index, prt_portal_t *p, q2err_t *err)
{
    char what[96];
    int numpoints;
    snprintf(what, sizeof what, "the point count of portal %d", index);
    if (!read_count(lx, &numpoints, what, err)) return false;
    if (numpoints < 3) return lexer_error(lx, err, "portal %d has %d points (at least 3 needed)", index, numpoints);
    if (numpoints > PRT_MAX_POINTS)
        return lexer_error(lx, err, "portal %d has %d points (more than %d)", index, numpoints, PRT_MAX_POINTS);
    for (int k = 0; k < 2; k++) {
        snprintf(what, sizeof what, "cluster %c of portal %d", "AB"[k], index);
        if (!next_or_eof(lx, what, err)) return false;
        lexer_unget(lx);
        if (!lexer_int(lx, &p->cluster[k], what, err)) return false;
        if (p->cluster[k] < 0 || p->cluster[k] >= prt->numclusters)
            return lexer_error(lx, err, "portal %d: cluster %d is out of range (the file has %d clusters)", index,
                               p->cluster[k], prt->numclusters);
    }
    p->winding = winding_alloc(numpoints);
    for (int i = 0; i < numpoints; i++) {
        if (!next_or_eof(lx, "'(' (a portal point)", err)) return false;
        if (!lexer_is(lx, "("))
            return lexer_error(lx, err, "portal %d: expected '(' for point %d of %d but found '%s'", index, i + 1,
                               numpoints, lx->token);
        double v[3];
        for (int c = 0; c < 3; c++) {
            /* big portal files hold hundreds of thousands of coordinates:
             * the name of one is formatted only when it is not a plain number */
            if (lexer_try_number(lx, &v[c])) continue;
            snprintf(what, sizeof what, "%c coordinate of point %d of portal %d", "xyz"[c], i + 1, index);
            if (!next_or_eof(lx, what, err)) return false;
            lexer_unget(lx);
            if (!lexer_number(lx, &v[c], what, err)) return false;
        }
        if (!next_or_eof(lx, "')'", err)) return false;
        if (!lexer_is(lx, ")"))
            return lexer_error(lx, err, "portal %d: expected ')' after point %d but found '%s'", index, i + 1,
                               lx->token);
        p->winding->p[i] = vec3(v[0], v[1], v[2]);
    }
    p->winding->numpoints = numpoints;
    return true;
}

/* PRT2: one line per cluster listing its leafs, ended by -1. PRT1-AM: the
 * cluster of each leaf in turn. Either way every leaf gets one cluster. */
static bool read_cluster_map(lexer_t *lx, prt_t *out, q2err_t *err)
{
    out->leaf_cluster = q2_malloc((out->numleafs ? (size_t)out->numleafs : 1) * sizeof *out->leaf_cluster);
    for (int i = 0; i < out->numleafs; i++) out->leaf_cluster[i] = -1;
    if (out->format == PRT_FORMAT_PRT1_AM) {
        for (int i = 0; i < out->numleafs; i++) {
            int c;
            if (!next_or_eof(lx, "a cluster number of the leaf map", err)) return false;
            lexer_unget(lx);
            if (!lexer_int(lx, &c, "a cluster number of the leaf map", err)) return false;
            if (c < 0 || c >= out->numclusters)
                return lexer_error(lx, err, "leaf %d: cluster %d is out of range (the file has %d clusters)", i, c,
                                   out->numclusters);
            out->leaf_cluster[i] = c;
        }
        return true;
    }
    for (int c = 0; c < out->numclusters; c++) {
        for (;;) {
            int leaf;
            if (!next_or_eof(lx, "a leaf number of the cluster map (or -1)", err)) return false;
            lexer_unget(lx);
            if (!lexer_int(lx, &leaf, "a leaf number of the cluster map", err)) return false;
            if (leaf == -1) break;
            if (leaf < 0 || leaf >= out->numleafs)
                return lexer_error(lx, err, "cluster %d: leaf %d is out of range (the file has %d leafs)", c, leaf,
                                   out->numleafs);
            if (out->leaf_cluster[leaf] != -1)
                return lexer_error(lx, err, "cluster %d: leaf %d is already in cluster %d", c, leaf,
                                   out->leaf_cluster[leaf]);
            out->leaf_cluster[leaf] = c;
        }
    }
    return true;
}

bool prt_read_memory(const char *text, size_t size, const char *name, prt_t *out, q2err_t *err)
{
    memset(out, 0, sizeof *out);
    if (err) q2err_clear(err);
    if (!name) name = "(portal file)";
    lexer_t *lx = q2_malloc(sizeof *lx);
    lexer_init(lx, text, size, name);
    bool ok = false;
    if (!lexer_next(lx, err)) {
        if (!(err && err->msg[0])) lexer_error(lx, err, "empty portal file (expected the PRT1 header)");
        goto done;
    }
    /* ericw-tools writes plain PRT1 for Quake 2, and PRT2 / PRT1-AM only in
     * its Quake 1 modes with detail: both still number portals by cluster
     * and append a leaf-to-cluster map, which is read and kept so the
     * caller can compare it with the bsp's own leaf clusters. */
    if (!lx->quoted && strcmp(lx->token, "PRT1") == 0) {
        out->format = PRT_FORMAT_PRT1;
    } else if (!lx->quoted && strcmp(lx->token, "PRT2") == 0) {
        out->format = PRT_FORMAT_PRT2;
    } else if (!lx->quoted && strcmp(lx->token, "PRT1-AM") == 0) {
        out->format = PRT_FORMAT_PRT1_AM;
    } else {
        lexer_error(lx, err, "bad header: expected 'PRT1', 'PRT2' or 'PRT1-AM' but found '%.40s'", lx->token);
        goto done;
    }
    if (out->format == PRT_FORMAT_PRT2 && !read_count(lx, &out->numleafs, "the number of leafs", err)) goto done;
    if (!read_count(lx, &out->numclusters, "the number of clusters", err)) goto done;
    if (!read_count(lx, &out->numportals, "the number of portals", err)) goto done;
    if (out->format == PRT_FORMAT_PRT1_AM && !read_count(lx, &out->numleafs, "the number of leafs", err)) goto done;
    /* Every portal takes well over 16 bytes of text, every leaf map entry at
     * least 2 and every PRT2 cluster line 3 ("-1\n"); counts the file cannot
     * hold are reported here rather than after allocating for them. */
    if ((size_t)out->numportals > size / 16) {
        lexer_error(lx, err, "the header claims %d portals but the file is only %zu bytes", out->numportals, size);
        goto done;
    }
    if ((size_t)out->numleafs > size / 2 || (out->format == PRT_FORMAT_PRT2 && (size_t)out->numclusters > size / 3)) {
        lexer_error(lx, err, "the header claims %d leafs and %d clusters but the file is only %zu bytes",
                    out->numleafs, out->numclusters, size);
        goto done;
    }
    out->portals = q2_calloc(out->numportals ? (size_t)out->numportals : 1, sizeof *out->portals);
    for (int i = 0; i < out->numportals; i++) {
        if (!read_portal(lx, out, i, &out->portals[i], err)) goto done;
    }
    if (out->format != PRT_FORMAT_PRT1 && !read_cluster_map(lx, out, err)) goto done;
    if (lexer_next(lx, err)) {
        lexer_error(lx, err, "counts do not match: more data after the %d portals the header announced ('%.40s')",
                    out->numportals, lx->token);
        goto done;
    }
    if (err && err->msg[0]) goto done;
    ok = true;
done:
    free(lx);
    if (!ok) prt_free(out);
    return ok;
}

bool prt_read_file(const char *path, prt_t *out, q2err_t *err)
{
    uint8_t *data;
    size_t size;
    memset(out, 0, sizeof *out);
    if (!file_read_all(path, PRT_FILE_MAX, &data, &size, err)) return false;
    bool ok = prt_read_memory((const char *)data, size, path, out, err);
    free(data);
    return ok;
}

/* The decimal digits of v at p, as "%lld" writes them; returns the end. */
static char *put_int(char *p, long long v)
{
    char tmp[24];
    int n = 0;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) *p++ = '-';
    while (n) *p++ = tmp[--n];
    return p;
}

/* As qbsp3 writes them: integers when within 0.001 of one, which keeps the
 * usual grid-aligned portals short and exact. Written into p (room for
 * PRT_COORD_MAX bytes); returns the end. */
enum { PRT_COORD_MAX = 352 }; /* "%f" of the largest double: 309 digits, sign, point, 6 decimals */
static char *put_coord(char *p, double v)
{
    double r = rint(v);
    if (fabs(v - r) < 0.001 && fabs(r) < 1e15) return put_int(p, (long long)r); /* "%.0f"'s digits */
    int n = fabs(v - r) < 0.001 ? snprintf(p, PRT_COORD_MAX, "%.0f", r == 0 ? 0.0 : r)
                                : snprintf(p, PRT_COORD_MAX, "%f", v);
    return p + (n > 0 ? n : 0);
}

bool prt_write_file(const char *path, const prt_t *prt, q2err_t *err)
{
    for (int i = 0; i < prt->numportals; i++) {
        const prt_portal_t *p = &prt->portals[i];
        if (!p->winding || p->winding->numpoints < 3)
            return q2err_set(err, path, 0, 0, "portal %d has no winding or fewer than 3 points", i);
        if (p->cluster[0] < 0 || p->cluster[0] >= prt->numclusters || p->cluster[1] < 0 ||
            p->cluster[1] >= prt->numclusters)
            return q2err_set(err, path, 0, 0, "portal %d has clusters %d/%d outside 0..%d", i, p->cluster[0],
                             p->cluster[1], prt->numclusters - 1);
    }
    atomic_file_t af;
    if (!atomic_open(&af, path, err)) return false;
    fprintf(af.f, "PRT1\n%d\n%d\n", prt->numclusters, prt->numportals);
    /* A line at a time through our own digits: fprintf's per-call cost was
     * most of the .prt's writing time, and the bytes are the same. */
    char *line = NULL;
    size_t cap = 0;
    for (int i = 0; i < prt->numportals; i++) {
        const prt_portal_t *p = &prt->portals[i];
        size_t need = 3 * 24 + (size_t)p->winding->numpoints * (3 * PRT_COORD_MAX + 8) + 2;
        if (need > cap) {
            cap = need * 2;
            line = q2_realloc(line, cap);
        }
        char *e = line;
        e = put_int(e, p->winding->numpoints);
        *e++ = ' ';
        e = put_int(e, p->cluster[0]);
        *e++ = ' ';
        e = put_int(e, p->cluster[1]);
        *e++ = ' ';
        for (int j = 0; j < p->winding->numpoints; j++) {
            *e++ = '(';
            e = put_coord(e, p->winding->p[j].x);
            *e++ = ' ';
            e = put_coord(e, p->winding->p[j].y);
            *e++ = ' ';
            e = put_coord(e, p->winding->p[j].z);
            *e++ = ')';
            *e++ = ' ';
        }
        *e++ = '\n';
        fwrite(line, 1, (size_t)(e - line), af.f);
    }
    free(line);
    return atomic_commit(&af, err);
}

void prt_free(prt_t *prt)
{
    if (!prt) return;
    if (prt->portals)
        for (int i = 0; i < prt->numportals; i++) winding_free(prt->portals[i].winding);
    free(prt->portals);
    free(prt->leaf_cluster);
    memset(prt, 0, sizeof *prt);
}
