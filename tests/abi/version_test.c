/* version_test.c — version.h and the libraries agree: bb_version() of libbackbeat is
 * BB_VERSION_STRING, bb_version_number() is BB_VERSION_NUMBER, and the string is what the
 * numbers say. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "backbeat/version.h"

#include "check.h"

int main(void) {
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", BB_VERSION_MAJOR, BB_VERSION_MINOR, BB_VERSION_PATCH);
    CHECK(strcmp(BB_VERSION_STRING, want) == 0, "header string %s vs %s", BB_VERSION_STRING, want);
    CHECK(strcmp(bb_version(), BB_VERSION_STRING) == 0, "library %s vs headers %s", bb_version(),
          BB_VERSION_STRING);
    CHECK(bb_version_number() == BB_VERSION_NUMBER, "number %u", bb_version_number());
    return failures ? 1 : 0;
}
