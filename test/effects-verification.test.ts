/**
 * Serving's verification of write effects (src/model/served/effects.ts `verifiedWrites`) skips the
 * replays that can blame nothing more: reads of what only blamed writes touched, and the
 * answers of blamed writes (still applied). The skip must not change the outcome: on every
 * fixture with writes, serving verifies exactly the write tools, with the same effects, that
 * `capstate check-effects` (every record replayed and compared) verifies. (Issue 16, ES-41
 * extended: the load runs that skipping check and stores its set; `verifiedWrites` reads it.)
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { closeServeContext, openServeContext } from '../src/model/served/context.js';
import { checkEffects, verifiedWrites } from '../src/model/served/effects.js';
import { fixtureStore } from './fixture-stores.js';
import { fixture } from './helpers.js';

const withWrites = readdirSync(fixture()).filter(
  (name) =>
    existsSync(fixture(name, 'capture.har')) &&
    /"method":\s*"(POST|PUT|PATCH|DELETE)"/.test(readFileSync(fixture(name, 'capture.har'), 'utf8')),
);

describe("write effects: serving's verification skips only replays that cannot blame", () => {
  it('there are fixtures with writes to check', () => {
    expect(withWrites.length).toBeGreaterThanOrEqual(4);
  });

  it.each(withWrites)(
    '%s: the write tools serving verifies are those check-effects verifies, with the same effects',
    async (name) => {
      const db = await fixtureStore(name);
      const full = await (async () => {
        const ctx = await openServeContext(db);
        try {
          return (await checkEffects(ctx, { everyRecord: true })).verified;
        } finally {
          await closeServeContext(ctx);
        }
      })();
      const ctx = await openServeContext(db);
      try {
        const served = [...(await verifiedWrites(ctx))].map(([tool, effect]) => ({ tool, effect }));
        const byTool = (xs: { tool: string; effect: string }[]) => [...xs].sort((a, b) => a.tool.localeCompare(b.tool));
        expect(byTool(served)).toEqual(byTool(full));
      } finally {
        await closeServeContext(ctx);
      }
    },
    120_000,
  );
});
