#!/bin/sh
# strict_modes.sh INCLUDE_DIR CC CXX FILE... — compile each FILE (syntax only) with every C
# standard mode (as C) and C++ mode (as C++) under the strictest warning set a user build may
# have, as errors; print the matrix (mode, compiler, pass/FAIL) and fail if any cell fails.
# A compiler that is not installed is reported as "skip". No feature-test macro is defined.
# SPDX-License-Identifier: MIT
set -u
inc="$1"; shift
ccs="$1"; shift
cxxs="$1"; shift
W="-Wall -Wextra -pedantic -Werror -Wredundant-decls -Wshadow -Wcast-align -Wconversion"
WC="$W -Wmissing-prototypes -Wmissing-declarations"
WCXX="$W -Wmissing-declarations"
fails=0
cell() { # LANG MODE COMPILER FLAGS...
  lang="$1"; mode="$2"; comp="$3"; shift 3
  if ! command -v "$comp" >/dev/null 2>&1; then
    printf '%-8s %-10s %-10s skip (not installed)\n' "$lang" "$mode" "$comp"; return
  fi
  for f in $FILES; do
    if ! out="$("$comp" -x "$lang" "-std=$mode" "$@" -fsyntax-only -I"$inc" "$f" 2>&1)"; then
      printf '%-8s %-10s %-10s FAIL %s\n%s\n' "$lang" "$mode" "$comp" "$f" "$out"
      fails=$((fails + 1)); return
    fi
  done
  printf '%-8s %-10s %-10s pass\n' "$lang" "$mode" "$comp"
}
FILES="$*"
for comp in $ccs; do
  for mode in c99 c11 c17 gnu99 gnu11 gnu17 gnu2x; do cell c "$mode" "$comp" $WC; done
done
for comp in $cxxs; do
  for mode in c++11 c++14 c++17 c++20; do cell c++ "$mode" "$comp" $WCXX; done
done
[ "$fails" -eq 0 ] || { echo "strict_modes: $fails cell(s) failed" >&2; exit 1; }
