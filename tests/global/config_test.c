/* config_test.c — BACKBEAT_* parsing: defaults, valid values, size suffixes, and exactly one
 * warning (naming the variable, the value and the value used) per invalid value. */
/* SPDX-License-Identifier: MIT */
#include <signal.h>

#include "global/global_internal.h"
#include "gtest_util.h"

typedef struct env {
    const char *kv[32][2];
    int n;
} env;

static const char *env_get(const char *name, void *ctx) {
    env *e = ctx;
    for (int i = 0; i < e->n; i++)
        if (!strcmp(e->kv[i][0], name)) return e->kv[i][1];
    return NULL;
}

typedef struct warns {
    char msg[16][600];
    int n;
} warns;

static void warn_cb(const char *m, void *ctx) {
    warns *w = ctx;
    if (w->n < 16) snprintf(w->msg[w->n], sizeof w->msg[0], "%s", m);
    w->n++;
}

static void parse(bb__g_config *c, env *e, warns *w) {
    memset(w, 0, sizeof *w);
    bb__g_config_parse(c, env_get, e, warn_cb, w, 4, 1234);
}

/* One variable set to `value` must produce exactly one warning mentioning var, value, used. */
static void expect_warn(const char *var, const char *value, const char *used, bb__g_config *c) {
    env e = {.n = 1};
    e.kv[0][0] = var;
    e.kv[0][1] = value;
    warns w;
    parse(c, &e, &w);
    CHECK(w.n == 1);
    if (w.n >= 1) {
        CHECK(strstr(w.msg[0], var) != NULL);
        CHECK(strstr(w.msg[0], value) != NULL);
        CHECK(strstr(w.msg[0], used) != NULL);
        if (!strstr(w.msg[0], used)) fprintf(stderr, "  message: %s\n", w.msg[0]);
    }
}

/* The exact message (the same as before the table, issue 20) for one invalid value; the
 * parse runs with 3 online CPUs. */
static void expect_message(const char *var, const char *value, const char *message) {
    env e = {.n = 1};
    e.kv[0][0] = var;
    e.kv[0][1] = value;
    warns w;
    bb__g_config c;
    memset(&w, 0, sizeof w);
    bb__g_config_parse(&c, env_get, &e, warn_cb, &w, 3, 1);
    CHECK(w.n == 1);
    if (w.n == 1) CHECK_STR(w.msg[0], message);
}

static void check_messages(void) {
    expect_message("BACKBEAT_ENABLE", "maybe",
                   "BACKBEAT_ENABLE=\"maybe\" is not a boolean (1/true/yes/on, 0/false/no/off); "
                   "using off");
    expect_message("BACKBEAT_SHARDS", "-1",
                   "BACKBEAT_SHARDS=\"-1\" is not a positive integer; using 3");
    expect_message("BACKBEAT_SHARDS", "5000",
                   "BACKBEAT_SHARDS=\"5000\" is above the maximum; using 1024");
    expect_message("BACKBEAT_BYTES", "lots",
                   "BACKBEAT_BYTES=\"lots\" is not a size (e.g. 65536, 64k, 16M, 1G); using 16M");
    expect_message("BACKBEAT_BYTES", "4095",
                   "BACKBEAT_BYTES=\"4095\" is below the floor; using 4096");
    expect_message("BACKBEAT_BYTES", "2T", "BACKBEAT_BYTES=\"2T\" is above the maximum; using 1T");
    expect_message("BACKBEAT_PATH", "/",
                   "BACKBEAT_PATH=\"/\" names a directory, not a file; using the default path");
    expect_message("BACKBEAT_THROTTLE_MS", "31536000001",
                   "BACKBEAT_THROTTLE_MS=\"31536000001\" is not a number of milliseconds; "
                   "using 1000");
    expect_message("BACKBEAT_MAX_DUMPS", "1000001",
                   "BACKBEAT_MAX_DUMPS=\"1000001\" is not a count (0 = unlimited, at most "
                   "1000000); using 8");
    expect_message("BACKBEAT_LIMIT_POLICY", "newest",
                   "BACKBEAT_LIMIT_POLICY=\"newest\" is not keep-oldest or keep-newest; "
                   "using keep-oldest");
    expect_message("BACKBEAT_SIGNAL", "segv",
                   "BACKBEAT_SIGNAL=\"segv\" is not usr1, usr2 or a catchable non-crash signal "
                   "number; using none");
    expect_message("BACKBEAT_DUMP_ON_PANIC", "sometimes",
                   "BACKBEAT_DUMP_ON_PANIC=\"sometimes\" is not a boolean; using off");
    expect_message("BACKBEAT_DUMP_ON_EXIT", "2",
                   "BACKBEAT_DUMP_ON_EXIT=\"2\" is not a boolean; using off");
    expect_message("BACKBEAT_RING_KEEP", "maybe",
                   "BACKBEAT_RING_KEEP=\"maybe\" is not a boolean; using off");
    expect_message("BACKBEAT_CLOCK", "TSC",
                   "BACKBEAT_CLOCK=\"TSC\" is not tsc or monotonic; using the default clock");
    expect_message("BACKBEAT_LOG_LEVEL", "loud",
                   "BACKBEAT_LOG_LEVEL=\"loud\" is not a log level (trace, debug, info, warn, "
                   "error, fatal, off); using info");
    expect_message("BACKBEAT_DUMP_ON_LOG", "7",
                   "BACKBEAT_DUMP_ON_LOG=\"7\" is not a log level (trace, debug, info, warn, "
                   "error, fatal, off); using off");
    expect_message("BACKBEAT_COMMIT", "RSEQ",
                   "BACKBEAT_COMMIT=\"RSEQ\" is not rseq or fetch_add; using the default commit "
                   "path");
    /* issue 43: a value's control bytes are escaped, so a newline cannot forge a second
     * "backbeat:" line on stderr */
    expect_message(
        "BACKBEAT_SHARDS", "2\nbackbeat: forged\x1b[2J\"\\\x7f",
        "BACKBEAT_SHARDS=\"2\\nbackbeat: forged\\x1b[2J\\\"\\\\\\x7f\" is not a positive "
        "integer; using 3");
}

/* The table itself: every row named, documented and parsed; no name twice; each variable set
 * to the empty string is unset (no warning, the defaults). */
static void check_table(void) {
    CHECK(bb__g_var_count >= 15);
    bb__g_config def, c;
    warns w;
    env none = {.n = 0};
    parse(&def, &none, &w);
    for (size_t i = 0; i < bb__g_var_count; i++) {
        const bb__g_var *v = &bb__g_vars[i];
        CHECK(v->name && strncmp(v->name, "BACKBEAT_", 9) == 0);
        CHECK(!v->alias || strncmp(v->alias, "BACKBEAT_", 9) == 0);
        CHECK(v->parse != NULL);
        CHECK(v->doc && *v->doc && v->doc_default && *v->doc_default);
        CHECK(v->width == 0 || v->field + v->width <= sizeof(bb__g_config));
        for (size_t j = 0; j < i; j++) {
            CHECK(strcmp(v->name, bb__g_vars[j].name) != 0);
            CHECK(!v->alias || !bb__g_vars[j].alias || strcmp(v->alias, bb__g_vars[j].alias));
        }
        env e = {.n = 1};
        e.kv[0][0] = v->name;
        e.kv[0][1] = "";
        parse(&c, &e, &w);
        CHECK(w.n == 0);
        CHECK(memcmp(&c, &def, sizeof c) == 0);
        if (w.n || memcmp(&c, &def, sizeof c)) fprintf(stderr, "  variable: %s\n", v->name);
    }
}

int main(void) {
    bb__g_config c;
    warns w;
    env e = {.n = 0};

    /* defaults */
    parse(&c, &e, &w);
    CHECK(w.n == 0);
    CHECK(!c.enable);
    CHECK(c.shards == 4);
    CHECK(c.bytes == 16ull << 20);
    CHECK_STR(c.path, "/tmp/backbeat.1234.bb");
    CHECK(c.path_is_default);
    CHECK(c.throttle_ms == 1000);
    CHECK(c.max_dumps == 8);
    CHECK(c.limit_policy == BB__G_KEEP_OLDEST);
    CHECK(c.host[0] != '\0' || 1); /* system hostname (may legitimately be empty) */
    CHECK(c.signal == 0);
    CHECK(!c.dump_on_crash && !c.dump_on_exit);
    CHECK(c.ring_dir[0] == '\0' && !c.ring_keep);

    /* shard default is capped at 16 */
    memset(&w, 0, sizeof w);
    bb__g_config_parse(&c, env_get, &e, warn_cb, &w, 64, 1);
    CHECK(c.shards == 16);
    bb__g_config_parse(&c, env_get, &e, warn_cb, &w, 0, 1);
    CHECK(c.shards == 1);

    /* every variable set to a valid value */
    env v = {.n = 0};
#define SET(k, val) (v.kv[v.n][0] = (k), v.kv[v.n][1] = (val), v.n++)
    SET("BACKBEAT_ENABLE", "Yes");
    SET("BACKBEAT_SHARDS", "3");
    SET("BACKBEAT_BYTES", "64k");
    SET("BACKBEAT_PATH", "/var/tmp/app.trace.bb");
    SET("BACKBEAT_THROTTLE_MS", "0");
    SET("BACKBEAT_MAX_DUMPS", "0");
    SET("BACKBEAT_LIMIT_POLICY", "keep-newest");
    SET("BACKBEAT_HOST", "edge-7");
    SET("BACKBEAT_SIGNAL", "usr2");
    SET("BACKBEAT_DUMP_ON_PANIC", "on");
    SET("BACKBEAT_DUMP_ON_EXIT", "TRUE");
    SET("BACKBEAT_RING_DIR", "/dev/shm/rings");
    SET("BACKBEAT_RING_KEEP", "1");
    SET("BACKBEAT_DUMP_ON_LOG", "Error");
    SET("BACKBEAT_LOG_LEVEL", "warning");
    SET("BACKBEAT_TRIGGER", "span my::Req > 50ms; my::Reply status == error");
    SET("BACKBEAT_TRIGGER_AFTER", "1.5ms");
    parse(&c, &v, &w);
    CHECK(w.n == 0);
    CHECK(c.enable);
    CHECK(c.shards == 3);
    CHECK(c.bytes == 65536);
    CHECK_STR(c.path, "/var/tmp/app.trace.bb");
    CHECK(c.dump_on_log == 4); /* BB_ERROR */
    CHECK(!c.path_is_default);
    CHECK(c.throttle_ms == 0);
    CHECK(c.max_dumps == 0);
    CHECK(c.limit_policy == BB__G_KEEP_NEWEST);
    CHECK_STR(c.host, "edge-7");
    CHECK(c.signal == SIGUSR2);
    CHECK(c.dump_on_crash);
    CHECK(c.dump_on_exit);
    CHECK_STR(c.ring_dir, "/dev/shm/rings");
    CHECK(c.ring_keep);
    CHECK_STR(c.trigger, "span my::Req > 50ms; my::Reply status == error");
    CHECK(c.trigger_after_ns == 1500000);

    /* BACKBEAT_DUMP_ON_CRASH wins over its alias */
    v.n = 0;
    SET("BACKBEAT_DUMP_ON_CRASH", "0");
    SET("BACKBEAT_DUMP_ON_PANIC", "1");
    parse(&c, &v, &w);
    CHECK(!c.dump_on_crash && w.n == 0);

    /* TMPDIR feeds the default path */
    v.n = 0;
    SET("TMPDIR", "/scratch/");
    parse(&c, &v, &w);
    CHECK_STR(c.path, "/scratch/backbeat.1234.bb");
#undef SET

    /* size suffixes */
    uint64_t s;
    CHECK(bb__g_parse_size("4096", &s) && s == 4096);
    CHECK(bb__g_parse_size("16M", &s) && s == 16ull << 20);
    CHECK(bb__g_parse_size("16m", &s) && s == 16ull << 20);
    CHECK(bb__g_parse_size("16MiB", &s) && s == 16ull << 20);
    CHECK(bb__g_parse_size("16MB", &s) && s == 16ull << 20);
    CHECK(bb__g_parse_size("2G", &s) && s == 2ull << 30);
    CHECK(bb__g_parse_size("8k", &s) && s == 8192);
    CHECK(bb__g_parse_size("1T", &s) && s == 1ull << 40);
    CHECK(bb__g_parse_size("100B", &s) && s == 100);
    CHECK(!bb__g_parse_size("", &s));
    CHECK(!bb__g_parse_size("M", &s));
    CHECK(!bb__g_parse_size("16X", &s));
    CHECK(!bb__g_parse_size("16Mx", &s));
    CHECK(!bb__g_parse_size("-1", &s));
    CHECK(!bb__g_parse_size("1.5M", &s));
    CHECK(!bb__g_parse_size("99999999999999999999", &s));
    CHECK(!bb__g_parse_size("17179869184G", &s)); /* overflows 64 bits */

    /* signals (booleans: tests/common/bool_word_test.c) */
    int sig;
    CHECK(bb__g_parse_signal("usr1", &sig) && sig == SIGUSR1);
    CHECK(bb__g_parse_signal("SIGUSR2", &sig) && sig == SIGUSR2);
    CHECK(bb__g_parse_signal("10", &sig) && sig == 10);
    CHECK(!bb__g_parse_signal("9", &sig));  /* SIGKILL */
    CHECK(!bb__g_parse_signal("11", &sig)); /* SIGSEGV is a crash signal */
    CHECK(!bb__g_parse_signal("0", &sig));
    CHECK(!bb__g_parse_signal("hup!", &sig));

    /* each invalid value: one warning naming variable, value and replacement */
    expect_warn("BACKBEAT_ENABLE", "maybe", "off", &c);
    CHECK(!c.enable);
    expect_warn("BACKBEAT_SHARDS", "many", "4", &c);
    CHECK(c.shards == 4);
    expect_warn("BACKBEAT_SHARDS", "0", "4", &c);
    expect_warn("BACKBEAT_SHARDS", "5000", "1024", &c);
    CHECK(c.shards == 1024);
    expect_warn("BACKBEAT_BYTES", "lots", "16M", &c);
    CHECK(c.bytes == 16ull << 20);
    expect_warn("BACKBEAT_BYTES", "100", "4096", &c);
    CHECK(c.bytes == 4096);
    expect_warn("BACKBEAT_BYTES", "2T", "1T", &c);
    CHECK(c.bytes == 1ull << 40);
    expect_warn("BACKBEAT_PATH", "/tmp/dir/", "default", &c);
    CHECK(c.path_is_default);
    expect_warn("BACKBEAT_TRIGGER_AFTER", "20", "0", &c);
    CHECK(c.trigger_after_ns == 0);
    expect_warn("BACKBEAT_TRIGGER_AFTER", "2h", "0", &c);
    expect_warn("BACKBEAT_THROTTLE_MS", "1s", "1000", &c);
    CHECK(c.throttle_ms == 1000);
    expect_warn("BACKBEAT_MAX_DUMPS", "-3", "8", &c);
    CHECK(c.max_dumps == 8);
    expect_warn("BACKBEAT_LIMIT_POLICY", "newest", "keep-oldest", &c);
    CHECK(c.limit_policy == BB__G_KEEP_OLDEST);
    expect_warn("BACKBEAT_SIGNAL", "segv", "none", &c);
    CHECK(c.signal == 0);
    expect_warn("BACKBEAT_DUMP_ON_CRASH", "sometimes", "off", &c);
    CHECK(!c.dump_on_crash);
    expect_warn("BACKBEAT_DUMP_ON_PANIC", "sometimes", "off", &c);
    expect_warn("BACKBEAT_DUMP_ON_EXIT", "2", "off", &c);
    expect_warn("BACKBEAT_CLOCK", "rdtsc", "the default clock", &c);
    expect_warn("BACKBEAT_RING_KEEP", "maybe", "off", &c);
    CHECK(!c.ring_keep);
    expect_warn("BACKBEAT_DUMP_ON_LOG", "errors", "off", &c);
    CHECK(c.dump_on_log == 7); /* never */
    {
        static char long_dir[PATH_MAX];
        memset(long_dir, 'd', sizeof long_dir - 1);
        long_dir[0] = '/';
        env le = {.n = 1};
        le.kv[0][0] = "BACKBEAT_RING_DIR";
        le.kv[0][1] = long_dir;
        parse(&c, &le, &w);
        CHECK(w.n == 1 && strstr(w.msg[0], "BACKBEAT_RING_DIR") != NULL);
        CHECK(c.ring_dir[0] == '\0');
    }
    expect_warn("BACKBEAT_COMMIT", "lock", "the default commit path", &c);
    for (int k = 0; k < 2; k++) { /* the two valid commit paths: no warning */
        env ce = {.n = 1};
        ce.kv[0][0] = "BACKBEAT_COMMIT";
        ce.kv[0][1] = k ? "fetch_add" : "rseq";
        parse(&c, &ce, &w);
        CHECK(w.n == 0);
    }
    for (int k = 0; k < 2; k++) { /* the two valid clocks: no warning */
        env ce = {.n = 1};
        ce.kv[0][0] = "BACKBEAT_CLOCK";
        ce.kv[0][1] = k ? "monotonic" : "tsc";
        parse(&c, &ce, &w);
        CHECK(w.n == 0);
    }

    /* several invalid values: one warning each */
    env m = {.n = 3};
    m.kv[0][0] = "BACKBEAT_SHARDS";
    m.kv[0][1] = "x";
    m.kv[1][0] = "BACKBEAT_BYTES";
    m.kv[1][1] = "y";
    m.kv[2][0] = "BACKBEAT_ENABLE";
    m.kv[2][1] = "1";
    parse(&c, &m, &w);
    CHECK(w.n == 2);
    CHECK(c.enable);

    check_messages();
    check_table();
    return gt_done();
}
