// parquet_log.mjs — log records in the Parquet table (issue 41): the demo's dump converted
// (serially and with --threads 2), its OUT.views.sql loaded in DuckDB, and the `log` view read
// back: every row, formatted as `backbeat log` prints it, equals `backbeat log`'s line for the
// same dump; a log site's string argument is its text in the site's column (not hex bytes);
// rows of other events have no message.
//
// Usage: node parquet_log.mjs BACKBEAT DEMO
// SPDX-License-Identifier: MIT
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { check, convert, finish, readers, tmpDir } from './parquet_common.mjs';

const [tool, demo] = process.argv.slice(2);
const { duck } = await readers();
const work = tmpDir('pqlog');
const dump = path.join(work, 'a.bb');
execFileSync(demo, [dump], { stdio: 'ignore' });
const want = execFileSync(tool, ['log', dump], { encoding: 'utf8' }).trimEnd().split('\n');
check(want.length > 100, `backbeat log gave only ${want.length} lines`);

async function views(out) {
  const db = await duck.DuckDBInstance.create(':memory:');
  const c = await db.connect();
  await c.run(`SET file_search_path = '${work.replaceAll("'", "''")}'`);
  const ex = await c.extractStatements(fs.readFileSync(`${out}.views.sql`, 'utf8'));
  for (let i = 0; i < ex.count; i++) await (await ex.prepare(i)).run();
  return c;
}
const rows = async (c, sql) => (await c.runAndReadAll(sql)).getRowObjectsJS();

for (const threads of ['1', '2']) {
  const out = path.join(work, `a${threads}.parquet`);
  convert('cli', tool, [dump], out, {}, ['--threads', threads]);
  const c = await views(out);
  const got = await rows(c, 'SELECT ts_nanos, level, file, line, message FROM log ORDER BY seq');
  const lines = got.map((r) => `${r.ts_nanos / 1000000000n}.${String(r.ts_nanos % 1000000000n).padStart(9, '0')} `
    + `${r.level.padEnd(5)} ${r.file}:${r.line} ${r.message}`);
  check(lines.length === want.length, `threads ${threads}: ${lines.length} log rows, backbeat log ${want.length} lines`);
  let bad = 0;
  for (let i = 0; i < Math.min(lines.length, want.length); i++)
    if (lines[i] !== want[i] && bad++ < 3) check(false, `threads ${threads} row ${i}:\n  got  ${lines[i]}\n  want ${want[i]}`);
  check(bad === 0, `threads ${threads}: ${bad} log rows differ from backbeat log`);
  // The error site's %s argument (a1) as text and its BB_E argument (a2) as its label: the message
  // holds each where the format puts it.
  const [site] = await rows(c, "SELECT DISTINCT event FROM log WHERE format LIKE 'key %lu failed for %s%'");
  check(site !== undefined, `threads ${threads}: no error site in the log view`);
  if (site) {
    const col = site.event.replaceAll('"', '""');
    const args = await rows(c, `SELECT l.message, e."${col}".a1 AS who, e."${col}".a2 AS method
                                FROM log l JOIN events e USING (seq)
                                WHERE l.event = '${site.event.replaceAll("'", "''")}'`);
    const off = args.filter((r) => typeof r.who !== 'string' || !['GET', 'PUT', 'DELETE'].includes(r.method)
                                   || !r.message.includes(` failed for ${r.who} (${r.method} request `));
    check(args.length > 100 && off.length === 0,
          `threads ${threads}: ${off.length} of ${args.length} string arguments not their text (e.g. ${JSON.stringify(off[0])})`);
  }
  // A double argument (the done line's hit rate, a1) is a DOUBLE, printed by the message as %.1f.
  const [done] = await rows(c, "SELECT DISTINCT event FROM log WHERE format LIKE 'worker %u done%'");
  check(done !== undefined, `threads ${threads}: no done site in the log view`);
  if (done) {
    const col = done.event.replaceAll('"', '""');
    const rate = await rows(c, `SELECT l.message, e."${col}".a1 AS pct, typeof(e."${col}".a1) AS t
                                FROM log l JOIN events e USING (seq)
                                WHERE l.event = '${done.event.replaceAll("'", "''")}'`);
    const off = rate.filter((r) => r.t !== 'DOUBLE' || !r.message.includes(`done, ${r.pct.toFixed(1)}% of`));
    check(rate.length > 0 && off.length === 0,
          `threads ${threads}: ${off.length} of ${rate.length} double arguments not DOUBLE numbers (e.g. ${JSON.stringify(off[0])})`);
  }
  const [o] = await rows(c, "SELECT count(*) FILTER (WHERE log_message IS NOT NULL AND event NOT LIKE 'backbeat.log::%') AS stray, count(*) FILTER (WHERE event NOT LIKE 'backbeat.log::%') AS other FROM events");
  check(o.stray === 0n && o.other > 0n, `threads ${threads}: ${o.stray} messages on ${o.other} rows of other events`);
}
finish('the log view reads back as backbeat log prints the dump');
