// views_check.mjs GEN BACKBEAT WORKDIR — view sets whose last statement lacks its ';' (or ends
// in a comment) still give a views.sql sidecar that DuckDB loads, each view working.
// SPDX-License-Identifier: MIT
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const [GEN, B, W] = process.argv.slice(2);
const modules = process.env.BB_NODE_MODULES ||
  path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'js', 'node_modules');
let duck;
try {
  duck = await import(createRequire(path.join(modules, '..', 'package.json')).resolve('@duckdb/node-api'));
} catch (e) { console.log(`skipped: no DuckDB (${e.message})`); process.exit(77); }
fs.rmSync(W, { recursive: true, force: true });
fs.mkdirSync(W, { recursive: true });
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) { console.error(`${cmd} ${args.join(' ')}: exit ${r.status}\n${r.stderr}`); process.exit(1); }
};
const dump = path.join(W, 'views.bb'), out = path.join(W, 'views.parquet');
run(GEN, [dump]);
run(B, ['convert', dump, '-o', out]);
const db = await duck.DuckDBInstance.create(':memory:');
const c = await db.connect();
let failures = 0;
try {
  await c.run(`SET file_search_path = '${path.dirname(path.resolve(out)).replaceAll("'", "''")}'`); // the documented way to load the views
  await c.run(fs.readFileSync(`${out}.views.sql`, 'utf8'));
} catch (e) { console.error(`sidecar does not load: ${e.message}`); process.exit(1); }
for (const [q, want] of [['SELECT ticks AS v FROM qa_one', 5n], ['SELECT top AS v FROM qa_two', 5n],
                         ['SELECT three AS v FROM qa_three', 3]]) {
  const got = (await c.runAndReadAll(q)).getRowObjects()[0].v;
  if (BigInt(got) !== BigInt(want)) { console.error(`${q}: ${got}, want ${want}`); failures++; }
}
if (failures) process.exit(1);
console.log('views sidecar ok');
