/* ctf/ctf_stream.c — the CTF writer's stream files: one per (instance, shard), written as
 * packets of about CT_PACKET bytes, each a header (magic, stream class 0) and a context
 * (first and last timestamp, content and packet size in bits, sequence number, the process:
 * instance id, shard, pid, host) followed by its events (ctf/ctf_internal.h). */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctf/ctf_internal.h"

#define CT_PACKET (64u * 1024u)

/* Offsets of the context fields the flush fills in (ctf_meta.c declares this layout). */
enum { OFF_TS_BEGIN = 8, OFF_TS_END = 16, OFF_CONTENT = 24, OFF_PSIZE = 32, OFF_SEQ = 40 };

static void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

int ct_stream_open(ct_stream *s, int dir_fd, uint64_t instance_id, uint32_t shard_id, uint32_t pid,
                   int64_t os_pid, const char *host) {
    memset(s, 0, sizeof *s);
    s->fd = -1;
    s->instance_id = instance_id;
    s->shard_id = shard_id;
    size_t hl = strlen(host);
    s->head = 72 + hl + 1;
    s->cap = s->head + CT_PACKET;
    s->buf = malloc(s->cap);
    if (!s->buf) return ENOMEM;
    memset(s->buf, 0, s->head);
    put32(s->buf, CT_MAGIC);
    put32(s->buf + 4, 0); /* stream class id */
    put64(s->buf + 48, instance_id);
    put32(s->buf + 56, shard_id);
    put32(s->buf + 60, pid);
    put64(s->buf + 64, (uint64_t)os_pid);
    memcpy(s->buf + 72, host, hl + 1);
    s->len = s->head;
    char name[64];
    snprintf(name, sizeof name, "stream_%016llx_%u", (unsigned long long)instance_id, shard_id);
    s->fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    return s->fd < 0 ? errno : 0;
}

static int write_all(int fd, const uint8_t *p, size_t n) {
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return w < 0 ? errno : EIO;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int ct_stream_flush(ct_stream *s) {
    if (!s->events) return 0;
    uint64_t bits = (uint64_t)s->len * 8u;
    put64(s->buf + OFF_TS_BEGIN, s->ts_begin);
    put64(s->buf + OFF_TS_END, s->ts_end);
    put64(s->buf + OFF_CONTENT, bits);
    put64(s->buf + OFF_PSIZE, bits);
    put64(s->buf + OFF_SEQ, s->seq);
    int e = write_all(s->fd, s->buf, s->len);
    s->seq++;
    s->events = 0;
    s->len = s->head;
    return e;
}

uint8_t *ct_stream_room(ct_stream *s, size_t n, int *errp) {
    if (n <= s->cap - s->len) return s->buf + s->len;
    int e = ct_stream_flush(s);
    if (e) {
        *errp = e;
        return NULL;
    }
    if (n > s->cap - s->len) { /* one event larger than a packet: a packet of its own size */
        uint8_t *nb = realloc(s->buf, s->head + n);
        if (!nb) {
            *errp = ENOMEM;
            return NULL;
        }
        s->buf = nb;
        s->cap = s->head + n;
    }
    return s->buf + s->len;
}

int ct_stream_close(ct_stream *s) {
    int e = s->fd >= 0 ? ct_stream_flush(s) : 0;
    if (s->fd >= 0 && close(s->fd) != 0 && !e) e = errno;
    s->fd = -1;
    free(s->buf);
    s->buf = NULL;
    return e;
}
