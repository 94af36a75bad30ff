#!/usr/bin/env bash
# readme_check.sh SRC BUILD WORKDIR — the README's first example stays literally true: its C
# block is examples/hello.c (the file the suite builds), the user guide's asynchronous-span block
# (docs/guide/instrument.md) is part of examples/async_span.c (built and run by
# readme_async_span), and the README's shell block (compile, run,
# inspect, convert to Parquet and to a trace) runs line by line, with the paths it names
# (examples/, include, build/) pointed at this source and build tree, and writes every output
# it promises.
# SPDX-License-Identifier: MIT
set -u
SRC="$1"
BUILD="$2"
W="$3"
JS="$SRC/tests/js"
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

python3 - "$SRC/README.md" "$SRC/examples/hello.c" "$SRC/examples/async_span.c" \
  "$SRC/docs/guide/instrument.md" <<'PY' > commands.sh || exit 1
import re, sys
readme = open(sys.argv[1]).read()
hello = open(sys.argv[2]).read()
guide = open(sys.argv[4]).read()
c = re.search(r'## A first example.*?```c\n(.*?)```', readme, re.S)
if not c or c.group(1).strip() not in hello:
    sys.stderr.write("README's first C block is not examples/hello.c\n")
    sys.exit(1)
a = re.search(r'^#+ Asynchronous spans\n.*?```c\n(.*?)```', guide, re.S | re.M)
if not a or a.group(1).strip() not in open(sys.argv[3]).read():
    sys.stderr.write("docs/guide/instrument.md's asynchronous-span block is not in examples/async_span.c\n")
    sys.exit(1)
sh = re.search(r'```c\n.*?```\s*```sh\n(.*?)```', readme[c.start():], re.S)
if not sh or 'examples/hello.c' not in sh.group(1):
    sys.stderr.write("no shell block after the first example\n")
    sys.exit(1)
print(sh.group(1), end='')
PY
[ -s commands.sh ] || fail "no commands extracted"
n=0
while IFS= read -r line; do
  [ -z "$line" ] && continue
  n=$((n + 1))
  cmd="${line%%#*}"
  cmd="${cmd//examples\//$SRC/examples/}"
  cmd="${cmd//-Iinclude/-I$SRC/include}"
  cmd="${cmd//build\//$BUILD/}"
  cmd="${cmd//node scripts\//node $SRC/scripts/}"
  if [[ "$cmd" == *query.mjs* ]] && [ ! -d "$JS/node_modules/@duckdb/node-api" ]; then
    echo "not run (no @duckdb/node-api: npm ci --prefix tests/js): $line"
    continue
  fi
  bash -c "$cmd" >out.txt 2>err.txt || fail "README line '$line' exited $?: $(cat err.txt)"
  if [[ "$cmd" == *query.mjs* ]]; then
    grep -qP '^my_app::net::PacketSent\t3$' out.txt || fail "README line '$line' printed: $(cat out.txt)"
    queried=1
  fi
done < commands.sh
[ -n "${queried:-}" ] || [ ! -d "$JS/node_modules/@duckdb/node-api" ] ||
  fail "the README's example queries nothing (node scripts/query.mjs)"
[ "$n" -ge 5 ] || fail "only $n commands in the README's example"
for f in trace.bb trace.parquet trace.parquet.views.sql trace.json; do
  [ -s "$f" ] || fail "the README's example did not write $f"
done
grep -q "my_app::net::PacketSent" trace.json 2>/dev/null || fail "trace.json lacks the event"
[ -s trace.parquet ] && sidecar trace.parquet

if [ "$fails" -ne 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "ok ($n commands)"
