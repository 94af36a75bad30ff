#!/usr/bin/env bash
# deb_test.sh SRC WORK — the Debian packages (debian/) build, pass lintian, and are consumed.
#
# The source tree as git knows it (tracked and new files, nothing ignored: no build trees) is
# copied to WORK/src, and what `make demo`, `make release` and `make test` leave in a checkout
# (out/, build trees, node_modules, a .git directory) is planted beside it; `dpkg-buildpackage
# -us -uc` builds the source package and the binary packages there (the suite itself is not
# built: nocheck); the source tarball holds exactly the copied files (debian/source/options);
# lintian checks the .changes (source and binaries) and fails the test on any error or warning
# (E:, W:; overrides are listed); every package holds what it should (the documents the manual
# page names, uncompressed) and declares its
# dependencies; the packages are extracted with `dpkg -x` into WORK/root (no root needed,
# nothing installed on the system); the consumer in tests/install/consumer/ is built against
# that root through pkg-config and through find_package (shared and static), run, and its dump
# read by the extracted CLI. Before any of it: the debian/ metadata agrees with the tree
# (version.h, the export lists in tests/abi/). Any failing step stops the test naming it.
# SPDX-License-Identifier: MIT
set -euo pipefail
SRC="$(cd "$1" && pwd -P)"
W="$2"
rm -rf "$W" && mkdir -p "$W" && W="$(cd "$W" && pwd -P)" && cd "$W"

step() { echo "== $* ($(date +%T))"; }
die() { echo "FAIL: $*" >&2; exit 1; }
run() { # run LOG CMD...: its output in LOG; on failure show LOG's end and stop.
  local log="$1"; shift
  local rc=0
  "$@" >"$log" 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || { tail -n 60 "$log" >&2; die "exit $rc: $*"; }
}

for tool in dpkg-buildpackage dh lintian dpkg-deb dpkg-parsechangelog pkg-config cmake cc; do
  command -v "$tool" >/dev/null || die "$tool missing: run scripts/install-deps.sh --test"
done
# Nothing from the environment may point at another backbeat or change the package build.
unset PKG_CONFIG_PATH PKG_CONFIG_LIBDIR CMAKE_PREFIX_PATH LD_LIBRARY_PATH DESTDIR MAKEFLAGS \
      CFLAGS CXXFLAGS CPPFLAGS LDFLAGS DEB_BUILD_PROFILES DEB_BUILD_MAINT_OPTIONS
export CMAKE_BUILD_PARALLEL_LEVEL=2

version="$(sed -n 's/^#define BB_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' \
           "$SRC/include/backbeat/version.h" | paste -sd.)"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "cannot read the version from version.h"
major="${version%%.*}"
MA="$(dpkg-architecture -qDEB_HOST_MULTIARCH)"
ARCH="$(dpkg-architecture -qDEB_HOST_ARCH)"
EVENT="consumer::jobs::JobDone"
LIBPKGS="libbackbeat$major libbackbeat-read$major"
PKGS="$LIBPKGS libbackbeat-dev backbeat-cli"

step "debian/ agrees with the tree"
debver="$(dpkg-parsechangelog -l "$SRC/debian/changelog" -S Version)"
[ "${debver%%-*}" = "$version" ] || die "debian/changelog is at $debver, version.h at $version"
[ "$(cat "$SRC/debian/source/format")" = "3.0 (native)" ] || die "debian/source/format is not 3.0 (native)"
grep -qx 'License: Expat' "$SRC/debian/copyright" || die "debian/copyright: no Expat (MIT) license"
for lib in backbeat backbeat-read; do
  sym="$SRC/debian/lib$lib$major.symbols"
  [ -f "$sym" ] || die "no debian/lib$lib$major.symbols"
  grep -qx "lib$lib.so.$major lib$lib$major #MINVER#" "$sym" || die "$sym: not for lib$lib.so.$major"
  sed -n 's/^ \([A-Za-z_][A-Za-z0-9_]*\)@Base .*/\1/p' "$sym" | LC_ALL=C sort >"sym-$lib.deb"
  LC_ALL=C sort "$SRC/tests/abi/lib$lib.symbols" >"sym-$lib.abi"
  diff -u "sym-$lib.abi" "sym-$lib.deb" >"sym-$lib.diff" ||
    { cat "sym-$lib.diff" >&2; die "debian/lib$lib$major.symbols and tests/abi/lib$lib.symbols differ"; }
done

step "copy the source tree to $W/src"
mkdir src
if git -C "$SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  # Tracked and new files; files deleted in the work tree but not yet in git are left out.
  (cd "$SRC" && git ls-files -z --cached --others --exclude-standard |
     while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
     tar --null -T - -cf -) | tar -xf - -C src
else
  (cd "$SRC" && tar --exclude='./build*' --exclude='./obj-*' --exclude=node_modules \
     --exclude=./.git -cf - .) | tar -xf - -C src
fi
[ -x src/debian/rules ] || die "debian/rules missing or not executable in the copy"
(cd src && find . -type f ! -path ./.git/\* | sed 's|^\./||' | LC_ALL=C sort) >files.want
# What a used checkout holds besides its sources: none of it may reach the source package.
for f in out/demo.bb out/demo.parquet out/release/backbeat-x86_64-linux-musl.tar.gz \
         out/release/.work/x86_64-linux-musl/zstd-1.5.4/dl/libzstd_1.5.4.orig.tar.gz \
         build/CMakeCache.txt build/lib/libbackbeat.a build-test/CMakeCache.txt \
         build-test/tests/x.o build-asan/CMakeCache.txt build-static/x86_64-linux-musl/cli/CMakeCache.txt \
         build-mine/CMakeCache.txt tests/js/node_modules/duckdb/index.js .git/HEAD \
         obj-x86_64-linux-gnu/CMakeCache.txt; do
  mkdir -p "src/$(dirname "$f")" && echo junk >"src/$f"
done

step "dpkg-buildpackage -us -uc (source and binary packages)"
t0=$(date +%s)
(cd src && DEB_BUILD_OPTIONS="nocheck parallel=2" run "$W/dpkg-buildpackage.log" nice dpkg-buildpackage -us -uc)
echo "   built in $(( $(date +%s) - t0 )) s"
changes="$W/backbeat_${debver}_$ARCH.changes"
[ -f "$changes" ] || die "no $changes"
for p in $PKGS; do
  [ -f "$W/${p}_${debver}_$ARCH.deb" ] || die "package $p not built"
done

step "the source package holds every source file and nothing else"
[ -f "$W/backbeat_$debver.dsc" ] || die "no backbeat_$debver.dsc"
tarball="$W/backbeat_$debver.tar.xz"
[ -f "$tarball" ] || die "no $tarball"
tar -tJf "$tarball" | grep -v '/$' | sed 's|^[^/]*/||' | LC_ALL=C sort >files.got
diff -u files.want files.got >files.diff ||
  { head -n 40 files.diff >&2; die "source tarball: $(grep -c '^+[^+]' files.diff) file(s) too many, $(grep -c '^-[^-]' files.diff) missing"; }
! tar -tJf "$tarball" | grep -qE '^[^/]*/(out|build[^/]*|obj-[^/]*|\.git)/' ||
  die "source tarball holds a build or output directory"
echo "   $(wc -l <files.got) files, as in the tree"

step "lintian"
t0=$(date +%s)
rc=0
lintian --tag-display-limit 0 "$changes" >lintian.log 2>lintian.err || rc=$?
echo "   lintian in $(( $(date +%s) - t0 )) s (exit $rc)"
grep -v 'running with root privileges' lintian.err >&2 || true
sed 's/^/   lintian: /' lintian.log
for o in "$SRC"/debian/*lintian-overrides "$SRC"/debian/source/lintian-overrides; do
  [ -f "$o" ] && grep -v '^#' "$o" | sed "s|^|   override ($(basename "$o")): |"
done
if grep -q '^[EW]: ' lintian.log; then
  grep '^[EW]: ' lintian.log >&2
  die "lintian reports $(grep -c '^E: ' lintian.log) error(s) and $(grep -c '^W: ' lintian.log) warning(s)"
fi
grep -q " backbeat_$debver.dsc\$" "$changes" || die "$changes does not list the source package"
# Without an error, an exit status other than 0 is lintian's own failure.
[ "$rc" -eq 0 ] || { cat lintian.log >&2; die "lintian failed (exit $rc)"; }

step "package contents and dependencies"
for p in $PKGS; do
  dpkg -c "$W/${p}_${debver}_$ARCH.deb" | awk '{print $6 ($7 ? " " $7 " " $8 : "")}' >"contents-$p"
  grep -qx "./usr/share/doc/$p/copyright" "contents-$p" || die "$p: no usr/share/doc/$p/copyright"
done
has() { grep -qx "$2" "contents-$1" || die "$1 does not hold $2"; }
hasnt() { ! grep -q "$2" "contents-$1" || die "$1 holds $2"; }
field() { dpkg-deb -f "$W/${1}_${debver}_$ARCH.deb" "$2"; }
for lib in backbeat backbeat-read; do
  p="lib$lib$major"
  has "$p" "./usr/lib/$MA/lib$lib.so.$version"
  has "$p" "./usr/lib/$MA/lib$lib.so.$major -> lib$lib.so.$version"
  [ "$(grep -c '\.so' "contents-$p")" -eq 2 ] || die "$p holds other libraries"
  dpkg-deb --ctrl-tarfile "$W/${p}_${debver}_$ARCH.deb" | tar -xOf - ./symbols >"$p.symbols.got" ||
    die "$p has no symbols control file"
  grep -q "^lib$lib.so.$major $p #MINVER#" "$p.symbols.got" || die "$p: symbols file not for lib$lib.so.$major"
  has libbackbeat-dev "./usr/lib/$MA/lib$lib.so -> lib$lib.so.$major"
  has libbackbeat-dev "./usr/lib/$MA/lib$lib.a"
  has libbackbeat-dev "./usr/lib/$MA/pkgconfig/$lib.pc"
  field libbackbeat-dev Depends | grep -q "$p (= $debver)" || die "libbackbeat-dev does not depend on $p (= $debver)"
  [ "$(field "$p" Multi-Arch)" = same ] || die "$p is not Multi-Arch: same"
done
has libbackbeat-dev "./usr/include/backbeat/backbeat.h"
has libbackbeat-dev "./usr/include/backbeat/detail/recorder_inline.h"
(cd "$SRC/include" && find backbeat -name '*.h' | sort) >headers.want
sed -n 's|^\./usr/include/\(backbeat/.*\.h\)$|\1|p' contents-libbackbeat-dev | sort >headers.got
diff -u headers.want headers.got >&2 || die "libbackbeat-dev's headers differ from include/"
for f in backbeatConfig.cmake backbeatConfigVersion.cmake backbeatTargets.cmake; do
  has libbackbeat-dev "./usr/lib/$MA/cmake/backbeat/$f"
done
hasnt libbackbeat-dev "^[^ ]*\\.so\\."
has backbeat-cli "./usr/bin/backbeat"
has backbeat-cli "./usr/share/man/man1/backbeat.1.gz"
hasnt backbeat-cli "^[^ ]*\\.so"
# The CLI's real dependencies (shlibs) are the ones the package table of the user guide's install
# chapter states.
clideps="$(field backbeat-cli Depends | tr ',' '\n' | sed 's/([^)]*)//; s/ //g' | grep -v '^libc6$' | LC_ALL=C sort | paste -sd' ')"
for d in libzstd1 libsnappy1v5 zlib1g; do
  [[ " $clideps " == *" $d "* ]] || die "backbeat-cli does not depend on $d: $clideps"
done
# shellcheck disable=SC2016 # backquotes, literally
readme_row="$(grep '^| `backbeat-cli` |' "$SRC/docs/guide/install.md")" || die "docs/guide/install.md: no backbeat-cli row"
for d in $clideps; do
  [[ "$readme_row" == *"\`$d\`"* ]] || die "docs/guide/install.md's backbeat-cli row does not name its dependency $d"
done
# The documents the manual page and the README name, uncompressed where they say.
for p in backbeat-cli libbackbeat-dev; do
  for f in README.md "$SRC"/docs/*.md; do
    has "$p" "./usr/share/doc/$p/$(basename "$f")"
  done
  for f in "$SRC"/docs/guide/*.md; do
    has "$p" "./usr/share/doc/$p/guide/$(basename "$f")"
  done
done
for f in $(grep -o '[A-Z_]*\.md' "$SRC/docs/man/backbeat.1" | sort -u); do
  has backbeat-cli "./usr/share/doc/backbeat-cli/$f"
done
grep -q '/usr/share/doc/backbeat\\-cli' "$SRC/docs/man/backbeat.1" || die "the manual page does not name /usr/share/doc/backbeat-cli"
grep -q '/usr/share/doc/libbackbeat\\-dev' "$SRC/docs/man/backbeat.1" || die "the manual page does not name /usr/share/doc/libbackbeat-dev"
! field backbeat-cli Depends | grep -q 'libbackbeat' || die "backbeat-cli depends on a shared libbackbeat"
for p in $LIBPKGS; do
  field "$p" Depends | grep -q 'libc6' || die "$p: no libc6 in Depends (shlibs)"
done

step "extract into $W/root (dpkg -x)"
for p in $PKGS; do
  dpkg -x "$W/${p}_${debver}_$ARCH.deb" root
done
R="$W/root/usr"
RL="$R/lib/$MA"
for lib in backbeat backbeat-read; do
  readelf -d "$RL/lib$lib.so.$version" | grep -q "SONAME.*\[lib$lib.so.$major\]" ||
    die "lib$lib.so.$version has not the soname lib$lib.so.$major"
done
readelf -d "$R/bin/backbeat" | grep -q 'NEEDED.*libzstd' || die "the CLI does not load libzstd"
! readelf -d "$R/bin/backbeat" | grep -q 'NEEDED.*libbackbeat\|RPATH\|RUNPATH' ||
  die "the CLI loads a shared libbackbeat or carries a run path"
"$R/bin/backbeat" --version | grep -qx "backbeat $version (dump format 1)" ||
  die "extracted CLI: $("$R/bin/backbeat" --version 2>&1)"

CONSUMER="$SRC/tests/install/consumer"
# check_dump DUMP N COUNT [ENV...]: N records of the event, by the read library and the CLI.
check_dump() {
  local dump="$1" n="$2" count="$3"; shift 3
  [ -s "$dump" ] || die "no dump $dump"
  env "$@" "$count" "$dump" "$EVENT" >count.out 2>&1 || { cat count.out >&2; die "count $dump"; }
  [ "$(cat count.out)" = "$n $n" ] || die "$dump: counted '$(cat count.out)', want '$n $n'"
  run inspect.out "$R/bin/backbeat" inspect "$dump"
  grep -q "$EVENT" inspect.out || die "backbeat inspect $dump does not name $EVENT"
  run convert.log "$R/bin/backbeat" convert "$dump" -o "${dump%.bb}.json"
  [ "$(grep -o "\"name\":\"$EVENT\"" "${dump%.bb}.json" | wc -l)" -eq "$n" ] ||
    die "backbeat convert $dump: not $n $EVENT in the trace"
}
loads_from() { # loads_from BINARY PATH: with LD_LIBRARY_PATH into the root, BINARY loads PATH.
  LD_LIBRARY_PATH="$RL" ldd "$1" >ldd.out 2>&1 || true
  grep -q "=> $2 " ldd.out || { cat ldd.out >&2; die "$1 does not load $2"; }
}

step "consumer through pkg-config (shared and static), against the root"
export PKG_CONFIG_LIBDIR="$RL/pkgconfig" # this root's modules only, not the system's
# The modules say prefix=/usr (plain paths): the extracted root is their sysroot.
grep -qx 'prefix=/usr' "$RL/pkgconfig/backbeat.pc" || die "backbeat.pc: prefix is not /usr"
export PKG_CONFIG_SYSROOT_DIR="$W/root"
for m in backbeat backbeat-read; do
  [ "$(pkg-config --modversion $m)" = "$version" ] || die "pkg-config --modversion $m"
  [ "$(realpath "$(pkg-config --variable=libdir $m)")" = "$RL" ] || die "$m.pc: libdir not in the root"
  [ "$(realpath "$(pkg-config --variable=includedir $m)")" = "$R/include" ] || die "$m.pc: includedir not in the root"
done
d="$W/pc" && mkdir -p "$d"
# shellcheck disable=SC2046
run cc.log cc -std=gnu11 -Wall -Wextra -Werror "$CONSUMER/consumer.c" \
  $(pkg-config --cflags --libs backbeat) -o "$d/consumer"
# shellcheck disable=SC2046
run cc.log cc -std=gnu11 -Wall -Wextra -Werror "$CONSUMER/count.c" \
  $(pkg-config --cflags --libs backbeat-read) -o "$d/count"
loads_from "$d/consumer" "$RL/libbackbeat.so.$major"
loads_from "$d/count" "$RL/libbackbeat-read.so.$major"
LD_LIBRARY_PATH="$RL" run run.log "$d/consumer" "$d/shared.bb" 7
check_dump "$d/shared.bb" 7 "$d/count" LD_LIBRARY_PATH="$RL"
# shellcheck disable=SC2046
run cc.log cc -std=gnu11 -Wall -Wextra -Werror "$CONSUMER/consumer.c" $(pkg-config --cflags backbeat) \
  -Wl,-Bstatic $(pkg-config --static --libs backbeat) -Wl,-Bdynamic -o "$d/consumer_static"
! readelf -d "$d/consumer_static" | grep -q 'NEEDED.*libbackbeat' || die "consumer_static loads a shared libbackbeat"
run run.log "$d/consumer_static" "$d/static.bb" 4
check_dump "$d/static.bb" 4 "$d/count" LD_LIBRARY_PATH="$RL"
unset PKG_CONFIG_LIBDIR

for link in shared static; do
  step "consumer through find_package ($link targets), against the root"
  b="$W/cm-$link"
  run cmake.log cmake -S "$CONSUMER" -B "$b" -DCMAKE_PREFIX_PATH="$R" -DBB_LINK=$link \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  grep -q "^backbeat_DIR:PATH=$RL/cmake/backbeat$" "$b/CMakeCache.txt" ||
    die "find_package found $(grep '^backbeat_DIR' "$b/CMakeCache.txt"), not the root's"
  [ "$(grep -c "^-- backbeat::[a-z_]* $version MIT: include $R/include$" cmake.log)" -eq 4 ] ||
    { cat cmake.log >&2; die "imported targets' include dirs are not the root's"; }
  run cmake-build.log cmake --build "$b"
  if [ $link = shared ]; then
    loads_from "$b/consumer" "$RL/libbackbeat.so.$major"
    loads_from "$b/count" "$RL/libbackbeat-read.so.$major"
  else
    ! readelf -d "$b/consumer" | grep -q 'NEEDED.*libbackbeat' || die "static consumer loads a shared libbackbeat"
  fi
  LD_LIBRARY_PATH="$RL" run run.log "$b/consumer" "$b/jobs.bb" 5
  check_dump "$b/jobs.bb" 5 "$b/count" LD_LIBRARY_PATH="$RL"
done

echo "ok: $PKGS built (lintian: $(grep -c '^W: ' lintian.log || true) warning(s), no error), extracted, consumed"
