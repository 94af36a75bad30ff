// tail_types_check.mjs BACKBEAT TAIL_TYPES_GEN WORKDIR — `backbeat tail --format jsonl` (issue
// 37: rendered by plans per event, integers written in place) against a rendering written here,
// independently, from the generator's formulas (tail_types_gen.c) and compat/README.md's JSON
// conventions: every line byte for byte (every integer type and width, signed and unsigned
// values past 2^53 as strings, a sentinel as null, bool, bytes as hex, enum labels and an
// unlabelled value as a decimal string, interned strings with characters JSON escapes, padding
// left out, span phases, log lines), lines in timestamp order across the two rings, which took
// turns (the merge); the ids, pid and the log call site's line come from `inspect --json`.
// `tail --format text` of the same file: one line per record, the same time and values.
// SPDX-License-Identifier: MIT
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const [B, GEN, W] = process.argv.slice(2);
fs.rmSync(W, { recursive: true, force: true });
fs.mkdirSync(W, { recursive: true });
let failures = 0;
const check = (ok, what) => { if (!ok) { failures++; if (failures < 20) console.error(`FAIL: ${what}`); } };
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 60000, maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return r.stdout;
};

const N = 4000n;
const ring = run(GEN, [W, String(N)]).trim();
const info = JSON.parse(run(B, ['inspect', '--json', ring]));
const inst = info.instances[0];
const idOf = {};
for (const s of info.registry) idOf[s.name + '/' + s.phase] = s.id;

// ---- the JSON conventions, restated -------------------------------------------------------
const SAFE = 2n ** 53n;
const uint = (v) => (v > SAFE ? `"${v}"` : `${v}`);
const sint = (v) => ((v < 0n ? -v : v) > SAFE ? `"${v}"` : `${v}`);
const str = (s) => {
  let o = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if (ch === '"') o += '\\"';
    else if (ch === '\\') o += '\\\\';
    else if (ch === '\n') o += '\\n';
    else if (ch === '\r') o += '\\r';
    else if (ch === '\t') o += '\\t';
    else if (c < 0x20) o += '\\u00' + c.toString(16).padStart(2, '0');
    else o += ch;
  }
  return o + '"';
};
const hex = (bytes) => '"' + bytes.map((b) => b.toString(16).padStart(2, '0')).join('') + '"';
const signed = (v, bits) => BigInt.asIntN(bits, v);

// ---- the generator's values, restated -----------------------------------------------------
const NAMES = ['plain', 'quote" back\\slash', 'tab\tnl\nbell\x07\b\f\x1f', 'café € 🎵'];
const LABELS = { 1n: 'red', 2n: 'gr"een', 700n: 'blue' };
const allFields = (s) => {
  const k = s % 7n, color = k === 0n ? 1n : k === 1n ? 2n : k === 2n ? 700n : k * 10n;
  return [
    ['seq', uint(s)],
    ['u64', uint(s % 3n === 0n ? 2n ** 64n - 1n - s : s * 1000003n)],
    ['i64', sint(s % 2n ? -(s * 3000000000000n) : s * 12345n)],
    ['u32', uint(4294967295n - s * 7n)],
    ['i32', sint(s % 2n ? -2147483648n + s : s * 1000n)],
    ['opt', s % 5n === 0n ? 'null' : uint(s)],
    ['name', str(NAMES[Number(s % 4n)])],
    ['u16', uint(65535n - s)],
    ['i16', sint(s % 2n ? -32768n + (s % 100n) : s % 32767n)],
    ['color', LABELS[color] !== undefined ? str(LABELS[color]) : `"${color}"`],
    ['u8', uint((s * 37n) & 255n)],
    ['i8', sint(signed(s % 2n ? -128n + (s % 50n) : s % 127n, 8))],
    ['flag', s % 3n === 1n ? 'true' : 'false'],
    ['raw', hex([Number(s & 255n), Number((s >> 8n) & 255n), 0xab, 0x00, 0xff])],
  ];
};
const spanFields = (s) => [['span', uint(s + 1n)], ['depth', s % 3n === 0n ? 'null' : uint(s % 3n)]];
const logSchema = info.registry.find((r) => r.name.startsWith('backbeat.log::'));
const logLine = BigInt(/\nline: (\d+)\n/.exec(logSchema.description)[1]);

// ---- every line -----------------------------------------------------------------------------
const out = run(B, ['tail', '--format', 'jsonl', ring]);
const lines = out.split('\n');
check(lines.pop() === '', 'the output ends with a newline');
let lastTs = 0n, all = 0, seen = new Set(), shards = new Set(), minSeq = N, wrapsBoth = 0;
const rows = [];
for (const line of lines) {
  const m = /^\{"ts_nanos":("?)(\d+)\1,"event":"([^"]+)"(?:,"phase":"(enter|exit)")?,.*?,"shard":(\d+),/.exec(line);
  check(m, `a line of the expected shape: ${line}`);
  if (!m) continue;
  const ts = BigInt(m[2]), name = m[3], phase = m[4] || 'none', shard = m[5];
  check((m[1] === '"') === (ts > SAFE), `ts_nanos quoted only past 2^53: ${line}`);
  check(ts >= lastTs, `timestamp order: ${ts} after ${lastTs}`);
  lastTs = ts;
  shards.add(shard);
  let fields, s, msg;
  if (name === 'tail_types::All') {
    s = BigInt(/"seq":(\d+)/.exec(line)[1]);
    fields = allFields(s);
    all++;
    check(!seen.has(s), `seq ${s} printed once`);
    seen.add(s);
    if (s < minSeq) minSeq = s;
  } else if (name === 'tail_types::Work') {
    s = BigInt(/"span":(\d+)/.exec(line)[1]) - 1n;
    fields = spanFields(s);
  } else if (name === logSchema.name) {
    s = BigInt(/"a0":(\d+)/.exec(line)[1]);
    const who = NAMES[Number(s % 4n)];
    fields = [['level', '"info"'], ['file', '"tail_types_gen.c"'], ['line', `${logLine}`],
              ['function', '"record"'], ['message', str(`record ${s} of ${who}`)],
              ['a0', uint(s)], ['a1', str(who)]];
    msg = `record ${s} of ${who}`;
  } else {
    check(false, `an event the generator does not record: ${name}`);
    continue;
  }
  const want = `{"ts_nanos":${uint(ts)},"event":${str(name)}` +
    (phase !== 'none' ? `,"phase":"${phase}"` : '') +
    `,"event_id":"${idOf[name + '/' + phase]}","instance_id":"${inst.instance_id}","pid":${inst.pid}` +
    `,"shard":${shard}` + fields.map(([k, v]) => `,"${k}":${v}`).join('') + '}';
  check(line === want, `line for ${name} ${s}:\n  got  ${line}\n  want ${want}`);
  rows.push({ ts, fields, msg });
}
// the oldest records were overwritten (64 KiB rings), the newest all kept
check(all > 1000 && minSeq > 0n, `${all} typed records printed, from seq ${minSeq} (the rings wrapped)`);
for (let s = minSeq + 200n; s < N; s++) check(seen.has(s), `seq ${s} printed`);
check(shards.size === 2 || (shards.size === 1 && process.env.BB_ONE_CPU), `records of both rings: ${[...shards]}`);

// ---- text: one line per record, the same time and values ----------------------------------
// (a log line's message is printed as it is: newlines and all)
const text = run(B, ['tail', '--format', 'text', ring]);
let pos = 0;
for (let i = 0; i < rows.length && pos < text.length; i++) {
  const { ts, fields, msg } = rows[i];
  const sec = `${ts / 1000000000n}.${String(ts % 1000000000n).padStart(9, '0')}`;
  check(text.startsWith(sec + ' ', pos), `text line ${i} at ${sec}: ${text.slice(pos, pos + 80)}`);
  const end = msg ? text.indexOf(msg + '\n', pos) + msg.length : text.indexOf('\n', pos);
  const t = text.slice(pos, end);
  if (msg) check(end >= msg.length && t.includes(` info  tail_types_gen.c:${logLine} `),
                 `text line ${i}, a log line: ${t}`);
  else {
    const tailOf = fields.map(([k, v]) => `  ${k}=${v}`).join('');
    check(t.endsWith(tailOf), `text line ${i} ends with its values:\n  got  ${t}\n  want ...${tailOf}`);
  }
  pos = end + 1;
}
check(pos === text.length, `the text output holds the same ${rows.length} records (${pos} of ${text.length} bytes)`);

// ---- --follow: the same bytes, read record by record (bb_ring_follow_records) ---------------
// (the ring's process is gone: the follower prints what it left, then exits)
for (const [fmt, want] of [['jsonl', out], ['text', text]]) {
  const got = run(B, ['tail', '--follow', '--format', fmt, ring]);
  check(got === want, `tail --follow --format ${fmt} prints the bytes tail does (${got.length} vs ${want.length} bytes)`);
}

if (failures) {
  console.error(`${failures} failure(s)`);
  process.exit(1);
}
console.log(`ok: ${rows.length} lines (${all} typed records, rings ${[...shards].join(',')}) rendered as expected`);
