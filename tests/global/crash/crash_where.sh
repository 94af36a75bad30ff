#!/bin/sh
# crash_where.sh MODE PROG PLUGIN BACKBEAT WORKDIR — one crash mode of prog.c (issue 40): the
# program dies by the mode's signal, its crash dump exists, `backbeat inspect --json` names the
# signal and the first symbolized frames name the expected functions in order (check.py).
# MODE stripped: a stripped copy crashes in `main` mode; its frames are module+offset, and
# addr2line on the unstripped program resolves those offsets to the same functions.
# MODE outputs: a `main` crash converted: the Parquet sidecar's `crash` view in DuckDB
# (tests/js/crash_view.mjs) and the trace's crash instant carry the symbolized stack.
# MODE debugfile: the same stripped copy read with --symbols DIR holding the program's separate
# debug file (objcopy --only-keep-debug, named BUILDID.debug): the frames are named again.
# SPDX-License-Identifier: MIT
set -eu
mode=$1 prog=$2 plugin=$3 bb=$4 work=$5
here=$(dirname "$0")
rm -rf "$work"
mkdir -p "$work"
# the crashing program: sanitizers must let backbeat's crash handlers run (the CLI keeps the
# caller's sanitizer options)
child_asan=handle_segv=0:handle_abort=0:handle_sigbus=0:handle_sigill=0:handle_sigfpe=0:allow_user_segv_handler=1:detect_leaks=0
child_ubsan=handle_segv=0:handle_abort=0:handle_sigbus=0:handle_sigfpe=0

run=$mode exe=$prog
case $mode in
  outputs) run=main ;;
  stripped|debugfile)
    run=main exe="$work/cw_prog"
    cp "$prog" "$exe"
    strip "$exe" ;;
esac
arg=
case $run in
  plugin) arg=$plugin ;;
  bus) arg=$work ;;
esac
status=0
(cd "$work" && ASAN_OPTIONS=$child_asan UBSAN_OPTIONS=$child_ubsan BACKBEAT_DUMP_ON_CRASH=1 \
  BACKBEAT_PATH="$work/crash.bb" BACKBEAT_BYTES=64k BACKBEAT_SHARDS=2 exec "$exe" "$run" ${arg:+"$arg"}) \
  >"$work/out" 2>"$work/err" || status=$?
dump=
for f in "$work"/crash.*.bb; do [ -e "$f" ] && dump=$f; break; done
if [ -z "$dump" ]; then
  echo "FAIL $mode: no crash dump (exit $status)"; cat "$work/err"; exit 1
fi
echo "$mode: exit $status, dump $dump"
symdir=
if [ "$mode" = debugfile ]; then
  mkdir -p "$work/sym"
  id=$(readelf -n "$prog" | sed -n 's/.*Build ID: *//p' | head -n 1)
  objcopy --only-keep-debug "$prog" "$work/sym/$id.debug"
  symdir=$work/sym
fi
"$bb" inspect --json ${symdir:+--symbols "$symdir"} "$dump" >"$work/inspect.json"
"$bb" inspect ${symdir:+--symbols "$symdir"} "$dump" | sed -n '1,/^$/p'
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3 # Debian's, not a slower shim
"$py" "$here/check.py" "$mode" "$status" "$work/inspect.json" "$prog"
[ "$mode" = outputs ] || exit 0
"$bb" convert "$dump" -o "$work/crash.parquet"
"$bb" convert "$dump" -o "$work/crash.json"
"$py" - "$work/crash.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
crash = [e for e in doc["traceEvents"] if e.get("name") == "backbeat::Crash"]
assert len(crash) == 1 and crash[0]["ph"] == "I", crash
stack = crash[0]["args"]["backbeat.stack"].split("\n")
names = [l.split(" ")[1].split("+")[0] for l in stack]
assert names[:4] == ["m_store", "m_mid", "m_entry", "main"], names
print("ok trace: crash instant on tid %s with %d frames" % (crash[0]["tid"], len(stack)))
PY
node "$here/../../js/crash_view.mjs" "$work/crash.parquet" 11 m_store m_mid m_entry main
