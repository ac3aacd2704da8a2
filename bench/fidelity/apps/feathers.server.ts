/**
 * The fidelity benchmark's Feathers app (feathers.ts starts it): Feathers 5 over Express, three
 * in-memory services as `feathers generate` lays them out — `users` and `messages` paginated
 * (`{total, limit, skip, data}`), `tags` not (plain arrays) — the query syntax Feathers adapters
 * share (`$limit`, `$skip`, `$sort[field]=1|-1`, `$select`, `$in`, `$gt`…, equality on any
 * field), PATCH merging, PUT replacing, DELETE answering the removed entity, and Feathers'
 * error documents (`{"name":"NotFound","message":…,"code":404,"className":"not-found"}`).
 *
 * As a generated app's query schema does, a `find` hook turns the query string's values into the
 * field's type (`userId=2` is the number 2, `read=true` the boolean): without it the memory
 * adapter compares the string "2" with 2 and finds nothing. A `create` hook on messages fills the
 * fields the server keeps (`read: false`, `likes: 0`). Run as `node feathers.server.js PORT SEED
 * PAGE` (node-server.ts); state is the seed in memory.
 */
import { createRequire } from 'node:module';
import { feathers, type HookContext } from '@feathersjs/feathers';
import { MemoryService } from '@feathersjs/memory';
import { firstNewId, serverArgs, sessionPage } from './node-server.js';

// @feathersjs/express is CommonJS with its app factory as `exports.default`, which an ES import
// of it names `default.default`; required, it reads as its own types say.
const {
  default: express,
  errorHandler,
  json,
  notFound,
  rest,
} = createRequire(import.meta.url)('@feathersjs/express') as typeof import('@feathersjs/express');

type Row = { id: number } & Record<string, unknown>;
interface Seed {
  users: Row[];
  messages: Row[];
  tags: Row[];
}

/** Each service's typed fields: what a generated app's query schema coerces the query string to. */
const FIELD_TYPES: Record<keyof Seed, Record<string, 'number' | 'boolean'>> = {
  users: { id: 'number' },
  messages: { id: 'number', userId: 'number', likes: 'number', read: 'boolean' },
  tags: { id: 'number' },
};

function coerce(value: unknown, type: 'number' | 'boolean' | undefined): unknown {
  if (type === undefined) return value;
  if (Array.isArray(value)) return value.map((v) => coerce(v, type));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([op, v]) => [op, coerce(v, type)]));
  if (typeof value !== 'string') return value;
  if (type === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  return value.trim() !== '' && !Number.isNaN(Number(value)) ? Number(value) : value;
}

function main(): void {
  const { port, seed, page } = serverArgs<Seed>();
  const app = express(feathers());
  app.use((req, res, next) => {
    if (!sessionPage(req, res, page)) next();
  });
  app.use(json());
  app.configure(rest());
  const store = (rows: Row[]) => Object.fromEntries(rows.map((r) => [r.id, { ...r }]));
  app.use('users', new MemoryService({ store: store(seed.users), startId: firstNewId(seed.users), paginate: { default: 10, max: 50 } }));
  app.use(
    'messages',
    new MemoryService({ store: store(seed.messages), startId: firstNewId(seed.messages), paginate: { default: 5, max: 20 } }),
  );
  app.use('tags', new MemoryService({ store: store(seed.tags), startId: firstNewId(seed.tags) }));
  for (const name of Object.keys(FIELD_TYPES) as (keyof Seed)[]) {
    app.service(name).hooks({
      before: {
        find: [
          async (context: HookContext) => {
            const query = { ...(context.params.query ?? {}) } as Record<string, unknown>;
            for (const [k, v] of Object.entries(query)) if (!k.startsWith('$')) query[k] = coerce(v, FIELD_TYPES[name][k]);
            context.params = { ...context.params, query };
          },
        ],
      },
    });
  }
  app.service('messages').hooks({
    before: {
      create: [
        async (context: HookContext) => {
          const data = context.data as Record<string, unknown>;
          context.data = { ...data, read: data.read ?? false, likes: data.likes ?? 0 };
        },
      ],
    },
  });
  app.use(notFound());
  app.use(errorHandler({ logger: false }));
  app.listen(port, '127.0.0.1');
}

main();
