// skill_check.mjs BACKBEAT WORKDIR — the queries `backbeat skill` teaches run in DuckDB: every
// ```sql block of the guide, with its example names replaced by basic.bb's, executes against
// basic.bb converted to Parquet with its views sidecar loaded, and the span-duration query
// finds basic.bb's two closed spans (7000 and 3000 ns).
// SPDX-License-Identifier: MIT
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const [B, W] = process.argv.slice(2);
const C = process.env.BACKBEAT_COMPAT_DIR || '/work/shared/compat';
if (!fs.existsSync(path.join(C, 'basic.bb'))) { console.log('skipped: no golden vectors'); process.exit(77); }
const modules = process.env.BB_NODE_MODULES || path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'js', 'node_modules');
let duck;
try {
  duck = await import(createRequire(path.join(modules, '..', 'package.json')).resolve('@duckdb/node-api'));
} catch (e) { console.log(`skipped: no DuckDB (${e.message})`); process.exit(77); }
fs.rmSync(W, { recursive: true, force: true });
fs.mkdirSync(W, { recursive: true });
const fails = [];
const out = path.join(W, 'basic.parquet');
let r = spawnSync(B, ['convert', path.join(C, 'basic.bb'), '-o', out], { encoding: 'utf8' });
if (r.status !== 0) { console.error(r.stderr); process.exit(1); }
r = spawnSync(B, ['skill'], { encoding: 'utf8' });
if (r.status !== 0 || !r.stdout.startsWith('# backbeat')) { console.error('skill failed'); process.exit(1); }
const guide = r.stdout;
for (const w of ['## Subcommands', '## The Parquet table', '## Loading it in DuckDB', '## Common queries', 'inspect', 'convert', 'merge', 'views.sql'])
  if (!guide.includes(w)) fails.push(`guide lacks "${w}"`);
const blocks = [...guide.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]);
if (!blocks.length) fails.push('no sql block');
const sql = blocks.join('\n')
  .replaceAll('my_app::net::PacketSent', 'fixture::Scalars')
  .replaceAll('my_app::WorkStart', 'fixture::WorkStart').replaceAll('my_app::WorkEnd', 'fixture::WorkEnd')
  .replaceAll('span_id', 'span');
const db = await duck.DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run(`SET file_search_path = '${path.dirname(path.resolve(out)).replaceAll("'", "''")}'`); // the documented way to load the views
await c.run(fs.readFileSync(`${out}.views.sql`, 'utf8'));
const stmts = sql.split(';').map((s) => s.replace(/--[^\n]*/g, '').trim()).filter(Boolean);
let spans = null;
for (const s of stmts) {
  try {
    const rows = (await c.runAndReadAll(s)).getRowObjectsJS();
    if (s.includes('dur_ns')) spans = rows.map((x) => Number(x.dur_ns));
  } catch (e) { fails.push(`query failed: ${s}\n  ${e.message}`); }
}
if (JSON.stringify(spans) !== JSON.stringify([7000, 3000])) fails.push(`span query gave ${JSON.stringify(spans)}`);
if (fails.length) { fails.forEach((f) => console.error('FAIL: ' + f)); process.exit(1); }
console.log(`ok (${stmts.length} queries)`);
