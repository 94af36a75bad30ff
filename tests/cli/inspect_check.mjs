// inspect_check.mjs BACKBEAT WORKDIR — `backbeat inspect --json` of every golden dump against
// its expected.json: envelope, registry (every field's type, unit, sentinel, role, labels),
// instances (host, intern entries), views, shards (capacity, head, records recovered) and the
// torn dump's skipped bytes; the text form names the same things; several dumps give an array.
// SPDX-License-Identifier: MIT
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';

const [B] = process.argv.slice(2);
const C = process.env.BACKBEAT_COMPAT_DIR || '/work/shared/compat';
if (!fs.existsSync(path.join(C, 'basic.bb'))) { console.log('skipped: no golden vectors'); process.exit(77); }
const fails = [];
const check = (c, m) => { if (!c) fails.push(m); return c; };
const run = (args) => spawnSync(B, args, { encoding: 'utf8', maxBuffer: 1 << 28 });

const names = fs.readdirSync(C).filter((f) => f.endsWith('.bb')).map((f) => f.slice(0, -3));
check(names.length >= 8, `only ${names.length} golden dumps`);
for (const n of names) {
  const file = path.join(C, `${n}.bb`);
  const exp = JSON.parse(fs.readFileSync(path.join(C, `${n}.expected.json`), 'utf8'));
  const r = run(['inspect', '--json', file]);
  if (!check(r.status === 0, `${n}: exit ${r.status}: ${r.stderr}`)) continue;
  let j;
  try { j = JSON.parse(r.stdout); } catch (e) { check(false, `${n}: not JSON: ${e.message}`); continue; }
  check(j.size === fs.statSync(file).size, `${n}: size ${j.size}`);
  check(j.format_version === exp.format_version && j.flags === exp.flags && j.little_endian === true,
        `${n}: format/flags ${j.format_version}/${j.flags}`);
  check(j.section_count === exp.section_count && j.sections.length === exp.section_count,
        `${n}: section_count ${j.section_count}, want ${exp.section_count}`);
  let end = 16 + 20 * j.section_count;
  for (const s of j.sections) { check(s.offset === end, `${n}: section at ${s.offset}, want ${end}`); end = s.offset + s.len; }
  check(end === j.size, `${n}: sections end at ${end}, file is ${j.size}`);
  // registry: the same schemas (expected lists them sorted by name, inspect in file order)
  const inst0 = exp.instances[0];
  // each field also says whether it is padding (role none, a name that starts with _pad)
  const want = (inst0?.schemas ?? []).map((s) => ({ ...s, fields: s.fields.map((f) => ({
    ...f, padding: f.role === 'none' && f.name.startsWith('_pad') })) }));
  const got = [...j.registry].sort((a, b) => (Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)) || (a.id < b.id ? -1 : 1)));
  check(isDeepStrictEqual(got, want), `${n}: registry differs:\n got ${JSON.stringify(got)}\nwant ${JSON.stringify(want)}`);
  // instances
  check(j.instances.length === exp.instances.length, `${n}: ${j.instances.length} instances`);
  exp.instances.forEach((wi, k) => {
    const gi = j.instances[k];
    if (!check(gi, `${n}: instance ${k} missing`)) return;
    check(gi.instance_id === wi.instance_id && gi.host === wi.host, `${n}: instance ${gi.instance_id}/${gi.host}`);
    check(isDeepStrictEqual(gi.intern, wi.intern), `${n}: intern ${JSON.stringify(gi.intern)} want ${JSON.stringify(wi.intern)}`);
    const gs = gi.shards.map(({ shard_id, head, capacity, records }) => ({ shard_id, head, capacity, records }));
    check(isDeepStrictEqual(gs, wi.shards), `${n}: shards ${JSON.stringify(gs)} want ${JSON.stringify(wi.shards)}`);
    check(gi.record_count === wi.record_count, `${n}: record_count ${gi.record_count}`);
    for (const s of gi.shards) check(n === 'torn' ? s.skipped_bytes > 0 : Number.isInteger(s.skipped_bytes),
                                     `${n}: shard ${s.shard_id} skipped ${s.skipped_bytes}`);
    check(j.view_count === wi.views.length && isDeepStrictEqual(j.views.map((v) => v.size), wi.views.map((v) => Buffer.byteLength(v))),
          `${n}: views ${JSON.stringify(j.views)}`);
  });
  // text form: mentions every event, instance, and shard line
  const t = run(['inspect', file]);
  if (check(t.status === 0, `${n}: text exit ${t.status}`)) {
    for (const s of want) check(t.stdout.includes(s.id) && t.stdout.includes(s.name), `${n}: text lacks ${s.name}`);
    for (const wi of exp.instances) {
      check(t.stdout.includes(`instance ${wi.instance_id}`), `${n}: text lacks instance ${wi.instance_id}`);
      for (const s of wi.shards)
        check(t.stdout.includes(`shard ${s.shard_id}: capacity ${s.capacity}, head ${s.head}, ${s.records} records`),
              `${n}: text lacks shard ${s.shard_id} line`);
    }
  }
}
// torn.bb: the exact torn byte counts (shard 0: the 18-byte Tick overwritten; shard 1: 58 bytes
// of a record being written)
{
  const j = JSON.parse(run(['inspect', '--json', path.join(C, 'torn.bb')]).stdout);
  const sk = j.instances[0].shards.map((s) => s.skipped_bytes);
  check(isDeepStrictEqual(sk, [18, 58]), `torn skipped bytes ${sk}`);
  const b = JSON.parse(run(['inspect', '--json', path.join(C, 'basic.bb')]).stdout);
  check(isDeepStrictEqual(b.instances[0].shards.map((s) => s.skipped_bytes), [0, 0]), 'basic skipped bytes');
}
// several dumps: a JSON array, in argument order
{
  const r = run(['inspect', '--json', path.join(C, 'basic.bb'), path.join(C, 'empty.bb')]);
  const a = JSON.parse(r.stdout);
  check(Array.isArray(a) && a.length === 2 && a[1].instances[0].instance_id === '3132333435363738', 'inspect of two dumps');
}
if (fails.length) { fails.forEach((f) => console.error('FAIL: ' + f)); process.exit(1); }
console.log('ok');
