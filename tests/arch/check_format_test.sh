#!/usr/bin/env bash
# check_format_test.sh CHECK — scripts/check-format.sh can fail: a file indented two spaces with
# its brace on the next line is named and fails the check; the same file as clang-format writes
# it passes. Skipped (77) when the check itself skips (no clang-format 14).
# SPDX-License-Identifier: MIT
set -u
check="$1"
w="$(mktemp -d)"; trap 'rm -rf "$w"' EXIT
mkdir -p "$w/bad" "$w/good"
printf 'int f(int x)\n{\n  return x+1;\n}\n' >"$w/bad/a.c"
printf 'int f(int x) { return x + 1; }\n' >"$w/good/a.c"
"$check" "$w/good" >"$w/out.txt" 2>&1; rc=$?
[ "$rc" = 77 ] && { cat "$w/out.txt"; exit 77; }
fails=0
[ "$rc" = 0 ] || { echo "FAIL: a formatted file failed ($rc): $(cat "$w/out.txt")"; fails=1; }
"$check" "$w/bad" >"$w/out.txt" 2>&1; rc=$?
[ "$rc" = 1 ] || { echo "FAIL: a badly formatted file gave $rc, want 1"; fails=1; }
grep -q "bad/a.c is not formatted" "$w/out.txt" || { echo "FAIL: the file is not named: $(cat "$w/out.txt")"; fails=1; }
[ "$fails" = 0 ] && echo "check_format_test: ok"
exit "$fails"
