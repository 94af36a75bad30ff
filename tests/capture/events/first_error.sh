#!/bin/sh
# first_error.sh — compile-fail check: the compiler must fail and its FIRST error line must name the user's file and line.
#
#   first_error.sh COMPILER FLAGS... -- FILE REGEX
#
# Compiles FILE with COMPILER FLAGS..., requires a non-zero exit, takes the first line of the
# compiler's stderr that contains "error" and requires it to start with "<path>/<basename of
# FILE>:<line>:" where <line> is the line of FILE marked /* EXPECT-ERROR */ (any line of FILE if
# there is no marker), and to match the extended regular expression REGEX.
# SPDX-License-Identifier: MIT
set -u
cc=$1; shift
flags=
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do flags="$flags $1"; shift; done
[ "$#" -eq 3 ] || { echo "usage: first_error.sh COMPILER FLAGS... -- FILE REGEX" >&2; exit 2; }
file=$2; regex=$3
base=$(basename "$file")
line=$(grep -n 'EXPECT-ERROR' "$file" | head -n 1 | cut -d: -f1)
[ -n "$line" ] || line='[0-9]+'
err=$(mktemp) || exit 2
trap 'rm -f "$err"' EXIT
# shellcheck disable=SC2086  # the flags are separate words
if "$cc" $flags "$file" 2>"$err" >/dev/null; then
  echo "FAIL: $base compiled, but must not" >&2; exit 1
fi
first=$(grep -m 1 'error' "$err")
total=$(wc -l <"$err")
echo "first error line ($total lines of stderr): $first"
if ! printf '%s\n' "$first" | grep -Eq "(^|/)$base:$line:"; then
  echo "FAIL: the first error line is not at $base:$line:" >&2; cat "$err" >&2; exit 1
fi
if ! printf '%s\n' "$first" | grep -Eq -- "$regex"; then
  echo "FAIL: the first error line does not match: $regex" >&2; cat "$err" >&2; exit 1
fi
echo "ok: $base:$line: $regex"
