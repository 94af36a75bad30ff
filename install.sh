#!/bin/sh
# install.sh — install the `backbeat` CLI from a release archive.
#
#   curl -fsSL https://github.com/backbeat-dev/backbeat/releases/latest/download/install.sh | sh
#   sh install.sh
#
# Picks the archive for this platform (Linux x86_64 or aarch64: static musl binaries; macOS on
# Apple silicon), downloads it and its .sha256 with curl or wget, refuses it unless the checksum
# matches (and, for a pinned version, unless the archive's VERSION is that version), and installs
# bin/backbeat and its manual page.
#
# Environment:
#   BACKBEAT_VERSION      a release tag, e.g. v0.1.0 (default: the latest release)
#   BACKBEAT_INSTALL_DIR  where the binary goes (default: ~/.local/bin; created if missing)
#   BACKBEAT_MAN_DIR      where the manual page goes (default: share/man/man1 beside the binary's
#                         directory, e.g. ~/.local/share/man/man1)
#   BACKBEAT_BASE_URL     where releases live (default: https://github.com/backbeat-dev/backbeat/releases),
#                         laid out as BASE/latest/download/FILE and BASE/download/TAG/FILE, FILE
#                         being backbeat-TARGET.tar.gz and backbeat-TARGET.tar.gz.sha256
# SPDX-License-Identifier: MIT
set -eu

say() { echo "install.sh: $*" >&2; }
die() { say "error: $*"; exit 1; }

os=$(uname -s)
arch=$(uname -m)
case "$os/$arch" in
  Linux/x86_64 | Linux/amd64) target=x86_64-linux-musl ;;
  Linux/aarch64 | Linux/arm64) target=aarch64-linux-musl ;;
  Darwin/arm64 | Darwin/aarch64) target=aarch64-macos ;;
  *)
    die "no prebuilt backbeat for $os $arch (there are: Linux x86_64, Linux aarch64, macOS arm64);" \
      "build it from source instead (see README.md)"
    ;;
esac

base=${BACKBEAT_BASE_URL:-https://github.com/backbeat-dev/backbeat/releases}
base=${base%/}
version=${BACKBEAT_VERSION:-}
case "$version" in
  "") url=$base/latest/download ;;
  v*) url=$base/download/$version ;;
  *) version=v$version; url=$base/download/$version ;;
esac
dest=${BACKBEAT_INSTALL_DIR:-${HOME:?HOME is not set; set BACKBEAT_INSTALL_DIR}/.local/bin}
parent=${dest%/}
case "$parent" in */*) parent=${parent%/*} ;; *) parent=. ;; esac
mandir=${BACKBEAT_MAN_DIR:-${parent:-}/share/man/man1}
archive=backbeat-$target.tar.gz

if command -v curl >/dev/null 2>&1; then
  fetch() { curl -fsSL --retry 2 -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
  fetch() { wget -q -O "$2" "$1"; }
else
  die "neither curl nor wget found; install one of them"
fi

if command -v sha256sum >/dev/null 2>&1; then
  digest() { sha256sum "$1" | cut -d' ' -f1; }
elif command -v shasum >/dev/null 2>&1; then
  digest() { shasum -a 256 "$1" | cut -d' ' -f1; }
else
  die "neither sha256sum nor shasum found: cannot verify the download"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/backbeat-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

say "downloading $url/$archive"
fetch "$url/$archive" "$tmp/$archive" || die "could not download $url/$archive"
fetch "$url/$archive.sha256" "$tmp/$archive.sha256" ||
  die "could not download $url/$archive.sha256: refusing to install an unverified archive"

expected=$(cut -d' ' -f1 <"$tmp/$archive.sha256")
actual=$(digest "$tmp/$archive")
case "$expected" in
  "" | *[!0-9a-f]*) die "$archive.sha256 holds no SHA-256 digest: refusing to install" ;;
esac
[ "${#expected}" -eq 64 ] || die "$archive.sha256 holds no SHA-256 digest: refusing to install"
[ "$expected" = "$actual" ] ||
  die "checksum mismatch for $archive (expected $expected, got $actual): nothing installed"

mkdir "$tmp/x"
tar -xzf "$tmp/$archive" -C "$tmp/x" || die "could not unpack $archive"
bin=$tmp/x/backbeat-$target/bin/backbeat
[ -f "$bin" ] || die "$archive holds no backbeat-$target/bin/backbeat"
got=$(cat "$tmp/x/backbeat-$target/VERSION" 2>/dev/null || echo unknown)
# A pinned release must be the version it claims: a mirror serving another archive under the
# tag (with a matching checksum) is refused.
if [ -n "$version" ] && [ "v$got" != "$version" ]; then
  die "$archive of release $version holds version $got (VERSION): refusing to install"
fi
man=$tmp/x/backbeat-$target/docs/man/backbeat.1

mkdir -p "$dest" || die "could not create $dest"
cp "$bin" "$dest/.backbeat.new.$$" || die "could not write to $dest"
chmod 755 "$dest/.backbeat.new.$$"
mv -f "$dest/.backbeat.new.$$" "$dest/backbeat" || die "could not install $dest/backbeat"
say "installed backbeat $got ($target) as $dest/backbeat"
if [ -f "$man" ]; then
  if mkdir -p "$mandir" 2>/dev/null && cp "$man" "$mandir/.backbeat.1.new.$$" 2>/dev/null &&
    mv -f "$mandir/.backbeat.1.new.$$" "$mandir/backbeat.1"; then
    say "installed its manual page as $mandir/backbeat.1 (man backbeat; MANPATH may need ${mandir%/man1})"
  else
    rm -f "$mandir/.backbeat.1.new.$$" 2>/dev/null || true
    say "could not write $mandir/backbeat.1 (set BACKBEAT_MAN_DIR); the binary is installed"
  fi
fi

case ":${PATH:-}:" in
  *":$dest:"* | *":$dest/:"*) ;;
  *)
    say "$dest is not on your PATH; add it, e.g. in ~/.profile:"
    say "  export PATH=\"$dest:\$PATH\""
    ;;
esac
