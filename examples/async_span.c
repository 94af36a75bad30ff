/* async_span.c — the user guide's asynchronous-span example (docs/guide/instrument.md): a
 * request's span opens in one callback and closes in another (here a tiny event loop), its id
 * kept in the request object. Built and run by the test suite (tests/readme.cmake). Usage:
 * async_span OUT.bb */
/* SPDX-License-Identifier: MIT */
#include <backbeat/backbeat.h>

BB_SPAN_ENTER_EVENT(req_begin, "my_app::rpc", "Request", "A request, from arrival to reply.",
                    BB_SPAN_ID(uint64_t, span, NULL),
                    BB_KEY    (uint64_t, conn_id, "The connection it came on."));
BB_SPAN_EXIT_EVENT(req_end, "my_app::rpc", "Request", NULL,
                   BB_SPAN_ID(uint64_t, span, NULL),
                   BB_FIELD  (uint32_t, status, "The reply's status."),
                   BB_FIELD  (uint8_t[4], _pad, NULL));

struct request {
    uint64_t conn_id;
    uint64_t span; /* 0 when capture was off at arrival: then there is no span to close */
};

/* Callback 1: a request arrives. */
static void on_request(bb_recorder *rec, struct request *req) {
    req->span = BB_SPAN_ENTER(rec, req_begin, 0, .conn_id = req->conn_id);
}

/* Callback 2, later, from another iteration of the loop (or another thread). */
static void on_reply(bb_recorder *rec, struct request *req, uint32_t status) {
    if (req->span) BB_SPAN_EXIT(rec, req_end, req->span, .status = status);
    req->span = 0;
}

int main(int argc, char **argv) {
    bb_recorder *rec = bb_recorder_new(1, 1 << 20);
    if (!rec) return 1;
    bb_recorder_enable(rec, true);
    struct request reqs[3] = {{1, 0}, {2, 0}, {3, 0}}; /* conn_id, span */
    for (int i = 0; i < 3; i++) on_request(rec, &reqs[i]); /* three requests in flight */
    for (int i = 2; i >= 0; i--) on_reply(rec, &reqs[i], 200);  /* replies in another order */
    bb_error err;
    bb_status st = bb_recorder_dump_path(rec, argc > 1 ? argv[1] : "async.bb", NULL, &err);
    bb_recorder_free(rec);
    return st == BB_OK ? 0 : 1;
}
