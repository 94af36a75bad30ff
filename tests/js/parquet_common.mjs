// parquet_common.mjs — shared helpers of the Parquet writer's Node tests: locating the golden
// vectors, converting dumps (through the CLI or the test driver), reading a Parquet file with
// DuckDB and with hyparquet, an independent model of the table layout (FORMAT.md) computed
// from the golden expected.json schemas, and value-by-value comparison.
// SPDX-License-Identifier: MIT
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// A padding field (the C reader's bb_rfield_is_padding): role none, a name that starts with
// _pad. Recorded and in the schema, but no Parquet column.
export const isPadding = (f) => f.role === 'none' && f.name.startsWith('_pad');

export const SKIP = 77;

export function compatDir() {
  const d = process.env.BACKBEAT_COMPAT_DIR || '/work/shared/compat';
  if (!fs.existsSync(path.join(d, 'basic.expected.json'))) {
    console.log(`golden vectors not found in ${d}: skipped`);
    process.exit(SKIP);
  }
  return d;
}

// Import the readers, or skip when `npm ci --prefix tests/js` was not run.
export async function readers() {
  try {
    const duck = await import('@duckdb/node-api');
    const hyp = await import('hyparquet');
    const comp = await import('hyparquet-compressors');
    return { duck, hyp, compressors: comp.compressors };
  } catch (e) {
    console.log(`readers not installed (npm ci --prefix tests/js): skipped (${e.message})`);
    process.exit(SKIP);
  }
}

export function tmpDir(tag) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `bb-${tag}-`));
}

// Convert `inputs` to `out` with `kind` = "cli" (backbeat convert) or "driver" (pq_convert);
// a CLI conversion's OUT.views.sql is then loaded in DuckDB, every view queried
// (sidecar_check.mjs): a sidecar that does not bind fails the test.
export function convert(kind, tool, inputs, out, env = {}, extra = []) {
  const args = kind === 'cli' ? ['convert', ...inputs, '-o', out, ...extra] : [out, ...inputs];
  execFileSync(tool, args, { stdio: ['ignore', 'inherit', 'inherit'],
                             env: { ...process.env, ...env } });
  if (kind === 'cli') checkSidecar(out);
}

// Load OUT.views.sql in DuckDB (another process: this one stays synchronous).
export function checkSidecar(out) {
  const script = path.join(path.dirname(new URL(import.meta.url).pathname), 'sidecar_check.mjs');
  try {
    execFileSync(process.execPath, [script, out], { stdio: ['ignore', 'pipe', 'inherit'] });
  } catch (e) {
    check(false, `sidecar of ${out}: ${String(e.stdout ?? e.message).trim()}`);
  }
}

let failures = 0;
export function check(cond, msg) {
  if (!cond) {
    failures++;
    console.log(`FAIL: ${msg}`);
    if (failures > 40) { console.log('too many failures'); process.exit(1); }
  }
  return cond;
}
export function finish(what) {
  if (failures) { console.log(`${failures} failure(s)`); process.exit(1); }
  console.log(`ok: ${what}`);
}

export function sqlStr(s) { return `'${s.replaceAll("'", "''")}'`; }

export async function duckRows(duck, file, sql = null) {
  const db = await duck.DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const r = await c.runAndReadAll(sql ?? `SELECT * FROM read_parquet(${sqlStr(file)})`);
  return r.getRowObjectsJS();
}

export async function hypRows(hyp, compressors, file) {
  const buf = await hyp.asyncBufferFromFile(file);
  return hyp.parquetReadObjects({ file: buf, compressors });
}

// ---- an independent model of the table layout ----------------------------------------------
const DENSE = ['seq', 'ts_nanos', 'event', 'event_id', 'instance_id', 'ts', 'pid'];
// The widening rule (docs/PARQUET_TABLE.md): kinds BOOL < USMALL < U64 < STRING,
// USMALL < SIGNED < STRING, BOOL < SIGNED; a leaf's kind is the join of its fields' kinds.
const kindOf = (t) => (['u8', 'u16', 'u32'].includes(t) ? 'USMALL' : t === 'u64' ? 'U64'
                      : /^i\d/.test(t) ? 'SIGNED' : t === 'bool' ? 'BOOL' : 'STRING');
const ABOVE = { BOOL: ['BOOL', 'USMALL', 'U64', 'SIGNED', 'STRING'], USMALL: ['USMALL', 'U64', 'SIGNED', 'STRING'],
                U64: ['U64', 'STRING'], SIGNED: ['SIGNED', 'STRING'], STRING: ['STRING'] };
export function kindJoin(a, b) {
  // the least kind above both (the lattice is small: the first common one in ABOVE order)
  const order = ['BOOL', 'USMALL', 'U64', 'SIGNED', 'STRING'];
  return order.find((k) => ABOVE[a].includes(k) && ABOVE[b].includes(k));
}
const typeOfKind = (k) => ({ BOOL: 'BOOLEAN', USMALL: 'INT64', U64: 'UINT64', SIGNED: 'INT64', STRING: 'STRING' })[k];
const colType = (t) => typeOfKind(kindOf(t));

function cmpBytes(a, b) { return Buffer.compare(Buffer.from(a), Buffer.from(b)); }

// schemasPerInput: arrays of expected.json schema objects, input order. Returns the layout:
// names are qualified event names (every version of a name shares its `event` value and
// its group, the union by (field name, occurrence) of the versions' unpromoted fields).
export function layoutOf(schemasPerInput) {
  const byId = new Map();
  for (const list of schemasPerInput) for (const s of list) if (!byId.has(s.id)) byId.set(s.id, s);
  const schemas = [...byId.values()].sort((a, b) => cmpBytes(a.name, b.name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const events = schemas.map((s) => ({ schema: s, display: s.name }));
  const reserved = new Set([...DENSE, ...events.map((e) => e.display)]);
  const promoted = new Map(); // name -> {kind, role}
  for (const e of events) {
    e.place = [];
    const mine = new Set();
    for (const f of e.schema.fields) {
      if (f.role !== 'none' && !reserved.has(f.name) && !mine.has(f.name)) {
        mine.add(f.name);
        const p = promoted.get(f.name);
        if (!p) promoted.set(f.name, { kind: kindOf(f.type), role: f.role });
        else p.kind = kindJoin(p.kind, kindOf(f.type));
        e.place.push({ field: f, column: f.name, group: null });
      } else {
        e.place.push(null);
      }
    }
  }
  const groups = new Map(); // name -> {group, fields: Map(column -> {kind})}
  for (const e of events) {
    const seen = new Map();
    e.schema.fields.forEach((f, i) => {
      if (e.place[i]) return;
      if (isPadding(f)) { e.place[i] = { field: f, pad: true }; return; } // no column
      const k = (seen.get(f.name) || 0) + 1;
      seen.set(f.name, k);
      if (!groups.has(e.display))
        groups.set(e.display, { group: DENSE.includes(e.display) ? `${e.display}#2` : e.display, fields: new Map() });
      const g = groups.get(e.display);
      const column = k === 1 ? f.name : `${f.name}#${k}`;
      const u = g.fields.get(column);
      if (!u) g.fields.set(column, { kind: kindOf(f.type) });
      else u.kind = kindJoin(u.kind, kindOf(f.type));
      e.place[i] = { field: f, column, group: g.group };
    });
  }
  for (const e of events) {
    const g = groups.get(e.display);
    e.group = g ? g.group : null;
    e.groupFields = g ? [...g.fields.keys()] : [];
    for (const p of e.place.filter((q) => !q.pad))
      p.type = typeOfKind(p.group ? g.fields.get(p.column).kind : promoted.get(p.column).kind);
  }
  for (const p of promoted.values()) p.type = typeOfKind(p.kind);
  const byDisplay = new Map();
  for (const e of events) if (!byDisplay.has(e.display)) byDisplay.set(e.display, e);
  const byId2 = new Map(events.map((e) => [e.schema.id, e]));
  const groupNames = [...new Set(events.map((e) => e.group).filter((g) => g))];
  return { events, promoted, byDisplay, byId: byId2, groupNames,
           names: [...byDisplay.keys()] };
}

// A golden value (number, decimal string, bool, string, null) as the table holds it.
function tableValue(v, field, type) {
  if (v === null || v === undefined) return null;
  const ft = colType(field.type);
  if (ft === type) {
    if (type === 'UINT64' || type === 'INT64') return BigInt(v);
    return v;
  }
  // a leaf widened by the rule (lossless): bools as 0/1 or true/false, numbers as decimal
  if (type === 'STRING') return String(v);
  if (ft === 'BOOLEAN') return v ? 1n : 0n;
  return BigInt(v);
}

// The `ts` column's expected value: the nanoseconds (a TsNanos), NULL past INT64.
export class TsNanos { constructor(ns) { this.ns = ns; } }
export function tsValue(ns) {
  const b = BigInt(ns);
  return b <= 0x7fffffffffffffffn ? new TsNanos(b) : null;
}

// Expected rows: [{seq, ts_nanos, event, event_id, instance_id, <promoted>..., <group>...}].
export function expectedRows(layout, records) {
  return records.map((r, i) => {
    const e = layout.byId.get(r.event_id) ?? layout.byDisplay.get(r.event);
    const row = { seq: BigInt(i), ts_nanos: BigInt(r.ts), event: e.display,
                  event_id: BigInt('0x' + r.event_id), instance_id: BigInt('0x' + r.instance_id),
                  ts: tsValue(r.ts), pid: null }; // golden vectors carry no pid: NULL, never 0
    for (const name of layout.promoted.keys()) row[name] = null;
    for (const g of layout.groupNames) row[g] = null;
    if (e.group) {
      row[e.group] = {};
      for (const c of e.groupFields) row[e.group][c] = null;
    }
    e.schema.fields.forEach((f, k) => {
      const p = e.place[k];
      if (p.pad) return;
      const v = tableValue(r.fields[f.name], f, p.type);
      if (p.group) row[p.group][p.column] = v;
      else row[p.column] = v;
    });
    return row;
  });
}

function show(v) {
  return JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? `${x}n` : x));
}

// Compare one value exactly (bigints by value, strings by code units, structs field by field).
export function sameValue(a, b) {
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  if (typeof b === 'bigint') return typeof a === 'bigint' ? a === b : false;
  if (b instanceof TsNanos) {
    // readers hand a TIMESTAMP(NANOS) over as a bigint (ns), or a JS Date (ms)
    if (typeof a === 'bigint') return a === b.ns;
    return a instanceof Date && BigInt(a.getTime()) === b.ns / 1000000n;
  }
  if (typeof b === 'object') {
    if (typeof a !== 'object') return false;
    const ka = Object.keys(a), kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    return kb.every((k) => Object.hasOwn(a, k) && sameValue(a[k], b[k]));
  }
  return a === b;
}

// Check `got` rows against `want` rows, column by column; `who` names the reader.
export function compareRows(who, got, want) {
  if (!check(got.length === want.length, `${who}: ${got.length} rows, want ${want.length}`)) return;
  const cols = want.length ? Object.keys(want[0]) : [];
  if (got.length) check(show(Object.keys(got[0])) === show(cols), `${who}: columns ${show(Object.keys(got[0]))}, want ${show(cols)}`);
  for (let i = 0; i < want.length; i++) {
    for (const c of cols) {
      check(sameValue(got[i][c], want[i][c]), `${who}: row ${i} column ${c}: got ${show(got[i][c])}, want ${show(want[i][c])}`);
    }
  }
}
