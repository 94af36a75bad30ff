#!/bin/sh
# spdx_check.sh SRC — every tracked source file (C/C++, shell, Python, CMake, Makefiles, Node
# scripts, templates, the man page) carries the line "SPDX-License-Identifier: MIT".
# SPDX-License-Identifier: MIT
set -eu
cd "$1"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "not a git checkout; skipped"; exit 77; }
missing=$(git ls-files -- '*.c' '*.h' '*.cc' '*.cpp' '*.sh' '*.py' '*.cmake' '*.mjs' '*.in' \
  '*.yml' '*.1' 'CMakeLists.txt' '*/CMakeLists.txt' Makefile .ci/run debian/rules |
  grep -v '^tests/fuzz_regress/' | while read -r f; do
    if [ -f "$f" ] && ! grep -q 'SPDX-License-Identifier: MIT' "$f"; then echo "$f"; fi
  done)
if [ -n "$missing" ]; then
  echo "spdx_check: no SPDX-License-Identifier line in:" >&2
  echo "$missing" >&2
  exit 1
fi
echo "spdx_check: every source file carries its SPDX line"
