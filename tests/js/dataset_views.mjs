// dataset_views.mjs — a dataset's views.sql after appends of several builds (fleet_gen): the
// view set of a build appended later comes after the ones already there (its definitions win,
// whichever inputs the append had), and a re-append that adds no row changes no file.
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
const ds = path.join(work, 'ds');
const views = path.join(ds, 'views.sql');
const worst = 'CREATE OR REPLACE VIEW fleet_worst_latency';
const lastSet = () => fs.readFileSync(views, 'utf8').trimEnd().split('\n').at(-1);
const snapshot = () => fs.readdirSync(ds, { recursive: true }).sort().filter((f) => fs.statSync(path.join(ds, f)).isFile())
  .map((f) => `${f}:${crypto.createHash('sha256').update(fs.readFileSync(path.join(ds, f))).digest('hex')}:${fs.statSync(path.join(ds, f)).mtimeMs}`).join('\n');

const b1 = dump(1, 1, 40), b2 = dump(2, 1, 40);
must(['convert', b1, '--dataset', ds]);
check(!lastSet().startsWith(worst), 'build 1 alone has no fleet_worst_latency');
must(['convert', b2, '--dataset', ds]);
check(lastSet().startsWith(worst), `after build 2: views.sql ends with ${lastSet().slice(0, 60)}, want build 2's set`);
// Re-appends that add no row change no file (views.sql, the schema dump, the index, parts).
const before = snapshot();
must(['convert', b1, '--dataset', ds]);
must(['convert', b2, b1, '--dataset', ds]);
check(snapshot() === before, 're-appending changed files');
// A new host of build 1 adds rows: build 2's set stays last.
must(['convert', dump(1, 2, 40), '--dataset', ds]);
check(lastSet().startsWith(worst), `after another build-1 dump: views.sql ends with ${lastSet().slice(0, 60)}`);

fs.rmSync(work, { recursive: true, force: true });
finish('dataset views: the later build\'s set last, re-appends change no file');
