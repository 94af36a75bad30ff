// trace_golden.mjs BACKBEAT WORKDIR — every golden dump (and the multi sets read together)
// converted to a trace: our own parse checks every slice and instant against the golden
// expected.json values and the three Perfetto traps; the DevTools trace engine
// (@paulirish/trace_engine) loads it and must keep every slice with its begin, duration and
// nesting.
// SPDX-License-Identifier: MIT
import fs from 'node:fs';
import path from 'node:path';
import { checkEngine, checkTrace, compatDir, expectTrace, Failures, goldenSingle, mustRun, traceSchema,
         skipUnlessEngine } from './trace_lib.mjs';

skipUnlessEngine();
const [B, W] = process.argv.slice(2);
const C = compatDir();
fs.rmSync(W, { recursive: true, force: true });
fs.mkdirSync(W, { recursive: true });
const F = new Failures();
const load = (n) => JSON.parse(fs.readFileSync(path.join(C, n), 'utf8'));

const singles = fs.readdirSync(C).filter((f) => f.endsWith('.bb')).map((f) => f.slice(0, -3));
let slicesSeen = 0;
for (const name of singles) {
  const exp = load(`${name}.expected.json`);
  const out = path.join(W, `${name}.json`);
  mustRun(B, ['convert', path.join(C, `${name}.bb`), '-o', out]);
  const g = goldenSingle(exp);
  const want = expectTrace(g.recs, g.schemas, g.insts);
  slicesSeen += want.slices.length;
  const res = checkTrace(out, want, F, name);
  if (res) await checkEngine(res.trace, F, name);
}
F.check(slicesSeen >= 3, `only ${slicesSeen} slices expected over the golden dumps`);

// basic.bb: the spans of the fixture, spelled out (S1 on shard 0 with S2 on shard 1 inside
// it in time, S3 unclosed, S4 an orphan exit).
{
  const t = JSON.parse(fs.readFileSync(path.join(W, 'basic.json'), 'utf8')).traceEvents;
  const xs = t.filter((e) => e.ph === 'X').sort((a, b) => a.ts - b.ts);
  F.check(xs.length === 3, `basic: ${xs.length} slices`);
  const want = [[1, 2, 7, undefined], [2, 4, 3, undefined], [1, 11, 9, true]];
  want.forEach(([tid, ts, dur, unclosed], i) => {
    const x = xs[i];
    if (!x) return;
    F.check(x.name === 'fixture::Work' && x.tid === tid && x.ts === ts && x.dur === dur &&
            x.args['backbeat.unclosed'] === unclosed, `basic: slice ${i}: ${JSON.stringify(x)}`);
  });
  const orphan = t.filter((e) => e.ph === 'I' && e.args['backbeat.orphan_exit']);
  F.check(orphan.length === 1 && orphan[0].name === 'fixture::WorkEnd' && orphan[0].ts === 12,
          `basic: orphan exit ${JSON.stringify(orphan)}`);
}

// --host overrides the process name
{
  const out = path.join(W, 'basic_host.json');
  mustRun(B, ['convert', path.join(C, 'basic.bb'), '-o', out, '--host', 'override-host']);
  const g = goldenSingle(load('basic.expected.json'));
  checkTrace(out, expectTrace(g.recs, g.schemas, g.insts), F, 'basic --host', 'override-host');
}

// stdout output equals file output
{
  const r = mustRun(B, ['convert', path.join(C, 'basic.bb'), '--format', 'trace', '-o', '-']);
  F.check(r.stdout === fs.readFileSync(path.join(W, 'basic.json'), 'utf8'), 'basic: -o - differs from the file output');
}

// multi dumps read together: the de-duplicated union
for (const [set, inputs] of [['multi_ab', ['multi_a', 'multi_b']],
                             ['multi_abo', ['multi_a', 'multi_b', 'multi_other']]]) {
  const exp = load(`${set}.expected.json`);
  const schemas = new Map(), insts = new Map();
  for (const i of inputs) {
    const e = load(`${i}.expected.json`);
    for (const inst of e.instances) {
      if (!insts.has(inst.instance_id)) insts.set(inst.instance_id, inst.host);
      for (const s of inst.schemas) schemas.set(s.name, traceSchema(s));
    }
  }
  const procs = [...insts].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([id, host]) => ({ instance_id: id, host }));
  const recs = exp.records.map((r) => ({ ...r, display: r.display_event }));
  const out = path.join(W, `${set}.json`);
  mustRun(B, ['convert', ...inputs.map((i) => path.join(C, `${i}.bb`)), '-o', out]);
  const want = expectTrace(recs, schemas, procs);
  F.check(want.instants.length === exp.record_count, `${set}: ${want.instants.length} instants expected`);
  const res = checkTrace(out, want, F, set);
  if (res) await checkEngine(res.trace, F, set);
}
F.finish();
