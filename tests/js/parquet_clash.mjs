// parquet_clash.mjs — the layout's clash rules on a dump built to provoke them
// (pq_gendump OUT clash): a key named like a dense column (`seq`) or like an event's column
// stays in its group; keys unioned by name across events take the join of their types (the
// widening rule of docs/PARQUET_TABLE.md, whatever comes first: `k` is u64, i32, enum and
// interned, so STRING, every value kept as decimal text, label or intern text; `flag` is bool
// and u32, so INT64 with the bool as 0/1); a repeated field name
// inside a group becomes `x#2`; a second same-named key stays in the group; an event named
// `ts_nanos` gets the group `ts_nanos#2`; invalid UTF-8 interned text is repaired; a missing
// intern id renders `#99`. Read back by DuckDB and hyparquet, with the footer's semantics and
// backbeat_keys; through the CLI, also `-o -` (stdout) gives the same file content, `--host`
// sets backbeat.host, and an `--event` filter renumbers `seq` over the rows kept.
//
// Usage: node parquet_clash.mjs cli|driver TOOL PQ_GENDUMP
// SPDX-License-Identifier: MIT
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { check, checkSidecar, compareRows, convert, duckRows, finish, hypRows, readers, sameValue, sqlStr, tmpDir,
         tsValue } from './parquet_common.mjs';

const [kind, tool, gendump] = process.argv.slice(2);
const { duck, hyp, compressors } = await readers();
const work = tmpDir('pqclash');
const dump = path.join(work, 'clash.bb');
const out = path.join(work, 'clash.parquet');
execFileSync(gendump, [dump, 'clash'], { stdio: 'inherit' });
convert(kind, tool, [dump], out);

const NONE = { k: null, flag: null, r: null, 'clash::A': null, 'clash::B': null, 'clash::E': null, 'clash::F': null };
const TS = Object.keys(await duckRows(duck, out, `SELECT * FROM read_parquet(${sqlStr(out)}) LIMIT 1`).then((r) => r[0]))
  .find((c) => c.startsWith('ts_nanos#'));
check(TS === 'ts_nanos#2', `group of event ts_nanos is named ${TS}`);
NONE[TS] = null;
const row = (i, event, o) => ({ seq: BigInt(i), ts_nanos: BigInt(1000 * (i + 1)), event, ...o });
const rows = [
  row(0, 'clash::A', { ...NONE, k: '18446744073709551615', 'clash::A': { seq: 5n, x: 7n, 'clash::A': 3n } }),
  row(1, 'clash::B', { ...NONE, k: '-5', 'clash::B': { x: -2n, 'x#2': 200n, _p: 'ab' } }),
  row(2, 'clash::B', { ...NONE, k: '9', 'clash::B': { x: 3n, 'x#2': 1n, _p: '00' } }),
  row(3, 'clash::C', { ...NONE, k: 'one', flag: 1n }),
  row(4, 'clash::C', { ...NONE, k: '7', flag: 0n }),
  row(5, 'clash::D', { ...NONE, flag: 0n }),
  row(6, 'clash::D', { ...NONE, flag: 5n }),
  row(7, 'clash::E', { ...NONE, k: 'ok', 'clash::E': { s: 'ok' } }),
  row(8, 'clash::E', { ...NONE, k: '\uFFFD\uFFFDx', 'clash::E': { s: '\uFFFD\uFFFDx' } }),
  row(9, 'clash::E', { ...NONE, k: '#3', 'clash::E': { s: '#99' } }),
  row(10, 'clash::F', { ...NONE, r: 11n, 'clash::F': { r: 12n } }),
  row(11, 'ts_nanos', { ...NONE, [TS]: { v: 4n } }),
];
const strip = (rs) => rs.map(({ event_id, instance_id, ts, pid, ...rest }) => {
  check(instance_id === 42n, 'instance_id 42');
  check(pid === null, `pid ${pid} (a dump from bb_dump_write has no Process section: NULL)`);
  check(sameValue(ts, tsValue(rest.ts_nanos)), `ts of ${rest.ts_nanos}`);
  return rest;
});
const order = ['seq', 'ts_nanos', 'event', 'k', 'flag', 'r', 'clash::A', 'clash::B', 'clash::E', 'clash::F', TS];
const want = rows.map((r) => Object.fromEntries(order.map((c) => [c, r[c]])));
compareRows('duckdb', strip(await duckRows(duck, out)), want);
compareRows('hyparquet', strip(await hypRows(hyp, compressors, out)), want);

const db = await duck.DuckDBInstance.create(':memory:');
const con = await db.connect();
const kv = new Map((await con.runAndReadAll(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${sqlStr(out)})`))
  .getRowObjectsJS().map((r) => [r.k, r.v]));
check(kv.get('backbeat.host') === 'clash-host', 'backbeat.host');
const doc = JSON.parse(kv.get('backbeat.columns'));
const f = (ev, i) => doc.events.find((e) => e.event === ev).fields[i];
check(JSON.stringify(f('clash::A', 0).path) === '["clash::A","seq"]' && f('clash::A', 0).promoted === false, 'A.seq stays in its group');
check(JSON.stringify(f('clash::A', 3).path) === '["clash::A","clash::A"]', 'A.clash::A stays in its group');
check(JSON.stringify(f('clash::B', 0).path) === '["k"]' && f('clash::B', 0).column_type === 'STRING', 'B.k in the widened (STRING) column k');
check(f('clash::D', 0).column_type === 'INT64' && f('clash::C', 1).column_type === 'INT64', 'flag: bool and u32 join to INT64');
check(JSON.stringify(f('clash::B', 2).path) === '["clash::B","x#2"]', 'B second x is x#2');
check(JSON.stringify(f('clash::F', 1).path) === '["clash::F","r"]', 'F second r stays in the group');
check(doc.events.find((e) => e.event === 'ts_nanos').column === TS, 'ts_nanos event column');
const ex = await con.extractStatements(`CREATE VIEW events AS SELECT * FROM read_parquet(${sqlStr(out)});\n${kv.get('backbeat.views')}`);
for (let i = 0; i < ex.count; i++) await (await ex.prepare(i)).run();
const keys = (await con.runAndReadAll('SELECT event || \'|\' || field || \'|\' || role AS k FROM backbeat_keys ORDER BY ALL')).getRowObjectsJS().map((r) => r.k);
check(JSON.stringify(keys) === JSON.stringify(['clash::A|k|key', 'clash::B|k|key', 'clash::C|flag|key', 'clash::C|k|key',
  'clash::D|flag|key', 'clash::E|k|key', 'clash::F|r|key']), `backbeat_keys ${JSON.stringify(keys)}`);
const tsv = (await con.runAndReadAll('SELECT count(*) AS n FROM "ts_nanos"')).getRowObjectsJS()[0].n;
check(tsv === 1n, 'view "ts_nanos"');

if (kind === 'cli') {
  const piped = path.join(work, 'piped.parquet');
  const bytes = execFileSync(tool, ['convert', dump, '-f', 'parquet', '-o', '-'], { maxBuffer: 1 << 26 });
  fs.writeFileSync(piped, bytes);
  check(Buffer.compare(bytes, fs.readFileSync(out)) === 0, '-o - writes the same bytes as a file output');
  // --host overrides backbeat.host; a filter renumbers seq over the rows kept.
  const filtered = path.join(work, 'filtered.parquet');
  execFileSync(tool, ['convert', dump, '-o', filtered, '--host', 'other-host', '--event', 'clash::E'], { stdio: 'inherit' });
  checkSidecar(filtered);
  const fk = await duckRows(duck, filtered, `SELECT decode(value) AS v FROM parquet_kv_metadata(${sqlStr(filtered)}) WHERE decode(key) = 'backbeat.host'`);
  check(fk.length === 1 && fk[0].v === 'other-host', '--host sets backbeat.host');
  const fr = await duckRows(duck, filtered, `SELECT seq, event, "clash::E".s AS s FROM read_parquet(${sqlStr(filtered)})`);
  check(JSON.stringify(fr.map((r) => `${r.seq}|${r.event}|${r.s}`)) === JSON.stringify(['0|clash::E|ok', '1|clash::E|\uFFFD\uFFFDx', '2|clash::E|#99']),
        `--event filter rows ${JSON.stringify(fr.map((r) => `${r.seq}|${r.event}|${r.s}`))}`);
  // A write failure is reported with the output's name, exit status 1.
  if (fs.existsSync('/dev/full')) {
    let err = null;
    try { execFileSync(tool, ['convert', dump, '-f', 'parquet', '-o', '/dev/full'], { stdio: ['ignore', 'ignore', 'pipe'] }); } catch (e) { err = e; }
    check(err && err.status === 1 && /cannot write \/dev\/full/.test(String(err.stderr)), `write failure: ${err && err.stderr}`);
  }
  // Nothing kept: a valid file with the whole schema and no rows.
  const none = path.join(work, 'none.parquet');
  execFileSync(tool, ['convert', dump, '-o', none, '--event', 'nothing::*'], { stdio: 'inherit' });
  checkSidecar(none);
  const nr = await duckRows(duck, none, `SELECT count(*) AS n, count("clash::E") AS e FROM read_parquet(${sqlStr(none)})`);
  check(nr[0].n === 0n && nr[0].e === 0n, 'an empty selection gives an empty table');
}
fs.rmSync(work, { recursive: true, force: true });
finish('clash rules');
