/* registry_fork.c — fork() while other threads register and unregister events: every child
 * can still use the registry (add, remove, snapshot) and exit, which runs the unregistering
 * destructors. A child stuck on a lock inherited held would be killed by its alarm and fail. */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backbeat/event.h"

BB_EVENT(fork_event, "fork", "Event", NULL, BB_FIELD(uint32_t, v, NULL));

static const bb_field_desc field = {"v", NULL, NULL, NULL, 0, 0, 4, 0, BB_TYPE_U32, 0, 0, 0};
static bb_event_desc churn[2] = {
    {BB__ABI_LAYOUT, "fork::Churn0", NULL, &field, 1, 4, BB_PHASE_NONE, 0, NULL},
    {BB__ABI_LAYOUT, "fork::Churn1", NULL, &field, 1, 4, BB_PHASE_NONE, 0, NULL},
};
static int stop;

static void *churner(void *arg) {
    bb_event_desc *d = arg;
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        bb_registry_add(d);
        bb_registry_remove(d);
    }
    return NULL;
}

int main(void) {
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, churner, &churn[i]);
    int failures = 0;
    for (int i = 0; i < 100; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 1;
        }
        if (pid == 0) {
            alarm(10);
            static bb_event_desc mine = {
                BB__ABI_LAYOUT, "fork::Child", NULL, &field, 1, 4, BB_PHASE_NONE, 0, NULL};
            bb_registry_add(&mine);
            const bb_event_desc *out[8];
            size_t n = bb_registry_snapshot(out, 8);
            bb_registry_remove(&mine);
            exit(n >= 2 ? 0 : 3); /* fork::Event and fork::Child at least */
        }
        int status = 0;
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "FAIL: child %d: status %#x\n", i, status);
            failures++;
        }
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    printf("registry_fork: %d failures\n", failures);
    return failures ? 1 : 0;
}
