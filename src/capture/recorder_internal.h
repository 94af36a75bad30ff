/* recorder_internal.h — the full bb_recorder layout and the internal interfaces between the
 * recorder's files (recorder.c, clock.c, cpu.c, intern.c, span.c, recorder_dump.c). Private to
 * the library. */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_RECORDER_INTERNAL_H
#define BACKBEAT_RECORDER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/dump_writer.h"
#include "backbeat/recorder.h"
#include "backbeat/registry.h"
#include "capture/dump_blanks.h"
#include "format/ring_cut.h"

/* ---- intern table (intern.c) ---------------------------------------------------------------
 * Generations of append-only storage: entries and string bytes are reserved with CAS, filled,
 * then published with a release store of `ready`; a hash-slot array per generation (open
 * addressing, 2x its entries) maps strings to entries for de-duplication. Ids grow: generation
 * k's are id_base + index + 1, never handed out again. When the current generation is full the
 * next one starts in the storage of the oldest, which is recycled only once every ring has
 * wrapped past the records that may name it (docs/guide/instrument.md). Readers on the crash path
 * take the ready prefix of each live generation. */
typedef struct bb__intern_entry {
    uint32_t off; /* into arena */
    uint32_t len;
    uint32_t hash;
    uint32_t ready; /* atomic: 1 once off/len/hash and the bytes are written */
} bb__intern_entry;

#define BB__INTERN_GENS 16             /* generations of a table, at most */
#define BB__INTERN_FILE_GENS 8         /* of a ring file's table, at most (its generation table) */
#define BB__INTERN_GEN_FREE UINT32_MAX /* a generation's storage never used yet */
#define BB__INTERN_GEN_BUSY (UINT32_MAX - 1) /* ... being recycled */

typedef struct bb__intern_gen {
    uint32_t gen;          /* atomic: the generation number held, or FREE / BUSY */
    uint32_t id_base;      /* ids of its entries are id_base + index + 1 */
    uint32_t used_entries; /* atomic: entries reserved */
    uint32_t used_bytes;   /* atomic: arena bytes reserved */
    uint32_t *slots;       /* atomic each: 0 empty, else entry index + 1 */
    bb__intern_entry *entries;
    uint8_t *arena;
    uint64_t *start;  /* per shard: its ring head when the generation began (NULL: one gen) */
    uint64_t *stop;   /* per shard: its ring head when generation gen + 2 began (once `stopped`):
                        records from start to stop may name this generation's ids */
    uint64_t *pin;    /* per shard: the end of the newest record in [start, stop) that names one
                        of its ids (0: none), BB__INTERN_PIN_UNKNOWN until the ring is read */
    uint32_t stopped; /* 1 once stop is set (written under `advancing` only) */
} bb__intern_gen;

#define BB__INTERN_PIN_UNKNOWN UINT64_MAX

typedef struct bb__intern_table {
    uint32_t cap_entries; /* the whole table's */
    uint32_t cap_bytes;
    uint32_t ngens;       /* 1: the table fills for good; else 4, 8 or 16 */
    uint32_t gen_entries; /* per generation */
    uint32_t gen_bytes;
    uint32_t slot_mask;  /* per generation */
    uint32_t cur;        /* atomic: the current generation number */
    uint32_t cur_slot;   /* atomic: which of gens[] holds it (any: the oldest generation that
                            no record names is recycled, not necessarily the oldest) */
    uint32_t advancing;  /* atomic: 1 while a thread starts the next generation */
    uint32_t pins;       /* atomic: dumps reading the table (no recycling meanwhile) */
    uint32_t full_used;  /* atomic: BB_INTERN_FULL_ID was handed out */
    uint64_t full_count; /* atomic */
    uint64_t too_long;   /* atomic: of them, strings over 65535 bytes or a generation's bytes */
    uint64_t retired;    /* atomic: generations recycled */
    bb__intern_gen gens[BB__INTERN_GENS];
    struct bb__recorder_hot *hot; /* whose rings' wrap retires generations, and whose serial
                                     (the call-site cache key) changes with each generation */
    const bb_event_desc **events; /* BB_SIG_MAX_EVENTS: registry snapshot for reading rings */
    uint64_t *heads;              /* per shard: scratch of the thread starting a generation */
    bool external;                /* entries and arena are not ours to free (a ring file's) */
    uint32_t *full_mirror;        /* atomic, or NULL: set with full_used (a ring file's header) */
    uint8_t *gen_mirror;          /* a ring file's generation table (BB_RH_GEN_TABLE), or NULL */
} bb__intern_table;

/* A dump's view of the table: the live generations, oldest first, and their ready prefixes. */
typedef struct bb__intern_view {
    uint32_t n; /* entries in all */
    uint32_t ngen;
    uint32_t slot[BB__INTERN_GENS];
    uint32_t count[BB__INTERN_GENS];
} bb__intern_view;

/* Allocate a table for `entries` strings of `bytes` total, in generations when it is large
 * enough (intern.c says when); `hot`: the recorder whose rings decide retirement (its shard
 * count and cursors set). BB_OK, BB_ERR_INVALID or BB_ERR_NOMEM. */
bb_status bb__intern_table_init(bb__intern_table *t, uint32_t entries, uint32_t bytes,
                                struct bb__recorder_hot *hot);
/* As bb__intern_table_init over caller-owned zeroed memory for the entries (16 bytes each, the
 * layout of bb__intern_entry) and the arena (a ring file's, ring_backing.c), in generations as
 * bb__intern_table_init when `hot` is set (each generation's storage a contiguous share of the
 * entries and of the arena); `full_mirror` (NULL: none) is set to 1 with full_used, and
 * `gen_mirror` (NULL: none) is kept as the file's generation table (bb__intern_mirror), so that
 * a reader of the file knows them too. */
bb_status bb__intern_table_init_at(bb__intern_table *t, uint32_t entries, uint32_t bytes,
                                   void *entry_mem, void *arena_mem, uint32_t *full_mirror,
                                   struct bb__recorder_hot *hot, uint8_t *gen_mirror);
/* Copy storage i's state (generation number or FREE/BUSY, id base) into t->gen_mirror, the
 * number last with release order; a storage about to be emptied is marked BUSY before any of
 * its entries changes (intern_ring.c, for a ring file's readers: docs/RING_FILE.md). */
void bb__intern_mirror(const bb__intern_table *t, uint32_t i);
void bb__intern_table_destroy(bb__intern_table *t);
/* Intern into `t` (see bb_intern). Lock-free, async-signal-safe. */
uint32_t bb__intern_table_put(bb__intern_table *t, const void *bytes, size_t len);
/* Strings in the live generations. */
uint32_t bb__intern_table_count(const bb__intern_table *t);
/* Pin the table for one dump (no generation is recycled until unpinned) and fill `v` with its
 * live generations' ready prefixes (a stable snapshot). Async-signal-safe. */
void bb__intern_table_pin(bb__intern_table *t, bb__intern_view *v);
void bb__intern_table_unpin(bb__intern_table *t);
/* Entry i (< v->n) of a pinned view, with its id. */
bb_intern_item bb__intern_table_item(const bb__intern_table *t, const bb__intern_view *v,
                                     uint32_t i);

/* A dump's marks of the entries its records name (recorder_dump.c) are bits of a bitmap of
 * cap_entries bits: bb__intern_view_bit gives the bit of `id` in a pinned view (entry j of its
 * generation k: k * gen_entries + j), UINT32_MAX when the view does not hold it (id 0
 * included); bb__intern_view_bit_item the entry of a bit that view holds, with its id. */
uint32_t bb__intern_view_bit(const bb__intern_table *t, const bb__intern_view *v, uint32_t id);
bb_intern_item bb__intern_view_bit_item(const bb__intern_table *t, const bb__intern_view *v,
                                        uint32_t bit);

/* A fresh process-unique recorder serial (never 0): a recorder's first, and its next with each
 * intern generation. */
uint32_t bb__serial_next(void);

/* ---- the recorder --------------------------------------------------------------------------- */
#define BB_SIG_MAX_EVENTS 4096
#define BB_SIG_MAX_VIEWS 256

struct bb_recorder {
    struct bb__recorder_hot hot; /* must be first: the inline fast path reads it */
    bb_clock_kind clock_kind;
    uint64_t instance_id;
    uint64_t start_ns; /* CLOCK_REALTIME when made (the Process section's start_ns) */
    char host[256];
    uint64_t too_large;    /* atomic */
    uint64_t lapped;       /* atomic: records found lapped by their writer (bb__record_lapped) */
    uint64_t rseq_dropped; /* atomic: rseq path, CPU number beyond the shards (commit.c) */
    uint32_t tmp_counter;  /* atomic: temp-file names of dump_path */
    uint32_t sig_busy;     /* atomic: a signal-safe dump is running */
    /* The live dump's copy buffer (recorder_dump.c), one ring's capacity, mapped by the first
     * dump and kept until bb_recorder_free unmaps it, so that later dumps fault no page in;
     * scratch_dirty: how many bytes from its start may be non-zero; scratch_busy (atomic): a
     * dump holds it (a dump running at the same time maps a buffer of its own). */
    uint8_t *scratch;
    uint64_t scratch_dirty;
    uint32_t scratch_busy;
    size_t rings_len; /* mmap length of hot.rings */
    bb__intern_table intern;
    const bb_event_desc **sig_events; /* BB_SIG_MAX_EVENTS, for the signal-safe dump */
    const bb_view_desc **sig_views;   /* BB_SIG_MAX_VIEWS */
    const char **sig_view_sql;        /* BB_SIG_MAX_VIEWS */
    uint64_t *sig_marks; /* the signal-safe dump's marks of the strings its records name: one bit
                            per intern entry (bb__intern_view_bit), made with the table */
    struct bb__ring_file *ring; /* file-backed storage (ring_backing.h), or NULL */
    /* atomic: the trigger hook (bb__trigger_fn, trigger_hook.h), or NULL */
    void (*trigger_fn)(void *ctx, const bb_event_desc *d, const void *fields, uint64_t ts);
    void *trigger_ctx;
    void (*trigger_drop)(void *); /* called with trigger_ctx by bb_recorder_free */
};

/* ---- clocks (clock.c) ---------------------------------------------------------------------- */
/* Resolve opts' clock (DEFAULT consults the host and BACKBEAT_CLOCK) and fill the clock fields
 * of `h` and *kind. BB_OK, or BB_ERR_INVALID with a reason in `why` (static string). */
bb_status bb__clock_setup(struct bb__recorder_hot *h, const bb_recorder_options *opts,
                          bb_clock_kind *kind, const char **why);
/* True when the CPU has an invariant TSC (x86-64 CPUID 0x80000007 EDX bit 8). */
bool bb__clock_tsc_invariant(void);
/* True when the kernel's current clocksource is "tsc". */
bool bb__clock_kernel_uses_tsc(void);

/* ---- CPU hint (cpu.c) ---------------------------------------------------------------------- */
/* Fill h->cpu_mode / h->rseq_offset: rseq when glibc registered it for this thread, else the
 * thread-pointer hash. */
void bb__cpu_setup(struct bb__recorder_hot *h);

/* ---- commit path (commit.c) --------------------------------------------------------------- */
/* Fill h->commit (BB__COMMIT_*) for a recorder whose shard_count and cpu_mode are set. */
void bb__commit_setup(struct bb__recorder_hot *h);

/* ---- records in flight (inflight.c) --------------------------------------------------------- */
/* Threads that can hold an announcement index at once; a table has one more entry, the overflow
 * entry (further threads share it, dumps ignore it). */
#define BB_TSLOTS 4096
typedef struct bb__inflight {
    uint64_t pos;
    uint32_t len;
    uint32_t slot;
    uint32_t tag;
} bb__inflight;
/* The slot_base of the process-wide table (anonymous recorders). */
uintptr_t bb__inflight_global_base(void);
/* Prepare a zeroed table of BB_TSLOTS + 1 entries for use as a recorder's (its overflow entry). */
void bb__inflight_table_init(struct bb__tslot *table);
/* bb__ring_last_lap: format/ring_cut.h (shared with the ring-file reader). */
/* The records of shard `shard` of the recorder whose hot view is `h` in flight below `head`
 * (see inflight.c); `*budget` bounds the waits of one shard snapshot (each a yield or a 20 us
 * sleep). */
size_t bb__inflight_collect(const struct bb__recorder_hot *h, uint32_t shard, uint64_t head,
                            bb__inflight *out, size_t cap, int *budget);
/* Whether a writer has announced a record in shard `shard` that it has not retired: reserved or
 * about to be, in any case not known to be whole (a direct dump then uses the copies). */
bool bb__inflight_any(const struct bb__recorder_hot *h, uint32_t shard);
/* Wait (spending `*budget`) for the announced record `e` of `h` to be complete; true when it is
 * (its bytes in the ring are then final until the ring laps them). */
bool bb__inflight_wait(const struct bb__recorder_hot *h, const bb__inflight *e, int *budget);

/* ---- dumps (recorder_dump.c) ---------------------------------------------------------------- */
/* The schemas a dump carries, which decide what its reader accepts. */
typedef struct bb__dump_events {
    const bb_event_desc *const *events;
    size_t n;
} bb__dump_events;
/* Snapshot shard `i` into `buf` (see bb_recorder_shard_snapshot); no argument checks. `ev`: the
 * schemas of the dump it is for (the cut of lapped bytes walks the ring as its reader will). */
void bb__shard_snapshot_into(bb_recorder *rec, uint32_t i, uint8_t *buf, uint64_t *head,
                             const bb__dump_events *ev);
/* Dumps to files written straight from the live rings (recorder_dump.c direct_region), and
 * those of them done again through the copies because writers moved (atomic counters, for
 * tests). */
extern uint64_t bb__dumps_direct, bb__dumps_redone;

#endif /* BACKBEAT_RECORDER_INTERNAL_H */
