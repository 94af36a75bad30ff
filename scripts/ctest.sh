#!/usr/bin/env bash
# ctest.sh [CTEST ARGS...] — ctest in the current build tree, then each skipped test with the
# reason it printed (ctest shows no output of a skipped test, even with --output-on-failure).
# The exit status is ctest's. Used by the Makefile's test targets.
# SPDX-License-Identifier: MIT
set -uo pipefail
out=$(mktemp)
trap 'rm -f "$out"' EXIT
ctest "$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
# "  91 - cli_trace_golden (Skipped)" in ctest's summary; the output is in LastTest.log.
mapfile -t skipped < <(sed -n 's/^[[:space:]]*[0-9][0-9]* - \(.*\) (Skipped)$/\1/p' "$out")
if [ "${#skipped[@]}" -gt 0 ]; then
  echo "Skipped tests, and why ($(basename "$PWD")):"
  for t in "${skipped[@]}"; do
    reason=$(awk -v t="$t" '
      $0 ~ "^[0-9]+/[0-9]+ Test: " && $3 == t { f = 1; next }
      f && /^Output:/ { o = 1; getline; next }
      o && /^<end of output>/ { exit }
      o && NF { last = $0; if (tolower($0) ~ /skip/) why = $0 }
      END { print (why != "" ? why : last) }' Testing/Temporary/LastTest.log)
    printf '  %-36s %s\n' "$t" "${reason:-(no reason printed)}"
  done
fi
exit "$rc"
