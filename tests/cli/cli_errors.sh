#!/usr/bin/env bash
# cli_errors.sh BACKBEAT WORKDIR — the CLI's error paths and exit statuses.
#
# Bad inputs (truncated, wrong magic, wrong version, a section past the end, missing file) exit
# 1 with a message naming the file and the problem, for inspect, convert and merge; an
# unwritable output exits 1, names the output and leaves no file behind; usage errors exit 2;
# --help works on every subcommand and --version prints the version. Needs the golden
# basic.bb (exits 77 without it).
# SPDX-License-Identifier: MIT
set -u
B="$1"
W="$2"
C="${BACKBEAT_COMPAT_DIR:-/work/shared/compat}"
[ -f "$C/basic.bb" ] || { echo "no golden vectors in $C"; exit 77; }
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect STATUS PATTERN CMD... : run CMD, check its exit status and that stderr matches PATTERN
expect() {
  local want="$1" pat="$2"
  shift 2
  "$@" >stdout.txt 2>err.txt
  local got=$?
  [ "$got" = "$want" ] || fail "'$*' exited $got, want $want (stderr: $(cat err.txt))"
  if [ -n "$pat" ] && ! grep -Eq -- "$pat" err.txt; then
    fail "'$*' stderr does not match /$pat/: $(cat err.txt)"
  fi
}

python3 - "$C/basic.bb" <<'EOF' || exit 1
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
open('trunc.bb', 'wb').write(d[:100])
open('trunc_body.bb', 'wb').write(d[:len(d) - 30])
m = bytearray(d); m[0:8] = b'NOTADUMP'; open('magic.bb', 'wb').write(m)
v = bytearray(d); v[8] = 7; open('version.bb', 'wb').write(v)
s = bytearray(d)
off = 16 + 20 * 4 + 4   # section 4's offset field
s[off:off + 8] = struct.pack('<Q', len(d) - 10)
open('section.bb', 'wb').write(s)
open('empty_file.bb', 'wb').write(b'')
EOF

for sub in inspect "convert -o out.json" "merge -o out.bb"; do
  # shellcheck disable=SC2086
  expect 1 "trunc\.bb.*truncated" "$B" $sub trunc.bb
  expect 1 "trunc_body\.bb.*(out of bounds|truncated)" "$B" $sub trunc_body.bb
  expect 1 "magic\.bb.*not a backbeat dump" "$B" $sub magic.bb
  expect 1 "version\.bb.*version 7" "$B" $sub version.bb
  expect 1 "section\.bb.*out of bounds" "$B" $sub section.bb
  expect 1 "empty_file\.bb" "$B" $sub empty_file.bb
  expect 1 "missing\.bb" "$B" $sub missing.bb
done
ls -A | grep -E '^(out\.|\.out\.)' && fail "output left behind after a bad input"

# a bad input among good ones still fails, and names the bad one
expect 1 "magic\.bb" "$B" convert "$C/basic.bb" magic.bb -o out.json
[ -e out.json ] && fail "out.json left behind"

# unwritable outputs: no such directory, parent is a file
for out in nodir/x.json nodir/x.parquet "$C/basic.bb/x.json" nodir/m.bb; do
  case "$out" in
    *.bb) expect 1 "cannot write .*$(basename "$out")" "$B" merge "$C/basic.bb" -o "$out" ;;
    *) expect 1 "cannot write .*$(basename "$out")" "$B" convert "$C/basic.bb" -o "$out" ;;
  esac
done
[ -e nodir ] && fail "nodir created"

# a write error while streaming (stdout closed early): exit 1, message, no crash
if [ -w /dev/full ]; then
  "$B" convert "$C/basic.bb" -f trace -o - >/dev/full 2>err.txt
  [ $? = 1 ] || fail "write to /dev/full did not exit 1"
  grep -q "cannot write" err.txt || fail "write to /dev/full: no message: $(cat err.txt)"
fi

# writing to a device writes in place (never renames over it), and makes no sidecar
if [ -c /dev/null ]; then
  "$B" convert "$C/basic.bb" -f trace -o /dev/null || fail "convert -o /dev/null"
  "$B" convert "$C/basic.bb" -f parquet -o /dev/null || fail "convert -f parquet -o /dev/null"
  [ -c /dev/null ] || fail "/dev/null is no longer a device"
  [ -e /dev/null.views.sql ] && { rm -f /dev/null.views.sql; fail "sidecar written next to /dev/null"; }
fi

# usage errors
expect 2 "" "$B"
expect 2 "unknown command" "$B" frobnicate
expect 2 "no dump" "$B" inspect
expect 2 "unknown option" "$B" inspect --bogus "$C/basic.bb"
expect 2 "no dump" "$B" convert -o out.json
expect 2 "no output" "$B" convert "$C/basic.bb"
expect 2 "unknown output format for out\.txt" "$B" convert "$C/basic.bb" -o out.txt
expect 2 "--format is required" "$B" convert "$C/basic.bb" -o -
expect 2 "unknown output format 'csv'" "$B" convert "$C/basic.bb" -f csv -o out.json
expect 2 "needs a value" "$B" convert "$C/basic.bb" -o
expect 2 "bad --since" "$B" convert "$C/basic.bb" -o out.json --since 1.5s
expect 2 "bad --until" "$B" convert "$C/basic.bb" -o out.json --until +3parsecs
expect 2 "bad --instance" "$B" convert "$C/basic.bb" -o out.json --instance xyz
expect 2 "compression-level" "$B" convert "$C/basic.bb" -o out.parquet --compression-level 99
expect 2 "Parquet output only" "$B" convert "$C/basic.bb" -o out.json --compression gzip
expect 2 "no dump" "$B" merge -o out.bb
expect 2 "no output" "$B" merge "$C/basic.bb"
expect 2 "m\.parquet' does not end in \.bb" "$B" merge "$C/basic.bb" -o m.parquet
[ ! -e m.parquet ] || fail "merge -o m.parquet wrote m.parquet"
expect 2 "does not end in \.bb" "$B" merge "$C/basic.bb" -o m
expect 2 "unexpected argument" "$B" skill extra
[ -e out.json ] || [ -e out.bb ] || [ -e out.parquet ] && fail "output written on a usage error"

# --help everywhere, --version
for sub in "" inspect convert merge skill recover tail top; do
  # shellcheck disable=SC2086
  "$B" $sub --help >stdout.txt 2>err.txt || fail "backbeat $sub --help exited $?"
  grep -q "usage: backbeat" stdout.txt || fail "backbeat $sub --help prints no usage"
done
"$B" help convert | grep -q -- "--since" || fail "backbeat help convert"
"$B" --version | grep -Eq '^backbeat [0-9]+\.[0-9]+' || fail "--version"
"$B" skill | grep -q "^# backbeat" || fail "skill prints no guide"

# the happy path leaves exactly the output (no temporaries)
rm -rf ok && mkdir ok
"$B" convert "$C/basic.bb" -o ok/t.json || fail "convert basic.bb"
[ "$(ls -A ok)" = "t.json" ] || fail "unexpected files in ok/: $(ls -A ok)"
"$B" merge "$C/basic.bb" -o ok/m.bb || fail "merge basic.bb"
[ "$(ls -A ok | tr '\n' ' ')" = "m.bb t.json " ] || fail "unexpected files in ok/: $(ls -A ok)"

if [ "$fails" -ne 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "ok"
