/**
 * Golden comparisons: each fixture folder's capture, loaded through the CLI, must give the
 * hand-verified facts in its expected/summary.json (STYLE §6).
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { cli, fixture, root, tempDir } from './helpers.js';

interface Summary {
  format: 'har' | 'scenario-evidence';
  records: number;
  records_with_start: number;
  timeline_order: 'start-time' | 'record-order';
  bodies_by_kind: Record<string, number>;
  secrets: string[];
  origins: Record<string, number>;
  ordinals_by_start: number[];
}

const dir = tempDir();
const cases = readdirSync(join(root, 'fixtures'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

function captureFile(name: string): string {
  // Issue 17: a capture may also be gzip-compressed (`.har.gz`) or Playwright's zipped HAR (`.zip`).
  const files = readdirSync(fixture(name)).filter((f) => /\.(har|json|har\.gz|zip)$/.test(f));
  expect(files, `fixtures/${name} holds one capture`).toHaveLength(1);
  return fixture(name, files[0]);
}

function loadFixture(name: string): Database.Database {
  const db = join(dir, `${name}.sqlite`);
  if (!existsSync(db)) {
    const r = cli(['load', captureFile(name), '--db', db, '--json']);
    expect(r.status, r.stderr).toBe(0);
  }
  return new Database(db, { readonly: true });
}

describe('fixtures: every folder has a capture, a README and expected/', () => {
  it.each(cases)('%s is complete', (name) => {
    expect(existsSync(fixture(name, 'README.md'))).toBe(true);
    expect(existsSync(fixture(name, 'expected', 'summary.json'))).toBe(true);
    captureFile(name);
  });
});

describe.each(cases)('fixture %s', (name) => {
  const expected = JSON.parse(readFileSync(fixture(name, 'expected', 'summary.json'), 'utf8')) as Summary;

  it('loads with the expected format, records and origins', () => {
    const db = loadFixture(name);
    expect(db.prepare('select format from capture').pluck().get()).toBe(expected.format);
    expect(db.prepare('select count(*) from record').pluck().get()).toBe(expected.records);
    const origins = Object.fromEntries(
      db.prepare('select origin, count(*) n from record group by origin').raw().all() as [string, number][],
    );
    expect(origins).toEqual(expected.origins);
  });

  it("classifies each record's response body as expected (DESC-6, OQ-33)", () => {
    const db = loadFixture(name);
    const rows = db
      .prepare('select b.kind, count(*) from record r join body b on b.id = r.response_body_id group by b.kind')
      .raw()
      .all() as [string, number][];
    const got = { json: 0, text: 0, base64: 0, cut: 0, none: 0, ...Object.fromEntries(rows) };
    expect(got).toEqual({ json: 0, text: 0, base64: 0, cut: 0, none: 0, ...expected.bodies_by_kind });
  });

  it('ES-6 orders the timeline by start time, ties in record order, or by record order when a start is missing', () => {
    const db = loadFixture(name);
    expect(db.prepare('select count(started_ms) from record').pluck().get()).toBe(expected.records_with_start);
    expect(db.prepare('select distinct timeline_order from records_timeline').pluck().all()).toEqual([expected.timeline_order]);
    expect(db.prepare('select timeline_order from capture_timeline').pluck().get()).toBe(expected.timeline_order);
    // OQ-3: the timeline holds the records the manifest admitted.
    const admitted = new Set(db.prepare('select ordinal from record where tool_id is not null').pluck().all() as number[]);
    expect(db.prepare('select ordinal from records_timeline order by timeline_position').pluck().all()).toEqual(
      expected.ordinals_by_start.filter((o) => admitted.has(o)),
    );
  });

  it('keeps no credential value anywhere in the store file (byte scan)', () => {
    loadFixture(name).close();
    const bytes = readFileSync(join(dir, `${name}.sqlite`));
    expect(expected.secrets.length).toBeGreaterThan(0);
    for (const secret of expected.secrets) {
      expect(bytes.includes(Buffer.from(secret, 'utf8')), `${secret} found in the store`).toBe(false);
      expect(bytes.includes(Buffer.from(Buffer.from(secret).toString('base64').slice(0, 12))), `${secret} (base64) found`).toBe(false);
    }
  });
});

interface ExpectedManifest {
  subject_origin: string;
  not_admitted: Record<string, number>;
  api_base: string;
  tools: { method: string; template: string; root_path: string; is_query_post: boolean; record_ordinals: number[]; statuses: number[] }[];
}

const manifestCases = cases.filter((c) => existsSync(fixture(c, 'expected', 'manifest.json')));

describe.each(manifestCases)('OQ-1 / ES-2 / ES-7 manifest of fixture %s', (name) => {
  it('draws the tools a careful reader draws by hand (expected/manifest.json)', () => {
    const expected = JSON.parse(readFileSync(fixture(name, 'expected', 'manifest.json'), 'utf8')) as ExpectedManifest;
    const db = join(dir, `${name}.sqlite`);
    loadFixture(name).close();
    const r = cli(['manifest', '--db', db, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const [m] = (
      JSON.parse(r.stdout) as { manifests: { admission: { subject_origin: string }; api_base: string; tools: ExpectedManifest['tools'] }[] }
    ).manifests;
    const store = new Database(db, { readonly: true });
    const notAdmitted = Object.fromEntries(
      store.prepare('select origin, count(*) from record where tool_id is null group by origin').raw().all() as [string, number][],
    );
    store.close();
    expect({
      subject_origin: m.admission.subject_origin,
      not_admitted: notAdmitted,
      api_base: m.api_base,
      tools: m.tools.map(({ method, template, root_path, is_query_post, record_ordinals, statuses }) => ({
        method,
        template,
        root_path,
        is_query_post,
        record_ordinals,
        statuses,
      })),
    }).toEqual(expected);
  });
});

const stateCases = cases.filter((c) => existsSync(fixture(c, 'expected', 'state.json')));

describe.each(stateCases)('ACC-1 / ACC-3 / ACC-5 environment state of fixture %s', (name) => {
  it('prints the hand-reviewed expected/state.json byte for byte', () => {
    loadFixture(name).close();
    const r = cli(['state', '--db', join(dir, `${name}.sqlite`), '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(readFileSync(fixture(name, 'expected', 'state.json'), 'utf8'));
  });
});

const effectsCases = cases.filter((c) => existsSync(fixture(c, 'expected', 'check-effects.json')));

describe.each(effectsCases)(
  "check-effects of fixture %s (issue 16: write effects verified against the capture's own later reads)",
  (name) => {
    it('reproduces the recorded responses listed in expected/check-effects.json, with its summary line', () => {
      loadFixture(name).close();
      const r = cli(['check-effects', '--db', join(dir, `${name}.sqlite`), '--json']);
      expect(r.status, r.stderr).toBe(0);
      const got = JSON.parse(r.stdout) as { capture: { path?: string } };
      // The capture's path is where this checkout keeps the fixture; everything else is fixed.
      delete got.capture.path;
      expect(got).toEqual(JSON.parse(readFileSync(fixture(name, 'expected', 'check-effects.json'), 'utf8')));
    });
  },
);
