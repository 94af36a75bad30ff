// crash_view.mjs — a crash dump converted to Parquet (issue 40): its sidecar's `crash` view
// answers in DuckDB with one row: the signal, and the stack symbolized at conversion naming the
// expected functions in order.
//
// Usage: node crash_view.mjs FILE.parquet SIGNAL FUNCTION...   exit 0 ok, 1 wrong, 77 no DuckDB
// SPDX-License-Identifier: MIT
import fs from 'node:fs';
import path from 'node:path';

let duck;
try { duck = await import('@duckdb/node-api'); } catch (e) {
  console.log(`readers not installed (npm ci --prefix tests/js): skipped (${e.message})`);
  process.exit(77);
}
const [file, signal, ...want] = process.argv.slice(2);
const side = `${file}.views.sql`;
const db = await duck.DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run(`SET file_search_path = '${path.dirname(path.resolve(side)).replaceAll("'", "''")}'`);
const ex = await c.extractStatements(fs.readFileSync(side, 'utf8'));
for (let i = 0; i < ex.count; i++) await (await ex.prepare(i)).run();
const rows = (await c.runAndReadAll(
  'SELECT "backbeat::Crash".signal AS signal, "backbeat::Crash".tid AS tid, stack FROM crash'))
  .getRowObjectsJS();
if (rows.length !== 1) { console.log(`FAIL: ${rows.length} rows in crash, expected 1`); process.exit(1); }
const r = rows[0];
console.log(`crash view: signal ${r.signal}, tid ${r.tid}\n${r.stack}`);
if (String(r.signal) !== signal) { console.log(`FAIL: signal ${r.signal}, expected ${signal}`); process.exit(1); }
let at = 0;
const lines = (r.stack || '').split('\n');
for (const w of want) {
  const i = lines.findIndex((l, k) => k >= at && l.split(' ')[1]?.startsWith(`${w}+`));
  if (i < 0) { console.log(`FAIL: ${w} not in order in the stack`); process.exit(1); }
  at = i + 1;
}
console.log('ok crash view');
