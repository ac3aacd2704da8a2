/**
 * Serving's look-ups into one capture's stored state (issue 14): the plan of a tool, a
 * document, an entity, a collection in state order, decoded from the state_* rows by the
 * one decoder of each (stored.ts), with a bounded cache of decoded collections.
 */
import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../../store/types.js';
import { documentOf, entityOf, planOf, storedStateOf, typeOf } from './stored.js';
import type { Plan, StateDocument, StateEntity, StateType } from './types.js';

type Row<T extends keyof DB> = Selectable<DB[T]>;

/**
 * Indexed lookups into one capture's stored state, for serving (issue 14): a call reads the
 * plan of its tool and the entities it renders, never the whole state. Plans and documents
 * are decoded once per tool; entities are read per call (SQLite's page cache keeps the hot ones).
 */
export interface StoredLookups {
  plan(tool: string): Promise<Plan | undefined>;
  document(tool: string): Promise<StateDocument | undefined>;
  entity(collection: string, id: string): Promise<StateEntity | undefined>;
  /** The collection's entities in state order (ES-34). */
  collection(collection: string): Promise<StateEntity[]>;
  /** The state's types, in the view's order. */
  types(): Promise<StateType[]>;
  /** Per record: initial read, bound and list pointer, as the final views said when the state was computed. */
  records(): Promise<Row<'state_records'>[]>;
}

/** Lookups into capture `captureId`'s stored state; throws as `readStoredState` does when it is failed or stale. */
export async function storedLookups(k: Kysely<DB>, captureId: number, file: string): Promise<StoredLookups> {
  await storedStateOf(k, captureId, file);
  const plans = new Map<string, Promise<Plan | undefined>>();
  const documents = new Map<string, Promise<StateDocument | undefined>>();
  const collections = new BoundedCache<StateEntity[]>(COLLECTION_CACHE_CHARS);
  const entities = new BoundedCache<StateEntity | undefined>(ENTITY_CACHE_CHARS);
  const once = <T>(cache: Map<string, Promise<T>>, key: string, read: () => Promise<T>) => {
    let hit = cache.get(key);
    if (!hit) cache.set(key, (hit = read()));
    return hit;
  };
  return {
    plan: (tool) =>
      once(plans, tool, async () => {
        const r = await k
          .selectFrom('state_plans')
          .selectAll()
          .where('capture_id', '=', captureId)
          .where('tool', '=', tool)
          .executeTakeFirst();
        return r && planOf(r);
      }),
    document: (tool) =>
      once(documents, tool, async () => {
        const r = await k
          .selectFrom('state_documents')
          .selectAll()
          .where('capture_id', '=', captureId)
          .where('tool', '=', tool)
          .executeTakeFirst();
        return r && documentOf(r);
      }),
    entity: (collection, id) =>
      entities.read(`${collection}\u0000${id}`, async () => {
        const r = await k
          .selectFrom('state_entities')
          .selectAll()
          .where('capture_id', '=', captureId)
          .where('collection', '=', collection)
          .where('entity_key', '=', id)
          .executeTakeFirst();
        // A miss is kept too (a session asks for ids nobody has), at the size of its key.
        if (!r) return { value: undefined, chars: collection.length + id.length + 16 };
        return { value: Object.freeze(entityOf(r)), chars: r.value.length + r.view_values.length };
      }),
    records: () => k.selectFrom('state_records').selectAll().where('capture_id', '=', captureId).execute(),
    types: async () =>
      (await k.selectFrom('state_types').selectAll().where('capture_id', '=', captureId).orderBy('position').execute()).map(typeOf),
    collection: (collection) =>
      collections.read(collection, async () => {
        const rows = await k
          .selectFrom('state_entities')
          .selectAll()
          .where('capture_id', '=', captureId)
          .where('collection', '=', collection)
          .orderBy('state_order')
          .orderBy('position')
          .execute();
        let chars = 0;
        for (const r of rows) chars += r.value.length + r.view_values.length;
        return { value: Object.freeze(rows.map((r) => Object.freeze(entityOf(r)))) as StateEntity[], chars };
      }),
  };
}

/**
 * Decoded collections kept, up to this many characters of stored JSON in all: a write
 * check (and a served session) reads a type's whole collection on every create to choose
 * the next id and the defaults, and decoding it again each time was a tenth of the state
 * pass at 1 GB (18 of 183 s). The stored state does not change under a lookups object;
 * each array and its entities are frozen so that no caller can add, drop or replace what the
 * next one reads (the JSON values inside are shared: writers build new ones, as `put` does).
 */
const COLLECTION_CACHE_CHARS = 8 * 1024 * 1024;

/**
 * Entities looked up one by one, kept up to this many characters: a write check looks up the
 * entity of every write it replays (r200: 50,378 look-ups of a few hundred entities).
 */
const ENTITY_CACHE_CHARS = 256 * 1024;

/** Values read once and kept while their sizes fit the budget; the oldest go first. */
export class BoundedCache<T> {
  private readonly held = new Map<string, { value: Promise<T>; chars: number }>();
  private chars = 0;

  constructor(private readonly budget: number) {}

  read(key: string, load: () => Promise<{ value: T; chars: number }>): Promise<T> {
    const hit = this.held.get(key);
    if (hit) return hit.value;
    const entry = {
      value: load().then((r) => {
        this.keep(key, entry, r.chars);
        return r.value;
      }),
      chars: 0,
    };
    entry.value.catch(() => {
      if (this.held.get(key) === entry) this.held.delete(key);
    });
    this.held.set(key, entry);
    return entry.value;
  }

  /** Characters held now (for tests). */
  get size(): number {
    return this.chars;
  }

  private keep(key: string, entry: { chars: number }, chars: number): void {
    if (this.held.get(key) !== entry) return;
    if (chars > this.budget) {
      this.held.delete(key);
      return;
    } // read again each time: never held whole
    entry.chars = chars;
    this.chars += chars;
    for (const [k, e] of this.held) {
      if (this.chars <= this.budget) break;
      if (k === key) continue;
      this.held.delete(k);
      this.chars -= e.chars;
    }
  }
}
