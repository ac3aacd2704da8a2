/**
 * Issue 46, "MCP tools an agent reads at a glance": which tools are listed and what query_store
 * answers. compare_web_captures compares web captures, not the served app: it is listed (and
 * answered) only when the operator starts serve with --evidence-dir DIR or --allow-browser.
 * query_store returns rows as objects keyed by column, as `capstate sql --json` does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { cli, fixture, tempDir } from './helpers.js';
import { serveStore, text, type Served } from './serve-helpers.js';
import { CLOSED_BROWSER_POLICY } from '../src/serve/browser-policy.js';

const dir = tempDir();
const db = join(dir, 'json-server.sqlite');
let plain: Served;
beforeAll(async () => {
  const r = cli(['load', fixture('json-server', 'capture.har'), '--db', db]);
  expect(r.status, r.stderr).toBe(0);
  plain = await serveStore(db);
}, 60_000);
afterAll(async () => {
  await plain?.close();
});

const code = (r: { structuredContent?: unknown }) => (r.structuredContent as { code?: string } | undefined)?.code;

describe('issue 46: tools unrelated to the app are listed only when asked for', () => {
  it('a plain serve lists no compare_web_captures, and a call is refused naming the flag that lists it', async () => {
    expect(plain.tools.map((t) => t.name)).not.toContain('compare_web_captures');
    const r = await plain.call('compare_web_captures', { before: {}, after: {} });
    expect(r.isError).toBe(true);
    expect(code(r)).toBe('tool-not-listed');
    expect(text(r)).toMatch(/capstate serve --evidence-dir DIR/);
  });

  it('serve --evidence-dir DIR lists and answers it', async () => {
    const s = await serveStore(db, { browser: { ...CLOSED_BROWSER_POLICY, evidenceDir: dir } });
    try {
      expect(s.tools.map((t) => t.name)).toContain('compare_web_captures');
      const r = await s.call('compare_web_captures', { before: 'no-such.json', after: {} });
      expect(code(r)).not.toBe('tool-not-listed');
    } finally {
      await s.close();
    }
  });

  it('serve --allow-browser lists it beside capture_browser_scenario', async () => {
    const s = await serveStore(db, { browser: { ...CLOSED_BROWSER_POLICY, allowBrowser: true } });
    try {
      expect(s.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['compare_web_captures', 'capture_browser_scenario']));
    } finally {
      await s.close();
    }
  });
});

describe('issue 46: query_store returns rows as objects, like sql --json', () => {
  it('the same statement gives the same rows as `capstate sql --json`', async () => {
    const sql = 'select ordinal, method, status from record order by ordinal limit 3';
    const r = await plain.call('query_store', { sql });
    expect(r.isError, text(r)).toBeFalsy();
    const doc = r.structuredContent as { columns: string[]; rows: Record<string, unknown>[] };
    expect(doc.columns).toEqual(['ordinal', 'method', 'status']);
    expect(doc.rows[0]).toEqual({ ordinal: 1, method: expect.any(String), status: expect.any(Number) });
    const viaCli = JSON.parse(cli(['sql', '--db', db, '--json', sql]).stdout) as { rows: unknown[] };
    expect(doc.rows).toEqual(viaCli.rows);
  });

  it('two columns of one name are an error naming them, not a lost value', async () => {
    const r = await plain.call('query_store', { sql: 'select 1 as n, 2 as n' });
    expect(r.isError).toBe(true);
    expect(code(r)).toBe('duplicate-column');
    expect(text(r)).toMatch(/query_store keys rows by column name/);
  });
});
