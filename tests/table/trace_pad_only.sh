#!/usr/bin/env bash
# trace_pad_only.sh BACKBEAT PAD_ONLY_GEN WORKDIR — two versions of one event name whose fields
# are all padding: each record's args must be exactly {"backbeat.event_id":"<16 hex>"} (no
# comma before it: an args object opened with "{," is not JSON), the two ids differ, and node
# parses the whole trace when it is installed.
# SPDX-License-Identifier: MIT
set -euo pipefail
B="$1" GEN="$2" W="$3"
rm -rf "$W"
mkdir -p "$W"
"$GEN" "$W/pad.bb"
"$B" convert "$W/pad.bb" -o "$W/pad.json"
fail=0
if grep -q '{,' "$W/pad.json"; then
  echo "FAIL: an object opens with '{,' in $W/pad.json" >&2
  grep -o '"args":{,[^}]*}' "$W/pad.json" | head -2 >&2
  fail=1
fi
ids="$(grep -o '"args":{"backbeat.event_id":"[0-9a-f]\{16\}"}' "$W/pad.json" | sort | uniq -c)"
n="$(printf '%s\n' "$ids" | awk '{s += $1} END {print s + 0}')"
k="$(printf '%s\n' "$ids" | grep -c . || true)"
if [ "$n" -ne 6 ] || [ "$k" -ne 2 ]; then
  echo "FAIL: want 6 records' args naming 2 ids, got $n records, $k ids:" >&2
  printf '%s\n' "$ids" >&2
  fail=1
fi
if command -v node >/dev/null; then
  node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$W/pad.json" ||
    { echo "FAIL: $W/pad.json is not JSON" >&2; fail=1; }
fi
[ "$fail" -eq 0 ] && echo "trace_pad_only: 6 records, 2 ids, args without fields"
exit "$fail"
