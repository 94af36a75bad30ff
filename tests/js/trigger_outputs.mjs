// trigger_outputs.mjs — what fired a triggered dump, in the outputs of `backbeat convert` (issue
// 39): the demo's triggered dumps (a span rule, a field rule) converted to Parquet carry the
// trigger in the footer's key-value metadata (backbeat.trigger.*, backbeat.trigger.count,
// backbeat.triggers), read by two independent readers (DuckDB's parquet_kv_metadata and
// hyparquet) and equal to what `inspect --json` decodes from the dump; two dumps give two
// triggers, a dump no trigger took none; in the trace the trigger is one instant "trigger:
// RULE" on the thread of the matching record (the thread of the slow span), with its event,
// span id and after-window as args, kept by the trace engine (@paulirish/trace_engine).
//
// Usage: node trigger_outputs.mjs BACKBEAT DEMO
// SPDX-License-Identifier: MIT
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { check, convert, finish, readers, sqlStr, tmpDir } from './parquet_common.mjs';
import { checkEngine, Failures } from './trace_lib.mjs';

const [tool, demo] = process.argv.slice(2);
const { duck, hyp } = await readers();
const work = tmpDir('trig');
const SPAN = 'span demo::kv::RequestBegin > 50ms', FIELD = 'demo::kv::RequestEnd status == error';

function triggered(rule, tag) {
  const dir = path.join(work, tag);
  fs.mkdirSync(dir);
  execFileSync(demo, ['--trigger', rule, dir], { stdio: 'ignore' });
  const dump = path.join(dir, 'demo-trigger.bb');
  const j = JSON.parse(execFileSync(tool, ['inspect', '--json', dump], { encoding: 'utf8' }));
  check(j.triggers?.length >= 1, `${tag}: inspect --json shows no trigger`);
  return { dump, t: j.triggers?.[0] ?? {} };
}
const a = triggered(SPAN, 'span'), b = triggered(FIELD, 'field');
const plain = path.join(work, 'plain.bb');
execFileSync(demo, [plain], { stdio: 'ignore' });

async function kvDuck(file) {
  const db = await duck.DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const rows = (await c.runAndReadAll(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${sqlStr(file)})`)).getRowObjectsJS();
  return new Map(rows.map((r) => [r.k, r.v]));
}
async function kvHyp(file) {
  const md = await hyp.parquetMetadataAsync(await hyp.asyncBufferFromFile(file));
  return new Map((md.key_value_metadata ?? []).map((e) => [e.key, e.value]));
}
const want = (t, count) => ({
  'backbeat.trigger.rule': t.rule, 'backbeat.trigger.event': t.event, 'backbeat.trigger.ts_nanos': String(t.ts),
  'backbeat.trigger.instance_id': t.instance_id, 'backbeat.trigger.shard': String(t.shard),
  'backbeat.trigger.span_id': String(t.span_id), 'backbeat.trigger.after_ns': String(t.after_ns),
  'backbeat.trigger.duration_ns': String(t.duration_ns), 'backbeat.trigger.hung': String(t.hung),
  'backbeat.trigger.count': String(count) });

for (const [tag, inputs, count] of [['span', [a.dump], 1], ['field', [b.dump], 1], ['both', [a.dump, b.dump], 2], ['plain', [plain], 0]]) {
  const out = path.join(work, `${tag}.parquet`);
  convert('cli', tool, inputs, out);
  for (const [who, kv] of [['duckdb', await kvDuck(out)], ['hyparquet', await kvHyp(out)]]) {
    if (!count) {
      const stray = [...kv.keys()].filter((k) => k.startsWith('backbeat.trigger'));
      check(stray.length === 0, `${tag} (${who}): a dump no trigger took has ${stray.join(', ')}`);
      continue;
    }
    const all = JSON.parse(kv.get('backbeat.triggers') ?? '[]');
    check(all.length === count, `${tag} (${who}): backbeat.triggers holds ${all.length}, want ${count}`);
    const first = count === 1 ? (tag === 'span' ? a.t : b.t) : (all[0]?.rule === SPAN ? a.t : b.t);
    for (const [k, v] of Object.entries(want(first, count)))
      check(kv.get(k) === v, `${tag} (${who}): ${k} = ${kv.get(k)}, want ${v}`);
    const rules = all.map((t) => t.rule).sort();
    check(JSON.stringify(rules) === JSON.stringify(inputs.map((d) => (d === a.dump ? SPAN : FIELD)).sort()),
          `${tag} (${who}): backbeat.triggers rules ${rules}`);
    check(all[0]?.rule === kv.get('backbeat.trigger.rule'), `${tag} (${who}): the keys are not the first firing's`);
  }
}

// The trace: the span trigger on the slow span's thread.
const F = new Failures();
const tr = path.join(work, 'span.json');
execFileSync(tool, ['convert', '-f', 'trace', a.dump, '-o', tr], { stdio: 'ignore' });
const trace = JSON.parse(fs.readFileSync(tr, 'utf8'));
const ev = trace.traceEvents;
const trig = ev.filter((e) => typeof e.name === 'string' && e.name.startsWith('trigger: '));
F.check(trig.length === 1, `trace: ${trig.length} trigger instants, want 1`);
const [i] = trig;
if (i) {
  F.check(i.name === `trigger: ${SPAN}` && i.ph === 'I', `trace: the instant is ${i.ph} ${i.name}`);
  F.check(i.args?.event === a.t.event && i.args?.span_id === String(a.t.span_id) && i.args?.after_ns === a.t.after_ns,
          `trace: the instant's args ${JSON.stringify(i.args)}`);
  const slow = ev.find((e) => e.ph === 'X' && e.args?.span_id === String(a.t.span_id));
  F.check(slow, `trace: no slice of span ${a.t.span_id}`);
  if (slow) {
    const lanes = ev.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.pid === i.pid &&
                                   e.args?.name?.startsWith(`shard ${slow.args.enter_shard}`)).map((e) => e.tid);
    F.check(lanes.includes(i.tid), `trace: the trigger is on tid ${i.tid}, the slow span's thread (shard ${slow.args.enter_shard}) is ${lanes}`);
  }
  F.check(!ev.some((e) => e.ph !== 'M' && e.name === 'backbeat::Trigger'), 'trace: the trigger is also a plain backbeat::Trigger instant');
}
// The engine keeps the instant on its thread: the trace's metadata and the events within 5 ms
// of the trigger given to it (the whole trace costs the engine check minutes).
const near = (e) => e.ph === 'M' || (i && Math.abs(e.ts - i.ts) < 5000) ||
                    (i && e.ph === 'X' && e.ts <= i.ts && i.ts <= e.ts + e.dur);
await checkEngine({ ...trace, traceEvents: ev.filter(near) }, F, 'span trigger');
for (const m of F.list) check(false, m);
fs.rmSync(work, { recursive: true, force: true });
finish('a triggered dump says what fired it in the Parquet metadata and the trace');
