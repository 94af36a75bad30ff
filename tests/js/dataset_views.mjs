// dataset_views.mjs — which build's view definitions a dataset's views.sql keeps (fleet_gen): the
// view sets go by the newest record each carried, so the newest build's definition of a view
// wins whatever order the builds were appended in (build 1 then 2, and 2 then 1), a re-append
// that adds no row changes no file, and the single-file convert's OUT.views.sql follows the
// same rule whatever order its inputs were given in.
//
// Usage: node dataset_views.mjs BACKBEAT FLEET_GEN
// SPDX-License-Identifier: MIT
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { check, finish, tmpDir } from './parquet_common.mjs';

const [tool, gen] = process.argv.slice(2);
const work = tmpDir('dsviews');
const dump = (b, h, n) => {
  const f = path.join(work, `b${b}h${h}-${n}.bb`);
  execFileSync(gen, [f, String(b), String(h), String(n)]);
  return f;
};
const must = (args) => {
  const r = spawnSync(tool, args, { encoding: 'utf8' });
  check(r.status === 0, `${args.join(' ')}: exit ${r.status} ${r.stderr}`);
};
const views = (ds) => path.join(ds, 'views.sql');
const worst = 'CREATE OR REPLACE VIEW fleet_worst_latency';
const lastSet = (ds) => fs.readFileSync(views(ds), 'utf8').trimEnd().split('\n').at(-1);
// The definition of fleet_build that DuckDB ends with: the last CREATE OR REPLACE of it.
const buildOf = (file) => [...fs.readFileSync(file, 'utf8').matchAll(/VIEW fleet_build AS SELECT '([^']*)'/g)].at(-1)?.[1];
const snapshot = (ds) => fs.readdirSync(ds, { recursive: true }).sort().filter((f) => fs.statSync(path.join(ds, f)).isFile())
  .map((f) => `${f}:${crypto.createHash('sha256').update(fs.readFileSync(path.join(ds, f))).digest('hex')}:${fs.statSync(path.join(ds, f)).mtimeMs}`).join('\n');
const wants = (ds, b, when) => check(buildOf(views(ds)) === `build ${b}`, `${when}: views.sql defines fleet_build as ${buildOf(views(ds))}, want build ${b}`);
// Re-appends that add no row change no file (views.sql, the schema dump, the ranks, the index, parts).
const reappends = (ds, lists, when) => {
  const before = snapshot(ds);
  for (const l of lists) must(['convert', ...l, '--dataset', ds]);
  check(snapshot(ds) === before, `${when}: re-appending changed files`);
};

const b1 = dump(1, 1, 40), b2 = dump(2, 1, 40), b3 = dump(3, 1, 40);

// In build order.
const ds = path.join(work, 'ds');
must(['convert', b1, '--dataset', ds]);
check(!lastSet(ds).startsWith(worst), 'build 1 alone has no fleet_worst_latency');
wants(ds, 1, 'build 1');
must(['convert', b2, '--dataset', ds]);
wants(ds, 2, 'build 1 then 2');
reappends(ds, [[b1], [b2, b1], [b2]], 'build 1 then 2');
wants(ds, 2, 'build 1 then 2, re-appended');
// A new host of build 1 adds rows (older than build 2's): build 2's definition stays.
must(['convert', dump(1, 2, 40), '--dataset', ds]);
wants(ds, 2, 'another build-1 dump after build 2');

// In reverse build order: the older build appended last does not win.
const rev = path.join(work, 'rev');
must(['convert', b2, '--dataset', rev]);
must(['convert', b1, '--dataset', rev]);
wants(rev, 2, 'build 2 then 1');
reappends(rev, [[b1], [b2], [b1, b2]], 'build 2 then 1');
wants(rev, 2, 'build 2 then 1, re-appended');
must(['convert', b3, '--dataset', rev]);
must(['convert', dump(1, 3, 40), dump(2, 3, 40), '--dataset', rev]);
wants(rev, 3, 'build 2, 1, 3, then builds 1 and 2 of another host');
reappends(rev, [[b3], [b1, b2, b3]], 'build 2, 1, 3');

// One append of all builds, newest first on the command line.
const all = path.join(work, 'all');
must(['convert', b3, b2, b1, '--dataset', all]);
wants(all, 3, 'builds 3, 2, 1 in one append');

// The single-file convert and its sidecar.
for (const order of [[b1, b2], [b2, b1]]) {
  const out = path.join(work, `one-${order.length}-${path.basename(order[0], '.bb')}.parquet`);
  must(['convert', ...order, '-o', out]);
  const got = buildOf(`${out}.views.sql`);
  check(got === 'build 2', `convert ${order.map((f) => path.basename(f)).join(' ')}: the sidecar defines fleet_build as ${got}, want build 2`);
}

// merge keeps the same order: its output's sets, converted alone (one dump, equal ranks, file
// order), still give the newest build's definition.
for (const order of [[b1, b2], [b2, b1]]) {
  const tag = path.basename(order[0], '.bb');
  const merged = path.join(work, `merged-${tag}.bb`);
  must(['merge', ...order, '-o', merged]);
  const out = path.join(work, `merged-${tag}.parquet`);
  must(['convert', merged, '-o', out]);
  const got = buildOf(`${out}.views.sql`);
  check(got === 'build 2', `merge ${order.map((f) => path.basename(f)).join(' ')}, then convert: fleet_build is ${got}, want build 2`);
}

fs.rmSync(work, { recursive: true, force: true });
finish('dataset views: the newest build\'s definitions win in either append order, re-appends change no file');
