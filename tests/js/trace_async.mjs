// trace_async.mjs BACKBEAT CLI_GEN WORKDIR — trace lanes by ancestry on the async-server
// pattern (cli_gen async: 60 interleaved requests on one shard, each with a child lookup span,
// one request open for the whole trace). Checked by our own parse against the generator's
// records and by the DevTools trace engine: no slice is nested in a slice it does not descend
// from (by parent_span_id), no overflow lane is opened while a lane it fits exists, and about as
// many lanes as requests in flight at once. Prints the max depth and the overflow lanes.
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
const key = (x) => `${x.pid}/${x.tid}/${ns(x.ts)}/${ns(x.dur)}/${x.name}`;
F.check(xs.length === 120, `async: ${xs.length} slices, want 120`);
// 1. The engine's tree: a slice's parent is an ancestor by parent_span_id (no false nesting).
let maxDepth = 0, nested = 0;
for (const x of xs) {
  const n = nodes.get(key(x));
  if (!n) continue; // checkEngine reported it
  let depth = 1;
  for (let p = n.parent; p; p = p.parent) depth++;
  maxDepth = Math.max(maxDepth, depth);
  if (!n.parent) continue;
  const px = xs.find((y) => key(y) === `${x.pid}/${x.tid}/${ns(n.parent.entry.ts)}/${ns(n.parent.entry.dur)}/${n.parent.entry.name}`);
  F.check(px && descends(x, px), `async: slice of span ${x.args.span_id} nested in span ${px?.args.span_id}, not an ancestor`);
  nested++;
}
// 2. Lanes: overflow lanes only where every lower lane holds a conflicting slice.
const lanes = [...new Set(xs.map((x) => x.tid))].sort((a, b) => a - b);
const overflow = lanes.filter((t) => t >= 0x40000000).length;
const conflict = (x, y) => {
  const xb = ns(x.ts), xe = xb + ns(x.dur), yb = ns(y.ts), ye = yb + ns(y.dur);
  if (xe <= yb || ye <= xb) return false; // disjoint
  if (xb === yb) return true; // equal begins never share a lane
  if (xb < yb && ye <= xe) return !descends(y, x); // x would enclose y
  if (yb < xb && xe <= ye) return !descends(x, y);
  return true; // overlap without nesting
};
for (const x of xs) {
  for (const t of lanes) {
    if (t === x.tid) break;
    F.check(xs.some((y) => y.tid === t && y !== x && conflict(x, y)),
            `async: span ${x.args.span_id} on lane ${x.tid} would fit lane ${t}`);
  }
}
// 3. No more lanes than requests in flight at once (a lookup nests in its request).
const reqs = xs.filter((x) => !parentOf(x));
let inFlight = 0;
for (const x of reqs) inFlight = Math.max(inFlight, reqs.filter((y) => ns(y.ts) <= ns(x.ts) && ns(x.ts) < ns(y.ts) + ns(y.dur)).length);
// (Lanes are chosen when a span closes, first fit: a lookup closed on a lane its request cannot
// take stays a sibling there, so the count may exceed the requests in flight by a few.)
F.check(lanes.length <= inFlight + 2, `async: ${lanes.length} lanes for at most ${inFlight} requests in flight`);
F.check(maxDepth <= 2 && nested > 0, `async: max depth ${maxDepth} (${nested} nested), want at most 2`);
console.log(`async: ${xs.length} slices, max depth ${maxDepth}, ${nested} nested in their parent, ${lanes.length} lanes ` +
            `(${overflow} overflow) for at most ${inFlight} requests in flight`);
F.finish();
