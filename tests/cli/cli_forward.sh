#!/usr/bin/env bash
# cli_forward.sh BACKBEAT CLI_GEN FORWARD_PATCH WORKDIR — forward compatibility (FORMAT.md): a
# dump from a newer writer, with a section kind this reader does not know, an unknown span phase
# or an unknown field role, is read, and the unknown part ignored as FORMAT.md says: the kind
# skipped, the phase and the role read as "none". So `inspect --json`, `convert` to Parquet
# (with its OUT.views.sql) and to a trace, and `merge` (with and without --no-dedup, then
# converted) give exactly what they give for the same dump without the section, or with phase
# or role 0 written instead; and that 0 does change the output (the patch reached something).
# merge drops an unknown section when it re-packs, and carries it verbatim with --no-dedup. A
# presence byte other than 0 or 1 reads as present.
# SPDX-License-Identifier: MIT
set -u
B="$1"; G="$2"; P="$3"; W="$4"
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
command -v python3 >/dev/null || { echo "python3 absent: skipped"; exit 77; }

"$G" spans1 base.bb >/dev/null || { echo "cli_gen failed"; exit 1; }

# inspect --json without what names or frames the file (path, size, section table).
inspect_core() {
  "$B" inspect --json "$1" 2>"$1.err" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for k in ("file", "size", "section_count", "sections"): d.pop(k, None)
print(json.dumps(d, sort_keys=True))' >"$1.inspect" || return 1
}

# Every output of dump $1 into directory $1.out/ (same names whatever the dump, so the
# sidecar's path line differs only by the directory, which is cut).
outputs() {
  local d="$1.out" f
  rm -rf "$d" && mkdir -p "$d" || return 1
  inspect_core "$1" || { echo "inspect"; return 1; }
  cp "$1.inspect" "$d/inspect.json"
  "$B" convert "$1" -o "$d/t.json" 2>"$d/err" || { echo "convert trace: $(cat "$d/err")"; return 1; }
  "$B" convert "$1" -o "$d/t.parquet" 2>"$d/err" || { echo "convert parquet: $(cat "$d/err")"; return 1; }
  sed -i '2d' "$d/t.parquet.views.sql"
  for m in dedup no-dedup; do
    local opt=""; [ "$m" = no-dedup ] && opt=--no-dedup
    "$B" merge "$1" -o "$d/m.bb" $opt 2>"$d/err" || { echo "merge $m: $(cat "$d/err")"; return 1; }
    "$B" convert "$d/m.bb" -o "$d/m-$m.json" 2>"$d/err" || { echo "convert of merge $m"; return 1; }
    inspect_core "$d/m.bb" || { echo "inspect of merge $m"; return 1; }
    mv "$d/m.bb.inspect" "$d/m-$m.inspect"
    rm -f "$d/m.bb" "$d/m.bb.err"
  done
  rm -f "$d/err"
}

# Outputs of $1 and $2 must be identical file by file.
same() {
  local f
  for f in "$1.out"/*; do
    cmp -s "$f" "$2.out/$(basename "$f")" || { fail "$3: $(basename "$f") differs"; }
  done
}

m="$(outputs base.bb)" || fail "the unpatched dump: $m"

# Unknown section kinds: skipped, so every output is the unpatched dump's. Kind 5 is backbeat's
# Process section (docs/PROCESS_SECTION.md): a body that is not one (this text) is skipped too.
for k in 5 99 65535; do
  "$P" kind base.bb kind$k.bb "$k" >/dev/null || fail "patch kind $k"
  "$B" inspect --json kind$k.bb | grep -q "\"kind\":$k," || fail "inspect does not list section kind $k"
  m="$(outputs kind$k.bb)" || fail "section kind $k: $m"
  same base.bb kind$k.bb "section kind $k"
  # merge re-packs what it understood (the unknown section is dropped); --no-dedup splices the
  # sections verbatim (it is carried over).
  "$B" merge kind$k.bb -o mk.bb && "$B" inspect --json mk.bb | grep -q '"kind_name":"unknown"' &&
    fail "merge carried section kind $k over"
  "$B" merge kind$k.bb --no-dedup -o mk.bb && "$B" inspect --json mk.bb | grep -q "\"kind\":$k," ||
    fail "merge --no-dedup dropped section kind $k"
  rm -f mk.bb
done

# Unknown phases and roles: read as none, so every output is that of the dump with 0 written.
for what in phase role; do
  "$P" $what base.bb ${what}0.bb 0 >/dev/null || fail "patch $what 0"
  m="$(outputs ${what}0.bb)" || fail "$what 0: $m"
  cmp -s base.bb.out/t.json ${what}0.bb.out/t.json && fail "$what 0 did not change the trace"
  cmp -s base.bb.out/inspect.json ${what}0.bb.out/inspect.json && fail "$what 0 did not change inspect"
  for v in 4 200 255; do
    [ $what = phase ] && [ $v = 4 ] && v=3
    "$P" $what base.bb $what$v.bb $v >/dev/null || fail "patch $what $v"
    m="$(outputs $what$v.bb)" || fail "$what $v: $m"
    same ${what}0.bb $what$v.bb "$what $v"
  done
done
# Presence bytes other than 1 (FORMAT.md: "anything else = present"): the outputs of the
# dump as written.
for v in 2 255; do
  "$P" presence base.bb presence$v.bb $v >/dev/null || fail "patch presence $v"
  m="$(outputs presence$v.bb)" || fail "presence $v: $m"
  same base.bb presence$v.bb "presence byte $v"
done
echo "cli_forward: $fails failures"
[ "$fails" = 0 ]
