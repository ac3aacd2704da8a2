/**
 * Issue 20: questions across captures are ordinary SQL (docs/cross-capture.md). The statements
 * are read from that page, run through `capstate sql` on a store holding two Grafana captures,
 * checked against what each capture says alone, and run again on PostgreSQL over the same
 * facts (src/store/postgres-copy.ts), where they must give the same rows.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCaptures } from '../src/ingest/load-captures.js';
import { openStore } from '../src/store/open.js';
import { postgresCopy } from '../src/store/postgres-copy.js';
import { cli, fixture, root, tempDir } from './helpers.js';
import {
  copyStatements,
  createStoreDatabase,
  ruleViews,
  startPostgres,
  viewSnapshotStatements,
  type Postgres,
} from './postgres-helpers.js';

const dir = tempDir();
const store = join(dir, 'two.sqlite');
let pg: Postgres;

/** The statement under `<!-- cross-capture: NAME -->` in docs/cross-capture.md. */
function statement(name: string): string {
  const doc = readFileSync(join(root, 'docs', 'cross-capture.md'), 'utf8');
  const m = new RegExp(`<!-- cross-capture: ${name} -->\\n\`\`\`sql\\n([\\s\\S]*?)\`\`\``).exec(doc);
  if (!m) throw new Error(`docs/cross-capture.md has no statement ${name}`);
  return m[1].trim();
}

function sqlRows(query: string): Record<string, unknown>[] {
  const r = cli(['sql', query, '--db', store, '--json']);
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { rows: Record<string, unknown>[] }).rows;
}

function stateOf(capture: number): { entities: { collection: string; id: string }[] } {
  const r = cli(['state', '--db', store, '--capture', String(capture), '--json']);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { entities: { collection: string; id: string }[] };
}

beforeAll(async () => {
  await loadCaptures({
    db: store,
    files: [fixture('grafana', 'capture.har'), fixture('grafana-mini', 'capture.har')],
    loadedAt: '2026-01-01T00:00:00.000Z',
  });
  pg = startPostgres();
}, 120_000);
afterAll(() => pg?.stop());

describe('issue 20: which entities appear in every capture (docs/cross-capture.md)', () => {
  it("the collections and ids both captures' states hold", () => {
    const [a, b] = [stateOf(1), stateOf(2)];
    const inB = new Set(b.entities.map((e) => `${e.collection}\0${e.id}`));
    const both = a.entities
      .filter((e) => inB.has(`${e.collection}\0${e.id}`))
      .map((e) => `${e.collection}\0${e.id}`)
      .sort();
    expect(both.length).toBeGreaterThan(0);
    expect(both.length).toBeLessThan(a.entities.length + b.entities.length - both.length); // some are in one only
    expect(sqlRows(statement('entities-everywhere')).map((r) => `${r.collection}\0${r.entity_key}`)).toEqual(both);
  });
});

describe('issue 20: which endpoints changed shape between two captures (docs/cross-capture.md)', () => {
  it('for tools read in both, the fields one capture shows and the other does not', () => {
    const fields = (c: number) =>
      new Map<string, Set<string>>([
        ...sqlRows(`select tool, field from view_fields where scope = 'all' and capture_id = ${c}`).reduce(
          (m, r) => m.set(String(r.tool), (m.get(String(r.tool)) ?? new Set()).add(String(r.field))),
          new Map<string, Set<string>>(),
        ),
      ]);
    const [a, b] = [fields(1), fields(2)];
    const expected: string[] = [];
    for (const [tool, fa] of a) {
      const fb = b.get(tool);
      if (!fb) continue;
      for (const f of fa) if (!fb.has(f)) expected.push(`${tool}\0${f}\0only in 1`);
      for (const f of fb) if (!fa.has(f)) expected.push(`${tool}\0${f}\0only in 2`);
    }
    expected.sort();
    const got = sqlRows(statement('changed-fields')).map((r) => `${r.tool}\0${r.field}\0${r.seen}`);
    expect(got.length).toBeGreaterThan(0);
    expect([...got].sort()).toEqual(expected);
  });
});

describe('issue 20: the same statements give the same rows on PostgreSQL', () => {
  it("over the two captures' facts copied there, with the rule views evaluated as the state pass does", () => {
    createStoreDatabase(pg, 'cross_capture');
    const db = openStore(store);
    try {
      pg.script('cross_capture', copyStatements(postgresCopy(db)));
    } finally {
      db.close();
    }
    const out = pg.script(
      'cross_capture',
      [
        viewSnapshotStatements(ruleViews()),
        '\\echo ==changed-fields',
        statement('changed-fields') + ';',
        '\\echo ==entities-everywhere',
        statement('entities-everywhere') + ';',
      ].join('\n'),
    );
    const [, changed, everywhere] = out.split(/==changed-fields\n|==entities-everywhere\n/);
    const lines = (s: string) => s.split('\n').filter(Boolean);
    expect(lines(changed)).toEqual(sqlRows(statement('changed-fields')).map((x) => `${x.tool}\t${x.field}\t${x.seen}`));
    expect(lines(everywhere)).toEqual(sqlRows(statement('entities-everywhere')).map((x) => `${x.collection}\t${x.entity_key}`));
  });
});
