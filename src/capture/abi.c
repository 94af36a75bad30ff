/* abi.c — the layout check of descriptors compiled into programs (include/backbeat/detail/abi.h):
 * accept a descriptor whose tag is this library's, refuse any other with one message on stderr
 * per process (naming the object that holds the first refused descriptor), so a plugin built
 * against other headers is never misread. Only the tag, the descriptor's first member, is read. */
/* SPDX-License-Identifier: MIT */
#include <dlfcn.h>
#include <string.h>

#include "capture/abi_check.h"
#include "common/message.h"

static int g_reported; /* atomic: the one message was written */

static void put(char *m, size_t cap, size_t *len, const char *s) {
    while (*s && *len + 1 < cap) m[(*len)++] = *s++;
    m[*len] = '\0';
}

static void put_hex32(char *m, size_t cap, size_t *len, uint32_t v) {
    char b[11] = "0x";
    for (int i = 0; i < 8; i++) b[2 + i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 15];
    b[10] = 0;
    put(m, cap, len, b);
}

bool bb__abi_accept(const void *desc, const char *kind, bool may_lookup) {
    uint32_t abi;
    memcpy(&abi, desc, sizeof abi);
    if (abi == BB__ABI_LAYOUT) return true;
    if (__atomic_exchange_n(&g_reported, 1, __ATOMIC_RELAXED)) return false;
    Dl_info info;
    const char *obj = may_lookup && dladdr(desc, &info) && info.dli_fname && info.dli_fname[0]
                          ? info.dli_fname
                          : "the program";
    char m[900];
    size_t n = 0;
    put(m, sizeof m, &n, "refusing the ");
    put(m, sizeof m, &n, kind);
    put(m, sizeof m, &n, " of ");
    put(m, sizeof m, &n, obj);
    put(m, sizeof m, &n, ": built against another backbeat ABI (layout ");
    put_hex32(m, sizeof m, &n, abi);
    put(m, sizeof m, &n, ", this library ");
    put_hex32(m, sizeof m, &n, BB__ABI_LAYOUT);
    put(m, sizeof m, &n,
        "): rebuild it against this library's headers; it is not recorded "
        "(further refusals are not reported)");
    bb__message(m);
    return false;
}
