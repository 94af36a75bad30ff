/* table/trigger_meta.c — the Parquet table's trigger metadata: the first firing's rule, the
 * matching record (event, timestamp, instance, shard, span id), the after-window, how long the
 * span lasted and whether it was still open, one key each (backbeat.trigger.*), plus
 * backbeat.trigger.count and backbeat.triggers, every firing as a JSON array of objects with the
 * same names, in firing order. */
/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "emit/text.h"
#include "table/trigger_meta.h"

/* One trigger as a JSON object. */
static void json_one(pq_buf *b, const convert_trigger *t) {
    em_cstr(b, "{\"rule\":");
    em_json_str(b, t->rule, strlen(t->rule));
    em_cstr(b, ",\"event\":");
    em_json_str(b, t->event, strlen(t->event));
    em_cstr(b, ",\"ts_nanos\":");
    em_dec_u64(b, t->ts);
    em_cstr(b, ",\"instance_id\":\"");
    em_hex16(b, t->instance_id);
    em_cstr(b, "\",\"shard\":");
    em_dec_u64(b, t->shard);
    em_cstr(b, ",\"span_id\":");
    em_dec_u64(b, t->span_id);
    em_cstr(b, ",\"after_ns\":");
    em_dec_u64(b, t->after_ns);
    em_cstr(b, ",\"duration_ns\":");
    em_dec_u64(b, t->duration_ns);
    em_cstr(b, t->hung ? ",\"hung\":true}" : ",\"hung\":false}");
}

typedef enum { V_STR, V_DEC, V_HEX, V_BOOL } vkind;

/* Contract: see trigger_meta.h. */
bool tw_trigger_kv(const convert_trigger *t, size_t n, pq_buf *vals, pq_kv *kv, size_t *nkv) {
    *nkv = 0;
    if (!n) return true;
    const convert_trigger *f = &t[0];
    struct {
        const char *key;
        vkind k;
        const char *s;
        uint64_t v;
    } one[] = {
        {"backbeat.trigger.rule", V_STR, f->rule, 0},
        {"backbeat.trigger.event", V_STR, f->event, 0},
        {"backbeat.trigger.ts_nanos", V_DEC, NULL, f->ts},
        {"backbeat.trigger.instance_id", V_HEX, NULL, f->instance_id},
        {"backbeat.trigger.shard", V_DEC, NULL, f->shard},
        {"backbeat.trigger.span_id", V_DEC, NULL, f->span_id},
        {"backbeat.trigger.after_ns", V_DEC, NULL, f->after_ns},
        {"backbeat.trigger.duration_ns", V_DEC, NULL, f->duration_ns},
        {"backbeat.trigger.hung", V_BOOL, NULL, f->hung},
        {"backbeat.trigger.count", V_DEC, NULL, n},
    };
    size_t at[TW_TRIGGER_KV];
    size_t k = 0;
    for (; k < sizeof one / sizeof one[0]; k++) {
        at[k] = vals->len;
        if (one[k].k == V_STR) em_cstr(vals, one[k].s);
        else if (one[k].k == V_DEC) em_dec_u64(vals, one[k].v);
        else if (one[k].k == V_HEX) em_hex16(vals, one[k].v);
        else em_cstr(vals, one[k].v ? "true" : "false");
        pq_buf_byte(vals, 0);
    }
    at[k] = vals->len;
    pq_buf_byte(vals, '[');
    for (size_t i = 0; i < n; i++) {
        if (i) pq_buf_byte(vals, ',');
        json_one(vals, &t[i]);
    }
    pq_buf_byte(vals, ']');
    pq_buf_byte(vals, 0);
    if (vals->failed) return false;
    for (size_t i = 0; i < k; i++) kv[i] = (pq_kv){one[i].key, (const char *)vals->data + at[i]};
    kv[k] = (pq_kv){"backbeat.triggers", (const char *)vals->data + at[k]};
    *nkv = k + 1;
    return true;
}
