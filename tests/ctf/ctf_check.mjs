// ctf_check.mjs — `backbeat convert -f ctf` read back by babeltrace2 2.0 and compared record by
// record with the Parquet output of the same dumps: event name, timestamp (clock cycles and
// --clock-seconds against ts_nanos, to the nanosecond), every field value (integers, enum
// labels, bools, bytes, resolved strings, sentinels), the stream's process in the packet
// context; no warning on stderr. Cases: every golden dump, merged dumps of two processes (and
// two hosts), a wrapped ring, a dump of every field type (pq_gendump, several packets per
// stream), field names that TSDL cannot take as they are (ctf_gen), filters, an empty dump;
// then the output discipline: a failing conversion leaves nothing, DIR/ chooses CTF, an old
// trace is replaced, a directory of other files is refused.
//
// Usage: node ctf_check.mjs BACKBEAT CTF_GEN CLI_GEN PQ_GENDUMP WORKDIR
// SPDX-License-Identifier: MIT
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const SKIP = 77;
const [tool, ctfGen, cliGen, pqGen, work] = process.argv.slice(2);
const compat = process.env.BACKBEAT_COMPAT_DIR || '/work/shared/compat';
if (!fs.existsSync(path.join(compat, 'basic.bb'))) {
  console.log(`golden dumps not found in ${compat}: skipped`);
  process.exit(SKIP);
}
if (spawnSync('babeltrace2', ['--version']).status !== 0) {
  console.log('babeltrace2 not installed (apt-get install babeltrace2): skipped');
  process.exit(SKIP);
}
let duck;
try {
  const modules = process.env.BB_NODE_MODULES ||
    path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'js', 'node_modules');
  const req = createRequire(path.join(modules, 'resolve.js'));
  duck = await import(pathToFileURL(req.resolve('@duckdb/node-api')).href);
} catch (e) {
  console.log(`readers not installed (npm ci --prefix tests/js): skipped (${e.message})`);
  process.exit(SKIP);
}

let failures = 0;
function check(ok, msg) {
  if (!ok) {
    failures++;
    if (failures <= 30) console.log(`FAIL: ${msg}`);
  }
}

fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
const run = (cmd, args) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] }).toString();

// ---- babeltrace2's text: `[ts] host event: { context }, { payload }` ----------------------
// A value: integer, "string", ( "label" : container = N ), ( <unknown> : container = N ),
// ( { "a", "b" } : container = N ), [ [0] = v, ... ], { name = v, ... }.
function parseValue(s, i) {
  const ws = () => { while (s[i] === ' ') i++; };
  ws();
  if (s[i] === '"') {
    let out = '';
    i++;
    while (s[i] !== '"') {
      if (s[i] === '\\') {
        const c = s[i + 1];
        out += { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"' }[c] ?? c;
        i += 2;
      } else out += s[i++];
    }
    return [out, i + 1];
  }
  if (s[i] === '(') {
    i++;
    ws();
    let label = null;
    if (s[i] === '"') [label, i] = parseValue(s, i);
    else if (s[i] === '{') { const j = s.indexOf('}', i); label = s.slice(i, j + 1); i = j + 1; }
    else { const j = s.indexOf('>', i); i = j + 1; }
    const m = /^ : container = (-?\d+) \)/.exec(s.slice(i));
    return [{ label, container: m[1] }, i + m[0].length];
  }
  if (s[i] === '[') {
    const arr = [];
    i++;
    ws();
    while (s[i] !== ']') {
      const m = /^\[\d+\] = /.exec(s.slice(i));
      let v;
      [v, i] = parseValue(s, i + m[0].length);
      arr.push(v);
      ws();
      if (s[i] === ',') i++;
      ws();
    }
    return [arr, i + 1];
  }
  if (s[i] === '{') return parseStruct(s, i);
  const m = /^-?\d+/.exec(s.slice(i));
  return [m[0], i + m[0].length];
}
function parseStruct(s, i) {
  const obj = {};
  i++;
  for (;;) {
    while (s[i] === ' ') i++;
    if (s[i] === '}') return [obj, i + 1];
    const m = /^([^ ]+) = /.exec(s.slice(i));
    let v;
    [v, i] = parseValue(s, i + m[0].length);
    obj[m[1]] = v;
    while (s[i] === ' ') i++;
    if (s[i] === ',') i++;
  }
}
function parseLine(line) {
  const m = /^\[([0-9.]+)\] (?:([^ ]+) )?([^ ]+): (\{.*)$/.exec(line);
  if (!m) return null;
  const [ctx, i] = parseStruct(m[4], 0);
  const rest = m[4].slice(i);
  const payload = rest.startsWith(', ') ? parseStruct(rest, 2)[0] : {};
  return { ts: m[1], host: m[2], name: m[3], ctx, payload };
}
function babeltrace(dir, clock) {
  const r = spawnSync('babeltrace2', ['--no-delta', clock, dir], { maxBuffer: 1 << 30 });
  check(r.status === 0, `babeltrace2 ${dir}: exit ${r.status}`);
  check(r.stderr.length === 0, `babeltrace2 ${dir} warned: ${r.stderr.toString().slice(0, 400)}`);
  return r.stdout.toString().split('\n').filter((l) => l).map(parseLine);
}

// ---- the field names as a CTF reader shows them (docs/guide/read.md) ----------------------
const KEYWORDS = new Set(['align', 'callsite', 'const', 'char', 'clock', 'double', 'enum', 'env',
  'event', 'floating_point', 'float', 'integer', 'int', 'long', 'short', 'signed', 'stream',
  'string', 'struct', 'trace', 'typealias', 'typedef', 'unsigned', 'variant', 'void', '_Bool',
  '_Complex', '_Imaginary', 'TRUE', 'FALSE', 'true', 'false']);
function ctfNames(fields) {
  const idents = [];
  const shown = new Map();
  for (const f of fields) {
    if (f.padding) continue;
    let id = [...Buffer.from(f.name, 'utf8')].map((b) => (/[A-Za-z0-9_]/.test(String.fromCharCode(b))
      ? String.fromCharCode(b) : '_')).join('');
    if (id === '' || /^[_0-9]/.test(id) || KEYWORDS.has(id)) id = `_${id}`;
    const base = id;
    for (let n = 2; idents.includes(id); n++) id = `${base}_${n}`;
    idents.push(id);
    shown.set(f.name, id.startsWith('_') ? id.slice(1) : id);
  }
  return shown;
}

// ---- the registry (backbeat inspect --json), first input wins ------------------------------
function registry(inputs) {
  const byId = new Map();
  const hosts = new Map();
  const pids = new Map(); // instance -> its OS pid as text, '-1' when the dump has none
  for (const f of inputs) {
    const d = JSON.parse(run(tool, ['inspect', '--json', f]));
    for (const s of d.registry) if (!byId.has(s.id)) byId.set(s.id, s);
    for (const i of d.instances ?? []) if (!hosts.has(i.instance_id)) hosts.set(i.instance_id, i.host);
    for (const i of d.instances ?? []) if (!pids.has(i.instance_id)) pids.set(i.instance_id, i.pid === null ? '-1' : String(i.pid));
  }
  return { byId, hosts, pids };
}

// The CTF text of a Parquet value of field f (null: the field equals its sentinel).
function expectCtf(f, v) {
  if (v === null || v === undefined) {
    if (f.type === 'interned') return '';
    return null; /* checked against the sentinel */
  }
  if (f.type === 'bool') return v ? 'true' : 'false';
  if (f.type === 'bytes') return String(v);
  return String(v);
}
function ctfText(f, v) {
  if (f.type === 'bool') return v.label;
  if (f.type === 'enum') return v.label === null ? v.container : (v.label.startsWith('{') ? v.label : v.label);
  if (f.type === 'bytes') return v.map((b) => Number(b).toString(16).padStart(2, '0')).join('');
  return v;
}
// The zero-extended image of an integer text of `width` bytes, for sentinel checks.
function image(text, width) {
  let b = BigInt(text);
  if (b < 0n) b += 1n << BigInt(8 * width);
  return b.toString();
}

async function parquetRows(file) {
  const db = await duck.DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const r = await c.runAndReadAll(`SELECT *, epoch_ns(ts)::VARCHAR AS ts_epoch_ns FROM read_parquet('${file}') ORDER BY seq`);
  return r.getRowObjectsJS();
}

const hex16 = (b) => BigInt(b).toString(16).padStart(16, '0');
let compared = 0;
let fieldsCompared = 0;

// One case: `inputs` converted to Parquet and to CTF with `extra` options; record by record.
async function compareCase(name, inputs, extra = []) {
  const pq = path.join(work, `${name}.parquet`);
  const dir = path.join(work, `${name}.ctf`);
  run(tool, ['convert', ...inputs, '-o', pq, ...extra]);
  run(tool, ['convert', ...inputs, '-f', 'ctf', '-o', dir, ...extra]);
  const rows = await parquetRows(pq);
  const cyc = babeltrace(dir, '--clock-cycles');
  const sec = babeltrace(dir, '--clock-seconds');
  const { byId, hosts, pids } = registry(inputs);
  const DENSE = new Set(['seq', 'ts_nanos', 'event', 'event_id', 'instance_id', 'ts', 'pid']);
  const eventNames = new Set([...byId.values()].map((x) => x.name));
  const sameName = new Map();
  for (const x of byId.values()) sameName.set(x.name, (sameName.get(x.name) ?? 0) + 1);
  check(cyc.length === rows.length, `${name}: ${cyc.length} CTF events, ${rows.length} Parquet rows`);
  check(sec.length === cyc.length, `${name}: --clock-seconds gave ${sec.length} events`);
  // babeltrace2 orders streams' events by time; records of one nanosecond and instance are
  // compared as a set (Parquet has no shard column to order them by).
  const key = (ts, inst, text) => `${ts.padStart(20, '0')} ${inst} ${text}`;
  const want = [];
  const got = [];
  rows.forEach((r) => {
    const s = byId.get(hex16(r.event_id));
    const names = ctfNames(s.fields);
    const vals = {};
    // Parquet's names (docs/PARQUET_TABLE.md): role fields promoted unless named like a dense
    // column or an event, or a second of one name; repeated names in a group become name#k.
    const seen = new Map();
    const roleSeen = new Set();
    for (const f of s.fields) {
      if (f.padding) continue;
      const k = (seen.get(f.name) ?? 0) + 1;
      seen.set(f.name, k);
      const promoted = f.role !== 'none' && !DENSE.has(f.name) && !eventNames.has(f.name) && !roleSeen.has(f.name);
      if (f.role !== 'none') roleSeen.add(f.name);
      const v = promoted ? r[f.name] : r[r.event]?.[k === 1 ? f.name : `${f.name}#${k}`];
      vals[names.get(f.name)] = { f, v: expectCtf(f, v) };
    }
    const shown = sameName.get(s.name) > 1 ? `${s.name}#${s.id}` : s.name;
    want.push({ k: key(String(r.ts_nanos), hex16(r.instance_id), shown), r, vals });
  });
  cyc.forEach((e, i) => {
    const inst = hex16(e.ctx.instance_id);
    check(sec[i] && sec[i].ts.replace('.', '').replace(/^0+/, '') === e.ts.replace(/^0+/, ''),
      `${name}: --clock-seconds ${sec[i]?.ts} vs cycles ${e.ts}`);
    const hi = extra.indexOf('--host');
    const host = hi >= 0 ? extra[hi + 1] : hosts.get(inst);
    if (host !== undefined) check(e.ctx.host === host, `${name}: host ${e.ctx.host} vs ${host}`);
    check(String(e.ctx.os_pid) === pids.get(inst), `${name}: os_pid ${e.ctx.os_pid} vs ${pids.get(inst)}`);
    got.push({ k: key(String(BigInt(e.ts)), inst, e.name), e });
  });
  const order = (a, b) => (a.k < b.k ? -1 : a.k > b.k);
  want.sort(order);
  got.sort(order);
  for (let i = 0; i < Math.min(want.length, got.length); i++) {
    const w = want[i];
    // within a tie, find the CTF event whose payload matches
    let j = i;
    const same = (g) => g.k === w.k && Object.entries(w.vals).every(([n, { f, v }]) =>
      (v === null ? image(g.e.payload[n], f.width) === String(BigInt(f.sentinel))
        // babeltrace2 2.0.4 prints an empty string field as a previous string of its stream
        // (the bytes hold the empty string; see docs/guide/read.md): not comparable there
        : (v === '' && f.type === 'interned') || ctfText(f, g.e.payload[n]) === v));
    while (j < got.length && got[j].k === w.k && !same(got[j])) j++;
    if (j >= got.length || got[j].k !== w.k) {
      check(false, `${name}: no CTF event for Parquet row ${w.r.seq} ${w.k} ${JSON.stringify(Object.fromEntries(Object.entries(w.vals).map(([n, x]) => [n, x.v])))}; CTF has ${JSON.stringify(got[i]?.e)}`);
      continue;
    }
    [got[i], got[j]] = [got[j], got[i]];
    check(Object.keys(got[i].e.payload).length === Object.keys(w.vals).length,
      `${name}: event ${w.k}: CTF fields ${Object.keys(got[i].e.payload)} vs ${Object.keys(w.vals)}`);
    compared++;
    fieldsCompared += Object.keys(w.vals).length;
  }
  return { rows: rows.length, dir };
}

// ---- the cases ------------------------------------------------------------------------------
const g = (f) => path.join(compat, f);
const gen = (f) => path.join(work, f);
const counts = [];
async function runCase(name, inputs, extra) {
  const before = compared;
  const { rows } = await compareCase(name, inputs, extra);
  counts.push(`${name}: ${compared - before}/${rows}`);
}
for (const f of fs.readdirSync(compat).sort()) {
  const m = /^(.*)\.bb$/.exec(f);
  if (m) await runCase(m[1], [g(f)]);
}
await runCase('multi_ab', [g('multi_a.bb'), g('multi_b.bb')]);
await runCase('multi_abo', [g('multi_a.bb'), g('multi_b.bb'), g('multi_other.bb')]);
run(ctfGen, [gen('odd_a.bb'), 'c7f0000000000001', 'host-a']);
run(ctfGen, [gen('odd_b.bb'), 'c7f0000000000002', 'host-b']);
await runCase('odd_names', [gen('odd_a.bb')]);
await runCase('odd_two_hosts', [gen('odd_a.bb'), gen('odd_b.bb')]);
run(cliGen, ['spans1', gen('spans1.bb')]);
run(cliGen, ['spans2', gen('spans2.bb')]);
await runCase('spans_two_processes', [gen('spans1.bb'), gen('spans2.bb')]);
run(pqGen, [gen('every_type.bb'), '30000']);
await runCase('every_type', [gen('every_type.bb')]);
await runCase('filters', [gen('every_type.bb')], ['--event', 'gen::Span*', '--since', '+1ms', '--until', '+2ms']);
await runCase('host_override', [g('multi_a.bb'), g('multi_b.bb')], ['--host', 'elsewhere']);

// The renamed fields, as a reader finds them.
{
  const e = babeltrace(path.join(work, 'odd_names.ctf'), '--clock-cycles').find((x) => x.name === 'odd::Names');
  const want = ['event', 'string', '_x', '9lives', 'a_b', 'a_b_2', 'h__llo', 'flag', 'tag', 'blob', 'kind', 'span'];
  check(JSON.stringify(Object.keys(e.payload)) === JSON.stringify(want), `odd::Names fields ${Object.keys(e.payload)}`);
}

// ---- the output discipline -------------------------------------------------------------------
const cli = (args) => spawnSync(tool, args, { encoding: 'utf8' });
{
  const empty = path.join(work, 'empty.ctf');
  check(fs.readdirSync(empty).join() === 'metadata', `empty dump: ${fs.readdirSync(empty)}`);
  const slash = path.join(work, 'slash.ctf');
  check(cli(['convert', g('basic.bb'), '-o', `${slash}/`]).status === 0 &&
        fs.existsSync(path.join(slash, 'metadata')), 'DIR/ chooses ctf');
  check(cli(['convert', g('basic.bb'), '-o', slash]).status === 0, 'an existing trace dir chooses ctf and is replaced');
  check(fs.readdirSync(slash).length === 3, `replaced trace: ${fs.readdirSync(slash)}`);
  const other = path.join(work, 'other');
  fs.mkdirSync(other);
  fs.writeFileSync(path.join(other, 'keep.txt'), 'x');
  const r = cli(['convert', g('basic.bb'), '-f', 'ctf', '-o', other]);
  check(r.status !== 0 && /other/.test(r.stderr), `a directory of other files refused: ${r.status} ${r.stderr}`);
  check(fs.readdirSync(other).join() === 'keep.txt', 'the other directory untouched');
  const s = cli(['convert', g('basic.bb'), '-f', 'ctf', '-o', '-']);
  check(s.status !== 0 && /directory/.test(s.stderr) && s.stdout === '', `-o - refused: ${s.stderr}`);
  const bad = path.join(work, 'bad.bb');
  fs.writeFileSync(bad, 'BACKBEAT garbage');
  const b = cli(['convert', bad, '-f', 'ctf', '-o', path.join(work, 'bad.ctf')]);
  check(b.status !== 0 && !fs.existsSync(path.join(work, 'bad.ctf')), 'bad input: no output');
  const ro = path.join(work, 'ro');
  fs.mkdirSync(ro);
  fs.chmodSync(ro, 0o500);
  const w = cli(['convert', g('basic.bb'), '-f', 'ctf', '-o', path.join(ro, 't')]);
  if (process.getuid() !== 0) check(w.status !== 0 && /ro/.test(w.stderr), `unwritable: ${w.stderr}`);
  fs.chmodSync(ro, 0o700);
  check(!fs.readdirSync(work).some((f) => f.startsWith('.')), `temporaries left: ${fs.readdirSync(work)}`);
}

console.log(`compared ${compared} records, ${fieldsCompared} field values: ${counts.join(', ')}`);
if (failures) {
  console.log(`${failures} failure(s)`);
  process.exit(1);
}
console.log('ok');
