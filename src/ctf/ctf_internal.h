/* ctf/ctf_internal.h — what the CTF writer's files share: the per-event plan (how a record's
 * field bytes become the event payload, and its TSDL), the metadata text, and the stream files
 * with their packets. Internal to src/ctf/.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CTF_CTF_INTERNAL_H
#define BB_CTF_CTF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/model.h"
#include "emit/writers.h"

/* One step of turning field bytes into a payload: copy `len` bytes from `off` (consecutive
 * non-padding fields, already little-endian and packed as the TSDL declares them), or, when
 * `str`, the interned id at `off` resolved to a NUL-terminated string. */
typedef struct ct_op {
    uint16_t off, len;
    bool str;
    bool has_sentinel; /* str: an id equal to `sentinel` is absent, written "" */
    uint32_t sentinel;
} ct_op;

/* One event class: the model's schema `schema`, CTF id `id`. */
typedef struct ct_event {
    const bb_rschema *schema;
    uint32_t id;
    size_t nops;
    ct_op *ops;
    size_t fixed; /* bytes of the copied runs */
} ct_event;

typedef struct ct_plan {
    size_t n;
    size_t max_str; /* the most string steps of one event */
    ct_event *ev;   /* by model schema index */
} ct_plan;

/* The plan of every schema of the model; false when out of memory. */
bool ct_plan_build(ct_plan *p, const bb_model *model);
void ct_plan_free(ct_plan *p);

/* True for an interned field read as a string (its u32 id resolved). */
bool ct_field_is_string(const bb_rfield *f);

/* The TSDL escape of a field name into out[cap] (NUL-terminated): a TSDL identifier that
 * babeltrace2 shows as the name itself — bytes other than [A-Za-z0-9_] become '_', and a name
 * that is a TSDL keyword, starts with a digit or '_', or is empty gets a leading '_' (which CTF
 * readers strip). */
void ct_field_ident(const char *name, size_t len, char *out, size_t cap);

/* Write the `metadata` file into dir_fd; 0, or an errno. `host` is the env hostname (NULL:
 * none). */
int ct_meta_write(int dir_fd, const bb_model *model, const ct_plan *plan, const char *host);

/* A stream file: one (instance, shard), its packet under construction. */
typedef struct ct_stream {
    uint64_t instance_id;
    uint32_t shard_id;
    int fd;
    uint8_t *buf;
    size_t len, cap, head; /* head: bytes of packet header + context at buf[0] */
    uint64_t ts_begin, ts_end, seq, events;
} ct_stream;

/* Create the stream file of (instance, shard) in dir_fd, packet context naming the process
 * (`pid`: 1..N in the model's instance order, the trace JSON's pid; `os_pid`: its OS pid from
 * the dump's Process section, -1 when unknown) and `host`; 0, or an errno. */
int ct_stream_open(ct_stream *s, int dir_fd, uint64_t instance_id, uint32_t shard_id, uint32_t pid,
                   int64_t os_pid, const char *host);
/* Room for `n` more payload bytes in the current packet (flushing it first when full, growing
 * the buffer for an event larger than a packet); NULL with *errp set on failure. */
uint8_t *ct_stream_room(ct_stream *s, size_t n, int *errp);
/* Flush the packet under construction (nothing if it holds no event); 0, or an errno. */
int ct_stream_flush(ct_stream *s);
/* Flush, close the file, free; 0 or the errno of the first failure. */
int ct_stream_close(ct_stream *s);

/* The packet's bytes before its events (header + context), as ct_stream_open lays them. */
#define CT_MAGIC 0xC1FC1FC1u

#endif /* BB_CTF_CTF_INTERNAL_H */
