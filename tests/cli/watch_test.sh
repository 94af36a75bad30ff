#!/usr/bin/env bash
# watch_test.sh BACKBEAT DEMO WORK — `backbeat watch` (issue 39): on a running process (the demo
# serving into a ring file) a field rule fires, the dump is written after the window and is a
# dump `inspect` reads; on a process that dies within the after-window the dump is still
# written; a bad rule exits 2 naming the rule and the column; --max ends it with 0, and so does
# the end of the watched process (its ring file removed). Each dump
# says what fired it as an in-process triggered dump does: one backbeat::Trigger record (the
# rule, the matching record's event, timestamp, shard and span id, the after-window), read by
# `inspect` and `inspect --json`.
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
# The dump carries the firing: the same record an in-process trigger records.
ts="$(sed -n 's/.*RequestEnd ts=\([0-9]*\) shard=\([0-9]*\) span=\([0-9a-f]*\).*/\1/p' "$W/lines.txt")"
shard="$(sed -n 's/.*RequestEnd ts=\([0-9]*\) shard=\([0-9]*\) span=.*/\2/p' "$W/lines.txt")"
span="$(sed -n 's/.* span=\([0-9a-f]*\).*/\1/p' "$W/lines.txt")"
[ -n "$f" ] && "$B" inspect "$f" >"$W/inspect.txt" 2>&1 || fail "inspect of the watch dump"
grep -q '^triggers: 1$' "$W/inspect.txt" || fail "inspect: no 'triggers: 1': $(cat "$W/inspect.txt")"
grep -q "rule=\"demo::kv::RequestEnd status == error\" event=\"demo::kv::RequestEnd\" shard=$shard hung=false" \
  "$W/inspect.txt" || fail "inspect: the trigger line: $(grep trigger "$W/inspect.txt")"
[ -n "$f" ] && "$B" inspect --json "$f" >"$W/inspect.json" || fail "inspect --json of the watch dump"
grep -q "\"triggers\":\[{\"instance_id\":\"[0-9a-f]*\",\"recorded_in_shard\":[0-9]*,\"ts\":\"$ts\",\"span_id\":\"*$(printf %u "0x$span")\"*,\"after_ns\":50000000,\"duration_ns\":0,\"rule\":\"demo::kv::RequestEnd status == error\",\"event\":\"demo::kv::RequestEnd\",\"shard\":$shard,\"hung\":false}\]" \
  "$W/inspect.json" || fail "inspect --json: the trigger: $(grep -o '"triggers":[^]]*]' "$W/inspect.json")"
# Its trace: the trigger is an instant on the matching record's thread (shard S: tid S+1).
[ -n "$f" ] && "$B" convert -f trace "$f" -o "$W/trace.json" 2>/dev/null || fail "convert -f trace of the watch dump"
grep -q "{\"ph\":\"I\",\"s\":\"t\",\"pid\":1,\"tid\":$((shard + 1)),\"ts\":[0-9.]*,\"name\":\"trigger: demo::kv::RequestEnd status == error\"" \
  "$W/trace.json" || fail "the trace has no trigger instant on tid $((shard + 1)): $(grep -o '{[^{]*trigger: [^}]*}' "$W/trace.json")"

# A log rule (issue 41): the first error line the demo logs fires; the trigger names its site.
rm -rf "$W/rings" && mkdir -p "$W/rings" "$W/out3"
"$DEMO" --live "$W/rings" 2 >/dev/null &
timeout 20 "$B" watch --when 'log >= ERROR' --max 1 -o "$W/out3" --scan "$W/rings" >"$W/lines3.txt"
[ $? -eq 0 ] || fail "watch --when 'log >= ERROR'"
grep -q "^log >= ERROR	pid [0-9]*	backbeat.log::demo.c:[0-9]*#[0-9a-f]* ts=" "$W/lines3.txt" ||
  fail "the log rule's line: $(cat "$W/lines3.txt")"
f3="$(ls "$W"/out3/watch.*.bb 2>/dev/null | head -1)"
[ -n "$f3" ] && "$B" inspect "$f3" | grep -q 'rule="log >= ERROR" event="backbeat.log::demo.c:[0-9]*#[0-9a-f]*"' ||
  fail "the log rule's dump does not say what fired it"
"$B" watch --when 'log >= loud' "$W/x.ring" 2>"$W/err3.txt"
[ $? -eq 2 ] && grep -q "rule 'log >= loud': column 8: bad log level" "$W/err3.txt" ||
  fail "a bad level: $(cat "$W/err3.txt")"
wait

# No false alarm: the demo's requests end within milliseconds, so a span rule of 1 s never
# fires, although a poll often holds both a span's enter and its exit (each ring is read newest
# first: handed over in that order, the exit came before its enter and left the span open).
rm -rf "$W/rings" && mkdir -p "$W/rings" "$W/out4"
"$DEMO" --live "$W/rings" 4 >/dev/null &
timeout 3 "$B" watch --when 'span demo::kv::RequestBegin > 1s' -o "$W/out4" --scan "$W/rings" \
  >"$W/lines4.txt"
[ $? -eq 124 ] || fail "watch of a span rule that never holds did not run until its timeout"
[ ! -s "$W/lines4.txt" ] && [ -z "$(ls "$W/out4")" ] ||
  fail "a span rule of 1 s fired on requests of milliseconds: $(head -3 "$W/lines4.txt")"
wait

# A process that dies within the after-window: still dumped.
"$DEMO" --live "$W/rings" 0.3 >/dev/null &
ring=""
for _ in $(seq 100); do ring="$(ls "$W"/rings/*.ring 2>/dev/null | head -1)"; [ -n "$ring" ] && break; sleep 0.02; done
timeout 20 "$B" watch --when 'demo::kv::RequestBegin' --after 1s --max 1 -o "$W/out2" "$ring" >"$W/lines2.txt"
[ $? -eq 0 ] || fail "watch of a dying process"
f2="$(ls "$W"/out2/watch.*.bb 2>/dev/null | head -1)"
[ -n "$f2" ] && "$B" inspect "$f2" | grep -q 'demo::kv::RequestBegin' || fail "no dump of the dead process"
[ -n "$f2" ] && "$B" inspect "$f2" | grep -q 'after_ns=1000000000 duration_ns=0 rule="demo::kv::RequestBegin" event="demo::kv::RequestBegin"' ||
  fail "the dead process's dump does not say what fired it"
wait

# A process that exits (and removes its ring file) while no rule fired: watch ends with 0 and
# says the process ended, as tail --follow does (it ran until SIGINT before).
rm -rf "$W/rings" && mkdir -p "$W/rings" "$W/out5"
"$DEMO" --live "$W/rings" 0.5 >/dev/null &
demo=$!
ring=""
for _ in $(seq 100); do ring="$(ls "$W"/rings/*.ring 2>/dev/null | head -1)"; [ -n "$ring" ] && break; sleep 0.02; done
timeout 15 "$B" watch --when 'span demo::kv::RequestBegin > 3600s' -o "$W/out5" "$ring" \
  >"$W/lines5.txt" 2>"$W/err5.txt"
st=$?
[ $st -eq 0 ] || fail "watch of a process that exits: exit $st (124: it did not end)"
grep -q "^backbeat: watch: $ring: process $demo ended; its rings were read to the end$" "$W/err5.txt" ||
  fail "no line saying the process ended: $(cat "$W/err5.txt")"
[ ! -s "$W/lines5.txt" ] && [ -z "$(ls "$W/out5")" ] || fail "a dump without a firing: $(cat "$W/lines5.txt")"
[ ! -e "$ring" ] || fail "the demo left its ring file (the case is the removed file)"
wait
[ $fails -eq 0 ] && echo "ok: watch" && rm -rf "$W"
exit $((fails > 0))
