/**
 * The fidelity benchmark's apollo-server app (apollo-server.ts starts it): @apollo/server 5 on
 * a node:http server through `executeHTTPGraphQLRequest` (what startStandaloneServer does,
 * without its CORS and body-parser), a plain schema of books and authors with Int ids, list
 * arguments `limit`/`offset`, scalar mutation arguments, and a NOT_FOUND error for an unknown
 * book. Run as `node apollo-server.server.js PORT SEED PAGE` (node-server.ts); state is the
 * seed in memory.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { ApolloServer, HeaderMap } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { typeDefs } from './apollo-server.js';
import { firstNewId, serverArgs, sessionPage } from './node-server.js';

interface Author {
  id: number;
  name: string;
}
interface Book {
  id: number;
  title: string;
  genre: string;
  year: number;
  authorId: number;
}

const notFound = (what: string) => new GraphQLError(`${what} not found`, { extensions: { code: 'NOT_FOUND' } });

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function main(): Promise<void> {
  const { port, seed, page } = serverArgs<{ authors: Author[]; books: Book[] }>();
  const { authors, books } = seed;
  let next = firstNewId(books);
  const resolvers = {
    Query: {
      book: (_: unknown, { id }: { id: number }) => {
        const b = books.find((x) => x.id === id);
        if (!b) throw notFound(`Book ${id}`);
        return b;
      },
      books: (_: unknown, a: { limit?: number | null; offset?: number | null; authorId?: number | null; genre?: string | null }) => {
        const rows = books.filter((b) => (a.authorId == null || b.authorId === a.authorId) && (a.genre == null || b.genre === a.genre));
        const from = Math.max(a.offset ?? 0, 0);
        return a.limit == null ? rows.slice(from) : rows.slice(from, from + Math.max(a.limit, 0));
      },
      authors: () => authors,
      bookCount: (_: unknown, { genre }: { genre?: string | null }) => books.filter((b) => genre == null || b.genre === genre).length,
    },
    Book: {
      author: (b: Book) => {
        const a = authors.find((x) => x.id === b.authorId);
        if (!a) throw notFound(`Author ${b.authorId}`);
        return a;
      },
    },
    Mutation: {
      addBook: (_: unknown, a: { title: string; genre: string; year: number; authorId: number }) => {
        if (!authors.some((x) => x.id === a.authorId)) throw notFound(`Author ${a.authorId}`);
        const b: Book = { id: next++, title: a.title, genre: a.genre, year: a.year, authorId: a.authorId };
        books.push(b);
        return b;
      },
      updateBook: (_: unknown, { id, ...fields }: { id: number; title?: string | null; genre?: string | null; year?: number | null }) => {
        const b = books.find((x) => x.id === id);
        if (!b) return null;
        // The arguments given, a null among them left as it was (Book's fields are non-null).
        for (const [k, v] of Object.entries(fields)) if (v !== null && v !== undefined) Object.assign(b, { [k]: v });
        return b;
      },
      removeBook: (_: unknown, { id }: { id: number }) => {
        const i = books.findIndex((x) => x.id === id);
        if (i < 0) return false;
        books.splice(i, 1);
        return true;
      },
    },
  };
  // No stack traces in errors, so the same request answers the same body every run.
  const server = new ApolloServer({ typeDefs, resolvers, includeStacktraceInErrorResponses: false });
  await server.start();
  createServer((req, res) => {
    if (sessionPage(req, res, page)) return;
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== '/graphql') {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not Found');
        return;
      }
      const headers = new HeaderMap();
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
      const text = await readBody(req);
      let body: unknown;
      if (/\bjson\b/i.test(headers.get('content-type') ?? '') && text !== '') {
        try {
          body = JSON.parse(text);
        } catch {
          // body-parser's answer to a body that is not JSON, as startStandaloneServer gives it.
          res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end('Bad Request');
          return;
        }
      }
      const answer = await server.executeHTTPGraphQLRequest({
        httpGraphQLRequest: { method: (req.method ?? 'GET').toUpperCase(), headers, search: url.search, body },
        context: async () => ({}),
      });
      for (const [k, v] of answer.headers) res.setHeader(k, v);
      res.statusCode = answer.status ?? 200;
      if (answer.body.kind === 'complete') {
        res.end(answer.body.string);
        return;
      }
      for await (const chunk of answer.body.asyncIterator) res.write(chunk);
      res.end();
    })().catch((e: Error) => {
      process.stderr.write(`${e.stack ?? e}\n`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  }).listen(port, '127.0.0.1');
}

main().catch((e: Error) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  process.exit(1);
});
