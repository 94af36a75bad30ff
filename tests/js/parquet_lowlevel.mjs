// parquet_lowlevel.mjs — the encoding layer alone (tests/parquet/pq_lowlevel.c: tiny pages,
// dictionary fallback, an optional struct with optional leaves, 5 row groups, u64 values
// above 2^63) read back value by value by DuckDB and hyparquet, plus its statistics.
//
// Usage: node parquet_lowlevel.mjs PQ_LOWLEVEL
// SPDX-License-Identifier: MIT
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import fs from 'node:fs';
import { check, compareRows, duckRows, finish, hypRows, readers, sqlStr, tmpDir } from './parquet_common.mjs';

const [tool] = process.argv.slice(2);
const { duck, hyp, compressors } = await readers();
const work = tmpDir('pqlow');
const out = path.join(work, 'low.parquet');
execFileSync(tool, [out], { stdio: 'inherit' });

const M = (1n << 64n) - 1n;
const E = [1n, (1n << 63n) + 5n, M, 7n];
const want = [];
for (let i = 0; i < 30000; i++) {
  const bi = BigInt(i);
  want.push({
    a: (bi * 0x9E3779B97F4A7C15n) & M,
    s: i % 7 === 0 ? null : i < 20000 ? `v${i % 50}` : `u${i}`,
    g: i % 3 === 0 ? null : { x: i % 5 === 0 ? null : -(bi * 1000n), b: i % 2 === 0 },
    e: i % 11 === 0 ? null : E[i % 4],
  });
}
compareRows('duckdb', await duckRows(duck, out), want);
compareRows('hyparquet', await hypRows(hyp, compressors, out), want);

// Statistics: each row group's min/max/null_count match the rows it holds.
const meta = await duckRows(duck, out, `SELECT row_group_id AS g, path_in_schema AS p, stats_min_value AS lo,
  stats_max_value AS hi, stats_null_count AS nulls, row_group_num_rows AS n FROM parquet_metadata(${sqlStr(out)})`);
let start = 0;
for (let g = 0; g < 5; g++) {
  const rows = want.slice(start, start + 7000);
  start += 7000;
  const col = (p) => meta.find((m) => Number(m.g) === g && m.p === p);
  const stat = (p, vals) => {
    const m = col(p);
    const nn = vals.filter((v) => v !== null);
    check(m && BigInt(m.nulls) === BigInt(vals.length - nn.length), `rg ${g} ${p}: null_count ${m && m.nulls}`);
    if (nn.length) {
      const lo = nn.reduce((x, y) => (y < x ? y : x)), hi = nn.reduce((x, y) => (y > x ? y : x));
      check(String(m.lo) === String(lo) && String(m.hi) === String(hi), `rg ${g} ${p}: min/max ${m.lo}..${m.hi}, want ${lo}..${hi}`);
    }
  };
  stat('a', rows.map((r) => r.a));
  stat('e', rows.map((r) => r.e));
  stat('g, x', rows.map((r) => (r.g ? r.g.x : null)));
  stat('s', rows.map((r) => r.s));
}
// Range filters that use those statistics return what a scan finds.
for (const [lo, hi] of [[(1n << 63n), M], [0n, 5n], [7n, 7n], [(1n << 63n) + 5n, (1n << 63n) + 5n]]) {
  const got = await duckRows(duck, out, `SELECT count(*) AS n FROM read_parquet(${sqlStr(out)}) WHERE e BETWEEN ${lo} AND ${hi}`);
  const exp = want.filter((r) => r.e !== null && r.e >= lo && r.e <= hi).length;
  check(got[0].n === BigInt(exp), `e BETWEEN ${lo} AND ${hi}: ${got[0].n}, want ${exp}`);
}
fs.rmSync(work, { recursive: true, force: true });
finish('encoding layer read back by DuckDB and hyparquet');
