// parquet_strings.mjs — many long interned strings referenced by many records (pq_genstrings):
// 300 strings of 8 KiB (2.4 MB of distinct text, more than a dictionary's usual 1 MiB limit and
// many more addresses than a small cache holds) in 30 000 rows. DuckDB and hyparquet read
// every row's string back exactly; the column stays dictionary-encoded (its uncompressed
// chunk is about the distinct text, not rows x 8 KiB), and the dictionary of dump text does
// not count against the memory budget (a 1.5 MiB budget, below the 2.4 MB of text but above
// the ~1.2 MB the other columns' open pages hold, `ts` included, still gives one row group).
//
// Usage: node parquet_strings.mjs cli|driver TOOL PQ_GENSTRINGS
// SPDX-License-Identifier: MIT
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { check, convert, duckRows, finish, readers, sqlStr, tmpDir } from './parquet_common.mjs';

const [kind, tool, gen] = process.argv.slice(2);
const { duck, hyp, compressors } = await readers();
const work = tmpDir('pqstr');
const NSTR = 300, LEN = 8192, N = 30000;
const dump = path.join(work, 's.bb');
const out = path.join(work, 's.parquet');
execFileSync(gen, [dump, String(NSTR), String(LEN), String(N)], { stdio: 'inherit' });
convert(kind, tool, [dump], out, { BACKBEAT_PARQUET_BUDGET: String(3 << 19) });

// The generator's strings, recomputed (pq_genstrings.c).
const text = (k) => {
  const pre = `${k}:`;
  let s = pre;
  for (let j = 0; s.length < LEN; j++) s += String.fromCharCode(97 + (k * 31 + j * 7 + Math.floor(j / 64)) % 26);
  return s;
};
const strs = Array.from({ length: NSTR }, (_, k) => text(k));
const want = (i) => strs[(i * 7919) % NSTR];

function checkRows(who, rows) {
  if (!check(rows.length === N, `${who}: ${rows.length} rows`)) return;
  let bad = 0;
  for (let i = 0; i < N && bad < 5; i++) {
    const g = rows[i]['strs::S'];
    if (!check(g !== null && g.i === BigInt(i) && g.s === want(i), `${who}: row ${i}`)) bad++;
  }
}
checkRows('duckdb', await duckRows(duck, out, `SELECT "strs::S" FROM read_parquet(${sqlStr(out)}) ORDER BY seq`));
const buf = await hyp.asyncBufferFromFile(out);
checkRows('hyparquet', await hyp.parquetReadObjects({ file: buf, compressors, columns: ['strs::S'] }));

const meta = await duckRows(duck, out, `SELECT row_group_id, total_uncompressed_size AS u, encodings
  FROM parquet_metadata(${sqlStr(out)}) WHERE path_in_schema LIKE '%strs::S%s'`);
check(meta.length === 1, `one row group (dump text does not count against the budget): ${meta.length}`);
if (meta.length) {
  const u = Number(meta[0].u);
  check(/RLE_DICTIONARY/.test(meta[0].encodings), `s chunk dictionary-encoded: ${meta[0].encodings}`);
  check(u < 2 * NSTR * LEN + 8 * N, `s chunk ${u} bytes uncompressed, about the distinct text (${NSTR * LEN})`);
}
// All distinct in the first 4096 values (5000 strings), but each recurs 10 times over the
// chunk: a dictionary of interned text still pays and is kept.
{
  const NS = 5000, L = 64, R = 50000;
  const d2 = path.join(work, 'd.bb'), o2 = path.join(work, 'd.parquet');
  execFileSync(gen, [d2, String(NS), String(L), String(R)], { stdio: 'inherit' });
  convert(kind, tool, [d2], o2);
  const m2 = await duckRows(duck, o2, `SELECT total_uncompressed_size AS u, encodings
    FROM parquet_metadata(${sqlStr(o2)}) WHERE path_in_schema LIKE '%strs::S%s'`);
  const u = m2.reduce((a, r) => a + Number(r.u), 0);
  check(m2.length >= 1 && m2.every((r) => /RLE_DICTIONARY/.test(r.encodings)), 'mostly-distinct interned text: dictionary kept');
  check(u < 2 * NS * (L + 4) + 8 * R, `mostly-distinct interned text: ${u} bytes uncompressed`);
  const rows = await duckRows(duck, o2, `SELECT count(*) AS n FROM read_parquet(${sqlStr(o2)})
    WHERE "strs::S".s = ${sqlStr((() => { let s = `${(5 * 7919) % NS}:`; for (let j = 0; s.length < L; j++) s += String.fromCharCode(97 + (((5 * 7919) % NS) * 31 + j * 7 + Math.floor(j / 64)) % 26); return s; })())}`);
  check(rows[0].n === BigInt(R / NS), `a string's rows: ${rows[0].n}`);
}
fs.rmSync(work, { recursive: true, force: true });
finish(`${N} rows over ${NSTR} interned strings of ${LEN} bytes, dictionary-encoded, read back by DuckDB and hyparquet`);
