// cxx_test.cpp — global.h from C++17: BB_GRECORD_PTR, the bb_global_* API and a dump, with the same
// warnings as the C code (-Wall -Wextra -Wpedantic -Werror).
// SPDX-License-Identifier: MIT
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <backbeat/backbeat.h>

BB_EVENT(cx_ev, "bbtest", "Cxx", "Recorded from C++.",
         BB_KEY(uint64_t, key, "A key."),
         BB_FIELD(uint32_t, len, "A length."),
         BB_FIELD(uint32_t, kind, "A kind."));

int main() {
    char dir[] = "/tmp/bbg-cxx-XXXXXX";
    if (!mkdtemp(dir)) return 2;
    char env[128];
    std::snprintf(env, sizeof env, "BACKBEAT_PATH=%s/x.bb", dir);
    putenv(env);
    int failures = 0;
    bb_global_enable();
    if (!bb_global_enabled()) failures++;
    // (designated initialisers are C++20: C++17 code fills the struct and records it by pointer)
    for (uint64_t i = 0; i < 10; i++) {
        cx_ev ev{};
        ev.key = i;
        ev.len = 3;
        ev.kind = 1;
        BB_GRECORD_PTR(cx_ev, &ev);
    }
    char name[1024];
    if (bb_global_dump(name, sizeof name, nullptr) != BB_OK) failures++;
    else std::remove(name);
    std::remove(dir);
    if (failures) std::fprintf(stderr, "%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
