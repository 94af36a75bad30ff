// parquet_dataset.mjs — `convert --dataset DIR`: the golden dumps appended one by one (and
// again: nothing is added twice) give exactly the rows of converting them all at once; parts
// sit in DIR/host=H/date=D/part-<instance>-<n>.parquet and are never rewritten; DIR/views.sql
// loads in DuckDB and binds every view; --partition-by event,instance; two appenders started
// at once (twice over) leave a dataset holding each record once; a damaged index is an error
// naming the file; -o with --dataset and a bad --partition-by are usage errors.
//
// Usage: node parquet_dataset.mjs BACKBEAT
// SPDX-License-Identifier: MIT
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { check, compatDir, finish, readers, sqlStr, tmpDir } from './parquet_common.mjs';

const [tool] = process.argv.slice(2);
const compat = compatDir();
const { duck } = await readers();
const work = tmpDir('pqds');
const dumps = ['basic', 'multi_a', 'multi_b', 'multi_other', 'wrapped', 'wrapped_suffix', 'torn']
  .map((n) => path.join(compat, `${n}.bb`)).filter((f) => fs.existsSync(f));
const run = (args) => spawnSync(tool, args, { encoding: 'utf8' });
const must = (args) => {
  const r = run(args);
  check(r.status === 0, `${args.join(' ')}: exit ${r.status} ${r.stderr}`);
  return r;
};
const db = await duck.DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJS();
const parts = (dir) => fs.readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('.parquet')).sort();
const glob = (dir) => sqlStr(`${dir}/**/*.parquet`);
const KEY = 'ts_nanos, instance_id, event_id, event';

const all = path.join(work, 'all.parquet');
must(['convert', ...dumps, '-o', all]);
const total = (await q(`SELECT count(*) AS n FROM read_parquet(${sqlStr(all)})`))[0].n;

// Same rows as the one-file conversion: `a EXCEPT ALL b` both ways empty.
async function sameAsAll(dir, tag) {
  const src = `read_parquet(${glob(dir)}, hive_partitioning = true, union_by_name = true)`;
  const [n] = await q(`SELECT count(*) AS n FROM ${src}`);
  check(n.n === total, `${tag}: ${n.n} rows, want ${total}`);
  for (const [a, b] of [[src, `read_parquet(${sqlStr(all)})`], [`read_parquet(${sqlStr(all)})`, src]]) {
    const [d] = await q(`SELECT count(*) AS n FROM (SELECT ${KEY} FROM ${a} EXCEPT ALL SELECT ${KEY} FROM ${b})`);
    check(d.n === 0n, `${tag}: ${d.n} rows differ from the one-file conversion`);
  }
}

// 1. One by one, then all again: nothing new.
const ds = path.join(work, 'ds');
for (const d of dumps) must(['convert', d, '--dataset', ds]);
const before = parts(ds);
const stamp = before.map((p) => fs.statSync(path.join(ds, p)).mtimeMs);
for (const d of dumps) must(['convert', d, '--dataset', ds]);
must(['convert', ...dumps, '--dataset', ds]);
check(JSON.stringify(parts(ds)) === JSON.stringify(before), `re-appending added parts: ${parts(ds).length} vs ${before.length}`);
check(before.every((p, i) => fs.statSync(path.join(ds, p)).mtimeMs === stamp[i]), 'a part was rewritten');
check(before.every((p) => /^host=[^/]+\/date=\d{4}-\d\d-\d\d\/part-[0-9a-f]{16}-\d+\.parquet$/.test(p)), `part paths ${before}`);
await sameAsAll(ds, 'one by one');
// Every part has the dataset's columns at its time: the last part has all of them.
const cols = async (f) => (await q(`SELECT name FROM parquet_schema(${sqlStr(f)})`)).map((r) => r.name).join(',');
const last = before.map((p) => path.join(ds, p)).sort((a, b) => fs.statSync(a).mtimeMs - fs.statSync(b).mtimeMs).at(-1);
check(await cols(last) === await cols(all), `the last part's columns differ from the one-file conversion's`);
// views.sql binds every view.
const side = spawnSync(process.execPath, [path.join(path.dirname(new URL(import.meta.url).pathname), 'sidecar_check.mjs'), '--views', path.join(ds, 'views.sql')], { encoding: 'utf8' });
check(side.status === 0, `views.sql: ${side.stdout}${side.stderr}`);

// 2. Other partition keys.
const ds2 = path.join(work, 'ds2');
must(['convert', ...dumps, '--dataset', ds2, '--partition-by', 'event,instance']);
check(parts(ds2).every((p) => /^event=[^/]+\/instance=[0-9a-f]{16}\/part-[0-9a-f]{16}-0\.parquet$/.test(p)), `event,instance paths ${parts(ds2).slice(0, 3)}`);
const ev = await q(`SELECT count(*) AS n FROM read_parquet(${glob(ds2)}, hive_partitioning = true, union_by_name = true) WHERE event = 'fixture::multi::Sample'`);
const evAll = await q(`SELECT count(*) AS n FROM read_parquet(${sqlStr(all)}) WHERE event = 'fixture::multi::Sample'`);
check(ev[0].n === evAll[0].n && ev[0].n > 0n, `event partition filter: ${ev[0].n} vs ${evAll[0].n}`);
await sameAsAll(ds2, 'event,instance');

// 3. Concurrent appenders: two at once, each with every dump, three rounds.
const ds3 = path.join(work, 'ds3');
const start = (args) => new Promise((resolve) => {
  const p = spawn(tool, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  p.stderr.on('data', (d) => { err += d; });
  p.on('close', (code) => resolve({ code, err }));
});
for (let round = 0; round < 3; round++) {
  const rs = await Promise.all([start(['convert', ...dumps, '--dataset', ds3]),
                                start(['convert', ...[...dumps].reverse(), '--dataset', ds3])]);
  for (const r of rs) check(r.code === 0, `concurrent append: exit ${r.code} ${r.err}`);
}
check(!fs.readdirSync(ds3, { recursive: true }).some((f) => /\.tmp\./.test(f)), 'a temporary was left');
await sameAsAll(ds3, 'concurrent appenders');

// 4. Errors.
const idx = path.join(ds, '_backbeat', 'index');
const one = path.join(idx, '1122334455667788.keys'); // basic.bb's instance
fs.appendFileSync(one, Buffer.from([1, 2, 3]));
let r = run(['convert', dumps[0], dumps[1], dumps[2], '--dataset', ds]);
check(r.status === 1 && r.stderr.includes(one) && /not a backbeat dataset index/.test(r.stderr), `damaged index: ${r.status} ${r.stderr}`);
check(JSON.stringify(parts(ds)) === JSON.stringify(before), 'a failed append left a part');
r = run(['convert', dumps[0], '--dataset', ds, '-o', path.join(work, 'x.parquet')]);
check(r.status === 2 && /not both/.test(r.stderr), `-o with --dataset: ${r.status} ${r.stderr}`);
r = run(['convert', dumps[0], '--dataset', ds, '--partition-by', 'host,colour']);
check(r.status === 2 && /'colour' is not a partition key/.test(r.stderr), `bad --partition-by: ${r.status} ${r.stderr}`);
r = run(['convert', dumps[0], '--dataset', ds, '--partition-by', 'host,']);
check(r.status === 2 && /ends with a comma/.test(r.stderr), `trailing comma: ${r.status} ${r.stderr}`);
r = run(['convert', dumps[0], '-o', path.join(work, 'y.parquet'), '--partition-by', 'host']);
check(r.status === 2 && /needs --dataset/.test(r.stderr), `--partition-by without --dataset: ${r.status} ${r.stderr}`);
for (const bad of ['', '-']) {
  r = run(['convert', dumps[0], '--dataset', bad]);
  check(r.status === 2 && /needs a directory/.test(r.stderr), `--dataset '${bad}': ${r.status} ${r.stderr}`);
}
// The first append fixes the keys: another --partition-by is refused (nothing written), the
// same or none appends with the dataset's own keys.
r = run(['convert', dumps[0], '--dataset', ds2, '--partition-by', 'host']);
check(r.status === 1 && /partitioned by 'event,instance', not 'host'/.test(r.stderr), `other keys: ${r.status} ${r.stderr}`);
check(!parts(ds2).some((p) => p.startsWith('host=')), 'a refused append wrote a part');
must(['convert', dumps[0], '--dataset', ds2]);
check(parts(ds2).every((p) => p.startsWith('event=')), 'an append without --partition-by did not use the dataset\'s keys');
fs.writeFileSync(path.join(work, 'file'), 'x');
r = run(['convert', dumps[0], '--dataset', path.join(work, 'file')]);
check(r.status === 1 && r.stderr.includes(path.join(work, 'file')), `dataset on a file: ${r.status} ${r.stderr}`);

fs.rmSync(work, { recursive: true, force: true });
finish(`datasets of ${dumps.length} golden dumps: one by one, re-appended, partitioned by event, concurrent`);
