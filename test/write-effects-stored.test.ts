/**
 * Issue 16, ES-41 extended: the load checks each write tool against the capture's own later
 * reads (check-effects' verified set) and stores the marking with the state
 * (state_write_effects, migration 0011; `evidence.write_effects` of `state --json`). Serving
 * looks the marking up instead of replaying the capture at its first write call; a state
 * stored before 0011 has none, and serving checks its writes as before.
 */
import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { generateHar } from '../bench/gen-har.js';
import { answerCall } from '../src/model/served/call.js';
import { closeServeContext, openServeContext } from '../src/model/served/context.js';
import { fixtureStore } from './fixture-stores.js';
import { bodiesBefore0014, cli, fixture, tempDir } from './helpers.js';
import { serveStore, text } from './serve-helpers.js';

const dir = tempDir();
const WRITE = /"method":\s*"(POST|PUT|PATCH|DELETE)"/;
const withWrites = readdirSync(fixture()).filter(
  (name) => existsSync(fixture(name, 'capture.har')) && WRITE.test(readFileSync(fixture(name, 'capture.har'), 'utf8')),
);

interface Marked {
  tool: string;
  effect?: string;
  reason?: string;
}
interface Evidence {
  status: string;
  unknown: string[];
  write_effects?: { verified: Marked[]; replayed: Marked[] };
}

/** The fixture's store: the worker's shared one (fixture-stores.ts), or a copy of it at `file` for a test that changes it. */
async function load(name: string, file?: string): Promise<string> {
  const shared = await fixtureStore(name);
  if (file === undefined) return shared;
  copyFileSync(shared, file);
  return file;
}

function evidenceOf(db: string): Evidence {
  const r = cli(['state', '--db', db, '--json']);
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { evidence: Evidence }).evidence;
}

/** The manifest's write tools (not a safe method, not a query POST), by name. */
function writeTools(db: string): string[] {
  const r = cli(['manifest', '--db', db, '--json']);
  expect(r.status, r.stderr).toBe(0);
  const [m] = (JSON.parse(r.stdout) as { manifests: { tools: { name: string; method: string; is_query_post: boolean }[] }[] }).manifests;
  return m.tools
    .filter((t) => !['GET', 'HEAD', 'OPTIONS', 'TRACE'].includes(t.method.toUpperCase()) && !t.is_query_post)
    .map((t) => t.name)
    .sort();
}

/** How serving answers one write call: from state (it takes effect) or by replay. */
async function writeSource(db: string, tool: string, args: Record<string, unknown>): Promise<string> {
  const ctx = await openServeContext(db);
  try {
    return (await answerCall(ctx, tool, args)).source;
  } finally {
    await closeServeContext(ctx);
  }
}

// Recorded as PATCH /posts/1 {"views": 11}: answered from state when the merge is used, else the record replays.
// The capture's own PATCH: a write replays only for the body it recorded (issue 45).
const PATCH = { id: '1', body: { views: 11 } };

describe('ES-41 extended: write effects verified per tool', () => {
  it('there are fixtures with writes, among them json-server, json-server-nested, json-server-operators and redmine-rest', () => {
    expect(withWrites).toEqual(expect.arrayContaining(['json-server', 'json-server-nested', 'json-server-operators', 'redmine-rest']));
  });

  it.each(withWrites)(
    "%s: the stored marking is check-effects' verified set, and every write tool is marked once",
    async (name) => {
      const db = await load(name);
      const ce = cli(['check-effects', '--db', db, '--json']);
      expect(ce.status, ce.stderr).toBe(0);
      const report = JSON.parse(ce.stdout) as { write_tools: { verified: Marked[]; replayed: Marked[] } };
      const marked = evidenceOf(db).write_effects!;
      expect(marked.verified).toEqual(report.write_tools.verified);
      expect(marked.replayed.map((r) => r.tool)).toEqual(report.write_tools.replayed.map((r) => r.tool));
      expect([...marked.verified, ...marked.replayed].map((m) => m.tool).sort()).toEqual(writeTools(db));
      // The rows serving reads say the same.
      const store = new Database(db, { readonly: true });
      const rows = store.prepare('select tool, verified, effect, reason from state_write_effects order by position').all() as {
        tool: string;
        verified: number;
        effect: string | null;
        reason: string | null;
      }[];
      store.close();
      expect(rows.filter((r) => r.verified === 1).map((r) => ({ tool: r.tool, effect: r.effect }))).toEqual(marked.verified);
      expect(rows.filter((r) => r.verified === 0).map((r) => ({ tool: r.tool, reason: r.reason }))).toEqual(marked.replayed);
    },
    120_000,
  );

  it('`write-effects` stays unknown only while some write tool replays; `state` says so in one plain line', async () => {
    for (const name of ['json-server', 'grafana']) {
      const db = await load(name);
      const e = evidenceOf(db);
      expect(e.status).toBe('inferred');
      expect(e.unknown.slice(0, 2)).toEqual(['authorization', 'response-semantics']);
      expect(e.unknown.includes('write-effects'), name).toBe(e.write_effects!.replayed.length > 0);
      for (const r of e.write_effects!.replayed) expect(r.reason, r.tool).toMatch(/\w/);
      const t = cli(['state', '--db', db]);
      expect(t.status, t.stderr).toBe(0);
      const line = t.stdout.split('\n').find((l) => l.startsWith('writes: '))!;
      const n = e.write_effects!.verified.length + e.write_effects!.replayed.length;
      expect(line).toContain(`${e.write_effects!.verified.length} of ${n} write tools take effect`);
      for (const v of e.write_effects!.verified) expect(line).toContain(`${v.tool}: ${v.effect}`);
      for (const r of e.write_effects!.replayed) expect(line).toContain(r.tool);
      expect(line).not.toMatch(/\b(ES|OQ|DOC)-\d/);
    }
    // json-server verifies every write (no unknown left), grafana replays some: both readings are exercised.
    expect(evidenceOf(await load('json-server')).unknown).not.toContain('write-effects');
    expect(evidenceOf(await load('grafana')).unknown).toContain('write-effects');
  }, 120_000);

  it('serving follows the stored marking at the first write call, without checking the capture again', async () => {
    const db = await load('json-server', join(dir, 'edited.sqlite'));
    expect(await writeSource(db, 'patch_posts_by_id', PATCH)).toBe('state');
    // Marked replayed by hand: a check run now would verify the merge again (it did at load).
    const w = new Database(db);
    w.prepare("update state_write_effects set verified = 0, effect = null, reason = 'edited' where tool = 'patch_posts_by_id'").run();
    w.close();
    expect(await writeSource(db, 'patch_posts_by_id', PATCH)).toBe('replay');
    // …and a data-plane reset does not change it.
    const s = await serveStore(db);
    try {
      expect(text(await s.call('reset_state'))).not.toMatch(/error/i);
      const r = await s.call('patch_posts_by_id', PATCH);
      expect((r.structuredContent as { source: string }).source).toBe('replay');
    } finally {
      await s.close();
    }
  }, 120_000);

  it('a store whose state was stored before migration 0011 still serves writes (checked at the first write call), and `migrate --recompute` stores the marking', async () => {
    const db = await load('json-server', join(dir, 'old.sqlite'));
    // The store as capstate wrote it before 0011: no table, the pass's evidence, schema version 10.
    const w = new Database(db);
    w.exec('drop table state_write_effects');
    w.prepare('update state_capture set evidence = ?').run(
      JSON.stringify({ status: 'inferred', unknown: ['authorization', 'response-semantics', 'write-effects'] }),
    );
    w.pragma('user_version = 10');
    // Nor the rows 0015 and 0017 add (the migrate below adds them again).
    w.exec("delete from vocabulary where vocabulary = 'cache_buster' or name in ('$limit', '$sort')");
    w.close();
    bodiesBefore0014(db);
    expect(cli(['state', '--db', db]).stderr).toMatch(/capstate migrate/);
    const m = cli(['migrate', '--db', db]);
    expect(m.status, m.stderr).toBe(0);
    const store = new Database(db, { readonly: true });
    expect(store.prepare('select count(*) from state_write_effects').pluck().get()).toBe(0);
    store.close();
    expect(await writeSource(db, 'patch_posts_by_id', PATCH)).toBe('state');
    expect(cli(['state', '--db', db]).stdout).toMatch(/^writes: not checked when this state was stored/m);
    expect(evidenceOf(db).write_effects).toBeUndefined();
    expect(cli(['migrate', '--db', db, '--recompute']).status).toBe(0);
    expect(evidenceOf(db)).toEqual(evidenceOf(await load('json-server')));
  }, 120_000);
});

describe('the write check is byte-stable: two loads of one capture store the same words', () => {
  it('a create whose allocated id the check quotes (`answered "…"`) stores the same state bytes on every load', async () => {
    const har = join(dir, 'generated.har');
    generateHar(har, 2_000_000);
    const [a, b] = ['gen-a', 'gen-b'].map((n) => {
      const r = cli(['load', har, '--db', join(dir, `${n}.sqlite`), '--quiet']);
      expect(r.status, r.stderr).toBe(0);
      return cli(['state', '--db', join(dir, `${n}.sqlite`), '--json']).stdout;
    });
    // The capture is one whose check quotes an id the model allocated for a create.
    expect(a).toMatch(/its own answer to #\d+ \(POST [^)]*\): the JSON body differs at \/data \(answered \\"[a-z]{24}\\"/);
    expect(b).toBe(a);
  });
});
