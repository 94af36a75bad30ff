/* model_json.c — JSON rendering of a model's merged record stream (multi_*.expected.json). */
/* SPDX-License-Identifier: MIT */
#include "dump_json.h"

#include <stdlib.h>
#include <string.h>

void model_to_json(sbuf *b, const bb_model *m, const char *const *names, size_t n) {
    sb_puts(b, "{\"inputs\":[");
    for (size_t i = 0; i < n; i++) {
        if (i) sb_puts(b, ",");
        sb_jstr(b, names[i], strlen(names[i]));
    }
    sb_puts(b, "],\"record_count\":");
    sb_ju64(b, bb_model_record_count(m));
    sb_puts(b, ",\"records\":[");
    bb_model_iter *it = NULL;
    if (bb_model_iter_new(m, &it) != BB_OK) abort();
    bb_mrecord r;
    size_t k = 0;
    while (bb_model_next(it, &r)) {
        if (k++) sb_puts(b, ",");
        sb_puts(b, "{\"instance_id\":");
        sb_hex16(b, r.rec.instance_id);
        sb_puts(b, ",\"shard\":");
        sb_ju64(b, r.rec.shard_id);
        sb_puts(b, ",\"ts\":");
        sb_ju64(b, r.rec.ts);
        sb_puts(b, ",\"event\":");
        sb_jstr(b, r.rec.schema->name.ptr, r.rec.schema->name.len);
        sb_puts(b, ",\"display_event\":");
        const char *dn = bb_model_display_name(m, r.rec.event_id);
        sb_jstr(b, dn, strlen(dn));
        sb_puts(b, ",\"event_id\":");
        sb_hex16(b, r.rec.event_id);
        sb_puts(b, ",\"fields\":");
        sb_fields(b, r.rec.schema, r.rec.fields, r.instance);
        sb_puts(b, "}");
    }
    bb_model_iter_free(it);
    sb_puts(b, "]}");
}
