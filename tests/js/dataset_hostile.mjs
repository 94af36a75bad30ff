// dataset_hostile.mjs — `convert --dataset DIR` against inputs whose shape once broke it
// (issue 43, findings 3-5):
//  3. one dump of 1 024 small instances (dataset_gen instances): the append's peak RSS is within
//     2x of the one-file conversion's, side by side (was 347 MB against 10 MB: every part held
//     a slot per instance and listed all of them in its footer), and a part's footer lists its
//     own instance only; every row is read back by DuckDB;
//  4. a host of invalid UTF-8 (ff fe): its partition value is the host with U+FFFD, as the
//     strings inside the files; DuckDB's hive read and views.sql work (were "invalid UTF8");
//  5. hosts of 255 bytes and of 100 two-byte characters: one multi-dump append succeeds; their
//     directory names fit (shortened, `~` and a 16-hex hash), stay the same on a second append,
//     and two long hosts sharing a prefix get two directories; an append that fails creates
//     nothing (no partition directory of the other dumps), and its message keeps its reason
//     (the path is shortened, not the reason).
//
// Usage: node dataset_hostile.mjs BACKBEAT DATASET_GEN RUSAGE_RUN
// SPDX-License-Identifier: MIT
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { check, finish, readers, sqlStr, tmpDir } from './parquet_common.mjs';

const [tool, gen, rusage] = process.argv.slice(2);
const { duck } = await readers();
const work = tmpDir('dshost');
const run = (args) => spawnSync(tool, args, { encoding: 'utf8' });
const must = (args) => {
  const r = run(args);
  check(r.status === 0, `${args.join(' ')}: exit ${r.status} ${r.stderr}`);
  return r;
};
const mkgen = (...args) => {
  const r = spawnSync(gen, args, { encoding: 'utf8' });
  check(r.status === 0, `dataset_gen ${args.join(' ')}: ${r.stderr}`);
};
// Peak RSS (KB) and status of one CLI run.
const cost = (args) => {
  const r = spawnSync(rusage, [tool, ...args], { encoding: 'utf8' });
  const m = /rusage: ([0-9.]+) ([0-9]+) ([0-9]+)\n$/.exec(r.stderr);
  check(m && m[3] === '0', `${args.join(' ')}: ${r.stderr}`);
  return { secs: Number(m[1]), kb: Number(m[2]) };
};
const db = await duck.DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJS();
const parts = (dir) => fs.readdirSync(dir, { recursive: true })
  .filter((f) => f.endsWith('.parquet') && !f.startsWith('_backbeat')).sort();
const hostsOf = async (dir) => (await q(
  `SELECT DISTINCT host FROM read_parquet(${sqlStr(`${dir}/*=*/**/part-*.parquet`)}, hive_partitioning = true) ORDER BY host`))
  .map((r) => r.host);

// 3. Many instances: memory flat in their count, as the one-file conversion's.
{
  const n = 1024;
  const dump = path.join(work, 'fleet.bb');
  mkgen(dump, 'instances', String(n));
  const one = cost(['convert', dump, '-o', path.join(work, 'fleet.parquet')]);
  const ds = path.join(work, 'fleet');
  const app = cost(['convert', dump, '--dataset', ds]);
  console.log(`${n} instances: convert -o ${one.secs} s ${one.kb} KB; append ${app.secs} s ${app.kb} KB`);
  if (process.env.BB_TEST_SANITIZED) console.log('peak RSS not compared: a sanitizer build (BB_SANITIZE)');
  else check(app.kb <= 2 * one.kb, `append peak RSS ${app.kb} KB > 2 x the one-file conversion's ${one.kb} KB`);
  const ps = parts(ds);
  check(ps.length === n, `${ps.length} parts, want ${n}`);
  const rows = (await q(`SELECT count(*) AS n FROM read_parquet(${sqlStr(`${ds}/*=*/**/part-*.parquet`)}, hive_partitioning = true)`))[0].n;
  check(Number(rows) === 4 * n, `${rows} rows, want ${4 * n}`);
  const f = path.join(ds, ps[0]);
  const kv = (await q(`SELECT decode(value) AS v FROM parquet_kv_metadata(${sqlStr(f)}) WHERE decode(key) = 'backbeat.instances'`))[0].v;
  const insts = JSON.parse(kv);
  const inst = path.basename(f).split('-')[1];
  check(insts.length === 1 && insts[0].instance_id === inst && insts[0].rows === 4,
        `${ps[0]}: backbeat.instances ${kv.slice(0, 200)}`);
}

// 4. A host of invalid UTF-8: the partition value is valid UTF-8, DuckDB reads the dataset.
{
  const dump = path.join(work, 'fffe.bb');
  mkgen(dump, 'host', 'fffe', '5');
  const ds = path.join(work, 'fffe');
  must(['convert', dump, '--dataset', ds]);
  check(fs.existsSync(path.join(ds, 'host=%EF%BF%BD%EF%BF%BD')), `partition ${fs.readdirSync(ds)}`);
  const hosts = await hostsOf(ds);
  check(hosts.length === 1 && hosts[0] === '\uFFFD\uFFFD', `hosts ${JSON.stringify(hosts)}`);
  const views = fs.readFileSync(path.join(ds, 'views.sql'), 'utf8');
  const c2 = await db.connect();
  await c2.run(`SET file_search_path = ${sqlStr(ds)}`);
  await c2.run(views);
  const got = (await (await c2.runAndReadAll('SELECT count(*) AS n, min(host) AS h FROM events')).getRowObjectsJS())[0];
  check(Number(got.n) === 4 && got.h === '\uFFFD\uFFFD', `views.sql: ${JSON.stringify(got, (k, v) => typeof v === 'bigint' ? String(v) : v)}`);
}

// 5. Long hosts: values fit a file name, stably; a failed append leaves nothing behind.
{
  const z = 'z'.repeat(255);
  const e = '\u00e9'.repeat(100);
  const hex = (s) => Buffer.from(s, 'utf8').toString('hex');
  const dumps = [['a', 'a'], [z, 'z'], [e, 'e'], [`${z.slice(0, 250)}y`, 'y']].map(([h, tag], i) => {
    const f = path.join(work, `long-${tag}.bb`);
    mkgen(f, 'host', hex(h), String(10 + i));
    return f;
  });
  const ds = path.join(work, 'long');
  must(['convert', ...dumps, '--dataset', ds]);
  const dirs = fs.readdirSync(ds).filter((d) => d.startsWith('host=')).sort();
  check(dirs.length === 4, `partition directories ${dirs}`);
  for (const d of dirs) check(Buffer.byteLength(d) <= 255, `${d}: ${Buffer.byteLength(d)} bytes`);
  const long = dirs.filter((d) => /~[0-9a-f]{16}$/.test(d));
  check(long.length === 3, `shortened: ${long}`);
  const hosts = await hostsOf(ds);
  check(hosts.includes('a') && hosts.filter((h) => /~[0-9a-f]{16}$/.test(h)).length === 3,
        `hosts read back ${JSON.stringify(hosts)}`);
  check(hosts.some((h) => h.startsWith('\u00e9'.repeat(20))), 'the multibyte host kept whole characters');
  fs.rmSync(ds, { recursive: true });
  must(['convert', dumps[1], '--dataset', ds]);
  must(['convert', dumps[1], dumps[2], '--dataset', ds]);
  const again = fs.readdirSync(ds).filter((d) => d.startsWith('host=')).sort();
  check(again.length === 2 && again.every((d) => dirs.includes(d)), `a second append: ${again} (first ${dirs})`);

  // A failed append to a new dataset: DIR/host=b planted as a file, the directory of the
  // other dump (host=a, made first) must not stay behind; the message keeps its reason.
  const deep = path.join(work, 'd'.repeat(120));
  fs.mkdirSync(deep);
  const nd = path.join(deep, 'new');
  fs.mkdirSync(nd);
  const bhost = 'b'.repeat(150);
  const bdump = path.join(work, 'long-b.bb');
  mkgen(bdump, 'host', hex(bhost), '99');
  fs.writeFileSync(path.join(nd, `host=${bhost}`), 'planted');
  const r = run(['convert', dumps[0], bdump, '--dataset', nd]);
  check(r.status === 1, `planted file: exit ${r.status} ${r.stderr}`);
  check(/: Not a directory\n$/.test(r.stderr), `the reason is cut: ${r.stderr}`);
  const left = fs.readdirSync(nd);
  check(left.length === 1 && left[0] === `host=${bhost}`, `left behind: ${left}`);
}

await con.closeSync?.();
finish('dataset_hostile');
