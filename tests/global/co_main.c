/* co_main.c — with BACKBEAT_COMPILED_OUT, BB_GRECORD (co_off.c) neither evaluates its arguments
 * nor touches the global recorder: after 1000 calls it has still not been built. */
/* SPDX-License-Identifier: MIT */
#include <backbeat/global.h>

#include "gtest_util.h"

int co_record(int n);

int main(void) {
    putenv("BACKBEAT_ENABLE=1");
    CHECK(co_record(1000) == 0);
    CHECK(__atomic_load_n(&bb__global_rec, __ATOMIC_ACQUIRE) == NULL);
    CHECK(bb_global() != NULL); /* the normal path does build it */
    return gt_done();
}
