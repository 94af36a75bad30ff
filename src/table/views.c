/* table/views.c — tw_views_ddl (emit/writers.h): the query DDL of FORMAT.md that rides in
 * the Parquet footer (`backbeat.views`) and, after the binding of `events`, in OUT.views.sql.
 *
 *   CREATE OR REPLACE VIEW "<qualified name>" AS SELECT * FROM events WHERE event = '<name>';
 *     ... one per event name of the model (whatever versions), in registry order: selecting
 *     on the name, a view reads every version's rows of a fleet's table;
 *   CREATE OR REPLACE VIEW backbeat_keys AS SELECT * FROM (VALUES ('<event>', '<column>',
 *     '<role>'), ...) AS t(event, field, role);   -- one row per promoted (event, column, role)
 *   CREATE OR REPLACE VIEW crash AS SELECT c.*, s.stack FROM "backbeat::Crash" c LEFT JOIN
 *     (VALUES (instance_id, ts_nanos, '<stack>'), ...) AS s(...) USING (instance_id, ts_nanos);
 *     -- when the model has backbeat::Crash: each crash with its stack symbolized at conversion
 *   then every view set of the inputs, verbatim, oldest rank first (emit/view_order.h: the
 *   newest data's definition of a view comes last and wins) (a newline added after a text
 *   lacking one, and an empty statement ";" after a text whose last statement is unterminated;
 *   a text identical to an earlier one, as successive dumps of one process carry, once; a text
 *   holding a NUL byte is left out, with a warning on stderr: the DDL is one C string).
 */
/* SPDX-License-Identifier: MIT */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/writers.h"
#include "table/layout.h"
#include "emit/text.h"
#include "emit/view_order.h"
#include "format/names.h"

/* True when the text's last non-blank character is ';' (or it is blank): a text whose last
 * statement lacks its terminator, or ends in a comment, is followed by an empty statement ";"
 * so that the next text's first statement does not fuse with it. */
static bool ends_statement(bb_strview v) {
    size_t n = v.len;
    while (n > 0 && (v.ptr[n - 1] == ' ' || v.ptr[n - 1] == '\t' || v.ptr[n - 1] == '\n' ||
                     v.ptr[n - 1] == '\r'))
        n--;
    return n == 0 || v.ptr[n - 1] == ';';
}

/* True if an earlier version of plan i's name promotes a field to the same column with the
 * same role as field f (backbeat_keys lists each (event, column, role) once). Versions are
 * few, so the scan stays short. */
static bool key_seen(const tw_layout *l, size_t i, size_t f) {
    const tw_plan *p = &l->plans[i];
    const tw_fmap *m = &p->map[f];
    uint8_t role = p->schema->fields[f].role;
    for (size_t j = i; j > 0 && !l->plans[j].first; j--) {
        const tw_plan *q = &l->plans[j - 1];
        for (size_t g = 0; g < q->schema->field_count; g++)
            if (q->map[g].promoted && q->map[g].leaf == m->leaf &&
                q->schema->fields[g].role == role)
                return true;
    }
    return false;
}

/* A site's text as an SQL string: invalid UTF-8 replaced, a NUL byte written as "\\0" (the
 * DDL is one C string). */
static void site_str(pq_buf *b, bb_strview v) {
    pq_buf t = {0};
    em_utf8_lossy(&t, (const uint8_t *)v.ptr, v.len);
    pq_buf q = {0};
    for (size_t i = 0; i < t.len; i++)
        if (t.data[i]) pq_buf_byte(&q, t.data[i]);
        else em_cstr(&q, "\\0");
    if (t.failed || q.failed) b->failed = true;
    em_sql_str(b, q.data ? (const char *)q.data : "", q.len);
    pq_buf_free(&t);
    pq_buf_free(&q);
}

/* The `log` view (LOG_LINES.md) when the table has log records: one row per record, its call
 * site's level, file, line, function and format joined on event_id (a VALUES list, one row per
 * site) to the record's `log_message`. */
static void log_view(pq_buf *b, const tw_layout *l) {
    if (l->log_leaf < 0) return;
    em_cstr(b, "-- backbeat: one row per log record (docs/LOG_LINES.md)\n"
               "CREATE OR REPLACE VIEW log AS SELECT e.seq, e.ts, e.ts_nanos, e.instance_id, "
               "s.level, e.");
    const char *col = l->nodes[l->leaves[l->log_leaf].node].name;
    em_sql_ident(b, col, strlen(col));
    em_cstr(b, " AS message, s.file, s.line, s.function, s.format, e.event, e.event_id FROM "
               "events e JOIN (VALUES");
    bool first = true;
    for (size_t i = 0; i < l->nplans; i++) {
        const tw_plan *p = &l->plans[i];
        if (!p->log) continue;
        em_cstr(b, first ? "\n  (" : ",\n  (");
        first = false;
        em_cstr(b, "CAST(");
        em_dec_u64(b, p->id);
        em_cstr(b, " AS UBIGINT), ");
        const char *lv = lf_level_name(p->site.level);
        em_sql_str(b, lv, strlen(lv));
        em_cstr(b, ", ");
        site_str(b, p->site.file);
        em_cstr(b, ", CAST(");
        em_dec_u64(b, p->site.line);
        em_cstr(b, " AS UINTEGER), ");
        site_str(b, p->site.function);
        em_cstr(b, ", ");
        site_str(b, p->site.format);
        em_cstr(b, ")");
    }
    em_cstr(b, "\n) AS s(event_id, level, file, line, function, format) ON e.event_id = "
               "s.event_id;\n");
}

/* The model whose NUL-carrying view sets were reported: the DDL is built twice per convert
 * (footer and sidecar), the warning is printed once. */
static const bb_model *warned_for;

/* The `crash` view: the backbeat::Crash rows, each with its symbolized stack (NULL when the
 * converting host had none for it). */
static void crash_view(pq_buf *b, const tw_layout *l, const convert_crash *crashes, size_t n) {
    bool have = false;
    for (size_t i = 0; i < l->nplans && !have; i++)
        have = l->plans[i].first && l->plans[i].display_len == strlen("backbeat::Crash") &&
               !memcmp(l->plans[i].display, "backbeat::Crash", l->plans[i].display_len);
    if (!have) return;
    em_cstr(b, "-- backbeat: crashes, with their stacks symbolized when converted\n");
    em_cstr(b, "CREATE OR REPLACE VIEW crash AS SELECT c.*, s.stack FROM \"backbeat::Crash\" c "
               "LEFT JOIN (");
    if (!n)
        em_cstr(b, "SELECT CAST(NULL AS UBIGINT) AS instance_id, CAST(NULL AS UBIGINT) AS "
                   "ts_nanos, CAST(NULL AS VARCHAR) AS stack WHERE false");
    for (size_t i = 0; i < n; i++) {
        char num[128];
        snprintf(num, sizeof num, "%s(CAST(%llu AS UBIGINT), CAST(%llu AS UBIGINT), ",
                 i ? ",\n  " : "VALUES\n  ", (unsigned long long)crashes[i].instance_id,
                 (unsigned long long)crashes[i].ts);
        em_cstr(b, num);
        em_sql_str(b, crashes[i].stack, strlen(crashes[i].stack));
        em_cstr(b, ")");
    }
    em_cstr(b, n ? "\n) AS s(instance_id, ts_nanos, stack) USING (instance_id, ts_nanos);\n"
                 : ") AS s USING (instance_id, ts_nanos);\n");
}

char *tw_views_ddl(const bb_model *model, const uint64_t *rank, const convert_crash *crashes,
                   size_t ncrashes) {
    bool nul_views = false;
    tw_layout lay;
    if (!tw_layout_build(model, &lay)) return NULL;
    pq_buf b = {0};
    em_cstr(&b, "-- backbeat: one view per event type (the base view `events` is bound to the "
                "Parquet file by OUT.views.sql)\n");
    for (size_t i = 0; i < lay.nplans; i++) {
        const tw_plan *p = &lay.plans[i];
        if (!p->first) continue; /* one view per name, whatever versions */
        em_cstr(&b, "CREATE OR REPLACE VIEW ");
        em_sql_ident(&b, p->display, p->display_len);
        em_cstr(&b, " AS SELECT * FROM events WHERE event = ");
        em_sql_str(&b, p->display, p->display_len);
        em_cstr(&b, ";\n");
    }
    em_cstr(&b, "-- backbeat: the promoted key / span columns and the events that carry them\n");
    em_cstr(&b, "CREATE OR REPLACE VIEW backbeat_keys AS ");
    size_t rows = 0;
    for (size_t i = 0; i < lay.nplans; i++) {
        const tw_plan *p = &lay.plans[i];
        for (size_t f = 0; f < p->schema->field_count; f++) {
            if (!p->map[f].promoted || key_seen(&lay, i, f)) continue;
            em_cstr(&b, rows == 0 ? "SELECT * FROM (VALUES\n  (" : ",\n  (");
            em_sql_str(&b, p->display, p->display_len);
            em_cstr(&b, ", ");
            const char *col = lay.nodes[p->map[f].node].name;
            em_sql_str(&b, col, strlen(col));
            em_cstr(&b, ", ");
            em_sql_str(&b, bb__role_name(p->schema->fields[f].role),
                       strlen(bb__role_name(p->schema->fields[f].role)));
            em_cstr(&b, ")");
            rows++;
        }
    }
    if (rows) em_cstr(&b, "\n) AS t(event, field, role);\n");
    else
        em_cstr(&b, "SELECT CAST(NULL AS VARCHAR) AS event, CAST(NULL AS VARCHAR) AS field, "
                    "CAST(NULL AS VARCHAR) AS role WHERE false;\n");
    log_view(&b, &lay);
    crash_view(&b, &lay, crashes, ncrashes);
    size_t nv = bb_model_view_count(model), ns = 0;
    if (nv) em_cstr(&b, "-- view sets carried by the dumps, verbatim\n");
    size_t *order = malloc((nv ? nv : 1) * sizeof *order);
    if (!order || !em_view_order(model, rank, order, NULL, &ns)) b.failed = true;
    for (size_t k = 0; k < ns && !b.failed; k++) {
        size_t i = order[k];
        bb_strview v = bb_model_view(model, i);
        if (memchr(v.ptr, 0, v.len)) { /* the DDL is one C string: never cut it short */
            if (warned_for != model)
                fprintf(stderr,
                        "backbeat: warning: view set %zu of the inputs contains a NUL byte (at "
                        "byte %zu); it is left out of the views\n",
                        i + 1, (size_t)((const char *)memchr(v.ptr, 0, v.len) - v.ptr));
            nul_views = true;
            continue;
        }
        em_utf8_lossy(&b, (const uint8_t *)v.ptr, v.len);
        if (v.len == 0 || v.ptr[v.len - 1] != '\n') pq_buf_byte(&b, '\n');
        if (!ends_statement(v)) em_cstr(&b, ";\n");
    }
    free(order);
    if (nul_views) warned_for = model;
    pq_buf_byte(&b, 0);
    tw_layout_free(&lay);
    if (b.failed) {
        pq_buf_free(&b);
        return NULL;
    }
    return (char *)b.data;
}
