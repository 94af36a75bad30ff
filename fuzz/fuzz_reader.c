/* fuzz_reader.c — libFuzzer entry point: open arbitrary bytes as a dump, and if that succeeds,
 * walk every ring, decode every field of every record, render intern strings lossily, and run
 * the model's merge over it. Built as a real fuzzer only with clang (-DBB_FUZZ=ON); the smoke
 * driver (smoke_main.c) calls the same entry point from ctest.
 */
/* SPDX-License-Identifier: MIT */
#include <stddef.h>
#include <stdint.h>

#include "backbeat/model.h"
#include "backbeat/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_record(const bb_record *rec, void *ctx) {
    const bb_rinstance *inst = ctx;
    volatile uint64_t sink = rec->ts;
    for (size_t i = 0; i < rec->schema->field_count; i++) {
        bb_value v = bb_decode_field(rec->schema, i, rec->fields, inst);
        sink += v.u + (uint64_t)v.i + v.bytes_len + v.str.len;
        if (v.kind == BB_VALUE_BYTES && v.bytes_len) sink += v.bytes[v.bytes_len - 1];
        if (v.str.len) sink += (uint8_t)v.str.ptr[v.str.len - 1];
    }
    (void)sink;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    bb_dump *d = NULL;
    if (bb_dump_open_memory(data, size, "fuzz.bb", &d, NULL) != BB_OK) return 0;
    for (size_t i = 0; i < bb_dump_instance_count(d); i++) {
        const bb_rinstance *in = bb_dump_instance(d, i);
        for (size_t k = 0; k < in->intern_count; k++)
            (void)bb_utf8_lossy(in->intern[k].bytes.ptr, in->intern[k].bytes.len, NULL, 0);
        for (size_t s = 0; s < in->shard_count; s++)
            bb_shard_walk(d, &in->shards[s], on_record, (void *)in, NULL);
    }
    bb_model *m = NULL;
    if (bb_model_open(&d, 1, true, &m, NULL) == BB_OK) {
        bb_model_iter *it = NULL;
        if (bb_model_iter_new(m, &it) == BB_OK) {
            bb_mrecord r;
            while (bb_model_next(it, &r)) on_record(&r.rec, (void *)r.instance);
            bb_model_iter_free(it);
        }
        bb_model_close(m);
    }
    bb_dump_close(d);
    return 0;
}
