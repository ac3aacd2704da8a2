/**
 * Plain words (issue 19): text for people carries no rule IDs (`ES-37`, `OQ-19`, `§13`,
 * `[#6]`, `evidence ev_…`); `--json` keeps the stored text and `--explain` shows the IDs.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { citedRules, plainError, plainText, planSentence, REASON_WORDS } from '../src/model/plan/words.js';
import { REASON_PRECEDENCE } from '../src/model/plan/types.js';
import { toolInputCached } from '../src/model/served/answer.js';
import { jsonValueOf, readBody, recordArguments, toolRecords } from '../src/model/served/records.js';
import { cli, fixture, root, tempDir } from './helpers.js';
import { fixtureStore } from './fixture-stores.js';
import { writeHar } from './har-builder.js';
import { METHOD_EXCHANGES, serveHar, serveStore } from './serve-helpers.js';
import { CLOSED_BROWSER_POLICY } from '../src/serve/browser-policy.js';

const dir = tempDir();
/** What a reader must not meet in default text output. */
const JARGON = /\b(ES|BS|OQ|IDN|DOC|DESC|ACC|MCP)-\d+|§\s?\d|\[#\d+|evidence ev_/;
const cases = readdirSync(join(root, 'fixtures'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();
/** The rule IDs docs/rules.md explains (its `<a id>` anchors, lower-cased). */
const RULE_ANCHORS = [...readFileSync(join(root, 'docs', 'rules.md'), 'utf8').matchAll(/<a id="([a-z]+-\d+)"><\/a>/g)].map((m) => m[1]);
const captureOf = (name: string) => fixture(name, readdirSync(fixture(name)).find((f) => /\.(har|json|har\.gz|zip)$/.test(f))!);

describe('plainText: rule citations out, the sentence kept', () => {
  it.each([
    ["its one record comes after the type's bound (ES-8/ES-9)", "its one record comes after the type's bound"],
    ['record #1 (/d/abc) has no usable JSON body (ES-4)', 'record #1 (/d/abc) has no usable JSON body'],
    ['its initial reads have 2 paths (DOC-5)', 'its initial reads have 2 paths'],
    ['the budget (ES-39, OQ-32 as revised) was passed', 'the budget was passed'],
    ['ES-8 bounds it', 'a rule bounds it'],
    ['see §13 for more', 'see for more'],
    ['its 2 initial reads are projections or variants (ES-12..ES-19)', 'its 2 initial reads are projections or variants'],
    ['cannot establish value identity (BS-71)', 'cannot establish value identity'],
    ['answers from state; evidence ev_0123456789ab', 'answers from state'],
  ])('%s', (text, plain) => {
    expect(plainText(text)).toBe(plain);
  });
  it('leaves the rest as it is: column padding, captured values', () => {
    expect(plainText('#3   GET /a    reproduced  (state, status 200)')).toBe('#3   GET /a    reproduced  (state, status 200)');
  });
  it("keeps an app's own names that look like IDs, and record numbers", () => {
    expect(plainText('issue PROJ-12 in UTF-8, SHA-256 of record #3 (OQ-2)')).toBe('issue PROJ-12 in UTF-8, SHA-256 of record #3');
  });
  it("keeps a file name or path that happens to hold a rule ID (the user's own text)", () => {
    expect(plainText('fixtures/ES-8.har: not a HAR (ES-1)')).toBe('fixtures/ES-8.har: not a HAR');
    expect(plainText('BS-12_case.json is empty')).toBe('BS-12_case.json is empty');
  });
  it('every reason of the closed vocabulary has words, and a record plan reads them', () => {
    for (const r of REASON_PRECEDENCE) expect(REASON_WORDS[r], r).toMatch(/^[a-z]/);
    const s = planSentence({ tool: 't', kind: 'record', reason: 'body-unusable', detail: 'record #1 (/x) has no usable JSON body (ES-4)' });
    expect(s).toBe(
      'Replays its recorded responses: its recorded responses have no usable JSON body (record #1 (/x) has no usable JSON body).',
    );
  });
});

describe('citedRules and plainError: the rules a text cites, for a structured field', () => {
  it.each([
    ["its one record comes after the type's bound (ES-8/ES-9)", ['ES-8', 'ES-9']],
    [
      'its 2 initial reads are projections or variants (ES-12..ES-19)',
      ['ES-12', 'ES-13', 'ES-14', 'ES-15', 'ES-16', 'ES-17', 'ES-18', 'ES-19'],
    ],
    ['the budget (ES-39, OQ-32 as revised) was passed', ['ES-39', 'OQ-32']],
    ['writes are not modelled (§13); ES-8 bounds it, ES-8 again', ['§13', 'ES-8']],
    ['fixtures/ES-8.har: PROJ-12 in UTF-8; evidence ev_0123456789ab', []],
  ])('%s', (text, rules) => {
    expect(citedRules(text)).toEqual(rules);
  });
  it('an error document keeps its keys, its message in plain words and the cited rules in `rules` (none: no key)', () => {
    const doc = {
      ok: false as const,
      code: 'budget-exceeded',
      message: 'needs more than its 100 transient bytes (ES-39) in the values phase',
      context: { phase: 'values' },
    };
    expect(plainError(doc)).toEqual({
      ok: false,
      code: 'budget-exceeded',
      message: 'needs more than its 100 transient bytes in the values phase',
      rules: ['ES-39'],
      context: { phase: 'values' },
    });
    expect(Object.keys(plainError(doc))).toEqual(['ok', 'code', 'message', 'rules', 'context']);
    expect(plainError({ ...doc, message: 'no such file' })).toEqual({ ...doc, message: 'no such file' });
  });
});

describe('default text output carries no rule IDs; --explain and --json keep them', () => {
  const db = join(dir, 'grafana.sqlite');
  const load = cli(['load', fixture('grafana', 'capture.har'), '--db', db, '--quiet']);

  it('state: plan reasons in plain words; --explain names the rules; --json keeps the stored detail', () => {
    expect(load.status, load.stderr).toBe(0);
    const text = cli(['state', '--db', db]).stdout;
    expect(text).toContain('replays its recorded answers: record #1 (/d/abc123XYZ/service-overview?orgId=1) has no usable JSON body\n');
    expect(text).not.toMatch(JARGON);
    expect(cli(['state', '--db', db, '--explain']).stdout).toContain('has no usable JSON body (ES-4)');
    const doc = JSON.parse(cli(['state', '--db', db, '--json']).stdout) as { plans: { kind: string; detail?: string }[] };
    expect(
      doc.plans
        .filter((p) => p.kind === 'record')
        .map((p) => p.detail)
        .join('\n'),
    ).toMatch(/\(ES-4\)/);
  });

  it('info: no rule IDs unless --explain', () => {
    const text = cli(['info', '--db', db]).stdout;
    expect(text).toMatch(/\d+ records, \d+ admitted, timeline by start-time\n/);
    expect(text).not.toMatch(JARGON);
    expect(cli(['info', '--db', db, '--explain']).stdout).toMatch(/\d+ admitted \(OQ-2\), timeline by start-time \(ES-6\)/);
  });

  it("manifest, check-effects, card and every command's help: no rule IDs", () => {
    for (const args of [['manifest'], ['check-effects'], ['card']]) {
      const r = cli([...args, '--db', db]);
      expect(r.stdout, args.join(' ')).not.toMatch(JARGON);
    }
    const main = cli(['--help']).stdout;
    expect(main).not.toMatch(JARGON);
    const names = [...main.matchAll(/^\s+([a-z-]+) {2,}\S/gm)].map((m) => m[1]);
    expect(names).toEqual(expect.arrayContaining(['load', 'state', 'info', 'check-effects', 'compare-web-captures']));
    for (const name of names) {
      expect(cli(['help', name]).stdout, `help ${name}`).not.toMatch(JARGON);
    }
  });
});

describe('MCP tool descriptions carry no rule IDs', () => {
  it('every tool a client lists (environment, analysis, data plane, browser): descriptions and input schemas in plain words', async () => {
    const s = await serveHar(dir, METHOD_EXCHANGES, { browser: { ...CLOSED_BROWSER_POLICY, allowBrowser: true, evidenceDir: dir } });
    try {
      expect(s.tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['inspect_analysis_view', 'compare_web_captures', 'capture_browser_scenario', 'reset_state']),
      );
      for (const t of s.tools)
        expect(JSON.stringify({ description: t.description, inputSchema: t.inputSchema }), t.name).not.toMatch(JARGON);
    } finally {
      await s.close();
    }
  });
});

/** Every string a person or an agent reads in an MCP tool answer: the text content's head and the structured notes (not the captured body). */
function readText(r: { content: unknown[]; structuredContent?: unknown; isError?: boolean }): string {
  const content = r.content as { type: string; text?: string }[];
  const sc = (r.structuredContent ?? {}) as Record<string, unknown>;
  // An error's text content is its error document; an answer's first text is its head, the second the captured body.
  const head = r.isError ? content.map((c) => c.text ?? '') : [content[0]?.text ?? ''];
  return [...head, String(sc.why ?? ''), String(sc.body_note ?? ''), String(sc.message ?? '')].join('\n');
}

describe('MCP answers carry no rule IDs: every recorded call of every fixture; `rules` names them', () => {
  it.each(cases)('fixture %s', async (name) => {
    const s = await serveStore(await fixtureStore(name));
    let calls = 0;
    try {
      for (const tool of s.ctx.manifest.tools) {
        if (!s.catalog.tools.some((t) => t.name === tool.name)) continue;
        const input = await toolInputCached(s.ctx, tool);
        for (const r of await toolRecords(s.ctx, tool.name)) {
          const args = recordArguments(r);
          if (input.bodyArg && r.request_kind !== 'none') {
            const b = await readBody(s.ctx, r.request_body_id);
            args[input.bodyArg] = jsonValueOf(b) ?? (typeof b.content === 'string' ? b.content : undefined);
          }
          const answer = await s.call(tool.name, args);
          expect(readText(answer), `${tool.name} #${r.ordinal}`).not.toMatch(JARGON);
          // `rules` holds rule IDs that docs/rules.md explains; every read answered from a record or the state names at least one.
          const rules = (answer.structuredContent as { rules?: string[] }).rules ?? [];
          for (const id of rules) expect(RULE_ANCHORS, `${tool.name} #${r.ordinal}: ${id}`).toContain(id.toLowerCase());
          if (!answer.isError && (s.ctx.vocabulary.isSafeMethod(tool.method) || tool.is_query_post)) {
            expect(rules.length, `${tool.name} #${r.ordinal}`).toBeGreaterThan(0);
          }
          calls++;
        }
      }
    } finally {
      await s.close();
    }
    expect(calls).toBeGreaterThan(0);
  });

  it('a replayed initial read says what bounds it in words and names the rule in `rules`', async () => {
    const s = await serveHar(dir, [
      { url: 'http://localhost:3000/api/v1/items', body: [{ id: 'it-01', name: 'A' }] },
      { method: 'PATCH', url: 'http://localhost:3000/api/v1/items/it-01', requestBody: { name: 'B' }, body: { id: 'it-01', name: 'B' } },
      { url: 'http://localhost:3000/api/v1/items/it-01', body: { id: 'it-01', name: 'B' } },
    ]);
    try {
      const sc = (await s.call('get_api_v1_items_by_id', { id: 'it-01' })).structuredContent as {
        why: string;
        rules: string[];
        source: string;
      };
      expect(sc.source).toBe('replay');
      expect(sc.why).toMatch(/none of its records is an initial read .*the bound of \/api\/v1\/items, whose first write is #2\)$/);
      expect(sc.rules).toEqual(['ES-8', 'ES-9']);
      const list = (await s.call('get_api_v1_items')).structuredContent as { why: string; rules: string[] };
      expect(list.why).not.toMatch(JARGON);
      expect(list.rules).toContain('ES-37');
    } finally {
      await s.close();
    }
  });
});

describe('CLI error messages carry no rule IDs; `--json` names them in `rules`', () => {
  it('ES-39 a budget failure: stderr in plain words, the --json error document with rules', () => {
    const file = writeHar(dir, 'budget.har', [
      {
        url: 'http://localhost:3000/api/v1/items',
        body: Array.from({ length: 200 }, (_, i) => ({ id: `it-${i}`, text: 'x'.repeat(200) })),
      },
    ]);
    const env = { CAPSTATE_STATE_BUDGET_BYTES: '100000' };
    const text = cli(['state', file], { env });
    expect(text.status).toBe(1);
    expect(text.stderr).toMatch(/^capstate: error: the environment-state view needs more than its 100000 transient bytes in the/m);
    expect(text.stderr).not.toMatch(JARGON);
    const json = cli(['state', file, '--json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, code: 'budget-exceeded', rules: ['ES-39'] });
    expect(json.stderr).not.toMatch(JARGON);
  });
});

describe('default CLI text of every fixture carries no rule IDs (load, state, info, manifest, check-effects, card)', () => {
  it.each(cases)('fixture %s', (name) => {
    const db = join(dir, `cli-${name}.sqlite`);
    const load = cli(['load', captureOf(name), '--db', db]);
    expect(load.status, load.stderr).toBe(0);
    expect(load.stdout + load.stderr, 'load').not.toMatch(JARGON);
    for (const command of ['state', 'info', 'manifest', 'check-effects', 'card']) {
      const r = cli([command, '--db', db]);
      expect(r.stdout + r.stderr, command).not.toMatch(JARGON);
    }
  });
});
