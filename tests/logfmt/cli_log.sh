#!/bin/sh
# cli_log.sh BACKBEAT DEMO — the readers of log lines end to end: the demo's dump read by
# `backbeat log` (every line well formed, --level keeps the errors only), two dumps merged in one
# time order with their instances named, the trace's log instants (one per log line), and
# `tail` of the live demo (text lines; jsonl with string arguments as text, doubles as numbers).
# SPDX-License-Identifier: MIT
set -eu
bb="$1"; demo="$2"
T="$(mktemp -d "${TMPDIR:-/tmp}/bb-cli-log.XXXXXX")"
trap 'rm -rf "$T"' EXIT
"$demo" "$T/a.bb" >/dev/null
"$demo" "$T/b.bb" >/dev/null
"$bb" log "$T/a.bb" >"$T/all.txt"
"$bb" log --level error "$T/a.bb" >"$T/err.txt"
all=$(wc -l <"$T/all.txt"); err=$(wc -l <"$T/err.txt")
# 4 workers log a start and an end (info); the failed requests are errors.
[ "$all" -eq $((err + 8)) ] || { echo "all $all lines, errors $err (want errors + 8)"; exit 1; }
[ "$err" -gt 100 ] || { echo "only $err error lines"; exit 1; }
bad=$(grep -cvE '^[0-9]+\.[0-9]{9} error demo\.c:[0-9]+ key [0-9]+ failed for .+ \((GET|PUT|DELETE) request [0-9]+, span [0-9a-f]{16}\)$' "$T/err.txt" || true)
[ "$bad" -eq 0 ] || { echo "$bad malformed error lines:"; grep -vE 'failed for' "$T/err.txt" | head -3; exit 1; }
grep -qE '^[0-9]+\.[0-9]{9} info  demo\.c:[0-9]+ worker 3 done, [0-9]+\.[0-9]% of [0-9]+ lookups hit$' "$T/all.txt" || { echo "no 'worker 3 done'"; exit 1; }
# Two dumps: one time order, each line naming its host/instance.
"$bb" log "$T/a.bb" "$T/b.bb" >"$T/both.txt"
[ "$(wc -l <"$T/both.txt")" -eq $((all + $("$bb" log "$T/b.bb" | wc -l))) ] || { echo "merged count"; exit 1; }
cut -d' ' -f1 "$T/both.txt" | sort -c -n || { echo "merged lines out of time order"; exit 1; }
[ "$(cut -d' ' -f2 "$T/both.txt" | sort -u | wc -l)" -eq 2 ] || { echo "want 2 instances named"; exit 1; }
# The trace: one "log" instant per log line, named by its message.
"$bb" convert "$T/a.bb" -o "$T/a.json" >/dev/null
n=$(grep -o '"cat":"log"' "$T/a.json" | wc -l)
[ "$n" -eq "$all" ] || { echo "trace has $n log instants, want $all"; exit 1; }
grep -q '"name":"worker 0 starts (batch)","cat":"log"' "$T/a.json" || { echo "no named instant"; exit 1; }
# tail of the live demo's ring files: log records as log lines (text), and in jsonl with their
# level and message, a string argument as its text, a double one as a JSON number.
# (A ring file goes when its process ends: each tail follows a live demo to its end.)
live() {
  rm -rf "$T/rings" && mkdir "$T/rings"
  "$demo" --live "$T/rings" 1 >/dev/null &
  i=0; while [ -z "$(ls "$T/rings")" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
  timeout 20 "$bb" tail --follow --format "$1" --scan "$T/rings" >"$2"
  wait
}
live text "$T/tail.txt"
grep -qE ' info +demo\.c:[0-9]+ worker [0-9] done, [0-9]+\.[0-9]% of [0-9]+ lookups hit$' "$T/tail.txt" ||
  { echo "tail text: no done line"; head -3 "$T/tail.txt"; exit 1; }
live jsonl "$T/tail.jsonl"
grep -qE '"level":"info",.*"message":"worker [0-9] done, [0-9.]+% of [0-9]+ lookups hit","a0":[0-9]+,"a1":[0-9]{1,3}(\.[0-9]+)?,"a2":[0-9]+\}$' "$T/tail.jsonl" ||
  { echo "tail jsonl: done line's double not a number"; grep done "$T/tail.jsonl" | head -2; exit 1; }
grep -qE '"level":"error",.*"a0":[0-9]+,"a1":"[^"]+ #[0-9]",' "$T/tail.jsonl" ||
  { echo "tail jsonl: error line's string not its text"; grep error "$T/tail.jsonl" | head -2; exit 1; }
# A bad level is a usage error.
if "$bb" log --level loud "$T/a.bb" >/dev/null 2>&1; then echo "bad level accepted"; exit 1; fi
echo ok
