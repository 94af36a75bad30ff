#!/usr/bin/env bash
# cli_robust.sh BACKBEAT ROBUST_GEN CLI_GEN WORKDIR — robustness of merge (issue "Reliability"):
# a dump with no Shard section, and one whose reader lists no instance, merge with themselves
# (no qsort of an empty, NULL array: run under UBSan in the sanitizer build); a dump of 65533
# shards without intern entries (65535 sections) merges with itself (no empty Intern section
# is written) and gives the same records.
# SPDX-License-Identifier: MIT
set -u
B="$1"; G="$2"; W="$4"
JS="$(cd "$(dirname "$0")/../js" && pwd)"
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# The sidecar of a Parquet output loads in DuckDB, every view answering (tests/js/
# sidecar_check.mjs; skipped without node or the npm readers).
sidecar() {
  command -v node >/dev/null || return 0
  node "$JS/sidecar_check.mjs" "$@" >sidecar.txt 2>&1
  case $? in 0 | 77) ;; *) fail "sidecar: $(head -c 600 sidecar.txt)" ;; esac
}

"$G" noshards n.bb && "$G" orphan o.bb && "$G" shards s.bb 65533 || { echo "generator failed"; exit 1; }
"$B" merge n.bb n.bb -o mn.bb 2>err.txt || fail "merge of a dump without shards: $(cat err.txt)"
"$B" inspect mn.bb >/dev/null 2>&1 || fail "inspect of that merge"
"$B" merge o.bb o.bb -o mo.bb 2>err.txt || fail "merge of a dump without instances: $(cat err.txt)"
"$B" inspect mo.bb >/dev/null 2>&1 || fail "inspect of that merge"
"$B" merge s.bb s.bb -o ms.bb 2>err.txt || fail "merge of 65533 shards with itself: $(cat err.txt)"
"$B" convert s.bb -o s.trace.json >/dev/null 2>&1 && "$B" convert ms.bb -o ms.trace.json >/dev/null 2>&1 &&
  cmp -s s.trace.json ms.trace.json || fail "65533-shard merge changed the records"

# An output that is one of the inputs (same device and inode) is refused; the input is intact.
cp n.bb in.bb && ln -f in.bb hard.bb
"$B" convert in.bb -o in.bb 2>err.txt && fail "convert in.bb -o in.bb succeeded"
grep -q "it is the input" err.txt || fail "convert onto its input: $(cat err.txt)"
"$B" merge n.bb in.bb -o ./hard.bb 2>err.txt && fail "merge onto an input succeeded"
cmp -s in.bb n.bb || fail "the input was replaced"

# Replacing keeps the file's mode; -o on a symlink writes through it (the link stays).
rm -f t.json l.json && : >t.json && chmod 640 t.json && ln -s t.json l.json
"$B" convert n.bb -o l.json >/dev/null 2>&1 || fail "convert through a symlink"
[ -L l.json ] || fail "the symlink was replaced"
[ -s t.json ] || fail "the symlink's target was not written"
[ "$(stat -c %a t.json)" = 640 ] || fail "mode not kept: $(stat -c %a t.json)"
# A dangling symlink (relative, through a second link): its target is created, the links stay.
rm -rf dl && mkdir dl && ln -s sub/new.json dl/a.json && ln -s a.json dl/b.json && mkdir dl/sub
"$B" convert n.bb -o dl/b.json >/dev/null 2>&1 || fail "convert through a dangling symlink"
[ -L dl/a.json ] && [ -L dl/b.json ] || fail "a dangling symlink was replaced"
[ -s dl/sub/new.json ] || fail "the dangling symlink's target was not created"

# The Parquet sidecar OUT.views.sql is an output too: naming an input that way is refused.
cp n.bb side.parquet.views.sql
"$B" convert side.parquet.views.sql -o side.parquet 2>err.txt && fail "sidecar onto an input succeeded"
grep -q "it is the input" err.txt || fail "sidecar onto its input: $(cat err.txt)"
cmp -s side.parquet.views.sql n.bb || fail "the input was replaced by a sidecar"
[ ! -e side.parquet ] || fail "a Parquet file was written without its sidecar"

# SIGHUP with an inherited ignore (nohup): the conversion completes. (Sent 50 ms in; a
# conversion that is done by then passes trivially.)
"$3" bench big.bb 1000000 >/dev/null || fail "cli_gen bench"
bash -c 'trap "" HUP; exec "$0" convert big.bb -o big.parquet' "$B" >/dev/null 2>&1 &
pid=$!
sleep 0.05; kill -HUP "$pid" 2>/dev/null
wait "$pid" || fail "convert under an ignored SIGHUP exited $?"
[ -s big.parquet ] || fail "no output after SIGHUP"
sidecar big.parquet
echo "cli_robust: $fails failures"
[ "$fails" = 0 ]
