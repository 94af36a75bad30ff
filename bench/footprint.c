/* footprint.c — what linking libbackbeat costs a process before it records: the resident set
 * at the start of main (VmRSS, and its anonymous and file-backed parts, from /proc/self/status)
 * of a program that defines an event and links the library, then after its first record (the
 * global recorder built: rings allocated, pages touched as they are written). Built twice: as
 * footprint (with backbeat) and footprint_bare (FP_BARE: the same program without it), so the
 * difference is the library's. Run by scripts/bench.sh (section `footprint`). */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#ifndef FP_BARE
#include <backbeat/event.h>
#include <backbeat/global.h>

BB_EVENT(fp_ev, "bench", "Footprint", NULL, BB_FIELD(uint64_t, seq, NULL));
#endif

/* The KiB of "Key:" in /proc/self/status, -1 when absent. */
static long status_kib(const char *key) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == ':') sscanf(line + n + 1, "%ld", &v);
    if (f) fclose(f);
    return v;
}

static void report(const char *when) {
    printf("  %-42s RSS %6ld KiB (anon %5ld, file %5ld)\n", when, status_kib("VmRSS"),
           status_kib("RssAnon"), status_kib("RssFile"));
}

int main(void) {
#ifdef FP_BARE
    report("without backbeat, at main");
#else
    report("with libbackbeat, at main (no record yet)");
    BB_GRECORD(fp_ev, .seq = 1);
    report("after the first BB_GRECORD");
#endif
    return 0;
}
