/* ctf/ctf_meta.c — the trace's `metadata` file: TSDL (CTF 1.8, plain text) declaring the
 * packet header, the clock (nanoseconds since the Unix epoch), the one stream class (packet
 * context naming the process, event header id + timestamp) and one event class per event type
 * with every field typed as its schema says (ctf/ctf_internal.h). */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backbeat/schema.h"
#include "backbeat/version.h"
#include "ctf/ctf_internal.h"
#include "emit/obuf.h"

static const char prologue[] =
    "/* CTF 1.8 */\n"
    "/* backbeat " BB_VERSION_STRING " trace: one stream per (instance, shard); timestamps in\n"
    " * nanoseconds since the Unix epoch; field names that are TSDL keywords or start with '_'\n"
    " * or a digit carry one more leading '_', which CTF readers strip. */\n\n"
    "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
    "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
    "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
    "typealias integer { size = 8; align = 8; signed = true; } := int8_t;\n"
    "typealias integer { size = 16; align = 8; signed = true; } := int16_t;\n"
    "typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
    "typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n\n"
    "trace {\n"
    "\tmajor = 1;\n"
    "\tminor = 8;\n"
    "\tbyte_order = le;\n"
    "\tpacket.header := struct {\n"
    "\t\tuint32_t magic;\n"
    "\t\tuint32_t stream_id;\n"
    "\t};\n"
    "};\n\n";

static const char clock_and_stream[] =
    "clock {\n"
    "\tname = \"backbeat\";\n"
    "\tdescription = \"backbeat record time: nanoseconds since the Unix epoch\";\n"
    "\tfreq = 1000000000;\n"
    "\tprecision = 1;\n"
    "\toffset_s = 0;\n"
    "\toffset = 0;\n"
    "\tabsolute = TRUE;\n"
    "};\n\n"
    "typealias integer { size = 64; align = 8; signed = false; map = clock.backbeat.value; } "
    ":= bb_clock_t;\n\n"
    "stream {\n"
    "\tid = 0;\n"
    "\tpacket.context := struct {\n"
    "\t\tbb_clock_t timestamp_begin;\n"
    "\t\tbb_clock_t timestamp_end;\n"
    "\t\tuint64_t content_size;\n"
    "\t\tuint64_t packet_size;\n"
    "\t\tuint64_t packet_seq_num;\n"
    "\t\tuint64_t instance_id;\n"
    "\t\tuint32_t shard_id;\n"
    "\t\tuint32_t pid;\n"
    "\t\tint64_t os_pid;\n"
    "\t\tstring host;\n"
    "\t};\n"
    "\tevent.header := struct {\n"
    "\t\tuint32_t id;\n"
    "\t\tbb_clock_t timestamp;\n"
    "\t};\n"
    "};\n\n";

/* A TSDL string literal: quotes and backslashes escaped, control bytes as '?' (TSDL has no
 * portable escape for them). */
static void put_literal(em_obuf *b, const char *s, size_t n) {
    em_obuf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') em_obuf_putc(b, '\\');
        em_obuf_putc(b, c < 0x20 || c == 0x7f ? '?' : (char)c);
    }
    em_obuf_putc(b, '"');
}

/* The largest value of an unsigned integer of `width` bytes. */
static uint64_t umax(unsigned width) { return width >= 8 ? UINT64_MAX : (1ull << (8 * width)) - 1; }

static bool int_width(unsigned w) { return w == 1 || w == 2 || w == 4 || w == 8; }

/* An enumeration over uint<width> with the field's labels (those that fit the container). */
static void put_enum(em_obuf *b, const bb_rfield *f) {
    em_obuf_printf(b, "enum : uint%u_t {", f->width * 8u);
    const char *sep = " ";
    for (size_t i = 0; i < f->label_count; i++) {
        if (f->labels[i].value > umax(f->width)) continue;
        em_obuf_puts(b, sep);
        put_literal(b, f->labels[i].label.ptr, f->labels[i].label.len);
        em_obuf_puts(b, " = ");
        em_obuf_u64(b, f->labels[i].value);
        sep = ", ";
    }
    em_obuf_puts(b, " }");
}

static bool has_fitting_label(const bb_rfield *f) {
    for (size_t i = 0; i < f->label_count; i++)
        if (f->labels[i].value <= umax(f->width)) return true;
    return false;
}

/* The type of field `f`, before its name. Returns true when the name needs an array suffix. */
static bool put_type(em_obuf *b, const bb_rfield *f) {
    unsigned w = f->width;
    if (ct_field_is_string(f)) {
        em_obuf_puts(b, "string");
        return false;
    }
    switch (int_width(w) && f->type != BB_TYPE_INTERNED ? f->type : BB_TYPE_BYTES) {
    case BB_TYPE_U8:
    case BB_TYPE_U16:
    case BB_TYPE_U32:
    case BB_TYPE_U64: em_obuf_printf(b, "uint%u_t", w * 8u); return false;
    case BB_TYPE_I8:
    case BB_TYPE_I16:
    case BB_TYPE_I32:
    case BB_TYPE_I64: em_obuf_printf(b, "int%u_t", w * 8u); return false;
    case BB_TYPE_BOOL:
        em_obuf_printf(b, "enum : uint%u_t { \"false\" = 0, \"true\" = 1 ... %llu }", w * 8u,
                       (unsigned long long)umax(w));
        return false;
    case BB_TYPE_ENUM:
        if (has_fitting_label(f)) put_enum(b, f);
        else em_obuf_printf(b, "uint%u_t", w * 8u);
        return false;
    default: em_obuf_puts(b, "uint8_t"); return true;
    }
}

static const char *const role_names[] = {"", "key", "span_id", "parent_span_id"};

/* The field's TSDL name, made unique within its event by a "_<n>" suffix. */
static void field_name(const bb_rschema *s, size_t fi, char *out, size_t cap) {
    ct_field_ident(s->fields[fi].name.ptr, s->fields[fi].name.len, out, cap - 12);
    size_t base = strlen(out);
    for (unsigned n = 2;; n++) {
        bool clash = false;
        char other[256];
        for (size_t j = 0; j < fi && !clash; j++) {
            if (bb_rfield_is_padding(&s->fields[j])) continue;
            field_name(s, j, other, sizeof other);
            clash = !strcmp(other, out);
        }
        if (!clash) return;
        snprintf(out + base, cap - base, "_%u", n);
    }
}

static void put_event(em_obuf *b, const bb_model *model, const ct_event *e) {
    const bb_rschema *s = e->schema;
    const char *name = bb_model_display_name(model, s->id);
    em_obuf_puts(b, "event {\n\tname = ");
    put_literal(b, name, strlen(name));
    em_obuf_printf(b, ";\n\tid = %u;\n\tstream_id = 0;\n\tfields := struct {\n", e->id);
    for (size_t i = 0; i < s->field_count; i++) {
        const bb_rfield *f = &s->fields[i];
        if (bb_rfield_is_padding(f)) continue;
        char id[256];
        field_name(s, i, id, sizeof id);
        em_obuf_puts(b, "\t\t");
        bool array = put_type(b, f);
        em_obuf_printf(b, " %s", id);
        if (array) em_obuf_printf(b, "[%u]", f->width);
        em_obuf_putc(b, ';');
        if (f->role > 0 && f->role < 4) em_obuf_printf(b, " /* role: %s */", role_names[f->role]);
        em_obuf_putc(b, '\n');
    }
    em_obuf_puts(b, "\t};\n};\n\n");
}

static void put_env(em_obuf *b, const bb_model *model, const char *host) {
    em_obuf_printf(b,
                   "env {\n\ttracer_name = \"backbeat\";\n\ttracer_major = %d;\n"
                   "\ttracer_minor = %d;\n\ttracer_patch = %d;\n\tbackbeat_format = 1;\n"
                   "\tbackbeat_instances = %zu;\n",
                   BB_VERSION_MAJOR, BB_VERSION_MINOR, BB_VERSION_PATCH,
                   bb_model_instance_count(model));
    if (host) {
        em_obuf_puts(b, "\thostname = ");
        put_literal(b, host, strlen(host));
        em_obuf_puts(b, ";\n");
    }
    em_obuf_puts(b, "};\n\n");
}

int ct_meta_write(int dir_fd, const bb_model *model, const ct_plan *plan, const char *host) {
    int fd = openat(dir_fd, "metadata", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return errno;
    em_obuf b;
    if (!em_obuf_init(&b, fd, 1 << 16)) {
        close(fd);
        return ENOMEM;
    }
    em_obuf_puts(&b, prologue);
    put_env(&b, model, host);
    em_obuf_puts(&b, clock_and_stream);
    for (size_t i = 0; i < plan->n; i++) put_event(&b, model, &plan->ev[i]);
    int e = em_obuf_finish(&b);
    if (close(fd) != 0 && !e) e = errno;
    return e;
}
