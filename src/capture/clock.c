/* clock.c — the recorder's clocks: host detection (invariant TSC, kernel clocksource), TSC
 * calibration against CLOCK_MONOTONIC (once per process), the wall-clock epoch latched at
 * creation, the choice of the default clock (BACKBEAT_CLOCK overrides it), and a recorder's
 * clock accessors (bb_recorder_now, the manual clock's set and advance; ring_backing.c stamps its
 * header with the first). The per-event reads are inline in recorder.h. */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture/recorder_internal.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

static uint64_t ts_ns(const struct timespec *ts) {
    return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

static uint64_t mono_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts_ns(&ts);
}

/* Contract: see detail/recorder_inline.h (the strict-ISO-mode read of the MONOTONIC clock). */
uint64_t bb__clock_monotonic_ns(void) { return mono_now(); }

/* Contract: true iff CPUID reports an invariant TSC (leaf 0x80000007, EDX bit 8). */
bool bb__clock_tsc_invariant(void) {
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u) return false;
    if (!__get_cpuid(0x80000007u, &a, &b, &c, &d)) return false;
    return (d >> 8) & 1u;
#else
    return false;
#endif
}

/* Contract: true iff /sys/devices/system/clocksource/clocksource0/current_clocksource reads
 * "tsc" (the kernel itself trusts the TSC). */
bool bb__clock_kernel_uses_tsc(void) {
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
    if (!f) return false;
    char buf[64] = {0};
    bool yes =
        fgets(buf, sizeof buf, f) && strncmp(buf, "tsc", 3) == 0 && (buf[3] == '\n' || buf[3] == 0);
    fclose(f);
    return yes;
}

#if defined(__x86_64__)
static uint64_t rdtsc(void) {
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/* A (tsc, monotonic ns) pair read as close together as possible: the tightest of several
 * monotonic brackets around one rdtsc, the monotonic value taken at the bracket's middle. */
static void tsc_mono_pair(uint64_t *tsc, uint64_t *mono) {
    uint64_t best = UINT64_MAX;
    *tsc = 0;
    *mono = 0;
    for (int i = 0; i < 9; i++) {
        uint64_t m0 = mono_now();
        uint64_t t = rdtsc();
        uint64_t m1 = mono_now();
        if (m1 - m0 < best) {
            best = m1 - m0;
            *tsc = t;
            *mono = m0 + (m1 - m0) / 2;
        }
    }
}

static pthread_once_t calib_once = PTHREAD_ONCE_INIT;
static uint64_t calib_mult; /* ns per tick << 32; 0 = calibration failed */

/* Measure ticks against CLOCK_MONOTONIC over ~25 ms (about 1 ppm with ~20 ns brackets). */
static void calibrate(void) {
    uint64_t t0 = 0, m0 = 0, t1 = 0, m1 = 0;
    tsc_mono_pair(&t0, &m0);
    struct timespec nap = {0, 25 * 1000 * 1000};
    while (nanosleep(&nap, &nap) != 0) {}
    tsc_mono_pair(&t1, &m1);
    if (t1 <= t0 || m1 <= m0) return;
    __extension__ typedef unsigned __int128 u128;
    u128 mult = ((u128)(m1 - m0) << 32) / (t1 - t0);
    if (mult == 0 || mult > UINT64_MAX) return;
    calib_mult = (uint64_t)mult;
}
#endif

/* The wall-clock offset of CLOCK_MONOTONIC: realtime - monotonic, latched once per recorder
 * from the tightest of several brackets. */
static int64_t epoch_offset(void) {
    uint64_t best = UINT64_MAX;
    int64_t off = 0;
    for (int i = 0; i < 5; i++) {
        struct timespec a, r, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        clock_gettime(CLOCK_REALTIME, &r);
        clock_gettime(CLOCK_MONOTONIC, &b);
        uint64_t w = ts_ns(&b) - ts_ns(&a);
        if (w < best) {
            best = w;
            off = (int64_t)(ts_ns(&r) - (ts_ns(&a) + w / 2));
        }
    }
    return off;
}

/* Contract: fill the clock fields of `h` for the kind requested in opts (resolving DEFAULT),
 * set *kind to the kind chosen; BB_ERR_INVALID with *why set when it cannot be provided. */
bb_status bb__clock_setup(struct bb__recorder_hot *h, const bb_recorder_options *opts,
                          bb_clock_kind *kind, const char **why) {
    bb_clock_kind k = opts->clock;
    if (k == BB_CLOCK_DEFAULT) {
        const char *env = getenv("BACKBEAT_CLOCK");
        bool tsc_ok = bb__clock_tsc_invariant();
        if (env && strcmp(env, "monotonic") == 0) k = BB_CLOCK_MONOTONIC;
        else if (env && strcmp(env, "tsc") == 0) k = tsc_ok ? BB_CLOCK_TSC : BB_CLOCK_MONOTONIC;
        else k = (tsc_ok && bb__clock_kernel_uses_tsc()) ? BB_CLOCK_TSC : BB_CLOCK_MONOTONIC;
    }
    h->mono_offset = epoch_offset();
    switch (k) {
    case BB_CLOCK_TSC: {
#if defined(__x86_64__)
        if (!bb__clock_tsc_invariant()) {
            *why = "the TSC of this CPU is not invariant";
            return BB_ERR_INVALID;
        }
        pthread_once(&calib_once, calibrate);
        if (calib_mult == 0) {
            *why = "TSC calibration failed";
            return BB_ERR_INVALID;
        }
        uint64_t t = 0, m = 0;
        tsc_mono_pair(&t, &m);
        /* Start the TSC origin ~1M ticks in the past, so a core whose TSC lags this one a
         * little never produces a negative delta. */
        uint64_t back = UINT64_C(1) << 20;
        if (t < back) back = t;
        __extension__ typedef unsigned __int128 u128;
        h->tsc_mult = calib_mult;
        h->tsc_base = t - back;
        h->ns_base = m + (uint64_t)h->mono_offset - (uint64_t)(((u128)back * calib_mult) >> 32);
        h->clock = BB__CLK_TSC;
        break;
#else
        *why = "no TSC clock on this architecture";
        return BB_ERR_INVALID;
#endif
    }
    case BB_CLOCK_MONOTONIC: h->clock = BB__CLK_MONOTONIC; break;
    case BB_CLOCK_MANUAL:
        h->clock = BB__CLK_MANUAL;
        h->manual_ns = 0;
        break;
    case BB_CLOCK_USER:
        if (!opts->user_clock) {
            *why = "BB_CLOCK_USER needs a user_clock function";
            return BB_ERR_INVALID;
        }
        h->clock = BB__CLK_USER;
        h->user_fn = opts->user_clock;
        h->user_ctx = opts->user_clock_ctx;
        break;
    default: *why = "unknown clock kind"; return BB_ERR_INVALID;
    }
    *kind = k;
    return BB_OK;
}

/* ---- a recorder's clock: read it, set and advance a manual one -------------------------- */
uint64_t bb_recorder_now(const bb_recorder *rec) { return rec ? bb__clock_read(&rec->hot) : 0; }

bb_status bb_recorder_clock_set(bb_recorder *rec, uint64_t ns) {
    if (!rec || rec->hot.clock != BB__CLK_MANUAL) return BB_ERR_INVALID;
    __atomic_store_n(&rec->hot.manual_ns, ns, __ATOMIC_RELAXED);
    return BB_OK;
}

bb_status bb_recorder_clock_advance(bb_recorder *rec, uint64_t delta_ns) {
    if (!rec || rec->hot.clock != BB__CLK_MANUAL) return BB_ERR_INVALID;
    __atomic_fetch_add(&rec->hot.manual_ns, delta_ns, __ATOMIC_RELAXED);
    return BB_OK;
}
