/**
 * Issue 14 (RSS ≤ 256 MB at 1 GB): the load runs a full collection between its phases
 * (src/ingest/collect.ts), which Node gives scripts only when asked for.
 */
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { collectBetweenPhases } from '../src/ingest/collect.js';

describe("issue 14: a full collection between the load's phases", () => {
  it('runs a major collection each time it is called, without a start-up flag', async () => {
    const kinds: number[] = [];
    const seen = new Promise<void>((resolve) => {
      const obs = new PerformanceObserver((list) => {
        for (const e of list.getEntries()) kinds.push((e as unknown as { detail: { kind: number } }).detail.kind);
        if (kinds.filter((k) => k === constants.NODE_PERFORMANCE_GC_MAJOR).length >= 2) {
          obs.disconnect();
          resolve();
        }
      });
      obs.observe({ entryTypes: ['gc'] });
    });
    expect(process.execArgv).not.toContain('--expose-gc');
    collectBetweenPhases();
    collectBetweenPhases();
    await seen;
    expect(kinds.filter((k) => k === constants.NODE_PERFORMANCE_GC_MAJOR).length).toBeGreaterThanOrEqual(2);
  });
});
