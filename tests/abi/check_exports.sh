#!/bin/sh
# check_exports.sh LIB.so LIST — the dynamic symbols LIB.so defines (exports) must be exactly the
# names in LIST (one per line, sorted): the public API of the headers plus the bb__ machinery the
# inline fast path calls. Any difference fails and is printed (+ exported but not listed,
# - listed but not exported). Update LIST only together with the public headers.
# SPDX-License-Identifier: MIT
set -eu
lib="$1"; list="$2"
got="$(nm -D --defined-only "$lib" | awk '{print $3}' | LC_ALL=C sort)"
want="$(LC_ALL=C sort "$list")"
if [ "$got" != "$want" ]; then
  echo "check_exports: $lib exports differ from $list:" >&2
  printf '%s\n' "$want" >/tmp/bb_exports_want.$$
  printf '%s\n' "$got" | diff /tmp/bb_exports_want.$$ - | sed -n 's/^>/  + exported, not listed:/p; s/^</  - listed, not exported:/p' >&2
  rm -f /tmp/bb_exports_want.$$
  exit 1
fi
# Every listed name is declared in a public header (so nothing undocumented is exported).
for s in $want; do
  grep -rqw -- "$s" "$(dirname "$0")/../../include/backbeat" ||
    { echo "check_exports: $s is exported but declared in no public header" >&2; exit 1; }
done
echo "check_exports: $(printf '%s\n' "$got" | wc -l) symbols, as listed"
