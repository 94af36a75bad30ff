/* global_config_table.c — the BACKBEAT_* variables as one table (name, parser, field, default,
 * range, messages, and the one-line doc of docs/ENVIRONMENT.md), and bb__g_config_parse, which
 * walks it. A new variable is one row here (and its field in bb__g_config, global_internal.h);
 * tests/global/config_doc.c fails until docs/ENVIRONMENT.md and the README list it alike. The
 * value syntax (booleans, sizes, signals) is global_config.c.
 */
/* SPDX-License-Identifier: MIT */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/bool_word.h"
#include "global/global_internal.h"
#include "trigger/rule.h"

/* ---- the parsers, one per kind of value (see bb__g_var_parse) --------------------------- */

static void *field_of(const bb__g_var *v, bb__g_config *cfg) { return (char *)cfg + v->field; }

static void set_uint(const bb__g_var *v, bb__g_config *cfg, uint64_t x) {
    if (v->width == sizeof(uint32_t)) {
        uint32_t y = (uint32_t)x;
        memcpy(field_of(v, cfg), &y, sizeof y);
    } else {
        memcpy(field_of(v, cfg), &x, sizeof x);
    }
}

/* A byte count as the messages write it: "16M", "1T", "4096". */
static void size_text(char *out, size_t cap, uint64_t n) {
    static const char suffix[] = "TGM";
    for (unsigned i = 0; i < 3; i++) {
        unsigned shift = 40 - 10 * i;
        if (n && n % (1ull << shift) == 0) {
            snprintf(out, cap, "%llu%c", (unsigned long long)(n >> shift), suffix[i]);
            return;
        }
    }
    snprintf(out, cap, "%llu", (unsigned long long)n);
}

/* 1/true/yes/on, 0/false/no/off; refused: the default. */
static const char *var_bool(const bb__g_var *v, bb__g_config *cfg, const char *value,
                            const bb__g_env *env, char *used, size_t cap) {
    (void)env, (void)used, (void)cap;
    bool *b = field_of(v, cfg);
    *b = v->def != 0;
    if (!value || bb__bool_word(value, b)) return NULL;
    return v->why;
}

/* A decimal count in [lo, hi]; refused: the default. */
static const char *var_count(const bb__g_var *v, bb__g_config *cfg, const char *value,
                             const bb__g_env *env, char *used, size_t cap) {
    (void)env, (void)used, (void)cap;
    uint64_t n = v->def;
    const char *why = NULL;
    if (value && (!bb__g_parse_u64(value, &n) || n < v->lo || n > v->hi)) {
        n = v->def;
        why = v->why;
    }
    set_uint(v, cfg, n);
    return why;
}

/* The shard count: by default the online CPUs, at least 1 and at most `def`; refused: that
 * default; above hi: hi. */
static const char *var_shards(const bb__g_var *v, bb__g_config *cfg, const char *value,
                              const bb__g_env *env, char *used, size_t cap) {
    uint64_t def = env->online_cpus < 1                  ? 1
                   : (uint64_t)env->online_cpus > v->def ? v->def
                                                         : (uint64_t)env->online_cpus;
    uint64_t n = def;
    const char *why = NULL;
    if (value && (!bb__g_parse_u64(value, &n) || n < v->lo)) {
        n = def;
        why = v->why;
    } else if (value && n > v->hi) {
        n = v->hi;
        why = "is above the maximum";
    }
    if (why) snprintf(used, cap, "%llu", (unsigned long long)n);
    set_uint(v, cfg, n);
    return why;
}

/* A byte size with an optional suffix (bb__g_parse_size), clamped into [lo, hi]; refused: the
 * default. */
static const char *var_size(const bb__g_var *v, bb__g_config *cfg, const char *value,
                            const bb__g_env *env, char *used, size_t cap) {
    (void)env;
    uint64_t n = v->def;
    const char *why = NULL;
    if (value && !bb__g_parse_size(value, &n)) {
        n = v->def;
        why = v->why;
    } else if (value && n < v->lo) {
        n = v->lo;
        why = "is below the floor";
    } else if (value && n > v->hi) {
        n = v->hi;
        why = "is above the maximum";
    }
    if (why) size_text(used, cap, n);
    set_uint(v, cfg, n);
    return why;
}

/* A share of a file system: a size (bb__g_parse_size; 0 = no bound) or "N%" (0 to 100), stored
 * as bytes or BB__G_PCT | N; refused: the default. */
static const char *var_share(const bb__g_var *v, bb__g_config *cfg, const char *value,
                             const bb__g_env *env, char *used, size_t cap) {
    (void)env, (void)used, (void)cap;
    uint64_t n = v->def;
    size_t len = value ? strlen(value) : 0;
    char num[32];
    bool ok = true;
    if (len > 1 && value[len - 1] == '%' && len < sizeof num) {
        memcpy(num, value, len - 1);
        num[len - 1] = '\0';
        ok = bb__g_parse_u64(num, &n) && n <= 100;
        n |= BB__G_PCT;
    } else if (value) {
        ok = bb__g_parse_size(value, &n) && !(n & (BB__G_PCT | BB__G_CAP4G));
    }
    if (!ok) n = v->def;
    set_uint(v, cfg, n);
    return ok ? NULL : v->why;
}

/* A string that fits the field with lo bytes to spare; refused or unset: empty. */
static const char *var_text(const bb__g_var *v, bb__g_config *cfg, const char *value,
                            const bb__g_env *env, char *used, size_t cap) {
    (void)env, (void)used, (void)cap;
    char *out = field_of(v, cfg);
    out[0] = '\0';
    if (!value) return NULL;
    size_t l = strlen(value);
    if (l + v->lo >= v->width) return v->why;
    memcpy(out, value, l + 1);
    return NULL;
}

/* The host label: a string (var_text); unset or refused: the system hostname. */
static const char *var_host(const bb__g_var *v, bb__g_config *cfg, const char *value,
                            const bb__g_env *env, char *used, size_t cap) {
    const char *why = var_text(v, cfg, value, env, used, cap);
    if (!value || why) {
        if (gethostname(cfg->host, sizeof cfg->host) != 0) cfg->host[0] = '\0';
        cfg->host[sizeof cfg->host - 1] = '\0';
    }
    return why;
}

/* The base dump path: a file name that fits with lo bytes to spare (for the stamp and suffix);
 * unset or refused: ${TMPDIR:-/tmp}/backbeat.<pid>.bb, path_is_default set. */
static const char *var_path(const bb__g_var *v, bb__g_config *cfg, const char *value,
                            const bb__g_env *env, char *used, size_t cap) {
    (void)used, (void)cap;
    const char *why = NULL;
    cfg->path_is_default = true;
    if (value) {
        size_t l = strlen(value);
        if (l + v->lo >= sizeof cfg->path) why = "is too long";
        else if (value[l - 1] == '/') why = "names a directory, not a file";
        else {
            memcpy(cfg->path, value, l + 1);
            cfg->path_is_default = false;
        }
    }
    if (cfg->path_is_default)
        bb__g_default_path(cfg->path, sizeof cfg->path, env->get("TMPDIR", env->get_ctx), env->pid);
    return why;
}

/* A duration with its unit (250us, 50ms, 2s: the trigger rules' syntax, trigger/rule.h), in
 * nanoseconds; refused: the default. */
static const char *var_duration(const bb__g_var *v, bb__g_config *cfg, const char *value,
                                const bb__g_env *env, char *used, size_t cap) {
    (void)env, (void)used, (void)cap;
    uint64_t ns = v->def;
    const char *why = NULL;
    if (value && (!tg_parse_duration(value, &ns) || ns > v->hi)) {
        why = v->why;
        ns = v->def;
    }
    set_uint(v, cfg, ns);
    return why;
}

/* One of `words` (any case), stored as its value (an int); refused: the default. */
static const char *var_word(const bb__g_var *v, bb__g_config *cfg, const char *value,
                            const bb__g_env *env, char *used, size_t cap) {
    (void)env, (void)used, (void)cap;
    int x = (int)v->def;
    const char *why = value ? v->why : NULL;
    for (const bb__g_word *w = v->words; value && w->word; w++)
        if (strcasecmp(value, w->word) == 0) {
            x = w->value;
            why = NULL;
            break;
        }
    memcpy(field_of(v, cfg), &x, sizeof x);
    return why;
}

/* Read elsewhere (by every recorder): only checked here, exactly one of `words`, so that an
 * invalid value is reported like every other variable's. No field. */
static const char *var_check(const bb__g_var *v, bb__g_config *cfg, const char *value,
                             const bb__g_env *env, char *used, size_t cap) {
    (void)cfg, (void)env, (void)used, (void)cap;
    for (const bb__g_word *w = v->words; value && w->word; w++)
        if (strcmp(value, w->word) == 0) return NULL;
    return value ? v->why : NULL;
}

/* Read elsewhere, as a boolean: only checked here (var_check's case). */
static const char *var_check_bool(const bb__g_var *v, bb__g_config *cfg, const char *value,
                                  const bb__g_env *env, char *used, size_t cap) {
    (void)cfg, (void)env, (void)used, (void)cap;
    bool b;
    return !value || bb__bool_word(value, &b) ? NULL : v->why;
}

/* A trigger signal (bb__g_parse_signal) or "none"; refused: none. */
static const char *var_signal(const bb__g_var *v, bb__g_config *cfg, const char *value,
                              const bb__g_env *env, char *used, size_t cap) {
    (void)env, (void)used, (void)cap;
    int *sig = field_of(v, cfg);
    *sig = 0;
    if (!value || strcasecmp(value, "none") == 0 || bb__g_parse_signal(value, sig)) return NULL;
    *sig = 0;
    return v->why;
}

/* STRINGS[,BYTES] (sizes, e.g. 65536,8M): the intern table's capacity, at most 2^28 strings and
 * 4G-1 bytes; refused: the library's defaults (0, 0). */
static const char *var_intern_limit(const bb__g_var *v, bb__g_config *cfg, const char *value,
                                    const bb__g_env *env, char *used, size_t cap) {
    (void)env, (void)used, (void)cap;
    cfg->intern_entries = 0;
    cfg->intern_bytes = 0;
    if (!value) return NULL;
    char a[64];
    const char *comma = strchr(value, ',');
    size_t al = comma ? (size_t)(comma - value) : strlen(value);
    uint64_t n = 0, b = 0;
    if (al == 0 || al >= sizeof a) return v->why;
    memcpy(a, value, al);
    a[al] = 0;
    if (!bb__g_parse_size(a, &n) || n == 0 || n > (1u << 28) ||
        (comma && (!bb__g_parse_size(comma + 1, &b) || b == 0 || b > UINT32_MAX)))
        return v->why;
    cfg->intern_entries = (uint32_t)n;
    cfg->intern_bytes = (uint32_t)b;
    return NULL;
}

/* ---- the table --------------------------------------------------------------------------- */

static const bb__g_word policy_words[] = {{"keep-oldest", BB__G_KEEP_OLDEST},
                                          {"keep_oldest", BB__G_KEEP_OLDEST},
                                          {"keep-newest", BB__G_KEEP_NEWEST},
                                          {"keep_newest", BB__G_KEEP_NEWEST},
                                          {NULL, 0}};
/* Log levels (include/backbeat/log.h's BB_TRACE..BB_FATAL; 7 = never). */
static const bb__g_word level_words[] = {{"trace", 0},   {"debug", 1}, {"info", 2},  {"warn", 3},
                                         {"warning", 3}, {"error", 4}, {"fatal", 5}, {"off", 6},
                                         {"none", 6},    {NULL, 0}};
static const bb__g_word dump_level_words[] = {
    {"trace", 0}, {"debug", 1}, {"info", 2}, {"warn", 3}, {"warning", 3},
    {"error", 4}, {"fatal", 5}, {"off", 7},  {"none", 7}, {NULL, 0}};
static const bb__g_word clock_words[] = {{"tsc", 0}, {"monotonic", 0}, {NULL, 0}};
static const bb__g_word commit_words[] = {{"fetch_add", 0}, {"rseq", 0}, {NULL, 0}};

#define FIELD(f) .field = offsetof(bb__g_config, f), .width = sizeof(((bb__g_config *)0)->f)
#define BOOL_WHY .why = "is not a boolean", .used = "off"

const bb__g_var bb__g_vars[] = {
    {.name = "BACKBEAT_ENABLE",
     .parse = var_bool,
     FIELD(enable),
     .why = "is not a boolean (1/true/yes/on, 0/false/no/off)",
     .used = "off",
     .doc = "arm capture as soon as the recorder is built (`1`/`true`/`yes`/`on`; "
            "`0`/`false`/`no`/`off`)",
     .doc_default = "off"},
    {.name = "BACKBEAT_SHARDS",
     .parse = var_shards,
     FIELD(shards),
     .def = BB__G_MAX_SHARDS_DEFAULT,
     .lo = 1,
     .hi = BB__G_MAX_SHARDS,
     .why = "is not a positive integer",
     .doc = "number of per-CPU rings (1 to 1024)",
     .doc_default = "online CPUs, capped at 16"},
    {.name = "BACKBEAT_BYTES",
     .parse = var_size,
     FIELD(bytes),
     .def = BB__G_DEFAULT_BYTES,
     .lo = BB__G_MIN_BYTES,
     .hi = 1ull << 40,
     .why = "is not a size (e.g. 65536, 64k, 16M, 1G)",
     .doc = "bytes per shard, rounded up to a power of two (floor 4096, at most 1T); suffixes "
            "`k`, `M`, `G`, `T` (also `KiB`/`KB`, ..., all powers of 1024)",
     .doc_default = "16 MiB"},
    {.name = "BACKBEAT_PATH",
     .parse = var_path,
     FIELD(path),
     .lo = 48,
     .used = "the default path",
     .doc = "base dump path; dumps are named `<stem>.<pid>.<UTC stamp>.bb`, the stem being the "
            "path without a final `.bb`; with `%p` in the path each `%p` is replaced by the pid "
            "and none is added",
     .doc_default = "`${TMPDIR:-/tmp}/backbeat.<pid>.bb`"},
    {.name = "BACKBEAT_THROTTLE_MS",
     .parse = var_count,
     FIELD(throttle_ms),
     .def = BB__G_DEFAULT_THROTTLE_MS,
     .hi = 86400000ull * 365,
     .why = "is not a number of milliseconds",
     .used = "1000",
     .doc = "minimum interval between background dumps, in milliseconds (`0` = none)",
     .doc_default = "1000"},
    {.name = "BACKBEAT_MAX_DUMPS",
     .parse = var_count,
     FIELD(max_dumps),
     .def = BB__G_DEFAULT_MAX_DUMPS,
     .hi = 1000000,
     .why = "is not a count (0 = unlimited, at most 1000000)",
     .used = "8",
     .doc = "cap on the dump files this process keeps (`0` = unlimited)",
     .doc_default = "8"},
    {.name = "BACKBEAT_LIMIT_POLICY",
     .parse = var_word,
     FIELD(limit_policy),
     .def = BB__G_KEEP_OLDEST,
     .words = policy_words,
     .why = "is not keep-oldest or keep-newest",
     .used = "keep-oldest",
     .doc = "at the cap: `keep-oldest` (write no more) or `keep-newest` (delete the oldest file "
            "this process wrote)",
     .doc_default = "`keep-oldest`"},
    {.name = "BACKBEAT_DIR_MAX_USE",
     .parse = var_share,
     FIELD(dir_max_use),
     .def = BB__G_DEFAULT_MAX_USE,
     .why = "is not a size or a percentage",
     .used = "10%",
     .doc = "the most the backbeat files (dumps and ring files of every process, any pid) in "
            "the dump directory may take together: a size (`512M`, `0` = no bound) or a "
            "percentage of its file system (`10%`); checked before each dump, under a lock "
            "shared by every process (ENVIRONMENT.md, \"One budget per directory\")",
     .doc_default = "`10%`, at most 4G"},
    {.name = "BACKBEAT_DIR_KEEP_FREE",
     .parse = var_share,
     FIELD(dir_keep_free),
     .def = BB__G_DEFAULT_KEEP_FREE,
     .why = "is not a size or a percentage",
     .used = "15%",
     .doc = "the free space a dump or ring file must leave on the dump directory's file "
            "system: a size or a percentage of it (`0` = none)",
     .doc_default = "`15%`, at most 4G"},
    {.name = "BACKBEAT_HOST",
     .parse = var_host,
     FIELD(host),
     .why = "is too long",
     .used = "the system hostname",
     .doc = "host label written in each dump (at most 255 bytes)",
     .doc_default = "the system hostname"},
    {.name = "BACKBEAT_SIGNAL",
     .parse = var_signal,
     FIELD(signal),
     .why = "is not usr1, usr2 or a catchable non-crash signal number",
     .used = "none",
     .doc = "`kill -<sig> <pid>` triggers a dump: `usr1`, `usr2` (or `SIGUSR1`, ...), or a "
            "signal number that is catchable and not a crash signal; a warning on stderr when "
            "the program already handles it (backbeat dumps, then calls that handler) or later "
            "replaces backbeat's handler (the dumper thread checks about once a second)",
     .doc_default = "none"},
    {.name = "BACKBEAT_DUMP_ON_CRASH",
     .alias = "BACKBEAT_DUMP_ON_PANIC",
     .parse = var_bool,
     FIELD(dump_on_crash),
     BOOL_WHY,
     .doc = "SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT write a final dump first, which records "
            "where (backbeat::Crash: signal, fault, thread, stack; backbeat::Module: the loaded "
            "modules)",
     .doc_default = "off"},
    {.name = "BACKBEAT_DUMP_ON_EXIT",
     .parse = var_bool,
     FIELD(dump_on_exit),
     BOOL_WHY,
     .doc = "a normal exit (`exit()`, return from `main`) writes a final dump",
     .doc_default = "off"},
    {.name = "BACKBEAT_CLOCK",
     .parse = var_check,
     .words = clock_words,
     .why = "is not tsc or monotonic",
     .used = "the default clock",
     .doc = "the recorder's clock: `tsc` or `monotonic` (read by every recorder, see "
            "`recorder.h`)",
     .doc_default = "the fastest accurate one"},
    {.name = "BACKBEAT_LOG_LEVEL",
     .parse = var_check,
     .words = level_words,
     .why = "is not a log level (trace, debug, info, warn, error, fatal, off)",
     .used = "info",
     .doc = "log lines (`BB_LOG`) below this level are not recorded: `trace`, `debug`, `info`, "
            "`warn`, `error`, `fatal` or `off` (read by every recorder, see `log.h`)",
     .doc_default = "`info`"},
    {.name = "BACKBEAT_DUMP_ON_LOG",
     .parse = var_word,
     FIELD(dump_on_log),
     .def = 7,
     .words = dump_level_words,
     .why = "is not a log level (trace, debug, info, warn, error, fatal, off)",
     .used = "off",
     .doc = "a log line at or above this level recorded into the global recorder (`BB_GLOG`) "
            "triggers a dump, like `bb_global_trigger` (throttled alike)",
     .doc_default = "off"},
    {.name = "BACKBEAT_RING_DIR",
     .parse = var_text,
     FIELD(ring_dir),
     .lo = 64,
     .why = "is too long",
     .used = "anonymous memory",
     .doc = "map the rings `MAP_SHARED` from `DIR/backbeat.<pid>.<instance>.ring` so they "
            "survive SIGKILL and the OOM killer (`backbeat recover`, `docs/RING_FILE.md`); when "
            "the file cannot be created or sized, a message and anonymous memory",
     .doc_default = "anonymous memory"},
    {.name = "BACKBEAT_RING_KEEP",
     .parse = var_bool,
     FIELD(ring_keep),
     BOOL_WHY,
     .doc = "keep that file after a normal exit (boolean)",
     .doc_default = "off: removed at exit"},
    {.name = "BACKBEAT_INTERN_LIMIT",
     .parse = var_intern_limit,
     FIELD(intern_entries),
     .why = "is not STRINGS[,BYTES] (e.g. 65536,8M; at most 256M strings, 4G-1 bytes)",
     .used = "the default size",
     .doc = "the intern table's capacity, `STRINGS[,BYTES]` (sizes as `BACKBEAT_BYTES`, e.g. "
            "`65536,8M`), recycled in generations once the rings have wrapped past them "
            "(docs/guide/instrument.md); a full table is counted, reported once on stderr and "
            "shown by `backbeat inspect`, later new strings record as "
            "`<backbeat: intern table full>`",
     .doc_default = "a string per 20 bytes of the rings, at most 4 Mi (4194304), 48 bytes "
                    "each, at least `16384,1M` (`16384,1M` in a ring file)"},
    {.name = "BACKBEAT_COMMIT",
     .parse = var_check,
     .words = commit_words,
     .why = "is not rseq or fetch_add",
     .used = "the default commit path",
     .doc = "how records are committed: `rseq` (a restartable sequence on the CPU's own shard, "
            "where the host allows it) or `fetch_add` (the atomic fallback); see "
            "`bb_recorder_commit_name` in `recorder.h`",
     .doc_default = "`rseq` where possible"},
    {.name = "BACKBEAT_LIVE_RT",
     .parse = var_check_bool,
     .why = "is not a boolean",
     .used = "on",
     .doc = "`0` (`false`/`no`/`off`): a live dump (in process, or `backbeat recover --force` "
            "and `watch` of a running process's ring file) never copies a ring as `SCHED_FIFO`, "
            "only on that ring's CPU with a long time slice; read when the library loads, by "
            "every recorder and the CLI (\"Live dumps and real-time priority\")",
     .doc_default = "on: `SCHED_FIFO` where allowed (root, `CAP_SYS_NICE`, `RLIMIT_RTPRIO`)"},
    {.name = "BACKBEAT_TRIGGER",
     .parse = var_text,
     FIELD(trigger),
     .lo = 1,
     .why = "is too long (at most 4094 bytes)",
     .used = "no rule",
     .doc = "condition triggers, `RULE; RULE`: `span NS::Name > DURATION` (a span slower than "
            "that, or still open that long), `NS::Name` (any record), `NS::Name FIELD OP VALUE` "
            "(`==` `!=` `<` `<=` `>` `>=`; a number, an enum label or a \"string\"), `log OP "
            "LEVEL` (a log line of `BB_LOG`/`BB_GLOG` whose level compares so: `log >= error`; "
            "LEVEL trace, debug, info, warn, error or fatal, any case); each firing "
            "writes one dump (throttle and limits apply); a bad rule is reported and left out",
     .doc_default = "none"},
    {.name = "BACKBEAT_TRIGGER_AFTER",
     .parse = var_duration,
     FIELD(trigger_after_ns),
     .hi = 3600000000000ull,
     .why = "is not a duration (250us, 50ms, 2s; at most 1 hour)",
     .used = "0",
     .doc = "how long recording goes on after a trigger fires before its dump is taken",
     .doc_default = "0"},
};
const size_t bb__g_var_count = sizeof bb__g_vars / sizeof bb__g_vars[0];

/* ---- parsing the environment ------------------------------------------------------------- */

/* The first 200 bytes of `value` as a message may show them: a control byte, a quote, a
 * backslash or a byte >= 0x7f escaped (\n, \t, \", \\, \xNN), so that a value cannot forge a
 * line of its own on stderr (issue 43). */
static void escape_value(char *out, size_t cap, const char *value) {
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (size_t i = 0; value[i] && i < 200 && o + 5 < cap; i++) {
        unsigned char c = (unsigned char)value[i];
        const char *esc = c == '\n'   ? "\\n"
                          : c == '\t' ? "\\t"
                          : c == '"'  ? "\\\""
                          : c == '\\' ? "\\\\"
                                      : NULL;
        if (esc) {
            memcpy(out + o, esc, 2);
            o += 2;
        } else if (c < 0x20 || c >= 0x7f) {
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        } else {
            out[o++] = (char)c;
        }
    }
    out[o] = '\0';
}

static void warnf(bb__g_warn_fn warn, void *ctx, const char *var, const char *value,
                  const char *why, const char *used) {
    char shown[4 * 200 + 8], msg[1024];
    escape_value(shown, sizeof shown, value);
    snprintf(msg, sizeof msg, "%s=\"%s\" %s; using %s", var, shown, why, used);
    warn(msg, ctx);
}

/* Contract: see global_internal.h. */
void bb__g_config_parse(bb__g_config *cfg, bb__g_getenv_fn get, void *get_ctx, bb__g_warn_fn warn,
                        void *warn_ctx, long online_cpus, long pid) {
    const bb__g_env env = {get, get_ctx, online_cpus, pid};
    memset(cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < bb__g_var_count; i++) {
        const bb__g_var *v = &bb__g_vars[i];
        const char *name = v->name, *value = get(name, get_ctx);
        if (!value && v->alias) value = get(name = v->alias, get_ctx);
        char used[64];
        snprintf(used, sizeof used, "%s", v->used ? v->used : "");
        const char *why = v->parse(v, cfg, value && *value ? value : NULL, &env, used, sizeof used);
        if (why) warnf(warn, warn_ctx, name, value, why, used);
    }
}
