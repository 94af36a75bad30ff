/* inspect_crash.c — `backbeat inspect`'s crash section: each backbeat::Crash of a dump with the
 * fault, the thread, its frames symbolized (symbols/) and the modules, as text or JSON. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "cli/cli_util.h"
#include "cli/inspect_crash.h"

static void text_crash(em_obuf *b, const sy_crash *c, sy_symbolizer *sym) {
    em_obuf_printf(b, "crash: %s (%s, code %d) at address 0x%llx, thread %u ",
                   sy_signal_name(c->sig), sy_code_name(c->sig, c->code), c->code,
                   (unsigned long long)c->addr, c->tid);
    em_obuf_json_str(b, c->thread, strlen(c->thread));
    em_obuf_printf(b, "%s\n", c->unwind_fault ? " (the stack walk faulted: frames so far)" : "");
    for (uint32_t i = 0; i < c->nframes; i++) {
        sy_frame f;
        char line[1024];
        sy_frame_resolve(sym, c, i, &f);
        sy_frame_text(&f, line, sizeof line);
        em_obuf_printf(b, "  #%u %s\n", i, line);
    }
    em_obuf_printf(b, "  modules: %zu\n", c->nmodules);
    for (size_t m = 0; m < c->nmodules; m++) {
        const sy_module *mod = &c->modules[m];
        em_obuf_printf(b, "    0x%llx-0x%llx %s [", (unsigned long long)mod->start,
                       (unsigned long long)mod->end, mod->path);
        for (unsigned k = 0; k < mod->build_id_len; k++)
            em_obuf_printf(b, "%02x", mod->build_id[k]);
        em_obuf_puts(b, "]\n");
    }
}

static void json_frame(em_obuf *b, const sy_frame *f) {
    char text[1024];
    sy_frame_text(f, text, sizeof text);
    em_obuf_printf(b, "{\"addr\":\"0x%llx\",\"module\":", (unsigned long long)f->addr);
    if (f->module) em_obuf_json_str(b, f->module->path, strlen(f->module->path));
    else em_obuf_puts(b, "null");
    em_obuf_printf(b, ",\"offset\":\"0x%llx\",\"build_id\":\"%s\",\"function\":",
                   (unsigned long long)f->offset, f->build_id);
    if (f->has_function) em_obuf_json_str(b, f->function, strlen(f->function));
    else em_obuf_puts(b, "null");
    em_obuf_printf(b,
                   ",\"function_offset\":%llu,\"file\":", (unsigned long long)f->function_offset);
    if (f->has_line) em_obuf_json_str(b, f->file, strlen(f->file));
    else em_obuf_puts(b, "null");
    em_obuf_printf(b, ",\"line\":%d,\"text\":", f->has_line ? f->line : 0);
    em_obuf_json_str(b, text, strlen(text));
    em_obuf_putc(b, '}');
}

static void json_crash(em_obuf *b, const sy_crash *c, sy_symbolizer *sym) {
    em_obuf_printf(b,
                   "{\"signal\":%d,\"signal_name\":\"%s\",\"code\":%d,\"code_name\":\"%s\","
                   "\"addr\":\"0x%llx\",\"tid\":%u,\"thread\":",
                   c->sig, sy_signal_name(c->sig), c->code, sy_code_name(c->sig, c->code),
                   (unsigned long long)c->addr, c->tid);
    em_obuf_json_str(b, c->thread, strlen(c->thread));
    em_obuf_printf(b, ",\"unwind_fault\":%s,\"frames\":[", c->unwind_fault ? "true" : "false");
    for (uint32_t i = 0; i < c->nframes; i++) {
        sy_frame f;
        sy_frame_resolve(sym, c, i, &f);
        if (i) em_obuf_putc(b, ',');
        json_frame(b, &f);
    }
    em_obuf_puts(b, "],\"modules\":[");
    for (size_t m = 0; m < c->nmodules; m++) {
        const sy_module *mod = &c->modules[m];
        em_obuf_printf(b, "%s{\"path\":", m ? "," : "");
        em_obuf_json_str(b, mod->path, strlen(mod->path));
        em_obuf_printf(
            b, ",\"start\":\"0x%llx\",\"end\":\"0x%llx\",\"bias\":\"0x%llx\",\"build_id\":\"",
            (unsigned long long)mod->start, (unsigned long long)mod->end,
            (unsigned long long)mod->bias);
        for (unsigned k = 0; k < mod->build_id_len; k++)
            em_obuf_printf(b, "%02x", mod->build_id[k]);
        em_obuf_puts(b, "\"}");
    }
    em_obuf_puts(b, "]}");
}

bool cli_inspect_crashes(em_obuf *b, const bb_dump *d, sy_symbolizer *sym, bool json) {
    sy_crash *cs = NULL;
    size_t n = 0;
    bb_error err;
    if (sy_crashes_read(d, &cs, &n, &err) != BB_OK) {
        cli_error("%s", err.message);
        return false;
    }
    if (n && json) em_obuf_puts(b, "\"crashes\":[");
    for (size_t i = 0; i < n; i++) {
        if (json) {
            if (i) em_obuf_putc(b, ',');
            json_crash(b, &cs[i], sym);
        } else {
            text_crash(b, &cs[i], sym);
            em_obuf_putc(b, '\n');
        }
    }
    if (n && json) em_obuf_puts(b, "],");
    sy_crashes_free(cs, n);
    return true;
}
