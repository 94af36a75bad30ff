/* convert/convert_file.c — one conversion to one output file: the writer streams into a
 * temporary (or stdout) that is renamed into place only when it succeeded; a Parquet file gets
 * its OUT.views.sql sidecar, the two committed together (see convert/convert.h); and
 * cv_convert, the whole conversion of input paths to one file in one call. */
/* SPDX-License-Identifier: MIT */
#include "convert/convert.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error_set.h"
#include "convert/session.h"

#define io_err(err, ...) bb__err_set((err), BB_ERR_IO, UINT64_MAX, NULL, __VA_ARGS__)

/* The absolute path `path` will have: realpath of its directory + its base name. */
static char *absolute_path(const char *path) {
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
    if (!dir) return NULL;
    char *rdir = realpath(dir, NULL);
    free(dir);
    if (!rdir) return NULL;
    const char *base = slash ? slash + 1 : path;
    size_t n = strlen(rdir) + strlen(base) + 2;
    char *out = malloc(n);
    if (out) snprintf(out, n, "%s%s%s", rdir, strcmp(rdir, "/") ? "/" : "", base);
    free(rdir);
    return out;
}

/* Write the sidecar text (binding line + DDL) into `o`. */
static bool write_sidecar(em_out *o, const char *sidecar, const char *parquet_abs, const char *ddl,
                          bb_error *err) {
    em_obuf b;
    if (!em_obuf_init(&b, o->fd, 1 << 16)) {
        io_err(err, "cannot write %s: out of memory", sidecar);
        return false;
    }
    /* The Parquet file by its name alone: the pair stays usable when moved or copied together. */
    const char *slash = strrchr(parquet_abs, '/');
    em_obuf_puts(
        &b, "-- backbeat query views; paths are relative to this file's directory DIR. Load with:\n"
            "--   duckdb -cmd \"SET file_search_path = 'DIR'\" -cmd \".read DIR/<this file>\"\n");
    em_obuf_puts(&b, "CREATE OR REPLACE VIEW events AS SELECT * FROM read_parquet('");
    for (const char *p = slash ? slash + 1 : parquet_abs; *p; p++) {
        if (*p == '\'') em_obuf_putc(&b, '\'');
        em_obuf_putc(&b, *p);
    }
    em_obuf_puts(&b, "');\n");
    em_obuf_puts(&b, ddl);
    int e = em_obuf_finish(&b);
    if (e) {
        io_err(err, "cannot write %s: %s", sidecar, strerror(e));
        return false;
    }
    return true;
}

/* Commit the Parquet file `o` and its sidecar together: neither without the other. */
static bool commit_pair(em_out *o, const char *out, const char *sidecar, const char *abs,
                        const char *ddl, bb_error *err) {
    em_out so;
    if (!em_out_open(&so, sidecar, err)) {
        em_out_abort(o);
        return false;
    }
    if (!write_sidecar(&so, sidecar, abs, ddl, err)) {
        em_out_abort(&so);
        em_out_abort(o);
        return false;
    }
    if (!em_out_commit(o, err)) {
        em_out_abort(&so);
        return false;
    }
    if (!em_out_commit(&so, err)) {
        unlink(out); /* no Parquet without its sidecar */
        return false;
    }
    return true;
}

/* A Parquet file written to a regular file: its OUT.views.sql, then both committed. */
static bool commit_with_sidecar(em_out *o, const char *out, const bb_model *model,
                                const convert_opts *opts, bb_error *err) {
    size_t n = strlen(out) + sizeof ".views.sql";
    char *sidecar = malloc(n),
         *ddl = tw_views_ddl(model, opts->view_rank, opts->crashes, opts->ncrashes);
    char *abs = absolute_path(out);
    bool ok = false;
    if (!sidecar || !ddl || !abs) {
        em_out_abort(o);
        io_err(err, "cannot write %s: %s", out, abs ? "out of memory" : strerror(errno));
    } else {
        snprintf(sidecar, n, "%s.views.sql", out);
        ok = commit_pair(o, out, sidecar, abs, ddl, err);
    }
    free(ddl);
    free(sidecar);
    free(abs);
    return ok;
}

static bool ends_with(const char *s, const char *suf) {
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && !strcasecmp(s + n - k, suf);
}

/* An existing directory (through symlinks): `-o DIR` of a CTF trace. */
static bool is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool cv_format_of_path(const char *path, cv_format *fmt) {
    if (ends_with(path, ".parquet")) *fmt = CV_PARQUET;
    else if (ends_with(path, ".json")) *fmt = CV_TRACE;
    else if (ends_with(path, "/") || is_dir(path)) *fmt = CV_CTF;
    else return false;
    return true;
}

bool cv_convert_file(const bb_model *model, cv_format fmt, const convert_opts *opts,
                     const char *path, bb_error *err) {
    if (fmt == CV_CTF) return cv_convert_dir(model, opts, path, err);
    em_out o;
    if (!em_out_open(&o, path, err)) return false;
    char errbuf[512] = "";
    int rc = fmt == CV_PARQUET ? tw_write(model, opts, o.fd, errbuf, sizeof errbuf)
                               : tr_write(model, opts, o.fd, errbuf, sizeof errbuf);
    if (rc) {
        em_out_abort(&o);
        const char *why = errbuf[0] ? errbuf : "conversion failed";
        if (strstr(errbuf, path)) io_err(err, "%s", why);
        else io_err(err, "%s: %s", path, why);
        return false;
    }
    if (fmt == CV_PARQUET && o.tmp) return commit_with_sidecar(&o, path, model, opts, err);
    return em_out_commit(&o, err);
}

/* Whether `path` names the same file (device and inode) as one of the inputs (err set). */
static bool is_input(const cv_request *rq, const char *path, bb_error *err) {
    struct stat so, si;
    if (stat(path, &so) != 0) return false;
    for (size_t i = 0; i < rq->ninputs; i++)
        if (stat(rq->inputs[i], &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
            io_err(err, "cannot write %s: it is the input %s", path, rq->inputs[i]);
            return true;
        }
    return false;
}

/* Whether the output, or the sidecar a Parquet file also gets, is one of the inputs. */
static bool output_is_input(const cv_request *rq, cv_format fmt, const char *out, bb_error *err) {
    if (!strcmp(out, "-")) return false;
    if (is_input(rq, out, err)) return true;
    if (fmt != CV_PARQUET) return false;
    size_t n = strlen(out) + sizeof ".views.sql";
    char *sidecar = malloc(n);
    if (!sidecar) return false; /* the write itself reports the lack of memory */
    snprintf(sidecar, n, "%s.views.sql", out);
    bool is = is_input(rq, sidecar, err);
    free(sidecar);
    return is;
}

bool cv_convert(const cv_request *rq, cv_format fmt, const char *out, bb_error *err) {
    if (output_is_input(rq, fmt, out, err)) return false;
    cv_session s;
    if (!cv_session_open(rq, rq->inputs, rq->ninputs, false, &s, err)) return false;
    convert_opts co = cv_session_opts(rq, fmt, &s, out);
    bool ok = cv_convert_file(s.model, fmt, &co, out, err);
    cv_session_close(&s);
    return ok;
}
