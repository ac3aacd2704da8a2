/**
 * The index of which reads show which entity (update-effects.ts `readsShowing`, read once per
 * root): `firstReadAfter` must give what a search of every read in timeline order gives — the
 * first read after a position that shows the entity, before another. Checked on a real capture
 * (bench/fidelity/redmine: Redmine's issues are shown by lists and item reads, many of them more
 * than once) for every issue and every record position; the index keeps one number for an id one
 * read shows and an array for several, and this is where the two must agree.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shownAt } from '../src/model/plan/render.js';
import { closeServeContext, openServeContext, type ServeContext } from '../src/model/served/context.js';
import { servedLookups, servedTypes } from '../src/model/served/model.js';
import { jsonValueOf, readBody, toolRecords } from '../src/model/served/records.js';
import { firstReadAfter } from '../src/model/served/update-effects.js';
import { isObject, member } from '../src/model/plan/json.js';
import { cli, root, tempDir } from './helpers.js';
import type { JsonValue } from '../src/json/exact.js';

let ctx: ServeContext;
beforeAll(async () => {
  const db = join(tempDir(), 'redmine-reads.sqlite');
  expect(cli(['load', join(root, 'bench', 'fidelity', 'redmine', 'capture.har'), '--db', db]).status).toBe(0);
  ctx = await openServeContext(db);
});
afterAll(async () => closeServeContext(ctx));

describe('readsShowing: the first read after a position that shows an entity', () => {
  it('index: firstReadAfter equals a search of every read in timeline order, for every issue and position', async () => {
    const type = (await servedTypes(ctx)).find((t) => t.collection.endsWith('issues'))!;
    const state = await servedLookups(ctx);
    // Every 2xx read under the root, in timeline order, with the ids it shows.
    const reads: { position: number; shown: Map<string, JsonValue> }[] = [];
    for (const t of ctx.manifest.tools) {
      if (t.method.toUpperCase() !== 'GET' || t.root_path !== type.root_path) continue;
      const plan = await state!.plan(t.name);
      if (plan?.kind !== 'item' && plan?.kind !== 'list') continue;
      for (const r of await toolRecords(ctx, t.name)) {
        if (r.status < 200 || r.status > 299 || (plan.kind === 'item' && r.query_pairs.length > 0)) continue;
        const shown = new Map<string, JsonValue>();
        for (const o of shownAt(plan, jsonValueOf(await readBody(ctx, r.response_body_id, r.response_media_type))) ?? [])
          if (isObject(o) && !shown.has(String(member(o, type.identity)))) shown.set(String(member(o, type.identity)), o);
        reads.push({ position: r.timeline_position, shown });
      }
    }
    reads.sort((a, b) => a.position - b.position);
    const ids = [...new Set(reads.flatMap((r) => [...r.shown.keys()]))];
    const several = ids.filter((id) => reads.filter((r) => r.shown.has(id)).length > 1);
    expect(several.length).toBeGreaterThan(0);
    const positions = [0, ...reads.map((r) => r.position)];
    for (const id of ids)
      for (const after of positions) {
        const expected = reads.find((r) => r.position > after && r.shown.has(id))?.shown.get(id);
        expect(
          await firstReadAfter(ctx, type.root_path, type.identity, id, after, Number.POSITIVE_INFINITY),
          `${id} after ${after}`,
        ).toEqual(expected);
      }
  });
});
