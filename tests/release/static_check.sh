#!/usr/bin/env bash
# static_check.sh TARGET BIN DYNAMIC_CLI WORK — the static CLI has no interpreter and needs no
# shared library, and in an empty root (only the binary, a golden dump, and for aarch64 the
# static qemu) `inspect` and `convert -o x.json` give byte for byte what the dynamic CLI gives.
# Exits 77 (skipped) without golden vectors, or when no empty root can be entered.
# SPDX-License-Identifier: MIT
set -euo pipefail
target=$1 bin=$2 dyn=$3 work=$4
fail() { echo "static_check($target): $*" >&2; exit 1; }
[ -f "$bin" ] || [ ! -f "$(dirname "$bin").skipped" ] ||
  { echo "static_check($target): not built ($(cat "$(dirname "$bin").skipped")); skipped"; exit 77; }

file -b "$bin"
case "$target" in
  x86_64-linux-musl) machine='X86-64' ;;
  aarch64-linux-musl) machine='AArch64' ;;
  *) fail "unknown target" ;;
esac
readelf -hW "$bin" | grep -q "Machine:.*$machine" || fail "not an $machine executable"
file -b "$bin" | grep -q 'statically linked' || fail "file(1) does not call it statically linked"
if readelf -lW "$bin" | grep -q INTERP; then fail "has a PT_INTERP (program interpreter)"; fi
if readelf -lW "$bin" | grep -q DYNAMIC; then fail "has a PT_DYNAMIC segment"; fi
if readelf -dW "$bin" 2>/dev/null | grep -q NEEDED; then fail "has NEEDED entries"; fi
echo "static_check($target): no interpreter, no NEEDED entries"

dump=${BACKBEAT_COMPAT_DIR:-}/basic.bb
[ -f "$dump" ] || { echo "static_check: no golden vectors ($dump); skipped" >&2; exit 77; }

rm -rf "$work"
mkdir -p "$work/root" "$work/dyn"
cp "$bin" "$work/root/backbeat"
cp "$dump" "$work/root/basic.bb"
cp "$dump" "$work/dyn/basic.bb"
run=(/backbeat)
if [ "$target" = aarch64-linux-musl ]; then
  qemu=$(command -v qemu-aarch64-static) || fail "qemu-aarch64-static not found (Debian qemu-user-static)"
  cp "$qemu" "$work/root/qemu-aarch64-static"
  run=(/qemu-aarch64-static /backbeat)
fi
echo "static_check($target): root holds: $(cd "$work/root" && echo *)"

if [ "$(id -u)" = 0 ] && chroot "$work/root" "${run[@]}" --version >/dev/null 2>&1; then
  enter=(chroot "$work/root")
elif unshare --map-root-user --root="$work/root" "${run[@]}" --version >/dev/null 2>&1; then
  enter=(unshare --map-root-user --root="$work/root")
else
  echo "static_check: cannot enter an empty root (neither chroot nor unshare --root); skipped" >&2
  exit 77
fi

(cd "$work/dyn" && "$dyn" inspect basic.bb >inspect.txt && "$dyn" convert basic.bb -o x.json)
"${enter[@]}" "${run[@]}" inspect basic.bb >"$work/inspect.txt"
"${enter[@]}" "${run[@]}" convert basic.bb -o x.json
cmp "$work/dyn/inspect.txt" "$work/inspect.txt" || fail "inspect differs from the dynamic CLI's"
cmp "$work/dyn/x.json" "$work/root/x.json" || fail "convert -o x.json differs from the dynamic CLI's"
echo "static_check($target): inspect ($(wc -c <"$work/inspect.txt") bytes) and x.json" \
  "($(wc -c <"$work/root/x.json") bytes) identical to the dynamic CLI's, run by ${enter[0]}"
