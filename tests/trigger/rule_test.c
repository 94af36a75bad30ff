/* rule_test.c — the grammar of trigger rules: every valid form, and every bad-rule class with its
 * column; binding to a schema (unknown field, wrong VALUE type, unknown label) and evaluation. */
/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "backbeat/event.h"
#include "check.h"
#include "trigger/rule.h"

static tg_rule rules[TG_MAX_RULES];

static size_t parse_ok(const char *text) {
    size_t n = 0;
    char err[256] = "";
    CHECK(tg_parse(text, rules, TG_MAX_RULES, &n, err, sizeof err), "'%s': %s", text, err);
    return n;
}

static void parse_bad(const char *text, const char *want) {
    size_t n = 0;
    char err[256] = "";
    CHECK(!tg_parse(text, rules, TG_MAX_RULES, &n, err, sizeof err), "'%s' accepted", text);
    CHECK(strstr(err, want) != NULL, "'%s': got '%s', want '%s'", text, err, want);
}

static void grammar(void) {
    CHECK(parse_ok("span my_app::Request > 50ms") == 1, "one span rule");
    CHECK(rules[0].kind == TG_SPAN && rules[0].duration_ns == 50000000u, "50ms");
    CHECK(!strcmp(rules[0].pattern, "my_app::Request"), "pattern %s", rules[0].pattern);
    CHECK(parse_ok(" span a::B>250us ;a::C; a::D status == error ; ;") == 3, "three rules");
    CHECK(rules[0].duration_ns == 250000u && rules[1].kind == TG_EVENT, "250us, event rule");
    CHECK(rules[2].kind == TG_FIELD && rules[2].vkind == TG_V_LABEL &&
              !strcmp(rules[2].str, "error"),
          "label value");
    CHECK(rules[1].column == 19, "column of the second rule %zu", rules[1].column);
    CHECK(parse_ok("a::B len >= -12; a::B ratio < 1.5; a::B who != \"bob \\\"x\\\"\"; my_app::*") ==
              4,
          "values");
    CHECK(rules[0].vkind == TG_V_INT && rules[0].neg && rules[0].mag == 12 && rules[0].op == TG_GE,
          "negative integer");
    CHECK(rules[1].vkind == TG_V_FLOAT && rules[1].fval == 1.5, "float");
    CHECK(rules[2].vkind == TG_V_STRING && !strcmp(rules[2].str, "bob \"x\""), "string %s",
          rules[2].str);
    CHECK(tg_names(&rules[3], "my_app::net::Packet") && !tg_names(&rules[3], "other::X"), "glob");
    uint64_t ns;
    CHECK(tg_parse_duration("2s", &ns) && ns == 2000000000u, "2s");
    CHECK(tg_parse_duration("1.5ms", &ns) && ns == 1500000u, "1.5ms");
    CHECK(!tg_parse_duration("5", &ns) && !tg_parse_duration("5h", &ns), "no unit, bad unit");
}

static void bad_rules(void) {
    parse_bad("span a::B > 50xs", "column 13: bad duration");
    parse_bad("span a::B 50ms", "column 11: expected '>'");
    parse_bad("span", "column 5: expected a span event name");
    parse_bad("a::B; Request", "rule 'Request': column 7: expected a qualified event name");
    parse_bad("a::B len", "expected an operator");
    parse_bad("a::B len =~ 3", "column 10: expected an operator");
    parse_bad("a::B len ==", "column 12: expected a value");
    parse_bad("a::B who == \"open", "column 13: unterminated string");
    parse_bad("a::B len == 3 4", "column 15: unexpected text");
    parse_bad("a::B len == 3x", "column 13: expected a number");
}

BB_ENUM(tstatus, uint8_t, (T_OK, 0, "ok"), (T_ERR, 2, "error"));
BB_EVENT(tev, "t", "Reply", NULL, BB_FIELD(uint64_t, big, NULL), BB_FIELD(int32_t, len, NULL),
         BB_INTERN_F(who, NULL), BB_ENUM_F(tstatus, status, NULL),
         BB_FIELD(uint8_t[7], _pad, NULL));

static const char *resolve(void *ctx, uint32_t id) {
    (void)ctx;
    return id == 7 ? "bob" : NULL;
}

static bool eval(const char *rule, const tev *r) {
    size_t n = parse_ok(rule);
    tg_cond c;
    char err[256];
    CHECK(n == 1 && tg_bind(&rules[0], BB_DESC(tev), NULL, NULL, &c, err, sizeof err), "%s: %s",
          rule, err);
    return tg_cond_eval(&c, (const uint8_t *)r, resolve, NULL);
}

static void bind_bad(const char *rule, const char *want) {
    parse_ok(rule);
    tg_cond c;
    char err[256] = "";
    CHECK(!tg_bind(&rules[0], BB_DESC(tev), NULL, NULL, &c, err, sizeof err), "%s bound", rule);
    CHECK(strstr(err, want) != NULL, "'%s': got '%s', want '%s'", rule, err, want);
}

static void binding(void) {
    tev r = {.len = -5, .status = T_ERR, .who = 7, .big = UINT64_MAX};
    CHECK(eval("t::Reply status == error", &r) && !eval("t::Reply status == ok", &r), "enum");
    CHECK(eval("t::Reply len < 0", &r) && eval("t::Reply len >= -5", &r) &&
              !eval("t::Reply len > -5", &r),
          "signed");
    CHECK(eval("t::Reply len < -4.5", &r), "float against an integer");
    CHECK(eval("t::Reply who == \"bob\"", &r) && !eval("t::Reply who != \"bob\"", &r), "string");
    CHECK(eval("t::Reply big > 18446744073709551614", &r), "u64 full range");
    bind_bad("t::Reply size > 3", "column 10: event 't::Reply' has no field 'size'");
    bind_bad("t::Reply status == broken",
             "column 20: field 'status' has no label 'broken' (labels: ok, error)");
    bind_bad("t::Reply who == 3", "interned string");
    bind_bad("t::Reply who < \"x\"", "only == and !=");
    bind_bad("t::Reply len == \"x\"", "is not a string");
    bind_bad("t::Reply len == ok", "not an enum");
}

/* `log OP LEVEL` (issue 41): levels in any case, every operator, which call sites it fires on,
 * and a bad level's column. */
static void log_rules(void) {
    CHECK(parse_ok("log >= error; log > INFO; log == Warn; log<=debug; log != warning") == 5,
          "five log rules");
    CHECK(rules[0].kind == TG_LOG && rules[0].op == TG_GE && rules[0].level == 4, "log >= error");
    CHECK(rules[1].op == TG_GT && rules[1].level == 2 && rules[2].op == TG_EQ &&
              rules[2].level == 3 && rules[3].op == TG_LE && rules[3].level == 1 &&
              rules[4].level == 3,
          "levels and operators");
    CHECK(tg_log_fires(&rules[0], 4) && tg_log_fires(&rules[0], 5) && !tg_log_fires(&rules[0], 3),
          ">= error fires on error and fatal only");
    CHECK(tg_log_fires(&rules[1], 3) && !tg_log_fires(&rules[1], 2), "> info");
    CHECK(tg_log_fires(&rules[2], 3) && !tg_log_fires(&rules[2], 4), "== warn");
    CHECK(!tg_log_fires(&rules[0], -1), "not a log line");
    CHECK(!tg_names(&rules[0], "log") && !tg_names(&rules[0], ""), "a log rule names no event");
    static const char site[] = "backbeat-log 1\nlevel: error\nfile: a.c\nline: 3\n";
    CHECK(tg_log_site_level("backbeat.log::a.c:3", site, sizeof site - 1) == 4, "site level");
    CHECK(tg_log_site_level("backbeat.log::a.c:3", site, 20) == -1, "cut description");
    CHECK(tg_log_site_level("app::Error", site, sizeof site - 1) == -1, "not a log site's name");
    CHECK(tg_log_site_level("backbeat.log::a.c:3", "level: error", 12) == -1, "no header");
    CHECK(tg_log_site_level("backbeat.log::a.c:3", NULL, 0) == -1, "no description");
    parse_bad("a::B; log >= loud", "rule 'log >= loud': column 14: bad log level");
    parse_bad("log >=", "column 7: expected a log level");
    parse_bad("log error", "column 5: expected an operator");
    parse_bad("log >= error now", "column 14: unexpected text");
}

int main(void) {
    grammar();
    bad_rules();
    binding();
    log_rules();
    return failures ? 1 : 0;
}
