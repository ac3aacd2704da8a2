/**
 * ES-5: `parseAcceptedJson` (JSON.parse where it gives the exact value) and the owner's exact
 * parser agree on every text the owner accepts: same values, same representation (bigint
 * beyond 2^53, a Map for objects with index-like keys, objects without a prototype).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAcceptedJson, parseExactJson, stringifyExact, type JsonValue } from '../src/json/exact.js';
import { root } from './helpers.js';

/** Same value and same representation, member order included. */
function same(a: JsonValue, b: JsonValue): boolean {
  if (a instanceof Map || b instanceof Map) {
    if (!(a instanceof Map && b instanceof Map) || a.size !== b.size) return false;
    const [x, y] = [[...a], [...b]];
    return x.every(([k, v], i) => k === y[i][0] && same(v, y[i][1]));
  }
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => same(v, b[i]));
  if (a !== null && typeof a === 'object') {
    if (b === null || typeof b !== 'object' || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
    const [ka, kb] = [Object.keys(a), Object.keys(b)];
    return (
      ka.length === kb.length &&
      ka.every((k, i) => k === kb[i] && same((a as Record<string, JsonValue>)[k], (b as Record<string, JsonValue>)[k]))
    );
  }
  return typeof a === typeof b && Object.is(a, b);
}

function expectSame(text: string): void {
  const exact = parseExactJson(text);
  if (!exact.ok) return; // outside the contract: only accepted texts are given to it
  const fast = parseAcceptedJson(text);
  expect(fast.ok, text.slice(0, 200)).toBe(true);
  expect(same((fast as { value: JsonValue }).value, exact.value), text.slice(0, 200)).toBe(true);
}

describe('ES-5 the accepted-text parse gives the exact value', () => {
  it('on the shapes JSON.parse alone gets wrong: big integers, index-like keys, -0, 1e300, decimals', () => {
    for (const t of [
      '9007199254740993',
      '[9223372036854775807, -9223372036854775808]',
      '{"2":"b","1":"a","x":0}',
      '{"a":{"10":1}}',
      '-0',
      '[1e300, 1.5e-300, 0.1, 12345.678]',
      '{"n":1.0,"m":1e2}',
      '"\\u00e9\\ud83d\\ude00"',
      '[[[[{}]]]]',
      '{"":""}',
    ]) {
      expectSame(t);
    }
    expect(parseAcceptedJson('9007199254740993')).toEqual({ ok: true, value: 9007199254740993n });
    expect(
      parseAcceptedJson('{"2":"b","1":"a"}').ok && (parseAcceptedJson('{"2":"b","1":"a"}') as { value: JsonValue }).value instanceof Map,
    ).toBe(true);
  });

  it('on generated values (fast-check, seed 20261201)', () => {
    const key = fc.oneof(fc.string(), fc.constantFrom('0', '1', '10', 'id', '__x'));
    const leaf = fc.oneof(
      fc.constant(null),
      fc.boolean(),
      fc.string(),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    );
    const value = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(key, tie('v'), { maxKeys: 4 })),
    })).v;
    fc.assert(
      fc.property(value, (v) => {
        const exact = parseExactJson(JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `@@${x}@@` : x)).replace(/"@@(-?\d+)@@"/g, '$1'));
        if (!exact.ok) return;
        expectSame(stringifyExact(exact.value));
      }),
      { seed: 20261201, numRuns: 500 },
    );
  });

  it('on every JSON response body of every fixture', () => {
    let n = 0;
    for (const dir of readdirSync(join(root, 'fixtures'))) {
      for (const f of readdirSync(join(root, 'fixtures', dir)).filter((x) => x.endsWith('.har'))) {
        const har = JSON.parse(readFileSync(join(root, 'fixtures', dir, f), 'utf8')) as {
          log: { entries: { response: { content: { text?: string } } }[] };
        };
        for (const e of har.log.entries) {
          const text = e.response.content.text;
          if (typeof text === 'string' && /^\s*[[{"\d-tfn]/.test(text)) {
            expectSame(text);
            n++;
          }
        }
      }
    }
    expect(n).toBeGreaterThan(50);
  });
});
