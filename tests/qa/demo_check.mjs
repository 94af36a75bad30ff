// demo_check.mjs DEMO BACKBEAT WORKDIR — the README's demo end to end, as a user runs it:
// two runs of the demo (two processes, so two instances whose span ids coincide), converted
// one by one and together; the demo's own views (demo_requests, demo_misses_per_worker) loaded
// from the views.sql sidecar in DuckDB return one row per request, per instance, with sane
// durations; the trace opens in the DevTools trace engine with every cache lookup nested in
// the request it serves (when both are on one shard's lane).
// SPDX-License-Identifier: MIT
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const [DEMO, B, W] = process.argv.slice(2);
const modules = process.env.BB_NODE_MODULES ||
  path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'js', 'node_modules');
let duck;
try {
  duck = await import(createRequire(path.join(modules, '..', 'package.json')).resolve('@duckdb/node-api'));
} catch (e) { console.log(`skipped: no DuckDB (${e.message})`); process.exit(77); }
const { checkEngine, Failures, floatEndClash } = await import('../js/trace_lib.mjs');
fs.rmSync(W, { recursive: true, force: true });
fs.mkdirSync(W, { recursive: true });
const F = new Failures();
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) { console.error(`${cmd} ${args.join(' ')}: exit ${r.status}\n${r.stderr}`); process.exit(1); }
  return r;
};
const p = (n) => path.join(W, n);
run(DEMO, [p('a.bb')]);
run(DEMO, [p('b.bb')]);
run(B, ['convert', p('a.bb'), '-o', p('a.parquet')]);
run(B, ['convert', p('a.bb'), p('b.bb'), '-o', p('ab.parquet')]);
run(B, ['convert', p('a.bb'), '-o', p('a.json')]);

async function views(parquet, instances) {
  const db = await duck.DuckDBInstance.create(':memory:');
  const c = await db.connect();
  await c.run(`SET file_search_path = '${path.dirname(path.resolve(parquet)).replaceAll("'", "''")}'`); // the documented way to load the views
  await c.run(fs.readFileSync(`${parquet}.views.sql`, 'utf8'));
  const one = async (q) => {
    try { return (await c.runAndReadAll(q)).getRowObjectsJS()[0]; } catch (e) { F.add(`${parquet}: ${q}: ${e.message}`); return {}; }
  };
  const label = path.basename(parquet);
  const begins = Number((await one('SELECT count(*) AS n FROM "demo::kv::RequestBegin"')).n);
  F.check(begins === 10000 * instances, `${label}: ${begins} RequestBegin rows, want ${10000 * instances}`);
  const r = await one('SELECT count(*) AS n, min(duration_ns) AS lo, max(duration_ns) AS hi, ' +
                      'count(status) AS st FROM demo_requests');
  F.check(Number(r.n) === begins, `${label}: demo_requests has ${r.n} rows for ${begins} requests`);
  F.check(Number(r.st) === begins, `${label}: demo_requests: ${r.st} statuses`);
  F.check(r.hi !== undefined && Number(r.hi) < 1e9, `${label}: demo_requests max duration ${r.hi} ns`);
  const m = await one('SELECT (SELECT sum(misses) FROM demo_misses_per_worker) AS s, ' +
                      '(SELECT count(*) FROM demo_misses_per_worker) AS w, ' +
                      '(SELECT count(*) FROM "demo::cache::Miss") AS n');
  F.check(Number(m.s) === Number(m.n) && Number(m.n) > 0, `${label}: misses per worker sum to ${m.s}, ${m.n} Miss rows`);
  F.check(Number(m.w) === 4, `${label}: ${m.w} workers in demo_misses_per_worker`);
}
await views(p('a.parquet'), 1);
await views(p('ab.parquet'), 2);

const trace = JSON.parse(fs.readFileSync(p('a.json'), 'utf8'));
const nodes = await checkEngine(trace, F, 'a.json');
const xs = trace.traceEvents.filter((e) => e.ph === 'X');
const reqs = new Map(xs.filter((x) => x.name === 'demo::kv::Request').map((x) => [String(x.args.span_id), x]));
const key = (e) => `${e.pid}/${e.tid}/${Math.round(e.ts * 1000)}/${Math.round(e.dur * 1000)}/${e.name}`;
// Slices sit on the lane of the shard (CPU) their enter was recorded on: a worker that
// migrated between its request's enter and the lookup's puts them on two lanes. Every lookup
// must lie within its request's time; one on its request's lane must be its engine child.
let nested = 0, lookups = 0, sameLane = 0, within = 0;
for (const x of xs) {
  if (x.name !== 'demo::cache::Lookup') continue;
  lookups++;
  const r = reqs.get(String(x.args.enter.parent));
  if (!r) continue;
  const b = Math.round(x.ts * 1000), rb = Math.round(r.ts * 1000);
  if (rb <= b && b + Math.round(x.dur * 1000) <= rb + Math.round(r.dur * 1000)) within++;
  if (r.pid !== x.pid || r.tid !== x.tid) continue;
  const n = nodes.get(key(x));
  if (!n && floatEndClash(x, xs)) continue; /* the engine's float sum, not the trace (trace_lib) */
  sameLane++;
  if (n && n.parent && n.parent.entry.name === r.name && key({ ...n.parent.entry, pid: r.pid, tid: r.tid }) === key(r)) nested++;
}
F.check(reqs.size === 10000, `a.json: ${reqs.size} request slices`);
F.check(lookups === 10000 && within === lookups, `a.json: ${within} of ${lookups} lookups within their request`);
F.check(sameLane > 0 && nested === sameLane,
        `a.json: ${nested} of ${sameLane} lookups on their request's lane nested in it by the engine`);
F.finish();
