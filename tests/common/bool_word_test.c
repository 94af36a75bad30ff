/* bool_word_test.c — the words a BACKBEAT_* boolean accepts (common/bool_word.h): each true and
 * false word in any case sets the value and is accepted; anything else (empty, a number other
 * than 0 and 1, a word with spaces or a prefix of one) is refused and leaves the value alone. */
/* SPDX-License-Identifier: MIT */
#include <stddef.h>

#include "../support/check.h"
#include "common/bool_word.h"

int main(void) {
    static const char *const yes[] = {"1", "true", "TRUE", "Yes", "on", "ON"};
    static const char *const no[] = {"0", "false", "False", "NO", "off", "Off"};
    static const char *const bad[] = {"", "2", "-1", "y", "n", "tru", "offf", " on", "on ", "01"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        bool b = false;
        CHECK(bb__bool_word(yes[i], &b) && b, "\"%s\" is not read as true", yes[i]);
    }
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        bool b = true;
        CHECK(bb__bool_word(no[i], &b) && !b, "\"%s\" is not read as false", no[i]);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bool b = true;
        CHECK(!bb__bool_word(bad[i], &b) && b, "\"%s\" is accepted or changed the value", bad[i]);
    }
    bool b = true;
    CHECK(!bb__bool_word(NULL, &b) && b, "NULL is accepted or changed the value");
    return failures ? 1 : 0;
}
