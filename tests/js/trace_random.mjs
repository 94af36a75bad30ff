// trace_random.mjs BACKBEAT CLI_GEN WORKDIR [SEEDS] — trace lanes on random span trees (cli_gen
// random: 600 spans on 3 shards opened and closed in random order, so children outlive their
// parents, spans migrate, many records share a nanosecond, parents are open, closed or never
// seen). For each seed: the trace matches the records (checkTrace: every slice once, on its
// enter shard's lanes, the slices of a lane nested strictly with no shared begin), the DevTools
// trace engine keeps every slice under the right parent (checkEngine), and every slice the
// engine nests inside another descends from it by parent_span_id.
// SPDX-License-Identifier: MIT
import fs from 'node:fs';
import path from 'node:path';
import { checkEngine, checkTrace, expectTrace, Failures, mustRun, skipUnlessEngine } from './trace_lib.mjs';

skipUnlessEngine();
const [B, GEN, W, SEEDS = '8'] = process.argv.slice(2);
fs.rmSync(W, { recursive: true, force: true });
fs.mkdirSync(W, { recursive: true });
const F = new Failures();
const schemas = new Map([
  ['gen::TaskStart', { phase: 'enter', spanField: 'span' }],
  ['gen::TaskEnd', { phase: 'exit', spanField: 'span' }],
]);
// global order: (ts, shard, write order within the shard)
const order = (recs) => recs.map((r, i) => ({ ...r, i })).sort((a, b) => {
  const ta = BigInt(a.ts), tb = BigInt(b.ts);
  if (ta !== tb) return ta < tb ? -1 : 1;
  if (a.shard !== b.shard) return a.shard - b.shard;
  return a.i - b.i;
});
const ns = (v) => Math.round(v * 1000);
let totals = { slices: 0, nested: 0, children: 0, lanes: 0, overflow: 0 };
for (let seed = 1; seed <= Number(SEEDS); seed++) {
  const label = `random seed ${seed}`;
  const dump = path.join(W, `r${seed}.bb`), out = path.join(W, `r${seed}.json`);
  mustRun(GEN, ['random', dump, String(seed)]);
  const r = JSON.parse(fs.readFileSync(dump + '.records.json', 'utf8'));
  mustRun(B, ['convert', dump, '-o', out]);
  const res = checkTrace(out, expectTrace(order(r.records), schemas, [{ instance_id: r.instance_id, host: r.host }]), F, label);
  if (!res) continue;
  const nodes = await checkEngine(res.trace, F, label);
  const parentOf = new Map(r.records.filter((x) => x.event === 'gen::TaskStart').map((x) => [x.fields.span, x.fields.parent]));
  const descends = (sid, anc) => {
    for (let p = parentOf.get(sid), n = 0; p && n < 1000; p = parentOf.get(p), n++) if (p === anc) return true;
    return false;
  };
  const xs = res.trace.traceEvents.filter((e) => e.ph === 'X');
  const key = (pid, tid, e) => `${pid}/${tid}/${ns(e.ts)}/${ns(e.dur ?? 0)}/${e.name}`;
  const byKey = new Map(xs.map((x) => [key(x.pid, x.tid, x), x]));
  const bySpan = new Map(xs.map((x) => [x.args.span_id, x]));
  for (const x of xs) {
    const n = nodes.get(key(x.pid, x.tid, x));
    const px = n?.parent && byKey.get(key(x.pid, x.tid, n.parent.entry));
    if (px) F.check(descends(x.args.span_id, px.args.span_id),
                    `${label}: span ${x.args.span_id} drawn inside span ${px.args.span_id}, not an ancestor`);
    const p = bySpan.get(x.args.enter.parent);
    if (!p) continue;
    totals.children++;
    if (px === p) totals.nested++;
  }
  const lanes = new Set(xs.map((x) => `${x.pid}/${x.tid}`));
  totals.slices += xs.length;
  totals.lanes += lanes.size;
  totals.overflow += [...lanes].filter((k) => Number(k.split('/')[1]) >= 0x40000000).length;
}
console.log(`random, ${SEEDS} seeds: ${totals.slices} slices, ${totals.nested} of ${totals.children} children ` +
            `drawn in their parent, ${totals.lanes} lanes (${totals.overflow} overflow)`);
F.finish();
