#!/usr/bin/env bash
# seeds.sh — write the seed corpus of the whole-CLI fuzz targets into OUTDIR: the golden dumps
# (read in place from BACKBEAT_COMPAT_DIR, default ../shared/compat), small dumps from the test and
# benchmark generators of BUILD (cli_gen, robust_gen, gen_scale: every scaling shape at a small
# size), a ring file (ring_gen), fuzz_dataset's dataset states (ds_*), the committed regression inputs (tests/fuzz_regress/), and pairs of dumps joined by the
# merge target's separator (cli_harness.h, CLI_FUZZ_SEP).
#
#   fuzz/seeds.sh BUILD OUTDIR
# SPDX-License-Identifier: MIT
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: fuzz/seeds.sh BUILD OUTDIR" >&2; exit 2; }
root="$(cd "$(dirname "$0")/.." && pwd)"
build=$1 out=$2
mkdir -p "$out"
compat="${BACKBEAT_COMPAT_DIR:-$root/../shared/compat}"

for f in "$compat"/*.bb; do [ -f "$f" ] && cp "$f" "$out/golden_$(basename "$f")"; done
for f in "$root"/tests/fuzz_regress/*; do
  case "$f" in *.md) ;; *) [ -f "$f" ] && cp "$f" "$out/regress_$(basename "$f")" ;; esac
done

tool() { # the generator NAME under BUILD
  local t
  t="$(find "$build" -type f -name "$1" -perm -u+x | head -1)"
  [ -n "$t" ] || { echo "seeds.sh: $1 not built in $build" >&2; exit 1; }
  echo "$t"
}
cli_gen="$(tool cli_gen)" robust_gen="$(tool robust_gen)" gen_scale="$(tool gen_scale)"
ring_gen="$(tool ring_gen)"
# The generators are not under test here (a leak at their exit is not a finding).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
"$cli_gen" spans1 "$out/gen_spans1.bb" >/dev/null
"$cli_gen" spans2 "$out/gen_spans2.bb" >/dev/null
"$cli_gen" bench "$out/gen_bench.bb" 64 >/dev/null
"$robust_gen" noshards "$out/gen_noshards.bb" >/dev/null
"$robust_gen" orphan "$out/gen_orphan.bb" >/dev/null
"$robust_gen" shards "$out/gen_shards.bb" 5 >/dev/null
"$gen_scale" "$out/gen_widefields.bb" widefields 300 >/dev/null
"$gen_scale" "$out/gen_manylabels.bb" manylabels 300 16 >/dev/null
"$gen_scale" "$out/gen_bigstrings.bb" bigstrings 16 256 32 >/dev/null
"$gen_scale" "$out/gen_manymeta.bb" manymeta 64 >/dev/null
"$gen_scale" "$out/gen_zeroshard.bb" zeroshard 4096 >/dev/null
rm -f "$out"/*.records.json
# A ring file (fuzz_ringfile's seed; `convert` accepts ring files too): about 1.6 MB, so that
# target runs with a larger -max_len (run.sh).
ring_dir="$(mktemp -d)"
"$ring_gen" "$ring_dir" >/dev/null
mv "$ring_dir"/*.ring "$out/ring_seed.ring"
rmdir "$ring_dir"

pair() { # A B NAME: A, the separator, B
  [ -f "$1" ] && [ -f "$2" ] || return 0
  { cat "$1"; printf '\n--bbfuzz-next-dump--\n'; cat "$2"; } >"$out/pair_$3.bb"
}
pair "$out/gen_spans1.bb" "$out/gen_spans2.bb" spans
pair "$out/golden_multi_a.bb" "$out/golden_multi_b.bb" multi_ab
pair "$out/golden_multi_a.bb" "$out/golden_multi_other.bb" multi_aother
pair "$out/golden_basic.bb" "$out/golden_torn.bb" basic_torn
pair "$out/golden_wrapped.bb" "$out/golden_wrapped_suffix.bb" wrapped
pair "$out/gen_bench.bb" "$out/gen_noshards.bb" bench_noshards
# fuzz_dataset's inputs (fuzz/fuzz_dataset.c): a flags byte, length-prefixed partitioning, next
# and journal files, then the seed instance's index file (magic + 16-byte entries).
ds() { # NAME FLAGS-AND-FIELDS (printf format)
  printf "$2" >"$out/ds_$1.bin"
}
ds all '\x0f\x09\x00host,date\x01\x000\x0b\x00BBJOURNAL1\nBBIDX1\0\0\x01\0\0\0\0\0\0\0\0\0\0\0\x10\0\0\0'
ds parts '\x01\x0e\x00date,host,name'
ds next_wrap '\x02\x14\x0018446744073709551615'
ds journal '\x04\x1d\x00BBJOURNAL1\nt1\tpart-0.parquet\n'
ds tmp_journal '\x14\x1d\x00BBJOURNAL1\nt0\tpart-0.parquet\n'
ds index '\x08BBIDX1\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0'
echo "seeds.sh: $(find "$out" -type f | wc -l) seeds in $out" >&2
