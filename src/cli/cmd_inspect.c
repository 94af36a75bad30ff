/* inspect.c — `backbeat inspect DUMP...`: what a dump holds, as text or (--json) as JSON.
 *
 * A crash dump's crash comes first (signal, code, address, thread, the symbolized stack and the
 * modules, cli/inspect_crash.c). Then the envelope (size, flags, section table), the schema registry (every event and
 * field with type, unit, sentinel and role), the instances (id, host, intern entries, and per
 * shard: capacity, head, records recovered and bytes skipped by the walk as torn or unknown) and
 * the view sets (count, sizes), and for a dump a trigger rule took, the rule and the matching
 * record (its backbeat::Trigger records, inspect_trigger.c). JSON follows the golden vectors' conventions: ids as 16-digit
 * hex strings, integers above 2^53 as decimal strings.
 */
/* SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/inspect_trigger.h"
#include "cli/inspect_crash.h"
#include "format/names.h"

static const char inspect_help[] =
    "usage: backbeat inspect [--json] [--symbols DIR] DUMP...\n"
    "\n"
    "Show what a dump holds: first its crash if it is a crash dump (signal, code, address,\n"
    "thread, the stack as '#N function+0xOFF (module+0xOFF) file:line', symbolized from the\n"
    "module files whose build-id matches, else 'module+0xOFF [build-id]', and the modules), then\n"
    "the envelope (size, flags, sections), the schema registry (every\n"
    "event and field: type, unit, sentinel, role), the instances (id, host, OS pid, program and\n"
    "start time when the dump carries them, intern entries), the\n"
    "view sets, and per shard the capacity, head, records recovered and bytes skipped as torn or\n"
    "unknown. A dump a trigger rule took (BACKBEAT_TRIGGER) also shows why: the rule, the\n"
    "matching record's event, timestamp, shard and span id, and the after-window.\n"
    "\n"
    "options:\n"
    "  --json         print JSON (one object per dump; an array when several dumps are given)\n"
    "  --intern-limit N  text mode: list at most N intern entries per instance (default 20)\n"
    "  --symbols DIR  look for the crashed modules' files there first: unstripped copies (by\n"
    "                 name) or separate debug files (BUILDID.debug, .build-id/xx/yyyy.debug,\n"
    "                 NAME.debug)\n"
    "  -h, --help     show this help\n";

/* The field type's name; "?" for a type the format does not define (format/names.h leaves
 * that placeholder to the caller: convert's column document says "unknown"). */
static const char *type_name(uint8_t t) {
    const char *n = bb__type_name(t);
    return n ? n : "?";
}

static int count_record(const bb_record *rec, void *ctx) {
    (void)rec;
    (void)ctx;
    return 0;
}

/* Indent every line of a (possibly multi-line) description. */
static void text_desc(em_obuf *b, const char *indent, bb_strview s) {
    size_t start = 0;
    for (size_t i = 0; i <= s.len; i++) {
        if (i == s.len || s.ptr[i] == '\n') {
            em_obuf_puts(b, indent);
            em_obuf_write(b, s.ptr + start, i - start);
            em_obuf_putc(b, '\n');
            start = i + 1;
        }
    }
}

/* The envelope and the section table. */
static void text_envelope(em_obuf *b, const bb_dump *d) {
    uint16_t flags = bb_dump_flags(d);
    em_obuf_printf(b, "dump %s\n", bb_dump_name(d));
    em_obuf_printf(b, "  size %llu bytes, format %u, flags 0x%04x%s, %u sections\n",
                   (unsigned long long)bb_dump_file_size(d), bb_dump_format_version(d), flags,
                   (flags & 1) ? " (little-endian)" : "", bb_dump_section_count(d));
    for (size_t i = 0; i < bb_dump_section_count(d); i++) {
        uint16_t kind;
        uint64_t off, len;
        bb_dump_section(d, i, &kind, &off, &len);
        em_obuf_printf(b, "    section %zu: %-7s (kind %u) offset %llu, %llu bytes\n", i,
                       bb__section_kind_name(kind), kind, (unsigned long long)off,
                       (unsigned long long)len);
    }
}

/* One field of the registry: name, type, offset, role, unit, sentinel, labels. */
static void text_field(em_obuf *b, const bb_rfield *fd) {
    char type[32];
    if (fd->type == BB_TYPE_ENUM) snprintf(type, sizeof type, "enum/%u", fd->type_arg);
    else if (fd->type == BB_TYPE_INTERNED)
        snprintf(type, sizeof type, "interned%s", fd->type_arg ? "/dynamic" : "");
    else if (fd->type == BB_TYPE_BYTES) snprintf(type, sizeof type, "bytes[%u]", fd->width);
    else snprintf(type, sizeof type, "%s", type_name(fd->type));
    em_obuf_printf(b, "    %-20.*s %-16s @%u", (int)fd->name.len, fd->name.ptr, type, fd->offset);
    if (fd->role) em_obuf_printf(b, "  [%s]", bb__role_name(fd->role));
    if (bb_rfield_is_padding(fd)) em_obuf_puts(b, "  [padding]");
    if (fd->has_unit) em_obuf_printf(b, "  unit %.*s", (int)fd->unit.len, fd->unit.ptr);
    if (fd->has_sentinel) em_obuf_printf(b, "  sentinel 0x%llx", (unsigned long long)fd->sentinel);
    if (fd->label_count) em_obuf_printf(b, "  %zu labels", fd->label_count);
    em_obuf_putc(b, '\n');
    if (fd->has_description) text_desc(b, "        ", fd->description);
    for (size_t l = 0; l < fd->label_count; l++) {
        em_obuf_printf(b, "        = %llu ", (unsigned long long)fd->labels[l].value);
        em_obuf_json_str(b, fd->labels[l].label.ptr, fd->labels[l].label.len);
        em_obuf_putc(b, '\n');
    }
}

/* The schema registry: every event and its fields. */
static void text_registry(em_obuf *b, const bb_dump *d) {
    size_t ns = bb_dump_schema_count(d);
    em_obuf_printf(b, "\nregistry: %zu event%s\n", ns, ns == 1 ? "" : "s");
    for (size_t i = 0; i < ns; i++) {
        const bb_rschema *s = bb_dump_schema(d, i);
        em_obuf_puts(b, "  ");
        em_obuf_hex16(b, s->id);
        em_obuf_printf(b, "  %.*s  (%u bytes%s%s)\n", (int)s->name.len, s->name.ptr, s->record_size,
                       s->phase ? ", span " : "", s->phase ? bb__phase_name(s->phase) : "");
        if (s->has_description) text_desc(b, "      ", s->description);
        for (size_t f = 0; f < s->field_count; f++) text_field(b, &s->fields[f]);
    }
}

/* One instance: id, host, intern entries (at most intern_limit), and its shards as walked. */
static void text_instance(em_obuf *b, const bb_dump *d, const bb_rinstance *in,
                          size_t intern_limit) {
    em_obuf_puts(b, "  instance ");
    em_obuf_hex16(b, in->instance_id);
    em_obuf_puts(b, "  host ");
    em_obuf_json_str(b, in->host.ptr, in->host.len);
    em_obuf_printf(b, "%s", in->has_meta ? "" : " (no meta section)");
    if (in->has_process) {
        em_obuf_printf(b, "  pid %llu  program ", (unsigned long long)in->pid);
        em_obuf_json_str(b, in->program.ptr, in->program.len);
        if (in->start_ns) {
            time_t secs = (time_t)(in->start_ns / 1000000000u);
            struct tm tm;
            char when[32];
            if (gmtime_r(&secs, &tm) && strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm))
                em_obuf_printf(b, "  started %s", when);
        }
    } else {
        em_obuf_puts(b, "  pid unknown (no process section)");
    }
    em_obuf_putc(b, '\n');
    em_obuf_printf(b, "    intern: %zu entr%s%s\n", in->intern_count,
                   in->intern_count == 1 ? "y" : "ies",
                   in->intern_count && in->intern[0].id == 0
                       ? " (table FULL: strings were refused; the program's stderr said why and "
                         "whether a larger BACKBEAT_INTERN_LIMIT helps)"
                       : "");
    for (size_t k = 0; k < in->intern_count && k < intern_limit; k++) {
        em_obuf_printf(b, "      %u ", in->intern[k].id);
        em_obuf_json_str(b, in->intern[k].bytes.ptr, in->intern[k].bytes.len);
        em_obuf_putc(b, '\n');
    }
    if (in->intern_count > intern_limit)
        em_obuf_printf(b, "      ... %zu more\n", in->intern_count - intern_limit);
    em_obuf_printf(b, "    shards: %zu\n", in->shard_count);
    for (size_t k = 0; k < in->shard_count; k++) {
        const bb_rshard *sh = &in->shards[k];
        bb_walk_stats st = {0, 0};
        bb_shard_walk(d, sh, count_record, NULL, &st);
        em_obuf_printf(b,
                       "      shard %u: capacity %llu, head %llu, %llu records, %llu bytes "
                       "skipped\n",
                       sh->shard_id, (unsigned long long)sh->capacity, (unsigned long long)sh->head,
                       (unsigned long long)st.records, (unsigned long long)st.skipped_bytes);
    }
}

static void inspect_text(em_obuf *b, const bb_dump *d, size_t intern_limit, sy_symbolizer *sym) {
    cli_inspect_crashes(b, d, sym, false);
    text_envelope(b, d);
    text_registry(b, d);
    size_t ni = bb_dump_instance_count(d);
    em_obuf_printf(b, "\ninstances: %zu\n", ni);
    for (size_t i = 0; i < ni; i++) text_instance(b, d, bb_dump_instance(d, i), intern_limit);
    size_t nv = bb_dump_view_count(d);
    em_obuf_printf(b, "\nviews: %zu set%s\n", nv, nv == 1 ? "" : "s");
    for (size_t i = 0; i < nv; i++)
        em_obuf_printf(b, "  view set %zu: %zu bytes\n", i, bb_dump_view(d, i).len);
    /* why the dump was taken, when a trigger rule took it (backbeat/trigger.h) */
    size_t nt = cli_inspect_triggers(NULL, d, false);
    if (nt) {
        em_obuf_printf(b, "\ntriggers: %zu\n", nt);
        cli_inspect_triggers(b, d, false);
    }
}

static void json_key(em_obuf *b, const char *k) {
    em_obuf_putc(b, '"');
    em_obuf_puts(b, k);
    em_obuf_puts(b, "\":");
}
static void json_hex(em_obuf *b, uint64_t v) {
    em_obuf_putc(b, '"');
    em_obuf_hex16(b, v);
    em_obuf_putc(b, '"');
}
static void json_optstr(em_obuf *b, bool has, bb_strview s) {
    if (has) em_obuf_json_str(b, s.ptr, s.len);
    else em_obuf_puts(b, "null");
}

/* "file" ... "sections": the envelope and the section table. */
static void json_envelope(em_obuf *b, const bb_dump *d) {
    const char *name = bb_dump_name(d);
    json_key(b, "file");
    em_obuf_json_str(b, name, strlen(name));
    em_obuf_putc(b, ',');
    json_key(b, "size");
    em_obuf_json_u64(b, bb_dump_file_size(d));
    em_obuf_printf(b,
                   ",\"format_version\":%u,\"flags\":%u,\"little_endian\":%s,"
                   "\"section_count\":%u,\"sections\":[",
                   bb_dump_format_version(d), bb_dump_flags(d),
                   (bb_dump_flags(d) & 1) ? "true" : "false", bb_dump_section_count(d));
    for (size_t i = 0; i < bb_dump_section_count(d); i++) {
        uint16_t kind;
        uint64_t off, len;
        bb_dump_section(d, i, &kind, &off, &len);
        em_obuf_printf(b, "%s{\"kind\":%u,\"kind_name\":\"%s\",\"offset\":", i ? "," : "", kind,
                       bb__section_kind_name(kind));
        em_obuf_json_u64(b, off);
        em_obuf_puts(b, ",\"len\":");
        em_obuf_json_u64(b, len);
        em_obuf_putc(b, '}');
    }
    em_obuf_putc(b, ']');
}

/* One field of the registry as a JSON object. */
static void json_field(em_obuf *b, const bb_rfield *fd) {
    em_obuf_puts(b, "{\"name\":");
    em_obuf_json_str(b, fd->name.ptr, fd->name.len);
    em_obuf_puts(b, ",\"description\":");
    json_optstr(b, fd->has_description, fd->description);
    em_obuf_printf(b, ",\"type\":\"%s\"", type_name(fd->type));
    if (fd->type == BB_TYPE_ENUM) em_obuf_printf(b, ",\"repr\":%u", fd->type_arg);
    if (fd->type == BB_TYPE_INTERNED)
        em_obuf_printf(b, ",\"dynamic\":%s", fd->type_arg ? "true" : "false");
    em_obuf_printf(
        b, ",\"offset\":%u,\"width\":%u,\"role\":\"%s\",\"padding\":%s,\"unit\":", fd->offset,
        fd->width, bb__role_name(fd->role), bb_rfield_is_padding(fd) ? "true" : "false");
    json_optstr(b, fd->has_unit, fd->unit);
    em_obuf_puts(b, ",\"sentinel\":");
    if (fd->has_sentinel) em_obuf_json_u64(b, fd->sentinel);
    else em_obuf_puts(b, "null");
    em_obuf_puts(b, ",\"labels\":[");
    for (size_t l = 0; l < fd->label_count; l++) {
        if (l) em_obuf_putc(b, ',');
        em_obuf_puts(b, "{\"value\":");
        em_obuf_json_u64(b, fd->labels[l].value);
        em_obuf_puts(b, ",\"label\":");
        em_obuf_json_str(b, fd->labels[l].label.ptr, fd->labels[l].label.len);
        em_obuf_putc(b, '}');
    }
    em_obuf_puts(b, "]}");
}

/* "registry": every event and its fields. */
static void json_registry(em_obuf *b, const bb_dump *d) {
    em_obuf_puts(b, "\"registry\":[");
    for (size_t i = 0; i < bb_dump_schema_count(d); i++) {
        const bb_rschema *s = bb_dump_schema(d, i);
        if (i) em_obuf_putc(b, ',');
        em_obuf_puts(b, "{\"id\":");
        json_hex(b, s->id);
        em_obuf_puts(b, ",\"name\":");
        em_obuf_json_str(b, s->name.ptr, s->name.len);
        em_obuf_puts(b, ",\"description\":");
        json_optstr(b, s->has_description, s->description);
        em_obuf_printf(b, ",\"record_size\":%u,\"phase\":\"%s\",\"fields\":[", s->record_size,
                       bb__phase_name(s->phase));
        for (size_t f = 0; f < s->field_count; f++) {
            if (f) em_obuf_putc(b, ',');
            json_field(b, &s->fields[f]);
        }
        em_obuf_puts(b, "]}");
    }
    em_obuf_putc(b, ']');
}

/* One instance's shards as walked, "shards":[...]; returns the records recovered. */
static uint64_t json_shards(em_obuf *b, const bb_dump *d, const bb_rinstance *in) {
    em_obuf_puts(b, "\"shards\":[");
    uint64_t total = 0;
    for (size_t k = 0; k < in->shard_count; k++) {
        const bb_rshard *sh = &in->shards[k];
        bb_walk_stats st = {0, 0};
        bb_shard_walk(d, sh, count_record, NULL, &st);
        total += st.records;
        em_obuf_printf(b, "%s{\"shard_id\":%u,\"capacity\":", k ? "," : "", sh->shard_id);
        em_obuf_json_u64(b, sh->capacity);
        em_obuf_puts(b, ",\"head\":");
        em_obuf_json_u64(b, sh->head);
        em_obuf_puts(b, ",\"records\":");
        em_obuf_json_u64(b, st.records);
        em_obuf_puts(b, ",\"skipped_bytes\":");
        em_obuf_json_u64(b, st.skipped_bytes);
        em_obuf_putc(b, '}');
    }
    em_obuf_putc(b, ']');
    return total;
}

/* One instance as a JSON object: id, host, intern entries, shards, record count. */
static void json_instance(em_obuf *b, const bb_dump *d, const bb_rinstance *in) {
    em_obuf_puts(b, "{\"instance_id\":");
    json_hex(b, in->instance_id);
    em_obuf_puts(b, ",\"host\":");
    em_obuf_json_str(b, in->host.ptr, in->host.len);
    em_obuf_printf(b, ",\"has_meta\":%s,\"pid\":", in->has_meta ? "true" : "false");
    if (in->has_process) em_obuf_json_u64(b, in->pid);
    else em_obuf_puts(b, "null");
    em_obuf_puts(b, ",\"start_ns\":");
    if (in->has_process && in->start_ns) em_obuf_json_u64(b, in->start_ns);
    else em_obuf_puts(b, "null");
    em_obuf_puts(b, ",\"program\":");
    json_optstr(b, in->has_process && in->program.len, in->program);
    em_obuf_puts(b, ",\"intern\":[");
    for (size_t k = 0; k < in->intern_count; k++) {
        em_obuf_printf(b, "%s{\"id\":%u,\"value\":", k ? "," : "", in->intern[k].id);
        em_obuf_json_str(b, in->intern[k].bytes.ptr, in->intern[k].bytes.len);
        em_obuf_putc(b, '}');
    }
    em_obuf_puts(b, "],");
    uint64_t total = json_shards(b, d, in);
    em_obuf_puts(b, ",\"record_count\":");
    em_obuf_json_u64(b, total);
    em_obuf_putc(b, '}');
}

static void inspect_json(em_obuf *b, const bb_dump *d, sy_symbolizer *sym) {
    em_obuf_putc(b, '{');
    cli_inspect_crashes(b, d, sym, true);
    json_envelope(b, d);
    em_obuf_putc(b, ',');
    json_registry(b, d);
    em_obuf_puts(b, ",\"instances\":[");
    for (size_t i = 0; i < bb_dump_instance_count(d); i++) {
        if (i) em_obuf_putc(b, ',');
        json_instance(b, d, bb_dump_instance(d, i));
    }
    em_obuf_printf(b, "],\"view_count\":%zu,\"views\":[", bb_dump_view_count(d));
    for (size_t i = 0; i < bb_dump_view_count(d); i++)
        em_obuf_printf(b, "%s{\"size\":%zu}", i ? "," : "", bb_dump_view(d, i).len);
    em_obuf_puts(b, "]");
    if (cli_inspect_triggers(NULL, d, true)) { /* only in a dump a trigger rule took */
        em_obuf_puts(b, ",\"triggers\":[");
        cli_inspect_triggers(b, d, true);
        em_obuf_putc(b, ']');
    }
    em_obuf_puts(b, "}");
}

/* `backbeat inspect`: see inspect_help. */
int cmd_inspect(int argc, char **argv) {
    static const struct option opts[] = {{"json", no_argument, NULL, 'j'},
                                         {"intern-limit", required_argument, NULL, 'l'},
                                         {"symbols", required_argument, NULL, 's'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    bool json = false;
    int intern_limit = 20;
    const char *symbols = NULL;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 'l':
            if (!cli_parse_int(optarg, 0, 1000000000L, &intern_limit))
                return cli_usage_error("inspect", "--intern-limit needs a count, got '%s'", optarg);
            break;
        case 's': symbols = optarg; break;
        case 'h': fputs(inspect_help, stdout); return CLI_OK;
        default: return cli_option_error("inspect", c, argv);
        }
    }
    int n = argc - optind;
    if (n < 1) return cli_usage_error("inspect", "no dump given");

    em_obuf b;
    sy_symbolizer *sym = sy_symbolizer_new(symbols);
    if (!sym || !em_obuf_init(&b, STDOUT_FILENO, 1 << 16)) {
        sy_symbolizer_free(sym);
        cli_error("out of memory");
        return CLI_FAIL;
    }
    int status = CLI_OK;
    if (json && n > 1) em_obuf_putc(&b, '[');
    for (int i = 0; i < n; i++) {
        const char *path = argv[optind + i];
        bb_dump **dumps = NULL;
        em_obuf_flush(&b); /* keep output ordered with error messages */
        if (!cli_open_dumps((char *const *)&argv[optind + i], 1, &dumps)) {
            status = CLI_FAIL;
            if (json && n > 1) em_obuf_puts(&b, i ? ",null" : "null");
            continue;
        }
        (void)path;
        if (json) {
            if (n > 1 && i) em_obuf_putc(&b, ',');
            inspect_json(&b, dumps[0], sym);
        } else {
            if (i) em_obuf_putc(&b, '\n');
            inspect_text(&b, dumps[0], (size_t)intern_limit, sym);
        }
        cli_close_dumps(dumps, 1);
    }
    if (json && n > 1) em_obuf_putc(&b, ']');
    if (json) em_obuf_putc(&b, '\n');
    sy_symbolizer_free(sym);
    int werr = em_obuf_finish(&b);
    if (werr) {
        cli_error("cannot write standard output: %s", strerror(werr));
        return CLI_FAIL;
    }
    return status;
}
