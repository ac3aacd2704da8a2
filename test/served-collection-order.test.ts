/**
 * A session's collection (ServedModel.collection) is kept up to date write by write instead of
 * merged anew after each (issue 49: a long single-app session's write check was quadratic). The
 * kept list must always be the one a fresh merge of the same writes gives (ES-34's state order).
 */
import { describe, expect, it } from 'vitest';
import { ServedModel } from '../src/model/served/model.js';
import { servedLookups } from '../src/model/served/model.js';
import type { StateEntity } from '../src/model/plan/types.js';
import { tempDir } from './helpers.js';
import { serveHar } from './serve-helpers.js';

const dir = tempDir();

/** The collection as this model keeps it and as a fresh model merges the same writes: the ids, in order. */
async function bothOrders(model: ServedModel, collection: string): Promise<[string[], string[]]> {
  const kept = (await model.collection(collection)).map((e) => e.id);
  const fresh = new ServedModel(model.ctx);
  fresh.restore(model.writtenEntities());
  return [kept, (await fresh.collection(collection)).map((e) => e.id)];
}

/** Runs each step with the kept list read before it (so the step edits it rather than merging anew), then compares it with a fresh merge. */
async function eachStepAsMerged(model: ServedModel, collection: string, steps: [string, () => Promise<unknown> | void][]): Promise<void> {
  for (const [what, step] of steps) {
    await model.collection(collection);
    await step();
    const [kept, fresh] = await bothOrders(model, collection);
    expect(kept, what).toEqual(fresh);
  }
}

async function served(ids: number[]) {
  const s = await serveHar(dir, [{ url: 'http://localhost:3000/api/notes', body: ids.map((id) => ({ id, title: `n${id}` })) }]);
  const types = (await (await servedLookups(s.ctx))!.types()).map((t) => t.collection);
  expect(types).toHaveLength(1);
  return { ctx: s.ctx, collection: types[0] };
}

const entity = (collection: string, id: number, state_order?: number): Omit<StateEntity, 'state_order'> & { state_order?: number } =>
  ({ collection, id: String(id), value: { id, title: `w${id}` }, ...(state_order === undefined ? {} : { state_order }) }) as never;

describe('issue 49: a collection kept write by write is the one merged anew', () => {
  it('creates last, updates in place, removes, and a removed stored entity written again in its stored place', async () => {
    const { ctx, collection } = await served([1, 2, 3]);
    const model = new ServedModel(ctx);
    const steps: [string, () => Promise<unknown> | void][] = [
      ['create 4', () => model.put(entity(collection, 4))],
      ['create 5', () => model.put(entity(collection, 5))],
      ['update 2', () => model.put(entity(collection, 2))],
      ['update 5', () => model.put(entity(collection, 5))],
      ['remove 4', () => model.remove(collection, '4')],
      ['remove 1', () => model.remove(collection, '1')],
      ['write 1 again', () => model.put(entity(collection, 1))],
      ['create 6', () => model.put(entity(collection, 6))],
    ];
    await eachStepAsMerged(model, collection, steps);
    expect((await model.collection(collection)).map((e) => e.id)).toEqual(['1', '2', '3', '5', '6']);
  });

  it('newest first: a create ordered before the stored first comes first, one ordered among them is merged anew', async () => {
    const { ctx, collection } = await served([30, 20, 10]);
    const model = new ServedModel(ctx);
    const orders = (await model.collection(collection)).map((e) => e.state_order);
    const steps: [string, () => Promise<unknown>][] = [
      ['create 40 first', () => model.put(entity(collection, 40, Math.min(...orders) - 1))],
      ['create 50 first', () => model.put(entity(collection, 50, Math.min(...orders) - 2))],
      ['create 45 between', () => model.put(entity(collection, 45, Math.min(...orders) - 1.5))],
      ['create 5 last', () => model.put(entity(collection, 5))],
    ];
    await eachStepAsMerged(model, collection, steps);
    expect((await model.collection(collection)).map((e) => e.id)).toEqual(['50', '45', '40', '30', '20', '10', '5']);
  });
});
