/* event_schema.h — a program's event descriptor (backbeat/schema.h) as the format sees it: its
 * content-addressed id (FORMAT.md "Event ids") and its schema entry as the neutral wire
 * description the encoder takes (format/sections.h). One home for both, shared by the dump
 * writer of a recorder (capture/) and by the ring-file reader that adds records of its own to
 * a snapshot (read/ring_extra.c). Nothing here allocates or takes a lock. */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_FORMAT_EVENT_SCHEMA_H
#define BACKBEAT_FORMAT_EVENT_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include "backbeat/schema.h"
#include "format/sections.h"

/* The id of `desc` (never stored into it); when `out` is non-NULL, the hashed byte stream is
 * also copied into out[0..cap) and its full length (which may exceed cap) put in *len. */
uint64_t bb__event_hash(const bb_event_desc *desc, uint8_t *out, size_t cap, size_t *len);

/* A NUL-terminated string (NULL = absent) as a wire string (at most 65535 bytes taken). */
bb__wire_str bb__wire_cstr(const char *s);
/* The event-level part of desc's schema entry, with id `id`. */
bb__wire_event bb__wire_event_of(const bb_event_desc *desc, uint64_t id);
/* Field f of a schema entry, without its labels. */
bb__wire_field bb__wire_field_of(const bb_field_desc *f);

/* desc's whole schema entry (event, fields, labels) with id `id`, into `sink`; 0 or the sink's
 * first failure. Its size: bb__event_schema_size. */
int bb__enc_event_desc(bb__sink sink, const bb_event_desc *desc, uint64_t id);
uint64_t bb__event_schema_size(const bb_event_desc *desc);

#endif /* BACKBEAT_FORMAT_EVENT_SCHEMA_H */
