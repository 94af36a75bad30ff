// merge_check.mjs BACKBEAT CLI_GEN WORKDIR — `backbeat merge`, default (decode, dedup, re-pack)
// and --no-dedup (splice): converting the merged dump gives the same trace events (every record,
// field, instance, shard and span) as converting its inputs together; the merged dump is
// well-formed (inspect: instances, hosts, unioned intern tables, views once, and each ring either
// kept where it was, with the same duplicate keys, so the merged dump converted with its inputs
// adds nothing, or re-packed compactly with nothing skipped). When DuckDB is installed (tests/js), the same holds
// for Parquet rows: every column of every row equal.
// SPDX-License-Identifier: MIT
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';

const [B, GEN, W] = process.argv.slice(2);
const C = process.env.BACKBEAT_COMPAT_DIR || '/work/shared/compat';
if (!fs.existsSync(path.join(C, 'basic.bb'))) { console.log('skipped: no golden vectors'); process.exit(77); }
fs.rmSync(W, { recursive: true, force: true });
fs.mkdirSync(W, { recursive: true });
const fails = [];
const check = (c, m) => { if (!c) fails.push(m); return c; };
const run = (args, cmd = B) => {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return r;
};
const trace = (inputs, name) => {
  const out = path.join(W, name);
  run(['convert', ...inputs, '-o', out]);
  return JSON.parse(fs.readFileSync(out, 'utf8'));
};
const inspect = (f) => JSON.parse(run(['inspect', '--json', f]).stdout);

run(['spans1', path.join(W, 'spans1.bb')], GEN);
run(['spans2', path.join(W, 'spans2.bb')], GEN);
const g = (n) => path.join(C, n);
const sets = [
  ['multi', [g('multi_a.bb'), g('multi_b.bb'), g('multi_other.bb')], 50],
  ['multi_ab', [g('multi_a.bb'), g('multi_b.bb')], 38],
  ['basic_torn', [g('basic.bb'), g('torn.bb')], 24],
  ['wrapped', [g('wrapped.bb'), g('wrapped_suffix.bb')], null],
  ['spans', [path.join(W, 'spans1.bb'), path.join(W, 'spans2.bb')], null],
  ['empty', [g('empty.bb')], 0],
];
// DuckDB from tests/js/node_modules, if installed.
const modules = process.env.BB_NODE_MODULES || path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'js', 'node_modules');
let duck = null;
try {
  const req = createRequire(path.join(modules, '..', 'package.json'));
  duck = await import(req.resolve('@duckdb/node-api'));
} catch (e) {
  console.log(`no DuckDB (${e.message}): Parquet rows not compared`);
}
const parquetRows = async (inputs, name) => {
  const out = path.join(W, name);
  run(['convert', ...inputs, '-o', out]);
  const db = await duck.DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const r = await c.runAndReadAll(`SELECT * FROM read_parquet('${out.replaceAll("'", "''")}') ORDER BY seq`);
  return JSON.stringify(r.getRowObjectsJS(), (k, v) => (typeof v === 'bigint' ? `${v}n` : v));
};

let n = 0, keptSets = 0;
for (const [label, inputs, records] of sets) {
  const pTogether = duck ? await parquetRows(inputs, `${label}.together.parquet`) : null;
  const together = trace(inputs, `${label}.together.json`);
  for (const mode of [[], ['--no-dedup']]) {
    const m = path.join(W, `${label}${mode.length ? '.splice' : ''}.bb`);
    run(['merge', ...inputs, '-o', m, ...mode]);
    const merged = trace([m], `${label}.${n++}.json`);
    const tag = `${label} ${mode.join(' ') || 'default'}`;
    check(isDeepStrictEqual(merged.traceEvents, together.traceEvents) &&
          isDeepStrictEqual(merged.otherData, together.otherData),
          `${tag}: converting the merged dump differs from converting the inputs together`);
    if (duck) {
      const pm = await parquetRows([m], `${label}.${n}.parquet`);
      check(pm === pTogether, `${tag}: Parquet rows of the merged dump differ from the inputs' together`);
      check(records === null || JSON.parse(pm).length === records, `${tag}: Parquet has ${JSON.parse(pm).length} rows`);
    }
    const j = inspect(m);
    const total = j.instances.reduce((s, i) => s + i.record_count, 0);
    const ins = inputs.map(inspect);
    const ids = [...new Set(ins.flatMap((x) => x.instances.map((i) => i.instance_id)))].sort();
    check(isDeepStrictEqual(j.instances.map((i) => i.instance_id), ids), `${tag}: instances ${j.instances.map((i) => i.instance_id)}`);
    for (const i of j.instances) {
      const src = ins.flatMap((x) => x.instances).filter((x) => x.instance_id === i.instance_id);
      check(i.host === src[0].host, `${tag}: host of ${i.instance_id} = ${i.host}`);
    }
    const regIds = [...new Set(ins.flatMap((x) => x.registry.map((s) => s.id)))].sort();
    check(isDeepStrictEqual(j.registry.map((s) => s.id).sort(), regIds), `${tag}: registry is not the union`);
    const keptAll = { all: true, count: 0 };
    if (!mode.length) {
      if (records !== null) check(total === records, `${tag}: ${total} records, want ${records}`);
      for (const i of j.instances) {
        const src = ins.flatMap((x) => x.instances).filter((x) => x.instance_id === i.instance_id);
        const union = new Map();
        for (const s of src) for (const e of s.intern) if (!union.has(e.id)) union.set(e.id, e.value);
        check(isDeepStrictEqual(i.intern, [...union].sort((a, b) => a[0] - b[0]).map(([id, value]) => ({ id, value }))),
              `${tag}: intern of ${i.instance_id} ${JSON.stringify(i.intern)}`);
        const shardIds = [...new Set(src.flatMap((s) => s.shards.map((x) => x.shard_id)))].sort((a, b) => a - b);
        check(isDeepStrictEqual(i.shards.map((s) => s.shard_id), shardIds), `${tag}: shards ${i.shards.map((s) => s.shard_id)}`);
        for (const s of i.shards) {
          // Positions kept (the inputs' capacity, a head no later than theirs: the records where
          // they were, so the same duplicate keys), or re-packed compactly with nothing skipped.
          const from = src.flatMap((x) => x.shards).filter((x) => x.shard_id === s.shard_id);
          const kept = from.every((x) => x.capacity === s.capacity) && s.head > 0 &&
                       s.head <= Math.max(...from.map((x) => x.head));
          if (kept) keptAll.count++;
          else keptAll.all = false;
          check(kept || (s.skipped_bytes === 0 && s.capacity >= s.head && (s.capacity & (s.capacity - 1)) === 0 &&
                (s.head === 0 || s.capacity < 2 * s.head || s.capacity === 64)),
                `${tag}: shard ${s.shard_id} neither kept nor compact: ${JSON.stringify(s)}`);
        }
      }
      const views = new Set(ins.flatMap((x) => x.views.map((v) => v.size)));
      check(j.view_count <= ins.reduce((s, x) => s + x.view_count, 0) && j.view_count >= (views.size ? 1 : 0),
            `${tag}: ${j.view_count} views`);
      // Every ring kept its positions: the merged dump converted with its inputs adds nothing.
      if (keptAll.all && keptAll.count) {
        const withInputs = trace([m, ...inputs], `${label}.${n++}.with.json`);
        check(isDeepStrictEqual(withInputs.traceEvents, together.traceEvents),
              `${tag}: the merged dump converted with its inputs duplicates records`);
        keptSets++;
      }
      // merging a merged dump again changes nothing
      const m2 = path.join(W, `${label}.again.bb`);
      run(['merge', m, '-o', m2]);
      check(Buffer.compare(fs.readFileSync(m), fs.readFileSync(m2)) === 0, `${tag}: merge is not idempotent`);
    } else {
      const sections = ins.reduce((s, x) => s + x.sections.filter((q) => q.kind !== 0).length, 0) + 1;
      check(j.section_count === sections, `${tag}: ${j.section_count} sections, want ${sections}`);
    }
  }
}
// basic + torn (the same instance): the views appear once in the re-packed dump
{
  const j = inspect(path.join(W, 'basic_torn.bb'));
  check(j.view_count === 2, `basic_torn: ${j.view_count} views, want 2`);
  const s = inspect(path.join(W, 'basic_torn.splice.bb'));
  check(s.view_count === 4, `basic_torn --no-dedup: ${s.view_count} views, want 4`);
}
check(keptSets > 0, 'no merge kept its rings\' positions');
if (fails.length) { fails.forEach((f) => console.error('FAIL: ' + f)); process.exit(1); }
console.log(`ok (${keptSets} merges kept every ring's positions)`);
