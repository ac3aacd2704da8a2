import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import fc from 'fast-check';
import Database from 'better-sqlite3';
import { classifyRetainedBody, flattenMembers, isJsonLike, MAX_USABLE_BODY_BYTES, type MemberRow } from '../src/load/bodies.js';
import { parseExactJson } from '../src/json/exact.js';
import { root, sourceFiles } from './helpers.js';

const json = (text: string, mediaType: string | null = 'application/json') => classifyRetainedBody({ text, mediaType, isCut: false });

describe('ES-4 usable response bodies', () => {
  it('ES-4 a small JSON body is usable and parsed', () => {
    const b = json('{"id":"it-01","n":1}');
    expect(b.kind).toBe('json');
    expect(b.isUsable).toBe(true);
    expect(b.reason).toBeNull();
  });

  it('ES-4 a body of exactly 256 KiB is usable, one byte more is unusable (oversize)', () => {
    const fits = '[' + '"' + 'a'.repeat(MAX_USABLE_BODY_BYTES - 4) + '"' + ']';
    expect(Buffer.byteLength(fits)).toBe(MAX_USABLE_BODY_BYTES);
    expect(json(fits).kind).toBe('json');
    const over = '[' + '"' + 'a'.repeat(MAX_USABLE_BODY_BYTES - 3) + '"' + ']';
    expect(json(over)).toMatchObject({ kind: 'text', isUsable: false, reason: 'oversize' });
  });

  it('ES-4 the 256 KiB limit counts decoded UTF-8 bytes, not characters', () => {
    const text = '["' + 'é'.repeat(MAX_USABLE_BODY_BYTES / 2) + '"]'; // 2 bytes each
    expect(text.length).toBeLessThan(MAX_USABLE_BODY_BYTES);
    expect(json(text).reason).toBe('oversize');
  });

  it('ES-4 a __proto__ member at any depth makes the body unusable', () => {
    expect(json('{"__proto__":{"x":1}}').reason).toBe('proto-member');
    expect(json('{"a":[{"b":{"__proto__":1}}]}').reason).toBe('proto-member');
    expect(json('{"a":{"\\u005f_proto__":1}}').reason).toBe('proto-member');
    // A name that merely contains the text is an ordinary member.
    expect(json('{"my__proto__field":1,"constructor":2}').kind).toBe('json');
  });

  it('ES-4 numbers that cannot be held exactly make the body unusable', () => {
    expect(json('{"n":1180591620717411303424}').reason).toBe('inexact-number'); // 2^70
    expect(json('{"n":3.14159265358979323846}').reason).toBe('inexact-number');
    expect(json('{"n":9223372036854775807,"m":-9223372036854775808}').kind).toBe('json'); // int64 bounds
    expect(json('{"n":9223372036854775808}').reason).toBe('inexact-number');
    expect(json('{"n":1.5,"m":0.1,"k":1e2,"p":1.50000000000000000}').kind).toBe('json');
  });

  it('ES-4 invalid UTF-8 in a base64-retained JSON body makes it unusable', () => {
    const b = classifyRetainedBody({
      bytes: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
      mediaType: 'application/json',
      isCut: false,
    });
    expect(b).toMatchObject({ kind: 'text', reason: 'invalid-utf8', isUsable: false });
    expect(Buffer.isBuffer(b.content)).toBe(true);
  });

  it('ES-4 duplicate keys, deep nesting and syntax errors are unusable with their reason', () => {
    expect(json('{"a":1,"a":2}').reason).toBe('duplicate-key');
    expect(json('['.repeat(100_000) + ']'.repeat(100_000)).reason).toBe('too-deep');
    expect(json('{"a":').reason).toBe('invalid-json');
  });

  it('ES-4 a body that is not JSON-like is not parsed', () => {
    expect(json('<html></html>', 'text/html')).toMatchObject({ kind: 'text', reason: 'not-json' });
    expect(json('{"looks":"json"}', 'text/html')).toMatchObject({ kind: 'text', reason: 'not-json' });
  });
});

describe('OQ-34 JSON-like bodies', () => {
  it('OQ-34 JSON media types are JSON-like whatever the first byte', () => {
    for (const m of [
      'application/json',
      'application/json; charset=utf-8',
      'text/json',
      'application/vnd.api+json',
      'application/problem+json',
    ]) {
      expect(isJsonLike(m, Buffer.from('1'))).toBe(true);
    }
  });
  it('OQ-34 no or a generic media type needs a body starting with { or [', () => {
    expect(isJsonLike(null, Buffer.from('  {"a":1}'))).toBe(true);
    expect(isJsonLike('text/plain', Buffer.from('[1]'))).toBe(true);
    expect(isJsonLike('application/octet-stream', Buffer.from('\n[1]'))).toBe(true);
    expect(isJsonLike(null, Buffer.from('"a"'))).toBe(false);
    expect(isJsonLike('text/html', Buffer.from('{}'))).toBe(false);
  });
});

describe('DESC-6 body classification (OQ-33)', () => {
  it('DESC-6 none: no body retained, or an empty one', () => {
    expect(classifyRetainedBody({ mediaType: 'application/json', isCut: false }).kind).toBe('none');
    expect(json('').kind).toBe('none');
  });
  it('DESC-6 cut: the producer kept only part of the body', () => {
    expect(classifyRetainedBody({ text: '{"a":', mediaType: 'application/json', isCut: true })).toMatchObject({
      kind: 'cut',
      reason: 'cut',
      isUsable: false,
    });
  });
  it('DESC-6 base64: binary bytes with a non-text media type', () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const b = classifyRetainedBody({ bytes: png, mediaType: 'image/png', isCut: false });
    expect(b).toMatchObject({ kind: 'base64', reason: 'binary' });
    expect(b.content).toEqual(png);
  });
  it('DESC-6 JSON retained as base64 is decoded and classified as JSON', () => {
    const b = classifyRetainedBody({ bytes: Buffer.from('{"a":1}'), mediaType: 'application/json', isCut: false });
    expect(b.kind).toBe('json');
    expect(b.content).toBe('{"a":1}');
  });
  it('DESC-6 text: other UTF-8 text', () => {
    expect(json('hello', 'text/plain')).toMatchObject({ kind: 'text', reason: 'not-json' });
  });
  it('DESC-6 the stored bytes are exactly the hashed bytes', () => {
    const b = json('{"é":1}');
    expect(Buffer.from(b.content as string, 'utf8')).toEqual(b.bytes);
    expect(b.sha256).toBe(createHash('sha256').update(Buffer.from('{"é":1}', 'utf8')).digest('hex'));
  });
});

describe('ES-5 one owner of body decoding and exact JSON', () => {
  it('ES-5 only src/json/exact.ts imports the exact-number parser; only src/load/bodies.ts decodes body base64', () => {
    const files = sourceFiles();
    const code = (f: string) => readFileSync(f, 'utf8').replace(/^\s*(\/\/|\*).*$/gm, '');
    const parsers = files
      .filter((f) => !f.endsWith(join('json', 'exact.ts')))
      .filter((f) => /from 'json-bigint'|from 'bignumber\.js'/.test(code(f)));
    const decoders = files
      .filter((f) => !f.endsWith(join('load', 'bodies.ts')))
      .filter((f) => /Buffer\.from\([^)]*'base64'\)|classifyRetainedBody\(/.test(code(f)) && !f.endsWith(join('load', 'entries.ts'))); // the parse side of a load hands bodies to the owner
    expect([...parsers, ...decoders].map((f) => f.slice(root.length + 1))).toEqual([]);
  });
});

describe('exact values end to end (STYLE §5)', () => {
  /** The member rows of `text` as SQLite's STRICT member table gives them back (integers as bigint). */
  const storedMembers = (text: string): Map<string, { key: string | null; position: number; type: string; value: unknown }> => {
    const parsed = parseExactJson(text);
    if (!parsed.ok) throw new Error(parsed.detail);
    const db = new Database(':memory:');
    db.exec(
      'create table member (pointer text primary key, parent_pointer text, key text, position integer not null, depth integer not null, type text not null, value any) strict',
    );
    const ins = db.prepare('insert into member values (?, ?, ?, ?, ?, ?, ?)');
    flattenMembers(parsed.value, (m) => ins.run(m.pointer, m.parentPointer, m.key, m.position, m.depth, m.type, m.value));
    const rows = db.prepare('select pointer, key, position, type, value from member').safeIntegers(true).all() as {
      pointer: string;
      key: string | null;
      position: bigint;
      type: string;
      value: unknown;
    }[];
    return new Map(rows.map((r) => [r.pointer, { key: r.key, position: Number(r.position), type: r.type, value: r.value }]));
  };

  it('a 64-bit integer in a body comes back from the member table digit for digit (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.string(), (n, s) => {
        const m = storedMembers(`{"id":${n},"label":${JSON.stringify(s)},"list":[${n},{"deep":${n}}]}`);
        for (const p of ['/id', '/list/0', '/list/1/deep']) expect(m.get(p)).toMatchObject({ type: 'integer', value: n });
        expect(m.get('/label')).toMatchObject({ type: 'string', value: s });
      }),
      { numRuns: 300 },
    );
  });

  it('strings that look like numbers stay strings, key order and nesting survive', () => {
    const m = storedMembers('{"zip":"000123","b":true,"a":null,"n":-0.5,"arr":[[],{}],"x/y~z":1}');
    expect(
      [...m]
        .filter(([, r]) => r.key !== null)
        .sort((x, y) => x[1].position - y[1].position)
        .map(([, r]) => r.key),
    ).toEqual(['zip', 'b', 'a', 'n', 'arr', 'x/y~z']);
    expect(m.get('/zip')).toMatchObject({ type: 'string', value: '000123' });
    expect(m.get('/n')).toMatchObject({ type: 'real', value: -0.5 });
    expect(m.get('/arr/0')).toMatchObject({ type: 'array' });
    expect(m.get('/arr/1')).toMatchObject({ type: 'object' });
    expect(m.get('/x~1y~0z')).toMatchObject({ type: 'integer', value: 1n });
  });

  it('member rows carry RFC 6901 pointers, parents, key order and depth', () => {
    const rows: MemberRow[] = [];
    const parsed = parseExactJson('{"a/b":[{"~":1}]}');
    if (!parsed.ok) throw new Error('parse');
    flattenMembers(parsed.value, (r) => rows.push(r));
    expect(rows.map((r) => [r.pointer, r.parentPointer, r.key, r.position, r.depth, r.type])).toEqual([
      ['', null, null, 0, 0, 'object'],
      ['/a~1b', '', 'a/b', 0, 1, 'array'],
      ['/a~1b/0', '/a~1b', null, 0, 2, 'object'],
      ['/a~1b/0/~0', '/a~1b/0', '~', 0, 3, 'integer'],
    ]);
  });
});
