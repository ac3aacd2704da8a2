import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
const db = new Database(process.argv[2], { readonly: true });
let sql = readFileSync('/tmp/ll.sql', 'utf8').replace(/;\s*$/, '');
const variants = {
  base: sql,
  mat: sql.replace('entity_objects as (', 'entity_objects as materialized (').replace('roots as (', 'roots as materialized ('),
};
for (const [k, q] of Object.entries(variants)) {
  const t = performance.now();
  const n = db.prepare(`select count(*) from (${q})`).pluck().get();
  console.log(k, n, (performance.now() - t).toFixed(0), 'ms');
}
