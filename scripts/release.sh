#!/bin/sh
# release.sh — release archives of the `backbeat` CLI, one per target, with their checksums.
#
#   scripts/release.sh OUTDIR                       build every Linux target (scripts/build-static.sh)
#                                                   and package it
#   scripts/release.sh --package TARGET BIN OUTDIR  package an existing binary (the macOS runner's)
#   scripts/release.sh --check OUTDIR               build and package twice in fresh work
#                                                   directories, fail unless byte-identical
#
# Each target gives OUTDIR/backbeat-TARGET.tar.gz and OUTDIR/backbeat-TARGET.tar.gz.sha256
# (sha256sum format), and OUTDIR/install.sh (a copy of the installer); the archive holding
# backbeat-TARGET/{bin/backbeat,VERSION,README.md,docs/ (with docs/man/backbeat.1)}
# and LICENSE when the repository has one. Names carry no version, so a "latest" download URL
# never changes; the version is in VERSION (from include/backbeat/version.h) and the release tag.
#
# Reproducible: files sorted by name, one mtime (SOURCE_DATE_EPOCH, default the last commit's
# time), owner and group 0, modes normalised, gzip without name or time stamp.
#
# Environment: BB_RELEASE_TARGETS  Linux targets to build (default: x86_64-linux-musl
#                                  aarch64-linux-musl)
#              BB_STATIC_WORKDIR   passed to build-static.sh (default: OUTDIR/.work)
#              TAR                 a GNU tar (default: gtar if present, else tar)
# SPDX-License-Identifier: MIT
set -eu

src=$(cd "$(dirname "$0")/.." && pwd -P)
die() { echo "release: $*" >&2; exit 1; }
usage() {
  echo "usage: $0 OUTDIR | --package TARGET BINARY OUTDIR | --check OUTDIR" >&2
  exit 2
}

if [ -z "${TAR:-}" ]; then
  if command -v gtar >/dev/null 2>&1; then TAR=gtar; else TAR=tar; fi
fi
"$TAR" --version 2>/dev/null | grep -q 'GNU tar' || die "$TAR is not GNU tar (set TAR=...)"

if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
  SOURCE_DATE_EPOCH=$(git -C "$src" log -1 --format=%ct 2>/dev/null) ||
    die "not a git checkout: set SOURCE_DATE_EPOCH"
fi
export SOURCE_DATE_EPOCH
export LC_ALL=C TZ=UTC

version() {
  for part in MAJOR MINOR PATCH; do
    sed -n "s/^#define BB_VERSION_$part \\([0-9][0-9]*\\).*/\\1/p" "$src/include/backbeat/version.h"
  done | paste -sd. -
}

sha256() { # FILE: the hex digest
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

# The documentation shipped: what git tracks (not whatever lies around), else the files as found.
doc_files() {
  if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$src" ls-files -- README.md LICENSE docs
  else
    (cd "$src" && for f in README.md LICENSE; do [ -f "$f" ] && echo "$f"; done; find docs -type f)
  fi
}

package() { # TARGET BINARY OUTDIR
  p_target=$1 p_bin=$2 p_out=$3
  [ -f "$p_bin" ] || die "$p_bin: no such binary"
  mkdir -p "$p_out"
  name=backbeat-$p_target
  stage=$(mktemp -d "${TMPDIR:-/tmp}/bb-release.XXXXXX")
  mkdir -p "$stage/$name/bin"
  cp "$p_bin" "$stage/$name/bin/backbeat"
  chmod 755 "$stage/$name/bin/backbeat"
  doc_files | while IFS= read -r f; do
    [ -f "$src/$f" ] || continue
    mkdir -p "$stage/$name/$(dirname "$f")"
    cp "$src/$f" "$stage/$name/$f"
  done
  version >"$stage/$name/VERSION"
  "$TAR" -C "$stage" --format=gnu --sort=name --mtime="@$SOURCE_DATE_EPOCH" \
    --owner=0 --group=0 --numeric-owner --mode='u=rwX,go=rX' -cf - "$name" |
    gzip -9n >"$p_out/$name.tar.gz.tmp"
  rm -rf "$stage"
  mv "$p_out/$name.tar.gz.tmp" "$p_out/$name.tar.gz"
  printf '%s  %s\n' "$(sha256 "$p_out/$name.tar.gz")" "$name.tar.gz" >"$p_out/$name.tar.gz.sha256"
  # The installer is a release file too (releases/latest/download/install.sh).
  cp "$src/install.sh" "$p_out/install.sh"
  echo "release: $p_out/$name.tar.gz" >&2
}

build_all() { # OUTDIR WORKDIR
  b_out=$1 b_work=$2
  mkdir -p "$b_out"
  for t in ${BB_RELEASE_TARGETS:-x86_64-linux-musl aarch64-linux-musl}; do
    BB_STATIC_WORKDIR=$b_work "$src/scripts/build-static.sh" "$t" "$b_work/bin/$t"
    package "$t" "$b_work/bin/$t/backbeat" "$b_out"
  done
}

case "${1:-}" in
  --package)
    [ "$#" -eq 4 ] || usage
    package "$2" "$3" "$4"
    ;;
  --check)
    [ "$#" -eq 2 ] || usage
    out=$2
    rm -rf "$out/a" "$out/b"
    build_all "$out/a" "$out/a/.work"
    build_all "$out/b" "$out/b/.work"
    for f in "$out"/a/*.tar.gz "$out"/a/*.sha256 "$out"/a/install.sh; do
      cmp "$f" "$out/b/$(basename "$f")" || die "$(basename "$f") differs between two builds"
    done
    cat "$out"/a/*.sha256
    echo "release: two builds are byte-identical" >&2
    ;;
  -*|"") usage ;;
  *)
    [ "$#" -eq 1 ] || usage
    build_all "$1" "${BB_STATIC_WORKDIR:-$1/.work}"
    ;;
esac
