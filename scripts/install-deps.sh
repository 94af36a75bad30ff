#!/usr/bin/env bash
# install-deps.sh — install what the build (and, with --test, the test suite) needs.
#
# Debian packages come from apt-get when run as root; otherwise the exact command to run is
# printed and the script fails. Test-only readers (DuckDB, hyparquet, the DevTools trace engine)
# come from npm, pinned by tests/js/package-lock.json. Nothing else is downloaded.
#
# --test: also what the test suite needs, including the release tests' toolchain (musl-gcc, the
# aarch64 cross compiler, qemu-user-static): plain Debian packages only. It changes nothing in
# the host's apt configuration: without the arm64 foreign architecture (musl-dev:arm64) and
# deb-src lines (Debian's zstd source package), the release tests that need them report
# themselves skipped and say so.
# --host-config (`make test-deps`, CI): make those two changes, each announced on stderr:
# `dpkg --add-architecture arm64`, and /etc/apt/sources.list.d/backbeat-deb-src.sources when
# apt knows no source package libzstd; then install musl-dev:arm64.
# --static (`make release`): the release toolchain, with --host-config's changes.
# Options combine: `install-deps.sh --test --host-config`.
# SPDX-License-Identifier: MIT
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=0
want_static=0
want_host=0
for arg in "$@"; do
  case "$arg" in
    --test) want_test=1; want_static=1 ;;
    --static) want_static=1; want_host=1 ;;
    --host-config) want_static=1; want_host=1 ;;
    *) echo "usage: $0 [--test] [--static] [--host-config]" >&2; exit 2 ;;
  esac
done

pkgs=(build-essential cmake pkg-config libzstd-dev libsnappy-dev zlib1g-dev libdw-dev)
if [ "$want_test" = 1 ]; then
  pkgs+=(babeltrace2 clang clang-format libclang-rt-dev python3 man-db groff-base debhelper dpkg-dev lintian shellcheck
         curl wget)
  command -v node >/dev/null 2>&1 || pkgs+=(nodejs)
  command -v npm >/dev/null 2>&1 || pkgs+=(npm)
fi
need_update=0
if [ "$want_static" = 1 ]; then
  pkgs+=(musl-tools file dpkg-dev xz-utils)
  if [ "$(dpkg --print-architecture)" = amd64 ]; then
    pkgs+=(gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-user-static)
    if ! dpkg --print-foreign-architectures | grep -qx arm64 && [ "$want_host" = 1 ]; then
      if [ "$(id -u)" = 0 ]; then
        echo "install-deps: changing the host: dpkg --add-architecture arm64 (for musl-dev:arm64)" >&2
        dpkg --add-architecture arm64
        need_update=1
      else
        echo "install-deps: run: sudo dpkg --add-architecture arm64 && sudo apt-get update" >&2
        exit 1
      fi
    fi
    if dpkg --print-foreign-architectures | grep -qx arm64; then
      pkgs+=(musl-dev:arm64)
    else
      echo "install-deps: no arm64 foreign architecture: the aarch64 release tests will be skipped" \
        "('make test-deps' adds it)" >&2
    fi
  fi
  if [ -z "$(apt-cache showsrc libzstd 2>/dev/null)" ]; then
    codename=$(sed -n "s/^VERSION_CODENAME=//p" /etc/os-release)
    [ -n "$codename" ] || codename=bookworm
    srcfile=/etc/apt/sources.list.d/backbeat-deb-src.sources
    if [ "$want_host" = 0 ]; then
      echo "install-deps: apt knows no source package libzstd (no deb-src lines): the static" \
        "release tests will be skipped ('make test-deps' adds $srcfile)" >&2
    elif [ "$(id -u)" = 0 ]; then
      echo "install-deps: changing the host: writing $srcfile (deb-src lines for Debian's zstd source package)" >&2
      printf '%s\n' "Types: deb-src" "URIs: http://deb.debian.org/debian" \
        "Suites: $codename $codename-updates" "Components: main" \
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" >"$srcfile"
      need_update=1
    else
      echo "install-deps: apt knows no source package libzstd: add deb-src lines to $srcfile" >&2
      exit 1
    fi
  fi
  if [ "$need_update" = 1 ]; then apt-get update >/dev/null; fi
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "install-deps: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
      { apt-get update >/dev/null && apt-get install -y --no-install-recommends "${missing[@]}"; }
  else
    echo "install-deps: missing Debian packages. Run:" >&2
    echo "  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

if [ "$want_test" = 1 ]; then
  stamp=tests/js/node_modules/.backbeat-lock
  if [ ! -f "$stamp" ] || ! cmp -s tests/js/package-lock.json "$stamp"; then
    echo "install-deps: npm ci (tests/js)" >&2
    npm ci --prefix tests/js --no-audit --no-fund --loglevel=error >/dev/null
    cp tests/js/package-lock.json "$stamp"
  fi
fi
