#!/usr/bin/env bash
# build_static.sh SRC OUT — the release tests' fixture: the static CLI of every Linux target,
# at OUT/bin/TARGET/backbeat, through scripts/build-static.sh (zstd cached in OUT/work).
# A target whose toolchain needs host configuration that `make test` does not make (`make
# test-deps` does: the arm64 foreign architecture for musl-dev:arm64, deb-src lines for Debian's
# zstd source package) is not built: OUT/bin/TARGET.skipped says why, and the tests of that
# binary report themselves skipped with that reason.
# SPDX-License-Identifier: MIT
set -euo pipefail
src=$1 out=$2
mkdir -p "$out/bin"
built=0
for t in x86_64-linux-musl aarch64-linux-musl; do
  rm -f "$out/bin/$t.skipped"
  why=""
  if [ -z "$(apt-cache showsrc libzstd 2>/dev/null)" ]; then
    why="apt knows no source package libzstd (no deb-src lines): run 'make test-deps'"
  elif [ "$t" = aarch64-linux-musl ] && [ ! -f /usr/lib/aarch64-linux-musl/musl-gcc.specs ]; then
    why="musl-dev:arm64 not installed (needs the arm64 foreign architecture): run 'make test-deps'"
  fi
  if [ -n "$why" ]; then
    echo "build_static: $t not built: $why"
    echo "$why" >"$out/bin/$t.skipped"
    continue
  fi
  start=$SECONDS
  BB_STATIC_WORKDIR=$out/work "$src/scripts/build-static.sh" "$t" "$out/bin/$t"
  echo "build_static: $t in $((SECONDS - start)) s"
  built=$((built + 1))
done
echo "build_static: $built target(s) built"
[ "$built" -gt 0 ] || { echo "build_static: no target built; skipped"; exit 77; }
