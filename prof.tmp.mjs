import Database from 'better-sqlite3';
const db = new Database('/tmp/h50m.sqlite', { readonly: true });
for (const v of ['records_timeline','read_records','writes','first_write_per_root','list_locations','read_shown_ids','post_created_ids','initial_reads','item_locations','type_identities','entity_observations','collection_order','list_reads','list_counters','list_membership']) {
  const t = performance.now();
  const n = db.prepare(`select count(*) from ${v}`).pluck().get();
  console.log(v.padEnd(22), n, (performance.now() - t).toFixed(0), 'ms');
}
