#!/usr/bin/env bash
# demo.sh BUILD_DIR — the README's main job: run the demo program (it records real traffic
# and dumps it), inspect the dump, and convert it to Parquet and to a Chrome/Perfetto trace.
# SPDX-License-Identifier: MIT
set -euo pipefail
b="${1:-build}"
out="$(pwd)/out"
mkdir -p "$out"
rm -f "$out"/demo.bb "$out"/demo.parquet "$out"/demo.parquet.views.sql "$out"/demo.trace.json
"$b/examples/demo" "$out/demo.bb"
"$b/backbeat" inspect "$out/demo.bb" >"$out/demo.inspect.txt"
sed -n '1,12p' "$out/demo.inspect.txt"
echo "  ... (full listing: $out/demo.inspect.txt)"
"$b/backbeat" convert "$out/demo.bb" -o "$out/demo.parquet"
"$b/backbeat" convert "$out/demo.bb" -o "$out/demo.trace.json"
echo
echo "outputs:"
echo "  dump     $out/demo.bb"
echo "  parquet  $out/demo.parquet"
echo "  views    $out/demo.parquet.views.sql"
echo "           query: node scripts/query.mjs out/demo.parquet.views.sql"
echo "              or: duckdb -cmd \"SET file_search_path = 'out'\" -cmd \".read out/demo.parquet.views.sql\""
echo "  trace    $out/demo.trace.json   (open in https://ui.perfetto.dev or chrome://tracing)"
