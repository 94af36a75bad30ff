// parquet_wide.mjs — a wide table: 400 event types (pq_gendump OUT wide N), ~1600 group leaves
// sharing one promoted key column `k`, converted with small row groups so every leaf gets
// mostly-NULL pages in several row groups. DuckDB and hyparquet read every row's own group
// back exactly (a = i, b = -(i % 1000), tag, k = 3i), other groups NULL (a sample of groups).
//
// Usage: node parquet_wide.mjs cli|driver TOOL PQ_GENDUMP
// SPDX-License-Identifier: MIT
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { check, convert, duckRows, finish, readers, sqlStr, tmpDir } from './parquet_common.mjs';

const [kind, tool, gendump] = process.argv.slice(2);
const { duck, hyp, compressors } = await readers();
const work = tmpDir('pqwide');
const N = 20000, EV = 400;
const dump = path.join(work, 'wide.bb');
const out = path.join(work, 'wide.parquet');
execFileSync(gendump, [dump, 'wide', String(N)], { stdio: 'inherit' });
convert(kind, tool, [dump], out, { BACKBEAT_PARQUET_ROW_GROUP: '6000' });

const M = (1n << 64n) - 1n;
const mix = (x) => {
  x ^= x >> 33n; x = (x * 0xff51afd7ed558ccdn) & M; x ^= x >> 33n; x = (x * 0xc4ceb9fe1a85ec53n) & M; x ^= x >> 33n;
  return x;
};
const name = (e) => `wide::E${String(e).padStart(3, '0')}`;
const evOf = Array.from({ length: N }, (_, i) => Number(mix(BigInt(i)) % BigInt(EV)));
const tags = ['red', 'green', 'blue'];

// Columns read back: the dense ones, `k`, and a sample of 24 groups (all 400 exist: checked
// from the schema); every row's own group is checked when sampled, the others must be NULL.
const sample = [...Array.from({ length: 20 }, (_, e) => e), 199, 257, 398, 399];
const cols = ['seq', 'event', 'k', ...sample.map(name)];
function checkRows(who, rows) {
  if (!check(rows.length === N, `${who}: ${rows.length} rows`)) return;
  let bad = 0, own = 0;
  for (let i = 0; i < N && bad < 5; i++) {
    const r = rows[i], e = evOf[i];
    let ok = r.seq === BigInt(i) && r.event === name(e) && r.k === 3n * BigInt(i);
    for (const o of sample) {
      const g = r[name(o)];
      if (o === e) {
        own++;
        ok &&= g !== null && g.a === BigInt(i) && g.b === -BigInt(i % 1000) && g._p === '0000' && g.tag === tags[i % 3];
      } else {
        ok &&= g === null;
      }
    }
    if (!check(ok, `${who}: row ${i}`)) bad++;
  }
  check(own > 500, `${who}: ${own} rows of sampled events`);
}
const q = (c) => `"${c}"`;
checkRows('duckdb', await duckRows(duck, out, `SELECT ${cols.map(q).join(', ')} FROM read_parquet(${sqlStr(out)})`));
const buf = await hyp.asyncBufferFromFile(out);
checkRows('hyparquet', await hyp.parquetReadObjects({ file: buf, compressors, columns: cols }));
const schema = await duckRows(duck, out, `SELECT count(*) AS n FROM parquet_schema(${sqlStr(out)}) WHERE num_children = 4`);
check(schema[0].n === BigInt(EV), `${schema[0].n} event groups`);
const per = await duckRows(duck, out, `SELECT event, count(*) AS n FROM read_parquet(${sqlStr(out)}) GROUP BY event`);
const want = new Map();
for (const e of evOf) want.set(name(e), (want.get(name(e)) || 0) + 1);
check(per.length === want.size && per.every((p) => BigInt(want.get(p.event)) === p.n), 'rows per event');
fs.rmSync(work, { recursive: true, force: true });
finish(`${EV} event groups over ${N} rows read back by DuckDB and hyparquet`);
