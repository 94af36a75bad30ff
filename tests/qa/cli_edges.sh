#!/usr/bin/env bash
# cli_edges.sh BACKBEAT WORKDIR — CLI edge cases found by QA, each once a bug:
#  - a relative --since/--until so large that first-record + offset passes 2^64 saturates
#    (it used to wrap around: --until +18446744073s kept nothing), and +18446744073709551615ns
#    (2^64-1) is accepted (the digit check refused the last few values below 2^64);
#  - a zero-width bytes field (legal in the format) converts: its hex text is empty (the
#    Parquet writer applied an offset to a NULL buffer, which the sanitizer pass rejects).
# Needs the golden basic.bb (exits 77 without it).
# SPDX-License-Identifier: MIT
set -u
B="$1"
W="$2"
JS="$(cd "$(dirname "$0")/../js" && pwd)"
C="${BACKBEAT_COMPAT_DIR:-/work/shared/compat}"
[ -f "$C/basic.bb" ] || { echo "no golden vectors in $C"; exit 77; }
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

# count EXPECTED ARGS...: convert basic.bb to a trace with ARGS and count the records it
# represents (an instant is one, a closed span slice two, an unclosed one one).
count() {
  local want="$1"
  shift
  "$B" convert "$C/basic.bb" -o t.json "$@" 2>err.txt
  local rc=$?
  [ "$rc" = 0 ] || { fail "convert $* exited $rc: $(cat err.txt)"; return; }
  local got
  got=$(python3 -c '
import json, sys
n = 0
for e in json.load(open(sys.argv[1]))["traceEvents"]:
    if e["ph"] == "I": n += 1
    if e["ph"] == "X": n += 1 if e["args"].get("backbeat.unclosed") else 2
print(n)' t.json)
  [ "$got" = "$want" ] || fail "convert $*: $got records, want $want"
}
count 24
count 24 --until +18446744073s
count 0 --since +18446744073s
count 24 --until +18446744073709551615ns   # 2^64-1 itself is a valid offset
count 0 --since +18446744073709551615
count 24 --since +0ns --until +20us
count 23 --until +19999ns

# basic.bb with fixture::Scalars' 1-byte _pad turned into a 0-byte field
python3 - "$C/basic.bb" <<'PY' || exit 1
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
def rstr(o): return o + 2 + struct.unpack_from('<H', d, o)[0]
def ropt(o): return rstr(o + 1) if d[o] else o + 1
o = 16 + 20 * struct.unpack_from('<H', d, 12)[0] + 4   # first schema, after the count
o = ropt(rstr(o + 8)) + 3                              # id, name, description, size, phase
fc = struct.unpack_from('<H', d, o)[0]
o += 2
for _ in range(fc):
    name = d[o + 2:rstr(o)]
    o = ropt(rstr(o))
    tag = d[o]
    o += 1 + (tag in (10, 11))
    if name == b'_pad' and tag == 9:
        struct.pack_into('<H', d, o + 2, 0)
    o = ropt(o + 5)
    o += 9 if d[o] else 1
    lc = struct.unpack_from('<H', d, o)[0]
    o += 2
    for _ in range(lc): o = rstr(o + 8)
open('zero_width.bb', 'wb').write(d)
PY
"$B" inspect zero_width.bb | grep -q '_pad  *bytes\[0\]' || fail "zero_width.bb: no bytes[0] field"
# (with --event, the empty hex is the only text of the conversion: the first and the repeats
# of a dictionary entry of length 0 must not pass a NULL pointer to memcmp either)
for args in "-o zero_width.parquet" "-o zero_width.json" "-o zero_width_only.parquet --event fixture::Scalars"; do
  # shellcheck disable=SC2086
  "$B" convert zero_width.bb $args 2>err.txt || fail "convert zero_width.bb $args exited $?: $(cat err.txt)"
  [ -s err.txt ] && fail "convert zero_width.bb $args printed: $(cat err.txt)"
done
sidecar zero_width.parquet zero_width_only.parquet

if [ "$fails" -ne 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "ok"
