import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { childPointer, escapePointerToken, pointerTokens, unescapePointerToken } from '../src/json/pointer.js';
import { root, sourceFiles } from './helpers.js';

describe('JSON pointers (RFC 6901): one escaper', () => {
  it('escapes ~ before / and unescapes in the opposite order', () => {
    expect(escapePointerToken('a/b~c')).toBe('a~1b~0c');
    expect(escapePointerToken('~1')).toBe('~01');
    expect(unescapePointerToken('~01')).toBe('~1');
    expect(childPointer('/a', 'b/c')).toBe('/a/b~1c');
    expect(childPointer('', 0)).toBe('/0');
    expect(pointerTokens('')).toEqual([]);
    expect(pointerTokens('/a~1b/~0/')).toEqual(['a/b', '~', '']);
    expect(() => pointerTokens('a/b')).toThrow(/not a JSON pointer/);
  });

  it('every member name comes back from its pointer', () => {
    const name = fc.oneof(fc.string(), fc.constantFrom('~', '/', '~0', '~1', '~01', '/~', ''));
    fc.assert(
      fc.property(fc.array(name, { maxLength: 5 }), (names) => {
        const pointer = names.reduce((p, n) => childPointer(p, n), '');
        expect(pointerTokens(pointer)).toEqual(names);
      }),
    );
  });

  it('no other module of src/ spells the ~0/~1 escapes', () => {
    const files = sourceFiles();
    const offenders = files
      .filter((f) => !f.endsWith(join('json', 'pointer.ts')))
      .filter((f) => /'~[01]'|\/~[01]\/g/.test(readFileSync(f, 'utf8').replace(/^\s*(\/\/|\*).*$/gm, '')));
    expect(offenders.map((f) => f.slice(root.length + 1))).toEqual([]);
  });
});
