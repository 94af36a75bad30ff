#!/usr/bin/env bash
# install-deps.sh — install what the build (and, with --test, the test suite) needs.
#
# Debian packages come from apt-get when run as root; otherwise the exact command to run is
# printed and the script fails. Test-only readers (DuckDB, hyparquet, the DevTools trace engine)
# come from npm, pinned by tests/js/package-lock.json. Nothing else is downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=0
[ "${1:-}" = "--test" ] && want_test=1

pkgs=(build-essential cmake pkg-config libzstd-dev)
if [ "$want_test" = 1 ]; then
  pkgs+=(clang libclang-rt-dev python3 man-db groff-base debhelper dpkg-dev lintian)
  command -v node >/dev/null 2>&1 || pkgs+=(nodejs)
  command -v npm >/dev/null 2>&1 || pkgs+=(npm)
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
