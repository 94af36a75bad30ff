// trace_async.mjs BACKBEAT CLI_GEN WORKDIR — trace lanes by ancestry on the async-server
// pattern (cli_gen async: 60 interleaved requests on one shard, each with 1-3 child spans, up
// to 3 deep, one request open for the whole trace). Checked by our own parse against the
// generator's records and by the DevTools trace engine (which must keep every slice): every
// child slice is inside its parent's slice on the same lane and the engine's parent, no slice is
// nested in a slice it does not descend from (by parent_span_id), and there are exactly as many
// lanes as requests in flight at once (no overflow lane while a lane is free). Prints the max
// depth, the lanes and the overflow lanes.
// SPDX-License-Identifier: MIT
import fs from 'node:fs';
import path from 'node:path';
import { checkEngine, checkTrace, expectTrace, Failures, mustRun, skipUnlessEngine } from './trace_lib.mjs';

skipUnlessEngine();
const [B, GEN, W] = process.argv.slice(2);
fs.rmSync(W, { recursive: true, force: true });
fs.mkdirSync(W, { recursive: true });
const F = new Failures();
const dump = path.join(W, 'async.bb'), out = path.join(W, 'async.json');
mustRun(GEN, ['async', dump]);
const r = JSON.parse(fs.readFileSync(dump + '.records.json', 'utf8'));
const schemas = new Map([
  ['gen::TaskStart', { phase: 'enter', spanField: 'span' }],
  ['gen::TaskEnd', { phase: 'exit', spanField: 'span' }],
]);
mustRun(B, ['convert', dump, '-o', out]);
const res = checkTrace(out, expectTrace(r.records, schemas, [{ instance_id: r.instance_id, host: r.host }]), F, 'async');
if (!res) F.finish();
const nodes = await checkEngine(res.trace, F, 'async');

const xs = res.trace.traceEvents.filter((e) => e.ph === 'X');
const bySpan = new Map(xs.map((x) => [x.args.span_id, x]));
const parentOf = (x) => x.args.enter.parent; // 0 = a root request
const descends = (x, anc) => { for (let p = parentOf(x); p; p = parentOf(bySpan.get(p) ?? { args: { enter: {} } })) if (p === anc.args.span_id) return true; return false; };
const ns = (v) => Math.round(v * 1000);
const end = (x) => ns(x.ts) + ns(x.dur);
const key = (x) => `${x.pid}/${x.tid}/${ns(x.ts)}/${ns(x.dur)}/${x.name}`;
const byKey = new Map(xs.map((x) => [key(x), x]));
F.check(xs.length === 180, `async: ${xs.length} slices, want 180`);
// 1. Every child slice is inside its parent's slice: same lane, enclosing interval, and the
//    engine's tree makes the parent its parent.
let nested = 0, children = 0;
for (const x of xs) {
  const p = bySpan.get(parentOf(x));
  if (!p) continue;
  children++;
  const inside = p.tid === x.tid && ns(p.ts) < ns(x.ts) && end(x) <= end(p);
  F.check(inside, `async: span ${x.args.span_id} [${ns(x.ts)},${end(x)}] lane ${x.tid} not inside its parent ${p.args.span_id} [${ns(p.ts)},${end(p)}] lane ${p.tid}`);
  const n = nodes.get(key(x));
  F.check(n?.parent?.entry && byKey.get(key({ pid: x.pid, tid: x.tid, ...n.parent.entry })) === p,
          `async: engine parent of span ${x.args.span_id} is not its parent span ${p.args.span_id}`);
  if (inside) nested++;
}
// 2. The engine's tree: a slice's parent is an ancestor by parent_span_id (no false nesting).
let maxDepth = 0;
for (const x of xs) {
  const n = nodes.get(key(x));
  if (!n) continue; // checkEngine reported it
  let depth = 1;
  for (let p = n.parent; p; p = p.parent) depth++;
  maxDepth = Math.max(maxDepth, depth);
  if (!n.parent) continue;
  const px = byKey.get(key({ pid: x.pid, tid: x.tid, ...n.parent.entry }));
  F.check(px && descends(x, px), `async: slice of span ${x.args.span_id} nested in span ${px?.args.span_id}, not an ancestor`);
}
// 3. Lanes: exactly as many as requests (spans with no open ancestor) in flight at once, i.e. no
//    overflow lane while a lane is free.
const lanes = [...new Set(xs.map((x) => x.tid))].sort((a, b) => a - b);
const overflow = lanes.filter((t) => t >= 0x40000000).length;
const reqs = xs.filter((x) => !parentOf(x));
let inFlight = 0;
for (const x of reqs) inFlight = Math.max(inFlight, reqs.filter((y) => ns(y.ts) <= ns(x.ts) && ns(x.ts) < end(y)).length);
F.check(lanes.length === inFlight && overflow === inFlight - 1,
        `async: ${lanes.length} lanes (${overflow} overflow) for at most ${inFlight} requests in flight`);
F.check(maxDepth === 3 && nested === children && children === 120,
        `async: max depth ${maxDepth}, ${nested} of ${children} children nested in their parent; want 3, 120 of 120`);
console.log(`async: ${xs.length} slices, max depth ${maxDepth}, ${nested} of ${children} children nested in their parent, ` +
            `${lanes.length} lanes (${overflow} overflow) for at most ${inFlight} requests in flight`);
F.finish();
