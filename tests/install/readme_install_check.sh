#!/usr/bin/env bash
# readme_install_check.sh SRC BUILD WORK — the README's Install section stays literally true.
# Its first shell block (install, build the first example through pkg-config, shared and
# static, run both, inspect with the installed CLI) runs line by line in one shell, with
# HOME=WORK/home (so ~/.local is a temporary prefix), `build` pointed at this build tree and
# examples/ at this source tree; its CMake block is written as the CMakeLists.txt of a project
# holding examples/hello.c, and the shell block after it runs line by line in that project.
# SPDX-License-Identifier: MIT
set -u
SRC="$(cd "$1" && pwd -P)"
BUILD="$(cd "$2" && pwd -P)"
W="$3"
rm -rf "$W" && mkdir -p "$W/home" "$W/run" "$W/project" && W="$(cd "$W" && pwd -P)" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
unset DESTDIR
libdir="$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$BUILD/CMakeCache.txt")"
if [ "${libdir:-lib}" != lib ]; then
  echo "this build installs libraries into $libdir, not the README's lib/: skipped"
  exit 77
fi

python3 - "$SRC/README.md" "$W" <<'PY' || exit 1
import re, sys
readme, w = open(sys.argv[1]).read(), sys.argv[2]
sec = re.search(r'^## Install\n(.*?)^## ', readme, re.S | re.M)
if not sec:
    sys.exit("README has no '## Install' section")
blocks = re.findall(r'```(\w+)\n(.*?)```', sec.group(1), re.S)
kinds = [k for k, _ in blocks]
if kinds[:3] != ['sh', 'cmake', 'sh']:
    sys.exit(f"Install section: expected sh, cmake, sh blocks, found {kinds}")
for name, (_, text) in zip(['install.sh', 'CMakeLists.txt', 'project.sh'], blocks):
    open(f'{w}/{name}', 'w').write(text)
PY
[ -s "$W/install.sh" ] && [ -s "$W/CMakeLists.txt" ] && [ -s "$W/project.sh" ] || exit 1
grep -q '^cmake --install build --prefix ~/.local' "$W/install.sh" || fail "the first command is not 'cmake --install build --prefix ~/.local'"
grep -q 'pkg-config --cflags --libs backbeat' "$W/install.sh" || fail "no pkg-config line"
grep -q 'pkg-config --static' "$W/install.sh" || fail "no static pkg-config line"
grep -q -- '-Wl,-rpath,' "$W/install.sh" || fail "no run path on the shared build line"
grep -q 'find_package(backbeat ' "$W/CMakeLists.txt" || fail "no find_package in the CMake block"

# run_lines FILE DIR: each non-empty line of FILE, in one shell (exports persist), in DIR.
run_lines() {
  (
    export HOME="$W/home"
    unset PKG_CONFIG_PATH CMAKE_PREFIX_PATH LD_LIBRARY_PATH
    cd "$2" || exit 1
    n=0 bad=0
    while IFS= read -r line; do
      [ -z "$line" ] && continue
      n=$((n + 1))
      cmd="${line%%#*}"
      cmd="${cmd//examples\//$SRC/examples/}"
      [ "$1" = "$W/install.sh" ] && cmd="${cmd//--install build/--install $BUILD}"
      echo "\$ $cmd" >>"$W/log.txt"
      eval "$cmd" >>"$W/log.txt" 2>&1 || { echo "FAIL: README line '$line' exited $?"; bad=1; }
    done <"$1"
    echo "$n" >"$1.count"
    exit "$bad"
  ) || fail "$(basename "$1")"
}

P="$W/home/.local"
run_lines "$W/install.sh" "$W/run"
[ "$(cat "$W/install.sh.count")" -ge 6 ] || fail "only $(cat "$W/install.sh.count") commands in the Install block"
[ -x "$P/bin/backbeat" ] || fail "no ~/.local/bin/backbeat after the README's install line"
[ -f "$P/lib/pkgconfig/backbeat.pc" ] || fail "no ~/.local/lib/pkgconfig/backbeat.pc"
[ -s "$W/run/trace.bb" ] || fail "the README's programs wrote no trace.bb"
[ -x "$W/run/hello" ] && readelf -d "$W/run/hello" | grep -q 'NEEDED.*libbackbeat.so.0' ||
  fail "hello is not linked against libbackbeat.so.0"
readelf -d "$W/run/hello" 2>/dev/null | grep -q "R.*PATH.*$P/lib" || fail "hello has no run path to ~/.local/lib"
[ -x "$W/run/hello-static" ] && ! readelf -d "$W/run/hello-static" | grep -q 'NEEDED.*libbackbeat' ||
  fail "hello-static is not linked statically against libbackbeat.a"
grep -q "my_app::net::PacketSent" "$W/log.txt" || fail "inspect did not show my_app::net::PacketSent"

cp "$W/CMakeLists.txt" "$SRC/examples/hello.c" "$W/project/"
run_lines "$W/project.sh" "$W/project"
[ -x "$W/project/build/hello" ] || fail "the CMake project built no build/hello"
grep -q "^backbeat_DIR:PATH=$P/lib/cmake/backbeat$" "$W/project/build/CMakeCache.txt" 2>/dev/null ||
  fail "find_package did not find the package in ~/.local"
[ -s "$W/project/trace.bb" ] || fail "build/hello wrote no trace.bb"
"$P/bin/backbeat" convert "$W/project/trace.bb" -o "$W/project/trace.json" >>"$W/log.txt" 2>&1 &&
  [ "$(grep -o '"name":"my_app::net::PacketSent"' "$W/project/trace.json" | wc -l)" -eq 3 ] ||
  fail "the CMake-built hello's dump lacks its 3 records"

if [ "$fails" -ne 0 ]; then
  cat "$W/log.txt"
  echo "$fails failure(s)"
  exit 1
fi
echo "ok ($(cat "$W/install.sh.count") + $(cat "$W/project.sh.count") commands)"
