/* bool_word.c — the words a BACKBEAT_* boolean accepts (bool_word.h). */
/* SPDX-License-Identifier: MIT */
#include "common/bool_word.h"

#include <stddef.h>
#include <strings.h>

/* Contract: see bool_word.h. */
bool bb__bool_word(const char *s, bool *out) {
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};
    if (!s) return false;
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *out = true;
            return true;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *out = false;
            return true;
        }
    }
    return false;
}
