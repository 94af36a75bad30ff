/* version.c — bb_version / bb_version_number: the library's own version (version.h). */
/* SPDX-License-Identifier: MIT */
#include "backbeat/version.h"

const char *bb_version(void) { return BB_VERSION_STRING; }

unsigned bb_version_number(void) { return BB_VERSION_NUMBER; }
