#!/usr/bin/env bash
# cli_outputs.sh BACKBEAT CLI_GEN WORKDIR — hostile output conditions (docs/HOSTILE_INPUTS.md):
#  - the disk fills up (a file-size limit, `ulimit -f`: the same failed write): convert to a
#    trace and to Parquet and merge exit 1 with "cannot write OUT: File too large", leave no
#    output, no sidecar and no temporary, and an existing OUT keeps its old content (Parquet
#    also with small row groups on 2 threads, whose chunks a worker writes);
#  - OUT is a directory: exit 1, "Is a directory", nothing written into it;
#  - a directory that cannot be written (mode 555, or /sys when running as root): exit 1, a
#    message naming OUT, nothing created;
#  - SIGTERM, then SIGKILL, sent while a conversion runs: OUT is its old content or the whole
#    new output, never a part; after SIGTERM no temporary is left (after SIGKILL one may be,
#    named .OUT.tmp.XXXXXX, as the README says). Either outcome of the race passes.
# SPDX-License-Identifier: MIT
set -u
B="$1"; G="$2"; W="$3"
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
"$G" bench big.bb 300000 >/dev/null && "$G" spans1 small.bb >/dev/null || { echo "cli_gen failed"; exit 1; }

# Only the names given (and the inputs) may be in the work directory.
only() {
  local left
  left="$(ls -A | grep -vxE 'big\.bb|small\.bb|small\.bb\.records\.json|err\.txt|ro|'"$1")"
  [ -z "$left" ] || fail "$2: left behind: $left"
}

# A file-size limit of 64 KiB: every output of big.bb passes it.
for out in o.json o.parquet m.bb; do
  case $out in m.bb) cmd=(merge big.bb -o "$out") ;; *) cmd=(convert big.bb -o "$out") ;; esac
  (ulimit -f 128; exec "$B" "${cmd[@]}") 2>err.txt
  rc=$?
  [ $rc = 1 ] || fail "$out past the file-size limit exited $rc"
  grep -q "cannot write $out: File too large" err.txt || fail "$out: message: $(cat err.txt)"
  only "" "$out past the file-size limit"
  echo old >"$out"
  (ulimit -f 128; exec "$B" "${cmd[@]}") 2>/dev/null
  [ "$(cat "$out")" = old ] || fail "$out: the existing file was changed by a failed write"
  rm -f "$out"
done

# The same with row groups of 20 000 rows on 2 threads: a row group's chunks are written while
# the next one is encoded (by a worker with nothing else to do), so the failed write is one of
# theirs, not the writing thread's.
(ulimit -f 128; BACKBEAT_PARQUET_ROW_GROUP=20000 exec "$B" convert big.bb --threads 2 -o o.parquet) \
  2>err.txt
rc=$?
[ $rc = 1 ] || fail "o.parquet (row groups of 20000, 2 threads) past the limit exited $rc"
grep -q "cannot write o.parquet: File too large" err.txt ||
  fail "o.parquet (row groups of 20000, 2 threads): message: $(cat err.txt)"
only "" "o.parquet (row groups of 20000, 2 threads) past the file-size limit"

# A directory that cannot be written.
if [ "$(id -u)" != 0 ]; then
  mkdir ro && chmod 555 ro && rodir=ro
elif [ -d /sys ] && ! : 2>/dev/null >/sys/.backbeat-probe; then
  rodir=/sys
else
  rodir=
fi
if [ -n "$rodir" ]; then
  for out in "$rodir/o.json" "$rodir/o.parquet" "$rodir/m.bb"; do
    case $out in *.bb) cmd=(merge small.bb -o "$out") ;; *) cmd=(convert small.bb -o "$out") ;; esac
    "$B" "${cmd[@]}" 2>err.txt
    rc=$?
    [ $rc = 1 ] || fail "$out in a read-only directory exited $rc"
    grep -q "cannot write $out" err.txt || fail "$out: message: $(cat err.txt)"
    [ -e "$out" ] && fail "$out was created"
  done
  [ "$rodir" = ro ] && [ -n "$(ls -A ro)" ] && fail "files in the read-only directory: $(ls -A ro)"
fi

# An output that is a directory.
mkdir d.json && "$B" convert small.bb -o d.json 2>err.txt
rc=$?
[ $rc = 1 ] || fail "-o a directory exited $rc"
grep -q "cannot write d.json: Is a directory" err.txt || fail "-o a directory: $(cat err.txt)"
[ -z "$(ls -A d.json)" ] || fail "files written into the directory"
rmdir d.json

# A signal mid-write: OUT is old or complete. A complete trace ends with '}'.
complete() { [ "$(cat "$1")" = old ] || [ "$(tail -c 2 "$1" | tr -d '\n')" = "}" ]; }
for sig in TERM KILL; do
  echo old >s.json
  "$B" convert big.bb -o s.json 2>/dev/null &
  pid=$!
  sleep 0.1
  kill -$sig $pid 2>/dev/null
  wait $pid
  complete s.json || fail "SIG$sig left s.json partial"
  if [ $sig = TERM ]; then only 's\.json' "SIGTERM"; fi
  rm -f s.json .s.json.tmp.*
done
echo "cli_outputs: $fails failures"
[ "$fails" = 0 ]
