// fleet_check.mjs — one table for a whole fleet: three builds of one event set (fleet_gen:
// fields added, removed, reordered, a type changed, events added, a signed key) on four hosts,
// plus a later dump of one process overlapping its earlier one, converted one by one into a
// dataset, all at once into a dataset, all at once into one file, and each alone. Every one
// reads as one table with every value equal to what the dumps hold, row by row (u64 keys up to
// 2^64-1, negative i64 keys, fields a build lacks NULL, other events' groups NULL, partition
// columns), through
//   - DuckDB with DIR/views.sql (and the views of the dumps' own DDL),
//   - DuckDB with a plain read_parquet('DIR/**/*.parquet', hive_partitioning, union_by_name),
//   - Polars (nodejs-polars): every part read, aligned to the dataset's schema (the newest
//     part's: docs/PARQUET_TABLE.md, "Datasets"), concatenated,
//   - Arrow's Rust Parquet reader (parquet-wasm, decoded by apache-arrow), part by part.
// Filters on ts, on the key and on a partition column give the answers of a full scan, and a
// partition filter prunes (DuckDB's profile: it reads only that partition's parts). A dump
// converted alone names its events' columns as the whole fleet's table does.
//
// Usage: node fleet_check.mjs BACKBEAT FLEET_GEN
// SPDX-License-Identifier: MIT
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { check, checkSidecar, finish, readers, sqlStr, tmpDir } from './parquet_common.mjs';

const [tool, gen] = process.argv.slice(2);
const { duck } = await readers();
let pl, pw, arrow;
try {
  pl = (await import('nodejs-polars')).default;
  pw = await import('parquet-wasm');
  arrow = await import('apache-arrow');
} catch (e) {
  console.log(`readers not installed (npm ci --prefix tests/js): skipped (${e.message})`);
  process.exit(77);
}
const work = tmpDir('fleet');
const bb = (args) => execFileSync(tool, args, { stdio: ['ignore', 'inherit', 'inherit'] });

// ---- the dumps and what they hold ----
const dumps = [];
for (let b = 1; b <= 3; b++)
  for (let h = 1; h <= 4; h++) {
    const file = path.join(work, `b${b}h${h}.bb`);
    execFileSync(gen, [file, String(b), String(h), '60']);
    dumps.push(file);
  }
const later = path.join(work, 'b2h1-later.bb'); // the same process, dumped again later
execFileSync(gen, [later, '2', '1', '90']);
dumps.push(later);

const expected = new Map(); // `${instance}|${ts}` -> row
const groupFields = new Map(); // event -> Set of its union's field names (key is promoted)
const hostOf = new Map();
for (const f of dumps) {
  const j = JSON.parse(fs.readFileSync(`${f}.json`, 'utf8'));
  const inst = BigInt('0x' + j.instance_id).toString();
  hostOf.set(inst, j.host);
  for (const r of j.records) {
    if (!groupFields.has(r.event)) groupFields.set(r.event, new Set());
    for (const k of Object.keys(r.fields)) if (k !== 'key') groupFields.get(r.event).add(k);
    expected.set(`${inst}|${r.ts}`, { ...r, instance_id: inst, host: j.host });
  }
}
const isoDate = (ns) => new Date(Number(BigInt(ns) / 1000000n)).toISOString().slice(0, 10);
// The expected table row, flattened: group fields as "<event>.<field>", all values as text.
function want(r) {
  const row = { instance_id: r.instance_id, ts_nanos: r.ts, event: r.event,
                event_id: BigInt('0x' + r.event_id).toString(), key: r.fields.key ?? null,
                host: r.host, date: isoDate(r.ts) };
  for (const [ev, fs_] of groupFields)
    for (const f of fs_) row[`${ev}.${f}`] = ev === r.event ? (r.fields[f] ?? null) : null;
  for (const [k, v] of Object.entries(row)) if (typeof v === 'boolean') row[k] = String(v);
  return row;
}
const wantRows = [...expected.values()].map(want);
check(wantRows.length === 12 * 60 + 30, `${wantRows.length} distinct records`);

// A reader's value as text: bigints and numbers in decimal, bools true/false, dates as
// YYYY-MM-DD (the partition column), null as null.
function text(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint' || typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return String(v);
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  return v;
}

// Compare `got` (flattened rows) with the expected ones; `cols` the columns to compare.
function compare(tag, got, cols = null) {
  check(got.length === wantRows.length, `${tag}: ${got.length} rows, want ${wantRows.length}`);
  let bad = 0;
  const seen = new Set();
  for (const g of got) {
    const id = `${text(g.instance_id)}|${text(g.ts_nanos)}`;
    const w = expected.has(id) ? want(expected.get(id)) : null;
    if (!check(w && !seen.has(id), `${tag}: unexpected or repeated row ${id}`)) continue;
    seen.add(id);
    for (const c of cols ?? Object.keys(w))
      if (text(g[c]) !== w[c] && bad++ < 10)
        check(false, `${tag}: row ${id} column ${c}: got ${text(g[c])}, want ${w[c]}`);
    // ts is ts_nanos as a timestamp (readers give a Date to the millisecond, or ms as a number)
    if (g.ts !== undefined) {
      const ms = g.ts instanceof Date ? g.ts.getTime() : Math.floor(Number(g.ts));
      if (BigInt(ms) !== BigInt(w.ts_nanos) / 1000000n && bad++ < 10)
        check(false, `${tag}: row ${id}: ts ${g.ts} is not ts_nanos ${w.ts_nanos}`);
    }
  }
  if (bad) check(false, `${tag}: ${bad} wrong values`);
}

// Flatten a row whose struct columns are objects (DuckDB, Arrow): "<group>.<field>".
function flatten(row) {
  const out = {};
  for (const [k, v] of Object.entries(row)) {
    if (groupFields.has(k)) {
      for (const f of groupFields.get(k)) out[`${k}.${f}`] = v === null ? null : v[f];
    } else {
      out[k] = v;
    }
  }
  return out;
}

// ---- the conversions ----
const ds1 = path.join(work, 'one-by-one');
for (const f of dumps) bb(['convert', f, '--dataset', ds1]);
const ds2 = path.join(work, 'at-once');
bb(['convert', ...dumps, '--dataset', ds2]);
const all = path.join(work, 'all.parquet');
bb(['convert', ...dumps, '-o', all]);
checkSidecar(all);
const alone = dumps.map((f) => {
  const out = f.replace(/\.bb$/, '.parquet');
  bb(['convert', f, '-o', out]);
  checkSidecar(out);
  return out;
});
const partsOf = (dir) => fs.readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('.parquet'))
  .map((f) => path.join(dir, f)).sort();
// Partition values from a part's path (Hive-escaped).
const partitionsOf = (file) => Object.fromEntries(path.dirname(file).split('/').filter((s) => s.includes('='))
  .map((s) => s.split('=')).map(([k, v]) => [k, decodeURIComponent(v)]));

// ---- DuckDB ----
async function duckConnect() {
  const db = await duck.DuckDBInstance.create(':memory:');
  return db.connect();
}
async function duckViews(dir) {
  const c = await duckConnect();
  await c.run(`SET file_search_path = '${path.dirname(path.resolve(path.join(dir, 'views.sql'))).replaceAll("'", "''")}'`); // the documented way to load the views
  const ex = await c.extractStatements(fs.readFileSync(path.join(dir, 'views.sql'), 'utf8'));
  for (let i = 0; i < ex.count; i++) await (await ex.prepare(i)).run();
  return c;
}
const rowsOf = async (c, sql) => (await c.runAndReadAll(sql)).getRowObjectsJS();
const plain = (dir) => `read_parquet(${sqlStr(`${dir}/**/*.parquet`)}, hive_partitioning = true, union_by_name = true)`;
for (const [tag, dir] of [['one by one', ds1], ['at once', ds2]]) {
  const c = await duckViews(dir);
  compare(`${tag}: DuckDB views.sql`, (await rowsOf(c, 'SELECT * FROM events')).map(flatten));
  compare(`${tag}: DuckDB read_parquet`, (await rowsOf(c, `SELECT * FROM ${plain(dir)}`)).map(flatten));
  // per-event views see every build's rows; the dumps' own views bind and answer
  const n = (await rowsOf(c, 'SELECT count(*) AS n FROM "demo::cache::Miss"'))[0].n;
  check(n === BigInt(wantRows.filter((r) => r.event === 'demo::cache::Miss').length), `${tag}: view demo::cache::Miss has ${n} rows`);
  const perWorker = await rowsOf(c, 'SELECT sum(n) AS n FROM fleet_miss_per_worker');
  check(perWorker[0].n === n, `${tag}: fleet_miss_per_worker sums to ${perWorker[0].n}`);
  const worst = await rowsOf(c, 'SELECT count(*) AS n FROM fleet_worst_latency');
  check(worst[0].n === 4n, `${tag}: fleet_worst_latency has ${worst[0].n} tiers`);
  // filters: ts, a key (u64 above 2^63 and a negative i64), a partition column
  const t0 = 1796083200000000000n, t1 = t0 + 15000000000n;
  const q = async (where) => (await rowsOf(c, `SELECT count(*) AS n FROM events WHERE ${where}`))[0].n;
  const count = (pred) => BigInt(wantRows.filter(pred).length);
  check(await q(`ts >= make_timestamptz(${t0 / 1000n}) AND ts < make_timestamptz(${t1 / 1000n})`) ===
        count((r) => BigInt(r.ts_nanos) >= t0 && BigInt(r.ts_nanos) < t1), `${tag}: filter on ts`);
  for (const k of ['18446744073709551615', '-9223372036854775808'])
    check(await q(`key = '${k}'`) === count((r) => r.key === k) && count((r) => r.key === k) > 0n, `${tag}: filter key = ${k}`);
  check(await q(`host = 'edge/4 ü'`) === count((r) => r.host === 'edge/4 ü'), `${tag}: filter on host`);
  check(await q(`date = DATE '2026-11-30'`) === count((r) => r.date === '2026-11-30'), `${tag}: filter on date`);
}
// The single file: the same rows (no partition columns), the widened types.
{
  const c = await duckConnect();
  const cols = ['instance_id', 'ts_nanos', 'event', 'event_id', 'key',
                ...[...groupFields].flatMap(([e, f]) => [...f].map((x) => `${e}.${x}`))];
  compare('one file: DuckDB', (await rowsOf(c, `SELECT * FROM read_parquet(${sqlStr(all)})`)).map(flatten), cols);
  const types = new Map((await rowsOf(c, `DESCRIBE SELECT * FROM read_parquet(${sqlStr(all)})`)).map((r) => [r.column_name, r.column_type]));
  check(types.get('key') === 'VARCHAR', `key (u64 and i64 keys) is ${types.get('key')}, want VARCHAR`);
  check(/size BIGINT/.test(types.get('demo::cache::Lookup')), `Lookup.size (u32 then i32) is ${types.get('demo::cache::Lookup')}`);
  // worker is u32 in every build: INT64 (BIGINT), the type a later signed version would keep.
  check(/worker BIGINT.*hit BOOLEAN/.test(types.get('demo::cache::Miss')) || /hit BOOLEAN.*worker BIGINT/.test(types.get('demo::cache::Miss')),
        `Miss is ${types.get('demo::cache::Miss')}`);
  check(types.get('ts') === 'TIMESTAMP WITH TIME ZONE', `ts is ${types.get('ts')}`);
  // Pruning: a partition filter reads only that partition's parts (DuckDB's profile).
  const parts = partsOf(ds1), mine = parts.filter((f) => f.includes('/host=host-3/')).length;
  const prof = (await rowsOf(c, `EXPLAIN ANALYZE SELECT count(*) FROM ${plain(ds1)} WHERE host = 'host-3'`))
    .map((r) => r.explain_value).join('\n');
  const m = /Total Files Read: (\d+)/.exec(prof);
  check(m && Number(m[1]) === mine && mine > 0 && mine < parts.length,
        `partition filter read ${m && m[1]} of ${parts.length} parts, want ${mine}`);
}
// Names are a function of the event: each dump alone names its fields as the fleet's file.
{
  const c = await duckConnect();
  const paths = async (f) => {
    const kv = (await rowsOf(c, `SELECT decode(value) AS v FROM parquet_kv_metadata(${sqlStr(f)}) WHERE decode(key) = 'backbeat.columns'`))[0].v;
    return new Map(JSON.parse(kv).events.map((e) => [e.event_id, JSON.stringify([e.event, e.column, e.fields.map((x) => x.path)])]));
  };
  const fleet = await paths(all);
  for (const f of alone)
    for (const [id, p] of await paths(f))
      check(fleet.get(id) === p, `${path.basename(f)}: event ${id} placed ${p}, in the fleet's file ${fleet.get(id)}`);
}

// ---- Polars: every part, aligned to the dataset's schema, as one DataFrame ----
function polarsTable(dir) {
  const parts = partsOf(dir);
  const frames = parts.map((f) => {
    const df = pl.readParquet(f);
    const cols = [];
    for (const [name, dt] of Object.entries(df.schema)) {
      if (groupFields.has(name))
        for (const fld of dt.fields ?? dt.inner ?? [])
          cols.push(pl.col(name).struct.field(fld.name).alias(`${name}.${fld.name}`));
      else cols.push(pl.col(name));
    }
    let flat = df.select(...cols);
    const part = partitionsOf(f);
    for (const [k, v] of Object.entries(part)) flat = flat.withColumns(pl.lit(v).alias(k));
    return { f, flat, mtime: fs.statSync(f).mtimeMs };
  });
  // The dataset schema: each column's type in the newest part holding it.
  const target = new Map();
  for (const fr of [...frames].sort((a, b) => a.mtime - b.mtime))
    for (const [k, dt] of Object.entries(fr.flat.schema)) target.set(k, dt);
  const names = [...target.keys()];
  const aligned = frames.map(({ flat }) => flat.select(...names.map((k) => (
    flat.columns.includes(k) ? pl.col(k).cast(target.get(k)) : pl.lit(null).cast(target.get(k)).alias(k)))));
  return pl.concat(aligned, { how: 'vertical' });
}
for (const [tag, dir] of [['one by one', ds1], ['at once', ds2]]) {
  const df = polarsTable(dir);
  compare(`${tag}: Polars`, df.toRecords());
  const k = '18446744073709551615';
  const byKey = df.filter(pl.col('key').eq(pl.lit(k))).height;
  check(byKey === wantRows.filter((r) => r.key === k).length, `${tag}: Polars filter key = ${k}: ${byKey}`);
  const byHost = df.filter(pl.col('host').eq(pl.lit('edge/4 ü'))).height;
  check(byHost === wantRows.filter((r) => r.host === 'edge/4 ü').length, `${tag}: Polars filter on host: ${byHost}`);
  check(String(df.schema.ts) === 'Datetime(ns,UTC)' || /Datetime/.test(String(df.schema.ts)), `${tag}: Polars ts is ${df.schema.ts}`);
}

// ---- Arrow (parquet-wasm): part by part ----
function arrowRows(files) {
  const rows = [];
  for (const f of files) {
    const t = arrow.tableFromIPC(pw.readParquet(new Uint8Array(fs.readFileSync(f))).intoIPCStream());
    const part = partitionsOf(f);
    const cols = t.schema.fields.map((fd) => [fd.name, t.getChild(fd.name), fd]);
    for (let i = 0; i < t.numRows; i++) {
      const row = { ...part };
      for (const [name, vec, fd] of cols) {
        if (groupFields.has(name)) {
          for (const child of fd.type.children)
            row[`${name}.${child.name}`] = vec.isValid(i) ? vec.getChild(child.name).get(i) : null;
        } else {
          row[name] = vec.get(i);
        }
      }
      rows.push(row);
    }
  }
  return rows;
}
compare('one by one: Arrow', arrowRows(partsOf(ds1)));
compare('at once: Arrow', arrowRows(partsOf(ds2)));
check(String(arrow.tableFromIPC(pw.readParquet(new Uint8Array(fs.readFileSync(all))).intoIPCStream()).schema.fields
  .find((f) => f.name === 'ts').type) === 'Timestamp<NANOSECOND, UTC>', 'Arrow: ts is Timestamp(ns, UTC)');

// ts past INT64 (2^63 ns, year 2262): NULL, while ts_nanos stays exact; its date partition.
{
  const late = path.join(work, 'late.bb');
  const base = (1n << 63n) - 5000000000n; // 2^63 - 5 s: records 0..9 below, the rest above
  execFileSync(gen, [late, '1', '1', '20', String(base)]);
  const dsl = path.join(work, 'late');
  bb(['convert', late, '--dataset', dsl]);
  const c = await duckConnect();
  const r = await rowsOf(c, `SELECT count(*) AS n, count(ts) AS t, count(*) FILTER (WHERE ts IS NOT NULL AND epoch_us(ts) != (ts_nanos // 1000)::BIGINT) AS bad, min(ts_nanos) AS lo FROM ${plain(dsl)}`);
  const below = JSON.parse(fs.readFileSync(`${late}.json`, 'utf8')).records.filter((x) => BigInt(x.ts) < (1n << 63n)).length;
  check(r[0].n === 20n && r[0].t === BigInt(below) && below === 10 && r[0].bad === 0n && r[0].lo === base + 1000n,
        `late timestamps: ${JSON.stringify(r[0], (k, v) => (typeof v === 'bigint' ? String(v) : v))}, want ${below} non-NULL ts`);
  const dates = partsOf(dsl).map((f) => partitionsOf(f).date).sort();
  check(JSON.stringify(dates) === JSON.stringify(['2262-04-11']), `late date partitions ${dates}`);
}

fs.rmSync(work, { recursive: true, force: true });
finish(`fleet: ${dumps.length} dumps (3 builds x 4 hosts + a later dump), ${wantRows.length} records, ` +
       'one table in DuckDB (views.sql, read_parquet), Polars and Arrow');
