// convert_duckdb.mjs — the peer of the convert benchmark: DuckDB (one thread) writing the same
// table to zstd Parquet. The table is loaded into memory from the Parquet file backbeat wrote
// (same rows, same columns), then only the COPY is timed.
//
// Usage: node bench/convert_duckdb.mjs IN.parquet OUT.parquet [LEVEL [REPEAT [THREADS]]]
//   (best of REPEAT; THREADS: DuckDB's threads, default 1)
//   prints: duckdb_rows=N duckdb_seconds=S (wall) duckdb_cpu=C (user+system) duckdb_bytes=B
// SPDX-License-Identifier: MIT
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'tests', 'js', 'package.json'));
const duck = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const [input, output, level = '3', repeat = '1', threads = '1'] = process.argv.slice(2);
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const db = await duck.DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`SET threads = ${Math.max(1, Number(threads))}`);
await con.run('SET preserve_insertion_order = true');
await con.run(`CREATE TABLE t AS SELECT * FROM read_parquet(${q(input)})`);
const n = (await con.runAndReadAll('SELECT count(*) AS n FROM t')).getRowObjectsJS()[0].n;
let secs = Infinity, cpuSecs = 0;
for (let r = 0; r < Math.max(1, Number(repeat)); r++) {
  fs.rmSync(output, { force: true });
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await con.run(`COPY t TO ${q(output)} (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL ${Number(level)})`);
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(c0);
  if (s < secs) { secs = s; cpuSecs = (cpu.user + cpu.system) / 1e6; }
}
console.log(`duckdb_rows=${n} duckdb_seconds=${secs.toFixed(3)} duckdb_cpu=${cpuSecs.toFixed(3)} ` +
            `duckdb_bytes=${fs.statSync(output).size}`);
