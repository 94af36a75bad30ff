#!/usr/bin/env bash
# check-format.sh [DIR...] — every .c and .h under the given folders (default: src include tests
# of this tree) is formatted as the committed .clang-format says (Debian 12's clang-format 14,
# the version the style was applied with); generated files (GENERATED on their first line) are
# left out. Prints each file that differs and the command that
# fixes it; exit 0 clean, 1 when a file differs, 77 when clang-format 14 is missing (skipped).
# ctest runs it as `arch_format` (tests/arch.cmake); `arch_format_selftest` shows it failing.
# SPDX-License-Identifier: MIT
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"
cf="${CLANG_FORMAT:-clang-format}"
if ! v="$("$cf" --version 2>/dev/null)"; then
  echo "check-format: $cf not found (apt-get install clang-format); skipped"; exit 77
fi
case "$v" in
  *"version 14."*) ;;
  *) echo "check-format: the style is clang-format 14's, this is '$v'; skipped"; exit 77 ;;
esac
[ $# -gt 0 ] || set -- "$root/src" "$root/include" "$root/tests"
style="--style=file:$root/.clang-format"
bad=0; n=0
while IFS= read -r -d '' f; do
  # Generated files (their first line says GENERATED) are the generator's to format.
  head -1 "$f" | grep -q GENERATED && continue
  n=$((n + 1))
  if ! "$cf" "$style" --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "check-format: $f is not formatted: $cf -i $f"; bad=$((bad + 1))
  fi
done < <(find "$@" -type f \( -name '*.c' -o -name '*.h' \) -not -path '*/node_modules/*' -print0 | sort -z)
echo "check-format: $n files, $bad not formatted"
[ "$bad" = 0 ]
