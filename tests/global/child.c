/* child.c — small programs run by the end-to-end tests (e2e_test.c) as real child processes,
 * configured only through BACKBEAT_* variables. argv[1] picks the behaviour:
 *
 *   traced   records ticks through BB_GRECORD only (no other backbeat call), says "ready" on
 *            stdout, keeps recording until stdin closes, exits 0
 *   segv     records ticks 0..99, then dereferences NULL
 *   abort    records ticks 0..99, then calls abort()
 *   overflow records ticks 0..99, then overflows its stack
 *   fpe / ill / bus  records ticks 0..99, then divides by zero (x86-64: a real #DE, elsewhere
 *            raise) / executes a trap instruction / touches a page past the end of a file
 *   thread   a second thread records ticks 0..99, then dereferences NULL
 *   early    dereferences NULL first thing in main, before any backbeat call (a start-up crash)
 *   toverflow a worker thread (no bb_global_thread_init, 256 KiB stack) records ticks 0..99,
 *            then overflows its stack
 *   tasks    prints the process's thread count ("start N") before any backbeat call, records
 *            ticks ("recorded N"), calls bb_global_trigger(), waits 300 ms ("triggered N"),
 *            reads a byte from stdin, calls bb_global_enable() ("enabled N"), waits for EOF
 *   chain    handler A installed before the recorder, B after it (B chains to what it
 *            replaced); records, then dereferences NULL; A and B say so on stderr
 *   storm    records, calls bb_global_trigger() argv[2] times (2 ms pause every 100), says
 *            "ready", waits for stdin EOF
 *   sigchain installs its own SIGUSR1 handler, then records (BACKBEAT_SIGNAL=usr1 goes over
 *            it and chains to it), says "ready", waits for stdin EOF
 *   trigexit records, calls bb_global_trigger() once and returns from main at once
 *   dumps    records, then writes argv[2] dumps with bb_global_dump (prints each name)
 *   fsize    records, lowers RLIMIT_FSIZE to 100 KiB, tries bb_global_dump ("refused ..."), a
 *            dump to /dev/full ("devfull ..."), records ticks 5000..5099, lifts the limit, dumps
 *            ("dump NAME"), lowers it again and exits through the (failing) exit dump
 *   fork     records in the parent, forks; the child records and dumps; the parent dumps after
 *            the child ended; prints "parent <instance> <name>" / "child <instance> <name>"
 */
/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <backbeat/event.h>
#include <backbeat/global.h>

BB_EVENT(gt_tick, "bbtest", "Tick", "A tick of a test child.",
         BB_KEY(uint64_t, seq, "Sequence number."),
         BB_FIELD(uint64_t, pid, "The process that recorded it."),
         BB_FIELD(uint64_t, phase, "0 before fork/crash, 1 in a fork child, 2 parent after fork."));

static void ticks(uint64_t from, uint64_t to, uint64_t phase) {
    for (uint64_t i = from; i < to; i++)
        BB_GRECORD(gt_tick, .seq = i, .pid = (uint64_t)getpid(), .phase = phase);
}

/* One bb_global_dump: "dump NAME", or "refused STATUS MESSAGE". */
static void dump_once(void) {
    char name[4096];
    bb_error err;
    memset(&err, 0, sizeof err);
    bb_status st = bb_global_dump(name, sizeof name, &err);
    if (st == BB_OK) printf("dump %s\n", name);
    else printf("refused %d %s\n", (int)st, err.message);
    fflush(stdout);
}

/* The `fsize` mode: dumps under a file-size limit fail with an error; the program goes on. */
static int fsize_limited(void) {
    ticks(0, 2000, 0);
    struct rlimit was, low;
    if (getrlimit(RLIMIT_FSIZE, &was) != 0) return 3;
    low = was;
    low.rlim_cur = 100 * 1024;
    if (setrlimit(RLIMIT_FSIZE, &low) != 0) return 3;
    dump_once();
    int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        bb_error err;
        memset(&err, 0, sizeof err);
        bb_status st = bb_recorder_dump_fd(bb_global(), fd, &err);
        printf("devfull %d %s\n", (int)st, err.message);
        close(fd);
    }
    ticks(5000, 5100, 1);
    if (setrlimit(RLIMIT_FSIZE, &was) != 0) return 3;
    dump_once();
    if (setrlimit(RLIMIT_FSIZE, &low) != 0) return 3;
    return 0; /* the exit dump fails too: already reported, the exit status stays 0 */
}

/* Wait for stdin to close, calling each() per chunk read. Polls with a timeout so the thread
 * regularly returns from the kernel (ThreadSanitizer delivers signals only then). */
static void wait_stdin_eof(void (*each)(void)) {
    char buf[64];
    for (;;) {
        struct pollfd p = {.fd = 0, .events = POLLIN};
        if (poll(&p, 1, 50) <= 0) continue;
        ssize_t n = read(0, buf, sizeof buf);
        if (n == 0 || (n < 0 && errno != EINTR)) return;
        if (n > 0 && each) each();
    }
}

static void say(const char *s) {
    ssize_t r = write(1, s, strlen(s));
    (void)r;
}

static uint64_t traced_seq = 100;
static void traced_more(void) {
    ticks(traced_seq, traced_seq + 10, 0);
    traced_seq += 10;
}

static volatile int sink;
__attribute__((noinline)) static int recurse(int depth) {
    volatile char pad[512];
    if (sink == 0x7fffffff) return 0; /* never: keeps the recursion from looking infinite */
    pad[0] = (char)depth;
    sink += pad[0];
    return recurse(depth + 1) + pad[0];
}

__attribute__((noinline)) static void divide_by_zero(void) {
#if defined(__x86_64__)
    unsigned lo = 1, hi = 0, zero = (unsigned)sink;
    __asm__ volatile("divl %2" : "+a"(lo), "+d"(hi) : "r"(zero)); /* not C division: no UB */
#else
    raise(SIGFPE);
#endif
}

__attribute__((noinline)) static void bus_error(void) {
    char path[] = "/tmp/bbg-bus-XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) unlink(path); /* the open descriptor keeps it alive */
    if (fd < 0 || ftruncate(fd, 4096) != 0) raise(SIGBUS);
    volatile char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED || ftruncate(fd, 0) != 0) raise(SIGBUS);
    p[0] = 1; /* the page is past the end of the file now */
}

static void *crashing_thread(void *arg) {
    (void)arg;
    ticks(0, 100, 0);
    *(volatile int *)(uintptr_t)sink = 1;
    return NULL;
}

static void *overflowing_thread(void *arg) {
    (void)arg;
    ticks(0, 100, 0);
    recurse(0);
    return NULL;
}

/* Threads of this process: entries of /proc/self/task. */
static int task_count(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

static int tasks_mode(void) {
    printf("start %d\n", task_count());
    ticks(0, 100, 0);
    printf("recorded %d\n", task_count());
    bb_global_trigger();
    struct timespec ms300 = {0, 300 * 1000 * 1000};
    nanosleep(&ms300, NULL);
    printf("triggered %d\n", task_count());
    char go;
    if (read(0, &go, 1) != 1) return 3; /* the test has counted the dumps so far */
    bb_global_enable();
    printf("enabled %d\n", task_count());
    wait_stdin_eof(NULL);
    return 0;
}

static void user_usr1(int sig) {
    (void)sig;
    static const char m[] = "user handler ran\n";
    ssize_t r = write(2, m, sizeof m - 1);
    (void)r;
}

static struct sigaction chain_prev_b;
static void handler_a(int sig) {
    static const char m[] = "handler A ran\n";
    ssize_t r = write(2, m, sizeof m - 1);
    (void)r;
    signal(sig, SIG_DFL); /* then the fault repeats and kills us */
}
static void handler_b(int sig, siginfo_t *info, void *uc) {
    static const char m[] = "handler B ran\n";
    ssize_t r = write(2, m, sizeof m - 1);
    (void)r;
    if (chain_prev_b.sa_flags & SA_SIGINFO) chain_prev_b.sa_sigaction(sig, info, uc);
    else if (chain_prev_b.sa_handler != SIG_DFL && chain_prev_b.sa_handler != SIG_IGN)
        chain_prev_b.sa_handler(sig);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "traced";
    setvbuf(stdout, NULL, _IONBF, 0);
    if (!strcmp(mode, "traced")) {
        ticks(0, 100, 0);
        say("ready\n");
        wait_stdin_eof(traced_more);
        return 0;
    }
    if (!strcmp(mode, "segv") || !strcmp(mode, "abort") || !strcmp(mode, "overflow")) {
        ticks(0, 100, 0);
        if (!strcmp(mode, "segv")) *(volatile int *)(uintptr_t)sink = 1;
        if (!strcmp(mode, "abort")) abort();
        return recurse(0);
    }
    if (!strcmp(mode, "fpe") || !strcmp(mode, "ill") || !strcmp(mode, "bus")) {
        ticks(0, 100, 0);
        if (!strcmp(mode, "fpe")) divide_by_zero();
        if (!strcmp(mode, "ill")) __builtin_trap();
        bus_error();
        return 0;
    }
    if (!strcmp(mode, "early")) {
        *(volatile int *)(uintptr_t)sink = 1;
        return 0;
    }
    if (!strcmp(mode, "toverflow")) {
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setstacksize(&a, 256 * 1024);
        pthread_t t;
        pthread_create(&t, &a, overflowing_thread, NULL);
        pthread_join(t, NULL);
        return 0;
    }
    if (!strcmp(mode, "tasks")) return tasks_mode();
    if (!strcmp(mode, "thread")) {
        bb_global_init();
        pthread_t t;
        pthread_create(&t, NULL, crashing_thread, NULL);
        pthread_join(t, NULL);
        return 0;
    }
    if (!strcmp(mode, "chain")) {
        signal(SIGSEGV, handler_a);
        ticks(0, 100, 0); /* builds the recorder: our handler goes over A */
        struct sigaction sb;
        memset(&sb, 0, sizeof sb);
        sb.sa_sigaction = handler_b;
        sb.sa_flags = SA_SIGINFO;
        sigaction(SIGSEGV, &sb, &chain_prev_b);
        *(volatile int *)(uintptr_t)sink = 1;
        return 0;
    }
    if (!strcmp(mode, "storm")) {
        int n = argc > 2 ? atoi(argv[2]) : 5000;
        ticks(0, 100, 0);
        for (int i = 0; i < n; i++) {
            bb_global_trigger();
            if (i % 100 == 99) { /* spread the storm so an unthrottled dumper would keep up */
                struct timespec ms2 = {0, 2000000};
                nanosleep(&ms2, NULL);
            }
        }
        say("ready\n");
        wait_stdin_eof(NULL);
        return 0;
    }
    if (!strcmp(mode, "sigchain")) {
        signal(SIGUSR1, user_usr1);
        ticks(0, 100, 0);
        say("ready\n");
        wait_stdin_eof(NULL);
        return 0;
    }
    if (!strcmp(mode, "trigexit")) {
        ticks(0, 100, 0);
        bb_global_trigger();
        return 0;
    }
    if (!strcmp(mode, "dumps")) {
        int n = argc > 2 ? atoi(argv[2]) : 1;
        ticks(0, 100, 0);
        for (int i = 0; i < n; i++) {
            char name[4096];
            bb_error err;
            bb_status st = bb_global_dump(name, sizeof name, &err);
            if (st == BB_OK) printf("dump %s\n", name);
            else printf("refused %d\n", (int)st);
        }
        return 0;
    }
    if (!strcmp(mode, "fsize")) return fsize_limited();
    if (!strcmp(mode, "fork")) {
        bb_global_enable();
        ticks(0, 50, 0);
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) return 3;
        if (pid == 0) {
            ticks(1000, 1050, 1);
            char name[4096];
            if (bb_global_dump(name, sizeof name, NULL) != BB_OK) _exit(4);
            printf("child %llu %s\n", (unsigned long long)bb_recorder_instance_id(bb_global()),
                   name);
            fflush(stdout);
            exit(0); /* atexit handlers run in the child: must not hang */
        }
        int status;
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            return 5;
        ticks(2000, 2050, 2);
        char name[4096];
        if (bb_global_dump(name, sizeof name, NULL) != BB_OK) return 6;
        printf("parent %llu %s\n", (unsigned long long)bb_recorder_instance_id(bb_global()), name);
        return 0;
    }
    fprintf(stderr, "child: unknown mode %s\n", mode);
    return 2;
}
