/**
 * BS-65's first pass (the capture's credentials) split between a load's two threads
 * (pipeline.ts): the shares together find what one whole pass finds, and the second pass
 * gives the same entries whichever way the first pass ran.
 */
import { describe, expect, it } from 'vitest';
import { collectCredentials, parseCapture, type FirstPassFinds, type ParseOut } from '../src/load/entries.js';
import { CleanBodies } from '../src/load/secret-collect.js';
import { tempDir } from './helpers.js';
import { writeHar, type Exchange } from './har-builder.js';

const A = 'http://app.test';
const exchanges: Exchange[] = [
  { url: `${A}/api/a`, body: { echo: 't-Share1-5b6c7d8e', n: 1 } },
  {
    method: 'POST',
    url: `${A}/api/login`,
    headers: [{ name: 'Authorization', value: 'Bearer t-Share1-5b6c7d8e' }],
    requestBody: { user: 'ann', password: 'hunter2' },
    body: { echo: 't-Share0-1f2a3b4c' },
  },
  { url: `${A}/api/b`, headers: [{ name: 'Authorization', value: 'Bearer t-Share0-1f2a3b4c' }], body: { api_key: 'ak-Share0-9d8c7b6a' } },
  { url: `${A}/api/c`, body: { plain: true } },
  { url: `${A}/api/d?token=q-Share0-7e6d5c4b`, body: [1, 2, 3] },
];
const file = writeHar(tempDir(), 'shares.har', exchanges, { pageTitle: `${A}/#access_token=pg-Title-3c2b1a0f` });

async function pass(parts: number, part: number): Promise<{ values: Set<string>; clean: CleanBodies }> {
  const clean = new CleanBodies();
  return { values: await collectCredentials(file, clean, { parts, part }), clean };
}

async function entries(otherShare?: Promise<FirstPassFinds | null>): Promise<ParseOut[]> {
  const out: ParseOut[] = [];
  for await (const m of parseCapture(file, { sensitive: [], otherShare })) out.push(m);
  return out.map((m) => (m.t === 'credentials' ? { ...m, values: [...m.values].sort() } : m));
}

describe('BS-65 the first pass in two shares', () => {
  it("BS-65 share 0 and share 1 together find the whole pass's credential values and clean bodies", async () => {
    const whole = await pass(1, 0);
    const [s0, s1] = [await pass(2, 0), await pass(2, 1)];
    expect(whole.values.size).toBeGreaterThanOrEqual(4);
    expect(new Set([...s0.values, ...s1.values])).toEqual(whole.values);
    // Each share alone misses some: the split is real.
    expect(s0.values.size).toBeLessThan(whole.values.size);
    expect(s1.values.size).toBeLessThan(whole.values.size);
    s0.clean.merge(s1.clean.bytes);
    for (let i = 0; i < exchanges.length; i++) {
      for (const side of ['request', 'response'] as const)
        expect([i, side, s0.clean.has(i, side)]).toEqual([i, side, whole.clean.has(i, side)]);
    }
    expect(whole.clean.has(1, 'request')).toBe(false); // the password: scanned again by name in the second pass
    expect(whole.clean.has(3, 'response')).toBe(true);
  });

  it('BS-65 a share stopped early returns at once with what it found', async () => {
    const stop = new AbortController();
    stop.abort();
    expect(await collectCredentials(file, undefined, { parts: 2, part: 1, signal: stop.signal })).toEqual(new Set());
  });

  it('BS-65 the second pass yields the same entries with the other share handed over, or scanned itself when none came', async () => {
    const alone = await entries();
    const s1 = await pass(2, 1);
    expect(await entries(Promise.resolve({ values: [...s1.values], clean: s1.clean.bytes }))).toEqual(alone);
    expect(await entries(Promise.resolve(null))).toEqual(alone);
    const credentials = alone.find((m) => m.t === 'credentials');
    expect(credentials && credentials.t === 'credentials' && credentials.values).toContain('t-Share1-5b6c7d8e');
  });
});
