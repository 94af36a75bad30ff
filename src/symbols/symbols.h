/* symbols.h — where a crash happened: the crashes a dump records (backbeat::Crash with the
 * backbeat::Module records of its instance) and their stacks symbolized on the reading host.
 *
 * A frame is symbolized from its module's file when the file's GNU build-id is the recorded one
 * (elfutils' libdw: the symbol table for the function, DWARF for file and line); a --symbols
 * directory is searched first for unstripped copies and separate debug files (by build-id or by
 * name). A frame whose module file is missing or another build still shows its module and
 * offset (and the build-id), which `addr2line -e MODULE OFFSET` resolves later. The offset is
 * the address the lookup uses: the faulting instruction for frame 0, the last byte of the call
 * (return address - 1) for the callers, so addr2line names the call site's function. */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_SYMBOLS_H
#define BACKBEAT_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/reader.h"

#define SY_MAX_FRAMES 64u

/* A module loaded in the crashed process. */
typedef struct sy_module {
    uint64_t bias, start, end; /* file address = address - bias; loaded in [start, end) */
    char *path;
    uint8_t build_id[32];
    uint8_t build_id_len;
} sy_module;

/* One crash: the fault, the thread, the stack, and its instance's modules. */
typedef struct sy_crash {
    uint64_t instance_id, ts;
    int32_t sig, code;
    uint64_t addr;
    uint32_t tid;
    char *thread;
    bool unwind_fault;
    uint32_t nframes;
    uint64_t frames[SY_MAX_FRAMES];
    sy_module *modules;
    size_t nmodules;
} sy_crash;

/* The crashes of `dump`, oldest first (*n = 0 when none). Returns BB_OK or BB_ERR_NOMEM. */
bb_status sy_crashes_read(const bb_dump *dump, sy_crash **out, size_t *n, bb_error *err);
void sy_crashes_free(sy_crash *crashes, size_t n);

/* Names of a signal and of its si_code ("SIGSEGV", "SEGV_MAPERR"); never NULL. */
const char *sy_signal_name(int sig);
const char *sy_code_name(int sig, int code);

/* One frame, resolved. */
typedef struct sy_frame {
    uint64_t addr;           /* as recorded */
    const sy_module *module; /* NULL when no recorded module holds it */
    const char *module_name; /* the module path's last component ("?" without a module) */
    uint64_t offset;         /* the lookup address in the module's file */
    char build_id[65];       /* hex, "" when none was recorded */
    bool has_function;
    char function[256];
    uint64_t function_offset; /* from the function's start to the lookup address */
    bool has_line;
    char file[512];
    int line;
} sy_frame;

typedef struct sy_symbolizer sy_symbolizer;

/* A symbolizer searching `symbols_dir` (NULL: none) before the module paths recorded. NULL on
 * allocation failure. */
sy_symbolizer *sy_symbolizer_new(const char *symbols_dir);
void sy_symbolizer_free(sy_symbolizer *s);

/* Resolve frame i of crash c (module files are opened once per symbolizer). */
void sy_frame_resolve(sy_symbolizer *s, const sy_crash *c, uint32_t i, sy_frame *out);

/* The frame as text: "function+0xOFF (module+0xOFF) file:line", or without symbols
 * "module+0xOFF [build-id]" (or "0xADDR" outside every module). Returns the length. */
size_t sy_frame_text(const sy_frame *f, char *buf, size_t cap);

#endif /* BACKBEAT_SYMBOLS_H */
