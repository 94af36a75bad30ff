/* ring_backing.h — file-backed rings (docs/RING_FILE.md): the recorder's storage mapped
 * MAP_SHARED from one file per recorder so it outlives the process (ring_backing.c), and the
 * file's metadata log kept current with the registry (ring_meta.c). Private to the library. */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_CAPTURE_RING_BACKING_H
#define BACKBEAT_CAPTURE_RING_BACKING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "backbeat/error.h"
#include "backbeat/registry.h"

typedef struct bb_recorder bb_recorder;

/* One open ring file. */
typedef struct bb__ring_file {
    int fd;        /* kept open: its flock(LOCK_EX) says "the writer is alive" */
    uint8_t *base; /* the whole file, MAP_SHARED */
    size_t size;
    char *path;
    pid_t pid;      /* the creator: only it removes the file */
    bool keep;      /* leave the file at close / exit */
    uint64_t seq;   /* next metadata entry's sequence number (under the meta lock) */
    uint64_t *seen; /* open-addressing set of what the log holds (event ids, view text
                          hashes), so a plugin loaded again does not fill the log (meta lock) */
    size_t seen_cap, seen_n;
    struct bb__ring_file *next; /* the list of open files (ring_meta.c) */
} bb__ring_file;

/* Map rec's storage (cursors, rings, intern entries and arena) from a new file in `dir`, sized
 * for the recorder's already-set shards, capacity, instance id and host; `intern_entries` and
 * `intern_bytes` size its intern table. On failure nothing is left behind (the file is removed)
 * and err says why, naming the file. */
bb_status bb__ring_backing_create(bb_recorder *rec, const char *dir, bool keep,
                                  uint32_t intern_entries, uint32_t intern_bytes, bb_error *err);
/* Unmap and close; remove the file when this process created it and keep is off. */
void bb__ring_backing_close(bb_recorder *rec);
/* At process exit (the recorder stays mapped: other threads may still record): mark the file
 * closed and remove it when this process created it and keep is off or `drop` (nothing in it
 * worth keeping). */
void bb__ring_backing_exit(bb_recorder *rec, bool drop);

/* ---- the metadata log (ring_meta.c) ------------------------------------------------------ */
/* Start keeping `rf` current: link it, then append every registered (and kept unloaded)
 * schema and every view set. BB_OK or BB_ERR_NOMEM. */
bb_status bb__ring_meta_attach(bb__ring_file *rf);
/* Stop (before unmapping). */
void bb__ring_meta_detach(bb__ring_file *rf);
/* Each schema or view set registered later is appended to every open file: the first attach
 * gives the registry hooks for it (bb__registry_set_hooks, registry_internal.h). */

#endif /* BACKBEAT_CAPTURE_RING_BACKING_H */
