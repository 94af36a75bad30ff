/* hello.c — the README's first example, compiled and run by the test suite so it stays true.
 * Usage: hello OUT.bb */
/* SPDX-License-Identifier: MIT */
#include <backbeat/backbeat.h>

/* Which side is sending a packet. */
BB_ENUM(role, uint8_t,
        (ROLE_CLIENT, 0, "client"),
        (ROLE_SERVER, 1, "server"));

BB_EVENT(packet_sent, "my_app::net", "PacketSent", "A packet was sent.",
         BB_KEY   (uint64_t, conn_id, "The connection the packet belongs to."),
         BB_FIELD (uint32_t, len,     "The size of the packet in bytes.", BB_UNIT("bytes")),
         BB_ENUM_F(role,     role,    "Which side sent it."),
         BB_FIELD (uint8_t[3], _pad,  NULL)); /* the build names any gap; fill it explicitly */

int main(int argc, char **argv) {
    bb_recorder *rec = bb_recorder_new(4, 1 << 20); /* shards, bytes per shard */
    if (!rec) return 1;
    bb_recorder_enable(rec, true);
    for (uint64_t conn = 0; conn < 3; conn++)
        BB_RECORD(rec, packet_sent, .conn_id = conn, .len = 1200, .role = ROLE_SERVER);
    bb_error err;
    bb_status st = bb_recorder_dump_path(rec, argc > 1 ? argv[1] : "trace.bb", "my-host", &err);
    bb_recorder_free(rec);
    return st == BB_OK ? 0 : 1;
}
