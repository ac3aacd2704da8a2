/**
 * Plain words (issue 19): text for people carries no rule IDs (`ES-37`, `OQ-19`, `§13`,
 * `[#6]`, `evidence ev_…`); `--json` keeps the stored text and `--explain` shows the IDs.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { plainText, planSentence, REASON_WORDS } from '../src/state/words.js';
import { REASON_PRECEDENCE } from '../src/state/types.js';
import { cli, fixture, tempDir } from './helpers.js';
import { METHOD_EXCHANGES, serveHar } from './serve-helpers.js';
import { CLOSED_BROWSER_POLICY } from '../src/serve/browser-policy.js';

const dir = tempDir();
/** What a reader must not meet in default text output. */
const JARGON = /\b(ES|BS|OQ|IDN|DOC|DESC|ACC|MCP)-\d+|§\s?\d|\[#\d+|evidence ev_/;

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
  it('every reason of the closed vocabulary has words, and a record plan reads them', () => {
    for (const r of REASON_PRECEDENCE) expect(REASON_WORDS[r], r).toMatch(/^[a-z]/);
    const s = planSentence({ tool: 't', kind: 'record', reason: 'body-unusable', detail: 'record #1 (/x) has no usable JSON body (ES-4)' });
    expect(s).toBe('Replays its recorded responses: its recorded responses have no usable JSON body (record #1 (/x) has no usable JSON body).');
  });
});

describe('default text output carries no rule IDs; --explain and --json keep them', () => {
  const db = join(dir, 'grafana.sqlite');
  const load = cli(['load', fixture('grafana', 'capture.har'), '--db', db, '--quiet']);

  it('state: plan reasons in plain words; --explain names the rules; --json keeps the stored detail', () => {
    expect(load.status, load.stderr).toBe(0);
    const text = cli(['state', '--db', db]).stdout;
    expect(text).toContain('record view: body-unusable — record #1 (/d/abc123XYZ/service-overview?orgId=1) has no usable JSON body\n');
    expect(text).not.toMatch(JARGON);
    expect(cli(['state', '--db', db, '--explain']).stdout).toContain('has no usable JSON body (ES-4)');
    const doc = JSON.parse(cli(['state', '--db', db, '--json']).stdout) as { plans: { kind: string; detail?: string }[] };
    expect(doc.plans.filter((p) => p.kind === 'record').map((p) => p.detail).join('\n')).toMatch(/\(ES-4\)/);
  });

  it('info: no rule IDs unless --explain', () => {
    const text = cli(['info', '--db', db]).stdout;
    expect(text).toMatch(/\d+ records, \d+ admitted, timeline by start-time\n/);
    expect(text).not.toMatch(JARGON);
    expect(cli(['info', '--db', db, '--explain']).stdout).toMatch(/\d+ admitted \(OQ-2\), timeline by start-time \(ES-6\)/);
  });

  it('manifest, check-effects, card and every command\'s help: no rule IDs', () => {
    for (const args of [['manifest'], ['check-effects'], ['card']]) {
      const r = cli([...args, '--db', db]);
      expect(r.stdout, args.join(' ')).not.toMatch(JARGON);
    }
    const main = cli(['--help']).stdout;
    expect(main).not.toMatch(JARGON);
    for (const name of main.match(/^\s{2}([a-z-]+)\s/gm)!.map((m) => m.trim())) {
      expect(cli(['help', name]).stdout, `help ${name}`).not.toMatch(JARGON);
    }
  });
});

describe('MCP tool descriptions carry no rule IDs', () => {
  it('every tool a client lists (environment, analysis, data plane, browser): descriptions and input schemas in plain words', async () => {
    const s = await serveHar(dir, METHOD_EXCHANGES, { browser: { ...CLOSED_BROWSER_POLICY, allowBrowser: true, evidenceDir: dir } });
    try {
      expect(s.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['inspect_analysis_view', 'compare_web_captures', 'capture_browser_scenario', 'reset_state']));
      for (const t of s.tools) expect(JSON.stringify({ description: t.description, inputSchema: t.inputSchema }), t.name).not.toMatch(JARGON);
    } finally {
      await s.close();
    }
  });
});
