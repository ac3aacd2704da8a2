/**
 * The fidelity benchmark's graphql-yoga app (graphql-yoga.ts starts it): graphql-yoga 5 over
 * node:http, a Relay-style schema of authors and posts with string ids, connections with
 * cursors as graphql-relay makes them, and input-object mutations. Run as
 * `node graphql-yoga.server.js PORT SEED PAGE` (node-server.ts); state is the seed in memory.
 */
import { createServer } from 'node:http';
import { GraphQLError } from 'graphql';
import { createSchema, createYoga } from 'graphql-yoga';
import { typeDefs } from './graphql-yoga.js';
import { firstNewId, serverArgs, sessionPage } from './node-server.js';

interface Author {
  id: string;
  name: string;
  email: string;
}
interface Post {
  id: string;
  title: string;
  body: string;
  published: boolean;
  views: number;
  authorId: string;
}

// graphql-relay's cursors: base64 of "arrayconnection:" and the index in the (filtered) list.
const PREFIX = 'arrayconnection:';
const toCursor = (i: number) => Buffer.from(PREFIX + i, 'utf8').toString('base64');
/** The index a cursor names, or `fallback` when it names none (graphql-relay's getOffsetWithDefault). */
function cursorOffset(cursor: string | null | undefined, fallback: number): number {
  if (typeof cursor !== 'string') return fallback;
  const n = parseInt(Buffer.from(cursor, 'base64').toString('utf8').substring(PREFIX.length), 10);
  return Number.isNaN(n) ? fallback : n;
}

/** graphql-relay's connectionFromArray with `first`/`after` only, plus the list's length. */
function connection(rows: Post[], args: { first?: number | null; after?: string | null }) {
  const { first, after } = args;
  if (typeof first === 'number' && first < 0) throw new GraphQLError('Argument "first" must be a non-negative integer');
  const start = Math.max(cursorOffset(after, -1) + 1, 0);
  let end = rows.length;
  if (typeof first === 'number') end = Math.min(end, start + first);
  const edges = rows.slice(start, Math.max(end, start)).map((node, i) => ({ cursor: toCursor(start + i), node }));
  return {
    edges,
    pageInfo: {
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
      // Without `last`, graphql-relay never says there is a previous page.
      hasPreviousPage: false,
      hasNextPage: typeof first === 'number' ? end < rows.length : false,
    },
    totalCount: rows.length,
  };
}

function main(): void {
  const { port, seed, page } = serverArgs<{ authors: Author[]; posts: Post[] }>();
  const { authors, posts } = seed;
  let next = firstNewId(posts);
  const byId = <T extends { id: string }>(rows: T[], id: string) => rows.find((r) => r.id === id) ?? null;
  const authorOf = (p: Post) => {
    const a = byId(authors, p.authorId);
    if (!a) throw new GraphQLError(`Post ${p.id} has no author`);
    return a;
  };
  const resolvers = {
    Query: {
      post: (_: unknown, a: { id: string }) => byId(posts, a.id),
      author: (_: unknown, a: { id: string }) => byId(authors, a.id),
      authors: () => authors,
      posts: (_: unknown, a: { first?: number | null; after?: string | null; authorId?: string | null; published?: boolean | null }) =>
        connection(
          posts.filter((p) => (a.authorId == null || p.authorId === a.authorId) && (a.published == null || p.published === a.published)),
          a,
        ),
    },
    Author: {
      posts: (au: Author, a: { first?: number | null; after?: string | null }) =>
        connection(
          posts.filter((p) => p.authorId === au.id),
          a,
        ),
    },
    Post: { author: authorOf },
    Mutation: {
      createPost: (_: unknown, { input }: { input: { title: string; body: string; authorId: string; published?: boolean | null } }) => {
        if (!byId(authors, input.authorId)) throw new GraphQLError(`No author with id ${input.authorId}`);
        const p: Post = {
          id: String(next++),
          title: input.title,
          body: input.body,
          published: input.published ?? false,
          views: 0,
          authorId: input.authorId,
        };
        posts.push(p);
        return p;
      },
      updatePost: (
        _: unknown,
        { id, input }: { id: string; input: Partial<Record<'title' | 'body' | 'published' | 'views', unknown>> },
      ) => {
        const p = byId(posts, id);
        if (!p) return null;
        // The fields given, a null among them left as it was (every field of Post is non-null).
        for (const [k, v] of Object.entries(input)) if (v !== null && v !== undefined) Object.assign(p, { [k]: v });
        return p;
      },
      deletePost: (_: unknown, { id }: { id: string }) => {
        const i = posts.findIndex((p) => p.id === id);
        if (i < 0) return null;
        posts.splice(i, 1);
        return id;
      },
    },
  };
  const yoga = createYoga({
    schema: createSchema({ typeDefs, resolvers }),
    graphqlEndpoint: '/graphql',
    graphiql: false,
    landingPage: false,
    logging: false,
  });
  createServer((req, res) => {
    if (!sessionPage(req, res, page)) void yoga(req, res);
  }).listen(port, '127.0.0.1');
}

main();
