/* symbolize.c — a crash's frames symbolized from module files with elfutils' libdw: the module
 * holding each address, the function (symbol table) and the file and line (DWARF) when a file
 * with the recorded build-id is found, else the module and offset alone. */
/* SPDX-License-Identifier: MIT */
#ifdef BB_HAVE_LIBDW
#include <elfutils/libdwfl.h>
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/symbols.h"

/* One module file opened (or looked for and not found), keyed by path and build-id. */
typedef struct sy_open {
    char *path;
    uint8_t build_id[32];
    uint8_t build_id_len;
    void *dwfl; /* a Dwfl; NULL: no matching file */
    void *mod;  /* its Dwfl_Module */
} sy_open;

struct sy_symbolizer {
    char *dir;
    sy_open *open;
    size_t n, cap;
};

sy_symbolizer *sy_symbolizer_new(const char *symbols_dir) {
    sy_symbolizer *s = calloc(1, sizeof *s);
    if (s && symbols_dir && !(s->dir = strdup(symbols_dir))) {
        free(s);
        return NULL;
    }
    return s;
}

void sy_symbolizer_free(sy_symbolizer *s) {
    if (!s) return;
    for (size_t i = 0; i < s->n; i++) {
#ifdef BB_HAVE_LIBDW
        if (s->open[i].dwfl) dwfl_end(s->open[i].dwfl);
#endif
        free(s->open[i].path);
    }
    free(s->open);
    free(s->dir);
    free(s);
}

#ifdef BB_HAVE_LIBDW
static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
};

/* `file` reported at file addresses (bias 0) if its build-id is the module's (or none was
 * recorded). */
static bool try_file(sy_open *o, const char *file) {
    if (access(file, R_OK) != 0) return false;
    Dwfl *d = dwfl_begin(&callbacks);
    if (!d) return false;
    dwfl_report_begin(d);
    Dwfl_Module *m = dwfl_report_elf(d, file, file, -1, 0, false);
    dwfl_report_end(d, NULL, NULL);
    const unsigned char *bits = NULL;
    GElf_Addr vaddr;
    int len = m ? dwfl_module_build_id(m, &bits, &vaddr) : -1;
    if (!m || (o->build_id_len && (len != o->build_id_len || memcmp(bits, o->build_id, len)))) {
        dwfl_end(d);
        return false;
    }
    o->dwfl = d;
    o->mod = m;
    return true;
}
#else
static bool try_file(sy_open *o, const char *file) {
    (void)o;
    (void)file;
    return false;
}
#endif

static void hex(char *out, const uint8_t *b, size_t n) {
    for (size_t i = 0; i < n; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
    out[2 * n] = '\0';
}

/* Look for the module's file: in the symbols directory first (by build-id, then by name), then
 * at its recorded path. */
static void find_file(const sy_symbolizer *s, sy_open *o) {
    const char *base = strrchr(o->path, '/');
    base = base ? base + 1 : o->path;
    char id[65], p[4096];
    hex(id, o->build_id, o->build_id_len);
    if (s->dir) {
        if (o->build_id_len > 1) {
            snprintf(p, sizeof p, "%s/.build-id/%.2s/%s.debug", s->dir, id, id + 2);
            if (try_file(o, p)) return;
            snprintf(p, sizeof p, "%s/%s.debug", s->dir, id);
            if (try_file(o, p)) return;
        }
        snprintf(p, sizeof p, "%s/%s.debug", s->dir, base);
        if (try_file(o, p)) return;
        snprintf(p, sizeof p, "%s/%s", s->dir, base);
        if (try_file(o, p)) return;
    }
    if (o->path[0] == '/') try_file(o, o->path);
}

/* The open file of module m (opened on first use); NULL on allocation failure. */
static sy_open *open_of(sy_symbolizer *s, const sy_module *m) {
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->open[i].path, m->path) && s->open[i].build_id_len == m->build_id_len &&
            !memcmp(s->open[i].build_id, m->build_id, m->build_id_len))
            return &s->open[i];
    if (s->n == s->cap) {
        size_t c = s->cap ? 2 * s->cap : 8;
        sy_open *q = realloc(s->open, c * sizeof *q);
        if (!q) return NULL;
        s->open = q;
        s->cap = c;
    }
    sy_open *o = &s->open[s->n];
    memset(o, 0, sizeof *o);
    if (!(o->path = strdup(m->path))) return NULL;
    memcpy(o->build_id, m->build_id, m->build_id_len);
    o->build_id_len = m->build_id_len;
    find_file(s, o);
    s->n++;
    return o;
}

/* Function and line at file address a. */
static void lookup(sy_open *o, uint64_t a, sy_frame *f) {
#ifndef BB_HAVE_LIBDW
    (void)o;
    (void)a;
    (void)f;
#else
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *name = dwfl_module_addrinfo(o->mod, a, &off, &sym, NULL, NULL, NULL);
    if (name) {
        f->has_function = true;
        snprintf(f->function, sizeof f->function, "%s", name);
        f->function_offset = off;
    }
    Dwfl_Line *line = dwfl_module_getsrc(o->mod, a);
    int lineno = 0;
    const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
    if (file && lineno > 0) {
        f->has_line = true;
        snprintf(f->file, sizeof f->file, "%s", file);
        f->line = lineno;
    }
#endif
}

void sy_frame_resolve(sy_symbolizer *s, const sy_crash *c, uint32_t i, sy_frame *f) {
    memset(f, 0, sizeof *f);
    f->module_name = "?";
    f->addr = c->frames[i];
    uint64_t a = i == 0 || f->addr == 0 ? f->addr : f->addr - 1; /* a caller's call */
    f->offset = a;
    for (size_t m = 0; m < c->nmodules; m++) {
        const sy_module *mod = &c->modules[m];
        if (a < mod->start || a >= mod->end) continue;
        f->module = mod;
        const char *base = strrchr(mod->path, '/');
        f->module_name = base ? base + 1 : mod->path;
        f->offset = a - mod->bias;
        hex(f->build_id, mod->build_id, mod->build_id_len);
        sy_open *o = open_of(s, mod);
        if (o && o->dwfl) lookup(o, f->offset, f);
        return;
    }
}

size_t sy_frame_text(const sy_frame *f, char *buf, size_t cap) {
    int n;
    if (!f->module) n = snprintf(buf, cap, "0x%llx", (unsigned long long)f->addr);
    else if (!f->has_function)
        n = snprintf(buf, cap, "%s+0x%llx [%s]", f->module_name, (unsigned long long)f->offset,
                     f->build_id[0] ? f->build_id : "no build-id");
    else
        n = snprintf(buf, cap, "%s+0x%llx (%s+0x%llx)", f->function,
                     (unsigned long long)f->function_offset, f->module_name,
                     (unsigned long long)f->offset);
    if (n > 0 && f->has_line && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, " %s:%d", f->file, f->line);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}
