// parquet_stats.mjs — row-group statistics are right: a generated dump (pq_gendump) converted
// with small row groups (BACKBEAT_PARQUET_ROW_GROUP) gives DuckDB range filters — on ts_nanos,
// on the key column conn_id (which crosses 2^63), on struct leaves and strings — exactly the
// rows a full scan finds. The full scan itself is checked against the generator's formulas.
//
// Usage: node parquet_stats.mjs cli|driver TOOL PQ_GENDUMP
// SPDX-License-Identifier: MIT
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { check, convert, duckRows, finish, readers, sqlStr, tmpDir } from './parquet_common.mjs';

const [kind, tool, gendump] = process.argv.slice(2);
const { duck } = await readers();
const work = tmpDir('pqstats');
const N = 20000, RG = 1500;
const dump = path.join(work, 'gen.bb');
const out = path.join(work, 'gen.parquet');
execFileSync(gendump, [dump, String(N)], { stdio: 'ignore' });
convert(kind, tool, [dump], out, { BACKBEAT_PARQUET_ROW_GROUP: String(RG) });

const db = await duck.DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJS();
await con.run(`CREATE VIEW t AS SELECT * FROM read_parquet(${sqlStr(out)})`);

const groups = await q(`SELECT DISTINCT row_group_id FROM parquet_metadata(${sqlStr(out)})`);
check(groups.length === Math.ceil(N / RG), `${groups.length} row groups, want ${Math.ceil(N / RG)}`);

// Full scan, checked against the generator.
const all = await q(`SELECT seq, ts_nanos, event, conn_id, span, parent, "gen::Packet".pkt AS pkt,
  "gen::Packet".len AS len, "gen::Packet".code AS code, "gen::Packet".tag AS tag FROM t`);
check(all.length === N, `${all.length} rows`);
const M = (1n << 64n) - 1n;
const mix = (x) => {
  x ^= x >> 33n; x = (x * 0xff51afd7ed558ccdn) & M; x ^= x >> 33n; x = (x * 0xc4ceb9fe1a85ec53n) & M; x ^= x >> 33n;
  return x;
};
const kinds = ['gen::Packet', 'gen::SpanBegin', 'gen::SpanEnd', 'gen::Tick'];
const kindOf = (i) => { const r = i % 20; return r < 12 ? 0 : r < 15 ? 1 : r < 18 ? 2 : 3; };
for (let i = 0; i < N; i++) {
  const r = all[i], bi = BigInt(i);
  let ok = r.seq === bi && r.ts_nanos === 1000000000000n + 100n * bi && r.event === kinds[kindOf(i)];
  if (kindOf(i) === 0)
    ok &&= r.conn_id === (1n << 63n) - 7n * BigInt(N / 2) + 7n * bi && r.pkt === mix(bi) &&
           r.code === (i % 13 === 0 || i % 7 === 2 ? null : BigInt(i % 7) - 3n) && r.tag === ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'][i % 8];
  else ok &&= r.conn_id === null && r.pkt === null;
  if (!check(ok, `full scan row ${i}: ${JSON.stringify(r, (k, v) => (typeof v === 'bigint' ? String(v) : v))}`)) break;
}

// Each filter: DuckDB's answer (with row-group skipping) vs the scan filtered in JS.
const ts = (i) => 1000000000000n + 100n * BigInt(i);
const cid = (i) => (1n << 63n) - 7n * BigInt(N / 2) + 7n * BigInt(i);
const filters = [
  [`ts_nanos BETWEEN ${ts(3000)} AND ${ts(3100)}`, (r) => r.ts_nanos >= ts(3000) && r.ts_nanos <= ts(3100)],
  [`ts_nanos BETWEEN ${ts(1499)} AND ${ts(1500)}`, (r) => r.ts_nanos >= ts(1499) && r.ts_nanos <= ts(1500)],
  [`ts_nanos BETWEEN ${ts(0)} AND ${ts(0)}`, (r) => r.ts_nanos === ts(0)],
  [`ts_nanos BETWEEN ${ts(N - 1)} AND ${ts(N + 5)}`, (r) => r.ts_nanos >= ts(N - 1)],
  [`ts_nanos BETWEEN ${ts(100)} + 1 AND ${ts(101)} - 1`, () => false],
  [`ts_nanos > ${ts(17777)}`, (r) => r.ts_nanos > ts(17777)],
  [`ts_nanos < ${ts(10)}`, (r) => r.ts_nanos < ts(10)],
  [`conn_id BETWEEN ${cid(9000)} AND ${cid(11000)}`, (r) => r.conn_id !== null && r.conn_id >= cid(9000) && r.conn_id <= cid(11000)],
  [`conn_id >= ${1n << 63n}`, (r) => r.conn_id !== null && r.conn_id >= (1n << 63n)],
  [`conn_id < ${1n << 63n}`, (r) => r.conn_id !== null && r.conn_id < (1n << 63n)],
  [`conn_id BETWEEN ${cid(15000)} AND ${cid(15000)}`, (r) => r.conn_id === cid(15000)],
  [`conn_id = ${cid(12345)}`, (r) => r.conn_id === cid(12345)],
  [`conn_id > ${M - 5n}`, () => false],
  [`"gen::Packet".pkt > ${(1n << 63n) + (1n << 62n)}`, (r) => r.pkt !== null && r.pkt > (1n << 63n) + (1n << 62n)],
  [`"gen::Packet".len BETWEEN 100 AND 200`, (r) => r.len !== null && r.len >= 100n && r.len <= 200n],
  [`"gen::Packet".code = -3`, (r) => r.code === -3n],
  [`"gen::Packet".code IS NULL AND event = 'gen::Packet'`, (r) => r.code === null && r.event === 'gen::Packet'],
  [`"gen::Packet".tag = 'beta'`, (r) => r.tag === 'beta'],
  [`"gen::Packet".tag >= 'theta'`, (r) => r.tag !== null && r.tag >= 'theta'],
  [`event = 'gen::Tick'`, (r) => r.event === 'gen::Tick'],
  [`span BETWEEN 5000 AND 5100`, (r) => r.span !== null && r.span >= 5000n && r.span <= 5100n],
  [`ts_nanos BETWEEN ${ts(4000)} AND ${ts(9000)} AND conn_id >= ${cid(8000)}`,
   (r) => r.ts_nanos >= ts(4000) && r.ts_nanos <= ts(9000) && r.conn_id !== null && r.conn_id >= cid(8000)],
];
for (const [where, pred] of filters) {
  const got = (await q(`SELECT seq FROM t WHERE ${where} ORDER BY seq`)).map((r) => r.seq);
  const want = all.filter(pred).map((r) => r.seq);
  check(got.length === want.length && got.every((s, i) => s === want[i]),
        `WHERE ${where}: ${got.length} rows, full scan finds ${want.length}`);
}
// The statistics actually bound each row group (so engines can skip): ts_nanos min/max.
const st = await q(`SELECT row_group_id AS g, stats_min_value AS lo, stats_max_value AS hi
  FROM parquet_metadata(${sqlStr(out)}) WHERE path_in_schema = 'ts_nanos' ORDER BY g`);
st.forEach((s, g) => check(s.lo === String(ts(g * RG)) && s.hi === String(ts(Math.min(N, (g + 1) * RG) - 1)),
                             `row group ${g}: ts_nanos stats ${s.lo}..${s.hi}`));
// The memory budget closes row groups early (every 8192 rows with a 1-byte budget); the
// table is the same.
const small = path.join(work, 'budget.parquet');
convert(kind, tool, [dump], small, { BACKBEAT_PARQUET_BUDGET: '1' });
const sg = await q(`SELECT row_group_id AS g, row_group_num_rows AS n FROM parquet_metadata(${sqlStr(small)}) WHERE path_in_schema = 'seq' ORDER BY g`);
check(sg.length === Math.ceil(N / 8192) && sg.slice(0, -1).every((g) => g.n === 8192n), `budget row groups ${JSON.stringify(sg.map((g) => String(g.n)))}`);
const diff = await q(`SELECT count(*) AS n FROM (SELECT * FROM read_parquet(${sqlStr(small)}) EXCEPT ALL SELECT * FROM t)`);
const cnt = await q(`SELECT count(*) AS n FROM read_parquet(${sqlStr(small)})`);
check(diff[0].n === 0n && cnt[0].n === BigInt(N), 'budget-limited file holds the same rows');
fs.rmSync(work, { recursive: true, force: true });
finish(`${filters.length} range filters over ${groups.length} row groups agree with a full scan`);
