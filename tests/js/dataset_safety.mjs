// dataset_safety.mjs — `convert --dataset DIR` against a hostile or interrupted dataset:
// planted part names (…-18446744073709551615.parquet, …--1.parquet) never make a new part
// replace an old one; symlinks inside the dataset (views.sql, _backbeat/lock, an index file, a
// partition directory) are replaced or refused, never followed; an appender killed at every
// step of its append (BACKBEAT_DATASET_FAULT=K) leaves the old dataset or the new one, and the
// retry gives exactly the rows of a one-file conversion, with no temporary left; a bad
// partitioning file is a data error naming it; a failed append to a new dataset creates nothing.
//
// Usage: node dataset_safety.mjs BACKBEAT
// SPDX-License-Identifier: MIT
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { check, compatDir, finish, readers, sqlStr, tmpDir } from './parquet_common.mjs';

const [tool] = process.argv.slice(2);
const compat = compatDir();
const { duck } = await readers();
const work = tmpDir('pqsafe');
const dumps = ['basic', 'multi_a', 'multi_b', 'multi_other', 'wrapped', 'wrapped_suffix']
  .map((n) => path.join(compat, `${n}.bb`)).filter((f) => fs.existsSync(f));
const run = (args, env = {}) => spawnSync(tool, args, { encoding: 'utf8', env: { ...process.env, ...env } });
const must = (args) => {
  const r = run(args);
  check(r.status === 0, `${args.join(' ')}: exit ${r.status} ${r.stderr}`);
  return r;
};
const db = await duck.DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJS();
const parts = (dir) => fs.readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('.parquet')).sort();
const rows = async (dir) => (await q(`SELECT count(*) AS n FROM read_parquet(${sqlStr(`${dir}/**/*.parquet`)}, hive_partitioning = true, union_by_name = true)`))[0].n;
const sha = (f) => crypto.createHash('sha256').update(fs.readFileSync(f)).digest('hex');
const leftovers = (dir) => {
  const tmp = path.join(dir, '_backbeat', 'tmp');
  return [...(fs.existsSync(tmp) ? fs.readdirSync(tmp) : []),
          ...(fs.existsSync(path.join(dir, '_backbeat', 'journal')) ? ['journal'] : [])];
};
const oneFile = async (inputs) => {
  const f = path.join(work, `all-${crypto.randomUUID()}.parquet`);
  must(['convert', ...inputs, '-o', f]);
  return (await q(`SELECT count(*) AS n FROM read_parquet(${sqlStr(f)})`))[0].n;
};
const total = await oneFile(dumps);

// 1. Planted part names: the next part never wraps onto part-…-0, old parts keep their bytes.
{
  const ds = path.join(work, 'hostile');
  must(['convert', dumps[1], '--dataset', ds]); // multi_a
  const [first] = parts(ds);
  const dir = path.join(ds, path.dirname(first));
  const inst = path.basename(first).split('-')[1];
  const planted = [`part-${inst}-18446744073709551615.parquet`, `part-${inst}--1.parquet`,
                   `part-${inst}-1.parquet`];
  for (const p of planted) fs.writeFileSync(path.join(dir, p), `planted ${p}`);
  const before = sha(path.join(ds, first));
  must(['convert', dumps[2], '--dataset', ds]); // multi_b: same instance and partition
  check(sha(path.join(ds, first)) === before, 'the first part was overwritten');
  for (const p of planted) check(fs.readFileSync(path.join(dir, p), 'utf8') === `planted ${p}`, `${p} was overwritten`);
  const added = parts(ds).filter((p) => p !== first && !planted.includes(path.basename(p)));
  check(added.length === 1, `hostile names: new parts ${added}`);
  for (const p of planted) fs.rmSync(path.join(dir, p));
  const want = await oneFile([dumps[1], dumps[2]]);
  const got = await rows(ds);
  check(got === want, `hostile names: ${got} rows, want ${want}`);
}

// 2. Symlinks inside the dataset: replaced (views.sql) or refused (lock, index, partition).
{
  const ds = path.join(work, 'links');
  must(['convert', dumps[0], '--dataset', ds]);
  const victim = path.join(work, 'victim.txt');
  fs.writeFileSync(victim, 'victim');
  fs.rmSync(path.join(ds, 'views.sql'));
  fs.symlinkSync(victim, path.join(ds, 'views.sql'));
  must(['convert', dumps[3], '--dataset', ds]);
  check(fs.readFileSync(victim, 'utf8') === 'victim', 'views.sql: the symlink target was overwritten');
  check(!fs.lstatSync(path.join(ds, 'views.sql')).isSymbolicLink(), 'views.sql is still a symlink');

  const lock = path.join(ds, '_backbeat', 'lock');
  const target = path.join(work, 'lock-target');
  fs.rmSync(lock);
  fs.symlinkSync(target, lock);
  let r = run(['convert', dumps[4], '--dataset', ds]);
  check(r.status === 1 && r.stderr.includes('_backbeat/lock'), `lock symlink: ${r.status} ${r.stderr}`);
  check(!fs.existsSync(target), 'the lock symlink\'s target was created');
  fs.rmSync(lock);

  const idx = path.join(ds, '_backbeat', 'index', '1122334455667788.keys');
  const saved = fs.readFileSync(idx);
  const outside = path.join(work, 'keys-outside');
  fs.writeFileSync(outside, saved);
  fs.rmSync(idx);
  fs.symlinkSync(outside, idx);
  r = run(['convert', dumps[0], '--dataset', ds]);
  check(r.status === 1 && r.stderr.includes('_backbeat/index/1122334455667788.keys'), `index symlink: ${r.status} ${r.stderr}`);
  check(sha(outside) === crypto.createHash('sha256').update(saved).digest('hex'), 'the index symlink\'s target changed');
  fs.rmSync(idx);
  fs.writeFileSync(idx, saved);

  // The partition the next dump goes to (learnt from a scratch dataset) planted as a symlink.
  const scratch = path.join(work, 'scratch');
  must(['convert', dumps[4], '--dataset', scratch]);
  const part = parts(scratch)[0];
  const pdir = path.join(ds, path.dirname(part));
  const elsewhere = path.join(work, 'elsewhere');
  fs.mkdirSync(elsewhere);
  if (fs.existsSync(pdir)) fs.renameSync(pdir, path.join(work, 'moved-partition'));
  fs.mkdirSync(path.dirname(pdir), { recursive: true });
  fs.symlinkSync(elsewhere, pdir);
  const n0 = parts(ds).length;
  r = run(['convert', dumps[4], '--dataset', ds]);
  check(r.status === 1 && r.stderr.includes(path.dirname(part)), `partition symlink: ${r.status} ${r.stderr}`);
  check(fs.readdirSync(elsewhere).length === 0, 'a part was written through a partition symlink');
  check(parts(ds).length === n0 && leftovers(ds).length === 0, 'a refused append left files');
}

// 3. A kill at every step of an append, then a retry: the exact rows, nothing left over.
let steps = 0;
{
  const base = path.join(work, 'base');
  must(['convert', dumps[0], '--dataset', base]);
  const rest = dumps.slice(1);
  const n0 = await rows(base);
  for (let k = 1; k < 400; k++) {
    const ds = path.join(work, `kill${k}`);
    fs.cpSync(base, ds, { recursive: true });
    const r = run(['convert', ...rest, '--dataset', ds], { BACKBEAT_DATASET_FAULT: String(k) });
    if (r.status === 0) break; // past the last step
    check(r.status === 70, `kill at step ${k}: exit ${r.status} ${r.stderr}`);
    steps = k;
    const mid = await rows(ds);
    // Before the journal: the old dataset; after it, parts may be in place already.
    check(mid >= n0 && mid <= total, `kill at step ${k}: ${mid} rows, outside ${n0}..${total}`);
    must(['convert', ...rest, '--dataset', ds]);
    const got = await rows(ds);
    check(got === total, `kill at step ${k}, then a retry: ${got} rows, want ${total}`);
    check(leftovers(ds).length === 0, `kill at step ${k}: left ${leftovers(ds)}`);
    must(['convert', ...dumps, '--dataset', ds]);
    check(await rows(ds) === total, `kill at step ${k}: a second retry added rows`);
    fs.rmSync(ds, { recursive: true });
  }
  check(steps >= 10, `only ${steps} fault steps`);
}

// 4. A bad partitioning file: a data error naming it, not a usage error.
{
  const ds = path.join(work, 'badkeys');
  must(['convert', dumps[0], '--dataset', ds]);
  const pf = path.join(ds, '_backbeat', 'partitioning');
  for (const bad of ['host,colour\n', 'host,host\n', 'host,\n']) {
    fs.writeFileSync(pf, bad);
    const r = run(['convert', dumps[3], '--dataset', ds]);
    check(r.status === 1 && r.stderr.includes('_backbeat/partitioning') && !/usage|Try 'backbeat/.test(r.stderr),
          `partitioning ${JSON.stringify(bad)}: ${r.status} ${r.stderr}`);
  }
}

// 5. A failed append to a new dataset creates nothing.
{
  const garbage = path.join(work, 'garbage.bb');
  fs.writeFileSync(garbage, 'not a dump at all');
  const fresh = path.join(work, 'fresh');
  let r = run(['convert', garbage, '--dataset', fresh]);
  check(r.status === 1 && !fs.existsSync(fresh), `failed first append: ${r.status}, exists ${fs.existsSync(fresh)}`);
  const empty = path.join(work, 'empty');
  fs.mkdirSync(empty);
  r = run(['convert', path.join(work, 'missing.bb'), '--dataset', empty]);
  check(r.status === 1 && fs.readdirSync(empty).length === 0, `failed append into an empty dir left ${fs.readdirSync(empty)}`);
}

fs.rmSync(work, { recursive: true, force: true });
finish(`dataset safety: planted names, symlinks, a kill at each of ${steps} steps then a retry (${total} rows), bad keys, failed first append`);
