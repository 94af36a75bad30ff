#!/usr/bin/env bash
# install_sh_test.sh SRC DIST WORK — install.sh end to end against a loopback HTTP server
# (python3 -m http.server on 127.0.0.1, a free port) serving the archives in DIST laid out like
# GitHub releases: latest/download/ and download/v0.1.0/, plus broken releases. Each case runs
# `sh install.sh` (dash on Debian) and checks the exit code, the message and what got installed.
# SPDX-License-Identifier: MIT
set -euo pipefail
src=$1 dist=$2 work=$3
[ ! -f "$dist/skipped" ] || { echo "install_sh_test: no release archive ($(cat "$dist/skipped")); skipped"; exit 77; }
installer=$src/install.sh
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd -P)
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1

case "$(uname -m)" in
  x86_64) target=x86_64-linux-musl ;;
  aarch64) target=aarch64-linux-musl ;;
  *) echo "install_sh_test: no release target for this machine; skipped" >&2; exit 77 ;;
esac
archive=backbeat-$target.tar.gz
[ -f "$dist/$archive" ] || { echo "install_sh_test: $dist/$archive missing" >&2; exit 1; }

www=$work/www
mkdir -p "$www/latest/download" "$www/download/v0.1.0" "$www/download/v0.0.1-corrupt" \
  "$www/download/v0.0.2-nosum" "$www/download/v0.0.9"
[ -f "$dist/install.sh" ] || { echo "install_sh_test: $dist/install.sh missing (release.sh copies it)" >&2; exit 1; }
cp "$dist"/*.tar.gz "$dist"/*.sha256 "$dist/install.sh" "$www/latest/download/"
# A mirror serving this archive (genuine checksum) under another tag: its VERSION is not 0.0.9.
cp "$dist/$archive" "$dist/$archive.sha256" "$www/download/v0.0.9/"
cp "$dist"/*.tar.gz "$dist"/*.sha256 "$www/download/v0.1.0/"
# A corrupted archive: one byte changed in the middle, the genuine checksum.
cp "$dist/$archive" "$dist/$archive.sha256" "$www/download/v0.0.1-corrupt/"
f=$www/download/v0.0.1-corrupt/$archive
size=$(wc -c <"$f")
printf '\x5a' | dd of="$f" bs=1 seek=$((size / 2)) conv=notrunc status=none
cp "$dist/$archive" "$www/download/v0.0.2-nosum/"

# The files exist before the server starts: the loop below may read before the child opens them.
: >"$work/server.out"
: >"$work/server.log"
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$www" >>"$work/server.out" 2>>"$work/server.log" &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
port=
for _ in $(seq 100); do
  port=$(sed -n 's/.* port \([0-9][0-9]*\).*/\1/p' "$work/server.out")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "install_sh_test: the HTTP server did not start" >&2; cat "$work/server.log" >&2; exit 1; }
base=http://127.0.0.1:$port
echo "install_sh_test: serving $www on $base"

failures=0
report=()
# run NAME EXPECTED_EXIT [VAR=VALUE...] : sh install.sh with a clean environment plus the variables.
run() {
  local name=$1 want=$2 rc=0
  shift 2
  env -i HOME="$work/home-$name" PATH="$PATH" BACKBEAT_BASE_URL="$base" "$@" \
    sh "$installer" >"$work/$name.out" 2>&1 || rc=$?
  local ok=ok
  if [ "$want" = nonzero ]; then [ "$rc" -ne 0 ] || ok=FAIL; else [ "$rc" -eq "$want" ] || ok=FAIL; fi
  report+=("$(printf '%-22s exit %-3s %s' "$name" "$rc" "$ok")")
  [ "$ok" = ok ] || { failures=$((failures + 1)); echo "--- $name (exit $rc, expected $want):"; cat "$work/$name.out"; }
  return 0
}
check() { # NAME CONDITION-DESCRIPTION COMMAND...
  local name=$1 what=$2
  shift 2
  if "$@"; then :; else
    failures=$((failures + 1))
    report+=("$(printf '%-22s      FAIL: %s' "$name" "$what")")
    echo "--- $name: $what failed; output:"; cat "$work/$name.out"
  fi
}
installed_ok() { # DIR: the archive's binary, executable
  [ -x "$1/backbeat" ] && tar -xOzf "$dist/$archive" "backbeat-$target/bin/backbeat" | cmp -s - "$1/backbeat"
}
said() { grep -q -- "$2" "$work/$1.out"; }
not_said() { ! said "$@"; }
absent() { [ ! -e "$1" ]; }
fake_uname() { # DIR OS MACHINE
  mkdir -p "$1"
  # shellcheck disable=SC2016 # $1 belongs to the fake uname
  printf '#!/bin/sh\ncase "$1" in -m) echo %s ;; *) echo %s ;; esac\n' "$3" "$2" >"$1/uname"
  chmod +x "$1/uname"
}
requested() { grep -q "GET $1 " "$work/server.log"; }

# 1. Latest release, default directory ~/.local/bin (does not exist yet), not on PATH: hint.
run latest 0
check latest "installed into ~/.local/bin" installed_ok "$work/home-latest/.local/bin"
check latest "PATH hint" said latest "export PATH=\"$work/home-latest/.local/bin:\$PATH\""
check latest "latest/download URL" requested "/latest/download/$archive"
check latest "checksum fetched" requested "/latest/download/$archive.sha256"
"$work/home-latest/.local/bin/backbeat" --version >"$work/version.txt"
check latest "installed binary runs" grep -q "^backbeat $(tar -xOzf "$dist/$archive" "backbeat-$target/VERSION") " "$work/version.txt"
check latest "man page in ~/.local/share/man/man1" cmp -s "$src/docs/man/backbeat.1" "$work/home-latest/.local/share/man/man1/backbeat.1"

# 2. A pinned version, an install directory several levels deep that does not exist, on PATH.
dir=$work/opt/deep/bin
run pinned 0 BACKBEAT_VERSION=v0.1.0 BACKBEAT_INSTALL_DIR="$dir" PATH="$dir:$PATH"
check pinned "installed into BACKBEAT_INSTALL_DIR" installed_ok "$dir"
check pinned "download/v0.1.0 URL" requested "/download/v0.1.0/$archive"
check pinned "no PATH hint when on PATH" not_said pinned "not on your PATH"
check pinned "man page beside the install dir" cmp -s "$src/docs/man/backbeat.1" "$work/opt/deep/share/man/man1/backbeat.1"

# 3. Pinned without the leading v.
run pinned-no-v 0 BACKBEAT_VERSION=0.1.0 BACKBEAT_INSTALL_DIR="$work/nov"
check pinned-no-v "installed" installed_ok "$work/nov"

# 4. A corrupted archive: refused, nothing installed.
run corrupt nonzero BACKBEAT_VERSION=v0.0.1-corrupt BACKBEAT_INSTALL_DIR="$work/corrupt/bin"
check corrupt "says checksum mismatch" said corrupt "checksum mismatch"
check corrupt "nothing installed" absent "$work/corrupt"

# 5. No checksum file: refused, nothing installed.
run no-checksum nonzero BACKBEAT_VERSION=v0.0.2-nosum BACKBEAT_INSTALL_DIR="$work/nosum/bin"
check no-checksum "says unverified" said no-checksum "refusing to install an unverified archive"
check no-checksum "nothing installed" absent "$work/nosum"

# 6. A release that does not exist.
run no-release nonzero BACKBEAT_VERSION=v9.9.9 BACKBEAT_INSTALL_DIR="$work/none/bin"
check no-release "says could not download" said no-release "could not download"
check no-release "nothing installed" absent "$work/none"

# 7. An unknown platform (a fake uname first on PATH): a clear error, nothing downloaded.
fake=$work/fake-riscv
fake_uname "$fake" Linux riscv64
run unknown-platform nonzero PATH="$fake:$PATH" BACKBEAT_INSTALL_DIR="$work/riscv/bin"
check unknown-platform "names the platform" said unknown-platform "no prebuilt backbeat for Linux riscv64"
check unknown-platform "nothing installed" absent "$work/riscv"

# 8. macOS on Apple silicon asks for backbeat-aarch64-macos (not served here: download error).
fake=$work/fake-darwin
fake_uname "$fake" Darwin arm64
run darwin-arm64 nonzero PATH="$fake:$PATH" BACKBEAT_INSTALL_DIR="$work/mac/bin"
check darwin-arm64 "asks for the macOS archive" requested "/latest/download/backbeat-aarch64-macos.tar.gz"

# 9. Only wget and shasum (no curl, no sha256sum): a PATH holding just what the installer uses.
if command -v wget >/dev/null && command -v shasum >/dev/null; then
  min=$work/minimal-bin
  mkdir -p "$min"
  for t in sh uname mktemp rm cut cat tar gzip mkdir cp chmod mv wget shasum perl; do
    ln -s "$(command -v "$t")" "$min/$t"
  done
  run wget-shasum 0 PATH="$min" BACKBEAT_INSTALL_DIR="$work/wget/bin"
  check wget-shasum "installed" installed_ok "$work/wget/bin"
  run wget-corrupt nonzero PATH="$min" BACKBEAT_VERSION=v0.0.1-corrupt BACKBEAT_INSTALL_DIR="$work/wgetc/bin"
  check wget-corrupt "says checksum mismatch" said wget-corrupt "checksum mismatch"
  check wget-corrupt "nothing installed" absent "$work/wgetc"
else
  report+=("wget-shasum            skipped (wget or shasum missing)")
fi

# 10a. A pinned tag whose archive holds another VERSION: refused, nothing installed.
run wrong-version nonzero BACKBEAT_VERSION=v0.0.9 BACKBEAT_INSTALL_DIR="$work/wrongv/bin"
check wrong-version "says which version it holds" said wrong-version "release v0.0.9 holds version"
check wrong-version "nothing installed" absent "$work/wrongv"

# 10b. The README's command, literally: the installer from the release, piped to sh.
rc=0
env -i HOME="$work/home-pipe" PATH="$PATH" BACKBEAT_BASE_URL="$base" \
  sh -c "curl -fsSL $base/latest/download/install.sh | sh" >"$work/pipe.out" 2>&1 || rc=$?
report+=("$(printf '%-22s exit %-3s' "curl-pipe-sh" "$rc")")
check pipe "curl | sh exits 0" [ "$rc" -eq 0 ]
check pipe "curl | sh installed the binary" installed_ok "$work/home-pipe/.local/bin"
check pipe "curl | sh installed the man page" [ -f "$work/home-pipe/.local/share/man/man1/backbeat.1" ]

# 10. Reinstalling over an existing binary replaces it.
run reinstall 0 BACKBEAT_INSTALL_DIR="$dir"
check reinstall "installed" installed_ok "$dir"

printf '%s\n' "${report[@]}"
[ "$failures" -eq 0 ] || { echo "install_sh_test: $failures failure(s)" >&2; exit 1; }
echo "install_sh_test: all cases passed"
