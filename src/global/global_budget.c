/* global_budget.c — one disk budget per dump directory, shared by every process writing there
 * (BACKBEAT_DIR_MAX_USE, BACKBEAT_DIR_KEEP_FREE): before each dump or ring file, under an
 * flock on DIR/.backbeat.lock (released by the kernel when its holder dies), the backbeat files
 * in DIR (dumps and ring files, recognized by their magic, of any process) are measured with
 * the free space; with keep-newest the oldest deletable ones (dumps; ring files of processes
 * that are gone) are removed until the new file fits, with keep-oldest nothing is, nor for a
 * new ring file (a process that may never record evicts nobody). A live process's ring file is
 * never removed: its writer holds an flock on it for life, whatever its pid namespace.
 * Async-signal-safe (the crash dump uses it): raw syscalls, fixed buffers, no allocation. */
/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "format/ring_file.h"
#include "format/wire.h"
#include "global/global_internal.h"

enum { KIND_NONE = 0, KIND_DUMP = 1, KIND_RING = 2 };

struct dirent64_raw { /* the kernel's linux_dirent64 */
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

static long ring_pid(const char *name);

/* What backbeat file `name` in `dfd` is, by its first 8 bytes (a file this process may not read,
 * such as another user's ring file, mode 0600, by its name). */
static int file_kind(int dfd, const char *name) {
    int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        size_t n = strlen(name);
        return errno == EACCES && ring_pid(name) && n > 5 && !strcmp(name + n - 5, ".ring")
                   ? KIND_RING
                   : KIND_NONE;
    }
    char magic[8];
    ssize_t n = read(fd, magic, sizeof magic);
    close(fd);
    if (n != 8) return KIND_NONE;
    if (memcmp(magic, BB_DUMP_MAGIC, 8) == 0) return KIND_DUMP;
    if (memcmp(magic, BB_RING_MAGIC, 8) == 0) return KIND_RING;
    return KIND_NONE;
}

/* The pid in a ring file's name "backbeat.<pid>.<instance>.ring" (0 when none). */
static long ring_pid(const char *name) {
    if (strncmp(name, "backbeat.", 9) != 0) return 0;
    long pid = 0;
    const char *p = name + 9;
    for (; *p >= '0' && *p <= '9' && pid < 100000000; p++) pid = pid * 10 + (*p - '0');
    return *p == '.' ? pid : 0;
}

/* Whether nobody holds the flock a ring file's writer keeps for its life (ring_backing.c; the
 * kernel drops it when the writer dies, even by SIGKILL): true when we could take it (and let
 * it go), false when it is held or the file cannot be opened (another user's: the pid decides).
 * Unlike a pid, this holds across pid namespaces (a container sharing the directory). */
static bool ring_unlocked(int dfd, const char *name, bool *known) {
    *known = false;
    int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) return false;
    *known = true;
    bool free_ = flock(fd, LOCK_SH | LOCK_NB) == 0;
    close(fd); /* releases ours */
    return free_;
}

/* Whether a file may go: a dump (not a temporary file being written) or the ring file of a
 * process that is gone: its writer's flock is free, and (an extra check, and the only one for
 * a file we cannot open) no process has the pid its name carries. */
static bool deletable(int dfd, int kind, const char *name) {
    size_t n = strlen(name);
    if (kind == KIND_DUMP) return !(n > 4 && strcmp(name + n - 4, ".tmp") == 0);
    long pid = kind == KIND_RING ? ring_pid(name) : 0;
    if (pid <= 0 || pid == (long)getpid()) return false;
    bool known;
    if (!ring_unlocked(dfd, name, &known) && known) return false;
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

enum { MAX_STUCK = 16 };

typedef struct scan {
    char stuck[MAX_STUCK][256]; /* deletable files whose removal failed (not candidates) */
    int n_stuck;
    uint64_t used;          /* bytes the backbeat files take */
    bool have_oldest;       /* a deletable file was seen */
    struct timespec oldest; /* its modification time */
    char oldest_name[256];
} scan;

/* Measure the backbeat files in `dfd` and find the oldest deletable one. */
static bool is_stuck(const scan *s, const char *name) {
    for (int i = 0; i < s->n_stuck; i++)
        if (!strcmp(s->stuck[i], name)) return true;
    return false;
}

static void scan_dir(int dfd, scan *s) {
    s->used = 0;
    s->have_oldest = false;
    lseek(dfd, 0, SEEK_SET);
    char buf[4096] __attribute__((aligned(8)));
    for (;;) {
        long n = syscall(SYS_getdents64, dfd, buf, sizeof buf);
        if (n <= 0) return;
        for (long off = 0; off < n;) {
            struct dirent64_raw *e = (struct dirent64_raw *)(void *)(buf + off);
            off += e->d_reclen;
            if (e->d_name[0] == '.' || (e->d_type != DT_REG && e->d_type != DT_UNKNOWN)) continue;
            struct stat st;
            if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
                continue;
            int kind = file_kind(dfd, e->d_name);
            if (kind == KIND_NONE) continue;
            s->used += (uint64_t)st.st_blocks * 512u;
            if (!deletable(dfd, kind, e->d_name) || strlen(e->d_name) >= sizeof s->oldest_name ||
                is_stuck(s, e->d_name))
                continue;
            bool older = !s->have_oldest || st.st_mtim.tv_sec < s->oldest.tv_sec ||
                         (st.st_mtim.tv_sec == s->oldest.tv_sec &&
                          (st.st_mtim.tv_nsec < s->oldest.tv_nsec ||
                           (st.st_mtim.tv_nsec == s->oldest.tv_nsec &&
                            strcmp(e->d_name, s->oldest_name) < 0)));
            if (!older) continue;
            s->have_oldest = true;
            s->oldest = st.st_mtim;
            bb__g_append_str(s->oldest_name, sizeof s->oldest_name, 0, e->d_name);
        }
    }
}

/* Contract: see global_internal.h. */
uint64_t bb__g_share_bytes(uint64_t share, uint64_t fs_bytes) {
    if (!(share & BB__G_PCT)) return share;
    uint64_t pct = share & ~(BB__G_PCT | BB__G_CAP4G);
    uint64_t n = fs_bytes / 100u * pct + fs_bytes % 100u * pct / 100u;
    return (share & BB__G_CAP4G) && n > (4ull << 30) ? 4ull << 30 : n;
}

/* Take the directory's lock: flock, retried for up to ~3 s (a holder writes one dump at a
 * time). Returns the lock's fd (locked or not: a directory we cannot lock is still measured),
 * or -1 when the lock file cannot be opened. */
static int lock_dir(int dfd) {
    int fd = openat(dfd, ".backbeat.lock", O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0) return -1;
    for (int i = 0; i < 300 && flock(fd, LOCK_EX | LOCK_NB) != 0; i++) {
        struct timespec ms10 = {0, 10000000};
        nanosleep(&ms10, NULL);
    }
    return fd;
}

/* Report the first refusal of this process on stderr. */
static void report_once(bb__g_budget *b, uint64_t used, uint64_t max, uint64_t avail, uint64_t keep,
                        uint64_t need) {
    long pid = (long)getpid();
    if (__atomic_exchange_n(&b->reported_pid, pid, __ATOMIC_RELAXED) == pid) return;
    char msg[PATH_MAX + 400];
    size_t len = bb__g_append_str(msg, sizeof msg, 0,
                                  b->ring ? "the ring directory " : "the dump directory ");
    len = bb__g_append_str(msg, sizeof msg, len, b->dir);
    len = bb__g_append_str(msg, sizeof msg, len, " is over its budget (backbeat files ");
    len = bb__g_append_u64(msg, sizeof msg, len, used >> 20);
    len = bb__g_append_str(msg, sizeof msg, len, " MiB + ");
    len = bb__g_append_u64(msg, sizeof msg, len, need >> 20);
    len = bb__g_append_str(msg, sizeof msg, len, " MiB new of BACKBEAT_DIR_MAX_USE ");
    len = bb__g_append_u64(msg, sizeof msg, len, max >> 20);
    len = bb__g_append_str(msg, sizeof msg, len, " MiB; free ");
    len = bb__g_append_u64(msg, sizeof msg, len, avail >> 20);
    len = bb__g_append_str(msg, sizeof msg, len, " MiB, BACKBEAT_DIR_KEEP_FREE ");
    len = bb__g_append_u64(msg, sizeof msg, len, keep >> 20);
    bb__g_append_str(msg, sizeof msg, len,
                     b->ring ? " MiB): a ring file never removes other files to make room"
                     : b->policy == BB__G_KEEP_NEWEST
                         ? " MiB): nothing older is left to remove; this and later files are "
                           "not written"
                         : " MiB; keep-oldest): this and later files are not written");
    if (b->defer) bb__g_append_str(b->defer, b->defer_cap, 0, msg);
    else bb__g_stderr_line(msg);
}

/* Contract: see global_internal.h. */
int bb__g_budget_enter(bb__g_budget *b, uint64_t need, int *lock_fd) {
    *lock_fd = -1;
    if (!b || !b->dir[0] || (b->max_use == 0 && b->keep_free == 0)) return 0;
    int dfd = open(b->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return 0; /* the write reports the directory's problem */
    *lock_fd = lock_dir(dfd);
    scan s; /* about 4 KiB, and 4 KiB of directory entries: fits the 64 KiB signal stack */
    s.n_stuck = 0;
    for (int round = 0; round < 100000; round++) {
        struct statvfs vfs;
        if (fstatvfs(dfd, &vfs) != 0) break;
        uint64_t total = (uint64_t)vfs.f_blocks * vfs.f_frsize;
        uint64_t avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
        uint64_t max = b->max_use ? bb__g_share_bytes(b->max_use, total) : UINT64_MAX;
        uint64_t keep = bb__g_share_bytes(b->keep_free, total);
        scan_dir(dfd, &s);
        if (s.used + need <= max && avail >= need && avail - need >= keep) break;
        bool evict = b->policy == BB__G_KEEP_NEWEST && !b->ring;
        if (evict && s.have_oldest && unlinkat(dfd, s.oldest_name, 0) != 0 &&
            s.n_stuck < MAX_STUCK) {
            memcpy(s.stuck[s.n_stuck++], s.oldest_name, sizeof s.oldest_name);
            continue; /* another user's file in a sticky directory: the next oldest */
        }
        if (!evict || !s.have_oldest) {
            report_once(b, s.used, max, avail, keep, need);
            close(dfd);
            bb__g_budget_leave(*lock_fd);
            *lock_fd = -1;
            return ENOSPC;
        }
    }
    close(dfd);
    return 0;
}

/* Contract: see global_internal.h. */
void bb__g_budget_leave(int lock_fd) {
    if (lock_fd >= 0) close(lock_fd); /* closing releases the flock */
}

/* Contract: see global_internal.h. */
void bb__g_budget_dir(char *out, size_t cap, const char *path) {
    size_t slash = 0, len = strlen(path);
    for (size_t i = 0; i < len; i++)
        if (path[i] == '/') slash = i + 1;
    if (slash == 0) {
        bb__g_append_str(out, cap, 0, ".");
        return;
    }
    if (slash >= cap) slash = cap - 1;
    memcpy(out, path, slash);
    out[slash > 1 ? slash - 1 : slash] = '\0';
}
