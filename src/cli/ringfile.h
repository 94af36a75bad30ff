/* ringfile.h — the CLI's side of ring files (docs/RING_FILE.md): the library's reader
 * (backbeat/ring_reader.h, src/read/ring_*.c) turned into what `recover` prints and uses: a
 * `.bb` dump in memory, and what the recovery kept and skipped. */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_CLI_RINGFILE_H
#define BACKBEAT_CLI_RINGFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/ring_reader.h"

/* What a ring file says about itself, and what its recovery kept and skipped. */
typedef struct cli_ring_info {
    uint64_t instance_id;
    uint64_t pid;
    uint64_t start_ns; /* CLOCK_REALTIME at creation */
    uint64_t file_size;
    uint64_t capacity;
    uint32_t shards;
    uint32_t state;        /* BB_RING_STATE_* (format/ring_file.h), as last written */
    size_t events;         /* distinct schemas recovered */
    size_t views;          /* view sets recovered */
    size_t interns;        /* intern entries recovered */
    bool intern_full;      /* the writer handed out BB_INTERN_FULL_ID: its placeholder is added */
    size_t meta_skipped;   /* metadata entries unfinished or damaged, skipped */
    bool meta_stopped;     /* the log's rest could not be walked (a damaged entry length) */
    uint32_t meta_dropped; /* entries the writer could not fit in the log */
    uint32_t cut_shards;   /* rings cut below a lapped writer's mark (as a live dump cuts) */
    bool written;          /* some ring holds bytes (a cursor past 0) */
} cli_ring_info;

/* Liveness, as bb_ring_liveness. */
enum {
    CLI_RING_UNKNOWN = BB_RING_UNKNOWN,
    CLI_RING_GONE = BB_RING_GONE,
    CLI_RING_RUNNING = BB_RING_RUNNING,
    CLI_RING_ORPHAN = BB_RING_ORPHAN
};

/* The warning to print about a recovered file, or NULL: rings that hold bytes while no
 * schema could be recovered (their records cannot be decoded: the metadata log is lost). */
const char *cli_ring_warning(const cli_ring_info *info);

/* The ring file held in `len` bytes at `data` (read as a dead process's) as a `.bb` dump:
 * *out (malloc'ed, *out_len bytes). On failure writes the reason into why[cap]. */
bool cli_ring_to_dump(const uint8_t *data, size_t len, uint8_t **out, size_t *out_len,
                      cli_ring_info *info, char *why, size_t cap);

#endif /* BACKBEAT_CLI_RINGFILE_H */
