#!/usr/bin/env bash
# output-hashes.sh BUILD_DIR WORK_DIR [EXTRA_DUMP...] — one sha256 line per output that the
# CLI and the test generators write from a fixed input set: the golden dumps (inspect text and
# JSON, Parquet + views sidecar, trace JSON; merge of the multi dumps), the dumps the generators
# write (pq_gendump, cli_gen) and their conversions, and any EXTRA_DUMP (a recorded demo dump).
# Run it on two builds and diff the listings: a refactoring that keeps outputs must print the
# same lines. Timestamps and pids never enter these outputs, so two runs of one build agree.
# SPDX-License-Identifier: MIT
set -euo pipefail
b="$(cd "$1" && pwd)"; w="$2"; shift 2
compat="${BACKBEAT_COMPAT_DIR:-$(cd "$(dirname "$0")/.." && pwd)/../shared/compat}"
cli="$b/backbeat"
find_tool() { find "$b" -type f -name "$1" -perm -u+x | head -1; }
w="$(mkdir -p "$w" && cd "$w" && pwd)"; rm -rf "$w"; mkdir -p "$w/in" "$w/out"
for f in "$compat"/*.bb; do cp "$f" "$w/in/"; done
for f in "$@"; do cp "$f" "$w/in/"; done
gd="$(find_tool pq_gendump)"; cg="$(find_tool cli_gen)"
"$gd" "$w/in/gen_1000.bb" 1000 >/dev/null
"$gd" "$w/in/gen_clash.bb" clash >/dev/null
"$gd" "$w/in/gen_wide.bb" wide 2000 >/dev/null
"$cg" spans1 "$w/in/cli_spans1.bb" >/dev/null
"$cg" spans2 "$w/in/cli_spans2.bb" >/dev/null
"$cg" bench "$w/in/cli_bench.bb" 5000 >/dev/null
rm -f "$w"/in/*.records.json
cd "$w"  # relative paths: inspect and the views sidecar name their input
for f in in/*.bb; do
  n="$(basename "$f" .bb)"
  "$cli" inspect "$f" >"out/$n.inspect.txt" 2>&1 || echo "exit $?" >>"out/$n.inspect.txt"
  "$cli" inspect --json "$f" >"out/$n.inspect.json" 2>&1 || echo "exit $?" >>"out/$n.inspect.json"
  "$cli" convert "$f" -o "out/$n.parquet" >/dev/null 2>&1 || echo "exit $?" >"out/$n.parquet.err"
  "$cli" convert "$f" -o "out/$n.trace.json" >/dev/null 2>&1 || echo "exit $?" >"out/$n.trace.err"
done
m=in
"$cli" merge "$m/multi_a.bb" "$m/multi_b.bb" -o "out/merge_ab.bb" >/dev/null
"$cli" merge "$m/multi_a.bb" "$m/multi_b.bb" "$m/multi_other.bb" -o "out/merge_abo.bb" >/dev/null
"$cli" merge --no-dedup "$m/multi_a.bb" "$m/multi_a.bb" -o "out/merge_aa_nodedup.bb" >/dev/null
"$cli" merge "$m/cli_spans1.bb" "$m/cli_spans2.bb" -o "out/merge_spans.bb" >/dev/null
"$cli" convert "$m/multi_a.bb" "$m/multi_b.bb" "$m/multi_other.bb" -o "out/multi_abo.parquet" >/dev/null
"$cli" convert "$m/multi_a.bb" "$m/multi_b.bb" "$m/multi_other.bb" -o "out/multi_abo.trace.json" >/dev/null
"$cli" convert "$m/cli_spans1.bb" "$m/cli_spans2.bb" --event 'demo*' --since +1us -o "out/spans_filtered.parquet" >/dev/null 2>&1 || true
"$cli" skill >"out/skill.md"
sha256sum in/*.bb out/* | sort -k2
