// trace_spans.mjs BACKBEAT CLI_GEN WORKDIR — traces of generated dumps with hard span cases:
// nesting, overlap without nesting on one shard, a span migrating between shards, two spans
// beginning at the same nanosecond, a span id re-entered while open, children that outlive their
// parent, an unclosed enter, an orphan exit, and a second instance reusing the same span ids (pairing is per instance).
// Timestamps are at Unix-epoch scale with odd nanoseconds. Checked by our own parse against
// the generator's records and by the DevTools trace engine.
// SPDX-License-Identifier: MIT
import fs from 'node:fs';
import path from 'node:path';
import { checkEngine, checkTrace, expectTrace, Failures, mustRun, skipUnlessEngine } from './trace_lib.mjs';

skipUnlessEngine();
const [B, GEN, W] = process.argv.slice(2);
fs.rmSync(W, { recursive: true, force: true });
fs.mkdirSync(W, { recursive: true });
const F = new Failures();
const d1 = path.join(W, 'spans1.bb'), d2 = path.join(W, 'spans2.bb');
mustRun(GEN, ['spans1', d1]);
mustRun(GEN, ['spans2', d2]);
const r1 = JSON.parse(fs.readFileSync(d1 + '.records.json', 'utf8'));
const r2 = JSON.parse(fs.readFileSync(d2 + '.records.json', 'utf8'));
const schemas = new Map([
  ['gen::TaskStart', { phase: 'enter', spanField: 'span' }],
  ['gen::TaskEnd', { phase: 'exit', spanField: 'span' }],
  ['gen::Note', { phase: 'none' }],
]);
// global order: (ts, instance, shard, write order within the shard)
const order = (recs) => recs.map((r, i) => ({ ...r, i })).sort((a, b) => {
  const ta = BigInt(a.ts), tb = BigInt(b.ts);
  if (ta !== tb) return ta < tb ? -1 : 1;
  if (a.instance_id !== b.instance_id) return a.instance_id < b.instance_id ? -1 : 1;
  if (a.shard !== b.shard) return a.shard - b.shard;
  return a.i - b.i;
});
const insts = [r1, r2].map((r) => ({ instance_id: r.instance_id, host: r.host }));

const cases = [
  ['spans1', [d1], order(r1.records), [insts[0]]],
  ['spans1+2', [d1, d2], order([...r1.records, ...r2.records]), insts],
];
const traces = {};
for (const [label, inputs, recs, procs] of cases) {
  const out = path.join(W, `${label}.json`);
  mustRun(B, ['convert', ...inputs, '-o', out]);
  const want = expectTrace(recs, schemas, procs);
  const res = checkTrace(out, want, F, label);
  if (!res) continue;
  traces[label] = { trace: res.trace, nodes: await checkEngine(res.trace, F, label), want };
}

// Spelled-out expectations on spans1 (µs relative to the first record).
{
  const { trace, nodes } = traces['spans1'];
  const ev = trace.traceEvents;
  const tname = new Map(ev.filter((e) => e.name === 'thread_name').map((e) => [`${e.pid}/${e.tid}`, e.args.name]));
  const X = (sid) => ev.filter((e) => e.ph === 'X' && e.args.span_id === sid);
  const one = (sid) => { const l = X(sid); F.check(l.length === 1, `span ${sid}: ${l.length} slices`); return l[0] ?? {}; };
  const node = (x) => nodes.get(`${x.pid}/${x.tid}/${Math.round(x.ts * 1000)}/${Math.round(x.dur * 1000)}/${x.name}`);
  const A = one(0xA), Bs = one(0xB), C = one(0xC), D = one(0xD), E = one(0xE), G = one(0x10);
  const H = one(0x11), I = one(0x12);
  F.check(A.name === 'gen::Task' && A.cat === 'gen', `A name/cat ${A.name}/${A.cat}`);
  F.check(A.ts === 1 && A.dur === 4.007, `A ts ${A.ts} dur ${A.dur}`);
  F.check(Bs.ts === 2.001 && Bs.dur === 1.002, `B ts ${Bs.ts} dur ${Bs.dur}`);
  F.check(A.tid === 1 && Bs.tid === 1, 'A and B on shard 0');
  F.check(node(Bs)?.parent?.entry?.args?.span_id === 0xA, 'engine: B is a child of A');
  const note = ev.find((e) => e.ph === 'I' && e.args.key === 2);
  F.check(note && note.args.value === null && note.args.tag === 'green', `note 2 ${JSON.stringify(note)}`);
  const nn = note && nodes.get(`${note.pid}/${note.tid}/${Math.round(note.ts * 1000)}/0/${note.name}`);
  F.check(nn?.parent?.entry?.args?.span_id === 0xB, 'engine: note 2 is inside B');
  F.check(C.tid === 2 && tname.get(`1/${D.tid}`)?.startsWith('shard 1 (overlap'),
          `C on shard 1, D on an overlap lane of shard 1 (${tname.get(`1/${D.tid}`)})`);
  F.check(C.dur === 2.013 && D.dur === 2.006, `C/D durations ${C.dur}/${D.dur}`);
  F.check(E.tid === 1 && E.args.enter_shard === 0 && E.args.exit_shard === 2 && E.dur === 2.019,
          `E migrates: ${JSON.stringify(E)}`);
  F.check(G.args['backbeat.unclosed'] === true && G.ts + G.dur === 20.041 && G.ts === 18.037,
          `G unclosed at the last ts: ${JSON.stringify(G)}`);
  F.check(H.ts === 15 && I.ts === 15 && H.tid !== I.tid && H.dur === 2.031 && I.dur === 1.029,
          `H/I same begin on different lanes: ${H.tid}/${I.tid}`);
  const orphan = ev.filter((e) => e.ph === 'I' && e.args['backbeat.orphan_exit']);
  F.check(orphan.length === 1 && orphan[0].args.span === 0xF && orphan[0].ts === 13.023 &&
          orphan[0].name === 'gen::TaskEnd', `orphan exit ${JSON.stringify(orphan)}`);
  const same = X(0x20).sort((a, b) => a.ts - b.ts);
  F.check(same.length === 2 && same[0].ts === 17.5 && same[0].dur === 0.3 && same[1].ts === 17.6 &&
          same[1].dur === 0.1 && same[0].tid === same[1].tid, `re-entered 0x20: ${JSON.stringify(same)}`);
  if (same.length === 2) F.check(node(same[1])?.parent?.entry === node(same[0])?.entry, 'engine: inner 0x20 under outer');
  // Shard 3: C (child of P) and G (child of C) outlive P: P keeps shard 3's thread whole (with K,
  // closed inside it), C and G move together to an overlap lane, G still inside C; R, begun
  // after P ended, takes the shard's thread again.
  const P = one(0x30), Cc = one(0x31), Gc = one(0x32), R = one(0x33), K = one(0x34);
  F.check(P.tid === 4 && K.tid === 4 && R.tid === 4, `P/K/R on shard 3's thread: ${P.tid}/${K.tid}/${R.tid}`);
  F.check(Cc.tid === Gc.tid && tname.get(`1/${Cc.tid}`)?.startsWith('shard 3 (overlap'),
          `C and G together on an overlap lane of shard 3: ${Cc.tid}/${Gc.tid} ${tname.get(`1/${Cc.tid}`)}`);
  F.check(node(Gc)?.parent?.entry?.args?.span_id === 0x31, 'engine: G is a child of C');
  F.check(node(K)?.parent?.entry?.args?.span_id === 0x30, 'engine: K is drawn inside P');
  // absolute precision: base + ts reconstructs the odd nanoseconds
  F.check(trace.otherData['backbeat.base_ts_nanos'] === '1764680000123456789', 'base ts');
}
// spans1+2: instance 2 pairs its own A/B (pid 2), instance 1's are untouched
{
  const ev = traces['spans1+2'].trace.traceEvents;
  const p2 = ev.filter((e) => e.ph === 'X' && e.pid === 2);
  F.check(p2.length === 2, `instance 2: ${p2.length} slices`);
  const a2 = p2.find((e) => e.args.span_id === 0xA);
  F.check(a2 && a2.ts === 1.5 && a2.dur === 2.5, `instance 2 A ${JSON.stringify(a2)}`);
  const a1 = ev.find((e) => e.ph === 'X' && e.pid === 1 && e.args.span_id === 0xA);
  F.check(a1 && a1.ts === 1 && a1.dur === 4.007, `instance 1 A ${JSON.stringify(a1)}`);
  const pn = ev.filter((e) => e.name === 'process_name').map((e) => e.args.name);
  F.check(pn.some((n) => n.includes('gen-host-2') && n.includes('fe00000000000002')), `process names ${pn}`);
}
F.finish();
