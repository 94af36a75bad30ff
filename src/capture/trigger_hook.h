/* trigger_hook.h — what trigger rules need of capture: a recorder's hook for the records of armed
 * events, and the `armed` byte of every registered descriptor. Capture knows nothing of rules:
 * the in-process trigger engine (src/catch/) sets the hook and says which events to arm; and
 * whether a recorder took a record yet (also the global recorder's exit rule). */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_CAPTURE_TRIGGER_HOOK_H
#define BACKBEAT_CAPTURE_TRIGGER_HOOK_H

#include <stdbool.h>
#include <stdint.h>

#include "backbeat/recorder.h"

/* Called on the writer's thread after the commit of a record of an armed event (`ts` its
 * timestamp): no lock, no allocation, no syscall but a wake-up when a rule fires. */
typedef void (*bb__trigger_fn)(void *ctx, const bb_event_desc *d, const void *fields, uint64_t ts);

/* Set (or clear, fn NULL) the hook of `rec`. Published with release order; ctx stays the
 * recorder's (also with fn NULL) until it is freed, when `drop` (may be NULL) is called with it. */
void bb__recorder_set_trigger(bb_recorder *rec, bb__trigger_fn fn, void *ctx, void (*drop)(void *));
/* The ctx last set on `rec`, NULL when none was. */
void *bb__recorder_trigger_ctx(const bb_recorder *rec);

/* Whether `rec` ever took a record (a shard's head moved). */
bool bb__recorder_took_record(const bb_recorder *rec);

/* Which events to arm (their id's byte of bb__armed, recorder_inline.h): called with each
 * registered descriptor (under the registry's lock) now and at every later registration. An
 * armed id stays armed (records of it then cost a lookup in the recorders' rules). */
typedef bool (*bb__arm_fn)(const bb_event_desc *d);
/* Set `want` as the arming rule and arm every registered descriptor it wants. Later
 * registrations are armed by it too. (registry.c) */
void bb__registry_arm(bb__arm_fn want);

#endif /* BACKBEAT_CAPTURE_TRIGGER_HOOK_H */
