/* top_render.c — `backbeat top`'s output for one interval (top.h): a text table (one row per
 * ring file, its events by rate, its shards with --shards) or JSON lines (one object per row,
 * keys documented in docs/man/backbeat.1). Rendering only: the counting is top.c's. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/ring_scan.h"
#include "cli/top.h"

#define NAME_W 40

static const char *state_name(int live) {
    switch (live) {
    case BB_RING_RUNNING: return "running";
    case BB_RING_GONE: return "gone";
    case BB_RING_ORPHAN: return "orphan";
    default: return "unknown";
    }
}

static double per_sec(uint64_t n, uint64_t ns) { return ns ? (double)n * 1e9 / (double)ns : 0.0; }

static const char *base_name(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Bytes the writer wrote on shard i this interval (its cursor's advance). */
static uint64_t shard_bytes(const top_proc *p, uint32_t i) {
    return p->cur[i].head > p->head0[i] ? p->cur[i].head - p->head0[i] : 0;
}

static double shard_fill(const top_proc *p, uint32_t i) {
    uint64_t cap = bb_ring_get_info(p->ring)->capacity, h = p->cur[i].head;
    return cap ? (double)(h < cap ? h : cap) / (double)cap : 0.0;
}

/* Totals over the shards of p: bytes written, bytes lost, fill (held / capacity). */
static void proc_sums(const top_proc *p, uint64_t *bytes, uint64_t *lost, double *fill) {
    uint32_t n = bb_ring_get_info(p->ring)->shards;
    double f = 0;
    *bytes = *lost = 0;
    for (uint32_t i = 0; i < n; i++) {
        *bytes = cli_sat_add(*bytes, shard_bytes(p, i));
        *lost = cli_sat_add(*lost, p->shard_lost[i]);
        f += shard_fill(p, i);
    }
    *fill = n ? f / n : 0.0;
}

static int by_rate(const void *a, const void *b) {
    const top_event *x = a, *y = b;
    if (x->n != y->n) return x->n > y->n ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* ---- JSON lines --------------------------------------------------------------------------- */

static void json_head(em_obuf *b, const top_view *v, const top_proc *p, const char *row) {
    const bb_ring_info *in = bb_ring_get_info(p->ring);
    em_obuf_printf(b, "{\"iteration\":%llu,\"ts_nanos\":", (unsigned long long)v->iteration);
    em_obuf_json_u64(b, v->wall_ns);
    em_obuf_printf(b, ",\"elapsed_nanos\":%llu,\"row\":\"%s\",\"file\":",
                   (unsigned long long)v->elapsed_ns, row);
    em_obuf_json_str(b, p->path, strlen(p->path));
    em_obuf_printf(b, ",\"pid\":%llu,\"instance_id\":\"", (unsigned long long)in->pid);
    em_obuf_hex16(b, in->instance_id);
    em_obuf_putc(b, '"');
}

static void json_proc(em_obuf *b, const top_view *v, const top_proc *p) {
    const bb_ring_info *in = bb_ring_get_info(p->ring);
    const bb_ring_stats *st = bb_ring_get_stats(p->ring);
    uint64_t bytes, lost;
    double fill;
    proc_sums(p, &bytes, &lost, &fill);
    json_head(b, v, p, "process");
    em_obuf_printf(b,
                   ",\"state\":\"%s\",\"records\":%llu,\"records_per_sec\":%.1f,"
                   "\"records_total\":%llu,\"bytes_per_sec\":%.1f,\"lost_bytes\":%llu,"
                   "\"lost_bytes_total\":%llu,\"fill\":%.4f,\"shards\":%u,\"capacity\":%llu,"
                   "\"meta_dropped\":%u,\"meta_skipped\":%zu}\n",
                   state_name(p->live), (unsigned long long)p->n, per_sec(p->n, v->elapsed_ns),
                   (unsigned long long)p->total, per_sec(bytes, v->elapsed_ns),
                   (unsigned long long)lost, (unsigned long long)p->lost_total, fill, in->shards,
                   (unsigned long long)in->capacity, st->meta_dropped, st->meta_skipped);
}

static void json_rows(em_obuf *b, const top_view *v, const top_proc *p) {
    json_proc(b, v, p);
    for (size_t k = 0; k < p->nev; k++) {
        const top_event *e = &p->ev[k];
        json_head(b, v, p, "event");
        em_obuf_puts(b, ",\"event\":");
        em_obuf_json_str(b, e->name, strlen(e->name));
        em_obuf_puts(b, ",\"event_id\":\"");
        em_obuf_hex16(b, e->id);
        em_obuf_printf(b, "\",\"records\":%llu,\"records_per_sec\":%.1f,\"records_total\":%llu}\n",
                       (unsigned long long)e->n, per_sec(e->n, v->elapsed_ns),
                       (unsigned long long)e->total);
    }
    for (uint32_t i = 0; v->shards && i < bb_ring_get_info(p->ring)->shards; i++) {
        json_head(b, v, p, "shard");
        em_obuf_printf(b,
                       ",\"shard\":%u,\"records\":%llu,\"records_per_sec\":%.1f,"
                       "\"bytes_per_sec\":%.1f,\"lost_bytes\":%llu,\"fill\":%.4f,\"head\":%llu}\n",
                       i, (unsigned long long)p->shard_n[i], per_sec(p->shard_n[i], v->elapsed_ns),
                       per_sec(shard_bytes(p, i), v->elapsed_ns),
                       (unsigned long long)p->shard_lost[i], shard_fill(p, i),
                       (unsigned long long)p->cur[i].head);
    }
}

/* ---- text --------------------------------------------------------------------------------- */

typedef struct text_ctx {
    em_obuf *b;
    int left; /* lines still allowed (negative: no limit) */
} text_ctx;

static bool line_ok(text_ctx *t) {
    if (t->left == 0) return false;
    if (t->left > 0) t->left--;
    return true;
}

static void text_header(text_ctx *t, const top_view *v) {
    char when[32] = "";
    time_t s = (time_t)(v->wall_ns / 1000000000u);
    struct tm tm;
    if (localtime_r(&s, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    if (line_ok(t))
        em_obuf_printf(t->b, "backbeat top  %s  interval %.2f s  %zu ring file%s  iteration %llu\n",
                       when, (double)v->elapsed_ns / 1e9, v->nprocs, v->nprocs == 1 ? "" : "s",
                       (unsigned long long)v->iteration);
    if (line_ok(t))
        em_obuf_printf(t->b, "%-*s %8s %-8s %10s %10s %11s %5s %10s %9s\n", NAME_W,
                       "RING FILE / EVENT / SHARD", "PID", "STATE", "REC/S", "RECORDS", "BYTES/S",
                       "FILL", "LOST B", "META DROP");
}

static void text_proc(text_ctx *t, const top_view *v, const top_proc *p) {
    const bb_ring_info *in = bb_ring_get_info(p->ring);
    uint64_t bytes, lost;
    double fill;
    proc_sums(p, &bytes, &lost, &fill);
    if (!line_ok(t)) return;
    em_obuf_printf(t->b, "%-*.*s %8llu %-8s %10.0f %10llu %11.0f %4.0f%% %10llu %9u\n", NAME_W,
                   NAME_W, base_name(p->path), (unsigned long long)in->pid, state_name(p->live),
                   per_sec(p->n, v->elapsed_ns), (unsigned long long)p->n,
                   per_sec(bytes, v->elapsed_ns), fill * 100, (unsigned long long)lost,
                   bb_ring_get_stats(p->ring)->meta_dropped);
}

static void text_rows(text_ctx *t, const top_view *v, const top_proc *p) {
    text_proc(t, v, p);
    for (size_t k = 0; k < p->nev && line_ok(t); k++)
        em_obuf_printf(t->b, "  %-*.*s %8s %-8s %10.0f %10llu\n", NAME_W - 2, NAME_W - 2,
                       p->ev[k].name, "", "", per_sec(p->ev[k].n, v->elapsed_ns),
                       (unsigned long long)p->ev[k].n);
    for (uint32_t i = 0; v->shards && i < bb_ring_get_info(p->ring)->shards && line_ok(t); i++)
        em_obuf_printf(t->b, "  shard %-*u %8s %-8s %10.0f %10llu %11.0f %4.0f%% %10llu\n",
                       NAME_W - 8, i, "", "", per_sec(p->shard_n[i], v->elapsed_ns),
                       (unsigned long long)p->shard_n[i], per_sec(shard_bytes(p, i), v->elapsed_ns),
                       shard_fill(p, i) * 100, (unsigned long long)p->shard_lost[i]);
}

void cli_top_render(em_obuf *b, const top_view *v) {
    text_ctx t = {b, v->rows > 0 ? v->rows : -1};
    if (!v->jsonl) text_header(&t, v);
    for (size_t i = 0; i < v->nprocs; i++) {
        top_proc *p = &v->procs[i];
        if (!p->ring) continue;
        if (p->nev) qsort(p->ev, p->nev, sizeof *p->ev, by_rate);
        if (v->jsonl) json_rows(b, v, p);
        else text_rows(&t, v, p);
    }
    if (!v->jsonl && v->nprocs == 0 && line_ok(&t)) em_obuf_puts(b, "(no ring file yet)\n");
}
