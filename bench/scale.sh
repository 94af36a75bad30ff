#!/usr/bin/env bash
# scale.sh [BUILD_DIR] — the scaling check of issue "Reliability" item 2: for each input shape
# that once cost more than linear time or memory, generate it at size n and 2n (bench/scale/
# gen_scale.c), time the CLI step on both with /usr/bin/time and print wall seconds, peak RSS
# and the 2n/n ratios. A linear step shows ratios near 2 (or near 1 for a small fixed part);
# a quadratic one near 4. Timings are noisy on a shared machine: read the ratios, not the
# absolute figures. Scratch files go to BB_BENCH_DIR (default BUILD_DIR/bench_scale_work).
# SPDX-License-Identifier: MIT
set -euo pipefail
b="$(cd "${1:-build}" && pwd)"
cli="$b/backbeat"
gen="$(find "$b" -type f -name gen_scale -perm -u+x | head -1)"
[ -x "$cli" ] && [ -n "$gen" ] || { echo "scale.sh: build backbeat and gen_scale first" >&2; exit 1; }
w="${BB_BENCH_DIR:-$b/bench_scale_work}"
mkdir -p "$w"
trap 'rm -rf "$w"' EXIT

# run LABEL CMD... — prints "seconds kilobytes" of one run of CMD
run() {
  rm -f "$w/time"
  /usr/bin/time -o "$w/time" -f '%e %M' nice "$@" >/dev/null 2>"$w/err" || true
  head -2 "$w/err" >&2 || true
  tail -1 "$w/time"
}

# case NAME STEP GENARGS_N GENARGS_2N — generate both sizes, time STEP on each
printf '%-38s %-14s %10s %10s %8s %10s %10s %8s\n' case step "t(n) s" "t(2n) s" ratio \
  "rss(n) MB" "rss(2n) MB" ratio
case_() {
  local name="$1" step="$2" a="$3" c="$4"
  # shellcheck disable=SC2086
  "$gen" "$w/n.bb" $a >/dev/null
  # shellcheck disable=SC2086
  "$gen" "$w/2n.bb" $c >/dev/null
  local r1 r2
  case "$step" in
    inspect) r1="$(run "$cli" inspect "$w/n.bb")"; r2="$(run "$cli" inspect "$w/2n.bb")" ;;
    parquet) r1="$(run "$cli" convert "$w/n.bb" -o "$w/o.parquet")"
             r2="$(run "$cli" convert "$w/2n.bb" -o "$w/o.parquet")" ;;
    trace) r1="$(run "$cli" convert "$w/n.bb" -o "$w/o.trace.json")"
           r2="$(run "$cli" convert "$w/2n.bb" -o "$w/o.trace.json")" ;;
    merge) r1="$(run "$cli" merge "$w/n.bb" -o "$w/o.bb")"
           r2="$(run "$cli" merge "$w/2n.bb" -o "$w/o.bb")" ;;
  esac
  rm -f "$w"/o.*
  awk -v n="$name" -v s="$step" -v a="$r1" -v c="$r2" 'BEGIN {
    split(a, x, " "); split(c, y, " ");
    tr = x[1] > 0.005 ? sprintf("%.2f", y[1] / x[1]) : "-";
    printf "%-38s %-14s %10.2f %10.2f %8s %10.1f %10.1f %8.2f\n", n, s, x[1], y[1], tr,
           x[2] / 1024, y[2] / 1024, y[2] / x[2] }'
}

# Each pair doubles the input in the dimension that once cost more than linear (the output of
# the bigstrings trace doubles too: it writes every string in full on every row).
case_ "widefields 16384 / 32768 (x4 events)" parquet "widefields 16384" "widefields 32768"
case_ "widefields 16384 / 32768 (x4 events)" trace "widefields 16384" "widefields 32768"
case_ "manylabels 32768x1M / 65535x2M" parquet "manylabels 32768 1000000" "manylabels 65535 2000000"
case_ "manylabels 32768x1M / 65535x2M" trace "manylabels 32768 1000000" "manylabels 65535 2000000"
case_ "bigstrings 1000 / 2000 x16K, 400k rec" parquet "bigstrings 1000 16384 400000" "bigstrings 2000 16384 400000"
case_ "bigstrings 2000 x16K, 400k / 800k rec" parquet "bigstrings 2000 16384 400000" "bigstrings 2000 16384 800000"
case_ "bigstrings 500 x4K, 100k / 200k rec" trace "bigstrings 500 4096 100000" "bigstrings 500 4096 200000"
case_ "manymeta 32768 / 65535" inspect "manymeta 32768" "manymeta 65535"
case_ "manymeta 32768 / 65535" merge "manymeta 32768" "manymeta 65535"
case_ "manyviews 32767 / 65534" merge "manyviews 32767" "manyviews 65534"
case_ "manyshards 32766 / 65533" merge "manyshards 32766" "manyshards 65533"
case_ "zeroshard 1 GiB / 2 GiB" inspect "zeroshard 1073741824" "zeroshard 2147483648"
case_ "zeroshard 1 GiB / 2 GiB" merge "zeroshard 1073741824" "zeroshard 2147483648"
