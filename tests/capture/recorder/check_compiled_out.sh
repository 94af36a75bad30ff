#!/bin/sh
# check_compiled_out.sh OUT.o TWIN.o IN.o — see compiled_out.c.
# SPDX-License-Identifier: MIT
set -eu
out="$1"; twin="$2"; in="$3"
tmp="${TMPDIR:-/tmp}/bb_co.$$"; mkdir -p "$tmp"; trap 'rm -rf "$tmp"' EXIT
fail=0
objcopy -O binary --only-section=.text.record_work "$out" "$tmp/rec.bin"
objcopy -O binary --only-section=.text.record_work "$twin" "$tmp/plain.bin"
if [ ! -s "$tmp/rec.bin" ]; then echo "no .text.record_work in $out"; exit 1; fi
if ! cmp -s "$tmp/rec.bin" "$tmp/plain.bin"; then
  echo "FAIL: compiled out, record_work differs from its twin without the macros"; fail=1
fi
# Relocations of record_work: none may name a backbeat symbol.
relocs() { objdump -r -j ".text.record_work" "$1" 2>/dev/null | awk 'NR>5 {print $3}'; }
if relocs "$out" | grep -q 'bb_\|bb__'; then
  echo "FAIL: compiled out, record_work references:"; relocs "$out" | grep 'bb_' ; fail=1
fi
# Control: compiled in, it must reference the recorder.
if ! relocs "$in" | grep -q 'bb_\|bb__'; then
  echo "FAIL: the control (compiled in) references no backbeat symbol: the check is void"; fail=1
fi
[ $fail -eq 0 ] && echo "recorder_compiled_out: ok ($(wc -c <"$tmp/rec.bin") bytes, identical to the twin; control has $(relocs "$in" | grep -c 'bb_') backbeat relocations)"
exit $fail
