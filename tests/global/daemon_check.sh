#!/bin/sh
# daemon_check.sh PROG CLI WORK — issue 38: a crash loop of an nginx-like daemon
# (daemon_prog.c: a daemonizing parent, a master that replaces 200 crashing workers which clear
# their environment and drop privileges when run as root, a control command on reload) writes
# into one directory with a budget of 8M (BACKBEAT_DIR_MAX_USE, keep-newest): the backbeat
# files stay within it, every dump left has the program's view set, no two workers share a
# span id, a crash dump written whole removes its worker's ring file, and the parent and the
# control command leave no file. Prints the figures.
# SPDX-License-Identifier: MIT
set -u
prog="$1"; cli="$2"; w="$3"
rm -rf "$w" && mkdir -p "$w/dumps" "$w/out" || exit 1
chmod 1777 "$w" "$w/dumps" "$w/out"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# As root the workers drop to nobody, who must reach the directory (a checkout under a 0700
# directory, as mktemp -d makes, does not let it): else they keep root, and the test says so.
drop=
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null &&
  ! setpriv --reuid=65534 --regid=65534 --clear-groups test -w "$w/dumps"; then
  drop=nodrop
  echo "note: user nobody cannot write $w/dumps (a parent directory is closed): no privilege drop"
fi
budget=8388608
start=$(date +%s)
BACKBEAT_ENABLE=1 BACKBEAT_DUMP_ON_CRASH=1 BACKBEAT_DUMP_ON_EXIT=1 BACKBEAT_PATH="$w/dumps/nginx.bb" \
  BACKBEAT_RING_DIR="$w/dumps" BACKBEAT_SHARDS=1 BACKBEAT_BYTES=64k BACKBEAT_INTERN_LIMIT=1024,64k \
  BACKBEAT_MAX_DUMPS=0 BACKBEAT_DIR_MAX_USE=8M BACKBEAT_LIMIT_POLICY=keep-newest \
  ASAN_OPTIONS=handle_segv=0 "$prog" start 200 "$w/out" $drop 2>"$w/err" || fail "the daemon exited $?"
echo "200 crashes in $(( $(date +%s) - start )) s"
used=0
for f in "$w/dumps"/*; do
  [ -f "$f" ] || continue
  head -c 8 "$f" | grep -q -e BACKBEAT -e BBRING || continue
  used=$((used + $(stat -c %b "$f") * 512))
done
echo "backbeat files: $(ls "$w/dumps" | grep -c '\.bb$') dumps, $(ls "$w/dumps" | grep -c '\.ring$') ring files, $used bytes of a budget of $budget"
[ "$used" -le "$budget" ] || fail "the directory holds $used bytes, over the budget of $budget"
ndumps=$(ls "$w/dumps" | grep -c '\.bb$')
[ "$ndumps" -ge 2 ] && [ "$ndumps" -lt 200 ] || fail "$ndumps dumps kept of 201 written: $(ls "$w/dumps")"
# the newest crash dumps are the ones kept (keep-newest): the last worker's is there
newest=$(grep "crash dump written" "$w/err" | tail -1 | sed 's/.* to //')
[ -f "$newest" ] || fail "the last crash dump $newest was removed"
noviews=0
for f in "$w/dumps"/*.bb; do
  "$cli" inspect "$f" 2>/dev/null | grep -q '^views: 1 set$' || noviews=$((noviews + 1))
done
[ "$noviews" -eq 0 ] || fail "$noviews dumps without the program's view set"
nspans=$(cat "$w/out"/spans.* | wc -l)
dups=$(cat "$w/out"/spans.* | sort | uniq -d | wc -l)
echo "span ids: $nspans from $(ls "$w/out" | wc -l) workers, $dups shared"
[ "$nspans" -ge 10000 ] || fail "only $nspans span ids"
[ "$dups" -eq 0 ] || fail "$dups span ids shared between workers"
# a crash dump written whole removes the worker's ring file: only workers whose crash dump
# was not written may leave one
nring=$(ls "$w/dumps" | grep -c '\.ring$')
[ "$nring" -le $((200 - $(grep -c "crash dump written" "$w/err"))) ] || fail "$nring ring files of crashed workers left: $(ls "$w/dumps" | grep '\.ring$')"
# tail tells a span's enter from its exit (issue 38 finding 8), on a dead worker's ring file
# (kept with BACKBEAT_RING_KEEP: 2 more crashes)
mkdir -p "$w/kept" "$w/out2" && chmod 1777 "$w/kept" "$w/out2"
BACKBEAT_ENABLE=1 BACKBEAT_DUMP_ON_CRASH=1 BACKBEAT_PATH="$w/kept/nginx.bb" BACKBEAT_RING_DIR="$w/kept" \
  BACKBEAT_RING_KEEP=1 BACKBEAT_SHARDS=1 BACKBEAT_BYTES=64k BACKBEAT_INTERN_LIMIT=1024,64k \
  ASAN_OPTIONS=handle_segv=0 "$prog" start 2 "$w/out2" $drop 2>>"$w/err.kept" || fail "the kept daemon exited $?"
ring=
for r in "$w/kept"/*.ring; do
  [ -f "$w/out2/spans.$(basename "$r" | cut -d. -f2)" ] && ring="$r" # a worker's, not the master's
done
if [ -n "$ring" ]; then
  "$cli" tail --format text "$ring" >"$w/tail.txt" 2>&1
  grep -q 'bbtest::DaemonRequest (enter)' "$w/tail.txt" && grep -q 'bbtest::DaemonRequest (exit)' "$w/tail.txt" ||
    fail "tail does not tell enter from exit: $(head -3 "$w/tail.txt")"
else
  fail "no dead worker's ring file kept (BACKBEAT_RING_KEEP) to tail"
fi
# The parent and the control command recorded nothing: no file names their pid. Every
# dump/ring file must come from the master or a worker (they all recorded).
for r in "$w/dumps"/*.ring; do
  [ -f "$r" ] || continue
  pid=$(basename "$r" | cut -d. -f2)
  [ -f "$w/out/spans.$pid" ] || fail "ring file $r is not a worker's (the parent's or a control command's)"
done
mkdir -p "$w/ctl"
BACKBEAT_ENABLE=1 BACKBEAT_DUMP_ON_EXIT=1 BACKBEAT_RING_DIR="$w/ctl" BACKBEAT_RING_KEEP=1 \
  BACKBEAT_PATH="$w/ctl/nginx.bb" "$prog" control 2>>"$w/err" || fail "control exited $?"
[ -z "$(ls "$w/ctl")" ] || fail "the control command wrote $(ls "$w/ctl")"
crash=$(grep -c "crash dump written" "$w/err")
echo "crash dumps reported written: $crash"
[ "$fails" -eq 0 ] && echo ok
[ "$fails" -eq 0 ]
