/* commit.c — how the recorder commits records: the choice, once per recorder, between the rseq
 * commit path and the fetch_add fallback (BACKBEAT_COMMIT overrides it), and the rseq path's
 * out-of-line case (frames larger than the inline stage, the ring's end, a CPU beyond the
 * shards). The inline sequence itself is in detail/recorder_inline.h (bb__record_rseq). */
/* SPDX-License-Identifier: MIT */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/recorder_internal.h"

#if defined(__SANITIZE_THREAD__)
#define BB_COMMIT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BB_COMMIT_TSAN 1
#endif
#endif

/* Number of CPU ids the kernel may hand out: one past the highest in
 * /sys/devices/system/cpu/possible ("0-63" or "0,2-5"), else the configured count. */
__attribute__((unused)) static uint32_t possible_cpus(void) {
    FILE *f = fopen("/sys/devices/system/cpu/possible", "re");
    uint32_t top = 0;
    if (f) {
        char buf[256];
        if (fgets(buf, sizeof buf, f)) {
            for (const char *p = buf; *p;) {
                if (*p < '0' || *p > '9') { /* '-', ',' and the newline separate numbers */
                    p++;
                    continue;
                }
                uint64_t v = 0;
                for (; *p >= '0' && *p <= '9' && v < UINT32_MAX; p++)
                    v = v * 10 + (uint64_t)(*p - '0');
                if (v >= UINT32_MAX) return UINT32_MAX;
                if (v + 1 > top) top = (uint32_t)(v + 1);
            }
        }
        fclose(f);
    }
    if (top == 0) {
        long n = sysconf(_SC_NPROCESSORS_CONF);
        top = n < 1 ? UINT32_MAX : (uint32_t)n;
    }
    return top;
}

/* True when valgrind runs us (it cannot run restartable sequences): its preload is mapped. */
__attribute__((unused)) static bool under_valgrind(void) {
    const char *p = getenv("LD_PRELOAD");
    return p && strstr(p, "vgpreload") != NULL;
}

/* Contract: choose h->commit for a new recorder whose shard_count and cpu_mode are set. rseq
 * when all hold: x86_64; glibc registered rseq (cpu_mode RSEQ); every possible CPU has its own
 * shard (the sequence is only atomic against the same CPU); not under valgrind; the library not
 * built with ThreadSanitizer (which cannot see through the asm: the fallback stays checked);
 * BACKBEAT_COMMIT is not "fetch_add". Otherwise the fetch_add path. */
void bb__commit_setup(struct bb__recorder_hot *h) {
    h->commit = BB__COMMIT_FETCH_ADD;
#if defined(__x86_64__) && !defined(BB_COMMIT_TSAN)
    const char *env = getenv("BACKBEAT_COMMIT");
    if (env && strcmp(env, "fetch_add") == 0) return;
    if (h->cpu_mode != BB__CPU_RSEQ || under_valgrind()) return;
    if (possible_cpus() > h->shard_count) return;
    h->commit = BB__COMMIT_RSEQ;
#endif
}

#if defined(__x86_64__)
/* Contract: commit one record on the rseq path when the inline sequence cannot: the frame is
 * larger than BB__RSEQ_STAGE, or does not fit before the end of the ring (then the ring's tail
 * [off, capacity) is zeroed and the record starts the next lap: the reader's walk steps over
 * zeros), or the CPU number is not below shard_count (the record is dropped and counted in
 * rec->rseq_dropped; cannot happen when every possible CPU has a shard). One restartable
 * sequence: the frame's size into the shard's `big_frame` if larger (before any byte, so a
 * dump that sees a byte of an attempt sees its size: x86 stores are seen in order), rep stosb /
 * rep movsb (restartable instructions), commit by one plain store. */
/* What the sequence reads, behind one register (few are left: it uses ten). */
struct rseq_slow_args {
    const void *fields; /* 0 */
    uint64_t size;      /* 8 */
    uint64_t total;     /* 16 */
    uint8_t head[16];   /* 24: [ts][id] */
    uint16_t len;       /* 40 */
};
_Static_assert(offsetof(struct rseq_slow_args, total) == 16 &&
                   offsetof(struct rseq_slow_args, head) == 24 &&
                   offsetof(struct rseq_slow_args, len) == 40,
               "the offsets the sequence uses");

void bb__record_rseq_slow(bb_recorder *rec, uint64_t ts, uint64_t id, const void *fields,
                          size_t size) {
    struct bb__recorder_hot *h = &rec->hot;
    struct rseq_slow_args a = {fields, size, BB__FRAME_SIZE(size), {0}, BB__FRAME_LEN(size)};
    bb__frame_head(a.head, ts, id);
    __asm__ goto(
        "1:\n\t"
        "leaq 3f(%%rip), %%rax\n\t"
        "movq %c[o_rs](%[h]), %%rdx\n\t"
        "movq %%rax, %%fs:8(%%rdx)\n\t"
        "2:\n\t"
        "movl %%fs:4(%%rdx), %%eax\n\t"
        "cmpl %c[o_sc](%[h]), %%eax\n\t"
        "jae 8f\n\t"
        "movq %%rax, %%r8\n\t"
        "shlq $7, %%r8\n\t"
        "addq %c[o_cur](%[h]), %%r8\n\t" /* r8: the cursor */
        "movq (%%r8), %%r9\n\t"          /* r9: head */
        "movq 16(%[a]), %%rcx\n\t"
        "cmpq %%rcx, %c[o_big](%%r8)\n\t"
        "jae 4f\n\t"
        "movq %%rcx, %c[o_big](%%r8)\n\t" /* the shard's largest frame begun here, */
        "4:\n\t"                          /* before any byte (rseq_margin.h) */
        "movq %c[o_mask](%[h]), %%rdi\n\t"
        "andq %%r9, %%rdi\n\t" /* rdi: offset */
        "movq %c[o_ring](%[h]), %%r10\n\t"
        "movq (%%r10,%%rax,8), %%r10\n\t" /* r10: ring */
        "movq %c[o_cap](%[h]), %%rcx\n\t"
        "subq %%rdi, %%rcx\n\t" /* rcx: room before the end */
        "cmpq 16(%[a]), %%rcx\n\t"
        "jae 7f\n\t"
        "addq %%rcx, %%r9\n\t" /* skip the tail: head += room */
        "addq %%r10, %%rdi\n\t"
        "xorl %%eax, %%eax\n\t"
        "rep stosb\n\t" /* zero [offset, capacity) */
        "xorl %%edi, %%edi\n\t"
        "7:\n\t"
        "addq %%r10, %%rdi\n\t" /* rdi: destination */
        "leaq 24(%[a]), %%rsi\n\t"
        "movl $16, %%ecx\n\t"
        "rep movsb\n\t" /* [ts][id] */
        "movq 0(%[a]), %%rsi\n\t"
        "movq 8(%[a]), %%rcx\n\t"
        "rep movsb\n\t" /* the field bytes */
        "leaq 40(%[a]), %%rsi\n\t"
        "movl $2, %%ecx\n\t"
        "rep movsb\n\t" /* [len] */
        "addq 16(%[a]), %%r9\n\t"
        "movq %%r9, (%%r8)\n\t" /* commit */
        "5:\n\t"
        "movq $0, %%fs:8(%%rdx)\n\t" /* rseq_cs = NULL (see recorder_inline.h) */
        ".pushsection __rseq_cs, \"aw\"\n\t"
        ".balign 32\n\t"
        "3:\n\t"
        ".long 0, 0\n\t"
        ".quad 2b, 5b - 2b, 6f\n\t"
        ".popsection\n\t"
        ".pushsection __rseq_failure, \"ax\"\n\t"
        ".byte 0x0f, 0xb9, 0x3d\n\t"
        ".long 0x53053053\n\t"
        "6:\n\t"
        "jmp 1b\n\t"
        "8:\n\t"
        "movq $0, %%fs:8(%%rdx)\n\t"
        "jmp %l[nocpu]\n\t"
        ".popsection"
        :
        : [h] "r"(h), [a] "r"(&a), [o_rs] "i"(offsetof(struct bb__recorder_hot, rseq_offset)),
          [o_sc] "i"(offsetof(struct bb__recorder_hot, shard_count)),
          [o_cur] "i"(offsetof(struct bb__recorder_hot, cursors)),
          [o_mask] "i"(offsetof(struct bb__recorder_hot, mask)),
          [o_cap] "i"(offsetof(struct bb__recorder_hot, capacity)),
          [o_ring] "i"(offsetof(struct bb__recorder_hot, ring_of)),
          [o_big] "i"(offsetof(struct bb__cursor, big_frame))
        : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "cc", "memory"
        : nocpu);
    return;
nocpu:
    __atomic_fetch_add(&rec->rseq_dropped, 1, __ATOMIC_RELAXED);
}
#else
/* Contract: never called (the rseq path exists on x86_64 only). */
void bb__record_rseq_slow(bb_recorder *rec, uint64_t ts, uint64_t id, const void *fields,
                          size_t size) {
    (void)ts, (void)id, (void)fields, (void)size;
    __atomic_fetch_add(&rec->rseq_dropped, 1, __ATOMIC_RELAXED);
}
#endif

/* Contract: see recorder.h. */
const char *bb_recorder_commit_name(const bb_recorder *rec) {
    if (!rec) return "none";
    return rec->hot.commit == BB__COMMIT_RSEQ ? "rseq" : "fetch_add";
}
