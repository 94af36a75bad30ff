#!/usr/bin/env bash
# run.sh — run one libFuzzer target for a bounded time and fail on any report.
#
#   fuzz/run.sh TARGET SECONDS
#
# TARGET is a target's name (fuzz_cli_convert_parquet, fuzz_cli_convert_trace, fuzz_cli_merge,
# fuzz_cli_inspect, fuzz_reader, fuzz_ringfile, fuzz_dataset), looked up in $FUZZ_BUILD (default build-fuzz, configured with
# -DBB_FUZZ=ON by `make test-fuzz`), or a path to one. The corpus starts from fuzz/seeds.sh's
# seeds in a temporary directory (kept in $FUZZ_CORPUS when set). Limits: -rss_limit_mb=2048
# and -timeout=10 (an input that takes more is a finding: the pathological-but-valid dumps are
# meant to stay linear), -max_len=$FUZZ_MAX_LEN (default 262144; 2 MiB for fuzz_ringfile,
# whose ring files hold a 1 MiB metadata log). The format's tokens (fuzz/dump.dict) and
# -use_value_profile=1 help it past the envelope's checks. Any crash,
# sanitizer report, leak, timeout or out-of-memory fails the run; the input that caused it is
# kept under $FUZZ_ARTIFACTS (default FUZZ_BUILD/fuzz-artifacts/) and its path printed: minimise
# it (TARGET -minimize_crash=1 -runs=10000 FILE) and commit it in tests/fuzz_regress/. Prints
# the runs, coverage, slowest input and peak RSS.
# SPDX-License-Identifier: MIT
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: fuzz/run.sh TARGET SECONDS" >&2; exit 2; }
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${FUZZ_BUILD:-$root/build-fuzz}"
target=$1 seconds=$2
case "$target" in */*) bin=$target ;; *) bin="$(find "$build" -type f -name "$target" -perm -u+x | head -1)" ;; esac
[ -n "$bin" ] && [ -x "$bin" ] || { echo "run.sh: no fuzz target $target in $build (make test-fuzz builds them)" >&2; exit 1; }
name="$(basename "$bin")"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
corpus="${FUZZ_CORPUS:-$work/corpus}"
artifacts="${FUZZ_ARTIFACTS:-$build/fuzz-artifacts}"
mkdir -p "$corpus" "$artifacts"
"$root/fuzz/seeds.sh" "$build" "$work/seeds"

log="$work/log"
max_len=262144
[ "$name" = fuzz_ringfile ] && max_len=2097152 # a ring file holds a 1 MiB metadata log
status=0
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1:allocator_may_return_null=1" \
UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:print_stacktrace=1" \
  "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 \
  -max_len="${FUZZ_MAX_LEN:-$max_len}" -dict="$root/fuzz/dump.dict" -use_value_profile=1 \
  -close_fd_mask=3 -print_final_stats=1 \
  -artifact_prefix="$artifacts/$name-" "$corpus" "$work/seeds" >"$log" 2>&1 || status=$?

execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
if [ "$status" -ne 0 ] || grep -qE 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: ' "$log"; then
  grep -vE '^#[0-9]+' "$log" | tail -60 >&2
  echo "run.sh: $name: FINDING (exit $status) after ${execs:-?} runs; input: $(grep -o "$artifacts/[^ ]*" "$log" | tail -1)" >&2
  exit 1
fi
cov="$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)"
slowest="$(sed -n 's/^stat::slowest_unit_time_sec: *//p' "$log" | tail -1)"
rss="$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)"
echo "run.sh: $name: ${execs:-?} runs in ${seconds}s, ${cov:-cov: ?}, slowest input ${slowest:-?}s, peak RSS ${rss:-?} MB, corpus $(find "$corpus" -type f | wc -l) inputs, no finding"
