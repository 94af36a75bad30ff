// parquet_golden.mjs — every golden dump converted to Parquet and read back by two independent
// readers (DuckDB and hyparquet) gives exactly the rows and values of its expected.json; the
// multi dumps converted together give the de-duplicated union; the footer carries
// backbeat.format / host / views / columns; the OUT.views.sql sidecar loads in DuckDB and every
// per-event view, backbeat_keys and the dumps' own view sets answer correctly.
//
// Usage: node parquet_golden.mjs cli|driver TOOL   (TOOL: build/backbeat or pq_convert)
// SPDX-License-Identifier: MIT
import fs from 'node:fs';
import path from 'node:path';
import { check, compareRows, compatDir, convert, duckRows, expectedRows, finish, hypRows,
         layoutOf, readers, sqlStr, tmpDir } from './parquet_common.mjs';

const [kind, tool] = process.argv.slice(2);
const compat = compatDir();
const { duck, hyp, compressors } = await readers();
const work = tmpDir('pqgold');

const load = (f) => JSON.parse(fs.readFileSync(path.join(compat, f), 'utf8'));

// Cases: each single dump, then the merged sets.
const cases = [];
for (const f of fs.readdirSync(compat).sort()) {
  const m = /^(.*)\.bb$/.exec(f);
  if (!m || !fs.existsSync(path.join(compat, `${m[1]}.expected.json`))) continue;
  const exp = load(`${m[1]}.expected.json`);
  const records = [];
  for (const inst of exp.instances)
    for (const r of inst.records) records.push({ ...r, instance_id: inst.instance_id });
  check(exp.instances.length === 1, `${f}: expected one instance`);
  cases.push({ name: m[1], inputs: [f], schemas: [exp.instances[0].schemas], records,
               instances: exp.instances, views: exp.instances.flatMap((i) => i.views) });
}
for (const name of ['multi_ab', 'multi_abo']) {
  if (!fs.existsSync(path.join(compat, `${name}.expected.json`))) continue;
  const exp = load(`${name}.expected.json`);
  const ins = exp.inputs.map((f) => load(f.replace(/\.bb$/, '.expected.json')));
  check(exp.records.length === exp.record_count, `${name}: record_count`);
  const instances = new Map();
  for (const e of ins) for (const i of e.instances) if (!instances.has(i.instance_id)) instances.set(i.instance_id, i);
  cases.push({ name, inputs: exp.inputs, schemas: ins.map((e) => e.instances[0].schemas),
               records: exp.records, instances: [...instances.values()],
               views: ins.flatMap((e) => e.instances.flatMap((i) => i.views)) });
}
check(cases.length >= 8, `found ${cases.length} cases`);

for (const c of cases) {
  const out = path.join(work, `${c.name}.parquet`);
  convert(kind, tool, c.inputs.map((f) => path.join(compat, f)), out);
  const layout = layoutOf(c.schemas);
  const want = expectedRows(layout, c.records);

  compareRows(`${c.name} duckdb`, await duckRows(duck, out), want);
  compareRows(`${c.name} hyparquet`, await hypRows(hyp, compressors, out), want);

  // Footer key-value metadata.
  const db = await duck.DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const kv = new Map((await con.runAndReadAll(
    `SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${sqlStr(out)})`))
    .getRowObjectsJS().map((r) => [r.k, r.v]));
  check(kv.get('backbeat.format') === '1', `${c.name}: backbeat.format`);
  const withRows = new Set(c.records.map((r) => r.instance_id));
  const hosts = [];
  for (const i of [...c.instances].sort((a, b) => (a.instance_id < b.instance_id ? -1 : 1)))
    if ((withRows.size === 0 || withRows.has(i.instance_id)) && i.host && !hosts.includes(i.host)) hosts.push(i.host);
  check(kv.get('backbeat.host') === hosts.join(','), `${c.name}: backbeat.host ${kv.get('backbeat.host')}, want ${hosts.join(',')}`);
  const views = kv.get('backbeat.views') ?? '';
  for (const v of c.views) check(views.includes(v), `${c.name}: backbeat.views lacks a view set`);
  const sidecar = fs.readFileSync(`${out}.views.sql`, 'utf8');
  check(sidecar.endsWith(views) && /read_parquet\(/.test(sidecar.slice(0, sidecar.length - views.length)),
        `${c.name}: sidecar = events binding + backbeat.views`);

  // backbeat.columns: every event and field, with its place, role, unit, sentinel, description.
  let doc = null;
  try { doc = JSON.parse(kv.get('backbeat.columns')); } catch (e) { check(false, `${c.name}: backbeat.columns is not JSON: ${e}`); }
  if (doc) {
    check(doc.version === 1, `${c.name}: columns version`);
    check(doc.events.length === layout.events.length, `${c.name}: columns events`);
    for (const e of layout.events) {
      const d = doc.events.find((x) => x.event_id === e.schema.id);
      if (!check(d, `${c.name}: columns lacks ${e.display}`)) continue;
      check(d.event === e.display && d.name === e.schema.name && d.phase === e.schema.phase &&
            d.description === e.schema.description && d.record_size === e.schema.record_size,
            `${c.name}: ${e.display} event semantics`);
      const dataFields = e.schema.fields.filter((f, k) => !e.place[k].pad); // padding: no entry
      check(d.fields.length === dataFields.length, `${c.name}: ${e.display} has ${d.fields.length} column fields`);
      e.schema.fields.forEach((f, k) => {
        const p = e.place[k];
        if (p.pad) return;
        const g = d.fields[dataFields.indexOf(f)];
        const wantPath = p.group ? [p.group, p.column] : [p.column];
        check(g && g.name === f.name && JSON.stringify(g.path) === JSON.stringify(wantPath) &&
              g.type === f.type && g.role === f.role && g.unit === f.unit &&
              JSON.stringify(g.sentinel) === JSON.stringify(f.sentinel) &&
              g.description === f.description && JSON.stringify(g.labels) === JSON.stringify(f.labels),
              `${c.name}: ${e.display}.${f.name} semantics ${JSON.stringify(g)}`);
      });
    }
    for (const col of ['seq', 'ts_nanos', 'event', 'event_id', 'instance_id', 'ts'])
      check(doc.columns.some((x) => x.name === col && x.role), `${c.name}: columns lacks ${col}`);
  }

  // Sidecar in DuckDB: per-event views, backbeat_keys, the dumps' view sets.
  await con.run(`SET file_search_path = '${path.dirname(path.resolve(out)).replaceAll("'", "''")}'`); // the documented way
  const ex = await con.extractStatements(sidecar);
  for (let i = 0; i < ex.count; i++) await (await ex.prepare(i)).run();
  for (const name of layout.names) {
    const got = (await con.runAndReadAll(`SELECT seq FROM "${name.replaceAll('"', '""')}" ORDER BY seq`))
      .getRowObjectsJS().map((r) => r.seq);
    const exp = want.filter((r) => r.event === name).map((r) => r.seq);
    check(JSON.stringify(got.map(String)) === JSON.stringify(exp.map(String)), `${c.name}: view ${name} rows`);
  }
  const keys = (await con.runAndReadAll('SELECT event, field, role FROM backbeat_keys ORDER BY ALL'))
    .getRowObjectsJS().map((r) => `${r.event}|${r.field}|${r.role}`);
  const wantKeys = [];
  for (const e of layout.events) e.place.forEach((p) => { if (!p.group && !p.pad) wantKeys.push(`${e.display}|${p.column}|${p.field.role}`); });
  wantKeys.splice(0, wantKeys.length, ...new Set(wantKeys)); // one row per (event, column, role)
  wantKeys.sort();
  check(JSON.stringify(keys) === JSON.stringify([...wantKeys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))),
        `${c.name}: backbeat_keys ${JSON.stringify(keys)} want ${JSON.stringify(wantKeys)}`);
  if (c.name === 'basic') {
    const n = (await con.runAndReadAll('SELECT count(*) AS n FROM scalars')).getRowObjectsJS()[0].n;
    check(n === BigInt(want.filter((r) => r.event === 'fixture::Scalars').length), 'basic: dump view set `scalars`');
    const rec = (await con.runAndReadAll('SELECT ts_nanos FROM recent(3)')).getRowObjectsJS();
    check(rec.length === 3 && rec[0].ts_nanos === want[want.length - 1].ts_nanos, 'basic: dump macro `recent`');
  }
  // A few schema facts: unsigned columns are UINT_64 / INTEGER(64,false); strings UTF8.
  const schema = (await con.runAndReadAll(`SELECT name, type, converted_type, repetition_type, logical_type FROM parquet_schema(${sqlStr(out)})`)).getRowObjectsJS();
  for (const col of ['seq', 'ts_nanos', 'event_id', 'instance_id']) {
    const s = schema.find((x) => x.name === col);
    check(s && s.type === 'INT64' && s.converted_type === 'UINT_64' && s.repetition_type === 'REQUIRED', `${c.name}: ${col} is a required UINT64`);
  }
  const tsCol = schema.find((x) => x.name === 'ts');
  check(tsCol && tsCol.type === 'INT64' && tsCol.repetition_type === 'OPTIONAL' &&
        /TIMESTAMP/i.test(String(tsCol.logical_type)) && /NANOS/i.test(String(tsCol.logical_type)) &&
        /isAdjustedToUTC=(1|true)/i.test(String(tsCol.logical_type)),
        `${c.name}: ts is TIMESTAMP(NANOS, UTC): ${JSON.stringify(tsCol, (k, x) => (typeof x === 'bigint' ? String(x) : x))}`);
  const badTs = (await con.runAndReadAll(`SELECT count(*) AS n FROM read_parquet(${sqlStr(out)}) WHERE ts IS DISTINCT FROM make_timestamptz((ts_nanos // 1000)::BIGINT)`)).getRowObjectsJS()[0].n;
  check(badTs === 0n, `${c.name}: ${badTs} rows whose ts (DuckDB, microseconds) is not ts_nanos`);
  const ev = schema.find((x) => x.name === 'event');
  check(ev && ev.type === 'BYTE_ARRAY' && ev.converted_type === 'UTF8', `${c.name}: event is a string`);
  const created = (await con.runAndReadAll(`SELECT created_by FROM parquet_file_metadata(${sqlStr(out)})`)).getRowObjectsJS()[0].created_by;
  check(/^backbeat version \d/.test(created), `${c.name}: created_by ${created}`);
}
fs.rmSync(work, { recursive: true, force: true });
finish(`${cases.length} golden conversions read back by DuckDB and hyparquet`);
