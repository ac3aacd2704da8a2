/**
 * What a create reads of its collection, kept by the served model as writes change it (issue
 * 49: reading it off the whole collection on each create made a long session's write check
 * quadratic): the integer ids' top under an identity member (ids.ts allocates the next) and
 * the largest state order (a created entity's place). Whatever the writes — creates, updates
 * that change the identity member, removes of the top, ids that are not integers — the kept
 * figures are the ones the collection as served gives.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../src/json/exact.js';
import type { StateEntity } from '../src/model/plan/types.js';
import type { ServeContext } from '../src/model/served/context.js';
import { isInt } from '../src/model/served/ids.js';
import { ServedModel } from '../src/model/served/model.js';

const entity = (id: string, value: JsonValue, state_order?: number) => ({
  collection: 'items',
  id,
  value,
  view_values: {},
  record_ordinals: [],
  ...(state_order === undefined ? {} : { state_order }),
});

/** A model serving `entities` of the collection `items` (a state given as load_state gives it). */
function modelOf(entities: StateEntity[]): ServedModel {
  const model = new ServedModel({ captureId: 1 } as ServeContext);
  model.load({ kind: 'served-state', capture_id: 1, entities, documents: [] });
  return model;
}

/** The figures read off the collection as served, the way allocation read them before they were kept. */
async function recounted(model: ServedModel, identity: string) {
  const list = await model.collection('items');
  const ids = list.map((e) => (e.value as Record<string, JsonValue>)[identity]).filter((v) => v !== undefined);
  return {
    ids: { allInt: ids.every(isInt), top: ids.filter(isInt).reduce<number | bigint>((m, v) => (v > m ? v : m), 0) },
    maxOrder: list.reduce((m, e) => Math.max(m, e.state_order), -1),
  };
}

const idValue: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.integer({ min: 0, max: 40 }),
  fc.constantFrom(2n ** 60n, 7n),
  fc.constantFrom('a-1', 'x'),
);
const op = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), id: idValue }),
  fc.record({ kind: fc.constant('update' as const), at: fc.nat(), id: fc.option(idValue) }),
  fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('ask' as const) }),
);

describe('issue 49: the served model keeps what a create reads of its collection', () => {
  it('the integer ids top and the largest state order stay those of the collection as served, whatever the writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(idValue, { maxLength: 6 }), fc.array(op, { maxLength: 30 }), async (start, ops) => {
        const model = modelOf(start.map((v, i) => ({ ...entity(`s${i}`, { id: v, n: i }), state_order: i })) as StateEntity[]);
        let made = 0;
        for (const o of ops) {
          const listed = await model.collection('items');
          if (o.kind === 'create') {
            const want = (await recounted(model, 'id')).maxOrder + 1;
            const e = await model.put(entity(`c${made++}`, { id: o.id }));
            expect(e.state_order).toBe(want);
          } else if (o.kind === 'update' && listed.length) {
            const e = listed[o.at % listed.length];
            // The identity member changed, dropped (null: the member left out) or kept.
            const value: JsonValue = o.id === null ? { n: 'no id' } : { id: o.id, n: 'changed' };
            await model.put({ ...entity(e.id, value), state_order: e.state_order });
          } else if (o.kind === 'remove' && listed.length) {
            model.remove('items', listed[o.at % listed.length].id);
          }
          const now = await recounted(model, 'id');
          expect(await model.intIds('items', 'id')).toEqual(now.ids);
          // Another identity member than the one asked before is counted on its own.
          expect(await model.intIds('items', 'n')).toEqual((await recounted(model, 'n')).ids);
        }
      }),
      { numRuns: 300, seed: 20261207 },
    );
  });
});
