#!/usr/bin/env bash
# watch_test.sh BACKBEAT DEMO WORK — `backbeat watch` (issue 39): on a running process (the demo
# serving into a ring file) a field rule fires, the dump is written after the window and is a
# dump `inspect` reads; on a process that dies within the after-window the dump is still
# written; a bad rule exits 2 naming the rule and the column; --max ends it with 0.
# SPDX-License-Identifier: MIT
set -uo pipefail
B="$1" DEMO="$2" W="$3"
rm -rf "$W" && mkdir -p "$W/rings" "$W/out" "$W/out2" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$B" watch --when 'span demo::kv::RequestBegin > 5q' "$W/x.ring" 2>"$W/err.txt"
[ $? -eq 2 ] || fail "a bad rule does not exit 2"
grep -q "rule 'span demo::kv::RequestBegin > 5q': column 31: bad duration" "$W/err.txt" ||
  fail "the bad rule's message: $(cat "$W/err.txt")"

# A running process: the first request answered with status error fires.
"$DEMO" --live "$W/rings" 3 >/dev/null &
demo=$!
timeout 20 "$B" watch --when 'demo::kv::RequestEnd status == error' --after 50ms --max 1 \
  -o "$W/out" --scan "$W/rings" >"$W/lines.txt"
st=$?
[ $st -eq 0 ] || fail "watch --max 1 exited $st"
[ "$(wc -l <"$W/lines.txt")" -eq 1 ] || fail "one line per dump: $(cat "$W/lines.txt")"
grep -q "^demo::kv::RequestEnd status == error	pid $demo	demo::kv::RequestEnd ts=" "$W/lines.txt" ||
  fail "the line names the rule, the process and the record: $(cat "$W/lines.txt")"
f="$(ls "$W"/out/watch.*.bb 2>/dev/null | head -1)"
[ -n "$f" ] && "$B" inspect "$f" | grep -q 'demo::kv::RequestEnd' || fail "the dump does not read"

# A process that dies within the after-window: still dumped.
"$DEMO" --live "$W/rings" 0.3 >/dev/null &
ring=""
for _ in $(seq 100); do ring="$(ls "$W"/rings/*.ring 2>/dev/null | head -1)"; [ -n "$ring" ] && break; sleep 0.02; done
timeout 20 "$B" watch --when 'demo::kv::RequestBegin' --after 1s --max 1 -o "$W/out2" "$ring" >"$W/lines2.txt"
[ $? -eq 0 ] || fail "watch of a dying process"
f2="$(ls "$W"/out2/watch.*.bb 2>/dev/null | head -1)"
[ -n "$f2" ] && "$B" inspect "$f2" | grep -q 'demo::kv::RequestBegin' || fail "no dump of the dead process"
wait
[ $fails -eq 0 ] && echo "ok: watch" && rm -rf "$W"
exit $((fails > 0))
