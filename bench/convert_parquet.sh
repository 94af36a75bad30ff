#!/usr/bin/env bash
# convert_parquet.sh — benchmark of `backbeat convert` to Parquet against DuckDB's own writer.
#
# Generates a dump of BENCH_RECORDS records (default 10 million; tests/table/pq_gendump.c),
# times the conversion (`backbeat convert` when the CLI is built, else the pq_convert driver
# that calls the same writer) under /usr/bin/time -v for wall time and peak RSS, runs it again
# sampling its anonymous RSS (the memory beyond the mapped input), then DuckDB
# with one thread writing the same table (loaded into memory first; only the COPY is timed)
# to zstd Parquet at the same level. Each side: best of BENCH_REPEAT runs (default 3) by wall
# time. Prints one summary block.
#
# Usage: bench/convert_parquet.sh BUILD_DIR   (env: BENCH_RECORDS, BENCH_DIR, BENCH_LEVEL)
# SPDX-License-Identifier: MIT
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:-$here/../build}" && pwd)"
n="${BENCH_RECORDS:-10000000}"
level="${BENCH_LEVEL:-3}"
dir="${BENCH_DIR:-$build/bench-data}"
mkdir -p "$dir"
dump="$dir/convert_$n.bb"
out="$dir/convert_$n.parquet"

gen="$build/tests/pq_gendump"
[ -x "$gen" ] || { echo "convert_parquet: build pq_gendump first ($gen)" >&2; exit 1; }
[ -f "$dump" ] || "$gen" "$dump" "$n" >/dev/null

if [ -x "$build/backbeat" ]; then
  tool="backbeat convert"
  cmd=("$build/backbeat" convert "$dump" -o "$out" --compression-level "$level")
else
  tool="pq_convert (backbeat's Parquet writer, CLI not built)"
  cmd=(env BACKBEAT_PARQUET_LEVEL="$level" "$build/tests/pq_convert" "$out" "$dump")
fi
# Best of BENCH_REPEAT runs (default 3): the machine is shared, so single wall times are noisy.
rep="${BENCH_REPEAT:-3}"
best=""
for ((r = 0; r < rep; r++)); do
  rm -f "$out" "$out.views.sql"
  /usr/bin/time -v "${cmd[@]}" 2>"$dir/time_run.txt" >/dev/null || { cat "$dir/time_run.txt" >&2; exit 1; }
  w=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$dir/time_run.txt" |
      awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
  if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN { exit !(a < b) }'; then
    best="$w"
    cp "$dir/time_run.txt" "$dir/time.txt"
  fi
done

# Second run: sample the anonymous (non-file) resident memory every 20 ms; file-backed pages of
# the mapped input are what peak RSS adds on top.
rm -f "$out" "$out.views.sql"
"${cmd[@]}" >/dev/null 2>&1 &
pid=$!
anon_kb=0
while kill -0 "$pid" 2>/dev/null; do
  a=$(awk '/^RssAnon:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  [ -n "$a" ] && [ "$a" -gt "$anon_kb" ] && anon_kb=$a
  sleep 0.02
done
wait "$pid"

wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$dir/time.txt")
secs=$(echo "$wall" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
user=$(awk -F': ' '/User time/ {print $2}' "$dir/time.txt")
sys=$(awk -F': ' '/System time/ {print $2}' "$dir/time.txt")
rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$dir/time.txt")
in_bytes=$(stat -c %s "$dump")
out_bytes=$(stat -c %s "$out")

duck_line=$(node "$here/convert_duckdb.mjs" "$out" "$dir/duckdb_$n.parquet" "$level" "$rep")
duck_secs=$(echo "$duck_line" | sed -n 's/.*duckdb_seconds=\([0-9.]*\).*/\1/p')
duck_cpu=$(echo "$duck_line" | sed -n 's/.*duckdb_cpu=\([0-9.]*\).*/\1/p')
duck_bytes=$(echo "$duck_line" | sed -n 's/.*duckdb_bytes=\([0-9]*\).*/\1/p')
rm -f "$dir/duckdb_$n.parquet"

awk -v n="$n" -v s="$secs" -v u="$user" -v sy="$sys" -v dc="$duck_cpu" -v rss="$rss_kb" -v anon="$anon_kb" -v inb="$in_bytes" -v outb="$out_bytes" \
    -v ds="$duck_secs" -v db="$duck_bytes" -v tool="$tool" -v lvl="$level" -v rep="$rep" 'BEGIN {
  printf "== convert to Parquet: %d records, zstd level %d (best of %d runs each) ==\n", n, lvl, rep
  printf "backbeat  (%s): %.2f s wall, %.2f s CPU, %.0f records/s, %.1f MiB out\n", tool, s, u + sy, n / s, outb / 1048576
  printf "          peak RSS %.1f MiB (input %.1f MiB, mapped); peak anonymous RSS %.1f MiB (sampled)\n", rss / 1024, inb / 1048576, anon / 1024
  printf "duckdb    (COPY, 1 thread): %.2f s wall, %.2f s CPU, %.0f records/s, %.1f MiB out\n", ds, dc, n / ds, db / 1048576
  printf "ratio     backbeat/DuckDB speed: %.2fx by wall time, %.2fx by CPU time\n", ds / s, dc / (u + sy)
}'
