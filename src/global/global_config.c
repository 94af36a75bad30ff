/* global_config.c — the syntax of BACKBEAT_* values: counts, byte sizes, signal names, and
 * the default dump path (booleans are common/bool_word.c). The variables themselves, their
 * ranges, defaults and messages are the table in global_config_table.c. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "global/global_internal.h"

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
    case 'k':
    case 'K':
        shift = 10;
        p++;
        break;
    case 'm':
    case 'M':
        shift = 20;
        p++;
        break;
    case 'g':
    case 'G':
        shift = 30;
        p++;
        break;
    case 't':
    case 'T':
        shift = 40;
        p++;
        break;
    case 'b':
    case 'B':
        p++;
        if (*p) return false;
        break;
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
    if (strcasecmp(n, "usr1") == 0) {
        *out = SIGUSR1;
        return true;
    }
    if (strcasecmp(n, "usr2") == 0) {
        *out = SIGUSR2;
        return true;
    }
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
