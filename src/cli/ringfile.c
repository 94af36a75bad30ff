/* ringfile.c — ring files for `recover` (and its tests and fuzz target): the library's ring
 * reader (backbeat/ring_reader.h) snapshots a file into a `.bb` dump in memory; this file only
 * copies what the reader reports into cli_ring_info. (Ring files given to convert, merge and
 * inspect are opened by the stage: convert/inputs.h.) */
/* SPDX-License-Identifier: MIT */
#include "cli/ringfile.h"

#include <stdio.h>
#include <string.h>

#include "convert/inputs.h"

static void fill(const bb_ring *r, cli_ring_info *info) {
    const bb_ring_info *in = bb_ring_get_info(r);
    const bb_ring_stats *s = bb_ring_get_stats(r);
    *info = (cli_ring_info){in->instance_id, in->pid,         in->start_ns,   in->file_size,
                            in->capacity,    in->shards,      in->state,      s->events,
                            s->views,        s->interns,      s->intern_full, s->meta_skipped,
                            s->meta_stopped, s->meta_dropped, s->cut_shards,  s->written};
}

const char *cli_ring_warning(const cli_ring_info *info) {
    return cv_ring_warning(info->written, info->events);
}

/* The message without a leading "NAME: ". */
static const char *reason(const bb_error *err, const char *name) {
    size_t n = strlen(name);
    return !strncmp(err->message, name, n) && !strncmp(err->message + n, ": ", 2)
               ? err->message + n + 2
               : err->message;
}

bool cli_ring_to_dump(const uint8_t *data, size_t len, uint8_t **out, size_t *out_len,
                      cli_ring_info *info, char *why, size_t cap) {
    bb_ring *r = NULL;
    bb_error err;
    void *dump = NULL;
    memset(info, 0, sizeof *info);
    *out = NULL;
    *out_len = 0;
    bool ok = bb_ring_open_memory(data, len, "ring", &r, &err) == BB_OK &&
              bb_ring_snapshot(r, &dump, out_len, &err) == BB_OK;
    if (r) fill(r, info);
    bb_ring_close(r);
    if (!ok) snprintf(why, cap, "%s", reason(&err, "ring"));
    *out = dump;
    return ok;
}
