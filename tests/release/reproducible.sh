#!/usr/bin/env bash
# reproducible.sh SRC BIN WORK — a second static x86_64 build, in another work directory with its
# own zstd, is byte-identical to BIN and mentions neither build's paths.
# SPDX-License-Identifier: MIT
set -euo pipefail
src=$1 bin=$2 work=$3
[ -f "$bin" ] || [ ! -f "$(dirname "$bin").skipped" ] ||
  { echo "reproducible: not built ($(cat "$(dirname "$bin").skipped")); skipped"; exit 77; }
rm -rf "$work"
start=$SECONDS
BB_STATIC_WORKDIR=$work "$src/scripts/build-static.sh" x86_64-linux-musl "$work/out"
echo "reproducible: rebuilt from scratch in $((SECONDS - start)) s"
cmp "$bin" "$work/out/backbeat" || { echo "reproducible: the two builds differ" >&2; exit 1; }
for p in "$src" "$work" "$(dirname "$bin")" /work/; do
  if strings -a "$bin" | grep -F "$p"; then echo "reproducible: binary mentions $p" >&2; exit 1; fi
done
sha256sum "$bin" "$work/out/backbeat"
