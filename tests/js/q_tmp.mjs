import { DuckDBInstance } from '@duckdb/node-api';
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
const f = process.argv[2];
for (const q of process.argv.slice(3)) {
  const r = await c.runAndReadAll(q.replaceAll('$F', `'${f}'`));
  console.log(JSON.stringify(r.getRowObjectsJson(), null, 0).slice(0, 3000));
}
