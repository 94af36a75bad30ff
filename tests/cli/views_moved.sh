#!/usr/bin/env bash
# views_moved.sh BACKBEAT SRC WORK — the views file travels with its Parquet file (or dataset):
# OUT.parquet.views.sql and DIR/views.sql name no absolute path, and after the pair (the
# dataset) is copied elsewhere and the original deleted, loading the views the documented way
# (scripts/query.mjs: the file's directory as DuckDB's file_search_path), from another working
# directory, gives the same rows as before; without that setting the moved views do not load.
# Exits 77 (skipped, saying why) without golden vectors or DuckDB's Node package.
# SPDX-License-Identifier: MIT
set -uo pipefail
B="$1" SRC="$(cd "$2" && pwd -P)" W="$3"
C="${BACKBEAT_COMPAT_DIR:-/work/shared/compat}"
[ -f "$C/basic.bb" ] || { echo "skipped: no golden vectors in $C"; exit 77; }
[ -d "$SRC/tests/js/node_modules/@duckdb/node-api" ] ||
  { echo "skipped: no @duckdb/node-api (npm ci --prefix tests/js)"; exit 77; }
rm -rf "$W" && mkdir -p "$W/a" "$W/far/away" "$W/cwd" && W="$(cd "$W" && pwd -P)" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
q() { (cd "$W/cwd" && node "$SRC/scripts/query.mjs" "$@"); }
COUNT='SELECT count(*) AS n FROM events'

"$B" convert "$C/basic.bb" "$C/torn.bb" -o "$W/a/t.parquet" || fail "convert -o"
"$B" convert "$C/basic.bb" --dataset "$W/a/ds" >/dev/null || fail "convert --dataset"
for f in "$W/a/t.parquet.views.sql" "$W/a/ds/views.sql"; do
  ! grep -q "$W" "$f" || fail "$f names an absolute path: $(grep "$W" "$f" | head -1)"
done
one=$(q "$W/a/t.parquet.views.sql" "$COUNT" | tail -n 1)
ds=$(q "$W/a/ds/views.sql" "$COUNT" | tail -n 1)
[ "${one:-0}" -gt 0 ] 2>/dev/null || fail "single file, in place: '$one' rows"
[ "${ds:-0}" -gt 0 ] 2>/dev/null || fail "dataset, in place: '$ds' rows"

# Copy the pair and the dataset elsewhere, delete the originals.
cp "$W/a/t.parquet" "$W/a/t.parquet.views.sql" "$W/far/away/"
cp -a "$W/a/ds" "$W/far/ds-copy"
rm -rf "$W/a"
[ "$(q "$W/far/away/t.parquet.views.sql" "$COUNT" | tail -n 1)" = "$one" ] ||
  fail "single file, moved: not $one rows"
[ "$(q "$W/far/ds-copy/views.sql" "$COUNT" | tail -n 1)" = "$ds" ] || fail "dataset, moved: not $ds rows"
[ "$(cd "$W/far/away" && node "$SRC/scripts/query.mjs" t.parquet.views.sql "$COUNT" | tail -n 1)" = "$one" ] ||
  fail "single file, moved, from its own directory: not $one rows"
# The control: the relative name is what makes it work, the search path what finds it.
(cd "$W/cwd" && node --input-type=module -e "
  import { createRequire } from 'node:module';
  const duck = await import(createRequire('$SRC/tests/js/package.json').resolve('@duckdb/node-api'));
  const c = await (await duck.DuckDBInstance.create(':memory:')).connect();
  const fs = await import('node:fs');
  const ex = await c.extractStatements(fs.readFileSync('$W/far/away/t.parquet.views.sql', 'utf8'));
  try { for (let i = 0; i < ex.count; i++) await (await ex.prepare(i)).run(); await c.run('$COUNT'); }
  catch { process.exit(3); }") 2>/dev/null
[ $? -eq 3 ] || fail "the moved views load from elsewhere without file_search_path: the test proves nothing"
# query.mjs: a usage error, a missing file.
q >/dev/null 2>&1; [ $? -eq 2 ] || fail "query.mjs without arguments: not a usage error"
q "$W/none.sql" 2>"$W/err" >/dev/null
rc=$?
if [ "$rc" -ne 1 ] || ! grep -q "none.sql" "$W/err"; then fail "query.mjs, missing file: exit $rc"; fi

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok: views moved with their Parquet file ($one rows) and dataset ($ds rows) load from elsewhere"
