#!/bin/sh
# startup_check.sh PROG PROG_DL LIB WORK — the dump signal's coverage (global.c): a program
# replacing the BACKBEAT_SIGNAL handler is warned about by the dumper (checked about once a
# second), and a dump signal that already has a handler when libbackbeat loads is warned about.
# SPDX-License-Identifier: MIT
set -u
prog="$1"; prog_dl="$2"; lib="$3"; w="$4"
rm -rf "$w" && mkdir -p "$w" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
BACKBEAT_SIGNAL=usr1 BACKBEAT_PATH="$w/r.bb" "$prog" replace 2>"$w/replace.err" || fail "replace exited $?"
grep -q "program replaced backbeat's handler for signal" "$w/replace.err" ||
  fail "no warning when the program replaces the BACKBEAT_SIGNAL handler: $(cat "$w/replace.err")"
BACKBEAT_SIGNAL=usr1 BACKBEAT_PATH="$w/d.bb" "$prog_dl" dlopen "$lib" 2>"$w/dl.err" || fail "dlopen exited $?"
grep -q "program already handles signal" "$w/dl.err" ||
  fail "no warning when the dump signal already has a handler: $(cat "$w/dl.err")"
[ "$fails" -eq 0 ] && echo ok
[ "$fails" -eq 0 ]
