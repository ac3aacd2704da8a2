/**
 * The environment state stored in the store (issue 13; DESIGN "one truth, stored"): a load
 * computes each capture's state in its transaction and writes the state_* tables
 * (migrations/0003-state.sql); `capstate state`, serving and the MCP analysis view render
 * those rows and compute nothing; `capstate migrate` recomputes a state the rule views no
 * longer match; stock sqlite3 reads the tables.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateHar } from '../bench/gen-har.js';
import { CapstateError } from '../src/errors.js';
import { loadCaptures } from '../src/ingest/load-captures.js';
import { parseExactJson, stringifyExact, type JsonValue } from '../src/json/exact.js';
import { answerCall } from '../src/model/served/call.js';
import { recordArguments, toolRecords } from '../src/model/served/records.js';
import { closeServeContext, openServeContext } from '../src/model/served/context.js';
import { environmentStateView } from '../src/serve/state-view.js';
import { environmentState, stateBytes } from '../src/state/index.js';
import { readStoredState, storedWriteEffects } from '../src/model/plan/stored.js';
import { markWriteEffects } from '../src/model/plan/evidence.js';
import type { EnvironmentState, ItemPlan, ListPlan } from '../src/model/plan/types.js';
import { plainError, plainText } from '../src/model/plan/words.js';
import { kyselyFor, listMigrations, openStore, rawConnection } from '../src/store/open.js';
import { withSnapshot } from '../src/store/snapshot.js';
import { fixtureStore } from './fixture-stores.js';
import { writeHar } from './har-builder.js';
import { bodiesBefore0014, captureOf, cli, fixture, fixtureCases, tempDir } from './helpers.js';
import { expectValidOpenApi } from './openapi-check.js';
import { serveStore, text } from './serve-helpers.js';

const dir = tempDir();
const A = 'http://127.0.0.1:4000';
const cases = fixtureCases();
const exact = (text: string): JsonValue => {
  const r = parseExactJson(text);
  if (!r.ok) throw new Error(r.detail);
  return r.value;
};
const compact = (v: unknown) => stringifyExact(v as JsonValue);

/** Loads `file` (in process, as `capstate load` does) into a new store named `name`; returns the store path. */
async function load(name: string, file: string): Promise<string> {
  const db = join(dir, `${name}.sqlite`);
  await loadCaptures({ db, files: [file], loadedAt: '2026-01-01T00:00:00.000Z' });
  return db;
}

/** Every state_* row of capture 1, as stock SQL reads them. */
function stateRows(db: string) {
  const d = new Database(db, { readonly: true });
  try {
    const all = (table: string) =>
      d.prepare(`select * from ${table} where capture_id = 1 order by position`).all() as Record<string, unknown>[];
    return {
      head: d.prepare('select * from state_capture where capture_id = 1').get() as Record<string, unknown>,
      types: all('state_types'),
      entities: all('state_entities'),
      documents: all('state_documents'),
      plans: all('state_plans'),
      limitations: all('state_limitations'),
      gate: all('state_gate_findings'),
    };
  } finally {
    d.close();
  }
}

/** The consistency check: each state_* row says what `capstate state --json` reports, and the rows rebuild the computed view exactly. */
async function expectConsistent(db: string): Promise<void> {
  const r = cli(['state', '--db', db, '--json']);
  expect(r.status, r.stderr).toBe(0);
  const doc = exact(r.stdout) as Record<string, any>;
  const rows = stateRows(db);
  expect(rows.head).toMatchObject({
    status: 'computed',
    sha256: doc.sha256,
    timeline_order: doc.timeline_order,
    evidence: compact(doc.evidence),
    error_code: null,
  });
  expect(rows.limitations.map((l) => l.limitation)).toEqual(doc.limitations);
  expect(rows.gate.map((g) => g.finding)).toEqual(doc.gate_findings);
  expect(
    rows.types.map((t) => ({
      collection: t.collection,
      root_path: t.root_path,
      identity: t.identity,
      identity_source: t.identity_source,
      order_source: t.order_source,
      bound: t.bound_rule === null ? null : { rule: t.bound_rule, write_ordinal: t.bound_write_ordinal },
      initial_order: JSON.parse(t.initial_order as string),
    })),
  ).toEqual(doc.types);
  expect(rows.entities).toHaveLength(doc.entities.length);
  rows.entities.forEach((e, i) => {
    const d = doc.entities[i];
    expect({ collection: e.collection, id: e.entity_key, state_order: e.state_order }).toEqual({
      collection: d.collection,
      id: d.id,
      state_order: d.state_order,
    });
    // Entity values are exact JSON text: the bytes of the printed value, digit for digit.
    expect(e.value).toBe(compact(d.value));
    expect(e.view_values).toBe(compact(d.view_values));
    expect(JSON.parse(e.record_ordinals as string)).toEqual(d.record_ordinals);
  });
  expect(
    rows.documents.map((x) => ({
      tool: x.tool,
      path: x.path,
      query: x.query,
      status: x.status,
      value: x.value,
      record_ordinal: x.record_ordinal,
    })),
  ).toEqual(doc.documents.map((x: any) => ({ ...x, value: compact(x.value) })));
  expect(rows.plans.map((p) => [p.tool, p.kind])).toEqual(doc.plans.map((p: any) => [p.tool, p.kind]));
  rows.plans.forEach((p, i) => {
    const d = doc.plans[i];
    if (d.kind === 'record') expect({ reason: p.reason, detail: p.detail }).toEqual({ reason: d.reason, detail: d.detail });
    else if (d.kind === 'document')
      expect({ path: p.path, record_ordinal: p.record_ordinal }).toEqual({ path: d.path, record_ordinal: d.record_ordinal });
    else {
      expect({ collection: p.collection, pointer: p.pointer, membership: p.membership, counters: p.counters, lines: p.lines }).toEqual({
        collection: d.collection,
        pointer: d.kind === 'item' ? d.entity_pointer : d.list_pointer,
        membership: d.kind === 'list' ? d.membership : null,
        counters: compact(d.counters),
        lines: compact(d.lines),
      });
      const facts = exact(p.view_facts as string) as Record<string, unknown>;
      for (const [key, value] of Object.entries(facts)) expect(compact(value), `${d.tool} ${key}`).toBe(compact(d[key]));
    }
  });
  // The rows rebuild the very view the state pass computes (same value, same bytes, same digest).
  const k = kyselyFor(openStore(db));
  try {
    const [stored, computed] = [await readStoredState(k, 1, db), await environmentState(k, 1)];
    // The pass's evidence, marked with the write check the load stored (issue 16, ES-41 extended).
    const marked = markWriteEffects(computed.evidence, (await storedWriteEffects(k, 1)) ?? { verified: [], replayed: [] });
    expect(stateBytes(stored)).toEqual(stateBytes({ ...withStoredRelations(computed, stored), evidence: marked }));
    expect(stateBytes(stored).sha256).toBe(doc.sha256);
  } finally {
    await k.destroy();
  }
}

/**
 * Issue 16: the pass lists each plan's embedded members; the stored state adds the relation
 * learned for each after the pass (src/model/served/relations.ts). The pass's plans with the stored
 * relations, once the members themselves are seen to be the same.
 */
function withStoredRelations(computed: EnvironmentState, stored: EnvironmentState): EnvironmentState {
  const plans = computed.plans.map((p) => {
    if ((p.kind !== 'item' && p.kind !== 'list') || !p.embedded_members) return p;
    const s = stored.plans.find((x) => x.tool === p.tool) as ItemPlan | ListPlan;
    expect(
      s.embedded_members!.map(({ relation: _, ...m }) => m),
      p.tool,
    ).toEqual(p.embedded_members);
    return { ...p, embedded_members: s.embedded_members };
  });
  return { ...computed, plans };
}

/**
 * The final views agree with the stored state: `initial_reads` bounds each type as its
 * `bound` says and holds every record an entity was merged from; `collection_order` orders
 * each type's entities as `state_order` and `initial_order` do.
 */
async function expectViewsAgree(db: string): Promise<void> {
  const doc = exact(cli(['state', '--db', db, '--json']).stdout) as Record<string, any>;
  // The views read as the state pass reads them: each evaluated once (store/snapshot.ts). Compiling
  // `collection_order` over its whole expanded chain costs ~30 s on this machine class, per statement.
  const k = kyselyFor(openStore(db));
  const d = rawConnection(k)!;
  try {
    await withSnapshot(k, ['initial_reads', 'collection_order', 'list_locations'], async () => {
      const initial = d.prepare('select root_path, ordinal, bound_rule, bound_ordinal from initial_reads where capture_id = 1').all() as {
        root_path: string;
        ordinal: number;
        bound_rule: string | null;
        bound_ordinal: number | null;
      }[];
      for (const t of doc.types) {
        const rows = initial.filter((r) => r.root_path === t.root_path);
        // A type with initial reads has its bound from them; the state says the same bound.
        if (rows.length > 0)
          for (const r of rows)
            expect(r.bound_rule === null ? null : { rule: r.bound_rule, write_ordinal: r.bound_ordinal }, t.root_path).toEqual(t.bound);
        const ordinals = new Set(rows.map((r) => r.ordinal));
        for (const e of doc.entities.filter((x: any) => x.collection === t.collection)) {
          for (const o of e.record_ordinals) expect(ordinals.has(o), `${t.collection} ${e.id} from #${o}`).toBe(true);
        }
        const order = d
          .prepare('select entity_id, state_order from collection_order where capture_id = 1 and root_path = ? order by state_order')
          .all(t.root_path) as { entity_id: string; state_order: number }[];
        const held = new Map(doc.entities.filter((x: any) => x.collection === t.collection).map((x: any) => [x.id, x.state_order]));
        expect(
          order.filter((o) => held.has(o.entity_id)).map((o) => o.entity_id),
          t.root_path,
        ).toEqual(t.initial_order);
        for (const o of order) if (held.has(o.entity_id)) expect(held.get(o.entity_id)).toBe(o.state_order);
      }
      // state_records holds what the views say per record (serving reads it instead of them).
      const views = d
        .prepare(`select r.id as record_id, i.record_id is not null as is_initial, i.bound_rule, i.bound_ordinal, l.list_pointer
        from record r left join initial_reads i on i.record_id = r.id left join list_locations l on l.body_id = r.response_body_id
        where r.capture_id = 1 order by r.id`)
        .all();
      expect(
        d
          .prepare(
            'select record_id, is_initial, bound_rule, bound_ordinal, list_pointer from state_records where capture_id = 1 order by record_id',
          )
          .all(),
      ).toEqual(views);
    });
  } finally {
    await k.destroy();
  }
}

/** Serving answers each line of every item and list plan from state, with exactly the body the plan renders (its checked record's). */
async function expectServingRendersPlans(db: string): Promise<number> {
  const doc = exact(cli(['state', '--db', db, '--json']).stdout) as Record<string, any>;
  const ctx = await openServeContext(db);
  let checked = 0;
  try {
    const d = openStore(db);
    const bodyOf = d
      .prepare('select b.content from record r join body_content b on b.id = r.response_body_id where r.capture_id = 1 and r.ordinal = ?')
      .pluck();
    for (const plan of doc.plans.filter((p: any) => p.kind === 'item' || p.kind === 'list')) {
      const records = await toolRecords(ctx, plan.tool);
      for (const line of plan.lines.filter((l: any) => l.status >= 200 && l.status <= 299)) {
        // The arguments that ask for the line's checked record.
        const args = recordArguments(records.find((r) => r.ordinal === line.record_ordinal)!);
        const a = await answerCall(ctx, plan.tool, args);
        // A line the state cannot reproduce (issue 18: `membership-differs`) replays its record; the plan's other lines stay.
        const source = line.reason === undefined ? 'state' : 'replay';
        expect({ tool: plan.tool, line: line.path, source: a.source, status: a.status }).toEqual({
          tool: plan.tool,
          line: line.path,
          source,
          status: line.status,
        });
        expect(compact(a.body.value), `${plan.tool} ${line.path}`).toBe(compact(exact(bodyOf.get(line.record_ordinal) as string)));
        checked++;
      }
    }
    d.close();
  } finally {
    await closeServeContext(ctx);
  }
  return checked;
}

describe('stored state: the state_* rows equal what `capstate state --json` reports (consistency)', () => {
  it.each(cases)('fixture %s', async (name) => {
    const db = await fixtureStore(name);
    await expectConsistent(db);
    await expectViewsAgree(db);
    await expectServingRendersPlans(db);
    // Where the fixture has a hand-reviewed document, the stored state prints it byte for byte.
    const reviewed = fixture(name, 'expected', 'state.json');
    if (existsSync(reviewed)) expect(cli(['state', '--db', db, '--json']).stdout).toBe(readFileSync(reviewed, 'utf8'));
  });

  it('a generated capture (bench generator, about 2 MB)', async () => {
    const file = join(dir, 'generated.har');
    generateHar(file, 2_000_000);
    const db = await load('generated', file);
    expect(stateRows(db).entities.length).toBeGreaterThan(10);
    await expectConsistent(db);
    await expectViewsAgree(db);
    expect(await expectServingRendersPlans(db)).toBeGreaterThan(0);
  });
});

describe('issue 47: capstate export openapi is valid OpenAPI 3.1 and byte-stable on every fixture', () => {
  // On the fixture stores the consistency tests above read (fixture-stores.ts), not loaded again.
  it.each(cases)('fixture %s', async (name) => {
    await expectValidOpenApi(await fixtureStore(name), name);
  });
});

describe('stored state: stock sqlite3 reads the state tables without capstate', () => {
  it('`sqlite3 -readonly STORE "select * from state_entities"` lists the entities, values as JSON text that json_extract reads', async () => {
    const db = await load('sqlite3-cli', captureOf('grafana'));
    const all = execFileSync('/usr/bin/sqlite3', ['-readonly', db, 'select * from state_entities'], { encoding: 'utf8' });
    expect(all.trim().split('\n').length).toBe(stateRows(db).entities.length);
    const rows = JSON.parse(
      execFileSync(
        '/usr/bin/sqlite3',
        [
          '-readonly',
          '-json',
          db,
          "select collection, entity_key, json_extract(value, '$.title') as title from state_entities where collection = 'dashboards'",
        ],
        { encoding: 'utf8' },
      ),
    );
    expect(rows).toEqual([{ collection: 'dashboards', entity_key: 'abc123XYZ', title: expect.any(String) }]);
    for (const table of ['state_capture', 'state_types', 'state_documents', 'state_plans', 'state_limitations', 'state_gate_findings']) {
      execFileSync('/usr/bin/sqlite3', ['-readonly', db, `select * from ${table}`], { encoding: 'utf8' });
    }
  });
});

describe('stored state: a state that cannot be computed (ES-39 budget-exceeded) is stored as that failure', () => {
  const budget = { CAPSTATE_STATE_BUDGET_BYTES: '100000' };
  let file: string;
  beforeAll(() => {
    file = writeHar(dir, 'budget.har', [
      { url: `${A}/api/v1/items`, body: Array.from({ length: 200 }, (_, i) => ({ id: `it-${i}`, text: 'x'.repeat(200) })) },
    ]);
  });

  it('ES-39 the capture still loads, state_capture says failed with the code and message, and `state` reports the error as the state pass raises it', async () => {
    const db = join(dir, 'budget.sqlite');
    const loaded = cli(['load', file, '--db', db], { env: budget });
    expect(loaded.status, loaded.stderr).toBe(0);
    expect(loaded.stderr).toMatch(/environment state could not be computed \(budget-exceeded\)/);
    const head = stateRows(db).head;
    expect(head).toMatchObject({ status: 'failed', error_code: 'budget-exceeded', sha256: null });
    expect(stateRows(db).entities).toEqual([]);
    // The error the state pass raises today, under the same budget.
    let raised: CapstateError | undefined;
    const k = kyselyFor(openStore(db));
    process.env.CAPSTATE_STATE_BUDGET_BYTES = budget.CAPSTATE_STATE_BUDGET_BYTES;
    try {
      await environmentState(k, 1);
    } catch (e) {
      raised = e as CapstateError;
    } finally {
      delete process.env.CAPSTATE_STATE_BUDGET_BYTES;
      await k.destroy();
    }
    expect(raised).toBeInstanceOf(CapstateError);
    expect(head.error_message).toBe(raised!.message);
    // Reported by `state` (without the lowered budget: nothing is computed) exactly as that
    // error, in plain words with its rule in `rules` (issue 19; the stored message keeps it).
    const json = cli(['state', '--db', db, '--json']);
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({ format_version: 1, ...plainError(raised!.toJSON()) });
    expect(JSON.parse(json.stdout).rules).toEqual(['ES-39']);
    expect(json.stderr).toBe(`capstate: error: ${plainText(raised!.describe())}\n`);
    const text = cli(['state', '--db', db]);
    expect(text.status).toBe(1);
    expect(text.stderr).toBe(`capstate: error: ${plainText(raised!.describe())}\n`);
    expect(text.stdout).toBe('');
    // `info` says which captures have no state, and why to ask `state`.
    expect(cli(['info', '--db', db]).stdout).toContain(
      'environment state: could not be computed (budget-exceeded; capstate state says why)',
    );
  });
});

describe('stored state: a failed load stores no state (one transaction)', () => {
  it("a load that fails on its second capture, after the first capture's state was written, leaves no state rows and the store as it was", async () => {
    const db = await load('atomic', captureOf('grafana-mini'));
    const bad = join(dir, 'bad.har');
    writeFileSync(bad, '{"log": {"entries": [ {"request": ');
    const before = readFileSync(db);
    const r = cli(['load', captureOf('redmine-json'), bad, '--db', db]);
    expect(r.status).toBe(1);
    expect(readFileSync(db).equals(before)).toBe(true);
    const d = new Database(db, { readonly: true });
    try {
      for (const table of ['state_capture', 'state_types', 'state_entities', 'state_documents', 'state_plans']) {
        expect(d.prepare(`select count(*) from ${table} where capture_id <> 1`).pluck().get(), table).toBe(0);
      }
      expect(d.prepare('select count(*) from capture').pluck().get()).toBe(1);
    } finally {
      d.close();
    }
    // The same first capture alone loads with its state.
    expect(cli(['load', captureOf('redmine-json'), '--db', db]).status).toBe(0);
    expect(stateRows(db).head).toMatchObject({ status: 'computed' });
  });
});

describe('stored state: `capstate migrate` recomputes a state the rule views no longer match', () => {
  const expected = readFileSync(fixture('grafana', 'expected', 'state.json'), 'utf8');
  const sql = (db: string, statement: string) => {
    const d = new Database(db);
    try {
      d.exec(statement);
    } finally {
      d.close();
    }
  };

  it('a state computed from another queries/ hash: read-only `state` says to run migrate; migrate recomputes it (one transaction per capture)', async () => {
    const db = await load('stale-state', captureOf('grafana'));
    // As if an older capstate, with other rules, had computed it (and its entities differed).
    sql(db, "update state_capture set queries_sha256 = 'older'; delete from state_entities");
    const r = cli(['state', '--db', db, '--json']);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, code: 'stale-store' });
    expect(r.stderr).toContain(`run: capstate migrate --db ${db}`);
    expect(cli(['info', '--db', db]).stdout).toContain(`environment state: out of date; run: capstate migrate --db ${db}`);
    // Serving (and the card, which opens what serve opens) says so at start.
    const card = cli(['card', '--db', db]);
    expect(card.status).toBe(1);
    expect(card.stderr).toContain(`run: capstate migrate --db ${db}`);
    const m = cli(['migrate', '--db', db]);
    expect(m.status, m.stderr).toBe(0);
    expect(m.stdout).toContain('1 stored state recomputed');
    expect(cli(['state', '--db', db, '--json']).stdout).toBe(expected);
    // Up to date now: a second migrate recomputes nothing.
    expect(cli(['migrate', '--db', db]).stdout).toContain('stored states up to date');
  });

  it('views built from other queries (meta queries_sha256 changed with the rules): `state` says to run migrate, which rebuilds the views and recomputes', async () => {
    const db = await load('stale-views', captureOf('grafana'));
    sql(
      db,
      "update meta set value = 'older' where key = 'queries_sha256'; update state_capture set queries_sha256 = 'older'; delete from state_plans",
    );
    const r = cli(['state', '--db', db]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/stale|other queries/);
    expect(r.stderr).toContain('capstate migrate');
    expect(cli(['migrate', '--db', db]).status).toBe(0);
    expect(cli(['state', '--db', db, '--json']).stdout).toBe(expected);
  });

  it("a store from before migration 0003 (schema version 1) gets the state tables and every capture's state from migrate", async () => {
    const db = await load('v1', captureOf('grafana'));
    // Back to version 1: the tables and indexes later migrations add are dropped (the views that read vocabulary first).
    const views = new Database(db, { readonly: true })
      .prepare("select name from sqlite_master where type = 'view'")
      .pluck()
      .all() as string[];
    // Members as version 1 stored them: the `member` table of 0001 (member_node is 0009's).
    const memberTable = /CREATE TABLE member \([\s\S]*?\) STRICT, WITHOUT ROWID;/.exec(listMigrations()[0].sql)![0];
    sql(db, 'create table member_v1 as select * from member;');
    sql(
      db,
      [
        ...views.map((v) => `drop view "${v}";`),
        'drop table member_node;',
        memberTable,
        'insert into member select * from member_v1; drop table member_v1;',
        'drop index record_tool;',
        ...[
          'state_write_effects',
          'capture_normalisation',
          'state_records',
          'state_change_bounds',
          'state_gate_findings',
          'state_limitations',
          'state_plans',
          'state_documents',
          'state_entities',
          'state_types',
          'state_capture',
          'vocabulary',
        ].map((t) => `drop table ${t};`),
      ].join(' ') + " pragma user_version = 1; delete from meta where key = 'queries_sha256';",
    );
    bodiesBefore0014(db);
    const r = cli(['state', '--db', db]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('schema version 1');
    expect(r.stderr).toContain(`run: capstate migrate --db ${db}`);
    const m = cli(['migrate', '--db', db]);
    expect(m.status, m.stderr).toBe(0);
    expect(cli(['state', '--db', db, '--json']).stdout).toBe(expected);
  });

  it('`migrate --recompute` computes every stored state again, even an up-to-date one', async () => {
    const db = await load('recompute', captureOf('grafana'));
    sql(db, "update state_entities set value = '{}'");
    expect(cli(['migrate', '--db', db]).stdout).toContain('stored states up to date');
    expect(cli(['migrate', '--db', db, '--recompute']).stdout).toContain('1 stored state recomputed');
    expect(cli(['state', '--db', db, '--json']).stdout).toBe(expected);
  });
});

describe('stored state: readers render the stored rows and compute no rule', () => {
  it('with the facts the state pass reads gone, `state --json` and `--out` still print the stored bytes', async () => {
    const db = await load('no-recompute', captureOf('grafana'));
    const before = cli(['state', '--db', db, '--json']).stdout;
    expect(before).toBe(readFileSync(fixture('grafana', 'expected', 'state.json'), 'utf8'));
    const d = new Database(db);
    d.exec('delete from member_node; delete from path_param; delete from query_param');
    d.close();
    // Computing now would give another view…
    const k = kyselyFor(openStore(db));
    try {
      expect(stateBytes(await environmentState(k, 1)).text).not.toBe(stateBytes(await readStoredState(k, 1, db)).text);
    } finally {
      await k.destroy();
    }
    // …but every reader prints the stored one.
    expect(cli(['state', '--db', db, '--json']).stdout).toBe(before);
    const out = join(dir, 'no-recompute.json');
    const r = cli(['state', '--db', db, '--out', out]);
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(before);
    expect(r.stdout).toContain(`sha256 ${JSON.parse(before).sha256}`);
    expect(cli(['inspect-analysis-view', '--db', db, '--view', '{"kind":"environment-state"}']).stdout).toBe(before);
  });

  it('serving (the MCP environment-state view, answers from state) reads the stored rows: a changed stored value is what it serves', async () => {
    const db = join(dir, 'serve-stored.sqlite');
    copyFileSync(await load('serve-source', captureOf('grafana')), db);
    const d = new Database(db);
    d.prepare("update state_entities set value = json_set(value, '$.title', 'from the stored row') where collection = 'dashboards'").run();
    d.close();
    const ctx = await openServeContext(db);
    try {
      const doc = (await environmentStateView(ctx, ctx.captureId)) as { entities: { collection: string; value: { title?: string } }[] };
      expect(doc.entities.find((e) => e.collection === 'dashboards')!.value.title).toBe('from the stored row');
    } finally {
      await closeServeContext(ctx);
    }
  });

  it('serving looks up the entities a call renders by index, not the whole state: a damaged row of another entity does not stop it', async () => {
    const db = join(dir, 'serve-indexed.sqlite');
    copyFileSync(await load('serve-indexed-source', captureOf('grafana')), db);
    const d = new Database(db);
    // Damage every entity but the folder the call asks for: a reader of the whole state fails on them.
    d.prepare("update state_entities set value = '{not json' where not (collection = 'folders' and entity_key = 'nErXDvCkzz')").run();
    d.close();
    const s = await serveStore(db);
    try {
      const r = await s.call('get_api_folders_by_uid', { uid: 'nErXDvCkzz' });
      expect(r.isError, text(r)).toBeFalsy();
      expect(r.structuredContent).toMatchObject({ source: 'state', body: { uid: 'nErXDvCkzz', title: 'Department ABC' } });
      // The whole-state view does read every row, and says the store is damaged.
      const whole = await s.call('inspect_analysis_view', { view: { kind: 'environment-state' } });
      expect(whole.structuredContent).toMatchObject({ ok: false, code: 'damaged-store' });
    } finally {
      await s.close();
    }
  });
});
