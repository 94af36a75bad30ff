/* fixture_events.h — the golden fixture schemas of ../shared/compat, defined with event.h.
 *
 * Including this header defines (and registers) the events of basic.bb, wrapped.bb and
 * multi_*.bb in the including translation unit. Their ids must equal the golden ids: that is
 * the proof that the macros generate the reference descriptors. The two builds of
 * fixture::multi::Sample are fixture_multi_sample (multi_a/b) and fixture_multi_sample_other
 * (multi_other); define BB_FIXTURE_NO_OTHER_SAMPLE to leave the latter out (a program that
 * registers both has two schemas under one name, as a merged dump does).
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_TEST_FIXTURE_EVENTS_H
#define BB_TEST_FIXTURE_EVENTS_H

#include "backbeat/event.h"

BB_ENUM(fixture_mode64, uint64_t, (FIXTURE_M64_ZERO, 0, "Zero"), (FIXTURE_M64_ONE, 1, "One"),
        (FIXTURE_M64_MAX, UINT64_MAX, "Max"));
BB_ENUM(fixture_mode32, uint32_t, (FIXTURE_M32_ALPHA, 1, "Alpha"), (FIXTURE_M32_BETA, 2, "Beta"),
        (FIXTURE_M32_BIG, 65536, "Big"));
BB_ENUM(fixture_mode16, uint16_t, (FIXTURE_M16_OFF, 0, "Off"), (FIXTURE_M16_ON, 300, "On"));
BB_ENUM(fixture_dir, uint8_t, (FIXTURE_DIR_IN, 0, "Incoming"), (FIXTURE_DIR_OUT, 1, "Outgoing"));

BB_EVENT(fixture_scalars, "fixture", "Scalars", "Every fixed-width scalar type.\nSecond doc line.",
         BB_KEY(uint64_t, conn_id, "Connection id."),
         BB_FIELD(uint64_t, packet_number, "Packet number; u64::MAX = unassigned.",
                  BB_SENTINEL(UINT64_MAX)),
         BB_FIELD(int64_t, delta, NULL, BB_UNIT("ns")),
         BB_FIELD(uint32_t, len, "Payload length.", BB_UNIT("bytes")),
         BB_FIELD(int32_t, code, "Error code; -1 = none.", BB_SENTINEL(-1)),
         BB_FIELD(uint16_t, port, NULL), BB_FIELD(int16_t, temp, NULL, BB_UNIT("\u00b0C")),
         BB_FIELD(uint8_t, ttl, NULL), BB_FIELD(int8_t, bias, NULL),
         BB_FIELD(bool, fin, "FIN flag."), BB_FIELD(uint8_t[1], _pad, NULL));

BB_EVENT(fixture_enums, "fixture", "Enums", NULL, BB_ENUM_F(fixture_mode64, mode64, NULL),
         BB_ENUM_F(fixture_mode32, mode32, NULL), BB_ENUM_F(fixture_mode16, mode16, NULL),
         BB_ENUM_F(fixture_dir, dir, "Which way the frame is going.", BB_UNIT("dir")),
         BB_FIELD(uint8_t[1], _pad, NULL));

BB_EVENT(fixture_blob, "fixture::io", "Blob", "A blob with interned names.",
         BB_FIELD(uint8_t[16], cred, "Opaque credential id."), BB_INTERN_F(name, "Static name."),
         BB_INTERN_DYN_F(path, NULL));

BB_SPAN_ENTER_EVENT(fixture_work_start, "fixture", "WorkStart", "Work began.",
                    BB_SPAN_ID(uint64_t, span, NULL), BB_PARENT_SPAN_ID(uint64_t, parent, NULL));

BB_SPAN_EXIT_EVENT(fixture_work_end, "fixture", "WorkEnd", NULL, BB_SPAN_ID(uint64_t, span, NULL),
                   BB_FIELD(uint64_t, bytes, "Bytes processed.", BB_UNIT("bytes")));

BB_EVENT(fixture_step, "fixture", "Step", "A step inside a span.",
         BB_PARENT_SPAN_ID(uint64_t, parent, NULL), BB_KEY(uint32_t, step, NULL),
         BB_FIELD(uint8_t[4], _pad, NULL));

BB_EVENT(fixture_tick, "fixture", "Tick", "A heartbeat marker.");

BB_EVENT(fixture_unused, "fixture", "Unused", NULL, BB_FIELD(uint16_t, x, NULL));

BB_EVENT(fixture_ring_seq, "fixture::ring", "Seq", "Sequenced record.", BB_KEY(uint64_t, seq, NULL),
         BB_FIELD(uint32_t, val, NULL), BB_FIELD(uint8_t[4], _pad, NULL));

BB_EVENT(fixture_ring_small, "fixture::ring", "Small", NULL, BB_FIELD(uint64_t, seq, NULL));

BB_EVENT(fixture_ring_odd, "fixture::ring", "Odd", "One-byte payload (odd record length).",
         BB_FIELD(uint8_t, b, NULL));

BB_EVENT(fixture_multi_sample, "fixture::multi", "Sample", "A sample.", BB_KEY(uint64_t, seq, NULL),
         BB_FIELD(int32_t, value, NULL), BB_INTERN_DYN_F(tag, NULL));

#ifndef BB_FIXTURE_NO_OTHER_SAMPLE
BB_EVENT(fixture_multi_sample_other, "fixture::multi", "Sample", "A sample.",
         BB_KEY(uint64_t, seq, NULL), BB_FIELD(int64_t, value, NULL), BB_INTERN_DYN_F(tag, NULL),
         BB_FIELD(uint8_t[4], _pad, NULL));
#endif

#endif /* BB_TEST_FIXTURE_EVENTS_H */
