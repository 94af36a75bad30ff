#!/usr/bin/env bash
# cli_quiet.sh BACKBEAT CLI_GEN WORKDIR — progress goes to stderr only on a terminal: a
# conversion of 100k records with stderr redirected to a file prints nothing there; converting
# to a trace and to Parquet, merging, and converting the merge all succeed on that dump, and
# the trace represents every record.
# SPDX-License-Identifier: MIT
set -u
B="$1" GEN="$2" W="$3"
JS="$(cd "$(dirname "$0")/../js" && pwd)"
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# The sidecar of a Parquet output loads in DuckDB, every view answering (tests/js/
# sidecar_check.mjs; skipped without node or the npm readers).
sidecar() {
  command -v node >/dev/null || return 0
  node "$JS/sidecar_check.mjs" "$@" >sidecar.txt 2>&1
  case $? in 0 | 77) ;; *) fail "sidecar: $(head -c 600 sidecar.txt)" ;; esac
}
"$GEN" bench d.bb 100000 || exit 1
for out in t.json p.parquet; do
  "$B" convert d.bb -o "$out" 2>err.txt </dev/null || fail "convert -o $out"
  [ -s err.txt ] && fail "stderr not empty converting to $out: $(head -c 300 err.txt)"
done
sidecar p.parquet
"$B" merge d.bb -o m.bb 2>err.txt || fail "merge"
[ -s err.txt ] && fail "stderr not empty merging: $(head -c 300 err.txt)"
"$B" convert m.bb -o m.json 2>/dev/null || fail "convert merged"
cmp -s t.json m.json || fail "trace of the merged dump differs"
# every record appears: instants + 2 per closed slice + 1 per unclosed slice
n=$(grep -c '"ph":"I"' t.json)
x=$(grep -c '"ph":"X"' t.json)
u=$(grep -c 'backbeat.unclosed' t.json)
[ $((n + 2 * x - u)) = 100000 ] || fail "trace represents $((n + 2 * x - u)) records, want 100000"
# the generated dump closes every span it opens (one per 10 records): all paired
[ "$x" = 10000 ] || fail "$x slices, want 10000"
[ "$u" = 0 ] || fail "$u unclosed slices, want 0"
grep -q orphan_exit t.json && fail "orphan exits in a dump where every exit has its enter"
[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo ok
