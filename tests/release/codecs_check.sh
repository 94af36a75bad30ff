#!/usr/bin/env bash
# codecs_check.sh BIN WORK — the release binary writes Parquet with every codec its
# `convert --help` lists, and refuses (usage error, saying so) each codec it does not list.
# The dump is the golden basic.bb; no two codecs may write the same bytes. Exits 77 (skipped,
# saying why) when the binary was not built or the golden vectors are absent.
# SPDX-License-Identifier: MIT
set -uo pipefail
bin=$1 work=$2
[ -f "$bin" ] || [ ! -f "$(dirname "$bin").skipped" ] ||
  { echo "codecs_check: not built ($(cat "$(dirname "$bin").skipped")); skipped"; exit 77; }
dump=${BACKBEAT_COMPAT_DIR:-}/basic.bb
[ -f "$dump" ] || { echo "codecs_check: no golden vectors ($dump); skipped"; exit 77; }
rm -rf "$work" && mkdir -p "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
line=$("$bin" convert --help | grep -- '--compression C')
listed=$(sed 's/.*codec: //; s/ (default)//; s/,//g' <<<"$line")
[[ " $listed " == *" zstd "* ]] || fail "convert --help lists no zstd: $line"
printf 'codec matrix of %s:\n' "$bin"
for c in zstd snappy gzip none; do
  out="$work/t-$c.parquet"
  "$bin" convert "$dump" -o "$out" --compression "$c" >"$work/out" 2>"$work/err"
  rc=$?
  if [[ " $listed " == *" $c "* ]]; then
    [ "$rc" -eq 0 ] && [ -s "$out" ] || fail "--compression $c (listed): exit $rc: $(cat "$work/err")"
    echo "  $c: listed, written ($(wc -c <"$out") bytes)"
  else
    [ "$rc" -eq 2 ] && grep -q "built without" "$work/err" || fail "--compression $c (not listed): exit $rc: $(cat "$work/err")"
    [ ! -e "$out" ] || fail "--compression $c (not listed) left $out"
    echo "  $c: not listed, refused: $(head -n 1 "$work/err")"
  fi
done
n=$(for c in $listed; do sha256sum <"$work/t-$c.parquet"; done | sort -u | wc -l)
[ "$n" -eq "$(wc -w <<<"$listed")" ] || fail "two codecs wrote the same bytes"
[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok: $listed"
