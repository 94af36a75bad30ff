#!/usr/bin/env bash
# cli_drift.sh SRC BACKBEAT WORK — the CLI's documentation does not drift from the CLI: every
# option of tests/qa/cli_options.txt appears in `backbeat CMD --help`, the manual page, the
# user guide's "The CLI" section (docs/guide/reference.md) and `backbeat skill`, and every option a `--help` shows is listed
# there. Each missing name is reported with the place that lacks it.
# SPDX-License-Identifier: MIT
set -uo pipefail
SRC="$1" B="$2" W="$3"
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
command -v man >/dev/null && command -v col >/dev/null || { echo "skipped: man or col missing (install-deps.sh --test)"; exit 77; }
MANWIDTH=250 man -E ascii -l "$SRC/docs/man/backbeat.1" 2>/dev/null | col -b >man.txt
[ -s man.txt ] || fail "the manual page does not render"
sed -n '/^## The CLI$/,/^## /p' "$SRC/docs/guide/reference.md" >readme.txt
[ -s readme.txt ] || fail "docs/guide/reference.md has no '## The CLI' section"
"$B" skill >skill.txt || fail "backbeat skill exited $?"
has() { grep -qE -- "(^|[^a-zA-Z0-9-])$2([^a-zA-Z0-9-]|\$)" "$1"; }
listed=""
while read -r cmd names; do
  case "$cmd" in ''|'#'*) continue ;; esac
  "$B" "$cmd" --help >"help-$cmd.txt" 2>&1 || fail "backbeat $cmd --help exited $?"
  for n in $names; do
    listed="$listed $cmd:$n"
    has "help-$cmd.txt" "$n" || fail "backbeat $cmd --help does not show $n"
    has man.txt "$n" || fail "the manual page does not document $cmd $n"
    has readme.txt "$n" || fail "docs/guide/reference.md's CLI section does not name $cmd $n"
    has skill.txt "$n" || fail "backbeat skill does not name $cmd $n"
  done
done <"$SRC/tests/qa/cli_options.txt"
# The other way: every option a subcommand's --help shows is in the list.
cmds="$("$B" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p')"
[ -n "$cmds" ] || fail "no commands in backbeat --help"
for cmd in $cmds; do
  "$B" "$cmd" --help >"help-$cmd.txt" 2>&1
  for o in $(grep -oE -- '(^|[ ,[])--?[a-zA-Z][a-z-]*' "help-$cmd.txt" | grep -oE -- '--?[a-zA-Z][a-z-]*' | sort -u); do
    case "$o" in -h | --help | -cmd | -c) continue ;; esac # -cmd, -c: duckdb's, quoted
    [[ " $listed " == *" $cmd:$o "* ]] || fail "backbeat $cmd --help shows $o, not in tests/qa/cli_options.txt"
  done
done
# The commands the docs show: every `backbeat SUB ...` line of a ```sh block in the README and
# the user guide names a subcommand and only options its --help shows (so a renamed or removed
# option cannot live on in an example).
ncmd=0
while IFS=$'\t' read -r where line; do
  ncmd=$((ncmd + 1))
  sub="$(sed -E 's/^([A-Z_]+=[^ ]* +)*backbeat +([a-z]+).*/\2/' <<<"$line")"
  [[ " $(echo $cmds) " == *" $sub "* ]] || { fail "$where: '$line': no subcommand '$sub'"; continue; }
  args="$(sed -E 's/#.*//; s/\|.*//' <<<"$line")"
  for o in $(grep -oE -- '(^| )--?[a-zA-Z][a-z-]*' <<<"$args" | tr -d ' ' | sort -u); do
    has "help-$sub.txt" "$o" || fail "$where: '$line': backbeat $sub --help shows no $o"
  done
done < <(for f in "$SRC/README.md" "$SRC"/docs/guide/*.md; do
  awk -v f="${f#"$SRC"/}" '/^```sh/ {p = 1; next} /^```/ {p = 0} p && /^([A-Z_]+=[^ ]+ +)*backbeat [a-z]/ {print f ":" NR "\t" $0}' "$f"
done)
[ "$ncmd" -gt 0 ] || fail "no backbeat command found in the README's and the guide's sh blocks"
[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok: $(echo "$listed" | wc -w) option names in --help, the manual page, the guide's reference and skill; $ncmd commands of the docs' examples"
