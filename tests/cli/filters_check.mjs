// filters_check.mjs BACKBEAT WORKDIR — convert's filters (--since/--until absolute and
// relative, --event globs on qualified and display names, --instance), checked on trace output
// against the golden expected records: the records a trace represents (instants, and one or two
// per slice) must be exactly the filtered subset.
// SPDX-License-Identifier: MIT
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const [B, W] = process.argv.slice(2);
const C = process.env.BACKBEAT_COMPAT_DIR || '/work/shared/compat';
if (!fs.existsSync(path.join(C, 'basic.bb'))) { console.log('skipped: no golden vectors'); process.exit(77); }
fs.rmSync(W, { recursive: true, force: true });
fs.mkdirSync(W, { recursive: true });
const fails = [];
const check = (c, m) => { if (!c) fails.push(m); return c; };
const load = (n) => JSON.parse(fs.readFileSync(path.join(C, n), 'utf8'));

// The (ts, name) pairs a trace stands for: instants, slice enters and (closed) exits.
function represented(file) {
  const t = JSON.parse(fs.readFileSync(file, 'utf8'));
  const base = BigInt(t.otherData['backbeat.base_ts_nanos']);
  const ns = (v) => base + BigInt(Math.round(v * 1000));
  const out = [];
  for (const e of t.traceEvents) {
    if (e.ph === 'I') out.push(`${ns(e.ts)} ${e.name}`);
    if (e.ph === 'X') {
      out.push(`${ns(e.ts)} ${e.args.enter_event}`);
      if (!e.args['backbeat.unclosed']) out.push(`${ns(e.ts + e.dur)} ${e.args.exit_event}`);
    }
  }
  return out.sort();
}
let k = 0;
function expectSubset(label, inputs, args, records) {
  const out = path.join(W, `f${k++}.json`);
  const r = spawnSync(B, ['convert', ...inputs.map((i) => path.join(C, i)), '-o', out, ...args], { encoding: 'utf8' });
  if (!check(r.status === 0, `${label}: exit ${r.status}: ${r.stderr}`)) return;
  const got = represented(out);
  // trace names are the qualified event names (never the `#<id>` display name)
  const want = records.map((x) => `${BigInt(x.ts)} ${x.event}`).sort();
  check(JSON.stringify(got) === JSON.stringify(want),
        `${label}: got ${got.length} records, want ${want.length}\n got ${got.join(', ')}\nwant ${want.join(', ')}`);
  return r;
}

const basic = load('basic.expected.json').instances[0].records;
const t0 = BigInt(basic[0].ts);
expectSubset('no filter', ['basic.bb'], [], basic);
expectSubset('--event Work*', ['basic.bb'], ['--event', 'fixture::Work*'], basic.filter((x) => x.event.startsWith('fixture::Work')));
expectSubset('--event two', ['basic.bb'], ['--event', 'fixture::Tick', '--event', '*Blob'],
             basic.filter((x) => x.event === 'fixture::Tick' || x.event === 'fixture::io::Blob'));
expectSubset('--since/--until relative', ['basic.bb'], ['--since', '+5us', '--until', '+10000ns'],
             basic.filter((x) => BigInt(x.ts) >= t0 + 5000n && BigInt(x.ts) <= t0 + 10000n));
expectSubset('--since relative seconds', ['basic.bb'], ['--since', '+0.0000155s'],
             basic.filter((x) => BigInt(x.ts) >= t0 + 15500n));
expectSubset('--until ms', ['basic.bb'], ['--until', '+0.003ms'], basic.filter((x) => BigInt(x.ts) <= t0 + 3000n));
expectSubset('--since absolute', ['basic.bb'], ['--since', '1000015000'], basic.filter((x) => BigInt(x.ts) >= 1000015000n));
expectSubset('combined', ['basic.bb'], ['--since', '+2us', '--event', 'fixture::Scalars'],
             basic.filter((x) => BigInt(x.ts) >= t0 + 2000n && x.event === 'fixture::Scalars'));
const abo = load('multi_abo.expected.json').records;
const inputs = ['multi_a.bb', 'multi_b.bb', 'multi_other.bb'];
expectSubset('--instance', inputs, ['--instance', '0102030405060708'], abo.filter((x) => x.instance_id === '0102030405060708'));
expectSubset('--instance x2', inputs, ['--instance', '0x0102030405060708', '--instance', 'A1A2A3A4A5A6A7A8'], abo);
expectSubset('--event display name', inputs, ['--event', 'fixture::multi::Sample#f71e*'],
             abo.filter((x) => x.display_event === 'fixture::multi::Sample#f71edcab93b6d0a2'));
expectSubset('--event qualified matches both builds', inputs, ['--event', 'fixture::multi::Sample'],
             abo.filter((x) => x.event === 'fixture::multi::Sample'));
const r = expectSubset('--event no match', ['basic.bb'], ['--event', 'nope::*'], []);
check(r && /matches no event/.test(r.stderr), 'no warning for an --event matching nothing');
if (fails.length) { fails.forEach((f) => console.error('FAIL: ' + f)); process.exit(1); }
console.log('ok');
