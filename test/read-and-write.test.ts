import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readVersusWrite, type TimedRecord } from '../src/state/read-and-write.js';
import { root, sourceFiles } from './helpers.js';

/** A record at `position` that started at `start` (ms) and took `duration` ms. */
const rec = (position: number, start: number | null, duration: number): TimedRecord => ({
  timeline_position: position,
  started_ms: start,
  ended_ms: start === null ? null : start + duration,
});

describe('ES-8 a read is before, overlapping or after its bounding write', () => {
  // The spec's example: #2 PATCH at 10:00:01.000 +80ms bounds the type.
  const write = rec(2, 1000, 80);
  it('ES-8 a read that ended before the write started is before it (#1)', () => {
    expect(readVersusWrite('start-time', rec(1, 0, 50), write)).toBe('before');
  });
  it('ES-8 a read that started before the write ended overlaps it (#3), even when later in position', () => {
    expect(readVersusWrite('start-time', rec(3, 1050, 40), write)).toBe('overlaps');
    expect(readVersusWrite('start-time', rec(1, 990, 200), write)).toBe('overlaps');
  });
  it('ES-8 intervals are closed: a read ending exactly when the write starts overlaps it', () => {
    expect(readVersusWrite('start-time', rec(1, 950, 50), write)).toBe('overlaps');
    expect(readVersusWrite('start-time', rec(3, 1080, 10), write)).toBe('overlaps');
  });
  it('ES-8 a read that started after the write ended is after it (#4)', () => {
    expect(readVersusWrite('start-time', rec(4, 2000, 30), write)).toBe('after');
  });
  it('ES-8 with record order (or a time missing) "before" is earlier in position and nothing overlaps', () => {
    expect(readVersusWrite('record-order', rec(1, 1050, 40), write)).toBe('before');
    expect(readVersusWrite('record-order', rec(3, 0, 50), write)).toBe('after');
    expect(readVersusWrite('start-time', rec(1, null, 50), write)).toBe('before');
    expect(readVersusWrite('start-time', rec(3, 1050, 40), rec(2, null, 80))).toBe('after');
  });
  it("ES-8 no other TypeScript module compares a read's end with a write's times", () => {
    const files = sourceFiles();
    const offenders = files
      .filter((f) => !f.endsWith(join('state', 'read-and-write.ts')))
      .filter((f) => /\.ended_ms\s*<|<=?\s*\w+\.ended_ms/.test(readFileSync(f, 'utf8')));
    expect(offenders.map((f) => f.slice(root.length + 1))).toEqual([]);
  });
});
