/* global_config.c — the global recorder's configuration, read from BACKBEAT_* variables.
 *
 * Pure parsing: the variables come through a lookup callback and every invalid value is
 * reported through a warning callback (naming the variable, the value given and the value
 * used instead), so the whole table of docs/ENVIRONMENT.md is unit-testable.
 */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "global/global_internal.h"

bool bb__g_parse_bool(const char *s, bool *out) {
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};
    if (!s) return false;
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(s, yes[i]) == 0) { *out = true; return true; }
        if (strcasecmp(s, no[i]) == 0) { *out = false; return true; }
    }
    return false;
}

/* Parse leading decimal digits of s into *v; returns the pointer after them, NULL when there
 * are none or on overflow. */
static const char *parse_digits(const char *s, uint64_t *v) {
    uint64_t x = 0;
    const char *p = s;
    while (*p >= '0' && *p <= '9') {
        unsigned d = (unsigned)(*p - '0');
        if (x > (UINT64_MAX - d) / 10) return NULL;
        x = x * 10 + d;
        p++;
    }
    if (p == s) return NULL;
    *v = x;
    return p;
}

bool bb__g_parse_u64(const char *s, uint64_t *out) {
    uint64_t v;
    if (!s) return false;
    const char *end = parse_digits(s, &v);
    if (!end || *end) return false;
    *out = v;
    return true;
}

bool bb__g_parse_size(const char *s, uint64_t *out) {
    uint64_t v;
    if (!s) return false;
    const char *p = parse_digits(s, &v);
    if (!p) return false;
    unsigned shift = 0;
    switch (*p) {
    case '\0': break;
    case 'k': case 'K': shift = 10; p++; break;
    case 'm': case 'M': shift = 20; p++; break;
    case 'g': case 'G': shift = 30; p++; break;
    case 't': case 'T': shift = 40; p++; break;
    case 'b': case 'B': p++; if (*p) return false; break;
    default: return false;
    }
    if (shift) {
        /* optional "B", "iB" */
        if (*p == 'i' || *p == 'I') {
            p++;
            if (*p != 'b' && *p != 'B') return false;
        }
        if (*p == 'b' || *p == 'B') p++;
        if (*p) return false;
        if (v > (UINT64_MAX >> shift)) return false;
        v <<= shift;
    }
    *out = v;
    return true;
}

bool bb__g_parse_signal(const char *s, int *out) {
    if (!s || !*s) return false;
    const char *n = s;
    if (strncasecmp(n, "sig", 3) == 0) n += 3;
    if (strcasecmp(n, "usr1") == 0) { *out = SIGUSR1; return true; }
    if (strcasecmp(n, "usr2") == 0) { *out = SIGUSR2; return true; }
    uint64_t v;
    if (!bb__g_parse_u64(s, &v) || v < 1 || v > (uint64_t)SIGRTMAX) return false;
    int sig = (int)v;
    if (sig == SIGKILL || sig == SIGSTOP || sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
        sig == SIGFPE || sig == SIGABRT)
        return false;
    *out = sig;
    return true;
}

void bb__g_default_path(char *out, size_t cap, const char *tmpdir, long pid) {
    if (!tmpdir || !*tmpdir) tmpdir = "/tmp";
    size_t tl = strlen(tmpdir);
    while (tl > 1 && tmpdir[tl - 1] == '/') tl--;
    int n = snprintf(out, cap, "%.*s/backbeat.%ld.bb", (int)tl, tmpdir, pid);
    if (n < 0 || (size_t)n >= cap) snprintf(out, cap, "/tmp/backbeat.%ld.bb", pid);
}

static void warnf(bb__g_warn_fn warn, void *ctx, const char *var, const char *value,
                  const char *why, const char *used) {
    char msg[512];
    snprintf(msg, sizeof msg, "%s=\"%.200s\" %s; using %s", var, value, why, used);
    warn(msg, ctx);
}

/* BACKBEAT_INTERN_LIMIT=STRINGS[,BYTES] (sizes: 65536,8M): at most 2^28 strings and 4G-1
 * bytes; an invalid value keeps the library's defaults (16384 strings, 1 MiB). */
static void parse_intern_limit(bb__g_config *cfg, const char *v, bb__g_warn_fn warn,
                               void *warn_ctx) {
    char a[64];
    const char *comma = strchr(v, ',');
    size_t al = comma ? (size_t)(comma - v) : strlen(v);
    uint64_t n = 0, b = 0;
    bool ok = al > 0 && al < sizeof a;
    if (ok) {
        memcpy(a, v, al);
        a[al] = 0;
        ok = bb__g_parse_size(a, &n) && n > 0 && n <= (1u << 28) &&
             (!comma || (bb__g_parse_size(comma + 1, &b) && b > 0 && b <= UINT32_MAX));
    }
    if (!ok) {
        warnf(warn, warn_ctx, "BACKBEAT_INTERN_LIMIT", v,
              "is not STRINGS[,BYTES] (e.g. 65536,8M; at most 256M strings, 4G-1 bytes)",
              "16384,1M");
        return;
    }
    cfg->intern_entries = (uint32_t)n;
    cfg->intern_bytes = (uint32_t)b;
}

static const char *get2(bb__g_getenv_fn get, void *ctx, const char *a, const char *b,
                        const char **name) {
    const char *v = get(a, ctx);
    *name = a;
    if (!v && b) {
        v = get(b, ctx);
        *name = b;
    }
    return v;
}

void bb__g_config_parse(bb__g_config *cfg, bb__g_getenv_fn get, void *get_ctx, bb__g_warn_fn warn,
                      void *warn_ctx, long online_cpus, long pid) {
    char used[64];
    const char *v, *name;
    memset(cfg, 0, sizeof *cfg);

    /* BACKBEAT_ENABLE */
    if ((v = get("BACKBEAT_ENABLE", get_ctx)) && *v && !bb__g_parse_bool(v, &cfg->enable))
        warnf(warn, warn_ctx, "BACKBEAT_ENABLE", v, "is not a boolean (1/true/yes/on, 0/false/no/off)",
              "off");

    /* BACKBEAT_SHARDS */
    uint32_t def_shards = online_cpus < 1 ? 1u
                          : online_cpus > (long)BB__G_MAX_SHARDS_DEFAULT ? BB__G_MAX_SHARDS_DEFAULT
                                                                       : (uint32_t)online_cpus;
    cfg->shards = def_shards;
    if ((v = get("BACKBEAT_SHARDS", get_ctx)) && *v) {
        uint64_t n;
        if (!bb__g_parse_u64(v, &n) || n == 0) {
            snprintf(used, sizeof used, "%u", def_shards);
            warnf(warn, warn_ctx, "BACKBEAT_SHARDS", v, "is not a positive integer", used);
        } else if (n > BB__G_MAX_SHARDS) {
            cfg->shards = BB__G_MAX_SHARDS;
            snprintf(used, sizeof used, "%u", BB__G_MAX_SHARDS);
            warnf(warn, warn_ctx, "BACKBEAT_SHARDS", v, "is above the maximum", used);
        } else {
            cfg->shards = (uint32_t)n;
        }
    }

    /* BACKBEAT_BYTES */
    cfg->bytes = BB__G_DEFAULT_BYTES;
    if ((v = get("BACKBEAT_BYTES", get_ctx)) && *v) {
        uint64_t n;
        if (!bb__g_parse_size(v, &n)) {
            warnf(warn, warn_ctx, "BACKBEAT_BYTES", v, "is not a size (e.g. 65536, 64k, 16M, 1G)",
                  "16M");
        } else if (n < BB__G_MIN_BYTES) {
            cfg->bytes = BB__G_MIN_BYTES;
            warnf(warn, warn_ctx, "BACKBEAT_BYTES", v, "is below the floor", "4096");
        } else if (n > (1ull << 40)) {
            cfg->bytes = 1ull << 40;
            warnf(warn, warn_ctx, "BACKBEAT_BYTES", v, "is above the maximum", "1T");
        } else {
            cfg->bytes = n;
        }
    }

    /* BACKBEAT_PATH */
    cfg->path_is_default = true;
    if ((v = get("BACKBEAT_PATH", get_ctx)) && *v) {
        size_t l = strlen(v);
        if (l + 48 >= sizeof cfg->path) {
            warnf(warn, warn_ctx, "BACKBEAT_PATH", v, "is too long", "the default path");
        } else if (v[l - 1] == '/') {
            warnf(warn, warn_ctx, "BACKBEAT_PATH", v, "names a directory, not a file",
                  "the default path");
        } else {
            memcpy(cfg->path, v, l + 1);
            cfg->path_is_default = false;
        }
    }
    if (cfg->path_is_default)
        bb__g_default_path(cfg->path, sizeof cfg->path, get("TMPDIR", get_ctx), pid);

    /* BACKBEAT_THROTTLE_MS */
    cfg->throttle_ms = BB__G_DEFAULT_THROTTLE_MS;
    if ((v = get("BACKBEAT_THROTTLE_MS", get_ctx)) && *v) {
        uint64_t n;
        if (!bb__g_parse_u64(v, &n) || n > 86400000ull * 365)
            warnf(warn, warn_ctx, "BACKBEAT_THROTTLE_MS", v,
                  "is not a number of milliseconds", "1000");
        else
            cfg->throttle_ms = n;
    }

    /* BACKBEAT_MAX_DUMPS */
    cfg->max_dumps = BB__G_DEFAULT_MAX_DUMPS;
    if ((v = get("BACKBEAT_MAX_DUMPS", get_ctx)) && *v) {
        uint64_t n;
        if (!bb__g_parse_u64(v, &n) || n > 1000000)
            warnf(warn, warn_ctx, "BACKBEAT_MAX_DUMPS", v,
                  "is not a count (0 = unlimited, at most 1000000)", "8");
        else
            cfg->max_dumps = (uint32_t)n;
    }

    /* BACKBEAT_LIMIT_POLICY */
    cfg->limit_policy = BB__G_KEEP_OLDEST;
    if ((v = get("BACKBEAT_LIMIT_POLICY", get_ctx)) && *v) {
        if (strcasecmp(v, "keep-oldest") == 0 || strcasecmp(v, "keep_oldest") == 0)
            cfg->limit_policy = BB__G_KEEP_OLDEST;
        else if (strcasecmp(v, "keep-newest") == 0 || strcasecmp(v, "keep_newest") == 0)
            cfg->limit_policy = BB__G_KEEP_NEWEST;
        else
            warnf(warn, warn_ctx, "BACKBEAT_LIMIT_POLICY", v,
                  "is not keep-oldest or keep-newest", "keep-oldest");
    }

    /* BACKBEAT_HOST */
    if ((v = get("BACKBEAT_HOST", get_ctx)) && *v) {
        size_t l = strlen(v);
        if (l >= sizeof cfg->host) {
            warnf(warn, warn_ctx, "BACKBEAT_HOST", v, "is too long", "the system hostname");
            v = NULL;
        } else {
            memcpy(cfg->host, v, l + 1);
        }
    } else {
        v = NULL;
    }
    if (!v) {
        if (gethostname(cfg->host, sizeof cfg->host) != 0) cfg->host[0] = '\0';
        cfg->host[sizeof cfg->host - 1] = '\0';
    }

    /* BACKBEAT_SIGNAL */
    if ((v = get("BACKBEAT_SIGNAL", get_ctx)) && *v && strcasecmp(v, "none") != 0 &&
        !bb__g_parse_signal(v, &cfg->signal)) {
        cfg->signal = 0;
        warnf(warn, warn_ctx, "BACKBEAT_SIGNAL", v,
              "is not usr1, usr2 or a catchable non-crash signal number", "none");
    }

    /* BACKBEAT_DUMP_ON_CRASH (alias BACKBEAT_DUMP_ON_PANIC) */
    if ((v = get2(get, get_ctx, "BACKBEAT_DUMP_ON_CRASH", "BACKBEAT_DUMP_ON_PANIC", &name)) &&
        *v && !bb__g_parse_bool(v, &cfg->dump_on_crash))
        warnf(warn, warn_ctx, name, v, "is not a boolean", "off");

    /* BACKBEAT_DUMP_ON_EXIT */
    if ((v = get("BACKBEAT_DUMP_ON_EXIT", get_ctx)) && *v &&
        !bb__g_parse_bool(v, &cfg->dump_on_exit))
        warnf(warn, warn_ctx, "BACKBEAT_DUMP_ON_EXIT", v, "is not a boolean", "off");

    /* BACKBEAT_RING_DIR, BACKBEAT_RING_KEEP: file-backed rings (docs/RING_FILE.md) */
    if ((v = get("BACKBEAT_RING_DIR", get_ctx)) && *v) {
        size_t l = strlen(v);
        if (l + 64 >= sizeof cfg->ring_dir)
            warnf(warn, warn_ctx, "BACKBEAT_RING_DIR", v, "is too long", "anonymous memory");
        else
            memcpy(cfg->ring_dir, v, l + 1);
    }
    if ((v = get("BACKBEAT_RING_KEEP", get_ctx)) && *v && !bb__g_parse_bool(v, &cfg->ring_keep))
        warnf(warn, warn_ctx, "BACKBEAT_RING_KEEP", v, "is not a boolean", "off");

    /* BACKBEAT_INTERN_LIMIT=STRINGS[,BYTES]: the intern table's capacity */
    if ((v = get("BACKBEAT_INTERN_LIMIT", get_ctx)) && *v)
        parse_intern_limit(cfg, v, warn, warn_ctx);

    /* BACKBEAT_CLOCK: read by the recorder itself (clock.c), which ignores any other value;
     * checked here so that an invalid one is reported like every other variable. */
    if ((v = get("BACKBEAT_CLOCK", get_ctx)) && *v && strcmp(v, "tsc") != 0 &&
        strcmp(v, "monotonic") != 0)
        warnf(warn, warn_ctx, "BACKBEAT_CLOCK", v, "is not tsc or monotonic",
              "the default clock");

    /* BACKBEAT_COMMIT: read by the recorder itself (commit.c), likewise. */
    if ((v = get("BACKBEAT_COMMIT", get_ctx)) && *v && strcmp(v, "fetch_add") != 0 &&
        strcmp(v, "rseq") != 0)
        warnf(warn, warn_ctx, "BACKBEAT_COMMIT", v, "is not rseq or fetch_add",
              "the default commit path");
}
