#!/usr/bin/env bash
# build-static.sh TARGET OUTDIR — a fully static `backbeat` CLI (musl libc, no interpreter, no
# shared libraries) at OUTDIR/backbeat.
#
#   TARGET   x86_64-linux-musl    musl-gcc (Debian musl-tools)
#            aarch64-linux-musl   aarch64-linux-gnu-gcc (Debian gcc-aarch64-linux-gnu) with the
#                                 spec file of Debian's musl-dev:arm64 (multiarch)
#
# zstd is Debian's own source package (`apt-get source libzstd`), its lib/ compiled with the same
# compiler into a static libzstd.a and cached per version and target under the work directory,
# so reruns only rebuild the CLI. The CLI is configured as a separate CMake build that finds that
# libzstd through its own pkg-config file (PKG_CONFIG_LIBDIR), and only the CLI target is built.
#
# Reproducible: source and work paths are mapped away (-ffile-prefix-map), no build-id, stripped;
# the result must not mention either path (checked here with `strings`).
#
# Environment: BB_STATIC_WORKDIR  work directory (default: build-static/ in the source tree)
#              JOBS               parallel jobs (default 2)
# Packages: scripts/install-deps.sh --static
# SPDX-License-Identifier: MIT
set -euo pipefail

usage() { echo "usage: $0 x86_64-linux-musl|aarch64-linux-musl OUTDIR" >&2; exit 2; }
[ "$#" -eq 2 ] || usage
target=$1
outdir=$2
src=$(cd "$(dirname "$0")/.." && pwd -P)
jobs=${JOBS:-2}

die() { echo "build-static: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || die "$1 not found ($2); run scripts/install-deps.sh --static"; }

case "$target" in
  x86_64-linux-musl)
    need musl-gcc "Debian package musl-tools"
    cc=musl-gcc
    cross=""
    ar="ar"
    strip="strip"
    ;;
  aarch64-linux-musl)
    need aarch64-linux-gnu-gcc "Debian package gcc-aarch64-linux-gnu"
    specs=/usr/lib/aarch64-linux-musl/musl-gcc.specs
    [ -f "$specs" ] || die "$specs not found (Debian package musl-dev:arm64, needs" \
      "'dpkg --add-architecture arm64'); run scripts/install-deps.sh --static"
    cc=""   # a wrapper, written below into the work directory
    cross=aarch64
    ar=aarch64-linux-gnu-ar
    strip=aarch64-linux-gnu-strip
    ;;
  *-macos|*-darwin)
    die "$target cannot be built here: macOS binaries are built on a macOS runner" \
      "(.github/workflows/release.yml) and packaged with scripts/release.sh --package"
    ;;
  *) die "unknown target '$target' (x86_64-linux-musl or aarch64-linux-musl)" ;;
esac

mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd -P)
work=${BB_STATIC_WORKDIR:-$src/build-static}
mkdir -p "$work/$target"
work=$(cd "$work" && pwd -P)
tw=$work/$target

if [ -z "$cc" ]; then
  cc=$tw/aarch64-linux-musl-gcc
  printf '#!/bin/sh\nexec aarch64-linux-gnu-gcc "$@" -specs %s\n' "$specs" >"$cc.tmp"
  chmod +x "$cc.tmp"
  mv "$cc.tmp" "$cc"
fi

# Paths that must not end up in the binary.
prefix_maps="-ffile-prefix-map=$src=. -ffile-prefix-map=$work=build -fdebug-prefix-map=$src=. -fdebug-prefix-map=$work=build"
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$src" log -1 --format=%ct 2>/dev/null || echo 0)}
export LC_ALL=C TZ=UTC

# --- zstd from Debian's source package, cached --------------------------------------------------
zver=$(apt-cache showsrc libzstd 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -n 1)
[ -n "$zver" ] || die "no source package libzstd known to apt (deb-src lines missing);" \
  "run scripts/install-deps.sh --static"
zdir=$tw/zstd-$zver
if [ ! -f "$zdir/done" ]; then
  echo "build-static: zstd $zver for $target (Debian source package libzstd)" >&2
  rm -rf "$zdir"
  mkdir -p "$zdir/dl" "$zdir/lib/pkgconfig" "$zdir/include"
  (cd "$zdir/dl" && apt-get source --download-only "libzstd=$zver" >/dev/null 2>&1) ||
    die "apt-get source libzstd=$zver failed (deb-src lines? network?)"
  dpkg-source --no-check -x "$zdir"/dl/libzstd_*.dsc "$zdir/src" >/dev/null ||
    die "dpkg-source -x failed"
  # Single-threaded static library, compression and decompression only.
  nice make -s -C "$zdir/src/lib" -j"$jobs" libzstd.a CC="$cc" AR="$ar" \
    CFLAGS="-O2 -ffunction-sections -fdata-sections $prefix_maps" \
    ZSTD_LEGACY_SUPPORT=0 ZSTD_LIB_DICTBUILDER=0 ZSTD_LIB_DEPRECATED=0 >/dev/null
  cp "$zdir/src/lib/libzstd.a" "$zdir/lib/"
  cp "$zdir/src/lib/zstd.h" "$zdir/src/lib/zstd_errors.h" "$zdir/src/lib/zdict.h" "$zdir/include/"
  zv=${zver%%+*}
  cat >"$zdir/lib/pkgconfig/libzstd.pc" <<EOF
prefix=$zdir
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: zstd
Description: fast lossless compression algorithm library (static, musl, $target)
Version: $zv
Libs: -L\${libdir} -lzstd
Cflags: -I\${includedir}
EOF
  rm -rf "$zdir/src" "$zdir/dl"
  touch "$zdir/done"
fi

# --- the CLI -------------------------------------------------------------------------------------
cflags="-O2 -DNDEBUG $prefix_maps -ffunction-sections -fdata-sections"
ldflags="-static -s -Wl,--gc-sections -Wl,--build-id=none"
cmake_args=(-S "$src" -B "$tw/cli" -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS_RELEASE="$cflags"
  -DCMAKE_EXE_LINKER_FLAGS="$ldflags"
  -DCMAKE_POSITION_INDEPENDENT_CODE=OFF
  -DBACKBEAT_BUILD_TESTS=OFF -DBACKBEAT_BUILD_BENCH=OFF)
if [ -n "$cross" ]; then
  # Nothing C++ is built for the CLI; the host compiler only satisfies project(... CXX).
  cmake_args+=(-DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR="$cross"
    -DCMAKE_CXX_COMPILER=c++ -DCMAKE_TRY_COMPILE_TARGET_TYPE=STATIC_LIBRARY
    -DCMAKE_AR="$(command -v "$ar")")
fi
PKG_CONFIG_LIBDIR=$zdir/lib/pkgconfig PKG_CONFIG_PATH="" \
  cmake "${cmake_args[@]}" >"$tw/configure.log" 2>&1 ||
  { cat "$tw/configure.log" >&2; die "configure failed"; }
PKG_CONFIG_LIBDIR=$zdir/lib/pkgconfig nice cmake --build "$tw/cli" -j"$jobs" --target backbeat_cli \
  >"$tw/build.log" 2>&1 || { tail -n 40 "$tw/build.log" >&2; die "build failed"; }

bin=$tw/cli/backbeat
"$strip" --strip-all -R .comment "$bin" -o "$outdir/backbeat.tmp"
chmod 755 "$outdir/backbeat.tmp"
mv "$outdir/backbeat.tmp" "$outdir/backbeat"

# --- checks: static, no interpreter, no build paths -------------------------------------------
if readelf -lW "$outdir/backbeat" | grep -q 'INTERP'; then die "$outdir/backbeat has an interpreter"; fi
if readelf -dW "$outdir/backbeat" 2>/dev/null | grep -q 'NEEDED'; then die "$outdir/backbeat needs shared libraries"; fi
for p in "$src" "$work"; do
  if strings -a "$outdir/backbeat" | grep -qF "$p"; then die "$outdir/backbeat mentions $p"; fi
done
echo "build-static: $outdir/backbeat ($target, $(wc -c <"$outdir/backbeat") bytes)" >&2
