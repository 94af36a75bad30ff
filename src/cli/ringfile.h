/* ringfile.h — reading ring files (docs/RING_FILE.md) for `backbeat recover`, `convert` and
 * `merge`: validate the header, take the metadata entries, intern entries and rings that
 * validate, and build an ordinary `.bb` dump of format v1 from them in memory (the instance id,
 * shard ids and capacities of the live recorder, so records keep their duplicate keys). */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_CLI_RINGFILE_H
#define BACKBEAT_CLI_RINGFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a ring file says about itself, and what its recovery kept and skipped. */
typedef struct cli_ring_info {
    uint64_t instance_id;
    uint64_t pid;
    uint64_t start_ns;  /* CLOCK_REALTIME at creation */
    uint64_t file_size;
    uint64_t capacity;
    uint32_t shards;
    uint32_t state;     /* BB_RING_STATE_* (format/ring_file.h), as last written */
    uint64_t proc_start; /* the writer's start time (clock ticks since boot), 0 unknown */
    char boot_id[40];   /* the boot it ran in, "" unknown */
    char host[256];
    size_t events;        /* distinct schemas recovered */
    size_t views;         /* view sets recovered */
    size_t interns;       /* intern entries recovered */
    bool intern_full;     /* the writer handed out BB_INTERN_FULL_ID: its placeholder is added */
    size_t meta_skipped;  /* metadata entries unfinished or damaged, skipped */
    bool meta_stopped;    /* the log's rest could not be walked (a damaged entry length) */
    uint32_t meta_dropped; /* entries the writer could not fit in the log */
    uint32_t cut_shards;   /* rings cut below a lapped writer's mark (as a live dump cuts) */
    bool written;          /* some ring holds bytes (a cursor past 0) */
} cli_ring_info;

/* The warning to print about a recovered file, or NULL: rings that hold bytes while no
 * schema could be recovered (their records cannot be decoded: the metadata log is lost). */
const char *cli_ring_warning(const cli_ring_info *info);

/* True when `len` bytes at `data` start with the ring file magic. */
bool cli_ring_is(const void *data, size_t len);

/* Validate the header of the ring file at `data` (`len` bytes of it, at least the header for
 * success; the file has `size` bytes) and fill `info`. On failure writes the reason (without
 * the file name) into why[cap] and returns false. */
bool cli_ring_header(const uint8_t *data, size_t len, uint64_t size, cli_ring_info *info,
                     char *why, size_t cap);

/* The ring file as a `.bb` dump: *out (malloc'ed, *out_len bytes), checked by opening it with
 * the reader. On failure writes the reason into why[cap] and returns false. Linear in `len`. */
bool cli_ring_to_dump(const uint8_t *data, size_t len, uint8_t **out, size_t *out_len,
                      cli_ring_info *info, char *why, size_t cap);

/* Whether the process that wrote the ring file open as `fd` (header in `info`) still runs:
 *   CLI_RING_GONE     its lock is free (the kernel drops it when the process dies);
 *   CLI_RING_RUNNING  its lock is held and the process with its pid and start time exists in
 *                     this boot (or that cannot be checked: another boot id, no /proc);
 *   CLI_RING_ORPHAN   its lock is held, but not by it: the process is gone and a process that
 *                     inherited the file's mapping (a fork child) keeps the lock;
 *   CLI_RING_UNKNOWN  the lock cannot be tested (the reason in why). */
enum { CLI_RING_UNKNOWN = -1, CLI_RING_GONE = 0, CLI_RING_RUNNING = 1, CLI_RING_ORPHAN = 2 };
int cli_ring_alive(int fd, const cli_ring_info *info, char *why, size_t cap);



/* Open the ring file `path` and build its dump (as cli_ring_to_dump); *alive as
 * cli_ring_alive (CLI_RING_UNKNOWN when the header does not validate). On failure prints
 * "PATH: reason" and returns false. */
bool cli_ring_load(const char *path, uint8_t **out, size_t *out_len, cli_ring_info *info,
                   int *alive);

/* True when the file `path` starts with the ring file magic (false when it cannot be read). */
bool cli_ring_path_is(const char *path);
#endif /* BACKBEAT_CLI_RINGFILE_H */
