#!/usr/bin/env bash
# package_check.sh SRC BINDIR DIST — package the fixture's static binaries twice
# (scripts/release.sh --package) into DIST/a and DIST/b: the archives and checksums must be
# byte-identical, the checksums must verify, and each archive must hold exactly the layout
# the installer and users expect. DIST/a is what install_sh_test.sh serves.
# SPDX-License-Identifier: MIT
set -euo pipefail
src=$1 bindir=$2 dist=$3
fail() { echo "package_check: $*" >&2; exit 1; }
rm -rf "$dist"
targets=()
for t in x86_64-linux-musl aarch64-linux-musl; do
  if [ -f "$bindir/$t.skipped" ]; then
    echo "package_check: $t not packaged: not built ($(cat "$bindir/$t.skipped"))"
  else
    targets+=("$t")
  fi
done
if [ "${#targets[@]}" -eq 0 ]; then
  mkdir -p "$dist/a" && echo "no target built" >"$dist/a/skipped"
  echo "package_check: no target built; skipped"; exit 77
fi
for d in a b; do
  for t in "${targets[@]}"; do
    "$src/scripts/release.sh" --package "$t" "$bindir/$t/backbeat" "$dist/$d"
  done
  sleep 1 # a second packaging, a second later, must not differ
done
version=$(grep -E '^#define BB_VERSION_(MAJOR|MINOR|PATCH) ' "$src/include/backbeat/version.h" |
  awk '{print $3}' | paste -sd. -)
for t in "${targets[@]}"; do
  a=backbeat-$t.tar.gz
  cmp "$dist/a/$a" "$dist/b/$a" || fail "$a differs between two packagings"
  cmp "$dist/a/$a.sha256" "$dist/b/$a.sha256" || fail "$a.sha256 differs"
  (cd "$dist/a" && sha256sum -c "$a.sha256") || fail "$a.sha256 does not verify"
  grep -Eq "^[0-9a-f]{64}  $a\$" "$dist/a/$a.sha256" || fail "$a.sha256 is not in sha256sum format"
  gzip -l "$dist/a/$a" >/dev/null || fail "$a is not gzip"
  listing=$(tar -tzf "$dist/a/$a")
  for f in bin/backbeat VERSION README.md docs/ARCHITECTURE.md docs/FORMAT.md docs/guide/README.md docs/guide/instrument.md docs/man/backbeat.1; do
    grep -qx "backbeat-$t/$f" <<<"$listing" || fail "$a lacks backbeat-$t/$f"
  done
  if [ -f "$src/LICENSE" ]; then
    grep -qx "backbeat-$t/LICENSE" <<<"$listing" || fail "$a lacks LICENSE"
  fi
  if grep -v "^backbeat-$t/" <<<"$listing"; then fail "$a has entries outside backbeat-$t/"; fi
  owners=$(tar -tvzf "$dist/a/$a" | awk '{print $2}' | sort -u)
  [ "$owners" = "0/0" ] || fail "$a: owners $owners, not 0/0"
  [ "$(tar -xOzf "$dist/a/$a" "backbeat-$t/VERSION")" = "$version" ] || fail "$a: VERSION is not $version"
  tar -xOzf "$dist/a/$a" "backbeat-$t/bin/backbeat" | cmp - "$bindir/$t/backbeat" ||
    fail "$a: bin/backbeat is not the built binary"
  echo "package_check: $(cat "$dist/a/$a.sha256") ($(wc -c <"$dist/a/$a") bytes)"
done
cmp -s "$src/install.sh" "$dist/a/install.sh" || fail "install.sh is not in the release output ($dist/a)"
