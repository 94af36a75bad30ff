#!/bin/sh
# budget_check.sh PROG CLI WORK — issue 38, outside-in findings 2-5 (budget_prog.c):
#  3 a live process's ring file whose name carries a pid that exists nowhere (another pid
#    namespace) is not removed by keep-newest (its writer's flock says it is alive); once the
#    writer is killed, it is (the check can fail);
#  4 a crash dump written whole removes the process's ring file (kept with BACKBEAT_RING_KEEP);
#  2 a ring file over the ring directory's budget evicts nothing, and a process that never
#    records says nothing about it; one that records says "the ring directory";
#  5 a program that overwrites argv[0] keeps its name in the dump's Process section.
# SPDX-License-Identifier: MIT
set -u
prog="$1"; cli="$2"; w="$3"
rm -rf "$w" && mkdir -p "$w/ns" "$w/cr" "$w/crk" "$w/full" "$w/out" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
small="BACKBEAT_SHARDS=1 BACKBEAT_BYTES=64k BACKBEAT_INTERN_LIMIT=1024,64k"

# 3: the holder's ring file (about 1.2 MB) with a budget of 1M: a dump must evict it to fit.
env $small BACKBEAT_ENABLE=1 BACKBEAT_RING_DIR="$w/ns" BACKBEAT_PATH="$w/out/h.bb" \
  "$prog" hold >"$w/hold.out" 2>"$w/hold.err" &
holder=$!
i=0
while [ ! -s "$w/hold.out" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
ring=$(cat "$w/hold.out")
[ -n "$ring" ] && [ -f "$ring" ] || fail "the holder named no ring file: $(cat "$w/hold.err")"
env $small BACKBEAT_DIR_MAX_USE=1M BACKBEAT_LIMIT_POLICY=keep-newest BACKBEAT_PATH="$w/ns/d.bb" \
  "$prog" dump >/dev/null 2>"$w/ns1.err"
[ -n "$ring" ] && [ -f "$ring" ] || fail "keep-newest removed a live process's ring file $ring"
kill -9 $holder 2>/dev/null
wait $holder 2>/dev/null
env $small BACKBEAT_DIR_MAX_USE=1M BACKBEAT_LIMIT_POLICY=keep-newest BACKBEAT_PATH="$w/ns/d.bb" \
  "$prog" dump >/dev/null 2>"$w/ns2.err" || fail "no dump after the holder died: $(cat "$w/ns2.err")"
[ -n "$ring" ] && [ ! -f "$ring" ] || fail "the dead holder's ring file $ring was not removed"

# 4: crash dumps written, ring file gone (kept with BACKBEAT_RING_KEEP)
for m in cr crk; do
  keep=0; [ $m = crk ] && keep=1
  env $small BACKBEAT_ENABLE=1 BACKBEAT_DUMP_ON_CRASH=1 BACKBEAT_RING_DIR="$w/$m" \
    BACKBEAT_RING_KEEP=$keep BACKBEAT_PATH="$w/$m/c.bb" ASAN_OPTIONS=handle_segv=0 \
    "$prog" crash 2>"$w/$m.err"
  grep -q "crash dump written" "$w/$m.err" || fail "$m: no crash dump: $(cat "$w/$m.err")"
  nring=$(ls "$w/$m" | grep -c '\.ring$')
  [ "$nring" -eq $keep ] || fail "$m: $nring ring files after a crash dump (want $keep): $(ls "$w/$m")"
done

# 2: a directory holding a crash dump, a budget that leaves no room for a ring file
cp "$w/cr"/c.*.bb "$w/full/" || fail "no crash dump to copy"
before=$(ls "$w/full")
env $small BACKBEAT_ENABLE=1 BACKBEAT_DUMP_ON_EXIT=1 BACKBEAT_RING_DIR="$w/full" \
  BACKBEAT_DIR_MAX_USE=1M BACKBEAT_LIMIT_POLICY=keep-newest BACKBEAT_PATH="$w/out/n.bb" \
  "$prog" nothing 2>"$w/nothing.err" || fail "nothing exited $?"
[ "$(ls "$w/full")" = "$before" ] || fail "a process that records nothing changed the directory: $(ls "$w/full")"
[ ! -s "$w/nothing.err" ] || fail "a process that records nothing printed: $(cat "$w/nothing.err")"
env $small BACKBEAT_ENABLE=1 BACKBEAT_RING_DIR="$w/full" BACKBEAT_DIR_MAX_USE=1M \
  BACKBEAT_LIMIT_POLICY=keep-newest BACKBEAT_PATH="$w/out/r.bb" \
  "$prog" dump >/dev/null 2>"$w/rec.err" || fail "dump exited $?: $(cat "$w/rec.err")"
[ "$(ls "$w/full")" = "$before" ] || fail "a ring file evicted to make room: $(ls "$w/full")"
grep -q "the ring directory $w/full is over its budget" "$w/rec.err" &&
  grep -q "no ring file" "$w/rec.err" ||
  fail "a process that records does not say why it has no ring file: $(cat "$w/rec.err")"

# 5: the program's name survives argv[0] being overwritten
d=$(env $small BACKBEAT_PATH="$w/out/a.bb" "$prog" argv 2>"$w/argv.err")
name=$(basename "$prog")
"$cli" inspect "$d" 2>&1 | grep -q "program \"$name\"" ||
  fail "program name lost: $("$cli" inspect "$d" 2>&1 | grep program)"

[ "$fails" -eq 0 ] && echo ok
[ "$fails" -eq 0 ]
