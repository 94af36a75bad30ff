/* fuzz_ringfile.c — libFuzzer entry point: recover arbitrary bytes as a ring file
 * (docs/RING_FILE.md, src/read/ring_*.c through src/cli/ringfile.c), once as given and once with the header checksum
 * made right (so mutations reach the metadata log, intern table, cursors and rings), and when a
 * dump comes out, walk every ring and decode every field. Built as a real fuzzer only with
 * clang (-DBB_FUZZ=ON); the smoke driver (tests/cli/ringfile_fuzz_smoke.c) calls the same entry
 * point from ctest.
 */
/* SPDX-License-Identifier: MIT */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/reader.h"
#include "cli/ringfile.h"
#include "format/ring_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_record(const bb_record *rec, void *ctx) {
    const bb_rinstance *inst = ctx;
    volatile uint64_t sink = rec->ts;
    for (size_t i = 0; i < rec->schema->field_count; i++) {
        bb_value v = bb_decode_field(rec->schema, i, rec->fields, inst);
        sink += v.u + (uint64_t)v.i + v.bytes_len + v.str.len;
    }
    (void)sink;
    return 0;
}

static void recover(const uint8_t *data, size_t size) {
    uint8_t *out = NULL;
    size_t len = 0;
    cli_ring_info info;
    char why[256];
    if (!cli_ring_to_dump(data, size, &out, &len, &info, why, sizeof why)) return;
    bb_dump *d = NULL;
    if (bb_dump_open_memory(out, len, "fuzz.bb", &d, NULL) == BB_OK) {
        for (size_t i = 0; i < bb_dump_instance_count(d); i++) {
            const bb_rinstance *in = bb_dump_instance(d, i);
            for (size_t s = 0; s < in->shard_count; s++)
                bb_shard_walk(d, &in->shards[s], on_record, (void *)in, NULL);
        }
        bb_dump_close(d);
    }
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    recover(data, size);
    if (size < BB_RING_HEADER_SIZE) return 0;
    uint8_t *fixed = malloc(size);
    if (!fixed) return 0;
    memcpy(fixed, data, size);
    memcpy(fixed, BB_RING_MAGIC, BB_RING_MAGIC_SIZE);
    uint64_t h = bb__ring_fnv64(fixed, BB_RING_CHECKED);
    memcpy(fixed + BB_RH_CHECK, &h, 8);
    recover(fixed, size);
    free(fixed);
    return 0;
}
