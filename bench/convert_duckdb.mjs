// convert_duckdb.mjs — the peer of the convert benchmark: DuckDB (one thread) writing the same
// table to zstd Parquet. The table is loaded into memory from the Parquet file backbeat wrote
// (same rows, same columns), then only the COPY is timed.
//
// Usage: node bench/convert_duckdb.mjs IN.parquet OUT.parquet [LEVEL [REPEAT [THREADS [CMD...]]]]
//   (best of REPEAT; THREADS: DuckDB's threads, default 1)
//   prints: duckdb_rows=N duckdb_seconds=S (wall) duckdb_cpu=C (user+system) duckdb_bytes=B
// With CMD (ours, e.g. a `backbeat convert`), each of the REPEAT rounds runs the COPY and then
// CMD (timed by /usr/bin/time; its -o output removed first, as DuckDB's), and the medians of
// both are printed instead of the best:
//   duckdb_seconds=S duckdb_cpu=C ours_seconds=S ours_cpu=C ratios=R1,R2,.. (per round,
//   DuckDB's time / ours): the two side by side in the same minutes of a shared host.
// SPDX-License-Identifier: MIT
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'tests', 'js', 'package.json'));
const duck = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const [input, output, level = '3', repeat = '1', threads = '1', ...cmd] = process.argv.slice(2);
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const db = await duck.DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`SET threads = ${Math.max(1, Number(threads))}`);
await con.run('SET preserve_insertion_order = true');
await con.run(`CREATE TABLE t AS SELECT * FROM read_parquet(${q(input)})`);
const n = (await con.runAndReadAll('SELECT count(*) AS n FROM t')).getRowObjectsJS()[0].n;
// One timed COPY: [wall s, CPU s].
async function copy() {
  fs.rmSync(output, { force: true });
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await con.run(`COPY t TO ${q(output)} (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL ${Number(level)})`);
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(c0);
  return [s, (cpu.user + cpu.system) / 1e6];
}

// One timed run of CMD: [wall s, CPU s] (/usr/bin/time); exits on failure. Its output (the
// argument after -o) and sidecar are removed first, untimed, as DuckDB's is before each COPY:
// replacing the last round's file would add the freeing of its blocks to ours alone (20-35 ms
// for a 10 M-record file on ext4, in the rename).
function ours() {
  const o = cmd.indexOf('-o');
  if (o >= 0 && o + 1 < cmd.length) {
    fs.rmSync(cmd[o + 1], { force: true });
    fs.rmSync(`${cmd[o + 1]}.views.sql`, { force: true });
  }
  const tf = path.join(os.tmpdir(), `bb_duck_time_${process.pid}.txt`);
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S', '-o', tf, ...cmd], { stdio: 'ignore' });
  if (r.status !== 0) {
    console.error(`convert_duckdb: ${cmd.join(' ')} failed`);
    process.exit(1);
  }
  const [e, u, sy] = fs.readFileSync(tf, 'utf8').trim().split(/\s+/).map(Number);
  fs.rmSync(tf, { force: true });
  return [e, u + sy];
}

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor((a.length - 1) / 2)];
const rounds = Math.max(1, Number(repeat));
if (cmd.length) {
  const dw = [], dc = [], ow = [], oc = [], ratios = [];
  for (let r = 0; r < rounds; r++) {
    const [s, c] = await copy();
    const [os_, oc_] = ours();
    dw.push(s); dc.push(c); ow.push(os_); oc.push(oc_); ratios.push(s / os_);
  }
  console.log(`duckdb_rows=${n} duckdb_seconds=${median(dw).toFixed(3)} duckdb_cpu=${median(dc).toFixed(3)} ` +
              `ours_seconds=${median(ow).toFixed(3)} ours_cpu=${median(oc).toFixed(3)} ` +
              `ratios=${ratios.map((x) => x.toFixed(2)).join(',')} duckdb_bytes=${fs.statSync(output).size}`);
} else {
  let secs = Infinity, cpuSecs = 0;
  for (let r = 0; r < rounds; r++) {
    const [s, c] = await copy();
    if (s < secs) { secs = s; cpuSecs = c; }
  }
  console.log(`duckdb_rows=${n} duckdb_seconds=${secs.toFixed(3)} duckdb_cpu=${cpuSecs.toFixed(3)} ` +
              `duckdb_bytes=${fs.statSync(output).size}`);
}
