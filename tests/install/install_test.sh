#!/usr/bin/env bash
# install_test.sh SRC BUILD WORK — backbeat installs and is consumed like any C library.
#
# `cmake --install BUILD --prefix WORK/prefix`, then: the tree holds what it should (headers,
# both libraries in both forms with their soname links, pkg-config files, the CMake package,
# the CLI, the man page, docs, LICENSE); every public header compiles alone (C and C++); the
# consumer in tests/install/consumer/ (a program outside the tree) is built through pkg-config
# (shared, and static against libbackbeat.a) and through find_package (shared and static
# targets), each run, its dump counted by the read library and read by the INSTALLED CLI; a
# request for a version of another major is refused; the man page renders without warnings and
# names every subcommand and option of `backbeat --help`. Then the prefix is MOVED and the
# consumers are built and run again from the new place (relocatable package files).
# Any failing step stops the test with a message naming it.
# SPDX-License-Identifier: MIT
set -euo pipefail
SRC="$(cd "$1" && pwd -P)"
BUILD="$(cd "$2" && pwd -P)"
W="$3"
rm -rf "$W" && mkdir -p "$W" && W="$(cd "$W" && pwd -P)" && cd "$W"

step() { echo "== $*"; }
die() { echo "FAIL: $*" >&2; exit 1; }
# run LOG CMD...: run a command, its output in LOG; on failure show LOG and stop.
run() {
  local log="$1"; shift
  local rc=0
  "$@" >"$log" 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || { cat "$log" >&2; die "exit $rc: $*"; }
}

CONSUMER="$SRC/tests/install/consumer"
EVENT="consumer::jobs::JobDone"
version="$(sed -n 's/^#define BB_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' \
           "$SRC/include/backbeat/version.h" | paste -sd.)"
major="${version%%.*}"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "cannot read the version from version.h"
# Nothing from the environment may point at another backbeat, or install elsewhere; and a
# backbeat installed on the system (the Debian packages in /usr) must not answer for the prefix
# under test: pkg-config searches only the prefix (PKG_CONFIG_LIBDIR); the version probe searches
# only the prefix (NO_DEFAULT_PATH); the consumer's CMAKE_PREFIX_PATH comes before the system's
# prefixes, no package registry is read, and the backbeat_DIR it found is checked.
unset PKG_CONFIG_PATH PKG_CONFIG_LIBDIR CMAKE_PREFIX_PATH LD_LIBRARY_PATH DESTDIR backbeat_DIR backbeat_ROOT
CMAKE_PIN=(-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
# The build's library directory under the prefix (lib, or lib/<multiarch> when configured for /usr).
L="$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$BUILD/CMakeCache.txt")"
L="${L:-lib}"
case "$L" in /*) echo "CMAKE_INSTALL_LIBDIR=$L is absolute: the prefix cannot move; skipped"; exit 77 ;; esac
export CMAKE_BUILD_PARALLEL_LEVEL=2

step "install into $W/prefix"
INSTALLED_AT="$W/prefix" # the prefix the pkg-config files name (plain paths)
run install.log cmake --install "$BUILD" --prefix "$W/prefix"

# -- the installed tree ------------------------------------------------------------------------
check_tree() {
  local P="$1"
  step "installed tree ($P)"
  (cd "$SRC/include" && find backbeat -name '*.h' | sort) >headers.want
  (cd "$P/include" && find backbeat -type f | sort) >headers.got
  diff -u headers.want headers.got >headers.diff || { cat headers.diff >&2; die "installed headers differ from include/"; }
  grep -q '^backbeat/detail/' headers.got || die "include/backbeat/detail/ not installed"
  for lib in backbeat backbeat-read; do
    [ -f "$P/$L/lib$lib.a" ] || die "lib$lib.a not installed"
    [ -f "$P/$L/lib$lib.so.$version" ] && [ ! -L "$P/$L/lib$lib.so.$version" ] ||
      die "lib$lib.so.$version not installed"
    [ "$(readlink "$P/$L/lib$lib.so.$major")" = "lib$lib.so.$version" ] ||
      die "lib$lib.so.$major is not a link to lib$lib.so.$version"
    [ "$(readlink "$P/$L/lib$lib.so")" = "lib$lib.so.$major" ] ||
      die "lib$lib.so is not a link to lib$lib.so.$major"
    readelf -d "$P/$L/lib$lib.so.$version" | grep -q "SONAME.*\[lib$lib.so.$major\]" ||
      die "lib$lib.so.$version has not the soname lib$lib.so.$major"
    ! readelf -d "$P/$L/lib$lib.so.$version" | grep -q 'RPATH\|RUNPATH' ||
      die "lib$lib.so.$version carries a run path"
    [ -f "$P/$L/pkgconfig/$lib.pc" ] || die "$lib.pc not installed"
    grep -q 'MIT' "$P/$L/pkgconfig/$lib.pc" || die "$lib.pc does not name the license"
    ! grep -q 'pcfiledir\|\.\./' "$P/$L/pkgconfig/$lib.pc" || die "$lib.pc holds a relative path"
    grep -qx "prefix=$INSTALLED_AT" "$P/$L/pkgconfig/$lib.pc" || die "$lib.pc: prefix is not $INSTALLED_AT"
    grep -qx 'includedir=${prefix}/include' "$P/$L/pkgconfig/$lib.pc" || die "$lib.pc: includedir is not \${prefix}/include"
  done
  for f in backbeatConfig.cmake backbeatConfigVersion.cmake backbeatTargets.cmake; do
    [ -f "$P/$L/cmake/backbeat/$f" ] || die "lib/cmake/backbeat/$f not installed"
  done
  grep -q 'MIT' "$P/$L/cmake/backbeat/backbeatConfig.cmake" || die "the CMake package does not name the license"
  ! grep -rq "$SRC\|$BUILD\|$P" "$P/$L/cmake/backbeat" || die "the CMake package holds an absolute path"
  grep -q 'SameMajorVersion\|CVF_VERSION_MAJOR' "$P/$L/cmake/backbeat/backbeatConfigVersion.cmake" ||
    die "backbeatConfigVersion.cmake is not SameMajorVersion"
  ! grep -q 'bb_common\|bb_format\|bb_capture\|bb_global\|bb_read\b\|bb_parquet\|bb_cli' \
    "$P/$L/cmake/backbeat/"backbeatTargets*.cmake || die "internal targets in the export set"
  [ -x "$P/bin/backbeat" ] || die "bin/backbeat not installed"
  [ -f "$P/share/man/man1/backbeat.1" ] || die "man1/backbeat.1 not installed"
  for f in "$SRC"/docs/*.md "$SRC/LICENSE"; do
    cmp -s "$f" "$P/share/doc/backbeat/$(basename "$f")" || die "share/doc/backbeat/$(basename "$f") not installed"
  done
  # The user guide, in its own directory (its chapters link to ../FORMAT.md and the like).
  for f in "$SRC"/docs/guide/*.md; do
    cmp -s "$f" "$P/share/doc/backbeat/guide/$(basename "$f")" || die "share/doc/backbeat/guide/$(basename "$f") not installed"
  done
  grep -q 'MIT License' "$P/share/doc/backbeat/LICENSE" || die "LICENSE is not MIT"
  "$P/bin/backbeat" --version | grep -qx "backbeat $version (dump format 1)" ||
    die "installed CLI: $("$P/bin/backbeat" --version)"
}

# -- every public header alone in a translation unit, C and C++ --------------------------------
check_headers() {
  local P="$1" h
  step "public headers compile alone (C gnu11 and C++17; gcc, and clang if present)"
  export PKG_CONFIG_LIBDIR="$P/$L/pkgconfig"
  for h in "$P"/include/backbeat/*.h; do
    h="backbeat/$(basename "$h")"
    printf '#include <%s>\nint bb_header_check;\n' "$h" >hdr.c
    cp hdr.c hdr.cpp
    # shellcheck disable=SC2046
    run hdr.log cc -std=gnu11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only \
      $(pkg-config --cflags backbeat) hdr.c || die "$h alone (C)"
    # shellcheck disable=SC2046
    run hdr.log c++ -std=c++17 -Wall -Wextra -Wpedantic -Werror -fsyntax-only \
      $(pkg-config --cflags backbeat) hdr.cpp || die "$h alone (C++)"
    if command -v clang >/dev/null && command -v clang++ >/dev/null; then
      # shellcheck disable=SC2046
      run hdr.log clang -std=gnu11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only \
        $(pkg-config --cflags backbeat) hdr.c || die "$h alone (clang)"
      # shellcheck disable=SC2046
      run hdr.log clang++ -std=c++17 -Wall -Wextra -Wpedantic -Werror -fsyntax-only \
        $(pkg-config --cflags backbeat) hdr.cpp || die "$h alone (clang++)"
    fi
  done
}

# check_dump DUMP N BACKBEAT_CLI COUNT_TOOL [ENV...]: the dump holds N records of the event,
# counted by the read library and read by the installed CLI.
check_dump() {
  local dump="$1" n="$2" cli="$3" count="$4"; shift 4
  [ -s "$dump" ] || die "no dump $dump"
  env "$@" "$count" "$dump" "$EVENT" >count.out 2>&1 || { cat count.out >&2; die "count $dump"; }
  [ "$(cat count.out)" = "$n $n" ] || die "$dump: counted '$(cat count.out)', want '$n $n'"
  run inspect.out "$cli" inspect "$dump"
  grep -q "$EVENT" inspect.out || die "backbeat inspect $dump does not name $EVENT"
  run convert.log "$cli" convert "$dump" -o "${dump%.bb}.json"
  [ "$(grep -o "\"name\":\"$EVENT\"" "${dump%.bb}.json" | wc -l)" -eq "$n" ] ||
    die "backbeat convert $dump: not $n $EVENT in the trace"
}

# loads_from BINARY PATH [LD_LIBRARY_PATH]: BINARY loads the shared library at PATH.
loads_from() {
  local bin="$1" want="$2"
  env LD_LIBRARY_PATH="${3:-}" ldd "$bin" >ldd.out 2>&1 || true
  grep -q "$want" ldd.out || { cat ldd.out >&2; die "$bin does not load $want"; }
}
no_shared_backbeat() {
  ! readelf -d "$1" | grep -q 'NEEDED.*libbackbeat' || die "$1 is linked against a shared libbackbeat"
}

# -- (a) pkg-config ----------------------------------------------------------------------------
consume_pkgconfig() {
  local P="$1" tag="$2" d="$W/pc-$2"
  mkdir -p "$d"
  export PKG_CONFIG_LIBDIR="$P/$L/pkgconfig"
  step "pkg-config ($tag): module versions, paths inside the prefix"
  for m in backbeat backbeat-read; do
    [ "$(pkg-config --modversion $m)" = "$version" ] || die "pkg-config --modversion $m"
    inc="$(pkg-config --variable=includedir $m)"; lib="$(pkg-config --variable=libdir $m)"
    [ "$(realpath "$inc")" = "$(realpath "$P/include")" ] || die "$m includedir $inc is not in $P"
    [ "$(realpath "$lib")" = "$(realpath "$P/$L")" ] || die "$m libdir $lib is not in $P"
  done
  pkg-config --static --libs backbeat | grep -q -- '-lpthread' || die "backbeat.pc: no -lpthread for a static link"
  ! pkg-config --exists 'backbeat >= 1' || die "pkg-config accepts backbeat >= 1"

  step "pkg-config ($tag): shared"
  # shellcheck disable=SC2046
  run cc.log cc -std=gnu11 -Wall -Wextra -Werror "$CONSUMER/consumer.c" \
    $(pkg-config --cflags --libs backbeat) -o "$d/consumer"
  # shellcheck disable=SC2046
  run cc.log cc -std=gnu11 -Wall -Wextra -Werror "$CONSUMER/count.c" \
    $(pkg-config --cflags --libs backbeat-read) -o "$d/count"
  loads_from "$d/consumer" "$P/$L/libbackbeat.so.$major" "$P/$L"
  loads_from "$d/count" "$P/$L/libbackbeat-read.so.$major" "$P/$L"
  LD_LIBRARY_PATH="$P/$L" run run.log "$d/consumer" "$d/shared.bb" 7
  check_dump "$d/shared.bb" 7 "$P/bin/backbeat" "$d/count" LD_LIBRARY_PATH="$P/$L"

  step "pkg-config ($tag): shared with the run path the README shows (runs without LD_LIBRARY_PATH)"
  # shellcheck disable=SC2046
  run cc.log cc -std=gnu11 -Wall -Wextra -Werror "$CONSUMER/consumer.c" \
    $(pkg-config --cflags --libs backbeat) -Wl,-rpath,"$(pkg-config --variable=libdir backbeat)" \
    -o "$d/consumer_rpath"
  (unset LD_LIBRARY_PATH; run run.log "$d/consumer_rpath" "$d/rpath.bb" 3)
  check_dump "$d/rpath.bb" 3 "$P/bin/backbeat" "$d/count" LD_LIBRARY_PATH="$P/$L"

  step "pkg-config ($tag): static (pkg-config --static, libbackbeat.a)"
  # shellcheck disable=SC2046
  run cc.log cc -std=gnu11 -Wall -Wextra -Werror "$CONSUMER/consumer.c" $(pkg-config --cflags backbeat) \
    -Wl,-Bstatic $(pkg-config --static --libs backbeat) -Wl,-Bdynamic -o "$d/consumer_static"
  # shellcheck disable=SC2046
  run cc.log cc -std=gnu11 -Wall -Wextra -Werror "$CONSUMER/count.c" $(pkg-config --cflags backbeat-read) \
    -Wl,-Bstatic $(pkg-config --static --libs backbeat-read) -Wl,-Bdynamic -o "$d/count_static"
  no_shared_backbeat "$d/consumer_static"
  no_shared_backbeat "$d/count_static"
  run run.log "$d/consumer_static" "$d/static.bb" 4
  check_dump "$d/static.bb" 4 "$P/bin/backbeat" "$d/count_static"
  unset PKG_CONFIG_LIBDIR
}

# -- (b) find_package --------------------------------------------------------------------------
consume_cmake() {
  local P="$1" tag="$2" link b
  for link in shared static; do
    b="$W/cm-$tag-$link"
    step "find_package ($tag): $link targets"
    run cmake.log cmake -S "$CONSUMER" -B "$b" -DCMAKE_PREFIX_PATH="$P" -DBB_LINK=$link "${CMAKE_PIN[@]}"
    grep -q "^backbeat_DIR:PATH=$P/$L/cmake/backbeat$" "$b/CMakeCache.txt" ||
      die "find_package found $(grep '^backbeat_DIR' "$b/CMakeCache.txt"), not $P"
    [ "$(grep -c "^-- backbeat::[a-z_]* $version MIT: include $P/include$" cmake.log)" -eq 4 ] ||
      { cat cmake.log >&2; die "imported targets' include dirs are not $P/include only"; }
    run build.log cmake --build "$b"
    if [ $link = shared ]; then
      loads_from "$b/consumer" "$P/$L/libbackbeat.so.$major"
      loads_from "$b/count" "$P/$L/libbackbeat-read.so.$major"
    else
      no_shared_backbeat "$b/consumer"
      no_shared_backbeat "$b/count"
    fi
    run run.log "$b/consumer" "$b/jobs.bb" 5
    check_dump "$b/jobs.bb" 5 "$P/bin/backbeat" "$b/count"
  done

  step "find_package ($tag): versions (SameMajorVersion)"
  probe() { # probe WANT → prints FOUND <version> / NOTFOUND
    rm -rf "$W/probe-b"
    cmake -S "$SRC/tests/install/probe" -B "$W/probe-b" -DPROBE_PREFIX="$P" "${CMAKE_PIN[@]}" \
      -DWANT="$1" 2>&1 | sed -n 's/^-- probe: //p'
  }
  [ "$(probe "$major.0")" = "FOUND $version" ] || die "find_package(backbeat $major.0) not found"
  [ "$(probe "$version")" = "FOUND $version" ] || die "find_package(backbeat $version) not found"
  [ "$(probe "$((major + 1)).0")" = "NOTFOUND" ] ||
    die "find_package(backbeat $((major + 1)).0) accepted version $version"
  if [ "$major" = 0 ]; then
    [ "$(probe 1.0)" = "NOTFOUND" ] || die "find_package(backbeat 1.0) accepted version $version"
  fi
  # A request for an older major is refused too: the same package, its version file claiming
  # the next major, must not satisfy a request for this one.
  local next="$((major + 1)).0.0" F="$W/next-major"
  rm -rf "$F" && cp -a "$P" "$F"
  sed -i "s/\"$version\"/\"$next\"/g" "$F/$L/cmake/backbeat/backbeatConfigVersion.cmake"
  [ "$(P="$F" probe "$((major + 1)).0")" = "FOUND $next" ] || die "probe of the doctored package"
  [ "$(P="$F" probe "$major.1")" = "NOTFOUND" ] || die "version $next accepted for a request of $major.1"
  rm -rf "$F"
}

# -- the man page ------------------------------------------------------------------------------
check_man() {
  local P="$1" man="$1/share/man/man1/backbeat.1" cmd
  step "man page renders without warnings and covers the CLI"
  command -v man >/dev/null && command -v groff >/dev/null || die "man or groff missing (install-deps.sh --test)"
  MANWIDTH=80 man --warnings -l "$man" >man.txt 2>man.err || { cat man.err >&2; die "man -l failed"; }
  [ ! -s man.err ] || { cat man.err >&2; die "man --warnings: warnings"; }
  groff -man -ww -z "$man" 2>groff.err || { cat groff.err >&2; die "groff failed"; }
  [ ! -s groff.err ] || { cat groff.err >&2; die "groff -ww: warnings"; }
  MANWIDTH=250 man -E ascii -l "$man" 2>/dev/null | col -b >man.flat
  "$P/bin/backbeat" --help >help.txt
  cmds="$(sed -n '/^commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p' help.txt)"
  [ -n "$cmds" ] || die "no commands in backbeat --help"
  for cmd in $cmds; do
    grep -q "^       backbeat $cmd" man.flat || die "man page: no synopsis of '$cmd'"
    "$P/bin/backbeat" "$cmd" --help >>help.txt
  done
  for opt in $(grep -oE -- '(^|[ ,[])--?[a-zA-Z][a-z-]*' help.txt | grep -oE -- '--?[a-zA-Z][a-z-]*' | sort -u); do
    [ "$opt" = "-cmd" ] && continue # duckdb's option, quoted in convert --help
    grep -qE -- "(^|[^a-z-])$opt([^a-z-]|$)" man.flat || die "man page does not document $opt"
  done
}

check_tree "$W/prefix"
check_headers "$W/prefix"
check_man "$W/prefix"
consume_pkgconfig "$W/prefix" installed
consume_cmake "$W/prefix" installed

step "move the prefix"
# The pkg-config files name the old prefix; --define-prefix takes it from where they now lie.
pkg-config() { command pkg-config --define-prefix "$@"; }
mkdir -p "$W/elsewhere"
mv "$W/prefix" "$W/elsewhere/moved"
M="$W/elsewhere/moved"
[ ! -e "$W/prefix" ] || die "the old prefix still exists"
check_tree "$M"
consume_pkgconfig "$M" moved
consume_cmake "$M" moved

echo "ok: installed, consumed through pkg-config and find_package (shared and static), moved, consumed again"
