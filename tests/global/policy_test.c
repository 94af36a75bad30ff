/* policy_test.c — the throttle window (first dump never throttled) and both limit policies,
 * reasoned about by counts; keep-newest removes exactly the oldest files it wrote. */
/* SPDX-License-Identifier: MIT */
#include <fcntl.h>

#include "global/global_internal.h"
#include "gtest_util.h"

int main(void) {
    bb__g_throttle t = {.window_ns = 1000};
    CHECK(bb__g_throttle_wait(&t, 5) == 0); /* first dump never throttled */
    bb__g_throttle_mark(&t, 5);
    CHECK(bb__g_throttle_wait(&t, 5) == 1000);
    CHECK(bb__g_throttle_wait(&t, 505) == 500);
    CHECK(bb__g_throttle_wait(&t, 1005) == 0);
    CHECK(bb__g_throttle_wait(&t, 3) == 0); /* backwards clock never stalls */
    bb__g_throttle z = {.window_ns = 0};
    bb__g_throttle_mark(&z, 1);
    CHECK(bb__g_throttle_wait(&z, 1) == 0);

    /* a simulated storm: one trigger per time unit for 10 windows → at most 11 dumps */
    bb__g_throttle s = {.window_ns = 100};
    int dumps = 0;
    for (uint64_t now = 0; now < 1000; now++) {
        if (bb__g_throttle_wait(&s, now) == 0) {
            bb__g_throttle_mark(&s, now);
            dumps++;
        }
    }
    CHECK(dumps == 10);

    char dir[4096], p[4096];
    gt_tmpdir(dir, sizeof dir, "policy");

    /* keep-oldest: admits 3, then refuses, reporting the first refusal only */
    bb__g_limits l;
    CHECK(bb__g_limits_init(&l, 3, BB__G_KEEP_OLDEST, 4096));
    bool first;
    int refusals = 0, admitted = 0;
    for (int i = 0; i < 6; i++) {
        if (bb__g_limits_admit(&l, &first)) {
            snprintf(p, sizeof p, "%s/o%d", dir, i);
            close(open(p, O_WRONLY | O_CREAT, 0644));
            bb__g_limits_commit(&l, p);
            admitted++;
        } else {
            refusals += first;
        }
    }
    CHECK(admitted == 3 && refusals == 1);
    CHECK(gt_list(dir, "o", "", NULL, 0) == 3);
    bb__g_limits_free(&l);

    /* keep-newest: every dump admitted, the oldest removed: o-files untouched (not ours) */
    CHECK(bb__g_limits_init(&l, 2, BB__G_KEEP_NEWEST, 4096));
    for (int i = 0; i < 5; i++) {
        CHECK(bb__g_limits_admit(&l, &first) && !first);
        snprintf(p, sizeof p, "%s/n%d", dir, i);
        close(open(p, O_WRONLY | O_CREAT, 0644));
        bb__g_limits_commit(&l, p);
    }
    char *names[8];
    int n = gt_list(dir, "n", "", names, 8);
    CHECK(n == 2);
    if (n == 2) {
        CHECK_STR(names[0], "n3");
        CHECK_STR(names[1], "n4");
    }
    gt_free_names(names, n < 8 ? n : 8);
    CHECK(gt_list(dir, "o", "", NULL, 0) == 3);
    bb__g_limits_free(&l);

    /* unlimited */
    CHECK(bb__g_limits_init(&l, 0, BB__G_KEEP_OLDEST, 4096));
    for (int i = 0; i < 100; i++) CHECK(bb__g_limits_admit(&l, &first));
    bb__g_limits_free(&l);
    gt_rmdir(dir);
    return gt_done();
}
