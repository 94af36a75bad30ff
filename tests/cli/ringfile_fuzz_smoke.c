/* ringfile_fuzz_smoke.c — a corpus-free smoke run of the ring file fuzz target
 * (fuzz/fuzz_ringfile.c) for ctest: a real ring file written by this process, and fixed-seed
 * mutants of it (byte flips and runs overwritten in every region, metadata entries and cursors
 * set to extreme values, cut lengths), each fed through LLVMFuzzerTestOneInput in an exactly
 * sized heap buffer, so the sanitizer pass catches any out-of-bounds read. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backbeat/backbeat.h"
#include "format/ring_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

BB_ENUM(fz_kind, uint8_t, (FZ_A, 0, "a"), (FZ_B, 1, "b"));
BB_EVENT(fz_ev, "fz", "Ev", NULL, BB_FIELD(uint64_t, n, NULL), BB_INTERN_DYN_F(s, NULL),
         BB_ENUM_F(fz_kind, k, NULL), BB_FIELD(uint8_t[3], _pad, NULL));

static uint64_t state = 0x243F6A8885A308D3ull;
static uint64_t rnd(void) {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545F4914F6CDD1Dull;
}

static void run(const uint8_t *src, size_t len) {
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy) abort();
    memcpy(copy, src, len);
    LLVMFuzzerTestOneInput(copy, len);
    free(copy);
}

/* A small ring file of this process's recorder, read back into memory. */
static uint8_t *make_ring(size_t *len) {
    char dir[] = "/tmp/bb_ringfuzz.XXXXXX";
    if (!mkdtemp(dir)) return NULL;
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 2;
    o.bytes_per_shard = 4096;
    o.intern_entries = 32;
    o.intern_bytes = 1024;
    bb_recorder *rec = NULL;
    if (bb_recorder_create_ring(&o, dir, true, &rec, NULL) != BB_OK) return NULL;
    bb_recorder_enable(rec, true);
    char s[16];
    for (uint64_t i = 0; i < 300; i++) {
        snprintf(s, sizeof s, "str%llu", (unsigned long long)(i % 40));
        BB_RECORD(rec, fz_ev, .n = i, .s = bb_intern_str(rec, s), .k = FZ_B);
    }
    char path[512];
    snprintf(path, sizeof path, "%s", bb_recorder_ring_path(rec));
    bb_recorder_free(rec);
    FILE *f = fopen(path, "rb");
    uint8_t *d = NULL;
    if (f && fseek(f, 0, SEEK_END) == 0) {
        *len = (size_t)ftell(f);
        d = malloc(*len);
        if (d && (fseek(f, 0, SEEK_SET) != 0 || fread(d, 1, *len, f) != *len)) {
            free(d);
            d = NULL;
        }
    }
    if (f) fclose(f);
    unlink(path);
    rmdir(dir);
    return d;
}

/* Offsets worth hitting: the header, the first metadata entries, intern, cursors, rings. */
static size_t hot_offset(const uint8_t *d, size_t len) {
    uint64_t meta, intern, cur, rings;
    memcpy(&meta, d + BB_RH_META_OFF, 8);
    memcpy(&intern, d + BB_RH_INTERN_OFF, 8);
    memcpy(&cur, d + BB_RH_CURSORS_OFF, 8);
    memcpy(&rings, d + BB_RH_RINGS_OFF, 8);
    uint64_t base[] = {0, meta, meta + 256, intern, cur, rings};
    uint64_t at = base[rnd() % 6] + rnd() % 512;
    return at < len ? (size_t)at : (size_t)(rnd() % len);
}

int main(void) {
    size_t len = 0;
    uint8_t *ring = make_ring(&len);
    if (!ring) {
        fprintf(stderr, "cannot make a ring file\n");
        return 1;
    }
    run(ring, len);
    uint8_t *m = malloc(len);
    if (!m) return 1;
    for (int i = 0; i < 400; i++) {
        memcpy(m, ring, len);
        int kind = (int)(rnd() % 4), n = 1 + (int)(rnd() % 8);
        for (int k = 0; k < n; k++) {
            size_t at = hot_offset(ring, len);
            if (kind == 0) m[at] ^= (uint8_t)(1u << (rnd() % 8));
            else if (kind == 1) m[at] = (uint8_t)rnd();
            else if (kind == 2) memset(m + at, 0xFF, len - at < 8 ? len - at : 8);
            else memset(m + at, 0, len - at < 64 ? len - at : 64);
        }
        run(m, i % 10 == 9 ? (size_t)(rnd() % len) : len);
    }
    free(m);
    free(ring);
    printf("ring file fuzz smoke: 401 inputs\n");
    return 0;
}
