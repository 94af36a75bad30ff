// parquet_codecs.mjs — `convert --compression zstd|snappy|gzip|none`: each codec's file reads
// back in DuckDB and hyparquet with exactly the golden rows of basic.bb (and, with
// --compression-level, gzip too), every column chunk names the codec asked for; on a larger
// dump (pq_gendump) `none` stores pages as they are and the others are smaller; an unknown
// codec is a usage error (exit 2) naming it.
//
// Usage: node parquet_codecs.mjs BACKBEAT PQ_GENDUMP
// SPDX-License-Identifier: MIT
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { check, compareRows, compatDir, convert, duckRows, expectedRows, finish, hypRows,
         layoutOf, readers, sqlStr, tmpDir } from './parquet_common.mjs';

const [tool, gendump] = process.argv.slice(2);
const compat = compatDir();
const { duck, hyp, compressors } = await readers();
const work = tmpDir('pqcodec');
const exp = JSON.parse(fs.readFileSync(path.join(compat, 'basic.expected.json'), 'utf8'));
const records = exp.instances[0].records.map((r) => ({ ...r, instance_id: exp.instances[0].instance_id }));
const want = expectedRows(layoutOf([exp.instances[0].schemas]), records);
const size = {};
for (const [codec, extra, thrift] of [['zstd', [], 'ZSTD'], ['snappy', [], 'SNAPPY'],
  ['gzip', [], 'GZIP'], ['gzip', ['--compression-level', '9'], 'GZIP'], ['none', [], 'UNCOMPRESSED']]) {
  const tag = `${codec}${extra.length ? '-9' : ''}`;
  const out = path.join(work, `${tag}.parquet`);
  convert('cli', tool, [path.join(compat, 'basic.bb')], out, {}, ['--compression', codec, ...extra]);
  compareRows(`${tag} duckdb`, await duckRows(duck, out), want);
  compareRows(`${tag} hyparquet`, await hypRows(hyp, compressors, out), want);
  const codecs = await duckRows(duck, out, `SELECT DISTINCT compression AS c FROM parquet_metadata(${sqlStr(out)})`);
  check(codecs.length === 1 && String(codecs[0].c).toUpperCase() === thrift,
        `${tag}: chunks compressed ${JSON.stringify(codecs)}, want ${thrift}`);
}
const big = path.join(work, 'big.bb');
execFileSync(gendump, [big, '20000'], { stdio: 'inherit' });
for (const codec of ['zstd', 'snappy', 'gzip', 'none']) {
  const out = path.join(work, `big-${codec}.parquet`);
  convert('cli', tool, [big], out, {}, ['--compression', codec]);
  const [m] = await duckRows(duck, out, `SELECT sum(total_compressed_size) AS c, sum(total_uncompressed_size) AS u, count(*) AS n FROM parquet_metadata(${sqlStr(out)})`);
  size[codec] = m.c;
  if (codec === 'none') check(m.c === m.u, `none: ${m.c} bytes stored for ${m.u}`);
  const [n] = await duckRows(duck, out, `SELECT count(*) AS n FROM read_parquet(${sqlStr(out)})`);
  check(n.n === 20000n, `big ${codec}: ${n.n} rows`);
}
for (const t of ['zstd', 'snappy', 'gzip'])
  check(size[t] < size.none, `${t} (${size[t]} bytes) is not smaller than none (${size.none})`);
const bad = spawnSync(tool, ['convert', path.join(compat, 'basic.bb'), '-o', path.join(work, 'x.parquet'),
  '--compression', 'lzo'], { encoding: 'utf8' });
check(bad.status === 2 && /--compression 'lzo'/.test(bad.stderr) && !fs.existsSync(path.join(work, 'x.parquet')),
      `unknown codec: exit ${bad.status}, ${bad.stderr}`);
fs.rmSync(work, { recursive: true, force: true });
finish('zstd, snappy, gzip and none read back by DuckDB and hyparquet');
