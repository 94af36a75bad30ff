// cxx.cc — the recorder's public headers and macros used from C++ (C++17, -Wpedantic clean):
// BB_RECORD with designated initializers, a field-less event, spans, interning; the records
// read back through the reader.
// SPDX-License-Identifier: MIT
#include <backbeat/backbeat.h>
#include <backbeat/reader.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

BB_ENUM(cx_role, uint8_t, (CX_CLIENT, 0, "client"), (CX_SERVER, 1, "server"));
BB_EVENT(cx_packet, "test::cxx", "Packet", nullptr, BB_KEY(uint64_t, conn_id, "c"),
         BB_FIELD(uint32_t, len, "l"), BB_ENUM_F(cx_role, role, "r"),
         BB_FIELD(uint8_t[3], pad, nullptr));
BB_EVENT(cx_tick, "test::cxx", "Tick", nullptr);
BB_SPAN_ENTER_EVENT(cx_begin, "test::cxx", "Begin", nullptr, BB_SPAN_ID(uint64_t, span, nullptr),
                    BB_INTERN_F(name, nullptr), BB_FIELD(uint32_t, pad, nullptr));
BB_SPAN_EXIT_EVENT(cx_end, "test::cxx", "End", nullptr, BB_SPAN_ID(uint64_t, span, nullptr));

static int count_records(const bb_record *, void *ctx) {
    ++*static_cast<int *>(ctx);
    return 0;
}

int main() {
    bb_recorder *rec = bb_recorder_new(1, 4096);
    if (!rec) return 1;
    bb_recorder_enable(rec, true);
    BB_RECORD(rec, cx_packet, .conn_id = 7, .len = 1200, .role = CX_SERVER);
    BB_RECORD(rec, cx_tick);
    {
        BB_SPAN_SCOPED(s, rec, cx_begin, cx_end, 0, .name = BB_INTERN(rec, "scope"));
        (void)s;
    }
    void *buf = nullptr;
    size_t len = 0;
    bb_error err;
    if (bb_recorder_dump_buffer(rec, &buf, &len, &err) != BB_OK) return 1;
    bb_dump *d = nullptr;
    if (bb_dump_open_memory(buf, len, "cxx", &d, &err) != BB_OK) return 1;
    const bb_rinstance *in = bb_dump_find_instance(d, bb_recorder_instance_id(rec));
    int n = 0;
    if (in && in->shard_count == 1) bb_shard_walk(d, &in->shards[0], count_records, &n, nullptr);
    bb_dump_close(d);
    std::free(buf);
    bb_recorder_free(rec);
    if (n != 4) {
        std::fprintf(stderr, "recorder_cxx: %d records, want 4\n", n);
        return 1;
    }
    std::puts("recorder_cxx: ok");
    return 0;
}
