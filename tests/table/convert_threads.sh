#!/usr/bin/env bash
# convert_threads.sh BACKBEAT PQ_GENDUMP WORKDIR — `convert --threads N` writes the output of
# `--threads 1` byte for byte (table/table_par.c):
#  - Parquet, for N = 1, 2, 3, 4 and every codec this build has, on dumps that give several row
#    groups: by row count (BACKBEAT_PARQUET_ROW_GROUP=3000, not a multiple of the batches), by
#    memory budget (BACKBEAT_PARQUET_BUDGET small: early row groups decided between batches),
#    with full pages (a page compressed inside the batch that fills it), alone and with a budget,
#    on three builds of one event set in one table (fleet_gen: versions, missing fields),
#    with the default sizes, with a filter (--event), and on the wide dump (~1200 leaves);
#  - the trace, for N = 1, 2 and 4: plain, with every span left unclosed, with orphan exits;
#  - --dataset appends: every part file and views.sql the same for N = 1 and 4;
#  - a failed write (file-size limit) with N = 4: exit 1, "cannot write OUT: File too large",
#    nothing left behind, as with N = 1;
#  - --threads 0 or a non-number: usage error (exit 2) naming the option.
# SPDX-License-Identifier: MIT
set -u
B="$1"; G="$2"; W="$3"
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
"$G" big.bb 70000 >/dev/null && "$G" wide.bb wide 6000 >/dev/null &&
  "$G" pages.bb 400000 >/dev/null || { echo "pq_gendump failed"; exit 1; }
F="$(dirname "$G")/fleet_gen" # three builds of one event set: versions, missing fields
for v in 1 2 3; do
  "$F" "v$v.bb" "$v" "$v" 2000 >/dev/null || { echo "fleet_gen failed"; exit 1; }
done
rm -f v?.bb.json

codecs=(zstd none)
for c in snappy gzip; do
  "$B" convert wide.bb -o probe.parquet --compression "$c" 2>/dev/null && codecs+=("$c")
done
rm -f probe.parquet probe.parquet.views.sql

# same TAG ENV... -- ARGS...: convert with each N under ENV, compare with N = 1.
same() {
  local tag="$1"; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  for n in 1 2 3 4; do
    env "${envs[@]}" "$B" convert "$@" -o "t$n.parquet" --threads "$n" ||
      { fail "$tag: --threads $n exit $?"; return; }
  done
  [ "$(stat -c %s t1.parquet)" -gt 4096 ] || fail "$tag: output too small"
  for n in 2 3 4; do
    cmp -s t1.parquet "t$n.parquet" || fail "$tag: --threads $n differs from --threads 1"
    # the sidecar names its own Parquet file
    cmp -s <(sed 's/t1\.parquet/tN.parquet/g' t1.parquet.views.sql) \
      <(sed "s/t$n\\.parquet/tN.parquet/g" "t$n.parquet.views.sql") ||
      fail "$tag: views.sql of --threads $n differs"
  done
  rm -f t?.parquet t?.parquet.views.sql
}

for c in "${codecs[@]}"; do
  same "rows/$c" BACKBEAT_PARQUET_ROW_GROUP=3000 -- big.bb --compression "$c"
done
same "budget" BACKBEAT_PARQUET_BUDGET=150000 -- big.bb
# full pages (1 MiB: compressed inside a leaf's task, on whichever thread runs it), also with
# the row groups cut by the budget
same "pages" X=1 -- pages.bb
same "pages+budget" BACKBEAT_PARQUET_BUDGET=4000000 -- pages.bb
# one table of three builds: leaves that several versions write, and the NULLs of the fields a
# version lacks (present group, NULL leaf)
same "versions" BACKBEAT_PARQUET_ROW_GROUP=700 -- v1.bb v2.bb v3.bb
same "default" X=1 -- big.bb
same "filter" BACKBEAT_PARQUET_ROW_GROUP=5000 -- big.bb --event 'gen::Span*'
same "wide" BACKBEAT_PARQUET_ROW_GROUP=1000 -- wide.bb --compression-level 1

# traces: plain, only enters (every span unclosed, closed at the end), only exits (orphans)
for ev in '*' 'gen::SpanBegin' 'gen::SpanEnd'; do
  for n in 1 2 4; do
    "$B" convert big.bb -o "t$n.json" --event "$ev" --threads "$n" ||
      fail "trace $ev --threads $n exit $?"
  done
  [ "$(stat -c %s t1.json)" -gt 100000 ] || fail "trace $ev: output too small"
  for n in 2 4; do
    cmp -s t1.json "t$n.json" || fail "trace $ev: --threads $n differs from --threads 1"
  done
  rm -f t?.json
done

for n in 1 4; do
  BACKBEAT_PARQUET_ROW_GROUP=4000 "$B" convert big.bb wide.bb --dataset "ds$n" --threads "$n" ||
    fail "dataset --threads $n exit $?"
done
(cd ds1 && find . -type f | sort) >ds1.list
(cd ds4 && find . -type f | sort) >ds4.list
[ -s ds1.list ] && cmp -s ds1.list ds4.list || fail "dataset: the files differ"
while read -r f; do
  case "$f" in
    ./views.sql) # it names the dataset's directory
      cmp -s <(sed 's/ds1/dsN/g' "ds1/$f") <(sed 's/ds4/dsN/g' "ds4/$f") ;;
    *) cmp -s "ds1/$f" "ds4/$f" ;;
  esac || fail "dataset: $f differs"
done <ds1.list
rm -rf ds1 ds4 ds1.list ds4.list

# A write that fails half-way (a file-size limit of 256 KiB, the signal ignored: EFBIG).
for n in 1 4; do
  (trap '' XFSZ; ulimit -f 256; exec "$B" convert big.bb -o full.parquet --threads "$n") 2>err.txt
  rc=$?
  [ $rc -eq 1 ] || fail "full disk, --threads $n: exit $rc"
  grep -q "cannot write full.parquet: File too large" err.txt ||
    fail "full disk, --threads $n: message $(cat err.txt)"
  left="$(ls -A | grep -vxE 'big\.bb|wide\.bb|pages\.bb|v[123]\.bb|err\.txt')"
  [ -z "$left" ] || fail "full disk, --threads $n: left behind: $left"
done

for bad in 0 x 257; do
  "$B" convert big.bb -o bad.parquet --threads "$bad" 2>err.txt
  rc=$?
  [ $rc -eq 2 ] && grep -q -- "--threads" err.txt && [ ! -e bad.parquet ] ||
    fail "--threads $bad: exit $rc, $(cat err.txt)"
done

[ $fails -eq 0 ] || exit 1
echo "PASS: --threads 2, 3, 4 write the bytes of --threads 1 (${codecs[*]}, rows, budget, filter, wide, trace, dataset)"
