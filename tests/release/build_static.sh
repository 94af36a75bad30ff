#!/usr/bin/env bash
# build_static.sh SRC OUT — the release tests' fixture: the static CLI of every Linux target,
# at OUT/bin/TARGET/backbeat, through scripts/build-static.sh (zstd cached in OUT/work).
# SPDX-License-Identifier: MIT
set -euo pipefail
src=$1 out=$2
for t in x86_64-linux-musl aarch64-linux-musl; do
  start=$SECONDS
  BB_STATIC_WORKDIR=$out/work "$src/scripts/build-static.sh" "$t" "$out/bin/$t"
  echo "build_static: $t in $((SECONDS - start)) s"
done
