/* name_test.c — dump file naming: the UTC stamp, stem/extension split, the -N suffix, and
 * publishing that never replaces an existing file (same-millisecond collisions). */
/* SPDX-License-Identifier: MIT */
#include <fcntl.h>

#include "global/global_internal.h"
#include "gtest_util.h"

static void touch(const char *path, const char *content) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK(write(fd, content, strlen(content)) == (ssize_t)strlen(content));
        close(fd);
    }
}

static void read_file(const char *path, char *buf, size_t cap) {
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

int main(void) {
    char ts[20];
    bb__g_format_utc_ms(0, ts);
    CHECK_STR(ts, "19700101T000000000Z");
    bb__g_format_utc_ms(951868799ull * 1000000000ull + 987654321ull, ts); /* leap day */
    CHECK_STR(ts, "20000229T235959987Z");
    bb__g_format_utc_ms(946684799ull * 1000000000ull + 999999999ull, ts);
    CHECK_STR(ts, "19991231T235959999Z");
    bb__g_format_utc_ms(1796219101ull * 1000000000ull + 5000000ull, ts);
    CHECK_STR(ts, "20261202T134501005Z");
    bb__g_format_utc_ms(4107542400ull * 1000000000ull, ts); /* 2100 is not a leap year */
    CHECK_STR(ts, "21000301T000000000Z");

    CHECK(bb__g_path_ext_dot("/tmp/backbeat.12.bb") == strlen("/tmp/backbeat.12"));
    CHECK(bb__g_path_ext_dot("trace.bb") == 5);
    CHECK(bb__g_path_ext_dot("/a.b/trace") == strlen("/a.b/trace"));
    CHECK(bb__g_path_ext_dot("/tmp/.hidden") == strlen("/tmp/.hidden"));
    CHECK(bb__g_path_ext_dot("name.") == 5);

    char out[256];
    const char *stamp = "20261202T134501005Z";
    const char *base = "/tmp/backbeat.12.bb";
    size_t dot = bb__g_path_ext_dot(base);
    CHECK(bb__g_dump_name(out, sizeof out, base, dot, stamp, 0) > 0);
    CHECK_STR(out, "/tmp/backbeat.12.20261202T134501005Z.bb");
    CHECK(bb__g_dump_name(out, sizeof out, base, dot, stamp, 2) > 0);
    CHECK_STR(out, "/tmp/backbeat.12.20261202T134501005Z-2.bb");
    CHECK(bb__g_dump_name(out, sizeof out, "trace", 5, stamp, 0) > 0);
    CHECK_STR(out, "trace.20261202T134501005Z");

    /* The pid in the base path (issue 38): "%p" replaced, else inserted before the extension;
     * the default path (which names it already) kept. */
    CHECK(bb__g_pid_path(out, sizeof out, "/var/log/app.bb", false, 4321) > 0);
    CHECK_STR(out, "/var/log/app.4321.bb");
    CHECK(bb__g_pid_path(out, sizeof out, "/var/log/app", false, 4321) > 0);
    CHECK_STR(out, "/var/log/app.4321.bb");
    CHECK(bb__g_pid_path(out, sizeof out, "/var/log/app.log", false, 4321) > 0);
    CHECK_STR(out, "/var/log/app.log.4321.bb");
    CHECK(bb__g_pid_path(out, sizeof out, "/var/log/%p-%p", false, 8) > 0);
    CHECK_STR(out, "/var/log/8-8.bb");
    CHECK(bb__g_pid_path(out, sizeof out, "/var/log/.bb", false, 8) > 0);
    CHECK_STR(out, "/var/log/.bb.8.bb");
    CHECK(bb__g_pid_path(out, sizeof out, "/var/d.x/app-%p.bb", false, 77) > 0);
    CHECK_STR(out, "/var/d.x/app-77.bb");
    CHECK(bb__g_pid_path(out, sizeof out, "/v/%p/a%p.bb", false, 5) > 0);
    CHECK_STR(out, "/v/5/a5.bb");
    CHECK(bb__g_pid_path(out, sizeof out, "/tmp/backbeat.12.bb", true, 99) > 0);
    CHECK_STR(out, "/tmp/backbeat.12.bb");
    CHECK(bb__g_pid_path(out, sizeof out, "/tmp/%q.bb", false, 3) > 0);
    CHECK_STR(out, "/tmp/%q.3.bb");
    CHECK(bb__g_pid_path(out, 12, "/var/log/app.bb", false, 4321) == 0); /* does not fit */
    CHECK(bb__g_pid_path(out, 20, "/var/log/app.bb", false, 4321) == 0); /* 20 bytes + NUL */
    CHECK(bb__g_pid_path(out, 21, "/var/log/app.bb", false, 4321) == 20);
    CHECK(bb__g_dump_name(out, 20, base, dot, stamp, 0) == 0); /* does not fit */

    /* Whole names from BACKBEAT_PATH (ENVIRONMENT.md, "Names"): always "*.bb", the pid once. */
    const char *paths[][2] = {
        {"/var/tmp/app", "/var/tmp/app.4321.20261202T134501005Z.bb"},
        {"/var/tmp/app.bb", "/var/tmp/app.4321.20261202T134501005Z.bb"},
        {"/var/tmp/%p-%p", "/var/tmp/4321-4321.20261202T134501005Z.bb"},
        {"/var/tmp/x-%p.bb", "/var/tmp/x-4321.20261202T134501005Z.bb"},
        {"/var/tmp/app.v2", "/var/tmp/app.v2.4321.20261202T134501005Z.bb"},
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        char pb[256];
        CHECK(bb__g_pid_path(pb, sizeof pb, paths[i][0], false, 4321) > 0);
        CHECK(bb__g_dump_name(out, sizeof out, pb, bb__g_path_ext_dot(pb), stamp, 0) > 0);
        CHECK_STR(out, paths[i][1]);
    }

    /* publish: a free name is taken as is; a taken one gets -1, then -2; nothing replaced */
    char dir[4096], b[4096], tmp[4096], got[4096], buf[64];
    gt_tmpdir(dir, sizeof dir, "name");
    snprintf(b, sizeof b, "%s/app.bb", dir);
    dot = bb__g_path_ext_dot(b);
    snprintf(tmp, sizeof tmp, "%s/one.tmp", dir);
    touch(tmp, "one");
    unsigned seq = 0;
    CHECK(bb__g_publish(tmp, got, sizeof got, b, dot, stamp, &seq) == 0);
    CHECK(seq == 0);
    snprintf(out, sizeof out, "%s/app.%s.bb", dir, stamp);
    CHECK_STR(got, out);
    CHECK(access(tmp, F_OK) != 0); /* the temporary name is gone */

    snprintf(tmp, sizeof tmp, "%s/two.tmp", dir);
    touch(tmp, "two");
    seq = 0;
    CHECK(bb__g_publish(tmp, got, sizeof got, b, dot, stamp, &seq) == 0);
    CHECK(seq == 1);
    snprintf(out, sizeof out, "%s/app.%s-1.bb", dir, stamp);
    CHECK_STR(got, out);

    snprintf(tmp, sizeof tmp, "%s/three.tmp", dir);
    touch(tmp, "three");
    seq = 0;
    CHECK(bb__g_publish(tmp, got, sizeof got, b, dot, stamp, &seq) == 0);
    CHECK(seq == 2);

    snprintf(out, sizeof out, "%s/app.%s.bb", dir, stamp);
    read_file(out, buf, sizeof buf);
    CHECK_STR(buf, "one");
    snprintf(out, sizeof out, "%s/app.%s-1.bb", dir, stamp);
    read_file(out, buf, sizeof buf);
    CHECK_STR(buf, "two");
    snprintf(out, sizeof out, "%s/app.%s-2.bb", dir, stamp);
    read_file(out, buf, sizeof buf);
    CHECK_STR(buf, "three");
    CHECK(gt_list(dir, "", "", NULL, 0) == 3);

    /* publishing into a missing directory fails with an errno and removes the temporary */
    snprintf(tmp, sizeof tmp, "%s/four.tmp", dir);
    touch(tmp, "four");
    seq = 0;
    CHECK(bb__g_publish(tmp, got, sizeof got, "/nonexistent-bb-dir/x.bb", 22, stamp, &seq) != 0);
    CHECK(access(tmp, F_OK) != 0);
    gt_rmdir(dir);

    /* append helpers */
    size_t l = bb__g_append_str(out, sizeof out, 0, "n=");
    l = bb__g_append_u64(out, sizeof out, l, 18446744073709551615ull);
    CHECK_STR(out, "n=18446744073709551615");
    CHECK(l == strlen(out));
    return gt_done();
}
