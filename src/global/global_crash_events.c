/* global_crash_events.c — the built-in events backbeat::Crash and backbeat::Module, and their
 * recording on the crashing thread before the crash dump (issue 40).
 *
 * They are ordinary events declared with BB_EVENT, so a crash dump stays a format v1 dump: a
 * reader that knows nothing of crashes shows them as records; `backbeat inspect`, the table and
 * the trace recognise them by name and symbolize the stack. They are registered when crash
 * dumps are armed (bb__g_crash_events_register), not when the library loads: a program without
 * BACKBEAT_DUMP_ON_CRASH keeps the registry it declared. To that end BB_EVENT's constructor and
 * destructor here call hold/drop below instead of bb_registry_add/remove. */
/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "backbeat/event.h"
#include "global/global_crash_info.h"

static bb_event_desc *held[2];
static int registered; /* atomic */

/* BB_EVENT's constructor: keep the descriptor for bb__g_crash_events_register, or register it
 * now if crash dumps were armed first (by another constructor of the library). */
static void hold(bb_event_desc *d) {
    for (int i = 0; i < 2; i++)
        if (!held[i]) {
            held[i] = d;
            break;
        }
    if (__atomic_load_n(&registered, __ATOMIC_ACQUIRE)) bb_registry_add(d);
}

/* BB_EVENT's destructor (the library unloaded): unregister if registered. */
static void drop(bb_event_desc *d) {
    if (__atomic_load_n(&registered, __ATOMIC_ACQUIRE)) bb_registry_remove(d);
}

#define bb_registry_add(d) hold(d)
#define bb_registry_remove(d) drop(d)

BB_EVENT(bb__g_crash_ev, "backbeat", "Crash",
         "The process crashed: the fatal signal, the fault and the crashing thread's stack "
         "(addresses; backbeat::Module records of the same dump map them to modules).",
         BB_FIELD(uint64_t, addr, "The faulting address (si_addr; 0 for a signal sent)."),
         BB_FIELD(int32_t, signal, "The signal number."),
         BB_FIELD(int32_t, code, "The signal's si_code."),
         BB_FIELD(uint32_t, tid, "The crashing thread's id."),
         BB_INTERN_DYN_F(thread, "The crashing thread's name."),
         BB_FIELD(uint16_t, frames, "How many addresses `stack` holds."),
         BB_FIELD(bool, unwind_fault, "The walk of the stack ended on a fault of its own."),
         BB_FIELD(uint8_t[5], _pad, NULL),
         BB_FIELD(uint8_t[512], stack,
                  "Up to 64 code addresses, little-endian u64, innermost first: the faulting "
                  "instruction, then return addresses."));

BB_EVENT(bb__g_module_ev, "backbeat", "Module",
         "A module loaded in the process when it crashed: a code address A lies in it when "
         "start <= A < end, at A - bias in its file.",
         BB_FIELD(uint64_t, bias, "The load bias: an address minus it is the file's address."),
         BB_FIELD(uint64_t, start, "The lowest address of its loaded segments."),
         BB_FIELD(uint64_t, end, "Past the highest address of its loaded segments."),
         BB_INTERN_DYN_F(path, "Its path, as the dynamic loader knows it."),
         BB_FIELD(uint8_t, build_id_len, "How many bytes of build_id are its GNU build-id."),
         BB_FIELD(uint8_t[3], _pad, NULL),
         BB_FIELD(uint8_t[32], build_id, "Its GNU build-id (NT_GNU_BUILD_ID)."));

#undef bb_registry_add
#undef bb_registry_remove

void bb__g_crash_events_register(void) {
    if (__atomic_exchange_n(&registered, 1, __ATOMIC_ACQ_REL)) return;
    for (int i = 0; i < 2; i++)
        if (held[i]) bb_registry_add(held[i]);
}

static void put_le64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static bool record_module(const bb__g_module *m, void *arg) {
    bb_recorder *rec = arg;
    bb__g_module_ev ev;
    memset(&ev, 0, sizeof ev);
    ev.bias = m->bias;
    ev.start = m->start;
    ev.end = m->end;
    ev.path = bb_intern_str(rec, m->path);
    ev.build_id_len = m->build_id_len;
    memcpy(ev.build_id, m->build_id, m->build_id_len);
    bb_record_event(rec, BB_DESC(bb__g_module_ev), &ev, BB_RECORD_SIZE(bb__g_module_ev));
    return true;
}

void bb__g_crash_record(bb_recorder *rec) {
    const bb__g_crash_info *c = bb__g_crash_current();
    if (!rec || !c) return;
    bb_recorder_enable(rec, true); /* crash dumps without capture still say where */
    bb__g_crash_ev ev;
    memset(&ev, 0, sizeof ev);
    ev.addr = c->addr;
    ev.signal = c->sig;
    ev.code = c->code;
    ev.tid = c->tid;
    ev.thread = bb_intern_str(rec, c->thread);
    ev.frames = (uint16_t)c->nframes;
    ev.unwind_fault = c->unwind_faulted;
    for (uint32_t i = 0; i < c->nframes; i++) put_le64(ev.stack + 8 * i, c->frames[i]);
    bb_record_event(rec, BB_DESC(bb__g_crash_ev), &ev, BB_RECORD_SIZE(bb__g_crash_ev));
    bb__g_modules_each(record_module, rec);
}
