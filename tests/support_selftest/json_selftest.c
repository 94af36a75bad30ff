/* json_selftest.c — checks the test-support JSON parser on the golden files and edge cases. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static int failures;
#define CHECK(c)                                                                  \
    do {                                                                          \
        if (!(c)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); \
            failures++;                                                           \
        }                                                                         \
    } while (0)

int main(void) {
    char err[256];
    const char *doc = "{\"a\": [1, -2, \"18446744073709551615\", 9007199254740992, true, null],"
                      " \"s\": \"h\\u00e9\\ud83d\\ude00\\n\", \"o\": {}}";
    json_value *v = json_parse(doc, strlen(doc), err, sizeof err);
    CHECK(v != NULL);
    const json_value *a = json_get(v, "a");
    uint64_t u;
    int64_t i;
    CHECK(json_len(a) == 6);
    CHECK(json_u64(json_at(a, 0), &u) && u == 1);
    CHECK(json_i64(json_at(a, 1), &i) && i == -2);
    CHECK(!json_u64(json_at(a, 1), &u));
    CHECK(json_u64(json_at(a, 2), &u) && u == UINT64_MAX);
    CHECK(json_u64(json_at(a, 3), &u) && u == 9007199254740992ull);
    CHECK(json_bool(json_at(a, 4)));
    CHECK(json_is_null(json_at(a, 5)));
    CHECK(!strcmp(json_str(json_get(v, "s")), "h\xc3\xa9\xf0\x9f\x98\x80\n"));
    CHECK(json_kind_of(json_get(v, "o")) == JSON_OBJECT && json_len(json_get(v, "o")) == 0);

    /* Round trip through the writer, and equality ignoring member order. */
    char *buf = NULL;
    size_t len = 0, cap = 0;
    CHECK(json_write(v, &buf, &len, &cap));
    json_value *w = json_parse(buf, len, err, sizeof err);
    CHECK(w && json_equal(v, w, err, sizeof err));
    const char *reordered =
        "{\"o\": {}, \"s\": \"h\\u00e9\\ud83d\\ude00\\n\","
        " \"a\": [1, -2, \"18446744073709551615\", 9007199254740992, true, null]}";
    json_value *r = json_parse(reordered, strlen(reordered), err, sizeof err);
    CHECK(r && json_equal(v, r, err, sizeof err));
    const char *different = "{\"o\": {}, \"s\": \"x\", \"a\": []}";
    json_value *d = json_parse(different, strlen(different), err, sizeof err);
    CHECK(d && !json_equal(v, d, err, sizeof err));
    CHECK(strstr(err, "$.") != NULL);
    CHECK(json_parse("{\"a\":", 5, err, sizeof err) == NULL);
    CHECK(json_parse("[1] x", 5, err, sizeof err) == NULL);
    json_free(v);
    json_free(w);
    json_free(r);
    json_free(d);
    free(buf);

    const char *dir = getenv("BACKBEAT_COMPAT_DIR");
    if (dir) {
        char path[1024];
        snprintf(path, sizeof path, "%s/basic.expected.json", dir);
        json_value *g = json_parse_file(path, err, sizeof err);
        if (g) {
            const json_value *inst = json_at(json_get(g, "instances"), 0);
            CHECK(json_hex_u64(json_get(inst, "instance_id"), &u) && u == 0x1122334455667788ull);
            json_free(g);
        }
    }
    if (failures) return 1;
    puts("json selftest ok");
    return 0;
}
