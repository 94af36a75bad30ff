// dataset_index.mjs — the dataset's duplicate-key index (src/dataset/dataset_index.c): kept
// sorted, and an index file written before it was (one sorted run per append, as backbeat wrote
// until issue 25, or any order) still read correctly: re-appending its dump adds nothing,
// appending a new dump adds exactly its rows and leaves the file sorted with every key once.
// Also a rewrite whose replays overlap (a later half appended, then the whole dump) keeps each
// record once (the rewrite's key set of scratch runs).
//
// Usage: node dataset_index.mjs BACKBEAT PQ_GENDUMP FLEET_GEN
// SPDX-License-Identifier: MIT
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { check, finish, readers, sqlStr, tmpDir } from './parquet_common.mjs';

const [tool, gen, fleet] = process.argv.slice(2);
const { duck } = await readers();
const work = tmpDir('dsidx');
const must = (cmd, args) => {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  check(r.status === 0, `${path.basename(cmd)} ${args.join(' ')}: exit ${r.status} ${r.stderr}`);
  return r;
};
const db = await duck.DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJS();
const parts = (dir) => fs.readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('.parquet')).sort();
// Rows, and distinct (ts, instance) (unique within one pq_gendump or fleet_gen dump).
const rows = async (dir) => (await q(`SELECT count(*) AS n, count(DISTINCT (ts_nanos, instance_id)) AS d
  FROM read_parquet(${sqlStr(`${dir}/**/*.parquet`)}, hive_partitioning = true, union_by_name = true)`))[0];

const A = path.join(work, 'a.bb'), B = path.join(work, 'b.bb'), NEW = path.join(work, 'new.bb');
must(gen, [A, '200000']); // record i: ts 1e12 + 100 i, one instance
must(gen, [B, '300000']); // the same instance, other offsets: all new keys
must(fleet, [NEW, '2', '1', '30']); // other events: a rewrite of every earlier append
const MID = 1000000000000n + 100n * 120000n;
// a and b as one conversion: the records of both, each once (FORMAT.md's key).
const AB = path.join(work, 'ab.parquet');
must(tool, ['convert', A, B, '-o', AB]);
const nab = (await q(`SELECT count(*) AS n FROM read_parquet(${sqlStr(AB)})`))[0].n;

// The index file of the one instance: [ts, shard, off] entries.
const MAGIC = Buffer.from('BBIDX1\0\0', 'latin1');
const indexFile = (dir) => path.join(dir, '_backbeat/index/1234567890abcdef.keys');
function readIndex(file) {
  const b = fs.readFileSync(file);
  check(b.subarray(0, 8).equals(MAGIC) && (b.length - 8) % 16 === 0, `${file}: bad index file`);
  const v = [];
  for (let o = 8; o + 16 <= b.length; o += 16) v.push([b.readBigUInt64LE(o), b.readUInt32LE(o + 8), b.readUInt32LE(o + 12)]);
  return v;
}
function writeIndex(file, v) {
  const b = Buffer.alloc(8 + 16 * v.length);
  MAGIC.copy(b);
  v.forEach(([ts, sh, off], i) => { b.writeBigUInt64LE(ts, 8 + 16 * i); b.writeUInt32LE(sh, 16 + 16 * i); b.writeUInt32LE(off, 20 + 16 * i); });
  fs.writeFileSync(file, b);
}
const cmp = (a, b) => (a[0] !== b[0] ? (a[0] < b[0] ? -1 : 1) : a[1] !== b[1] ? a[1] - b[1] : a[2] - b[2]);
const strictlySorted = (v) => v.every((e, i) => i === 0 || cmp(v[i - 1], e) < 0);

// 1. The later half, then the whole dump: the index is one sorted run of every key.
const ds = path.join(work, 'ds');
must(tool, ['convert', A, '--dataset', ds, '--since', String(MID)]);
must(tool, ['convert', A, '--dataset', ds]);
const idx = readIndex(indexFile(ds));
const a = await rows(ds);
check(BigInt(idx.length) === a.n && a.n === a.d && a.n > 100000n, `index ${idx.length} entries, dataset ${a.n} rows (${a.d} distinct)`);
check(strictlySorted(idx), 'the index file is not sorted');

// 2. Older layouts of the same keys.
const later = idx.filter((e) => e[0] >= MID), earlier = idx.filter((e) => e[0] < MID);
let seed = 7;
const shuffled = idx.map((e) => [e, (seed = (seed * 1103515245 + 12345) % 2147483648)]).sort((x, y) => x[1] - y[1]).map((x) => x[0]);
const layouts = {
  'one run per append (later half, then the earlier one)': [...later, ...earlier],
  reversed: [...idx].reverse(),
  shuffled,
};
for (const [name, v] of Object.entries(layouts)) {
  const d = path.join(work, `old-${Object.keys(layouts).indexOf(name)}`);
  fs.cpSync(ds, d, { recursive: true });
  writeIndex(indexFile(d), v);
  const before = parts(d);
  must(tool, ['convert', A, '--dataset', d]);
  check(JSON.stringify(parts(d)) === JSON.stringify(before), `${name}: re-appending the dump added ${parts(d).length - before.length} part(s)`);
  must(tool, ['convert', B, A, '--dataset', d]);
  const r = await rows(d), after = readIndex(indexFile(d));
  check(r.n === nab, `${name}: ${r.n} rows, want ${nab} (a and b, each record once)`);
  check(BigInt(after.length) === r.n, `${name}: index ${after.length} entries, dataset ${r.n} rows`);
  check(strictlySorted(after), `${name}: the new index file is not sorted`);
}

// 3. A rewrite of overlapping appends (the second replay skips what the first kept).
const parts1 = parts(ds);
must(tool, ['convert', NEW, '--dataset', ds]);
const r = await rows(ds);
check(r.n === r.d && r.n === a.n + 30n, `after the rewrite: ${r.n} rows (${r.d} distinct), want ${a.n} + 30`);
check(parts1.every((p) => parts(ds).includes(p)), 'the rewrite renamed parts');
const tmp = path.join(ds, '_backbeat/tmp');
check(!fs.existsSync(tmp) || fs.readdirSync(tmp).length === 0, 'scratch files left in _backbeat/tmp');

fs.rmSync(work, { recursive: true, force: true });
finish('dataset_index');
