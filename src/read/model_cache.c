/* model_cache.c — what of a dump larger than the memory the page cache keeps for the merge.
 *
 * The walk at open reads every ring from its newest record down, and the merge then reads every
 * ring from its oldest record up. With more rings than the memory holds, the pages the kernel
 * drops under pressure were, left to itself, the ones the merge was about to read: the walk's
 * pages were mapped and referenced (a second chance each), the merge's read-ahead was new, so
 * the merge read most of the dump from the disk again, some of it twice (1 B records, 668
 * rings, 45 GB: 116 GB read; issue 37). So the walk marks each ring cold above the oldest
 * `keep` bytes that the merge will read first, and the merge marks cold what it has left
 * behind: the kernel drops those first.
 */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <unistd.h>

#include "read/madv.h"
#include "read/model_cache.h"

#define HUGE_PAGE ((uintptr_t)2 << 20) /* the mapping's pages (advise_huge, reader.c) */
#define KEEP_MIN ((uint64_t)2 << 20)

static bool g_no_cold;    /* MADV_COLD refused (EINVAL): an older kernel */
static uint64_t g_memory; /* bb__model_cache_set_memory; 0: the machine's */

void bb__model_cache_set_memory(uint64_t bytes) { g_memory = bytes; }

/* The memory the rings are measured against: the machine's, or the tests' figure. */
static uint64_t memory_bytes(void) {
    if (g_memory) return g_memory;
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

uint64_t bb__model_cache_keep(uint64_t ring_bytes, size_t nrings) {
    uint64_t half = memory_bytes() / 2;
    if (half == 0 || nrings == 0) return 0;
    if (ring_bytes <= half) return 0;
    uint64_t keep = half / nrings;
    return keep < KEEP_MIN ? KEEP_MIN : keep;
}

/* Mark the whole huge pages inside [a, a + n) cold. */
static void cool_span(const uint8_t *a, size_t n) {
    uintptr_t lo = ((uintptr_t)a + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uintptr_t hi = ((uintptr_t)a + n) & ~(HUGE_PAGE - 1);
    if (hi <= lo || __atomic_load_n(&g_no_cold, __ATOMIC_RELAXED)) return;
    if (madvise((void *)lo, (size_t)(hi - lo), MADV_COLD) != 0 && errno == EINVAL)
        __atomic_store_n(&g_no_cold, true, __ATOMIC_RELAXED);
}

uint64_t bb__model_cache_floor(const bb_rshard *sh, uint64_t pos) {
    uintptr_t a = (uintptr_t)(sh->region + ((size_t)pos & (size_t)(sh->capacity - 1)));
    uint64_t back = (uint64_t)(a & (HUGE_PAGE - 1));
    return back <= pos ? pos - back : 0;
}

void bb__model_cache_cool(const bb_rshard *sh, uint64_t from, uint64_t to) {
    if (from >= to || !sh->region) return;
    if (to - from > sh->capacity) from = to - sh->capacity;
    size_t at = (size_t)from & (size_t)(sh->capacity - 1);
    size_t n = (size_t)(to - from);
    size_t first = (size_t)sh->capacity - at;
    if (n <= first) {
        cool_span(sh->region + at, n);
    } else {
        cool_span(sh->region + at, first);
        cool_span(sh->region, n - first);
    }
}
