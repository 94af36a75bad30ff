/* intern_ring.c — a ring file's intern generation table (docs/RING_FILE.md "The intern table",
 * layout in src/format/ring_file.h): the writer's copy, for readers of the file, of which
 * generation each storage of the intern table holds and the id its first entry has, kept by
 * intern.c as generations start and storages are emptied, so that `backbeat recover` and
 * `tail` map each id to its string in the generation that gave it. */
/* SPDX-License-Identifier: MIT */
#include "capture/recorder_internal.h"
#include "format/ring_file.h"

_Static_assert(BB__INTERN_GEN_FREE == BB_RING_GEN_FREE && BB__INTERN_GEN_BUSY == BB_RING_GEN_BUSY &&
                   BB__INTERN_FILE_GENS == BB_RING_GEN_MAX,
               "the file's generation numbers are the table's");

/* Contract: see recorder_internal.h. */
void bb__intern_mirror(const bb__intern_table *t, uint32_t i) {
    uint8_t *e = t->gen_mirror + (size_t)i * BB_RING_GEN_STRIDE;
    uint32_t *number = (uint32_t *)(void *)(e + BB_RG_NUMBER);
    uint32_t n = __atomic_load_n(&t->gens[i].gen, __ATOMIC_ACQUIRE);
    if (n == BB__INTERN_GEN_BUSY) { /* marked before any of its entries changes */
        __atomic_store_n(number, BB_RING_GEN_BUSY, __ATOMIC_SEQ_CST);
        __atomic_fetch_add((uint32_t *)(void *)(e + BB_RG_REUSES), 1, __ATOMIC_RELAXED);
#if !defined(__SANITIZE_THREAD__)                /* gcc's TSan has no fences (-Wtsan) */
        __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the mark before the entries' stores */
#endif
        return;
    }
    uint32_t base = __atomic_load_n(&t->gens[i].id_base, __ATOMIC_RELAXED);
    __atomic_store_n((uint32_t *)(void *)(e + BB_RG_ID_BASE), base, __ATOMIC_RELAXED);
    __atomic_store_n(number, n, __ATOMIC_RELEASE);
}
