// cxx.cpp — event.h as C++17: the golden fixture schemas compile as C++ and produce the same
// descriptors (same golden ids, same layout), and structs are filled the C++ way.
// SPDX-License-Identifier: MIT
#include <cstdio>
#include <cstring>

#include "fixture_events.h"

BB_ENUM(cxx_role, uint8_t, (CXX_CLIENT, 0, "client"), (CXX_SERVER, 1, "server"));
BB_ENUM(cxx_signed, int64_t, (CXX_NEG, -1, "neg"), (CXX_MIN, INT64_MIN, "min"));
BB_EVENT(cxx_packet, "cxx::net", "Packet", "A packet.",
         BB_KEY(uint64_t, conn_id, "The connection."),
         BB_ENUM_F(cxx_signed, level, NULL, BB_SENTINEL(CXX_NEG)),
         BB_FIELD(uint32_t, len, "Size.", BB_UNIT("bytes")),
         BB_ENUM_F(cxx_role, cxx_role, "Member named after its enum type."),
         BB_FIELD(uint8_t[3], pad, NULL));

// An event defined inside a C++ namespace.
namespace app {
BB_ENUM(level, int8_t, (LEVEL_LOW, -1, "low"), (LEVEL_HIGH, 1, "high"));
BB_EVENT(ns_event, "cxx::app", "InNamespace", NULL,
         BB_FIELD(uint16_t, a, NULL),
         BB_ENUM_F(level, level, NULL),
         BB_FIELD(bool, b, NULL));
// BB_DESC / BB_RECORD_SIZE paste the identifier: use them unqualified, inside the namespace.
const bb_event_desc *ns_event_desc() { return BB_DESC(ns_event); }
constexpr size_t ns_event_size = BB_RECORD_SIZE(ns_event);
} // namespace app

static int failures;
#define CHECK(cond)                                                                            \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            failures++;                                                                        \
            std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                      \
    } while (0)

int main()
{
    struct { bb_event_desc *d; uint64_t id; } golden[] = {
        {BB_DESC(fixture_scalars), 0x30d5739e66263dcbull},
        {BB_DESC(fixture_enums), 0x7cb3fe06784940b9ull},
        {BB_DESC(fixture_blob), 0xd800047346ff1da5ull},
        {BB_DESC(fixture_work_start), 0xc51115b52a920dedull},
        {BB_DESC(fixture_work_end), 0xd6459e58ef41547full},
        {BB_DESC(fixture_step), 0xb14d603297de1409ull},
        {BB_DESC(fixture_tick), 0xacca22e01934c2f0ull},
        {BB_DESC(fixture_unused), 0xae608bd2e54ab9a7ull},
        {BB_DESC(fixture_ring_seq), 0x11b6fc5581eaa534ull},
        {BB_DESC(fixture_ring_small), 0xce57085db26eb1c0ull},
        {BB_DESC(fixture_ring_odd), 0x9913dd0ec2853023ull},
        {BB_DESC(fixture_multi_sample), 0x202398eea575fc30ull},
        {BB_DESC(fixture_multi_sample_other), 0xf71edcab93b6d0a2ull},
    };
    for (auto &g : golden) {
        if (bb_event_id(g.d) != g.id) {
            std::fprintf(stderr, "FAIL: %s id %016llx\n", g.d->name,
                         (unsigned long long)bb_event_id(g.d));
            failures++;
        }
    }

    // C++ fills the struct without designated initialisers.
    cxx_packet p{};
    p.conn_id = 7;
    p.level = CXX_MIN;
    p.len = 1200;
    p.cxx_role = CXX_SERVER;
    CHECK(sizeof p == 24 && BB_RECORD_SIZE(cxx_packet) == 24);
    unsigned char raw[24];
    std::memcpy(raw, &p, sizeof raw);
    const bb_event_desc *d = BB_DESC(cxx_packet);
    CHECK(std::strcmp(d->name, "cxx::net::Packet") == 0);
    CHECK(d->field_count == 5 && d->record_size == 24 && d->phase == BB_PHASE_NONE);
    CHECK(d->fields[1].type == BB_TYPE_ENUM && d->fields[1].type_arg == 8);
    CHECK(d->fields[1].has_sentinel && d->fields[1].sentinel == UINT64_MAX);
    CHECK(d->fields[1].label_count == 2 && d->fields[1].labels[1].value == 0x8000000000000000ull);
    CHECK(d->fields[3].offset == 20 && d->fields[3].width == 1 && raw[20] == CXX_SERVER);
    CHECK(d->fields[4].type == BB_TYPE_BYTES && d->fields[4].width == 3);
    CHECK(std::strcmp(d->fields[2].unit, "bytes") == 0 && d->fields[0].role == BB_ROLE_KEY);

    fixture_tick t{};
    (void)t;
    CHECK(BB_RECORD_SIZE(fixture_tick) == 0 && BB_DESC(fixture_tick)->fields == nullptr);

    app::ns_event ne{};
    ne.level = app::LEVEL_LOW;
    CHECK(sizeof ne == 4 && app::ns_event_size == 4);
    const bb_event_desc *nd = app::ns_event_desc();
    CHECK(std::strcmp(nd->name, "cxx::app::InNamespace") == 0 && nd->field_count == 3);
    CHECK(nd->fields[1].labels[0].value == 0xFF && nd->fields[2].offset == 3);

    const bb_event_desc *snap[32];
    size_t n = bb_registry_snapshot(snap, 32);
    CHECK(n == 15);
    std::printf("cxx: %d failures\n", failures);
    return failures ? 1 : 0;
}
