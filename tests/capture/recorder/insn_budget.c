/* insn_budget.c — the instruction budget of one record, counted exactly and enforced.
 *
 * A forked child runs BB_RECORD between two int3 breakpoints; the parent (ptrace) single-steps
 * it from the first to the second and counts the instructions executed: one disabled record,
 * and one enabled record per clock that is deterministic here (TSC when the host has it, and
 * the manual clock), on each commit path the host offers (rseq, fetch_add). Instruction
 * counts repeat where times do not, so they can gate CI. The counts must not exceed the budget
 * in insn_budget.txt (committed, with how it was measured).
 *
 * Why single-stepping and not callgrind: valgrind hides the vDSO and cannot run rseq; ptrace
 * counts what the CPU runs. Both commit paths are counted: a restartable sequence would abort
 * at every single-step stop, so the tracer clears the sequence's descriptor once it is set
 * (count_region): the kernel does not abort it, and its instructions are counted as they run.
 *
 * Usage: recorder_insn_budget [BUDGET_FILE [SLACK]] (default: the committed file, 0): SLACK is
 * added to every budget. With a negative SLACK the run must go over budget and the exit status
 * is inverted (0 when a case failed): ctest's recorder_insn_budget_tight shows the gate bite.
 * Skipped (77) where ptrace is refused, and under sanitizers (their instrumentation is counted). */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <backbeat/backbeat.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define IB_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(undefined_behavior_sanitizer)
#define IB_SANITIZED 1
#endif
#endif

BB_ENUM(ib_role, uint8_t, (IB_CLIENT, 0, "client"), (IB_SERVER, 1, "server"));
BB_EVENT(ib_ev, "test::insn", "PacketSent", NULL, BB_KEY(uint64_t, conn_id, NULL),
         BB_FIELD(uint32_t, len, NULL), BB_ENUM_F(ib_role, role, NULL),
         BB_FIELD(uint8_t[3], pad, NULL));

enum { IB_REPEAT = 3, IB_MAX_STEPS = 100000 };

/* One record between two breakpoints (the measured region). */
__attribute__((noinline, unused)) static void one_record(bb_recorder *rec, uint64_t i) {
    __asm__ volatile("int3" ::: "memory");
    BB_RECORD(rec, ib_ev, .conn_id = i, .len = (uint32_t)i, .role = (ib_role)(i & 1));
    __asm__ volatile("int3" ::: "memory");
}

/* A recorder of `clock` on the commit path `commit`, NULL when this host cannot give it. */
__attribute__((unused)) static bb_recorder *make(bb_clock_kind clock, bool on, const char *commit) {
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 64; /* the pinned CPU's shard is its own number (no modulo); rseq allowed */
    o.bytes_per_shard = 1u << 16;
    o.clock = clock;
    bb_recorder *rec = NULL;
    setenv("BACKBEAT_COMMIT", commit, 1);
    bb_status st = bb_recorder_create(&o, &rec);
    unsetenv("BACKBEAT_COMMIT");
    if (st != BB_OK) return NULL;
    if (strcmp(bb_recorder_commit_name(rec), commit) != 0) {
        bb_recorder_free(rec);
        return NULL;
    }
    bb_recorder_enable(rec, on);
    BB_RECORD(rec, ib_ev, .conn_id = 1); /* warm: thread slot attached, lazy bindings resolved */
    return rec;
}

/* The measured cases, in the order the child runs them. */
__attribute__((unused)) static const char *const case_names[] = {
    "disabled", "enabled_manual_fetch_add", "enabled_tsc_fetch_add", "enabled_manual_rseq",
    "enabled_tsc_rseq"};
enum { IB_CASES = 5 };

/* glibc >= 2.35: the thread's struct rseq is at the thread pointer + __rseq_offset. */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));

#if defined(__x86_64__) && !defined(IB_SANITIZED)
#define IB_MEASURE 1
/* Child: run each case IB_REPEAT times between breakpoints (a case whose recorder cannot be made
 * runs with NULL: the disabled path). Writes one byte per case to `fd` first: 1 if real. */
static void child(int fd) {
    cpu_set_t set; /* pinned to the lowest CPU allowed: the same shard and branch every run */
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set)) {
                CPU_ZERO(&set);
                CPU_SET(c, &set);
                sched_setaffinity(0, sizeof set, &set);
                break;
            }
    bb_recorder *recs[IB_CASES] = {
        make(BB_CLOCK_MANUAL, false, "fetch_add"), make(BB_CLOCK_MANUAL, true, "fetch_add"),
        make(BB_CLOCK_TSC, true, "fetch_add"), make(BB_CLOCK_MANUAL, true, "rseq"),
        make(BB_CLOCK_TSC, true, "rseq")};
    char ok[IB_CASES];
    for (int c = 0; c < IB_CASES; c++) ok[c] = recs[c] != NULL;
    if (write(fd, ok, IB_CASES) != IB_CASES) _exit(3);
    close(fd);
    if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0) _exit(2);
    raise(SIGSTOP);
    for (int c = 0; c < IB_CASES; c++)
        for (int r = 0; r < IB_REPEAT; r++) one_record(recs[c], (uint64_t)r);
    _exit(0);
}

/* Parent: continue to the next breakpoint; false when the child exited instead. */
static bool cont_to_trap(pid_t pid) {
    int st;
    if (ptrace(PTRACE_CONT, pid, NULL, NULL) != 0 || waitpid(pid, &st, 0) != pid) return false;
    return WIFSTOPPED(st) && WSTOPSIG(st) == SIGTRAP;
}

/* Single-step from just after the first int3 until the next instruction is an int3. A
 * restartable sequence would abort at every step (each stop schedules the tracee out), so as
 * soon as a step has stored a critical-section descriptor in the tracee's struct rseq
 * (rseq_cs, at +8) the tracer clears it: the kernel then sees no sequence to abort, and the
 * sequence's own instructions are stepped and counted like any others. */
static long count_region(pid_t pid) {
    bool rseq = &__rseq_size != NULL && &__rseq_offset != NULL && __rseq_size >= 16;
    for (long n = 0; n < IB_MAX_STEPS; n++) {
        struct user_regs_struct regs;
        if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) != 0) return -1;
        if (rseq) {
            void *cs = (void *)(uintptr_t)(regs.fs_base + (uint64_t)__rseq_offset + 8);
            errno = 0;
            long v = ptrace(PTRACE_PEEKDATA, pid, cs, NULL);
            if (errno) return -1;
            if (v != 0 && ptrace(PTRACE_POKEDATA, pid, cs, NULL) != 0) return -1;
        }
        errno = 0;
        long word = ptrace(PTRACE_PEEKTEXT, pid, (void *)regs.rip, NULL);
        if (errno) return -1;
        if ((word & 0xFF) == 0xCC) return n;
        int st;
        if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) != 0 || waitpid(pid, &st, 0) != pid ||
            !WIFSTOPPED(st))
            return -1;
    }
    return -1;
}
#endif

/* The budget of `name` in the file (lines "name count", '#' comments), or -1. */
__attribute__((unused)) static long budget_of(const char *path, const char *name) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[256], key[128];
    long v, found = -1;
    while (fgets(line, sizeof line, f))
        if (line[0] != '#' && sscanf(line, "%127s %ld", key, &v) == 2 && strcmp(key, name) == 0)
            found = v;
    fclose(f);
    return found;
}

int main(int argc, char **argv) {
    const char *file = argc > 1 ? argv[1] : IB_BUDGET_FILE;
#if !defined(__x86_64__)
    (void)file;
    fprintf(stderr, "insn_budget: x86_64 only (single-stepping through ptrace regs)\n");
    return 77;
#elif !defined(IB_MEASURE)
    (void)file;
    fprintf(stderr, "insn_budget: skipped under sanitizers (their checks would be counted)\n");
    return 77;
#else
    long slack = argc > 2 ? atol(argv[2]) : 0;
    /* The enabled budgets depend on how the CPU hint is found (rseq area or thread hash). */
    bb_recorder *probe = bb_recorder_new(1, 4096);
    char keys[IB_CASES][96];
    for (int c = 0; c < IB_CASES; c++) {
        snprintf(keys[c], sizeof keys[c], c ? "%s.%s" : "%s", case_names[c],
                 bb_recorder_cpu_hint_name(probe));
        if (budget_of(file, keys[c]) < 0) {
            fprintf(stderr, "insn_budget: %s: no budget for %s\n", file, keys[c]);
            return 1;
        }
    }
    bb_recorder_free(probe);
    int p[2];
    if (pipe(p) != 0) return 1;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        child(p[1]);
    }
    close(p[1]);
    char real[IB_CASES] = {0};
    for (ssize_t got = 0, n; got < IB_CASES; got += n)
        if ((n = read(p[0], real + got, (size_t)(IB_CASES - got))) <= 0) {
            fprintf(stderr, "insn_budget: the child did not start\n");
            return 1;
        }
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
        fprintf(stderr, "insn_budget: ptrace refused here (child status %d): skipped\n", st);
        return 77;
    }
    int fails = 0;
    for (int c = 0; c < IB_CASES; c++) {
        long best = -1;
        for (int r = 0; r < IB_REPEAT; r++) {
            long n = cont_to_trap(pid) ? count_region(pid) : -1;
            if (n >= 0 && !cont_to_trap(pid)) n = -1; /* execute the closing int3 */
            if (n < 0) {
                fprintf(stderr, "insn_budget: %s: could not single-step the region\n",
                        case_names[c]);
                kill(pid, SIGKILL);
                return 1;
            }
            if (best < 0 || n < best) best = n;
        }
        long budget = budget_of(file, keys[c]) + slack;
        bool skip = !real[c];
        fprintf(stderr, "%-32s %4ld instructions (budget %ld)%s\n", keys[c], best, budget,
                skip            ? ": clock or commit path unavailable here, not checked"
                : best > budget ? ": OVER"
                                : "");
        if (!skip && best > budget) fails++;
    }
    ptrace(PTRACE_CONT, pid, NULL, NULL);
    waitpid(pid, &st, 0);
    if (fails) fprintf(stderr, "insn_budget: %d case(s) over budget (%s)\n", fails, file);
    if (slack < 0) { /* the tight run: it must have failed */
        fprintf(stderr, "insn_budget: budget lowered by %ld: %s\n", -slack,
                fails ? "failed, as it must" : "passed: the gate does not bite");
        return fails ? 0 : 1;
    }
    return fails ? 1 : 0;
#endif
}
