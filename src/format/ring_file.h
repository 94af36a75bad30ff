/* ring_file.h — the layout of a ring file (docs/RING_FILE.md), its one home: the file a
 * file-backed recorder maps MAP_SHARED (src/capture/ring_file.c) so that its rings, cursors,
 * schemas, views and intern table survive the process, and that `backbeat recover` turns into a
 * `.bb` dump (src/cli/ringfile.c). Our own on-disk format, versioned apart from `.bb`.
 *
 * All integers little-endian (native: backbeat builds only on little-endian targets). The file:
 *
 *   [0, 4096)             header (below)
 *   [cursors_off, ...)    shard_count cursors of 128 bytes: u64 head, u64 damaged_below,
 *                         u64 big_frame (0 in files of writers before it), pad
 *   [slots_off, ...)      slot_count announcements of 128 bytes (struct bb__tslot): u64 taglen,
 *                         u64 pos, ... (records in flight; the last entry is the overflow one)
 *   [meta_off, +meta_len) the metadata log: entries appended under a lock (below)
 *   [intern_off, ...)     intern_cap_entries entries of 16 bytes: u32 off, len, hash, ready,
 *                         in `gens` equal storages (the generation table below says which
 *                         generation each holds and its first id)
 *   [arena_off, ...)      intern_cap_bytes bytes of interned string bytes, likewise split
 *   [rings_off, ...)      shard_count rings of capacity bytes, shard i at rings_off + i * cap
 *
 * Every region starts on a multiple of 4096. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_FORMAT_RING_FILE_H
#define BB_FORMAT_RING_FILE_H

#include <stddef.h>
#include <stdint.h>

#define BB_RING_MAGIC "BBRING\r\n"
#define BB_RING_MAGIC_SIZE 8u
#define BB_RING_VERSION 3u
#define BB_RING_VERSION_MIN 2u /* version 2: one intern generation, ids index + 1 (still read) */
#define BB_RING_HEADER_SIZE 4096u
#define BB_RING_ALIGN 4096u
#define BB_RING_CURSOR_STRIDE 128u
/* A cursor's words (each u64): the head, the lapped writer's mark, the rseq big frame. */
#define BB_RC_HEAD 0u
#define BB_RC_DAMAGED_BELOW 8u
#define BB_RC_BIG_FRAME 16u
#define BB_RING_HOST_MAX 256u

/* Header offsets. [0, BB_RING_CHECKED) never changes after creation and is covered by the
 * FNV-1a 64 checksum at BB_RH_CHECK; the fields after it change while the process runs. */
#define BB_RH_MAGIC 0            /* 8 bytes */
#define BB_RH_VERSION 8          /* u32 */
#define BB_RH_HEADER_SIZE 12     /* u32 = 4096 */
#define BB_RH_PAGE_SIZE 16       /* u32: the writer's page size */
#define BB_RH_SHARDS 20          /* u32 */
#define BB_RH_CAPACITY 24        /* u64: bytes per ring, a power of two */
#define BB_RH_CLOCK 32           /* u32: bb_clock_kind */
#define BB_RH_CURSOR_STRIDE 36   /* u32 = 128 */
#define BB_RH_INSTANCE 40        /* u64 */
#define BB_RH_PID 48             /* u64 */
#define BB_RH_START_NS 56        /* u64: CLOCK_REALTIME at creation */
#define BB_RH_CLOCK_NS 64        /* u64: the recorder's clock at creation */
#define BB_RH_FILE_SIZE 72       /* u64 */
#define BB_RH_CURSORS_OFF 80     /* u64 */
#define BB_RH_META_OFF 88        /* u64 */
#define BB_RH_META_LEN 96        /* u64 */
#define BB_RH_INTERN_OFF 104     /* u64 */
#define BB_RH_ARENA_OFF 112      /* u64 */
#define BB_RH_INTERN_ENTRIES 120 /* u32 */
#define BB_RH_INTERN_BYTES 124   /* u32 */
#define BB_RH_RINGS_OFF 128      /* u64 */
#define BB_RH_TSC_BASE 136       /* u64: clock parameters (informative) */
#define BB_RH_TSC_MULT 144       /* u64 */
#define BB_RH_NS_BASE 152        /* u64 */
#define BB_RH_MONO_OFFSET 160    /* i64 */
#define BB_RH_PROC_START 168     /* u64: the process's start time (/proc/PID/stat field 22) */
#define BB_RH_BOOT_ID 176        /* 40 bytes: /proc/sys/kernel/random/boot_id, NUL-terminated */
#define BB_RING_BOOT_ID_MAX 40u
#define BB_RH_HOST 216         /* 256 bytes, NUL-terminated */
#define BB_RH_SLOTS_OFF 472    /* u64: the announcement table */
#define BB_RH_SLOT_COUNT 480   /* u32: its entries, the overflow entry included */
#define BB_RH_SLOT_STRIDE 484  /* u32 = 128 */
#define BB_RH_TAG_BASE 488     /* u32: the tag of shard 0's announcements (shard i: + i) */
#define BB_RH_GENS 492         /* u32: intern generations, 1..8 (0 in version 2: one) */
#define BB_RING_CHECKED 496    /* end of the checked part */
#define BB_RH_CHECK 496        /* u64: FNV-1a 64 of [0, 496) */
#define BB_RH_STATE 504        /* u32 (atomic): BB_RING_STATE_* */
#define BB_RH_META_DROPPED 508 /* u32 (atomic): metadata entries that did not fit */
#define BB_RH_META_TAIL 512    /* u64 (atomic): bytes of the metadata log in use */
#define BB_RH_INTERN_FULL \
    520 /* u32 (atomic): 1 once an intern call was answered
                                 * BB_INTERN_FULL_ID (a dump then carries its placeholder) */

/* The intern generation table (version 3): BB_RING_GEN_MAX entries of BB_RING_GEN_STRIDE bytes
 * at BB_RH_GEN_TABLE, one per storage of the table (entries [i * e, (i + 1) * e) and arena bytes
 * [i * b, (i + 1) * b) for e = entries / gens, b = bytes / gens; an entry's `off` is relative to
 * its storage's arena). Written by the writer only, without a lock:
 *   u32 number   (atomic) the generation the storage holds, or BB_RING_GEN_FREE (never used)
 *                or BB_RING_GEN_BUSY (being emptied for the next one); stored last (release)
 *   u32 id_base  its entry k has id id_base + k + 1 (set before `number`)
 *   u32 reuses   times the storage was emptied (informative)
 *   u32 reserved 0
 * Numbers only grow, so a reader that reads `number` before and after copying a storage's
 * entries, and finds it unchanged, copied that generation's entries (a seqlock without its
 * odd count: a number is never given twice). */
#define BB_RH_GEN_TABLE 528
#define BB_RING_GEN_MAX 8u
#define BB_RING_GEN_STRIDE 16u
#define BB_RG_NUMBER 0u
#define BB_RG_ID_BASE 4u
#define BB_RG_REUSES 8u
#define BB_RING_GEN_FREE UINT32_MAX
#define BB_RING_GEN_BUSY (UINT32_MAX - 1)

enum { BB_RING_STATE_RUNNING = 1, BB_RING_STATE_CLOSED = 2 };

/* A metadata log entry: a 24-byte head, then `len` payload bytes, padded to a multiple of 8.
 * The writer fills kind, len, seq and the payload, then the checksum, and stores the magic
 * last (release): an entry without its magic is unfinished, one whose checksum fails is
 * damaged; a reader skips either (by `len` when it fits the log, else it stops). */
#define BB_RME_MAGIC 0x454D4242u /* "BBME" */
#define BB_RME_HEAD 24u
#define BB_RME_OFF_MAGIC 0  /* u32 */
#define BB_RME_OFF_KIND 4   /* u16 */
#define BB_RME_OFF_LEN 8    /* u32 */
#define BB_RME_OFF_CHECK 12 /* u32: FNV-1a 32 of kind (2 bytes), len (4), seq (8), payload */
#define BB_RME_OFF_SEQ 16   /* u64: 0, 1, 2, ... in append order */
#define BB_RME_MAX_LEN (1u << 24)

enum {
    BB_RME_EVENT = 1, /* one Schema-section entry of FORMAT.md (no count) */
    BB_RME_VIEWS = 2  /* the SQL text of one view set */
};

/* An announcement in the file: u64 taglen (record length << 32 | tag, 0 idle) at 0, u64 pos
 * (UINT64_MAX between announcing and reserving) at 8. */
#define BB_RING_SLOT_STRIDE 128u
#define BB_RING_SLOT_MAX 65536u

/* Size of the intern entry in the file (the bb__intern_entry of the recorder). */
#define BB_RING_INTERN_ENTRY 16u

/* FNV-1a over bytes, 32 and 64 bits (the intern table's hash is the 32-bit one). */
static inline uint32_t bb__ring_fnv32(uint32_t h, const void *p, size_t n) {
    const uint8_t *b = (const uint8_t *)p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 16777619u;
    return h;
}
#define BB_RING_FNV32_INIT 2166136261u
static inline uint64_t bb__ring_fnv64(const void *p, size_t n) {
    const uint8_t *b = (const uint8_t *)p;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* The checksum of a metadata entry whose head is at `e` (the payload follows it). */
static inline uint32_t bb__rme_check(const uint8_t *e, uint32_t len) {
    uint32_t h = bb__ring_fnv32(BB_RING_FNV32_INIT, e + BB_RME_OFF_KIND, 2);
    h = bb__ring_fnv32(h, e + BB_RME_OFF_LEN, 4);
    h = bb__ring_fnv32(h, e + BB_RME_OFF_SEQ, 8);
    return bb__ring_fnv32(h, e + BB_RME_HEAD, len);
}

/* The process identity a reader compares with a live process: its start time in clock ticks
 * since boot (field 22 of /proc/PID/stat; 0 when unknown) and the boot id (into out[40], ""
 * when unknown). Linux only; uses stdio. */
uint64_t bb__ring_proc_start(long pid);
void bb__ring_boot_id(char out[BB_RING_BOOT_ID_MAX]);

/* The ring file name: DIR/backbeat.<pid>.<instance as 16 hex digits>.ring */
#define BB_RING_NAME_FMT "backbeat.%ld.%016llx.ring"

#endif /* BB_FORMAT_RING_FILE_H */
