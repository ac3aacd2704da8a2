// Per-fixture digests of every rule view's rows, of the stored state and of the manifest (issue 20, step 1 of
// docs/postgres-plan.md): a change meant to alter no row (a portability edit to queries/*.sql,
// a new back end) is checked by running this before and after and comparing the two outputs.
//
//   npm run build && node scripts/view-digests.mjs [FIXTURE ...] > digests.json
//
// Each view's rows are read with every column's storage class (`typeof`), as sorted JSON
// lines (SQL promises no order without ORDER BY), and hashed; the state is the CLI's
// `state --json` bytes. Fixtures load with a fixed `loaded_at`, so two runs of one build print
// the same digests. Progress goes to stderr, the JSON document to stdout.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCaptures } from '../dist/src/ingest/load-captures.js';
import { kyselyFor, listViews, openStore, packageRoot, rawConnection } from '../dist/src/store/open.js';
import { explorationViewNames, withSnapshot } from '../dist/src/store/snapshot.js';

const CAPTURE_NAMES = ['capture.har', 'capture.har.gz', 'capture.zip', 'evidence.json'];
const EXPLORATION = explorationViewNames();
const sha = (s) => createHash('sha256').update(s).digest('hex');
const line = (row) => JSON.stringify(row, (_, v) => (typeof v === 'bigint' ? `${v}n` : Buffer.isBuffer(v) ? `x'${v.toString('hex')}'` : v));

const fixturesDir = join(packageRoot, 'fixtures');
const names = process.argv.slice(2).length ? process.argv.slice(2) : readdirSync(fixturesDir).sort();
const dir = mkdtempSync(join(tmpdir(), 'capstate-digests-'));
const out = {};
try {
  for (const name of names) {
    const capture = CAPTURE_NAMES.map((f) => join(fixturesDir, name, f)).find((f) => existsSync(f));
    if (!capture) {
      process.stderr.write(`view-digests: ${name}: no capture file, skipped\n`);
      continue;
    }
    const db = join(dir, `${name}.sqlite`);
    await loadCaptures({ db, files: [capture], loadedAt: '2026-01-01T00:00:00.000Z' });
    const views = listViews()
      .map((v) => v.name)
      .sort();
    const k = kyselyFor(openStore(db));
    const digests = {};
    try {
      const raw = rawConnection(k);
      if (!raw) throw new Error('view-digests: the store is not SQLite');
      const bag = (table) => {
        const columns = raw
          .prepare(`select * from ${table}`)
          .columns()
          .map((c) => `typeof("${c.name}")`);
        const rows = raw
          .prepare(`select *, ${columns.join(', ')} from ${table}`)
          .raw(true)
          .safeIntegers(true)
          .all();
        return { rows: rows.length, sha256: sha(rows.map(line).sort().join('\n')) };
      };
      for (const v of views.filter((n) => EXPLORATION.has(n))) digests[v] = bag(`main."${v}"`);
      await withSnapshot(
        k,
        views.filter((n) => !EXPLORATION.has(n)),
        async () => {
          for (const v of views.filter((n) => !EXPLORATION.has(n))) digests[v] = bag(`temp."${v}"`);
        },
      );
    } finally {
      await k.destroy();
    }
    const state = spawnSync(process.execPath, [join(packageRoot, 'dist/src/cli/main.js'), 'state', '--db', db, '--json'], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    digests['state --json'] = { status: state.status, sha256: sha(state.stdout) };
    const manifest = spawnSync(process.execPath, [join(packageRoot, 'dist/src/cli/main.js'), 'manifest', '--db', db, '--json'], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    digests['manifest --json'] = { status: manifest.status, sha256: sha(manifest.stdout) };
    out[name] = digests;
    process.stderr.write(`view-digests: ${name}: ${views.length} views\n`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify(out, null, 2) + '\n');
