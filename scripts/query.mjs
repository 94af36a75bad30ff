#!/usr/bin/env node
// query.mjs VIEWS.sql [SQL] — query a converted dump without the `duckdb` command-line tool:
// DuckDB's Node package (@duckdb/node-api) loads the views file the documented way (its
// directory as DuckDB's file_search_path, so the Parquet file or dataset beside it is found
// wherever the pair was moved), runs SQL (default: the row count of every event type) and
// prints the result tab-separated, a header line first.
// The package comes from `npm ci --prefix tests/js` (what `make test` installs) or any
// node_modules on Node's search path (`npm install @duckdb/node-api`).
// Exit status: 0 success, 1 failure (the message names the file or the query), 2 usage error.
// SPDX-License-Identifier: MIT
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const [views, sql = 'SELECT event, count(*) AS n FROM events GROUP BY ALL ORDER BY event'] = process.argv.slice(2);
if (!views || process.argv.length > 4 || views.startsWith('-')) {
  console.error('usage: node scripts/query.mjs VIEWS.sql [SQL]');
  process.exit(2);
}
let duck;
try {
  duck = await import('@duckdb/node-api');
} catch {
  const here = path.dirname(new URL(import.meta.url).pathname);
  try {
    const req = createRequire(path.join(here, '..', 'tests', 'js', 'package.json'));
    duck = await import(req.resolve('@duckdb/node-api'));
  } catch (e) {
    console.error(`query.mjs: @duckdb/node-api not found (npm ci --prefix tests/js): ${e.message}`);
    process.exit(1);
  }
}
let text;
try { text = fs.readFileSync(views, 'utf8'); } catch (e) {
  console.error(`query.mjs: ${views}: ${e.message}`);
  process.exit(1);
}
const db = await duck.DuckDBInstance.create(':memory:');
const c = await db.connect();
const dir = path.dirname(path.resolve(views)).replaceAll("'", "''");
try {
  await c.run(`SET file_search_path = '${dir}'`);
  const ex = await c.extractStatements(text);
  for (let i = 0; i < ex.count; i++) await (await ex.prepare(i)).run();
} catch (e) {
  console.error(`query.mjs: ${views}: the views do not load: ${e.message}`);
  process.exit(1);
}
try {
  const r = await c.runAndReadAll(sql);
  const cell = (v) => (v === null ? 'NULL' : typeof v === 'object' ? JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? String(x) : x)) : String(v));
  console.log(r.columnNames().join('\t'));
  for (const row of r.getRowsJS()) console.log(row.map(cell).join('\t'));
} catch (e) {
  console.error(`query.mjs: ${sql}: ${e.message}`);
  process.exit(1);
}
