/**
 * Issue 15, "Smaller ones": a JSON syntax error in a HAR entry is reported at its position
 * in the file, not in the entry; and compare-web-captures refuses what load refuses
 * (BS-61/BS-81: one validator for both).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from './helpers.js';

const dir = tempDir();
type Json = Record<string, any>;

describe('issue 15: a bad-json position counts from the file, not the entry', () => {
  it('a broken entry deep in the file: offset, line and column point at the offending byte of the file', () => {
    const entry = (i: number): Json => ({
      startedDateTime: '2024-05-01T10:00:00.000Z',
      time: 1,
      request: { method: 'GET', url: `http://127.0.0.1:3000/api/items/${i}`, headers: [] },
      // Non-ASCII text before the fault: bytes, UTF-16 units and characters differ.
      response: { status: 200, content: { mimeType: 'application/json', text: JSON.stringify({ name: `é€😀 ${i}` }) } },
    });
    const entries = Array.from({ length: 60 }, (_, i) => entry(i + 1));
    let text = JSON.stringify({ log: { version: '1.2', creator: { name: 't', version: '1' }, entries } }, null, 2);
    // Entry 58 loses the colon after "status".
    const at = text.indexOf('"status": 200', text.indexOf('/api/items/58"'));
    text = text.slice(0, at) + '"status" 200' + text.slice(at + '"status": 200'.length);
    const file = join(dir, 'deep-broken.har');
    writeFileSync(file, text);
    const r = cli(['load', file, '--db', join(dir, 'deep.sqlite'), '--json']);
    expect(r.status, r.stderr).toBe(1);
    const err = JSON.parse(r.stdout);
    expect(err.code).toBe('bad-json');
    expect(err.context).toMatchObject({ file, record: 58, path: 'log.entries[57]' });
    const bytes = readFileSync(file);
    const offset = err.context.offset as number;
    // The entry starts thousands of bytes into the file; the fault is the "200" after "status".
    expect(offset).toBeGreaterThan(20_000);
    expect(bytes.subarray(offset - '"status" '.length, offset + 3).toString()).toBe('"status" 200');
    expect(err.message).toContain(`at byte ${offset} of the file`);
    const before = bytes.subarray(0, offset).toString();
    const line = before.split('\n').length;
    const column = [...before.slice(before.lastIndexOf('\n') + 1)].length + 1;
    expect(err.context).toMatchObject({ line, column });
    expect(err.message).toContain(`(line ${line}, column ${column})`);
    expect(r.stderr).not.toMatch(/position \d+/);
  });
});

describe('BS-61/BS-81: load and compare-web-captures refuse the same Evidence with the same code', () => {
  const ORIGIN = 'http://127.0.0.1:3000';
  const evidence = (events: Json[]): Json => ({
    schema_version: 1,
    scenario: {
      start_url: `${ORIGIN}/`,
      browser: { mode: 'launch', headless: true },
      network_content: { request_body: false, response_body: true, header_values: false },
      event_families: ['network'],
    },
    initial_state: { status: 'completed', elapsed_ms: 5, url: `${ORIGIN}/`, captures: {} },
    steps: [{ step_id: 'a', action: 'click', status: 'completed', captures: {} }],
    events,
    limitations: [],
    omissions: { by_kind: {}, network_transactions: [], network_transaction_range: null },
  });
  const request = (extra: Json = {}): Json => ({
    sequence: 1,
    kind: 'request',
    step_id: 'a',
    transaction_id: 't1',
    redirected_from_transaction_id: null,
    redirected_from_transaction_state: 'root',
    method: 'GET',
    url: `${ORIGIN}/api`,
    resource_type: 'fetch',
    observed_at: '2026-11-29T10:00:00.000Z',
    ...extra,
  });
  const response: Json = {
    sequence: 2,
    kind: 'response',
    step_id: 'a',
    transaction_id: 't1',
    status: 200,
    status_text: 'OK',
    observed_at: '2026-11-29T10:00:01.000Z',
  };
  const good = join(dir, 'good.json');
  writeFileSync(good, JSON.stringify(evidence([request(), response])));

  const refusedByBoth = (name: string, events: Json[], code: string) => {
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify(evidence(events)));
    const load = cli(['load', file, '--db', join(dir, `${name}.sqlite`), '--json']);
    expect(load.status, load.stderr).toBe(1);
    const l = JSON.parse(load.stdout);
    expect(l.code).toBe(code);
    for (const args of [
      [good, file],
      [file, good],
    ]) {
      const cmp = cli(['compare-web-captures', ...args, '--json']);
      expect(cmp.status, cmp.stdout + cmp.stderr).toBe(1);
      const c = JSON.parse(cmp.stdout);
      expect(c.code).toBe(l.code);
      expect(c.message).toBe(l.message);
      expect(c.context).toMatchObject({ file, path: l.context.path });
    }
  };

  it('the good Evidence is accepted by both', () => {
    expect(cli(['load', good, '--db', join(dir, 'good.sqlite')]).status).toBe(0);
    expect(cli(['compare-web-captures', good, good, '--json']).status).toBe(0);
  });

  it('BS-61: a request event without redirected_from_transaction_id is refused by load and by compare-web-captures with the same code and message', () => {
    const { redirected_from_transaction_id: _, ...bare } = request();
    refusedByBoth('no-redirect-field.json', [bare, response], 'missing-field');
  });

  it('BS-81: an unknown field in a request event and a bad redirected_from_transaction_state are refused alike', () => {
    refusedByBoth('unknown-field.json', [request({ bogus: 1 }), response], 'unknown-field');
    refusedByBoth('bad-state.json', [request({ redirected_from_transaction_state: 'maybe' }), response], 'bad-field');
  });

  it('BS-81: a member name twice in an event is duplicate-key for both (the messages differ: two parsers)', () => {
    const file = join(dir, 'dup.json');
    writeFileSync(file, JSON.stringify(evidence([request(), response])).replace('"method":"GET"', '"method":"GET","method":"PUT"'));
    const load = cli(['load', file, '--db', join(dir, 'dup.sqlite'), '--json']);
    const cmp = cli(['compare-web-captures', good, file, '--json']);
    expect([load.status, cmp.status]).toEqual([1, 1]);
    expect(JSON.parse(cmp.stdout).code).toBe(JSON.parse(load.stdout).code);
    expect(JSON.parse(load.stdout).code).toBe('duplicate-key');
  });
});
