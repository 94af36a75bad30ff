/* convert/inputs.c — a conversion's inputs opened as dumps (convert/inputs.h): a ring file is
 * told by its magic and snapshotted through the ring reader (backbeat/ring_reader.h) into a
 * dump in memory; anything else is opened as a `.bb` dump. */
/* SPDX-License-Identifier: MIT */
#include "convert/inputs.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backbeat/ring_reader.h"
#include "common/error_set.h"
#include "format/ring_file.h"

/* True when `path` is a regular file starting with the ring file magic (false when it cannot
 * be read; never blocks on a FIFO). */
static bool is_ring_path(const char *path) {
    uint8_t magic[BB_RING_MAGIC_SIZE];
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat sb;
    bool is = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
              read(fd, magic, sizeof magic) == (ssize_t)sizeof magic &&
              memcmp(magic, BB_RING_MAGIC, BB_RING_MAGIC_SIZE) == 0;
    close(fd);
    return is;
}

const char *cv_ring_warning(bool written, size_t events) {
    if (written && events == 0)
        return "its rings hold records but no schema could be recovered (the metadata log is "
               "damaged or lost): none of them can be decoded";
    return NULL;
}

/* "warning: PATH: TEXT" to the callback. */
static void warn_path(cv_warn_fn warn, void *ctx, const char *path, const char *text) {
    if (!warn) return;
    size_t n = strlen(path) + strlen(text) + 16;
    char *msg = malloc(n);
    if (!msg) return;
    snprintf(msg, n, "warning: %s: %s", path, text);
    warn(msg, ctx);
    free(msg);
}

/* The ring file `path` snapshotted into *mem (*len bytes), its warnings given. */
static bool load_ring(const char *path, cv_warn_fn warn, void *ctx, uint8_t **mem, size_t *len,
                      bb_error *err) {
    bb_ring *r = NULL;
    void *dump = NULL;
    bool ok = bb_ring_open(path, &r, err) == BB_OK && bb_ring_snapshot(r, &dump, len, err) == BB_OK;
    if (ok && bb_ring_liveness(r) == BB_RING_RUNNING) {
        char text[96];
        snprintf(text, sizeof text, "the process writing it (pid %llu) is still running",
                 (unsigned long long)bb_ring_get_info(r)->pid);
        warn_path(warn, ctx, path, text);
    }
    const bb_ring_stats *s = r ? bb_ring_get_stats(r) : NULL;
    if (ok && cv_ring_warning(s->written, s->events))
        warn_path(warn, ctx, path, cv_ring_warning(s->written, s->events));
    bb_ring_close(r);
    if (!ok) {
        free(dump);
        dump = NULL;
    }
    *mem = dump;
    return ok;
}

/* A ring file (docs/RING_FILE.md) as a dump: recovered in memory, like `backbeat recover`. */
static bool open_ring(const char *path, cv_warn_fn warn, void *ctx, bb_dump **out, uint8_t **mem,
                      bb_error *err) {
    size_t len = 0;
    if (!load_ring(path, warn, ctx, mem, &len, err)) return false;
    bb_error e;
    memset(&e, 0, sizeof e);
    if (bb_dump_open_memory(*mem, len, path, out, &e) != BB_OK) {
        bb__err_set(err, e.status, e.offset, path, "%s", e.message);
        free(*mem);
        *mem = NULL;
        return false;
    }
    return true;
}

/* A `.bb` dump file; the message names the file. */
static bool open_file(const char *path, bb_dump **out, bb_error *err) {
    bb_error e;
    memset(&e, 0, sizeof e);
    if (bb_dump_open(path, out, &e) == BB_OK) return true;
    if (strstr(e.message, path)) *err = e;
    else
        bb__err_set(err, e.status, e.offset, path, "%s",
                    e.message[0] ? e.message : bb_strerror(e.status));
    return false;
}

bool cv_inputs_open(char *const *paths, size_t n, cv_warn_fn warn, void *warn_ctx, cv_inputs *in,
                    bb_error *err) {
    memset(in, 0, sizeof *in);
    in->dumps = calloc(n ? n : 1, sizeof *in->dumps);
    in->mem = calloc(n ? n : 1, sizeof *in->mem);
    if (!in->dumps || !in->mem) {
        cv_inputs_close(in);
        bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL, "out of memory");
        return false;
    }
    for (size_t i = 0; i < n; i++, in->n++) {
        bool ok = is_ring_path(paths[i])
                      ? open_ring(paths[i], warn, warn_ctx, &in->dumps[i], &in->mem[i], err)
                      : open_file(paths[i], &in->dumps[i], err);
        if (!ok) {
            cv_inputs_close(in);
            return false;
        }
    }
    bb__err_clear(err);
    return true;
}

void cv_inputs_close(cv_inputs *in) {
    for (size_t i = 0; i < in->n; i++) {
        bb_dump_close(in->dumps[i]);
        free(in->mem[i]);
    }
    free(in->dumps);
    free(in->mem);
    memset(in, 0, sizeof *in);
}

const uint8_t *cv_inputs_memory(const cv_inputs *in, size_t i, size_t *len) {
    if (!in->mem[i]) return NULL;
    *len = (size_t)bb_dump_file_size(in->dumps[i]);
    return in->mem[i];
}

bool cv_inputs_model(const cv_inputs *in, unsigned threads, bb_model **model, bb_error *err) {
    bb_error e;
    memset(&e, 0, sizeof e);
    if (bb_model_open_threads(in->dumps, in->n, true, threads, model, &e) == BB_OK) return true;
    if (e.message[0]) *err = e;
    else bb__err_set(err, e.status, UINT64_MAX, NULL, "%s", bb_strerror(e.status));
    return false;
}
