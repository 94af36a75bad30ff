#!/usr/bin/env bash
# convert_memory.sh BACKBEAT PQ_GENDUMP WORKDIR [RECORDS [FLEET_GEN]] — convert's own memory does
# not grow with the dump (issue 25): on a generated dump of RECORDS records (default 5 M,
# ~235 MB), the peak anonymous RSS of `convert` (RssAnon of the child in /proc, sampled every
# 10 ms: the mapped dump and the mapped index files are file-backed and not counted) stays under a
# fixed ceiling for the trace (to /dev/null), Parquet (--threads 1 and 2) and --dataset: a first
# append, the same dump again (every record a duplicate: the index is looked up, not held), an
# append of other events (FLEET_GEN, default beside PQ_GENDUMP) that rewrites the first append,
# and one more that rewrites both earlier appends (the replays' key set is in scratch files).
# The ceilings are below the 4 bytes a record (19 MiB at 5 M records) a per-record structure
# would add on top of the writers' fixed memory (the hash set of keys the dataset held before
# took ~700 MiB here); Parquet and the dataset run with 128 Ki-row row groups so that their
# buffered chunks (flushed as each row group fills) stay small and any growth shows.
# SPDX-License-Identifier: MIT
set -u
B="$1"; G="$2"; W="$3"; N="${4:-5000000}"; F="${5:-$(dirname "$G")/fleet_gen}"
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
"$G" big.bb "$N" >/dev/null || { echo "pq_gendump failed"; exit 1; }
"$F" new2.bb 2 1 30 >/dev/null && "$F" new3.bb 3 1 30 >/dev/null || { echo "fleet_gen failed"; exit 1; }

# peak CEILING_MIB LABEL CMD... — run CMD (its stdout to /dev/null), sample its RssAnon, check.
peak() {
  local ceil="$1" label="$2"; shift 2
  "$@" >/dev/null &
  local pid=$! max=0 k v
  while kill -0 "$pid" 2>/dev/null; do
    while read -r k v _; do # builtins only: the sampling must not load the machine
      [ "$k" = RssAnon: ] && [ "$v" -gt "$max" ] && max=$v
    done <"/proc/$pid/status" 2>/dev/null
    sleep 0.01
  done
  wait "$pid" || { fail "$label: exit $?"; return; }
  [ "$max" -gt 0 ] || { fail "$label: no RssAnon sample"; return; }
  echo "$label: peak RssAnon $((max / 1024)) MiB ($max KiB; ceiling $ceil MiB, $N records)"
  [ "$max" -le $((ceil * 1024)) ] || fail "$label: peak RssAnon $((max / 1024)) MiB > $ceil MiB"
}

export BACKBEAT_PARQUET_ROW_GROUP=131072
# The trace holds only its open spans and their lanes (lanes are decided when a span opens:
# 1 MiB, 3 MiB with --threads 2 at 5 M records; the span -> parent map it kept before took 65).
peak 8 "trace" "$B" convert big.bb -f trace -o /dev/null --threads 1
peak 12 "trace --threads 2" "$B" convert big.bb -f trace -o /dev/null --threads 2
peak 24 "parquet" "$B" convert big.bb -o out.parquet --threads 1
peak 32 "parquet --threads 2" "$B" convert big.bb -o out2.parquet --threads 2
cmp -s out.parquet out2.parquet || fail "parquet --threads 2 differs from --threads 1"
rm -f out.parquet out2.parquet out*.views.sql
peak 24 "dataset" "$B" convert big.bb --dataset ds --threads 1
[ -n "$(find ds -name 'part-*.parquet' -size +1k)" ] || fail "dataset: no part file"
peak 24 "dataset, again (every record a duplicate)" "$B" convert big.bb --dataset ds --threads 1
[ "$(find ds -name 'part-*.parquet' | wc -l)" -eq 1 ] || fail "dataset: the second append wrote a part"
peak 24 "dataset, other events (a rewrite)" "$B" convert new2.bb --dataset ds --threads 1
peak 24 "dataset, more events (a rewrite, keys replayed)" "$B" convert new3.bb --dataset ds --threads 1
[ "$(find ds -name 'part-*.parquet' -newer new3.bb | wc -l)" -ge 3 ] || fail "dataset: the rewrites wrote no part"
rm -rf "$W"
[ "$fails" -eq 0 ] && echo "convert_memory: ok" || echo "convert_memory: $fails failure(s)"
[ "$fails" -eq 0 ]
