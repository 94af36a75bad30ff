#!/bin/sh
# startup_check.sh PROG PROG_DL LIB WORK — the dump signal's coverage (global.c): a program
# replacing the BACKBEAT_SIGNAL handler after its first record is warned about by the dumper
# (checked about once a second); one installed while setting up (before the first record) is
# gone over again at the first record, with the "already handles" warning; and a dump signal
# that already has a handler when libbackbeat loads is warned about.
# SPDX-License-Identifier: MIT
set -u
prog="$1"; prog_dl="$2"; lib="$3"; w="$4"
rm -rf "$w" && mkdir -p "$w" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
BACKBEAT_SIGNAL=usr1 BACKBEAT_PATH="$w/r.bb" "$prog" replace 2>"$w/replace.err" || fail "replace exited $?"
grep -q "program replaced backbeat's handler for signal" "$w/replace.err" ||
  fail "no warning when the program replaces the BACKBEAT_SIGNAL handler: $(cat "$w/replace.err")"
BACKBEAT_SIGNAL=usr1 BACKBEAT_PATH="$w/s.bb" "$prog" setup 2>"$w/setup.err" || fail "setup exited $?"
grep -q "program already handles signal 10 (SIGUSR1)" "$w/setup.err" ||
  fail "no warning when the first record goes over a handler installed while setting up: $(cat "$w/setup.err")"
! grep -q "program replaced" "$w/setup.err" ||
  fail "a handler installed before the first record was reported as replacing: $(cat "$w/setup.err")"
BACKBEAT_SIGNAL=usr1 BACKBEAT_PATH="$w/d.bb" "$prog_dl" dlopen "$lib" 2>"$w/dl.err" || fail "dlopen exited $?"
grep -q "program already handles signal" "$w/dl.err" ||
  fail "no warning when the dump signal already has a handler: $(cat "$w/dl.err")"
[ "$fails" -eq 0 ] && echo ok
[ "$fails" -eq 0 ]
