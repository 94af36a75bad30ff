/* text_test.c — the CLI's text helpers: the one JSON escaper (cli/json.h) through both its
 * adapters (em_obuf_json_str, em_json_str), which must agree byte for byte, on control bytes,
 * quotes, DEL, valid multi-byte UTF-8 and invalid UTF-8 (one U+FFFD per maximal invalid
 * subpart); and the format's name tables (format/names.h). */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "cli/cli_util.h"
#include "table/layout.h"
#include "emit/text.h"
#include "format/names.h"

typedef struct tcase {
    const char *in;
    size_t len;
    const char *want;
} tcase;

#define T(in, want) \
    { in, sizeof in - 1, want }
static const tcase CASES[] = {
    T("", "\"\""),
    T("plain", "\"plain\""),
    T("q\"b\\", "\"q\\\"b\\\\\""),
    T("\n\r\t\b\x01\x1f\x7f", "\"\\n\\r\\t\\u0008\\u0001\\u001f\x7f\""),
    T("nul\0x", "\"nul\\u0000x\""),
    T("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\""),
    T("\xff\xfex", "\"\xef\xbf\xbd\xef\xbf\xbdx\""),
    T("a\xe2\x82", "\"a\xef\xbf\xbd\""),
    T("\xed\xa0\x80\"", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\\\"\""),
    T("\xc0\xaf\xf4\x90\x80\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
                                  "\xef\xbf\xbd\""),
};

/* Both adapters on one case; 0 when both give `want`. */
static int check(const tcase *c) {
    em_obuf cb;
    pq_buf pb = {0};
    if (!em_obuf_init(&cb, -1, 4096)) return 1;
    em_obuf_json_str(&cb, c->in, c->len);
    em_json_str(&pb, c->in, c->len);
    size_t wl = strlen(c->want);
    int bad = cb.len != wl || memcmp(cb.data, c->want, wl) || pb.failed || pb.len != wl ||
              memcmp(pb.data, c->want, wl);
    if (bad) fprintf(stderr, "escape mismatch for %zu-byte input '%s'\n", c->len, c->in);
    pq_buf_free(&pb);
    em_obuf_finish(&cb);
    return bad;
}

static int check_names(void) {
    int bad = 0;
    bad |= strcmp(bb__type_name(0), "u8") || strcmp(bb__type_name(11), "interned");
    bad |= bb__type_name(12) != NULL || strcmp(tw_field_type_name(200), "unknown");
    bad |= strcmp(bb__role_name(2), "span_id") || strcmp(bb__role_name(9), "none");
    bad |= strcmp(bb__phase_name(1), "enter") || strcmp(bb__phase_name(7), "none");
    bad |= strcmp(bb__section_kind_name(4), "views") ||
           strcmp(bb__section_kind_name(5), "process") ||
           strcmp(bb__section_kind_name(6), "unknown");
    if (bad) fprintf(stderr, "name table mismatch\n");
    return bad;
}

int main(void) {
    int fails = check_names();
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) fails += check(&CASES[i]);
    if (fails) return 1;
    printf("ok: %zu escape cases, name tables\n", sizeof CASES / sizeof CASES[0]);
    return 0;
}
