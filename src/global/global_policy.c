/* global_policy.c — when a dump may be written: the throttle window and the file-count limit.
 *
 * Both are plain state machines with no clock or file-system access of their own except the
 * keep-newest eviction (unlink), so they can be tested by counting. The limit keeps the names
 * of the files this process wrote in slots allocated once, which the crash path may use
 * (async-signal-safe: no allocation after init).
 */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "global/global_internal.h"

uint64_t bb__g_throttle_wait(const bb__g_throttle *t, uint64_t now_ns) {
    if (!t->have_last || t->window_ns == 0) return 0;
    if (now_ns < t->last_ns) return 0; /* clock went backwards: do not stall */
    uint64_t since = now_ns - t->last_ns;
    return since >= t->window_ns ? 0 : t->window_ns - since;
}

void bb__g_throttle_mark(bb__g_throttle *t, uint64_t now_ns) {
    t->last_ns = now_ns;
    t->have_last = true;
}

bool bb__g_limits_init(bb__g_limits *l, uint32_t max, int policy, size_t slot_size) {
    memset(l, 0, sizeof *l);
    l->max = max;
    l->policy = policy;
    l->slot_size = slot_size;
    if (max == 0) return true;
    l->slots = calloc(max, slot_size);
    return l->slots != NULL;
}

void bb__g_limits_free(bb__g_limits *l) {
    free(l->slots);
    l->slots = NULL;
    l->count = 0;
}

bool bb__g_limits_admit(bb__g_limits *l, bool *first_refusal) {
    *first_refusal = false;
    if (l->max == 0 || l->count < l->max || l->policy == BB__G_KEEP_NEWEST) return true;
    if (!l->cap_reported) {
        l->cap_reported = true;
        *first_refusal = true;
    }
    return false;
}

void bb__g_limits_commit(bb__g_limits *l, const char *name) {
    if (l->max == 0 || !l->slots) return;
    if (l->count == l->max) {
        /* keep-newest (keep-oldest never admits past the cap): evict the oldest we wrote. */
        char *oldest = l->slots + (size_t)l->first * l->slot_size;
        if (oldest[0]) unlink(oldest);
        oldest[0] = '\0';
        l->first = (l->first + 1) % l->max;
        l->count--;
    }
    uint32_t idx = (l->first + l->count) % l->max;
    char *slot = l->slots + (size_t)idx * l->slot_size;
    size_t n = strlen(name);
    if (n >= l->slot_size) n = l->slot_size - 1;
    memcpy(slot, name, n);
    slot[n] = '\0';
    l->count++;
}
