/* rec_util.h — helpers shared by the recorder tests: CHECK macros, dumping a recorder into
 * memory and reading it back through the reader, collecting a shard's records. */
/* SPDX-License-Identifier: MIT */
#ifndef REC_UTIL_H
#define REC_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <backbeat/backbeat.h>
#include <backbeat/reader.h>

extern int rec_failures;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            rec_failures++;                                                          \
        }                                                                            \
    } while (0)

#define CHECK_EQ_U64(a, b)                                                                        \
    do {                                                                                          \
        uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                          \
        if (a_ != b_) {                                                                           \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%llu != %llu)\n", __FILE__, __LINE__, \
                    #a, #b, (unsigned long long)a_, (unsigned long long)b_);                      \
            rec_failures++;                                                                       \
        }                                                                                         \
    } while (0)

/* A dump held in memory and opened with the reader. */
typedef struct rec_dump {
    void *buf;
    size_t len;
    bb_dump *dump;
    const bb_rinstance *inst; /* the recorder's instance */
} rec_dump;

/* Dump `rec` into memory and open it; aborts the test on failure. With REC_DUMP_DIR set, the
 * dump is bb_recorder_dump_path's, to a file there read back. */
void rec_dump_take(bb_recorder *rec, rec_dump *d);
void rec_dump_release(rec_dump *d);

/* Records of one shard, newest first (fields copied). */
typedef struct rec_item {
    uint64_t ts;
    uint64_t event_id;
    uint32_t offset;
    uint64_t position;
    uint16_t size;
    uint8_t fields[256];
} rec_item;

typedef struct rec_list {
    rec_item *items;
    size_t n, cap;
} rec_list;

/* Walk shard `shard` of d's instance into *out (malloc'ed; free out->items). */
void rec_collect(const rec_dump *d, uint32_t shard, rec_list *out);

/* Resolve intern id in the dump's instance; returns a static buffer copy or NULL. */
const char *rec_intern(const rec_dump *d, uint32_t id);

int rec_finish(const char *name);

#endif
