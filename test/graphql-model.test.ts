/**
 * Issue 48: a GraphQL endpoint answered from a model of its entities, on captures of two real
 * servers recorded in Debian's Chromium (bench/fidelity/graphql-yoga: Relay connections, string
 * ids; bench/fidelity/apollo-server: plain lists, Int ids, NOT_FOUND errors). Each behaviour is
 * checked against what those apps answered; what the capture cannot tell is declined.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapstateError } from '../src/errors.js';
import { answerCall } from '../src/model/served/call.js';
import { closeServeContext, openServeContext, type ServeContext } from '../src/model/served/context.js';
import { ServedModel } from '../src/model/served/model.js';
import { graphqlModel } from '../src/model/graphql/model.js';
import { passes } from '../src/model/graphql/session.js';
import { verifyMutations } from '../src/model/graphql/verify.js';
import type { Learned } from '../src/model/graphql/learn.js';
import { cli, root, tempDir, whileServedOverHttp } from './helpers.js';

const YOGA = join(root, 'bench/fidelity/graphql-yoga/capture.har');
const APOLLO = join(root, 'bench/fidelity/apollo-server/capture.har');

let yoga: ServeContext;
let apollo: ServeContext;

beforeAll(async () => {
  const dir = tempDir();
  for (const [har, db] of [
    [YOGA, join(dir, 'yoga.sqlite')],
    [APOLLO, join(dir, 'apollo.sqlite')],
  ]) {
    const r = cli(['load', har, '-d', db, '-q']);
    expect(r.status, r.stderr).toBe(0);
  }
  yoga = await openServeContext(join(dir, 'yoga.sqlite'));
  apollo = await openServeContext(join(dir, 'apollo.sqlite'));
}, 120_000);

afterAll(async () => {
  await closeServeContext(yoga);
  await closeServeContext(apollo);
});

type Body = { query: string; variables?: Record<string, unknown>; operationName?: string };

/** Sends each body in order on one session; returns each answer or the decline. */
async function session(ctx: ServeContext, ...bodies: Body[]) {
  const model = new ServedModel(ctx);
  const out: { status?: number; source?: string; value?: unknown; declined?: CapstateError }[] = [];
  for (const body of bodies) {
    try {
      const a = await answerCall(ctx, 'post_graphql', { body }, model);
      out.push({ status: a.status, source: a.source, value: a.body.value });
    } catch (e) {
      if (!(e instanceof CapstateError)) throw e;
      out.push({ declined: e });
    }
  }
  return out;
}

/** The capture's own requests of an operation, in order. */
async function recorded(ctx: ServeContext, name: string): Promise<{ body: Body; answer: unknown }[]> {
  const l = await graphqlModel(ctx, ctx.tools.get('post_graphql')!);
  return l.records
    .filter((r) => r.req.stableName === name)
    .map((r) => ({ body: { query: r.req.query, variables: r.req.variables, operationName: r.req.name ?? undefined }, answer: r.answer }));
}

describe('issue 48: GraphQL reads from the model', () => {
  it('GQL-2 an entity shown by several operations answers a selection none of them made, from state', async () => {
    const [a] = await session(yoga, { query: '{ post(id: "6") { id title views published author { name } } }' });
    expect(a).toMatchObject({ status: 200, source: 'state' });
    expect(a.value).toEqual({
      data: { post: { id: '6', title: 'Notes on replay', views: 3, published: false, author: { name: 'Carol Diaz' } } },
    });
  });

  it('GQL-2 a field no answer showed is declined, never guessed', async () => {
    const [a] = await session(yoga, { query: '{ post(id: "6") { id body } }' });
    expect(a.declined?.code).toBe('no-convention');
    expect(a.declined?.context).toMatchObject({ graphql: true, field: 'post' });
    expect(a.declined?.message).toContain('no body of Post:6');
  });

  it("GQL-3 the initial entities are exactly the apps' seeds, for every field and reference the capture showed", async () => {
    for (const [ctx, app] of [
      [yoga, 'graphql-yoga'],
      [apollo, 'apollo-server'],
    ] as const) {
      const seed = JSON.parse(readFileSync(join(root, 'bench/fidelity', app, 'seed.json'), 'utf8')) as Record<
        string,
        Record<string, unknown>[]
      >;
      const l = await graphqlModel(ctx, ctx.tools.get('post_graphql')!);
      let checked = 0;
      for (const e of l.initial.values()) {
        const row = seed[`${e.typename.toLowerCase()}s`].find((r) => String(r.id) === e.id);
        expect(row, `${app} ${e.typename} ${e.id}`).toBeDefined();
        for (const [field, value] of Object.entries(e.fields)) {
          if (field === '__typename' || field.includes('(')) continue;
          if (value && typeof value === 'object' && '__ref' in value)
            expect(`${field}:${String(row![`${field}Id`])}`).toBe(`${field}:${String(value.__ref).split(':')[1]}`);
          else expect(value, `${app} ${e.typename} ${e.id} ${field}`).toEqual(row![field]);
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(40);
    }
  });

  it('GQL-3 the initial entities are those before the first mutation of their type', async () => {
    // The capture renamed post 3 later ("Offline models, revised"); a fresh session starts before that.
    const [a] = await session(yoga, { query: '{ post(id: "3") { title } }' });
    expect(a.value).toEqual({ data: { post: { title: 'Draft: offline models' } } });
  });

  it("GQL-4 an unknown id answers the app's not-found shape, naming this id at this request's location", async () => {
    const [removed, read] = await session(
      apollo,
      { query: 'mutation R($id: Int!) { removeBook(id: $id) }', variables: { id: 6 }, operationName: 'R' },
      { query: 'query B($id: Int!) {\n  book(id: $id) { id title }\n}', variables: { id: 6 }, operationName: 'B' },
    );
    expect(removed.value).toEqual({ data: { removeBook: true } });
    expect(read.value).toEqual({
      errors: [{ message: 'Book 6 not found', locations: [{ line: 2, column: 3 }], path: ['book'], extensions: { code: 'NOT_FOUND' } }],
      data: { book: null },
    });
  });

  it("GQL-4 an item field the capture never asked for a missing id answers as the API's others did, when the type's list is whole", async () => {
    const [a] = await session(yoga, { query: '{ author(id: "42") { id name } }' });
    expect(a).toMatchObject({ status: 200, source: 'state', value: { data: { author: null } } });
  });

  it('GQL-4 an id the model cannot prove absent is declined (the capture read 6 of 10 posts)', async () => {
    const [a] = await session(yoga, { query: '{ post(id: "9") { id } }' });
    expect(a.declined?.code).toBe('no-convention');
  });

  it("GQL-6 a page past a cursor the capture never sent, with cursors in the app's scheme", async () => {
    const cursor = (n: number) => Buffer.from(`arrayconnection:${n}`).toString('base64');
    const [a] = await session(yoga, {
      query:
        'query P($after: String) { posts(first: 2, after: $after) { totalCount edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }',
      variables: { after: cursor(0) },
      operationName: 'P',
    });
    expect(a.value).toEqual({
      data: {
        posts: {
          totalCount: 10,
          edges: [
            { cursor: cursor(1), node: { id: '2' } },
            { cursor: cursor(2), node: { id: '3' } },
          ],
          pageInfo: { hasNextPage: true, endCursor: cursor(2) },
        },
      },
    });
  });

  it('GQL-6 a window of a plain list of unknown length, inside the first places the capture showed, answers from state; one past them is declined', async () => {
    // Apollo's capture pages books(limit: 4) at offsets 0 and 4 and never shows their count.
    const books = (limit: number, offset: number) => ({
      query: 'query W($limit: Int, $offset: Int) { books(limit: $limit, offset: $offset) { __typename id title } }',
      variables: { limit, offset },
      operationName: 'W',
    });
    // The app's own answers: books(limit: 4, offset: 0) selecting these fields, and book 5.
    const truth = (
      JSON.parse(readFileSync(join(root, 'bench/fidelity/apollo-server/truth.json'), 'utf8')) as {
        answers: { id: string; json: { data: { books?: unknown[]; book?: { __typename: string; id: number; title: string } } } }[];
      }
    ).answers;
    const first4 = truth.find((a) => a.id === 'selection-17')!.json.data.books!;
    const book5 = truth.find((a) => a.id === 'unread-item-01')!.json.data.book!;
    const [inside, across, past] = await session(apollo, books(3, 2), books(8, 0), books(2, 7));
    expect(inside.source).toBe('state');
    expect(inside.value).toEqual({
      data: { books: [...first4.slice(2), { __typename: book5.__typename, id: book5.id, title: book5.title }] },
    });
    expect((across.value as { data: { books: unknown[] } }).data.books).toHaveLength(8);
    expect(past.declined?.message).toContain('books');
  });

  it('GQL-6 a page reaching places the capture never showed is declined', async () => {
    const [a] = await session(yoga, { query: '{ posts(first: 8) { edges { node { id } } } }' });
    expect(a.declined?.message).toContain('posts');
  });

  it('GQL-7 a list filter reads the field of its name, or the reference an id argument names', () => {
    const post = { typename: 'Post', id: '4', fields: { published: true, views: 8, author: { __ref: 'Author:2' } } };
    expect(passes(post, 'published', true)).toBe(true);
    expect(passes(post, 'published', false)).toBe(false);
    expect(passes(post, 'authorId', '2')).toBe(true);
    expect(passes(post, 'authorId', 2)).toBe(true);
    expect(passes(post, 'authorId', '3')).toBe(false);
    // A field the entity does not show cannot be filtered on.
    expect(passes(post, 'genre', 'x')).toBeUndefined();
  });

  it('GQL-7 a filter over a list the capture did not read whole is declined', async () => {
    const [a] = await session(yoga, { query: '{ posts(authorId: "1") { edges { node { id } } } }' });
    expect(a.declined?.code).toBe('no-convention');
  });
});

describe('issue 48: GraphQL mutations', () => {
  it("GQL-5 the capture's mutations take effect: a create gets the app's next id, later reads show it, a delete removes", async () => {
    const mutations = (await recorded(yoga, 'CreatePost')).concat(await recorded(yoga, 'UpdatePost'), await recorded(yoga, 'DeletePost'));
    const answers = await session(
      yoga,
      ...mutations.map((m) => m.body),
      { query: '{ post(id: "11") { id title views author { name } } }' },
      { query: '{ post(id: "5") { id } }' },
      { query: '{ post(id: "3") { title body } }' },
      { query: 'mutation { createPost(input: {title: "t", body: "b", authorId: "1", published: false}) { id views author { id } } }' },
    );
    // Each of the capture's own mutations answers as the app did.
    mutations.forEach((m, i) => expect(answers[i].value).toEqual(m.answer));
    expect(answers[3].value).toEqual({
      data: { post: { id: '11', title: 'Written in the session', views: 0, author: { name: 'Bob Okafor' } } },
    });
    expect(answers[4].value).toEqual({ data: { post: null } });
    expect(answers[5].value).toEqual({ data: { post: { title: 'Offline models, revised', body: 'Not ready yet.' } } });
    // The next create counts on from the capture's: the app's default `views` as its create showed it.
    expect(answers[6]).toMatchObject({ source: 'state', value: { data: { createPost: { id: '12', views: 0, author: { id: '1' } } } } });
  });

  it('GQL-5 an update merges the given fields into the entity', async () => {
    const [u, r] = await session(
      apollo,
      { query: 'mutation { updateBook(id: 3, title: "K") { id title genre } }' },
      { query: '{ book(id: 3) { title genre year } }' },
    );
    expect(u.value).toEqual({ data: { updateBook: { id: 3, title: 'K', genre: 'science fiction' } } });
    expect(r.value).toEqual({ data: { book: { title: 'K', genre: 'science fiction', year: 1979 } } });
  });

  it('GQL-5 a create that leaves a field to the app the capture never showed it set is declined, and changes nothing', async () => {
    const [c, list] = await session(
      yoga,
      { query: 'mutation { createPost(input: {title: "t", body: "b", authorId: "1"}) { id published } }' },
      { query: '{ authors { id } }' },
    );
    expect(c.declined?.message).toContain('no published of Post:11');
    expect(list.value).toEqual({ data: { authors: [{ id: '1' }, { id: '2' }, { id: '3' }] } });
  });

  it("GQL-8 a mutation convention the capture's answers contradict is not applied", async () => {
    const l = await graphqlModel(yoga, yoga.tools.get('post_graphql')!);
    expect(l.mutations.get('createPost')?.verified).toBe(true);
    // The same records, but the app's answer to the create names another title than it was given.
    const tampered: Learned = {
      ...l,
      records: l.records.map((r) =>
        r.req.name === 'CreatePost'
          ? {
              ...r,
              answer: {
                data: { createPost: { ...(r.answer!.data as Record<string, Record<string, unknown>>).createPost, title: 'Other' } },
              } as never,
            }
          : r,
      ),
      mutations: new Map([...l.mutations].map(([k, c]) => [k, { ...c, verified: false, refuted: undefined }])),
    };
    const checked = verifyMutations(tampered);
    expect(checked.mutations.get('createPost')).toMatchObject({ verified: false, refuted: expect.stringContaining('differs') });
    expect(checked.mutations.get('deletePost')?.verified).toBe(true);
  });

  it('GQL-8 a mutation the model does not hold is declined, and the reads of its type decline after it', async () => {
    const [m, r] = await session(yoga, { query: 'mutation { publishPost(id: "2") { id } }' }, { query: '{ post(id: "2") { id title } }' });
    expect(m.declined?.code).toBe('no-convention');
    expect(r.declined?.message).toContain('changed Post by a mutation the model did not apply');
  });
});

describe('issue 48: replay and the wire', () => {
  it('GQL-9 a request the capture made before and after its mutations replays the record where the session stands', async () => {
    const filtered = await recorded(yoga, 'FilteredPosts');
    expect(filtered).toHaveLength(2);
    // Before any mutation the model answers it as recorded then (the root field's recorded value).
    const before = await session(yoga, filtered[0].body);
    expect(before[0]).toMatchObject({ value: filtered[0].answer });
    const mutations = (await recorded(yoga, 'CreatePost')).concat(await recorded(yoga, 'UpdatePost'), await recorded(yoga, 'DeletePost'));
    const after = await session(yoga, ...mutations.map((m) => m.body), filtered[1].body);
    expect(after[3]).toMatchObject({ source: 'replay', value: filtered[1].answer });
    expect(filtered[0].answer).not.toEqual(filtered[1].answer);
  });

  it('over HTTP a decline is a 501 with GraphQL errors, and a body that is not a GraphQL request is a 400', async () => {
    await whileServedOverHttp([YOGA, '-q'], async (base) => {
      const post = (body: string) => fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const declined = await post(JSON.stringify({ query: '{ post(id: "9") { id } }' }));
      expect(declined.status).toBe(501);
      expect(declined.headers.get('capstate-answer')).toBe('declined');
      const doc = (await declined.json()) as { errors: { message: string; extensions: { code: string } }[] };
      expect(doc.errors[0].extensions.code).toBe('CAPSTATE_DECLINED');
      expect(doc.errors[0].message).toMatch(/^capstate declined: /);
      const answered = await post(JSON.stringify({ query: '{ post(id: "2") { id title } }' }));
      expect(answered.status).toBe(200);
      expect(answered.headers.get('x-capstate-source')).toBe('state');
      expect(await answered.json()).toEqual({ data: { post: { id: '2', title: 'Recording sessions' } } });
      const bad = await post(JSON.stringify({ query: '{ post(id: ' }));
      expect(bad.status).toBe(400);
    });
  });
});
