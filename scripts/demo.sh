#!/usr/bin/env bash
# demo.sh BUILD_DIR — run the demo program, then convert its dump to Parquet and to a trace.
set -euo pipefail
b="${1:-build}"
out="$(pwd)/out"
mkdir -p "$out"
rm -f "$out"/demo.bb
"$b/examples/demo" "$out/demo.bb"
echo "dump:    $out/demo.bb"
if [ -x "$b/backbeat" ]; then
  "$b/backbeat" inspect "$out/demo.bb" | head -40
  "$b/backbeat" convert "$out/demo.bb" -o "$out/demo.parquet"
  "$b/backbeat" convert "$out/demo.bb" -o "$out/demo.trace.json"
  echo "parquet: $out/demo.parquet (views: $out/demo.parquet.views.sql)"
  echo "trace:   $out/demo.trace.json (open in https://ui.perfetto.dev or chrome://tracing)"
fi
