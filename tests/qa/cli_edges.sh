#!/usr/bin/env bash
# cli_edges.sh BACKBEAT WORKDIR — CLI edge cases found by QA, each once a bug:
#  - a relative --since/--until so large that first-record + offset passes 2^64 saturates
#    (it used to wrap around: --until +18446744073s kept nothing).
# Needs the golden basic.bb (exits 77 without it).
set -u
B="$1"
W="$2"
C="${BACKBEAT_COMPAT_DIR:-/work/shared/compat}"
[ -f "$C/basic.bb" ] || { echo "no golden vectors in $C"; exit 77; }
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# count EXPECTED ARGS...: convert basic.bb to a trace with ARGS and count the records it
# represents (an instant is one, a closed span slice two, an unclosed one one).
count() {
  local want="$1"
  shift
  "$B" convert "$C/basic.bb" -o t.json "$@" 2>err.txt
  local rc=$?
  [ "$rc" = 0 ] || { fail "convert $* exited $rc: $(cat err.txt)"; return; }
  local got
  got=$(python3 -c '
import json, sys
n = 0
for e in json.load(open(sys.argv[1]))["traceEvents"]:
    if e["ph"] == "I": n += 1
    if e["ph"] == "X": n += 1 if e["args"].get("backbeat.unclosed") else 2
print(n)' t.json)
  [ "$got" = "$want" ] || fail "convert $*: $got records, want $want"
}
count 24
count 24 --until +18446744073s
count 0 --since +18446744073s
count 24 --since +0ns --until +20us
count 23 --until +19999ns

if [ "$fails" -ne 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "ok"
