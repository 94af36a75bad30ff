// sidecar_check.mjs — OUT.parquet.views.sql loads in DuckDB and every view it defines binds
// and answers (the dumps' own view DDL included: every name it mentions exists). Run after
// every CLI conversion of the Node tests (parquet_common.mjs convert) and by the fleet test.
//
// Usage: node sidecar_check.mjs FILE.parquet...   exit 0 ok, 1 a sidecar fails, 77 no DuckDB
//        node sidecar_check.mjs --views FILE.sql... (a dataset's views.sql)
// SPDX-License-Identifier: MIT
import fs from 'node:fs';
import path from 'node:path';

let duck;
try { duck = await import('@duckdb/node-api'); } catch (e) {
  console.log(`readers not installed (npm ci --prefix tests/js): skipped (${e.message})`);
  process.exit(77);
}
let failures = 0;
const args = process.argv.slice(2);
const direct = args[0] === '--views';
for (const out of direct ? args.slice(1) : args) {
  const side = direct ? out : `${out}.views.sql`;
  if (!fs.existsSync(side)) { console.log(`FAIL: ${side} missing`); failures++; continue; }
  const db = await duck.DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    await c.run(`SET file_search_path = '${path.dirname(path.resolve(side)).replaceAll("'", "''")}'`); // the documented way to load the views
    const ex = await c.extractStatements(fs.readFileSync(side, 'utf8'));
    for (let i = 0; i < ex.count; i++) await (await ex.prepare(i)).run();
    const views = (await c.runAndReadAll("SELECT view_name AS v FROM duckdb_views() WHERE NOT internal AND schema_name = 'main'"))
      .getRowObjectsJS().map((r) => r.v);
    if (!views.includes('events')) throw new Error('no view `events`');
    for (const v of views) await c.runAndReadAll(`SELECT count(*) FROM "${v.replaceAll('"', '""')}"`);
  } catch (e) {
    console.log(`FAIL: ${side} does not load in DuckDB: ${e.message}`);
    failures++;
  }
}
process.exit(failures ? 1 : 0);
