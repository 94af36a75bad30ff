// trace_lib.mjs — shared checks of `backbeat convert --format trace` output for the Node tests.
//
// expectTrace() derives, independently of the C code, what the trace must hold from a list of
// records in global order (the golden expected.json records, or a generated dump's
// records.json): span enter/exit pairs matched per (instance, span id) as a stack, unclosed
// enters closed at the last timestamp, orphan exits and plain events as instants.
// checkTrace() compares a trace file with that, event by event, and checks the three Perfetto
// traps (one name per span, small pids/tids with process_name/thread_name, relative ns-exact
// ts). checkEngine() loads the trace in the DevTools trace engine and checks that every slice
// is in its thread's tree with the right begin, duration and parent.
// SPDX-License-Identifier: MIT
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';

export const modulesDir =
  process.env.BB_NODE_MODULES || path.join(path.dirname(new URL(import.meta.url).pathname), 'node_modules');

export function skipUnlessEngine() {
  if (!fs.existsSync(path.join(modulesDir, '@paulirish/trace_engine'))) {
    console.log(`skipped: no ${modulesDir}/@paulirish/trace_engine (run npm ci --prefix tests/js)`);
    process.exit(77);
  }
}

export function compatDir() {
  const d = process.env.BACKBEAT_COMPAT_DIR || '/work/shared/compat';
  if (!fs.existsSync(path.join(d, 'basic.bb'))) {
    console.log(`skipped: no golden vectors in ${d}`);
    process.exit(77);
  }
  return d;
}

export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 30, ...opts });
  if (r.error) throw r.error;
  return r;
}

export function mustRun(cmd, args) {
  const r = run(cmd, args);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r;
}

export class Failures {
  constructor() { this.list = []; }
  add(msg) { if (this.list.length < 200) this.list.push(msg); }
  check(cond, msg) { if (!cond) this.add(msg); return cond; }
  finish() {
    if (this.list.length) {
      for (const m of this.list) console.error('FAIL: ' + m);
      console.error(`${this.list.length} failure(s)`);
      process.exit(1);
    }
    console.log('ok');
  }
}

const hex16 = (v) => BigInt(v).toString(16).padStart(16, '0');

function spanName(q) {
  for (const suf of ['Start', 'Enter', 'Begin', '_start', '_enter', '_begin'])
    if (q.length > suf.length && q.endsWith(suf) && q[q.length - suf.length - 1] !== ':')
      return q.slice(0, -suf.length);
  return q;
}
const catOf = (q) => (q.includes('::') ? q.slice(0, q.indexOf('::')) : q);

// records: [{instance_id (hex), shard, ts (number|string), event (qualified), display, fields}]
// in global order; schemas: Map qualified-or-display name -> {phase, spanField}; instances:
// [{instance_id, host}] sorted by id. Returns {base, last, slices, instants, procs}.
// A padding field (the C reader's bb_rfield_is_padding): role none, a name that starts with _pad.
export const isPadding = (f) => f.role === 'none' && f.name.startsWith('_pad');
// A schema's entry for expectTrace: phase, span field and the padding fields (not trace args).
export function traceSchema(s) {
  const sf = s.fields.find((f) => f.role === 'span_id');
  return { phase: s.phase, spanField: sf?.name, pad: new Set(s.fields.filter(isPadding).map((f) => f.name)) };
}
// A record's fields as trace args: without its event's padding fields.
function argsOf(fields, sc) {
  if (!sc?.pad?.size) return fields;
  return Object.fromEntries(Object.entries(fields).filter(([k]) => !sc.pad.has(k)));
}

export function expectTrace(records, schemas, instances) {
  const pidOf = new Map(instances.map((x, i) => [x.instance_id, i + 1]));
  const base = records.length ? BigInt(records[0].ts) : 0n;
  const last = records.length ? BigInt(records[records.length - 1].ts) : 0n;
  const open = new Map();
  const order = [];
  const slices = [], instants = [];
  for (let r of records) {
    const ts = BigInt(r.ts);
    const sc = schemas.get(r.display ?? r.event) ?? schemas.get(r.event);
    const pid = pidOf.get(r.instance_id);
    // Names are the qualified name whatever versions meet (never the `#<id>` display name); a
    // name that several versions share puts the version's id in the args instead.
    const disp = r.event;
    const idArg = r.display && r.display !== r.event ? { 'backbeat.event_id': r.event_id } : {};
    r = { ...r, fields: { ...argsOf(r.fields, sc), ...idArg } };
    if (sc && sc.spanField && (sc.phase === 'enter' || sc.phase === 'exit')) {
      const sid = BigInt(r.fields[sc.spanField]);
      const key = `${r.instance_id}/${sid}`;
      if (sc.phase === 'enter') {
        const o = { r, ts, pid, sid, disp };
        if (!open.has(key)) open.set(key, []);
        open.get(key).push(o);
        order.push(o);
        continue;
      }
      const st = open.get(key);
      if (st && st.length) {
        const o = st.pop();
        order.splice(order.indexOf(o), 1);
        slices.push({
          pid, enterShard: o.r.shard, name: spanName(o.r.event), cat: catOf(o.r.event),
          ts: o.ts - base, dur: ts - o.ts,
          args: { span_id: Number(o.sid) <= 2 ** 53 ? Number(o.sid) : String(o.sid),
                  enter_event: o.disp, enter_shard: o.r.shard, enter: o.r.fields,
                  exit_event: disp, exit_shard: r.shard, exit: r.fields },
        });
        continue;
      }
      instants.push({ pid, tid: r.shard + 1, ts: ts - base, name: disp, cat: catOf(r.event),
                      args: { ...r.fields, 'backbeat.orphan_exit': true } });
      continue;
    }
    instants.push({ pid, tid: r.shard + 1, ts: ts - base, name: disp, cat: catOf(r.event),
                    args: r.fields });
  }
  for (const o of order)
    slices.push({
      pid: o.pid, enterShard: o.r.shard, name: spanName(o.r.event), cat: catOf(o.r.event),
      ts: o.ts - base, dur: last - o.ts,
      args: { span_id: Number(o.sid) <= 2 ** 53 ? Number(o.sid) : String(o.sid),
              enter_event: o.disp, enter_shard: o.r.shard, enter: o.r.fields,
              'backbeat.unclosed': true },
    });
  return { base, last, slices, instants, procs: instances };
}

// Parse a trace file and compare it with expectTrace's result. Returns {trace, events}.
export function checkTrace(file, exp, F, label, hostOverride) {
  const text = fs.readFileSync(file, 'utf8');
  let trace;
  try { trace = JSON.parse(text); } catch (e) { F.add(`${label}: not JSON: ${e.message}`); return null; }
  const ev = trace.traceEvents;
  if (!F.check(Array.isArray(ev), `${label}: no traceEvents array`)) return null;
  F.check(trace.otherData && trace.otherData['backbeat.base_ts_nanos'] === String(exp.base),
          `${label}: otherData.backbeat.base_ts_nanos = ${trace.otherData?.['backbeat.base_ts_nanos']}, want ${exp.base}`);
  // ts/dur text: always three decimals (ns precision, relative)
  for (const m of text.matchAll(/"(ts|dur)":(-?[0-9.eE+]+)/g))
    if (!/^[0-9]+(\.[0-9]{3})?$/.test(m[2]) || (m[2].includes('.') === false && m[2] !== '0')) {
      F.add(`${label}: ${m[1]} written as ${m[2]}`);
      break;
    }
  const ns = (v) => BigInt(Math.round(v * 1000));
  // Trap 1: no async/duration halves at all; each slice is one X under the span name.
  for (const e of ev)
    F.check(!['b', 'e', 'B', 'E', 'i', 'n', 'S', 'F'].includes(e.ph), `${label}: event with ph ${e.ph}`);
  // Trap 2: small pids and tids, named.
  const pnames = new Map(), tnames = new Map();
  for (const e of ev) {
    F.check(Number.isInteger(e.pid) && e.pid >= 1 && e.pid <= exp.procs.length,
            `${label}: pid ${e.pid} outside 1..${exp.procs.length}`);
    F.check(Number.isInteger(e.tid) && e.tid >= 0 && e.tid < 2 ** 31, `${label}: tid ${e.tid}`);
    if (e.ph === 'M' && e.name === 'process_name') pnames.set(e.pid, e.args.name);
    if (e.ph === 'M' && e.name === 'thread_name') tnames.set(`${e.pid}/${e.tid}`, e.args.name);
  }
  exp.procs.forEach((p, i) => {
    const want = hostOverride ?? p.host;
    const n = pnames.get(i + 1);
    if (!n) return; // an instance with no records in the trace has no process
    F.check(n.includes(p.instance_id), `${label}: process_name of pid ${i + 1} "${n}" lacks ${p.instance_id}`);
    F.check(!want || n.includes(want), `${label}: process_name of pid ${i + 1} "${n}" lacks host ${want}`);
  });
  for (const e of ev)
    if (e.ph === 'X' || e.ph === 'I')
      F.check(tnames.has(`${e.pid}/${e.tid}`), `${label}: no thread_name for pid ${e.pid} tid ${e.tid}`);
  // Instants: exact multiset match.
  const got = ev.filter((e) => e.ph === 'I');
  F.check(got.length === exp.instants.length, `${label}: ${got.length} instants, want ${exp.instants.length}`);
  const used = new Set();
  for (const w of exp.instants) {
    const i = got.findIndex((g, k) => !used.has(k) && g.pid === w.pid && g.tid === w.tid &&
      ns(g.ts) === w.ts && g.name === w.name);
    if (!F.check(i >= 0, `${label}: missing instant ${w.name} at ${w.ts} ns pid ${w.pid} tid ${w.tid}`)) continue;
    used.add(i);
    const g = got[i];
    F.check(g.s === 't', `${label}: instant ${w.name} at ${w.ts} not thread-scoped`);
    F.check(g.cat === w.cat, `${label}: instant ${w.name} cat ${g.cat}, want ${w.cat}`);
    F.check(isDeepStrictEqual(g.args, w.args),
            `${label}: instant ${w.name} at ${w.ts} args ${JSON.stringify(g.args)}, want ${JSON.stringify(w.args)}`);
  }
  // Slices: exact match (name, cat, begin, duration, args); on the enter shard's lanes.
  const xs = ev.filter((e) => e.ph === 'X');
  F.check(xs.length === exp.slices.length, `${label}: ${xs.length} slices, want ${exp.slices.length}`);
  const usedx = new Set();
  for (const w of exp.slices) {
    const i = xs.findIndex((g, k) => !usedx.has(k) && g.pid === w.pid && ns(g.ts) === w.ts &&
      ns(g.dur) === w.dur && g.name === w.name && isDeepStrictEqual(g.args, w.args));
    if (!F.check(i >= 0, `${label}: missing slice ${JSON.stringify(w, (k, v) => typeof v === 'bigint' ? String(v) : v)}`)) continue;
    usedx.add(i);
    const g = xs[i];
    F.check(g.cat === w.cat, `${label}: slice ${w.name} cat ${g.cat}`);
    const tn = tnames.get(`${g.pid}/${g.tid}`) ?? '';
    F.check(tn === `shard ${w.enterShard}` || tn.startsWith(`shard ${w.enterShard} (overlap `),
            `${label}: slice ${w.name} at ${w.ts} on thread "${tn}", want shard ${w.enterShard}`);
  }
  // Lanes: slices of one thread nest strictly and never share a begin.
  const byThread = new Map();
  for (const x of xs) {
    const k = `${x.pid}/${x.tid}`;
    if (!byThread.has(k)) byThread.set(k, []);
    byThread.get(k).push([ns(x.ts), ns(x.ts) + ns(x.dur)]);
  }
  for (const [k, list] of byThread)
    for (let a = 0; a < list.length; a++)
      for (let b = a + 1; b < list.length; b++) {
        const [b1, e1] = list[a], [b2, e2] = list[b];
        const nested = (b1 <= b2 && e2 <= e1) || (b2 <= b1 && e1 <= e2);
        const disjoint = e1 <= b2 || e2 <= b1;
        F.check((nested || disjoint) && b1 !== b2,
                `${label}: thread ${k}: slices [${b1},${e1}] and [${b2},${e2}] overlap without nesting or share a begin`);
      }
  return { trace, events: ev };
}

// True when X slice `x` ends in the same nanosecond as a slice `y` of its lane that encloses it,
// but the engine's floating-point sum ts + dur puts x's end after y's (217.865 + 0.06 >
// 217.855 + 0.07 in doubles): the DevTools engine then leaves x out of its tree. The trace is
// exact (three decimals = ns); the clash is the consumer's arithmetic, so checks skip such x.
export function floatEndClash(x, xs) {
  const b = Math.round(x.ts * 1000), e = b + Math.round(x.dur * 1000);
  return xs.some((y) => y !== x && y.pid === x.pid && y.tid === x.tid &&
    Math.round(y.ts * 1000) <= b && Math.round(y.ts * 1000) + Math.round(y.dur * 1000) === e &&
    x.ts + x.dur > y.ts + y.dur);
}

// Load the trace in the DevTools trace engine; every X must be in its thread's tree with its
// begin and duration, under the innermost X of the same thread that encloses it. Returns a map
// "pid/tid/ts/dur/name" -> engine node, for extra checks.
export async function checkEngine(trace, F, label) {
  if (!globalThis.DOMRect)
    globalThis.DOMRect = class DOMRect {
      constructor(x = 0, y = 0, w = 0, h = 0) { this.x = x; this.y = y; this.width = w; this.height = h; }
    };
  const Trace = await import(path.join(modulesDir, '@paulirish/trace_engine/models/trace/trace.js'));
  const model = Trace.TraceModel.Model.createWithAllHandlers();
  const origErr = console.error;
  const engineErrors = [];
  console.error = (...a) => engineErrors.push(a.join(' '));
  try { await model.parse(trace.traceEvents); } finally { console.error = origErr; }
  for (const m of engineErrors) F.add(`${label}: trace engine: ${m}`);
  const pt = model.parsedTrace();
  const R = (pt.data ?? pt).Renderer;
  const nodes = new Map();
  const key = (pid, tid, e) => `${pid}/${tid}/${Math.round(e.ts * 1000)}/${Math.round((e.dur ?? 0) * 1000)}/${e.name}`;
  for (const [pid, p] of R.processes)
    for (const [tid, t] of p.threads) {
      const walk = (n) => { nodes.set(key(pid, tid, n.entry), n); n.children.forEach(walk); };
      for (const r of t.tree?.roots ?? []) walk(r);
    }
  const xs = trace.traceEvents.filter((e) => e.ph === 'X');
  for (const x of xs) {
    const n = nodes.get(key(x.pid, x.tid, x));
    if (!n && floatEndClash(x, xs)) continue;
    if (!F.check(n, `${label}: engine lost slice ${x.name} pid ${x.pid} tid ${x.tid} ts ${x.ts} dur ${x.dur}`)) continue;
    // expected parent: innermost enclosing X on the same thread (that the engine kept: one left
    // out for floatEndClash is not its children's parent)
    const b = Math.round(x.ts * 1000), e = b + Math.round(x.dur * 1000);
    let best = null;
    for (const y of xs) {
      if (y === x || y.pid !== x.pid || y.tid !== x.tid || !nodes.has(key(y.pid, y.tid, y))) continue;
      const yb = Math.round(y.ts * 1000), ye = yb + Math.round(y.dur * 1000);
      if (yb <= b && e <= ye && b < ye && !(yb === b && ye === e))
        if (!best || ye - yb < best[1] - best[0]) best = [yb, ye, y];
    }
    const gotParent = n.parent ? n.parent.entry : null;
    // A zero-length X at the exact end of an enclosing X (a child closed in its parent's last
    // nanosecond) is inside it or just after it, depending on the viewer's ts + dur in doubles.
    if (b === e && gotParent && Math.round((gotParent.ts + gotParent.dur) * 1000) === b &&
        gotParent.ts * 1000 < b) continue;
    if (best)
      F.check(gotParent && gotParent.name === best[2].name && Math.round(gotParent.ts * 1000) === best[0],
              `${label}: engine parent of ${x.name}@${x.ts} is ${gotParent?.name}@${gotParent?.ts}, want ${best[2].name}@${best[2].ts}`);
    else
      F.check(!gotParent, `${label}: engine gives ${x.name}@${x.ts} a parent ${gotParent?.name}@${gotParent?.ts}`);
  }
  // instants are in the tree too (DevTools ignores lower-case i only)
  const is = trace.traceEvents.filter((e) => e.ph === 'I');
  for (const i of is)
    F.check(nodes.has(key(i.pid, i.tid, i)), `${label}: engine lost instant ${i.name}@${i.ts}`);
  return nodes;
}

// Records of a golden expected.json (single dump) in the shape expectTrace wants.
export function goldenSingle(expected) {
  const recs = [], schemas = new Map(), insts = [];
  for (const inst of expected.instances) {
    insts.push({ instance_id: inst.instance_id, host: inst.host });
    for (const s of inst.schemas) schemas.set(s.name, traceSchema(s));
    for (const r of inst.records) recs.push({ ...r, instance_id: inst.instance_id });
  }
  return { recs, schemas, insts };
}
