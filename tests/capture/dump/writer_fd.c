/* writer_fd.c — the fd sink and the writer's no-allocation, signal-handler path.
 *
 * This test interposes write(2) and malloc/calloc/realloc/free in the executable (the library
 * is shared, so its calls bind to these): write can then be made to return short counts, EINTR,
 * 0 or an error on demand, deterministically; the allocator counts calls while "armed".
 * It proves: the fd sink delivers every byte through short writes and EINTR; write returning 0
 * or failing gives BB_ERR_IO with a message, not a hang; bb_dump_size and bb_dump_write never
 * allocate, also with hundreds of shards; bb_dump_write run from inside a signal handler
 * writes the same bytes as the buffer sink. (Labelled no-sanitize: the sanitizer runtimes
 * intercept the same symbols.) */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backbeat/dump_writer.h"
#include "check.h"
#include "read_fd.h"

/* ---- interposed allocator: counts calls while armed ---- */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
static volatile int alloc_armed;
static volatile long alloc_calls;

void *malloc(size_t n) {
    if (alloc_armed) alloc_calls++;
    return __libc_malloc(n);
}
void *calloc(size_t n, size_t m) {
    if (alloc_armed) alloc_calls++;
    return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n) {
    if (alloc_armed) alloc_calls++;
    return __libc_realloc(p, n);
}
void free(void *p) {
    if (alloc_armed) alloc_calls++;
    __libc_free(p);
}

/* ---- interposed write(2): misbehaves on target_fd according to mode ---- */
enum { W_PASS, W_CHOPPY, W_ZERO, W_FAIL };
static int target_fd = -1;
static int write_mode = W_PASS;
static long calls, eintrs, shorts;

ssize_t write(int fd, const void *buf, size_t n) {
    if (fd != target_fd || write_mode == W_PASS) return syscall(SYS_write, fd, buf, n);
    calls++;
    if (write_mode == W_ZERO) return 0;
    if (write_mode == W_FAIL) {
        errno = ENOSPC;
        return -1;
    }
    if (calls % 3 == 0) { /* every third call is "interrupted" */
        eintrs++;
        errno = EINTR;
        return -1;
    }
    size_t chunk = (size_t)(calls % 13) + 1;
    if (calls % 5 == 0) chunk = 4000; /* now and then a bigger piece */
    if (chunk < n) shorts++;
    else chunk = n;
    return syscall(SYS_write, fd, buf, chunk);
}

/* ---- a dump input with a configurable number of shards ---- */
static const bb_field_desc fields[] = {
    {.name = "seq",
     .description = "sequence",
     .offset = 0,
     .width = 8,
     .type = BB_TYPE_U64,
     .role = BB_ROLE_KEY},
    {.name = "v",
     .unit = "u",
     .offset = 8,
     .width = 4,
     .type = BB_TYPE_I32,
     .has_sentinel = 1,
     .sentinel = 0xFFFFFFFFu},
};
static const bb_event_desc ev = {.name = "t::Ev",
                                 .description = "d",
                                 .fields = fields,
                                 .field_count = 2,
                                 .record_size = 12,
                                 .id = 0x1234};
static const bb_event_desc *const evs[] = {&ev};
static const char *const views[] = {"CREATE VIEW a AS SELECT 1;", "-- b\n"};
#define MAX_SHARDS 300
#define CAP 4096
static uint8_t rings[MAX_SHARDS][CAP];

static bb_intern_item intern_get(void *ctx, size_t i) {
    (void)ctx;
    static const char *s[] = {"alpha", "", "a longer interned string"};
    bb_intern_item it = {(uint32_t)i + 1, (uint32_t)strlen(s[i]), s[i]};
    return it;
}
static uint64_t shard_capacity(void *ctx, uint32_t i) {
    (void)ctx;
    (void)i;
    return CAP;
}
static const uint8_t *shard_region(void *ctx, uint32_t i, uint8_t *scratch, uint64_t *head) {
    (void)ctx;
    *head = 1000u + i;
    memcpy(scratch, rings[i], CAP);
    return scratch;
}
static bb_dump_input make_input(uint32_t shards) {
    bb_dump_input in = {0};
    in.instance_id = 0x0102030405060708ull;
    in.host = "fd-host";
    in.events = evs;
    in.event_count = 1;
    in.intern_count = 3;
    in.intern_get = intern_get;
    in.views = views;
    in.view_count = 2;
    in.shard_count = shards;
    in.shard_capacity = shard_capacity;
    in.shard_region = shard_region;
    return in;
}

static uint8_t scratch[CAP];
static uint8_t reference[MAX_SHARDS * (CAP + 64) + 4096];
static size_t reference_len;

/* Write `in` to a fresh temp file with the current write_mode; returns the status and leaves
 * the file's bytes in got/got_len. */
static uint8_t got[sizeof reference];
static size_t got_len;
static bb_status write_to_file(const bb_dump_input *in, bb_error *err) {
    char path[] = "/tmp/bb_writer_fd_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return BB_ERR_IO;
    unlink(path);
    target_fd = fd;
    alloc_armed = 1;
    bb_status st = bb_dump_write(in, bb_sink_fd(&fd), scratch, err);
    alloc_armed = 0;
    target_fd = -1;
    lseek(fd, 0, SEEK_SET);
    got_len = test_read_fd(fd, got, sizeof got);
    close(fd);
    return st;
}

static void compare(const char *what) {
    size_t n = got_len < reference_len ? got_len : reference_len, i = 0;
    while (i < n && got[i] == reference[i]) i++;
    CHECK(got_len == reference_len && i == n,
          "%s: %zu bytes, expected %zu; first difference at "
          "%zu",
          what, got_len, reference_len, i);
}

/* The signal-handler path: SIGUSR1's handler writes the dump to handler_fd. */
static int handler_fd = -1;
static bb_dump_input handler_input;
static volatile bb_status handler_status = BB_ERR_INVALID;
static void on_usr1(int sig) {
    (void)sig;
    alloc_armed = 1;
    handler_status = bb_dump_write(&handler_input, bb_sink_fd(&handler_fd), scratch, NULL);
    alloc_armed = 0;
}

int main(void) {
    for (int s = 0; s < MAX_SHARDS; s++)
        for (int i = 0; i < CAP; i++) rings[s][i] = (uint8_t)(i * 31 + s);

    bb_dump_input in = make_input(3);
    bb_error err;
    bb_buffer_sink b = {reference, sizeof reference, 0};
    alloc_armed = 1;
    uint64_t size = bb_dump_size(&in);
    bb_status st = bb_dump_write(&in, bb_sink_buffer(&b), scratch, &err);
    alloc_armed = 0;
    CHECK(st == BB_OK, "buffer sink: %d %s", st, err.message);
    CHECK(b.len == size, "size %llu vs %zu", (unsigned long long)size, b.len);
    reference_len = b.len;
    CHECK(alloc_calls == 0, "%ld allocator calls in bb_dump_size/bb_dump_write", alloc_calls);

    /* Short writes and EINTR. */
    write_mode = W_CHOPPY;
    calls = eintrs = shorts = 0;
    st = write_to_file(&in, &err);
    CHECK(st == BB_OK, "choppy fd: %d %s", st, err.message);
    compare("choppy fd sink");
    CHECK(eintrs > 10 && shorts > 10, "the test did not exercise EINTR (%ld) / short writes (%ld)",
          eintrs, shorts);
    printf("choppy fd sink: %ld write calls, %ld EINTR, %ld short writes\n", calls, eintrs, shorts);

    /* write returns 0: an error, not an endless loop. */
    write_mode = W_ZERO;
    calls = 0;
    st = write_to_file(&in, &err);
    CHECK(st == BB_ERR_IO, "write()=0: status %d", st);
    CHECK(calls < 5, "write()=0 retried %ld times", calls);
    CHECK(strstr(err.message, "offset 0") != NULL, "write()=0: message '%s'", err.message);

    /* write fails: BB_ERR_IO naming errno. */
    write_mode = W_FAIL;
    st = write_to_file(&in, &err);
    CHECK(st == BB_ERR_IO, "ENOSPC: status %d", st);
    CHECK(strstr(err.message, "ENOSPC") != NULL, "ENOSPC: message '%s'", err.message);
    write_mode = W_PASS;

    /* Many shards: still no allocation; memory is the caller's one scratch buffer. */
    bb_dump_input many = make_input(MAX_SHARDS);
    alloc_calls = 0;
    st = write_to_file(&many, &err);
    CHECK(st == BB_OK, "%d shards: %d %s", MAX_SHARDS, st, err.message);
    CHECK(got_len == bb_dump_size(&many), "%d shards: %zu bytes, size %llu", MAX_SHARDS, got_len,
          (unsigned long long)bb_dump_size(&many));
    CHECK(alloc_calls == 0, "%d shards: %ld allocator calls", MAX_SHARDS, alloc_calls);

    /* From a signal handler, choppy writes included. */
    char path[] = "/tmp/bb_writer_sig_XXXXXX";
    handler_fd = mkstemp(path);
    CHECK(handler_fd >= 0, "mkstemp");
    if (handler_fd >= 0) {
        unlink(path);
        handler_input = in;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_usr1;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGUSR1, &sa, NULL);
        write_mode = W_CHOPPY;
        target_fd = handler_fd;
        alloc_calls = 0;
        raise(SIGUSR1);
        target_fd = -1;
        write_mode = W_PASS;
        CHECK(handler_status == BB_OK, "in a signal handler: status %d", handler_status);
        CHECK(alloc_calls == 0, "in a signal handler: %ld allocator calls", alloc_calls);
        lseek(handler_fd, 0, SEEK_SET);
        got_len = test_read_fd(handler_fd, got, sizeof got);
        close(handler_fd);
        compare("signal handler");
    }

    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    else printf("writer_fd: all checks passed\n");
    return failures ? 1 : 0;
}
