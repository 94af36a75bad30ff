/* cpu.c — where the fast path gets its CPU hint: glibc's rseq area (cpu_id_start, read through
 * the thread pointer + __rseq_offset, no syscall) when glibc registered rseq, else a hash of the
 * thread pointer (a cheap, stable per-thread shard), else sched_getcpu(). */
/* SPDX-License-Identifier: MIT */
#include <sched.h>
#include <stddef.h>

#include "capture/recorder_internal.h"

/* glibc >= 2.35 exports these; weak so that an older glibc just takes the fallback. */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));

/* Contract: choose the CPU-hint mode for a new recorder. rseq is used only when glibc says it
 * registered the area (size >= 8: cpu_id_start and cpu_id) and the calling thread's area holds
 * a valid cpu_id (>= 0; the kernel writes -1 when registration did not happen). */
void bb__cpu_setup(struct bb__recorder_hot *h) {
    h->cpu_mode = BB__CPU_SYSCALL;
    h->rseq_offset = 0;
#if defined(__x86_64__) || defined(__aarch64__)
    h->cpu_mode = BB__CPU_THREAD;
    if (&__rseq_size != NULL && &__rseq_offset != NULL && __rseq_size >= 8) {
        const char *tp;
#if defined(__x86_64__)
        __asm__ volatile("movq %%fs:0, %0" : "=r"(tp));
#else
        tp = (const char *)__builtin_thread_pointer();
#endif
        const volatile int32_t *area = (const volatile int32_t *)(const void *)(tp + __rseq_offset);
        if (area[1] >= 0) {
            h->cpu_mode = BB__CPU_RSEQ;
            h->rseq_offset = (int64_t)__rseq_offset;
        }
    }
#endif
}

/* Contract: the current CPU from the kernel (vDSO getcpu), 0 if unknown. Async-signal-safe. */
uint32_t bb__cpu_slow(void) {
    int c = sched_getcpu();
    return c < 0 ? 0u : (uint32_t)c;
}
