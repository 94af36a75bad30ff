#!/usr/bin/env bash
# bench.sh [BUILD_DIR] [SECTION...] — run the benchmarks one after another (never in parallel:
# the machine is shared) and print their figures. With no SECTION every section runs; each
# section is a block below guarded by `want NAME`. Sizes: BB_BENCH_RECORDS (default 10 million).
# Scratch files go to BB_BENCH_DIR (default BUILD_DIR/bench_work) and are removed afterwards.
# SPDX-License-Identifier: MIT
set -euo pipefail
B="$(cd "${1:-build}" && pwd)"
[ $# -gt 0 ] && shift
SECTIONS="${*:-all}"
want() { [ "$SECTIONS" = all ] || [[ " $SECTIONS " == *" $1 "* ]]; }
WORK="${BB_BENCH_DIR:-$B/bench_work}"
mkdir -p "$WORK"
N="${BB_BENCH_RECORDS:-10000000}"

# measure LABEL RECORDS CMD... — run CMD under /usr/bin/time; print wall and CPU (user+sys)
# seconds, records/s by CPU time (the machine is shared, so wall time depends on the neighbours)
# and by wall time, and the peak RSS.
measure() {
  local label="$1" recs="$2"
  shift 2
  /usr/bin/time -f "%e %U %S %M" -o "$WORK/time.txt" "$@" >/dev/null
  read -r wall user sys rss <"$WORK/time.txt"
  awk -v l="$label" -v n="$recs" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" 'BEGIN {
    cpu = u + s; if (cpu <= 0) cpu = 0.01; if (w <= 0) w = 0.01;
    printf "  %-34s %8.2f s wall %8.2f s cpu  %6.2f M rec/s (cpu) %6.2f M rec/s (wall)  max RSS %6.1f MiB\n",
           l, w, cpu, n / cpu / 1e6, n / w / 1e6, r / 1024 }'
}

# ---------------------------------------------------------------- cli: trace conversion
if want cli; then
  echo "== cli: backbeat convert to trace JSON, merge, inspect ($N records, 4 shards)"
  dump="$WORK/cli_bench.bb"
  "$B/tests/cli_gen" bench "$dump" "$N"
  echo "  input dump: $(( $(stat -c %s "$dump") / 1048576 )) MiB (mapped; counted in RSS as it is read)"
  measure "convert -> trace (.json)" "$N" "$B/backbeat" convert "$dump" -o "$WORK/cli_bench.json"
  echo "  trace output: $(( $(stat -c %s "$WORK/cli_bench.json") / 1048576 )) MiB"
  rm -f "$WORK/cli_bench.json"
  measure "convert -> trace, to /dev/null" "$N" "$B/backbeat" convert "$dump" -f trace -o /dev/null
  measure "convert -> trace, --event filter" "$N" "$B/backbeat" convert "$dump" -f trace \
    -o /dev/null --event 'gen::Task*'
  measure "merge (re-pack)" "$N" "$B/backbeat" merge "$dump" -o "$WORK/cli_bench_m.bb"
  rm -f "$WORK/cli_bench_m.bb"
  measure "inspect (walk every ring)" "$N" "$B/backbeat" inspect "$dump"
  rm -f "$dump"
fi

# ---------------------------------------------------------------- ctf: beside trace and Parquet
# The CTF writer (src/ctf) against the trace and Parquet writers on one thread, same dump
# (cli_gen bench: 4 shards, notes with an interned tag, span pairs): ratios side by side, no
# threshold (issue 42 asks >= 5 M records/s on one thread).
if want ctf; then
  echo "== ctf: backbeat convert -f ctf vs trace vs parquet, --threads 1 ($N records, 4 shards)"
  dump="$WORK/ctf_bench.bb"
  "$B/tests/cli_gen" bench "$dump" "$N"
  measure "convert -> ctf (DIR)" "$N" "$B/backbeat" convert "$dump" --threads 1 -f ctf \
    -o "$WORK/ctf_bench.ctf"
  echo "  ctf output: $(( $(du -sk "$WORK/ctf_bench.ctf" | cut -f1) / 1024 )) MiB"
  rm -rf "$WORK/ctf_bench.ctf"
  measure "convert -> trace (.json)" "$N" "$B/backbeat" convert "$dump" --threads 1 \
    -o "$WORK/ctf_bench.json"
  rm -f "$WORK/ctf_bench.json"
  measure "convert -> parquet" "$N" "$B/backbeat" convert "$dump" --threads 1 \
    -o "$WORK/ctf_bench.parquet"
  rm -f "$WORK/ctf_bench.parquet" "$WORK/ctf_bench.parquet.views.sql" "$dump"
fi

# ---------------------------------------------------------------- parquet: convert vs DuckDB
# `backbeat convert` to Parquet of a generated dump (tests/table/pq_gendump) against DuckDB
# writing the same table to zstd Parquet with one thread (COPY of the table loaded beforehand).
if want parquet; then
  BENCH_RECORDS="$N" BENCH_DIR="$WORK" bash "$(dirname "$0")/../bench/convert_parquet.sh" "$B"
  rm -f "$WORK/convert_$N.bb" "$WORK/convert_$N.parquet" "$WORK/convert_$N.parquet.views.sql"
fi

# ---------------------------------------------------------------- footprint: size and RSS
# libbackbeat.so stripped (a copy; `size`: text, data, bss) and a program's resident set before
# its first record, with and without the library (bench/footprint.c).
if want footprint; then
  echo "== footprint: libbackbeat.so stripped, and a program's RSS before its first record"
  lib="$(ls "$B"/lib/libbackbeat.so.*.*.* 2>/dev/null | head -n 1)"
  if [ -n "$lib" ]; then
    strip -o "$WORK/libbackbeat.stripped.so" "$lib"
    echo "  $(basename "$lib") stripped: $(stat -c %s "$WORK/libbackbeat.stripped.so") bytes"
    size "$WORK/libbackbeat.stripped.so" | sed 's/^/  /'
    rm -f "$WORK/libbackbeat.stripped.so"
  fi
  BACKBEAT_ENABLE=1 BACKBEAT_DUMP_ON_EXIT=0 "$B/bench/footprint"
  "$B/bench/footprint_bare"
fi

# ---------------------------------------------------------------- hotpath: recorder fast path
# BB_RECORD per clock against a floor of bare primitives, disabled cost, 1 vs 2 threads.
if want hotpath; then
  "$B/bench/hotpath"
fi

# ---------------------------------------------------------------- ring: file-backed vs anonymous
# BB_RECORD into rings in a MAP_SHARED ring file ($TMPDIR or /tmp, and /dev/shm) against the
# same recorder in anonymous memory, alternating in one run (issue 12; bench/ring_hotpath.c).
if want ring; then
  "$B/bench/ring_hotpath"
fi

# ---------------------------------------------------------------- live: tail / top following
# The writer's hot-path cost while `backbeat tail --follow` / `backbeat top` follow its ring file
# vs not followed, alternating rounds, with the reader competing for the CPUs and pinned apart
# (bench/live_hotpath.c); the record rate a tail keeps up with before it reports losses and the
# follow latency, commit -> printed (tests/cli/tail_test.c `rate`, `follow`; issue 22).
if want live; then
  "$B/bench/live_hotpath" "$B/backbeat" "${BB_LIVE_RECORDS:-4000000}" "${BB_LIVE_ROUNDS:-9}"
  "$B/tests/tail_test" rate
  echo "== follow latency: tail --follow --format jsonl of 8 paced writer threads (40 000 records/s), 3 runs"
  for _ in 1 2 3; do "$B/tests/tail_test" follow | sed 's/^/  /'; done
fi

# ---------------------------------------------------------------- follow: the follow table
# One writer thread (CPU 1) paced at 3, 6, 12, 20 M records/s for 2 s into a ring file, followed
# from CPU 0 by the follow API (`api`: bb_ring_follow_records; `apidump`: bb_ring_follow and its
# dump walked), `watch`, `top` and `tail --follow --format jsonl > file`: records written, seen,
# reported lost, and whether seen + lost == written (bench/follow_rate.c; issue 37); then both
# calls' own CPU per record in polls of 2 000 / 20 000 / 200 000 records, in thread CPU time,
# which the scheduler of a shared host does not blur (bench/follow_cost.c).
if want follow; then
  "$B/bench/follow_rate" "$B/backbeat" "${BB_FOLLOW_MS:-2000}" "${BB_FOLLOW_DIR:-/dev/shm}"
  "$B/bench/follow_cost" "${BB_FOLLOW_DIR:-/dev/shm}"
fi

# ---------------------------------------------------------------- trigger: condition triggers
# The hot path with rules armed vs none (interleaved rounds), the firing latency in process,
# how late a hung span is caught, the extra CPU of armed rules at 1 M records/s, the firing
# latency of `backbeat watch` on a ring file (issue 39;
# bench/trigger_hotpath.c).
if want trigger; then
  mkdir -p "$WORK/trigger"
  "$B/bench/trigger_hotpath" "${BB_TRIGGER_RECORDS:-2000000}" "${BB_TRIGGER_ROUNDS:-9}" "$B/backbeat" "$WORK/trigger"
  rm -rf "$WORK/trigger"
fi

# ---------------------------------------------------------------- dump: dump cost
# Snapshot + write of 16 x 16 MiB full rings (file, memory), mostly empty 256 MiB and 4 GiB
# configurations (holes on disk), and a writer's cost per record while dumps run back to back.
if want dump; then
  "$B/bench/dump_cost" "$WORK"
fi

# ---------------------------------------------------------------- livedump: live dumps keep every shard
# 8 threads record back to back (2 shards on a 2-CPU host), 16 and 64 MiB per shard: per run
# and shard the share of the ring a live dump keeps as whole records, in process
# (bb_global_dump) and from outside on the ring file (`recover --force`, `watch`) (issue 37).
if want livedump; then
  for mib in 16 64; do
    "$B/bench/live_dump" inproc "$mib" "${BB_LIVEDUMP_RUNS:-5}" "$WORK"
    "$B/bench/live_dump" outside "$mib" "${BB_LIVEDUMP_RUNS:-3}" "$WORK" "$B/backbeat" 2>/dev/null
  done
fi

# ---------------------------------------------------------------- lttng: side by side
# BB_RECORD (each clock, rseq and fetch_add, disabled) against the ideal lock-prefixed path and
# an LTTng-UST snapshot-session tracepoint, same process, same rounds, quiet and under a
# competing load (bench/lttng.sh; installs LTTng from Debian when missing).
if want lttng; then
  bash "$(dirname "$0")/../bench/lttng.sh" "$B"
fi

# ---------------------------------------------------------------- dataset: append vs its floor
# One dump of N small one-host instances (tests/table/dataset_gen): `convert -o` (one file),
# `convert --dataset` (a partition, a part and an index file per instance, committed with two
# syncfs) and bench/dataset_floor (the same directories and files, same sizes, written and
# renamed the same way, no Parquet): wall seconds, medians of interleaved rounds (issue 43).
if want dataset; then
  echo "== dataset: append of one dump of N one-host instances vs convert -o vs the file system's floor (median of ${BB_DATASET_ROUNDS:-5} rounds, wall s)"
  printf "  %6s %12s %12s %12s %12s %12s\n" N "convert -o" "--dataset" "floor" "ds/floor" "ds/convert"
  for n in ${BB_DATASET_INSTANCES:-1024 4096}; do
    d="$WORK/ds_bench"
    rm -rf "$d" && mkdir -p "$d"
    "$B/tests/dataset_gen" "$d/in.bb" instances "$n" >/dev/null
    : >"$d/o.txt"; : >"$d/s.txt"; : >"$d/f.txt"
    for _ in $(seq "${BB_DATASET_ROUNDS:-5}"); do
      t0=$(date +%s.%N); "$B/backbeat" convert "$d/in.bb" -o "$d/o.parquet" >/dev/null; t1=$(date +%s.%N)
      awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >>"$d/o.txt"; rm -f "$d/o.parquet"
      t0=$(date +%s.%N); "$B/backbeat" convert "$d/in.bb" --dataset "$d/ds" >/dev/null; t1=$(date +%s.%N)
      awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >>"$d/s.txt"
      part=$(find "$d/ds" -name 'part-*.parquet' -print -quit | xargs stat -c %s)
      idx=$(find "$d/ds/_backbeat/index" -type f -print -quit | xargs stat -c %s)
      rm -rf "$d/ds"
      "$B/bench/dataset_floor" "$d/fl" "$n" "$part" "$idx" >>"$d/f.txt"; rm -rf "$d/fl"
    done
    med() { sort -g "$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
    o=$(med "$d/o.txt"); s=$(med "$d/s.txt"); f=$(med "$d/f.txt")
    awk -v n="$n" -v o="$o" -v s="$s" -v f="$f" 'BEGIN {
      printf "  %6d %12.3f %12.3f %12.3f %11.2fx %11.1fx\n", n, o, s, f, s / f, s / o }'
    rm -rf "$d"
  done
fi

# ---------------------------------------------------------------- log: log lines side by side
# BB_LOG (three integers; one string) against BB_RECORD of the same fields, spdlog's async
# logger to a file, LTTng-UST tracef and fprintf to a buffered file, one and two threads, same
# rounds; then the read side's formatting rate (bench/log.sh; installs spdlog and LTTng from
# Debian when missing).
if want log; then
  bash "$(dirname "$0")/../bench/log.sh" "$B"
fi

# ---------------------------------------------------------------- global: BB_GRECORD vs BB_RECORD
# What recording through the global recorder costs over a local recorder (issue 5;
# bench/global_hotpath.c): same event, clock and ring; enabled and disabled.
if want global; then
  "$B/bench/global_hotpath"
fi

# ---------------------------------------------------------------- crash: the module list's cost
# 1 000 plugins dlopened and dlclosed with crash dumps armed and not, alternating; a crash with
# them loaded (issue 40; bench/crash_dlopen.c).
if want crash; then
  "$B/bench/crash_dlopen" "$B/bench/crash_dlopen_plugin.so" "$WORK/crash_dlopen" 1000
  rm -rf "$WORK/crash_dlopen"
fi

# ---------------------------------------------------------------- intern: bb_intern vs a record
# A record with bb_intern of a repeated 24-31 byte key against the same record with a constant
# id, and two threads interning at once (issue 21; bench/intern_hotpath.c).
if want intern; then
  "$B/bench/intern_hotpath"
fi

# ---------------------------------------------------------------- threads: convert at scale
# convert --threads 1 vs every CPU, Parquet, trace and --dataset, 10 M and 100 M records (the
# larger only with the disk space), against DuckDB's writer, ending each size with the issue-25
# figures side by side: records/s and the ratio to DuckDB's COPY, peak memory beyond the mapped
# input (issues 13 and 25; bench/convert_threads.sh).
if want threads; then
  BENCH_DIR="$WORK/threads" bash "$(dirname "$0")/../bench/convert_threads.sh" "$B"
fi
