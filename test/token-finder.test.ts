/**
 * The Redactor's whole-token search (src/load/token-finder.ts, issue 14) finds exactly what
 * one regular-expression alternation of the spellings, longest first, between
 * `(?<![A-Za-z0-9])` and `(?![A-Za-z0-9])`, finds (the loader's previous search): same
 * matches, same replacements, on generated spellings and texts built from them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TokenFinder } from '../src/load/token-finder.js';
import { Redactor } from '../src/load/secrets.js';

/** The previous search: one alternation, whole tokens only. */
function byAlternation(spellings: string[], text: string, marker: string): string {
  const source = spellings.map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  return text.replace(new RegExp(`(?<![A-Za-z0-9])(?:${source})(?![A-Za-z0-9])`, 'g'), marker);
}

const longestFirst = (xs: string[]) => [...new Set(xs)].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
const char = fc.constantFrom(...'aAbB09zZ.-_%/=\\~+"'.split(''));
const spelling = fc.array(char, { minLength: 3, maxLength: 12 }).map((cs) => cs.join(''));

describe("whole-token search for many spellings (the Redactor's echoes of credentials)", () => {
  it('replaces exactly what the alternation replaces, for generated spellings and texts made of them', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(spelling, { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.array(char, { maxLength: 30 }),
        (raw, picks, noise) => {
          const spellings = longestFirst(raw);
          // A text of whole spellings, their halves, glued to letters or separators, and noise.
          const pieces = picks.map((p, i) => {
            const s = spellings[p % spellings.length];
            return [s, s.slice(0, Math.ceil(s.length / 2)), `x${s}`, `${s}9`, ` ${s} `, noise[i % Math.max(1, noise.length)] ?? ''][p % 6];
          });
          const text = pieces.join(noise.join('').slice(0, 3));
          const finder = new TokenFinder(spellings);
          expect(finder.replaceAll(text, '[R]')).toBe(byAlternation(spellings, text, '[R]'));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('the Redactor keeps its behaviour: an echoed token replaced as a whole token, not inside a longer one', () => {
    const token = 'eyJhbGciOiJIUzI1NiJ9.c2Vzc2lvbi0xMjM0NTY3OA.sig-Abc_123';
    const r = new Redactor([token]);
    expect(r.text(`{"token":"${token}","other":"x${token}"}`)).toBe(`{"token":"${Redactor.MARKER}","other":"x${token}"}`);
    expect(r.text(`a=${encodeURIComponent(token)}&b=1`)).toBe(`a=${Redactor.MARKER}&b=1`);
    expect(r.text('nothing here')).toBe('nothing here');
  });
});
