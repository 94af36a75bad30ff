/* cli_util.c — messages, option-value parsers, buffered JSON-aware output, temp-and-rename
 * output files and TTY-only progress for the `backbeat` tool (see cli_util.h). */
/* SPDX-License-Identifier: MIT */
#include "cli/cli_util.h"
#include "cli/ringfile.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/json.h"

/* ---------------------------------------------------------------- messages */

void cli_error(const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "backbeat: %s\n", msg);
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "backbeat: %s\nTry 'backbeat %s%s--help'.\n", msg, cmd ? cmd : "",
            cmd ? " " : "");
    return CLI_USAGE;
}

int cli_option_error(const char *cmd, int c, char **argv) {
    if (c == ':') return cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
    return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}

/* ---------------------------------------------------------------- parsers */

bool cli_parse_u64(const char *s, bool allow_hex, uint64_t *out) {
    if (!s || !*s) return false;
    unsigned base = 10;
    if (allow_hex && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
        if (!*s) return false;
    }
    uint64_t v = 0;
    for (; *s; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9') d = (unsigned)(*s - '0');
        else if (base == 16 && *s >= 'a' && *s <= 'f') d = (unsigned)(*s - 'a' + 10);
        else if (base == 16 && *s >= 'A' && *s <= 'F') d = (unsigned)(*s - 'A' + 10);
        else return false;
        if (v > (UINT64_MAX - d) / base) return false;
        v = v * base + d;
    }
    *out = v;
    return true;
}

bool cli_parse_hex64(const char *s, uint64_t *out) {
    if (!s) return false;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
    size_t n = strlen(s);
    if (n == 0 || n > 16) return false;
    uint64_t v = 0;
    for (; *s; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9') d = (unsigned)(*s - '0');
        else if (*s >= 'a' && *s <= 'f') d = (unsigned)(*s - 'a' + 10);
        else if (*s >= 'A' && *s <= 'F') d = (unsigned)(*s - 'A' + 10);
        else return false;
        v = (v << 4) | d;
    }
    *out = v;
    return true;
}

bool cli_parse_int(const char *s, long lo, long hi, int *out) {
    if (!s || !*s) return false;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return false;
    *out = (int)v;
    return true;
}

bool cli_parse_time(const char *s, uint64_t *ns, bool *relative) {
    if (!s || !*s) return false;
    *relative = false;
    if (*s != '+') return cli_parse_u64(s, false, ns);
    *relative = true;
    s++;
    /* integer part, optional fraction, then a unit */
    uint64_t ip = 0;
    int digits = 0;
    while (*s >= '0' && *s <= '9') {
        uint64_t d = (uint64_t)(*s - '0');
        if (ip > (UINT64_MAX - d) / 10) return false;
        ip = ip * 10 + d;
        s++;
        digits++;
    }
    uint64_t frac = 0, frac_scale = 1;
    if (*s == '.') {
        s++;
        while (*s >= '0' && *s <= '9') {
            if (frac_scale < 1000000000000ull) {
                frac = frac * 10 + (uint64_t)(*s - '0');
                frac_scale *= 10;
            }
            s++;
            digits++;
        }
    }
    if (!digits) return false;
    uint64_t mult;
    if (!strcmp(s, "s")) mult = 1000000000ull;
    else if (!strcmp(s, "ms")) mult = 1000000ull;
    else if (!strcmp(s, "us")) mult = 1000ull;
    else if (!strcmp(s, "ns") || !*s) mult = 1ull;
    else return false;
    if (ip > UINT64_MAX / mult) return false;
    uint64_t v = ip * mult;
    /* frac / frac_scale * mult, exactly enough for ns resolution */
    uint64_t f = (uint64_t)((long double)frac * (long double)mult / (long double)frac_scale + 0.5L);
    if (v > UINT64_MAX - f) return false;
    *ns = v + f;
    return true;
}

/* ---------------------------------------------------------------- buffered output */

bool cli_buf_init(cli_buf *b, int fd, size_t cap) {
    memset(b, 0, sizeof *b);
    b->fd = fd;
    b->cap = cap;
    b->data = malloc(cap);
    return b->data != NULL;
}

/* A buffer over no fd (fd < 0) grows instead; out of memory, its bytes are dropped and the
 * error is kept. */
static void buf_grow(cli_buf *b) {
    size_t cap = b->cap ? b->cap * 2 : 4096;
    char *n = b->failed ? NULL : realloc(b->data, cap);
    if (!n) {
        b->failed = ENOMEM;
        b->len = 0;
        return;
    }
    b->data = n;
    b->cap = cap;
}

static void buf_drain(cli_buf *b) {
    if (b->fd < 0) {
        buf_grow(b);
        return;
    }
    size_t off = 0;
    while (off < b->len && !b->failed) {
        ssize_t w = write(b->fd, b->data + off, b->len - off);
        if (w < 0) {
            if (errno == EINTR) continue;
            b->failed = errno ? errno : EIO;
            break;
        }
        off += (size_t)w;
    }
    b->written += off;
    b->len = 0;
}

int cli_buf_flush(cli_buf *b) {
    if (b->len && b->fd >= 0) buf_drain(b);
    return b->failed;
}

int cli_buf_finish(cli_buf *b) {
    int r = cli_buf_flush(b);
    free(b->data);
    b->data = NULL;
    return r;
}

void cli_buf_write_slow(cli_buf *b, const void *data, size_t len) {
    const char *p = data;
    while (len) {
        if (b->len == b->cap) buf_drain(b);
        size_t n = b->cap - b->len;
        if (n > len) n = len;
        memcpy(b->data + b->len, p, n);
        b->len += n;
        p += n;
        len -= n;
    }
}

void cli_buf_puts(cli_buf *b, const char *s) { cli_buf_write(b, s, strlen(s)); }

void cli_buf_putc_slow(cli_buf *b, char c) {
    if (b->len == b->cap) buf_drain(b);
    if (b->len < b->cap) b->data[b->len++] = c;
}

void cli_buf_printf(cli_buf *b, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) {
        cli_buf_write(b, tmp, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->failed = ENOMEM;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    cli_buf_write(b, big, (size_t)n);
    free(big);
}

/* "00" .. "99": two digits per division. */
static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

void cli_buf_u64(cli_buf *b, uint64_t v) {
    char tmp[24];
    size_t i = sizeof tmp;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        tmp[--i] = digit_pairs[d + 1];
        tmp[--i] = digit_pairs[d];
    }
    if (v >= 10) {
        tmp[--i] = digit_pairs[v * 2 + 1];
        tmp[--i] = digit_pairs[v * 2];
    } else {
        tmp[--i] = (char)('0' + v);
    }
    cli_buf_write(b, tmp + i, sizeof tmp - i);
}

void cli_buf_i64(cli_buf *b, int64_t v) {
    if (v < 0) {
        cli_buf_putc(b, '-');
        cli_buf_u64(b, (uint64_t)0 - (uint64_t)v);
    } else {
        cli_buf_u64(b, (uint64_t)v);
    }
}

static const char hexdig[] = "0123456789abcdef";

void cli_buf_hex16(cli_buf *b, uint64_t v) {
    char tmp[16];
    for (int i = 15; i >= 0; i--) {
        tmp[i] = hexdig[v & 15];
        v >>= 4;
    }
    cli_buf_write(b, tmp, 16);
}

void cli_buf_hexbytes(cli_buf *b, const uint8_t *p, size_t n) {
    char tmp[128];
    while (n) {
        size_t k = n < sizeof tmp / 2 ? n : sizeof tmp / 2;
        for (size_t i = 0; i < k; i++) {
            tmp[2 * i] = hexdig[p[i] >> 4];
            tmp[2 * i + 1] = hexdig[p[i] & 15];
        }
        cli_buf_write(b, tmp, 2 * k);
        p += k;
        n -= k;
    }
}

/* bb_text_fn appending to the cli_buf `ctx`. */
static int buf_piece(void *ctx, const char *text, size_t len) {
    cli_buf_write(ctx, text, len);
    return 0;
}

void cli_buf_json_str(cli_buf *b, const char *s, size_t n) {
    cli_buf_putc(b, '"');
    (void)bb_json_escape_each(s, n, buf_piece, b);
    cli_buf_putc(b, '"');
}

void cli_buf_json_u64(cli_buf *b, uint64_t v) {
    if (v > BB_JSON_SAFE_MAX) {
        cli_buf_putc(b, '"');
        cli_buf_u64(b, v);
        cli_buf_putc(b, '"');
    } else {
        cli_buf_u64(b, v);
    }
}

void cli_buf_json_i64(cli_buf *b, int64_t v) {
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    if (mag > BB_JSON_SAFE_MAX) {
        cli_buf_putc(b, '"');
        cli_buf_i64(b, v);
        cli_buf_putc(b, '"');
    } else {
        cli_buf_i64(b, v);
    }
}

void cli_buf_usec(cli_buf *b, uint64_t ns) {
    cli_buf_u64(b, ns / 1000);
    unsigned f = (unsigned)(ns % 1000);
    char tmp[4] = {'.', (char)('0' + f / 100), (char)('0' + f / 10 % 10), (char)('0' + f % 10)};
    cli_buf_write(b, tmp, 4);
}

void cli_buf_json_field(cli_buf *b, const bb_rschema *schema, size_t fi, const uint8_t *fields,
                        const bb_rinstance *inst) {
    bb_value v = bb_decode_field(schema, fi, fields, inst);
    switch (v.kind) {
    case BB_VALUE_ABSENT: cli_buf_write(b, "null", 4); break;
    case BB_VALUE_UINT: cli_buf_json_u64(b, v.u); break;
    case BB_VALUE_INT: cli_buf_json_i64(b, v.i); break;
    case BB_VALUE_BOOL: cli_buf_puts(b, v.b ? "true" : "false"); break;
    case BB_VALUE_BYTES:
        cli_buf_putc(b, '"');
        cli_buf_hexbytes(b, v.bytes, v.bytes_len);
        cli_buf_putc(b, '"');
        break;
    case BB_VALUE_ENUM:
        if (v.has_label) {
            cli_buf_json_str(b, v.str.ptr, v.str.len);
        } else {
            cli_buf_putc(b, '"');
            cli_buf_u64(b, v.u);
            cli_buf_putc(b, '"');
        }
        break;
    case BB_VALUE_STRING:
        if (v.has_label) {
            cli_buf_json_str(b, v.str.ptr, v.str.len);
        } else {
            cli_buf_write(b, "\"#", 2);
            cli_buf_u64(b, v.u);
            cli_buf_putc(b, '"');
        }
        break;
    }
}

/* ---------------------------------------------------------------- output files */

/* Temporaries to remove if a signal ends the process mid-write. */
#define MAX_PENDING 4
static char *volatile pending_tmp[MAX_PENDING];
static bool handlers_installed;

static void on_fatal_signal(int sig) {
    for (int i = 0; i < MAX_PENDING; i++)
        if (pending_tmp[i]) unlink(pending_tmp[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void pending_add(char *tmp) {
    if (!handlers_installed) {
        handlers_installed = true;
        int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
            struct sigaction sa;
            /* An inherited ignore (nohup, a shell's trap '' HUP) is kept: the user asked for
             * the signal not to end the process. */
            if (sigaction(sigs[i], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN) continue;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_fatal_signal;
            sigemptyset(&sa.sa_mask);
            sigaction(sigs[i], &sa, NULL);
        }
        /* Past a file-size limit (ulimit -f) a write fails with EFBIG, reported and cleaned
         * up like a full disk, instead of SIGXFSZ killing the process beside its temporary. */
        struct sigaction xa;
        if (sigaction(SIGXFSZ, NULL, &xa) == 0 && xa.sa_handler == SIG_DFL) {
            xa.sa_handler = SIG_IGN;
            sigaction(SIGXFSZ, &xa, NULL);
        }
    }
    for (int i = 0; i < MAX_PENDING; i++)
        if (!pending_tmp[i]) {
            pending_tmp[i] = tmp;
            return;
        }
}

static void pending_remove(char *tmp) {
    for (int i = 0; i < MAX_PENDING; i++)
        if (pending_tmp[i] == tmp) pending_tmp[i] = NULL;
}

bool cli_out_is_input(const char *out, char *const *inputs, size_t n) {
    struct stat so, si;
    if (!out || !strcmp(out, "-") || stat(out, &so) != 0) return false;
    for (size_t i = 0; i < n; i++)
        if (stat(inputs[i], &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
            cli_error("cannot write %s: it is the input %s", out, inputs[i]);
            return true;
        }
    return false;
}

/* The file a chain of symlinks at `path` ends at, existing or not (malloc'ed); NULL when `path`
 * is not a symlink or the chain cannot be followed (a loop, out of memory). */
static char *link_target(const char *path) {
    struct stat lst;
    if (lstat(path, &lst) != 0 || !S_ISLNK(lst.st_mode)) return NULL;
    char *cur = realpath(path, NULL);
    if (cur) return cur;
    cur = strdup(path);
    for (int hop = 0; cur && hop < 40; hop++) {
        if (lstat(cur, &lst) != 0 || !S_ISLNK(lst.st_mode)) return cur; /* the missing end */
        char to[PATH_MAX];
        ssize_t len = readlink(cur, to, sizeof to - 1);
        if (len <= 0) break;
        to[len] = 0;
        const char *slash = strrchr(cur, '/');
        size_t dirlen = to[0] == '/' || !slash ? 0 : (size_t)(slash - cur + 1);
        char *next = malloc(dirlen + (size_t)len + 1);
        if (next) {
            memcpy(next, cur, dirlen);
            memcpy(next + dirlen, to, (size_t)len + 1);
        }
        free(cur);
        cur = next;
    }
    free(cur);
    return NULL;
}

bool cli_out_open(cli_out *o, const char *path) {
    memset(o, 0, sizeof *o);
    o->fd = -1;
    if (!strcmp(path, "-")) {
        o->fd = STDOUT_FILENO;
        return true;
    }
    /* An existing non-regular file (a FIFO, /dev/null, a terminal) is written in place:
     * renaming over it would replace the device. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) {
            cli_error("cannot write %s: Is a directory", path);
            return false;
        }
        o->fd = open(path, O_WRONLY | O_CLOEXEC);
        if (o->fd < 0) {
            cli_error("cannot write %s: %s", path, strerror(errno));
            return false;
        }
        return true;
    }
    /* Through a symlink: write beside its target and rename onto the target (the link stays;
     * a dangling link gets its target created). */
    char *resolved = link_target(path);
    if (resolved)
        path = resolved;
    bool existed = stat(path, &st) == 0 && S_ISREG(st.st_mode);
    o->path = strdup(path);
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
    const char *base = slash ? slash + 1 : path;
    size_t n = strlen(path) + 32;
    o->tmp = malloc(n);
    if (!o->path || !o->tmp) {
        cli_error("cannot write %s: out of memory", path);
        free(resolved);
        free(o->path);
        free(o->tmp);
        o->path = o->tmp = NULL;
        return false;
    }
    snprintf(o->tmp, n, "%.*s.%s.tmp.XXXXXX", (int)dirlen, path, base);
    free(resolved);
    path = o->path;
    o->fd = mkstemp(o->tmp);
    if (o->fd < 0) {
        cli_error("cannot write %s: %s", path, strerror(errno));
        free(o->path);
        free(o->tmp);
        o->path = o->tmp = NULL;
        return false;
    }
    pending_add(o->tmp);
    /* mkstemp creates 0600: keep the mode of the file replaced, else the usual 0666 & ~umask. */
    mode_t um = umask(0);
    umask(um);
    (void)fchmod(o->fd, existed ? st.st_mode & 07777 : 0666 & ~um);
    return true;
}

bool cli_out_commit(cli_out *o) {
    if (!o->tmp) {
        bool ok = true;
        if (o->fd > STDERR_FILENO && close(o->fd) != 0) {
            cli_error("cannot write output: %s", strerror(errno));
            ok = false;
        }
        o->fd = -1;
        return ok;
    }
    bool ok = true;
    if (close(o->fd) != 0) {
        cli_error("cannot write %s: %s", o->path, strerror(errno));
        ok = false;
    } else if (rename(o->tmp, o->path) != 0) {
        cli_error("cannot write %s: %s", o->path, strerror(errno));
        ok = false;
    }
    o->fd = -1;
    if (!ok) unlink(o->tmp);
    pending_remove(o->tmp);
    free(o->tmp);
    free(o->path);
    o->tmp = o->path = NULL;
    return ok;
}

bool cli_write_file(const char *path, const void *data, size_t len, bool sync) {
    cli_out o;
    if (!cli_out_open(&o, path)) return false;
    const uint8_t *p = data;
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(o.fd, p + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        off += (size_t)w;
    }
    if (off != len || (sync && fsync(o.fd) != 0)) {
        cli_error("cannot write %s: %s", path, strerror(errno ? errno : EIO));
        cli_out_abort(&o);
        return false;
    }
    return cli_out_commit(&o);
}

void cli_out_abort(cli_out *o) {
    if (!o->tmp) {
        if (o->fd > STDERR_FILENO) close(o->fd);
        o->fd = -1;
        return;
    }
    if (o->fd >= 0) close(o->fd);
    unlink(o->tmp);
    pending_remove(o->tmp);
    free(o->tmp);
    free(o->path);
    o->tmp = o->path = NULL;
    o->fd = -1;
}

/* ---------------------------------------------------------------- progress */

uint64_t cli_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void cli_progress_init(cli_progress *p, const char *label) {
    p->enabled = isatty(STDERR_FILENO) == 1;
    p->label = label;
    p->start_ns = p->last_ns = cli_now_ns();
}

void cli_progress_update(uint64_t done, uint64_t total, void *ctx) {
    cli_progress *p = ctx;
    if (!p || !p->enabled) return;
    uint64_t now = cli_now_ns();
    if (now - p->last_ns < 200000000ull) return;
    p->last_ns = now;
    double secs = (double)(now - p->start_ns) / 1e9;
    double rate = secs > 0 ? (double)done / secs : 0;
    if (total)
        fprintf(stderr, "\r%s: %" PRIu64 "/%" PRIu64 " records (%.0f%%, %.0f records/s)   ",
                p->label, done, total, 100.0 * (double)done / (double)total, rate);
    else
        fprintf(stderr, "\r%s: %" PRIu64 " records (%.0f records/s)   ", p->label, done, rate);
}

void cli_progress_done(cli_progress *p) {
    if (p->enabled && cli_now_ns() - p->start_ns >= 200000000ull) fprintf(stderr, "\r\033[K");
}

/* ---------------------------------------------------------------- inputs */

/* Dumps opened from ring files, and the memory each was built in (freed at close). */
typedef struct ring_dump {
    bb_dump *dump;
    uint8_t *mem;
    struct ring_dump *next;
} ring_dump;
static ring_dump *g_ring_dumps;

/* A ring file (docs/RING_FILE.md) as a dump: recovered in memory, like `backbeat recover`. */
static bool open_ring(const char *path, bb_dump **out) {
    uint8_t *mem = NULL;
    size_t len = 0;
    cli_ring_info info;
    int alive = 0;
    if (!cli_ring_load(path, &mem, &len, &info, &alive)) return false;
    if (alive == CLI_RING_RUNNING)
        cli_error("warning: %s: the process writing it (pid %llu) is still running", path,
                  (unsigned long long)info.pid);
    if (cli_ring_warning(&info)) cli_error("warning: %s: %s", path, cli_ring_warning(&info));
    ring_dump *rd = malloc(sizeof *rd);
    bb_error err;
    memset(&err, 0, sizeof err);
    if (!rd || bb_dump_open_memory(mem, len, path, out, &err) != BB_OK) {
        cli_error("%s: %s", path, rd ? err.message : "out of memory");
        free(rd);
        free(mem);
        return false;
    }
    *rd = (ring_dump){*out, mem, g_ring_dumps};
    g_ring_dumps = rd;
    return true;
}

const uint8_t *cli_dump_memory(const bb_dump *dump, size_t *len) {
    for (ring_dump *rd = g_ring_dumps; rd; rd = rd->next)
        if (rd->dump == dump) {
            *len = (size_t)bb_dump_file_size(dump);
            return rd->mem;
        }
    return NULL;
}

bool cli_open_dumps(char *const *paths, size_t n, bb_dump ***dumps) {
    bb_dump **d = calloc(n ? n : 1, sizeof *d);
    if (!d) {
        cli_error("out of memory");
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (cli_ring_path_is(paths[i])) {
            if (open_ring(paths[i], &d[i])) continue;
            cli_close_dumps(d, i);
            return false;
        }
        bb_error err;
        memset(&err, 0, sizeof err);
        if (bb_dump_open(paths[i], &d[i], &err) != BB_OK) {
            if (strstr(err.message, paths[i]))
                cli_error("%s", err.message);
            else
                cli_error("%s: %s", paths[i], err.message[0] ? err.message
                                                             : bb_strerror(err.status));
            cli_close_dumps(d, i);
            return false;
        }
    }
    *dumps = d;
    return true;
}

void cli_close_dumps(bb_dump **dumps, size_t n) {
    if (!dumps) return;
    for (size_t i = 0; i < n; i++) {
        if (!dumps[i]) continue;
        bb_dump_close(dumps[i]);
        for (ring_dump **p = &g_ring_dumps; *p; p = &(*p)->next)
            if ((*p)->dump == dumps[i]) {
                ring_dump *rd = *p;
                *p = rd->next;
                free(rd->mem);
                free(rd);
                break;
            }
    }
    free(dumps);
}

bool cli_open_model(bb_dump *const *dumps, size_t n, bb_model **model) {
    bb_error err;
    memset(&err, 0, sizeof err);
    if (bb_model_open(dumps, n, true, model, &err) == BB_OK) return true;
    cli_error("%s", err.message[0] ? err.message : bb_strerror(err.status));
    return false;
}
