// dataset_schema.mjs — one Parquet schema for every part of a dataset (issue 23). A fleet of 3
// builds (fleet_gen: a field added, one widened, one removed, new events) x 2 hosts is appended
// dump by dump in build order into one dataset and in reverse order into another. After EVERY
// append:
//   - every part's footer schema (hyparquet's parquetMetadata) is the same, element for element;
//   - DuckDB's plain read_parquet('DS/**/*.parquet', hive_partitioning = true) and Polars'
//     scan_parquet return every row appended so far, with the values of the dumps (instance,
//     ts, key, Miss.latency_ns), and a filter on host reads only that host's parts (DuckDB's
//     profile: Total Files Read);
// then: the two datasets end with the same schema (a function of the union, not of the order);
// an append that does not change the union rewrites nothing; re-appends change no file;
// --no-rewrite keeps the old parts (views.sql then reads with union_by_name); and an appender
// killed at every step of a rewriting append (BACKBEAT_DATASET_FAULT=K), then retried, leaves the
// very files of an uninterrupted run.
//
// Usage: node dataset_schema.mjs BACKBEAT FLEET_GEN
// SPDX-License-Identifier: MIT
import { spawnSync, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { check, finish, readers, sqlStr, tmpDir } from './parquet_common.mjs';

const [tool, gen] = process.argv.slice(2);
const { duck, hyp } = await readers();
let pl;
try {
  pl = (await import('nodejs-polars')).default;
} catch (e) {
  console.log(`nodejs-polars not installed (npm ci --prefix tests/js): skipped (${e.message})`);
  process.exit(77);
}
const work = tmpDir('dsschema');
const N = 30;
const dumps = [];
for (let b = 1; b <= 3; b++)
  for (let h = 1; h <= 2; h++) {
    const file = path.join(work, `b${b}h${h}.bb`);
    execFileSync(gen, [file, String(b), String(h), String(N)]);
    dumps.push(file);
  }
const rowsOfDump = (f) => {
  const j = JSON.parse(fs.readFileSync(`${f}.json`, 'utf8'));
  const inst = BigInt('0x' + j.instance_id).toString();
  return j.records.map((r) => [`${inst}|${r.ts}`,
    `${r.fields.key ?? null}|${r.fields.latency_ns ?? null}|${j.host}`]);
};
const run = (args, env = {}) => spawnSync(tool, args, { encoding: 'utf8', env: { ...process.env, ...env } });
const must = (args, env = {}) => {
  const r = run(args, env);
  check(r.status === 0, `${args.join(' ')}: exit ${r.status} ${r.stderr}`);
  return r;
};
const partsOf = (ds) => fs.readdirSync(ds, { recursive: true }).filter((f) => f.endsWith('.parquet'))
  .map((f) => path.join(ds, f)).sort();
const db = await duck.DuckDBInstance.create(':memory:');
const c = await db.connect();
const rowsOf = async (sql) => (await c.runAndReadAll(sql)).getRowObjectsJS();
const glob = (ds) => `read_parquet(${sqlStr(path.join(ds, '**/*.parquet'))}, hive_partitioning = true)`;

// The footer schema of a part, as hyparquet decodes it (every element, every field).
async function footerSchema(f) {
  const b = fs.readFileSync(f);
  const md = hyp.parquetMetadata(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  return JSON.stringify(md.schema, (k, v) => (typeof v === 'bigint' ? v.toString() : v));
}

// Rows of a reader as "inst|ts" -> "key|latency|host".
const asMap = (rows) => new Map(rows.map((r) => [`${r.instance_id}|${r.ts_nanos}`,
  `${r.key ?? null}|${r.lat ?? null}|${r.host}`]));
function sameRows(who, got, want) {
  check(got.size === want.size, `${who}: ${got.size} rows, want ${want.size}`);
  let bad = 0;
  for (const [k, v] of want)
    if (got.get(k) !== v && bad++ < 3) check(false, `${who}: row ${k} is ${got.get(k)}, want ${v}`);
  check(bad === 0, `${who}: ${bad} rows differ`);
}

// Every check of "after every append" on dataset ds holding the rows `want`.
async function checkDataset(ds, want, tag) {
  const parts = partsOf(ds);
  const schemas = await Promise.all(parts.map(footerSchema));
  check(new Set(schemas).size === 1, `${tag}: ${new Set(schemas).size} different footer schemas in ${parts.length} parts`);
  const miss = (await rowsOf(`DESCRIBE SELECT * FROM ${glob(ds)}`).catch(() => []))
    .find((r) => r.column_name === 'demo::cache::Miss')?.column_type ?? '';
  const lat = /latency_ns/.test(miss) ? '"demo::cache::Miss".latency_ns::VARCHAR' : 'NULL';
  const duckRows = await rowsOf(`SELECT instance_id::VARCHAR AS instance_id, ts_nanos::VARCHAR AS ts_nanos, key,
      ${lat} AS lat, host FROM ${glob(ds)}`).catch((e) => {
    check(false, `${tag}: DuckDB plain read_parquet failed: ${e.message}`);
    return [];
  });
  sameRows(`${tag}: DuckDB`, asMap(duckRows), want);
  let df = null;
  try {
    df = await pl.scanParquet(path.join(ds, '**/*.parquet'), { hivePartitioning: true }).collect();
  } catch (e) {
    check(false, `${tag}: Polars scan_parquet failed: ${e.message}`);
  }
  if (df) {
    const col = (n) => df.getColumn(n).toArray();
    const miss = df.columns.includes('demo::cache::Miss') &&
      df.getColumn('demo::cache::Miss').struct.fields.includes('latency_ns')
      ? df.getColumn('demo::cache::Miss').struct.field('latency_ns').toArray() : [];
    const inst = col('instance_id'), ts = col('ts_nanos'), key = col('key'), host = col('host');
    sameRows(`${tag}: Polars`, asMap(inst.map((v, i) => ({ instance_id: v, ts_nanos: ts[i], key: key[i],
      lat: miss[i] ?? null, host: host[i] }))), want);
  }
  const mine = parts.filter((f) => f.includes('/host=host-1/')).length;
  if (mine > 0 && mine < parts.length) {
    const prof = (await rowsOf(`EXPLAIN ANALYZE SELECT max(key) FROM ${glob(ds)} WHERE host = 'host-1'`))
      .map((r) => r.explain_value).join('\n');
    const m = /Total Files Read: (\d+)/.exec(prof);
    check(m && Number(m[1]) === mine, `${tag}: host filter read ${m && m[1]} of ${parts.length} parts, want ${mine}`);
  }
  return schemas[0];
}

// ---- the fleet in build order and in reverse ----
const fwd = path.join(work, 'fwd'), rev = path.join(work, 'rev');
const finals = {};
let rewrites = 0;
for (const [ds, order] of [[fwd, dumps], [rev, [...dumps].reverse()]]) {
  const want = new Map();
  for (const d of order) {
    const r = must(['convert', d, '--dataset', ds]);
    if (/rewrote/.test(r.stderr)) {
      rewrites++;
      console.log(`${path.basename(ds)} + ${path.basename(d)}: ${r.stderr.trim()}`);
    }
    for (const [k, v] of rowsOfDump(d)) want.set(k, v);
    finals[ds] = await checkDataset(ds, want, `${path.basename(ds)} after ${path.basename(d)}`);
  }
  check(!fs.readFileSync(path.join(ds, 'views.sql'), 'utf8').includes('union_by_name'),
        `${ds}/views.sql reads with union_by_name`);
}
check(rewrites >= 2, `${rewrites} appends rewrote parts, want the widening ones`);
check(finals[fwd] === finals[rev], 'the two orders end with different schemas');

// ---- an append that does not change the union rewrites nothing; re-appends change nothing ----
const snapshot = (ds) => fs.readdirSync(ds, { recursive: true }).sort()
  .filter((f) => fs.statSync(path.join(ds, f)).isFile() && !f.endsWith('lock'))
  .map((f) => `${f}:${crypto.createHash('sha256').update(fs.readFileSync(path.join(ds, f))).digest('hex')}`).join('\n');
{
  const extra = path.join(work, 'b3h1-more.bb');
  execFileSync(gen, [extra, '3', '1', String(N + 10)]);
  const r = must(['convert', extra, '--dataset', fwd]);
  check(!/rewrote/.test(r.stderr), `an append of a known build rewrote parts: ${r.stderr}`);
  const before = snapshot(fwd);
  must(['convert', dumps[0], '--dataset', fwd]);
  must(['convert', extra, dumps[3], '--dataset', fwd]);
  check(snapshot(fwd) === before, 're-appends changed files');
}

// ---- --no-rewrite keeps the old parts; views.sql reads with union_by_name ----
{
  const ds = path.join(work, 'norw');
  must(['convert', dumps[0], '--dataset', ds]);
  const old = fs.readFileSync(partsOf(ds)[0]);
  const r = must(['convert', dumps[4], '--dataset', ds, '--no-rewrite']);
  check(!/rewrote/.test(r.stderr), `--no-rewrite rewrote: ${r.stderr}`);
  check(Buffer.compare(fs.readFileSync(partsOf(ds)[0]), old) === 0, '--no-rewrite changed an old part');
  check(fs.readFileSync(path.join(ds, 'views.sql'), 'utf8').includes('union_by_name = true'),
        '--no-rewrite: views.sql does not read with union_by_name');
  // A later append without it makes the dataset one schema again.
  must(['convert', dumps[5], '--dataset', ds]);
  const want = new Map([0, 4, 5].flatMap((i) => rowsOfDump(dumps[i])));
  await checkDataset(ds, want, 'no-rewrite then rewrite');
}

// ---- a dataset written before sources were kept: never rewritten, one warning, union_by_name ----
{
  const ds = path.join(work, 'legacy');
  must(['convert', dumps[0], '--dataset', ds]);
  for (const d of ['appends', 'sources']) fs.rmSync(path.join(ds, '_backbeat', d), { recursive: true });
  const old = fs.readFileSync(partsOf(ds)[0]);
  const r1 = must(['convert', dumps[2], '--dataset', ds]);
  const r2 = must(['convert', dumps[4], '--dataset', ds]);
  check(/warning: .*union_by_name/.test(r1.stderr) && !/rewrote/.test(r1.stderr),
        `legacy + a widening append: ${r1.stderr}`);
  check(!/warning/.test(r2.stderr) && !/rewrote/.test(r2.stderr), `legacy, second widening: warned again or rewrote: ${r2.stderr}`);
  check(Buffer.compare(fs.readFileSync(partsOf(ds)[0]), old) === 0, 'a legacy part was rewritten');
  const views = fs.readFileSync(path.join(ds, 'views.sql'), 'utf8');
  check(/union_by_name = true/.test(views) && /before backbeat kept/.test(views), 'legacy: views.sql does not say union_by_name');
  const n = (await rowsOf(`SELECT count(*)::INTEGER AS n FROM read_parquet(${sqlStr(path.join(ds, '**/*.parquet'))}, hive_partitioning = true, union_by_name = true)`))[0].n;
  check(n === 3 * N, `legacy: ${n} rows with union_by_name, want ${3 * N}`);
}

// ---- a kill at every step of a rewriting append, then a retry: the uninterrupted files ----
{
  const base = path.join(work, 'kbase');
  must(['convert', dumps[0], '--dataset', base]);
  must(['convert', dumps[1], '--dataset', base]);
  const ref = path.join(work, 'kref');
  fs.cpSync(base, ref, { recursive: true });
  const rr = must(['convert', dumps[2], '--dataset', ref]);
  check(/rewrote 2 parts/.test(rr.stderr), `the reference append: ${rr.stderr}`);
  const want = snapshot(ref);
  let k = 1, done = false;
  for (; !done && k < 200; k++) {
    const ds = path.join(work, `k${k}`);
    fs.cpSync(base, ds, { recursive: true });
    const r = run(['convert', dumps[2], '--dataset', ds], { BACKBEAT_DATASET_FAULT: String(k) });
    done = r.status === 0;
    if (!done) {
      check(r.status === 70, `fault ${k}: exit ${r.status} ${r.stderr}`);
      must(['convert', dumps[2], '--dataset', ds]);
    }
    check(snapshot(ds) === want, `killed at step ${k} then retried: not the uninterrupted dataset`);
    fs.rmSync(ds, { recursive: true, force: true });
  }
  check(done && k > 5, `the fault hook never let the append finish (${k} steps)`);
  console.log(`killed at each of ${k - 2} steps of a rewriting append, retried: the same files`);
}

fs.rmSync(work, { recursive: true, force: true });
finish('one schema for every part: plain DuckDB and Polars reads after every append, kills');
