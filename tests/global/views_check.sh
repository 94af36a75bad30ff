#!/bin/sh
# views_check.sh SHARED_PROG STATIC_PROG CLI WORK — every dump carries the program's view set
# whatever the link mode (shared or static library), when the recorder was built (at load:
# BACKBEAT_ENABLE; on first use: bb_global_enable() with no variable that builds it at load)
# and the exit path (exit dump, dump signal, crash dump). Issue 38 finding 2: a shared library
# built at load lost the views in its exit dump (the program's destructors ran first).
# Prints one table row per case. SPDX-License-Identifier: MIT
set -u
shared="$1"; static="$2"; cli="$3"; w="$4"
rm -rf "$w" && mkdir -p "$w" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# case LINK BUILT PATH-KIND: runs the program, inspects the one dump it wrote
check() {
  link="$1"; built="$2"; how="$3"; shift 3
  prog="$shared"; [ "$link" = static ] && prog="$static"
  d="$w/$link-$built-$how"; mkdir -p "$d"
  env "$@" BACKBEAT_PATH="$d/v.bb" BACKBEAT_SHARDS=1 BACKBEAT_BYTES=64k \
    ASAN_OPTIONS=handle_segv=0 "$prog" "$mode" "$d" >"$d.out" 2>"$d.err"
  n=$(ls "$d" | grep -c '\.bb$')
  if [ "$n" -ne 1 ]; then fail "$link/$built/$how: $n dumps ($(cat "$d.err"))"; return; fi
  "$cli" inspect "$d"/*.bb >"$d.inspect" 2>&1 || { fail "$link/$built/$how: inspect failed"; return; }
  v=$(grep -o 'views: [0-9]* sets\{0,1\}' "$d.inspect" | head -1)
  echo "$link | $built | $how | $v"
  [ "$v" = "views: 1 set" ] || fail "$link/$built/$how: no view set in the dump ($v)"
}
for link in shared static; do
  mode=exit; check $link load exit BACKBEAT_ENABLE=1 BACKBEAT_DUMP_ON_EXIT=1
  mode=exit; check $link load-crash-armed exit BACKBEAT_DUMP_ON_CRASH=1 BACKBEAT_ENABLE=1 BACKBEAT_DUMP_ON_EXIT=1
  mode=enable; check $link first-use exit BACKBEAT_DUMP_ON_EXIT=1
  mode=signal; check $link load signal BACKBEAT_ENABLE=1 BACKBEAT_SIGNAL=usr1 BACKBEAT_THROTTLE_MS=0
  mode=crash; check $link load crash BACKBEAT_ENABLE=1 BACKBEAT_DUMP_ON_CRASH=1
done
[ "$fails" -eq 0 ] && echo ok
[ "$fails" -eq 0 ]
