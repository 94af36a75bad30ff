#!/bin/sh
# env_check.sh PROG WORK — issue 38 findings 5 and 7, per link mode (PROG: views_prog linked
# shared or static). A program that clears its environment before its first record keeps the
# BACKBEAT_* settings it started with (BACKBEAT_DUMP_ON_EXIT and BACKBEAT_PATH alone, which do
# not build the recorder at load); a process that never recorded writes no exit dump and leaves
# no ring file, even with BACKBEAT_RING_KEEP; one that recorded does (the check can fail).
# SPDX-License-Identifier: MIT
set -u
prog="$1"; w="$2"
rm -rf "$w" && mkdir -p "$w/cleared" "$w/idle" "$w/busy" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
count() { ls "$1" | grep -c "$2"; }
BACKBEAT_DUMP_ON_EXIT=1 BACKBEAT_PATH="$w/cleared/c.bb" BACKBEAT_SHARDS=1 BACKBEAT_BYTES=64k \
  "$prog" cleared 2>"$w/cleared.err" || fail "cleared exited $?"
[ "$(count "$w/cleared" '^c\..*\.bb$')" -eq 1 ] ||
  fail "a program that cleared its environment lost BACKBEAT_PATH/DUMP_ON_EXIT: $(ls "$w/cleared") $(cat "$w/cleared.err")"
for m in idle busy; do
  arg=idle; [ $m = busy ] && arg=exit
  BACKBEAT_ENABLE=1 BACKBEAT_DUMP_ON_EXIT=1 BACKBEAT_RING_DIR="$w/$m" BACKBEAT_RING_KEEP=1 \
    BACKBEAT_PATH="$w/$m/x.bb" BACKBEAT_SHARDS=1 BACKBEAT_BYTES=64k "$prog" $arg 2>"$w/$m.err" ||
    fail "$m exited $?"
done
[ -z "$(ls "$w/idle")" ] || fail "a process that recorded nothing left files: $(ls "$w/idle")"
[ "$(count "$w/busy" '\.bb$')" -eq 1 ] && [ "$(count "$w/busy" '\.ring$')" -eq 1 ] ||
  fail "a process that recorded lost its exit dump or kept ring file: $(ls "$w/busy")"
[ "$fails" -eq 0 ] && echo ok
[ "$fails" -eq 0 ]
