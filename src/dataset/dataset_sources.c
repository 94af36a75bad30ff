/* dataset_sources.c — the inputs of every append kept in the dataset (see dataset/dataset.h):
 * DIR/_backbeat/sources/<key>.bb, byte for byte, named by content (a 64-bit hash of the bytes
 * and their length in hex), written in the append's transaction; an input already kept (the
 * same dump appended again) is not copied twice. A rewrite opens them as dumps.
 */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error_set.h"
#include "dataset/dataset_internal.h"

#define CHUNK (1u << 20)

/* The running content hash over one chunk (bytes one at a time: the key is the same whatever
 * the chunking). */
static uint64_t hash_more(uint64_t h, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* Feed the input to fn (chunk by chunk); false with errno. */
static bool each_chunk(const ds_input *in, bool (*fn)(const uint8_t *, size_t, void *), void *ctx) {
    if (in->mem) return fn(in->mem, in->len, ctx);
    int fd = open(in->path, O_RDONLY | O_CLOEXEC);
    uint8_t *buf = fd >= 0 ? malloc(CHUNK) : NULL;
    bool ok = buf != NULL;
    if (fd >= 0 && !buf) errno = ENOMEM;
    for (ssize_t r; ok && (r = read(fd, buf, CHUNK)) != 0;) {
        if (r < 0 && errno == EINTR) continue;
        ok = r > 0 && fn(buf, (size_t)r, ctx);
    }
    free(buf);
    if (fd >= 0) close(fd);
    return ok;
}

typedef struct hashing {
    uint64_t h, len;
} hashing;

static bool hash_chunk(const uint8_t *p, size_t n, void *ctx) {
    hashing *s = ctx;
    s->h = hash_more(s->h, p, n);
    s->len += n;
    return true;
}

static bool copy_chunk(const uint8_t *p, size_t n, void *ctx) {
    return ds_write_all(*(int *)ctx, p, n);
}

/* Whether keys[0..n) holds key. */
static bool seen(char (*keys)[40], size_t n, const char *key) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(keys[i], key)) return true;
    return false;
}

/* Keep input `in` (its key into key[40]) unless keys[0..i) or the dataset has it; false
 * after a message. */
static bool add_one(const ds_handle *h, ds_txn *t, int sfd, const ds_input *in, char (*keys)[40],
                    size_t i, bb_error *err) {
    hashing s = {0xcbf29ce484222325ull, 0};
    const char *name = in->path ? in->path : "input";
    if (!each_chunk(in, hash_chunk, &s)) {
        ds_err(err, "cannot read %s: %s", name, strerror(errno));
        return false;
    }
    snprintf(keys[i], sizeof keys[i], "%016" PRIx64 "-%" PRIx64, s.h, s.len);
    char file[64], final[96];
    snprintf(file, sizeof file, "%s.bb", keys[i]);
    struct stat st;
    if (seen(keys, i, keys[i]) || (sfd >= 0 && fstatat(sfd, file, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                                   S_ISREG(st.st_mode) && (uint64_t)st.st_size == s.len))
        return true;
    snprintf(final, sizeof final, "_backbeat/sources/%s", file);
    int fd = ds_txn_file(t, final, err);
    if (fd < 0) return false;
    if (!each_chunk(in, copy_chunk, &fd)) {
        ds_err(err, "cannot keep %s as %s/%s: %s", name, h->dir, final, strerror(errno));
        return false;
    }
    return true;
}

bool ds_sources_add(const ds_handle *h, ds_txn *t, const ds_input *in, size_t n, char (*keys)[40],
                    bb_error *err) {
    int sfd = ds_open_dirs(h->bfd, "sources", false);
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) ok = add_one(h, t, sfd, &in[i], keys, i, err);
    if (sfd >= 0) close(sfd);
    return ok;
}

bool ds_source_open(const ds_handle *h, const char *key, bb_dump **out, bb_error *err) {
    char rel[96];
    snprintf(rel, sizeof rel, "_backbeat/sources/%s.bb", key);
    struct stat st;
    if (strchr(key, '/') || fstatat(h->dfd, rel, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(st.st_mode)) {
        ds_err(err, "%s/%s: %s", h->dir, rel,
               strchr(key, '/') ? "not a source name" : "missing or not a regular file");
        return false;
    }
    size_t n = strlen(h->dir) + strlen(rel) + 2;
    char *path = malloc(n);
    if (!path) {
        ds_err(err, "out of memory");
        return false;
    }
    snprintf(path, n, "%s/%s", h->dir, rel);
    bb_error e;
    memset(&e, 0, sizeof e);
    bool ok = bb_dump_open(path, out, &e) == BB_OK;
    if (!ok) ds_err(err, "%s: %s", path, e.message);
    free(path);
    return ok;
}
