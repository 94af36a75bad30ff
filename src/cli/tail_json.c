/* cli/tail_json.c — `backbeat tail --format jsonl`'s record rendering (see cli/tail_json.h): a
 * plan per event, instance and shard, kept in a small table by their addresses; a record whose
 * fields are all integers or one-byte bools (and not a log line) is written in one reserved
 * stretch of the output buffer (its constant text in as few copies as there are fields), any
 * other field through the shared JSON decoder (em_obuf_json_field). */
/* SPDX-License-Identifier: MIT */
#include "cli/tail_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/names.h"
#include "logfmt/logfmt.h"

#define PLAN_SLOTS 128u /* plans kept at once (a table by address; a collision rebuilds) */
#define VALUE_MAX 22u   /* the longest fast value: a quoted "-9223372036854775808" */
#define SLACK 48u /* bytes written past a piece: digits in blocks of 8, text in blocks of 32 */

enum op_kind { OP_UINT, OP_INT, OP_BOOL, OP_OTHER };

/* One field printed: its key at key_at in the plan's text, the constant text before its value
 * (copy_len bytes at copy_at: the first field's takes the plan's head too), and how its value is
 * read. */
typedef struct op {
    uint32_t key_at, key_len, copy_at, copy_len;
    uint16_t offset;
    uint8_t width, kind;
    bool has_sentinel;
    uint64_t sentinel;
    size_t fi; /* its index in the schema */
} op;

typedef struct plan {
    const bb_rschema *schema; /* NULL: an empty slot */
    const bb_rinstance *inst;
    uint32_t shard;
    bool is_log, fast; /* fast: no OP_OTHER field, not a log line */
    lf_site site;
    em_obuf text; /* in memory: the members from event to shard (head_len bytes), then the keys */
    size_t head_len, bound; /* bound: the most bytes a fast record can take */
    op *ops;
    size_t nops, ops_cap;
} plan;

struct cli_tail_json {
    plan slot[PLAN_SLOTS];
    plan *last;     /* the plan of the last record (NULL: none) */
    uint64_t ts_hi; /* the last timestamp's digits but its last 8 (ts / 10^8, > 0)... */
    char lead[64];  /* ...after {"ts_nanos": and its quote, if any (lead_len bytes; 0: none) */
    size_t lead_len;
    bool quoted; /* the lead's timestamps are strings (past BB_JSON_SAFE_MAX) */
};

cli_tail_json *cli_tail_json_new(void) { return calloc(1, sizeof(cli_tail_json)); }

void cli_tail_json_free(cli_tail_json *j) {
    for (size_t i = 0; j && i < PLAN_SLOTS; i++) {
        free(j->slot[i].text.data);
        free(j->slot[i].ops);
    }
    free(j);
}

void cli_tail_json_reset(cli_tail_json *j) {
    for (size_t i = 0; i < PLAN_SLOTS; i++) j->slot[i].schema = NULL;
    j->last = NULL;
}

/* ---- building a plan ------------------------------------------------------------------------ */

static bool is_padding(const bb_rfield *f) {
    return f->name.len >= 4 && !memcmp(f->name.ptr, "_pad", 4);
}

/* How field f is written: integers and bools of a plain width read straight from the bytes. */
static uint8_t kind_of(const bb_rfield *f) {
    bool plain = f->width == 1 || f->width == 2 || f->width == 4 || f->width == 8;
    if (!plain) return OP_OTHER;
    if (f->type <= BB_TYPE_U64) return OP_UINT;
    if (f->type <= BB_TYPE_I64) return OP_INT;
    if (f->type == BB_TYPE_BOOL && f->width == 1) return OP_BOOL;
    return OP_OTHER;
}

/* The members every record of p's event, instance and shard prints alike, then one key per
 * field. */
static void plan_text(plan *p, const bb_rschema *s, const bb_rinstance *inst, uint32_t shard) {
    em_obuf *b = &p->text;
    em_obuf_puts(b, ",\"event\":");
    em_obuf_json_str(b, s->name.ptr, s->name.len);
    if (s->phase) {
        em_obuf_puts(b, ",\"phase\":");
        em_obuf_json_str(b, bb__phase_name(s->phase), strlen(bb__phase_name(s->phase)));
    }
    em_obuf_puts(b, ",\"event_id\":\"");
    em_obuf_hex16(b, s->id);
    em_obuf_puts(b, "\",\"instance_id\":\"");
    em_obuf_hex16(b, inst->instance_id);
    em_obuf_puts(b, "\",\"pid\":");
    if (inst->has_process) em_obuf_u64(b, inst->pid);
    else em_obuf_puts(b, "null");
    em_obuf_puts(b, ",\"shard\":");
    em_obuf_u64(b, shard);
    p->head_len = b->len;
    p->nops = 0;
    for (size_t i = 0; i < s->field_count; i++) {
        const bb_rfield *f = &s->fields[i];
        if (is_padding(f)) continue;
        size_t at = b->len;
        em_obuf_putc(b, ',');
        em_obuf_json_str(b, f->name.ptr, f->name.len);
        em_obuf_putc(b, ':');
        uint32_t len = (uint32_t)(b->len - at), head = p->nops ? 0 : (uint32_t)p->head_len;
        p->ops[p->nops++] = (op){.key_at = (uint32_t)at,
                                 .key_len = len,
                                 .copy_at = (uint32_t)at - head,
                                 .copy_len = len + head,
                                 .offset = f->offset,
                                 .width = (uint8_t)f->width,
                                 .kind = kind_of(f),
                                 .has_sentinel = f->has_sentinel,
                                 .sentinel = f->sentinel,
                                 .fi = i};
    }
}

/* The plan of s, inst and shard: kept, or built into its slot. NULL when out of memory. */
__attribute__((noinline)) static plan *plan_for(cli_tail_json *j, const bb_rschema *s,
                                                const bb_rinstance *inst, uint32_t shard) {
    uintptr_t h = ((uintptr_t)s >> 4) ^ ((uintptr_t)inst >> 6) ^ (uintptr_t)shard * 0x9e37u;
    plan *p = &j->slot[(h ^ (h >> 7)) % PLAN_SLOTS];
    if (p->schema == s && p->inst == inst && p->shard == shard) return p;
    p->schema = NULL;
    p->text.len = 0;
    p->text.failed = 0;
    if (!p->text.data && !em_obuf_init(&p->text, -1, 256)) return NULL;
    if (s->field_count > p->ops_cap) {
        op *o = realloc(p->ops, s->field_count * sizeof *o);
        if (!o) return NULL;
        p->ops = o;
        p->ops_cap = s->field_count;
    }
    plan_text(p, s, inst, shard);
    char *slack = em_obuf_room(&p->text, SLACK); /* read by copy32, never printed */
    if (p->text.failed || !slack) return NULL;
    memset(slack, 0, SLACK);
    p->is_log = lf_site_parse(s, &p->site);
    p->fast = !p->is_log;
    p->bound = 64 + VALUE_MAX + p->head_len + 2 + SLACK;
    for (size_t i = 0; i < p->nops; i++) {
        p->fast &= p->ops[i].kind != OP_OTHER;
        p->bound += p->ops[i].key_len + VALUE_MAX;
    }
    p->schema = s;
    p->inst = inst;
    p->shard = shard;
    return p;
}

/* n bytes from src to dst in blocks of 32 (fixed-size copies, no call): up to 31 bytes past
 * n are read and written. */
static inline void copy32(char *dst, const char *src, size_t n) {
    for (size_t i = 0; i < n; i += 32) memcpy(dst + i, src + i, 32);
}

/* ---- values --------------------------------------------------------------------------------- */

/* The little-endian field of width w (1, 2, 4 or 8) at q. */
static inline uint64_t load_le(const uint8_t *q, unsigned w) {
    switch (w) {
    case 1: return q[0];
    case 2: return (uint64_t)q[0] | (uint64_t)q[1] << 8;
    case 4: {
        uint32_t v;
        memcpy(&v, q, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        v = __builtin_bswap32(v);
#endif
        return v;
    }
    default: {
        uint64_t v;
        memcpy(&v, q, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        v = __builtin_bswap64(v);
#endif
        return v;
    }
    }
}

/* An unsigned number as the golden JSON writes it: a number up to 2^53, else a string. */
static inline char *put_json_u64(char *p, uint64_t v) {
    if (v <= BB_JSON_SAFE_MAX) return em_put_u64(p, v);
    *p++ = '"';
    p = em_put_u64(p, v);
    *p++ = '"';
    return p;
}

static inline char *put_json_i64(char *p, int64_t v) {
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    bool quote = mag > BB_JSON_SAFE_MAX;
    if (quote) *p++ = '"';
    if (v < 0) *p++ = '-';
    p = em_put_u64(p, mag);
    if (quote) *p++ = '"';
    return p;
}

/* A fast field's value at p (at most VALUE_MAX bytes), as em_obuf_json_field writes it. */
static inline char *put_value(char *p, const op *o, const uint8_t *fields) {
    uint64_t raw = load_le(fields + o->offset, o->width);
    if (o->has_sentinel && raw == o->sentinel) {
        memcpy(p, "null", 4);
        return p + 4;
    }
    if (o->kind == OP_UINT) return put_json_u64(p, raw);
    if (o->kind == OP_BOOL) {
        memcpy(p, raw ? "true" : "false", raw ? 4 : 5);
        return p + (raw ? 4 : 5);
    }
    unsigned bits = 8u * o->width;
    if (bits < 64 && (raw >> (bits - 1)) & 1) raw |= ~(uint64_t)0 << bits;
    return put_json_i64(p, (int64_t)raw);
}

/* The lead of a record of timestamp ts: {"ts_nanos": and, as put_json_u64 writes ts, its quote
 * and its digits but the last 8, which the records of a poll share: built when they change. False
 * for a timestamp below 10^8, or of the one hundred-million whose quoting varies. */
static inline bool lead_for(cli_tail_json *j, uint64_t hi) {
    if (hi == j->ts_hi && j->lead_len) return true;
    if (hi == 0 || hi == BB_JSON_SAFE_MAX / 100000000u) return false;
    j->quoted = hi > BB_JSON_SAFE_MAX / 100000000u;
    memcpy(j->lead, "{\"ts_nanos\":\"", 13);
    size_t at = 12 + j->quoted;
    j->lead_len = (size_t)(em_put_u64(j->lead + at, hi) - j->lead); /* (hi: at most 12 digits) */
    j->ts_hi = hi;
    return true;
}

/* ---- log lines ------------------------------------------------------------------------------ */

/* A log record's level, file, line, function and message as JSON members. */
static void log_members(em_obuf *b, const plan *p, const uint8_t *fields) {
    char msg[8192];
    size_t n = lf_format(&p->site, p->schema, fields, p->inst, msg, sizeof msg);
    em_obuf_puts(b, ",\"level\":\"");
    em_obuf_puts(b, lf_level_name(p->site.level));
    em_obuf_puts(b, "\",\"file\":");
    em_obuf_json_str(b, p->site.file.ptr, p->site.file.len);
    em_obuf_puts(b, ",\"line\":");
    em_obuf_u64(b, p->site.line);
    em_obuf_puts(b, ",\"function\":");
    em_obuf_json_str(b, p->site.function.ptr, p->site.function.len);
    em_obuf_puts(b, ",\"message\":");
    em_obuf_json_str(b, msg, n);
}

/* A log record's `string` argument as its text (cut: "..." added) and a `double` one as a JSON
 * number (null when not finite); false for the other kinds, written as any field. */
static bool log_arg(em_obuf *b, const bb_rfield *f, const uint8_t *fields) {
    bb_strview v;
    bool cut, null;
    if (lf_arg_is_double(f)) {
        double d = lf_arg_double(f, fields);
        char t[40];
        int n = snprintf(t, sizeof t, "%.17g", d);
        if (d - d != 0 || n <= 0) em_obuf_puts(b, "null"); /* NaN or an infinity */
        else em_obuf_write(b, t, (size_t)n);
        return true;
    }
    if (!lf_arg_string(f, fields, &v, &cut, &null)) return false;
    if (null) em_obuf_puts(b, "null");
    else if (!cut) em_obuf_json_str(b, v.ptr, v.len);
    else {
        char t[64];
        size_t n = v.len < sizeof t - 4 ? v.len : sizeof t - 4;
        memcpy(t, v.ptr, n);
        memcpy(t + n, "...", 3);
        em_obuf_json_str(b, t, n + 3);
    }
    return true;
}

/* ---- records -------------------------------------------------------------------------------- */

/* Any record, member by member through b (a log line, a field of another kind, or a buffer
 * with too little room left for the fast path). */
__attribute__((noinline)) static void put_general(em_obuf *b, const plan *p, uint64_t ts,
                                                  const uint8_t *fields) {
    em_obuf_write(b, "{\"ts_nanos\":", 12);
    em_obuf_json_u64(b, ts);
    em_obuf_write(b, p->text.data, p->head_len);
    if (p->is_log) log_members(b, p, fields);
    for (size_t i = 0; i < p->nops; i++) {
        const op *o = &p->ops[i];
        em_obuf_write(b, p->text.data + o->key_at, o->key_len);
        if (p->is_log && log_arg(b, &p->schema->fields[o->fi], fields)) continue;
        char *room;
        if (o->kind != OP_OTHER && (room = em_obuf_room(b, VALUE_MAX + SLACK)) != NULL)
            b->len += (size_t)(put_value(room, o, fields) - room);
        else em_obuf_json_field(b, p->schema, o->fi, fields, p->inst);
    }
    em_obuf_write(b, "}\n", 2);
}

bool cli_tail_json_put(cli_tail_json *j, em_obuf *b, const bb_rschema *s, const bb_rinstance *inst,
                       uint64_t ts, uint32_t shard, const uint8_t *fields) {
    plan *p = j->last;
    if (!p || p->schema != s || p->inst != inst || p->shard != shard) {
        if (!(p = plan_for(j, s, inst, shard))) {
            b->failed = b->failed ? b->failed : ENOMEM;
            return false;
        }
        j->last = p;
    }
    uint64_t hi = ts / 100000000u;
    char *q = p->fast && lead_for(j, hi) ? em_obuf_room(b, p->bound) : NULL;
    if (!q) {
        put_general(b, p, ts, fields);
        return true;
    }
    char *start = q;
    copy32(q, j->lead, j->lead_len); /* (one block: at most 25 bytes) */
    q += j->lead_len;
    em_put8(q, (uint32_t)(ts - hi * 100000000u));
    q[8] = '"';
    q += 8 + j->quoted;
    const char *text = p->text.data;
    if (!p->nops) { /* no field: the head alone */
        copy32(q, text, p->head_len);
        q += p->head_len;
    }
    for (size_t i = 0; i < p->nops; i++) { /* (ops is NULL for an event without fields) */
        const op *o = &p->ops[i];
        copy32(q, text + o->copy_at, o->copy_len);
        q = put_value(q + o->copy_len, o, fields);
    }
    q[0] = '}';
    q[1] = '\n';
    b->len += (size_t)(q + 2 - start);
    return true;
}
