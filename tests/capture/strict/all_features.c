/* all_features.c — one translation unit that uses every public header and every event, field,
 * option and recording macro, compiled (not run) by tests/capture/strict/strict_modes.sh in
 * every C and C++ standard mode with the strictest warnings a user build may have. */
/* SPDX-License-Identifier: MIT */
#include <backbeat/backbeat.h>
#include <backbeat/dump_writer.h>
#include <backbeat/model.h>
#include <backbeat/reader.h>

BB_ENUM(sf_state, uint8_t, (SF_IDLE, 0, "idle"), (SF_BUSY, 1, "busy"));

BB_EVENT(sf_all, "strict", "All", "Every field kind.", BB_KEY(uint64_t, conn, "The connection."),
         BB_FIELD(int64_t, delta, "A signed value.", BB_UNIT("ns")),
         BB_FIELD(uint32_t, len, NULL, BB_UNIT("bytes"), BB_SENTINEL(0xFFFFFFFFu)),
         BB_INTERN_F(op, "A static string."), BB_INTERN_DYN_F(key, "A dynamic string."),
         BB_FIELD(int16_t, small, ""), BB_ENUM_F(sf_state, state, "The state."),
         BB_FIELD(bool, ok, NULL), BB_FIELD(uint8_t[4], digest, "Opaque bytes."),
         BB_FIELD(uint8_t[4], _pad, NULL));
BB_SPAN_ENTER_EVENT(sf_enter, "strict", "Enter", NULL, BB_SPAN_ID(uint64_t, span, NULL),
                    BB_PARENT_SPAN_ID(uint64_t, parent, NULL), BB_FIELD(uint64_t, arg, NULL));
BB_SPAN_EXIT_EVENT(sf_exit, "strict", "Exit", NULL, BB_SPAN_ID(uint64_t, span, NULL));
BB_EVENT(sf_tick, "strict", "Tick", NULL);
BB_VIEWS(sf_views, "CREATE VIEW sf AS SELECT 1;");

/* An asynchronous request: the span id lives in the request object. */
struct sf_request {
    uint64_t span;
};

void sf_use(bb_recorder *rec, struct sf_request *req, const char *key);
void sf_use(bb_recorder *rec, struct sf_request *req, const char *key) {
    BB_RECORD(rec, sf_all, .conn = 1, .delta = -5, .len = 10, .op = BB_INTERN(rec, "get"),
              .key = bb_intern_str(rec, key), .small = -2, .state = SF_BUSY, .ok = true);
    sf_all ev;
    memset(&ev, 0, sizeof ev);
    ev.conn = 2;
    BB_RECORD_PTR(rec, sf_all, &ev);
    BB_RECORD(rec, sf_tick);
    req->span = BB_SPAN_ENTER(rec, sf_enter, 0, .arg = 3);
    if (req->span) BB_SPAN_EXIT(rec, sf_exit, req->span);
    {
        BB_SPAN_SCOPED(outer, rec, sf_enter, sf_exit, 0, .arg = 4);
        BB_SPAN_SCOPED(inner, rec, sf_enter, sf_exit, outer.id, .arg = 5);
        (void)inner;
    }
    BB_GRECORD(sf_tick);
    BB_GRECORD(sf_all, .conn = 3);
    (void)bb_record_event(rec, BB_DESC(sf_tick), NULL, 0);
    /* log.h through the umbrella header */
    BB_LOG(rec, BB_INFO, "request %s: %u bytes", key, 10u);
    BB_GLOG(BB_WARN, "state %d", BB_E(sf_state, SF_BUSY));
}

int sf_read(const char *path);
int sf_read(const char *path) {
    bb_dump *d = NULL;
    bb_error err;
    if (bb_dump_open(path, &d, &err) != BB_OK) return 1;
    bb_model *m = NULL;
    bb_status st = bb_model_open(&d, 1, false, &m, &err);
    if (st == BB_OK) bb_model_close(m);
    bb_dump_close(d);
    return st == BB_OK ? (int)BB_VERSION_MAJOR : 1;
}
