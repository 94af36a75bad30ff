/* global_crash_modules.c — the modules loaded in the process at a crash (path, load bias, span in
 * memory, GNU build-id), read from the dynamic loader's list without its lock.
 *
 * The loader keeps _r_debug.r_map (the list debuggers walk) current at every dlopen and dlclose;
 * walking it takes no lock and allocates nothing, so the list is current at the crash with no
 * work on the dlopen path (dl_iterate_phdr, by contrast, takes the loader's lock, which the
 * crashing thread may hold). A module's ELF header and program headers are read in memory: for
 * a shared object at its load bias (its first PT_LOAD maps the file's start), for the main
 * program from AT_PHDR, noted at install with its path. Every read is guarded: a module being
 * unmapped ends the walk, and what was visited is kept. */
/* SPDX-License-Identifier: MIT */
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "global/global_crash_info.h"

static char g_exe_path[4096];
static const ElfW(Phdr) * g_exe_phdr;
static size_t g_exe_phnum;

void bb__g_modules_prepare(void) {
    if (g_exe_phdr) return;
    ssize_t n = readlink("/proc/self/exe", g_exe_path, sizeof g_exe_path - 1);
    g_exe_path[n > 0 ? n : 0] = '\0';
    g_exe_phnum = (size_t)getauxval(AT_PHNUM);
    g_exe_phdr = (const ElfW(Phdr) *)getauxval(AT_PHDR);
}

/* The build-id of the notes in [p, p + len), into m. */
static void note_build_id(bb__g_module *m, const uint8_t *p, size_t len) {
    size_t off = 0;
    while (off + sizeof(ElfW(Nhdr)) <= len) {
        const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)(p + off);
        size_t name = (nh->n_namesz + 3u) & ~3u, desc = (nh->n_descsz + 3u) & ~3u;
        const uint8_t *body = p + off + sizeof *nh;
        if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(body, "GNU", 4) &&
            nh->n_descsz > 0 && nh->n_descsz <= sizeof m->build_id) {
            memcpy(m->build_id, body + name, nh->n_descsz);
            m->build_id_len = (uint8_t)nh->n_descsz;
            return;
        }
        off += sizeof *nh + name + desc;
    }
}

/* Fill the span and build-id of m from its program headers. */
static void from_phdrs(bb__g_module *m, const ElfW(Phdr) * ph, size_t n) {
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < n; i++) {
        if (ph[i].p_type == PT_LOAD) {
            if (ph[i].p_vaddr < lo) lo = ph[i].p_vaddr;
            if (ph[i].p_vaddr + ph[i].p_memsz > hi) hi = ph[i].p_vaddr + ph[i].p_memsz;
        }
    }
    if (hi > lo) {
        m->start = m->bias + lo;
        m->end = m->bias + hi;
    }
    for (size_t i = 0; i < n && !m->build_id_len; i++)
        if (ph[i].p_type == PT_NOTE)
            note_build_id(m, (const uint8_t *)(uintptr_t)(m->bias + ph[i].p_vaddr), ph[i].p_filesz);
}

/* The main program: its bias from PT_PHDR (AT_PHDR is where its program headers are). */
static void main_program(bb__g_module *m) {
    m->path = g_exe_path;
    if (!g_exe_phdr) return;
    for (size_t i = 0; i < g_exe_phnum; i++)
        if (g_exe_phdr[i].p_type == PT_PHDR)
            m->bias = (uint64_t)(uintptr_t)g_exe_phdr - g_exe_phdr[i].p_vaddr;
    from_phdrs(m, g_exe_phdr, g_exe_phnum);
}

/* A shared object: its ELF header at its bias (checked), its program headers after it. */
static void shared_object(bb__g_module *m, const struct link_map *lm) {
    m->path = lm->l_name;
    m->bias = (uint64_t)lm->l_addr;
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)lm->l_addr;
    if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_phentsize != sizeof(ElfW(Phdr)))
        return;
    from_phdrs(m, (const ElfW(Phdr) *)(lm->l_addr + eh->e_phoff), eh->e_phnum);
}

typedef struct each {
    bool (*fn)(const bb__g_module *m, void *arg);
    void *arg;
    uint32_t n;
} each;

static void walk(void *arg) {
    each *e = arg;
    const struct link_map *lm = _r_debug.r_map;
    for (uint32_t i = 0; lm && i < 4096; lm = lm->l_next, i++) {
        bb__g_module m;
        memset(&m, 0, sizeof m);
        if (i == 0 && (!lm->l_name || !lm->l_name[0])) main_program(&m);
        else shared_object(&m, lm);
        if (!m.path) m.path = "";
        e->n++;
        if (!e->fn(&m, e->arg)) return;
    }
}

uint32_t bb__g_modules_each(bool (*fn)(const bb__g_module *m, void *arg), void *arg) {
    each e = {fn, arg, 0};
    bb__g_crash_guarded(walk, &e);
    return e.n;
}
