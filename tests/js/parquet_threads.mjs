// parquet_threads.mjs — a table written with `convert --threads 4`, in many row groups
// (BACKBEAT_PARQUET_ROW_GROUP=3000: cuts inside the writer's batches) and with an early cut by
// the memory budget, reads back in DuckDB: every row, in order (seq and ts_nanos as
// pq_gendump wrote them, record i at ts 1e12 + 100 i), the row groups asked for, and the same
// rows, column for column, as the `--threads 1` file. (convert_threads.sh compares the bytes.)
//
// Usage: node parquet_threads.mjs BACKBEAT PQ_GENDUMP
// SPDX-License-Identifier: MIT
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { check, convert, duckRows, finish, readers, sqlStr, tmpDir } from './parquet_common.mjs';

const [tool, gendump] = process.argv.slice(2);
const { duck } = await readers();
const work = tmpDir('pqthreads');
const n = 70000;
const dump = path.join(work, 'big.bb');
execFileSync(gendump, [dump, String(n)], { stdio: 'ignore' });

for (const [tag, env, groups] of [['rows', { BACKBEAT_PARQUET_ROW_GROUP: '3000' }, Math.ceil(n / 3000)],
  ['budget', { BACKBEAT_PARQUET_BUDGET: '150000' }, null]]) {
  const one = path.join(work, `${tag}-1.parquet`), four = path.join(work, `${tag}-4.parquet`);
  convert('cli', tool, [dump], one, env, ['--threads', '1']);
  convert('cli', tool, [dump], four, env, ['--threads', '4']);
  const f4 = `read_parquet(${sqlStr(four)}, file_row_number = true)`;
  const [c] = await duckRows(duck, four, `SELECT count(*) AS n,
      count(*) FILTER (WHERE seq <> file_row_number) AS bad_seq,
      count(*) FILTER (WHERE ts_nanos <> 1000000000000 + 100 * file_row_number) AS bad_ts FROM ${f4}`);
  check(c.n === BigInt(n), `${tag}: ${c.n} rows, want ${n}`);
  check(c.bad_seq === 0n && c.bad_ts === 0n, `${tag}: ${c.bad_seq} rows out of seq order, ${c.bad_ts} with the wrong ts`);
  const [g] = await duckRows(duck, four, `SELECT count(DISTINCT row_group_id) AS g FROM parquet_metadata(${sqlStr(four)})`);
  if (groups) check(g.g === BigInt(groups), `${tag}: ${g.g} row groups, want ${groups}`);
  else check(g.g > 1n, `${tag}: ${g.g} row group(s), want an early cut by the budget`);
  const [d] = await duckRows(duck, four, `SELECT count(*) AS d FROM (
      (SELECT * FROM read_parquet(${sqlStr(four)}) EXCEPT ALL SELECT * FROM read_parquet(${sqlStr(one)}))
      UNION ALL
      (SELECT * FROM read_parquet(${sqlStr(one)}) EXCEPT ALL SELECT * FROM read_parquet(${sqlStr(four)})))`);
  check(d.d === 0n, `${tag}: ${d.d} rows differ between --threads 4 and --threads 1`);
}
fs.rmSync(work, { recursive: true, force: true });
finish('--threads 4 tables read back by DuckDB: every row in order, the row groups, the rows of --threads 1');
