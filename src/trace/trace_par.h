/* trace/trace_par.h — the trace writer's parallel engine (trace/trace.c, --threads N > 1):
 * the JSON of records' fields, most of a trace's cost, rendered on worker threads, the output
 * byte for byte the serial one.
 *
 * The trace writer keeps writing everything else (event framing, spans, metadata) itself, in
 * order, into a memory buffer `lit`; where a record's fields go it calls tr_par_defer, which leaves
 * a hole at the end of `lit` and keeps a copy of the field bytes. Between records it calls
 * tr_par_next: once enough holes are gathered the chunk goes to the workers, which render the
 * holes with the writer's own function (a pure one: the same bytes on any thread), and `lit`
 * starts the next chunk; the chunk before is waited for and written to the fd, literal and
 * rendered pieces in order. Two chunks at most are held.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CONVERT_TRACE_PAR_H
#define BB_CONVERT_TRACE_PAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/reader.h"
#include "emit/obuf.h"

/* Renders a record's fields ("{...}") into b; `ev` is the writer's, passed through. */
typedef void (*tr_par_render_fn)(em_obuf *b, const void *ev, const bb_rschema *s,
                                 const uint8_t *fields, const bb_rinstance *inst);

typedef struct trace_par trace_par;

/* `threads` (> 1) workers writing to fd; *lit is initialised as the memory buffer the writer
 * writes into. NULL (nothing started, *lit untouched) if memory or threads could not be had. */
trace_par *tr_par_create(unsigned threads, int fd, tr_par_render_fn fn, em_obuf *lit);
/* A hole at the end of *lit for the fields (n bytes at `fields`, copied) of schema s. False if
 * out of memory. */
bool tr_par_defer(trace_par *p, em_obuf *lit, const void *ev, const bb_rschema *s,
                  const uint8_t *fields, size_t n, const bb_rinstance *inst);
/* Between records: hand over the chunk when it is big enough. False if out of memory. */
bool tr_par_next(trace_par *p, em_obuf *lit);
/* Everything to the fd, flushed; 0 or the errno of the first failed write (ENOMEM when memory
 * ran out). */
int tr_par_finish(trace_par *p, em_obuf *lit);
/* The errno of a failed write so far, or 0. */
int tr_par_failed(const trace_par *p);
/* Stop the workers, release everything (after tr_par_finish, or to give up; *lit too). */
void tr_par_free(trace_par *p, em_obuf *lit);

#endif /* BB_CONVERT_TRACE_PAR_H */
