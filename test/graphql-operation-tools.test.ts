/**
 * Issue 48: each operation a GraphQL endpoint's capture recorded is an MCP tool of its own
 * (src/model/graphql/operations.ts), on the two GraphQL apps the fidelity benchmark recorded
 * from real servers in Chromium (bench/fidelity/graphql-yoga, apollo-server): its name from the
 * operation's, its arguments the operation's variables as the document declares them, hints by
 * its kind, and a call answered through the endpoint's own GraphQL path, the same answer and the
 * same declines as the request over HTTP. `capstate export openapi` leaves the endpoint out and
 * says so.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { environmentCard } from '../src/serve/catalog.js';
import { cli, root, tempDir } from './helpers.js';
import { servedFidelityApp } from './fidelity-served.js';
import { serveHar, serveStore } from './serve-helpers.js';
import { expectValidOpenApi } from './openapi-check.js';

const yoga = servedFidelityApp('graphql-yoga');
const apollo = servedFidelityApp('apollo-server');

/** What reader text must not carry (plain words, issue 19). */
const JARGON = /\b(ES|BS|OQ|IDN|DOC|DESC|ACC|MCP|GQL)-\d+|§\s?\d|\[#\d+|evidence ev_/;

const structured = (r: CallToolResult) => r.structuredContent as Record<string, unknown>;
const code = (r: CallToolResult) => structured(r).code;
const message = (r: CallToolResult) => String(structured(r).message);
const data = (r: CallToolResult) => (structured(r).body as { data: Record<string, unknown> }).data;

/** The recorded document of an operation, as the capture's latest request sent it. */
function recordedBody(app: string, operationName: string): { query: string; operationName: string } {
  const har = JSON.parse(readFileSync(join(root, 'bench', 'fidelity', app, 'capture.har'), 'utf8')) as {
    log: { entries: { request: { postData?: { text: string } } }[] };
  };
  const bodies = har.log.entries.flatMap((e) => (e.request.postData ? [JSON.parse(e.request.postData.text)] : []));
  return bodies.filter((b) => b.operationName === operationName).pop();
}

async function postGraphql(base: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

describe('issue 48: graphql-yoga, each recorded operation an MCP tool', () => {
  const names = () => yoga.mcp().catalog.environmentTools.map((t) => t.name);
  const tool = (name: string): Tool => yoga.mcp().tool(name);

  it('the catalog lists each operation right after its endpoint, named graphql_ and its name in snake_case', () => {
    expect(names()).toEqual([
      'post_graphql',
      'graphql_authors_list',
      'graphql_posts_page',
      'graphql_filtered_posts',
      'graphql_post',
      'graphql_author_with_posts',
      // The anonymous `{ post(id: "2") … }` by its root field.
      'graphql_query_post',
      'graphql_create_post',
      'graphql_update_post',
      'graphql_delete_post',
      'get_index_html',
    ]);
  });

  it("each inputSchema is the operation's variable definitions: ID a string or an integer, `!` without a default required, null where nullable, nothing else", () => {
    const props = (name: string) => tool(name).inputSchema.properties as Record<string, { type: unknown }>;
    expect(tool('graphql_post').inputSchema).toMatchObject({ type: 'object', required: ['id'], additionalProperties: false });
    expect(props('graphql_post')).toEqual({
      id: { type: ['string', 'integer'], description: expect.stringMatching(/^GraphQL type ID!; recorded "1", "4", "999"/) },
    });
    expect(tool('graphql_posts_page').inputSchema.required).toEqual(['first']);
    expect(props('graphql_posts_page').first.type).toBe('integer');
    expect(props('graphql_posts_page').after.type).toEqual(['string', 'null']);
    expect(tool('graphql_filtered_posts').inputSchema.required).toBeUndefined();
    expect(props('graphql_filtered_posts').authorId.type).toEqual(['string', 'integer', 'null']);
    expect(props('graphql_filtered_posts').published.type).toEqual(['boolean', 'null']);
    // An input object is an object, as the recorded values show; its members are named, not claimed.
    expect(tool('graphql_create_post').inputSchema.required).toEqual(['input']);
    expect(props('graphql_create_post').input).toEqual({
      type: 'object',
      description: 'GraphQL type CreatePostInput!; the capture gave it with authorId, body, published, title',
    });
    expect(tool('graphql_update_post').inputSchema.required).toEqual(['id', 'input']);
    expect(tool('graphql_query_post').inputSchema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
  });

  it('hints by kind: a query reads only, a mutation writes, and only the delete is destructive', () => {
    for (const q of ['graphql_authors_list', 'graphql_posts_page', 'graphql_post', 'graphql_query_post'])
      expect(tool(q).annotations, q).toEqual({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    for (const m of ['graphql_create_post', 'graphql_update_post'])
      expect(tool(m).annotations, m).toEqual({ readOnlyHint: false, idempotentHint: false, openWorldHint: false });
    expect(tool('graphql_delete_post').annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it('descriptions say in plain words what each operation reads or changes, and whether the capture checks a mutation', () => {
    const d = (name: string) => tool(name).description ?? '';
    expect(d('graphql_post')).toMatch(
      /^GraphQL query Post, sent to POST \/graphql; reads post \(one Post by its id\); answered from the model/,
    );
    expect(d('graphql_posts_page')).toMatch(/reads posts \(pages of Post, a connection with cursors\)/);
    expect(d('graphql_query_post')).toMatch(
      /^GraphQL query \(anonymous\), .*reads post \(one Post by its id, with id "2" fixed in the document\)/,
    );
    expect(d('graphql_create_post')).toMatch(
      /createPost creates a Post; the capture's later reads check this, so a call changes this session's entities/,
    );
    expect(d('graphql_delete_post')).toMatch(/deletePost deletes the Post its id names/);
    for (const t of yoga.mcp().catalog.environmentTools) expect(t.description, t.name).not.toMatch(JARGON);
  });

  it('the environment card lists them like the other tools, and the catalog charges them against its reserve', () => {
    const s = yoga.mcp();
    const card = environmentCard(s.ctx, s.catalog) as { tools: { name: string; inputSchema: unknown }[] };
    expect(card.tools.map((t) => t.name)).toEqual(names());
    expect(card.tools.find((t) => t.name === 'graphql_post')?.inputSchema).toEqual(tool('graphql_post').inputSchema);
    const bytes = s.catalog.tools.reduce((n, t) => n + Buffer.byteLength(JSON.stringify(t), 'utf8'), 0);
    expect(s.catalog.bytes).toBe(bytes);
  });

  it('an operation the catalog reserve cannot hold is left out, named, and refused as a tool not listed', async () => {
    const full = yoga.mcp().catalog;
    const upTo = full.tools.findIndex((t) => t.name === 'graphql_update_post');
    const reserve = full.tools.slice(0, upTo + 1).reduce((n, t) => n + Buffer.byteLength(JSON.stringify(t), 'utf8'), 0) + 10;
    const s = await serveStore(yoga.mcp().ctx.storeName, { reserveBytes: reserve });
    try {
      expect(s.catalog.leftOut).toEqual(['graphql_delete_post', 'get_index_html']);
      const r = await s.call('graphql_delete_post', { id: '5' });
      expect(code(r)).toBe('unknown-tool');
      expect(message(r)).toMatch(/left out of the catalog/);
    } finally {
      await s.close();
    }
  });

  it('graphql_post {id: "1"} answers the Post from the model (source state), as POST /graphql answers the same request over HTTP', async () => {
    const r = await yoga.mcp().call('graphql_post', { id: '1' });
    expect(r.isError).toBeFalsy();
    expect(structured(r)).toMatchObject({ status: 200, source: 'state', request_line: 'POST /graphql Post' });
    expect(data(r).post).toMatchObject({
      __typename: 'Post',
      id: '1',
      title: 'Hello, capstate',
      author: { id: '1', name: 'Alice Martin' },
    });
    const http = await postGraphql(yoga.base(), { ...recordedBody('graphql-yoga', 'Post'), variables: { id: '1' } });
    expect(http.status).toBe(200);
    expect(structured(r).body).toEqual(http.json);
  });

  it('graphql_post {id: 1}: an integer ID is the same Post; {id: "999"} is the app\'s null, as the capture answered it', async () => {
    expect(data(await yoga.mcp().call('graphql_post', { id: 1 })).post).toMatchObject({ id: '1', title: 'Hello, capstate' });
    const missing = await yoga.mcp().call('graphql_post', { id: '999' });
    expect(structured(missing)).toMatchObject({ status: 200, body: { data: { post: null } } });
  });

  it('graphql_post {id: "6"} is declined: the capture showed Post 6 only in a page, without the body the operation asks; HTTP declines it too', async () => {
    const r = await yoga.mcp().call('graphql_post', { id: '6' });
    expect(r.isError).toBe(true);
    expect(code(r)).toBe('no-convention');
    expect(message(r)).toMatch(/the model holds no body of Post:6/);
    const http = await postGraphql(yoga.base(), { ...recordedBody('graphql-yoga', 'Post'), variables: { id: '6' } });
    expect(http.status).toBe(501);
    expect(JSON.stringify(http.json.errors)).toMatch(/the model holds no body of Post:6/);
  });

  it('graphql_posts_page pages the Post connection from the model, past a cursor too', async () => {
    const first = data(await yoga.mcp().call('graphql_posts_page', { first: 3 })).posts as {
      edges: { node: { id: string } }[];
      pageInfo: { endCursor: string };
    };
    expect(first.edges.map((e) => e.node.id)).toEqual(['1', '2', '3']);
    const next = data(await yoga.mcp().call('graphql_posts_page', { first: 3, after: first.pageInfo.endCursor })).posts as typeof first;
    expect(next.edges.map((e) => e.node.id)).toEqual(['4', '5', '6']);
  });

  it('mutation tools change the session: a created Post is read back by graphql_post, a deleted one answers null, and reset_state undoes both', async () => {
    const s = yoga.mcp();
    await s.call('reset_state', {});
    try {
      const created = await s.call('graphql_create_post', {
        input: { title: 'Written by a tool', body: 'Over MCP.', authorId: '3', published: false },
      });
      expect(structured(created)).toMatchObject({ status: 200, source: 'state' });
      expect(data(created).createPost).toMatchObject({ id: '11', title: 'Written by a tool', author: { id: '3' } });
      expect(data(await s.call('graphql_post', { id: '11' })).post).toMatchObject({
        id: '11',
        title: 'Written by a tool',
        body: 'Over MCP.',
        author: { name: 'Carol Diaz' },
      });
      await s.call('graphql_update_post', { id: '1', input: { title: 'Renamed by a tool' } });
      expect(data(await s.call('graphql_post', { id: '1' })).post).toMatchObject({ title: 'Renamed by a tool' });
      expect(data(await s.call('graphql_delete_post', { id: '2' }))).toEqual({ deletePost: '2' });
      expect(structured(await s.call('graphql_query_post', {}))).toMatchObject({ status: 200, body: { data: { post: null } } });
      const page = data(await s.call('graphql_posts_page', { first: 3 })).posts as {
        totalCount: number;
        edges: { node: { id: string } }[];
      };
      expect(page.totalCount).toBe(10);
      expect(page.edges.map((e) => e.node.id)).toEqual(['1', '3', '4']);
    } finally {
      await s.call('reset_state', {});
    }
    expect(data(await s.call('graphql_post', { id: '1' })).post).toMatchObject({ title: 'Hello, capstate' });
  });

  it('bad arguments are refused before anything is sent: an unknown one, a missing required one, a wrong type', async () => {
    const s = yoga.mcp();
    const unknown = await s.call('graphql_post', { id: '1', title: 'x' });
    expect(code(unknown)).toBe('bad-arguments');
    expect(message(unknown)).toMatch(/graphql_post: unknown argument "title"; the operation's variables: id/);
    const missing = await s.call('graphql_post', {});
    expect(code(missing)).toBe('bad-arguments');
    expect(message(missing)).toMatch(/missing required argument "id"/);
    const wrong = await s.call('graphql_posts_page', { first: '3' });
    expect(code(wrong)).toBe('bad-arguments');
    expect(message(wrong)).toMatch(/first must be an integer, not a string/);
    const none = await s.call('graphql_query_post', { id: '2' });
    expect(code(none)).toBe('bad-arguments');
    expect(message(none)).toMatch(/the operation's variables: none/);
  });
});

describe('issue 48: apollo-server, integer ids and a boolean delete', () => {
  const tool = (name: string): Tool => apollo.mcp().tool(name);

  it('lists its operations with Int variables as integers, the anonymous query by its field, and the remove as the destructive one', () => {
    expect(apollo.mcp().catalog.environmentTools.map((t) => t.name)).toEqual([
      'post_graphql',
      'graphql_authors',
      'graphql_books',
      'graphql_filtered_books',
      'graphql_book',
      'graphql_query_book',
      'graphql_add_book',
      'graphql_update_book',
      'graphql_remove_book',
      'get_index_html',
    ]);
    expect(tool('graphql_book').inputSchema).toMatchObject({ properties: { id: { type: 'integer' } }, required: ['id'] });
    expect(tool('graphql_add_book').inputSchema.required).toEqual(['title', 'genre', 'year', 'authorId']);
    // `!` only on the id: the other fields of an update are the caller's to leave out.
    expect(tool('graphql_update_book').inputSchema.required).toEqual(['id']);
    expect(tool('graphql_remove_book').annotations?.destructiveHint).toBe(true);
    expect(tool('graphql_add_book').annotations?.destructiveHint).toBeUndefined();
  });

  it("graphql_book answers from the model; after graphql_remove_book, the app's not-found error as the capture showed it for another id", async () => {
    const s = apollo.mcp();
    await s.call('reset_state', {});
    try {
      expect(data(await s.call('graphql_book', { id: 4 })).book).toMatchObject({ id: 4, title: 'Invisible Cities' });
      expect(code(await s.call('graphql_book', { id: '4' }))).toBe('bad-arguments');
      const added = await s.call('graphql_add_book', { title: 'The Farthest Shore', genre: 'fantasy', year: 1972, authorId: 1 });
      expect(data(added).addBook).toMatchObject({ id: 11, title: 'The Farthest Shore', author: { name: 'Ursula K. Le Guin' } });
      expect(data(await s.call('graphql_book', { id: 11 })).book).toMatchObject({ title: 'The Farthest Shore', year: 1972 });
      expect(data(await s.call('graphql_remove_book', { id: 1 }))).toEqual({ removeBook: true });
      const gone = await s.call('graphql_book', { id: 1 });
      expect(structured(gone).body).toEqual({
        errors: [{ message: 'Book 1 not found', locations: [{ line: 2, column: 3 }], path: ['book'], extensions: { code: 'NOT_FOUND' } }],
        data: { book: null },
      });
    } finally {
      await s.call('reset_state', {});
    }
  });

  it('a filter value the capture never read is declined, as over HTTP', async () => {
    const r = await apollo.mcp().call('graphql_filtered_books', { genre: 'fiction' });
    expect(code(r)).toBe('no-convention');
    const http = await postGraphql(apollo.base(), { ...recordedBody('apollo-server', 'FilteredBooks'), variables: { genre: 'fiction' } });
    expect(http.status).toBe(501);
  });
});

describe('issue 48: names and arguments beyond the two apps', () => {
  const gql = (url: string, query: string, variables: Record<string, unknown>, data: unknown, operationName?: string) => ({
    method: 'POST',
    url,
    requestBody: { query, variables, ...(operationName ? { operationName } : {}) },
    body: { data },
  });
  const post = { __typename: 'Post', id: '1', title: 'A' };

  it('a name another tool has gets _2, _3 (across endpoints too); lists are arrays, a default is no requirement, an enum a string', async () => {
    const s = await serveHar(tempDir(), [
      gql('http://localhost:4000/graphql', 'query Post($id: ID!) { post(id: $id) { __typename id title } }', { id: '1' }, { post }, 'Post'),
      gql('http://localhost:4000/graphql', 'query post { posts { __typename id title } }', {}, { posts: [post] }, 'post'),
      gql(
        'http://localhost:4000/graphql',
        'query Search($ids: [ID!]!, $order: Order = ASC, $limit: Int = 10, $score: Float) { search(ids: $ids, order: $order, limit: $limit, score: $score) { __typename id title } }',
        { ids: ['1'], order: 'DESC', score: 0.5 },
        { search: [post] },
        'Search',
      ),
      // A document of two operations: the recorded operationName picks the one that runs, and so must the tool's call.
      gql(
        'http://localhost:4000/graphql',
        'query Unused { posts { __typename id } } query Pick { post(id: "1") { __typename id title } }',
        {},
        { post },
        'Pick',
      ),
      gql('http://localhost:4000/admin/graphql', 'query Post { post(id: "1") { __typename id title } }', {}, { post }, 'Post'),
    ]);
    try {
      const names = s.catalog.environmentTools.map((t) => t.name);
      // Manifest order (its templates sorted), each endpoint's operations in the order first sent.
      expect(names).toEqual([
        'post_admin_graphql',
        'graphql_post',
        'post_graphql',
        'graphql_post_2',
        'graphql_post_3',
        'graphql_search',
        'graphql_pick',
      ]);
      expect(s.tool('graphql_post_2').inputSchema.required).toEqual(['id']);
      const search = s.tool('graphql_search').inputSchema;
      expect(search.required).toEqual(['ids']);
      expect(search.properties).toMatchObject({
        ids: { type: 'array', items: { type: ['string', 'integer'] } },
        order: { type: ['string', 'null'], default: 'ASC', description: 'GraphQL type Order; recorded "DESC"; default "ASC"' },
        limit: { type: ['integer', 'null'], default: 10 },
        score: { type: ['number', 'null'] },
      });
      const bad = await s.call('graphql_search', { ids: [true] });
      expect(code(bad)).toBe('bad-arguments');
      expect(message(bad)).toMatch(/ids\[0\] must be a string or an integer, not a boolean/);
      expect(data(await s.call('graphql_pick', {}))).toEqual({ post });
      // Each tool sends its own endpoint's document: the admin one answers from its own records.
      const admin = await s.call('graphql_post', {});
      expect(structured(admin)).toMatchObject({ status: 200, request_line: 'POST /admin/graphql Post', body: { data: { post } } });
    } finally {
      await s.close();
    }
  });
});

describe('issue 48: exports leave a GraphQL endpoint out, and say so', () => {
  const dir = tempDir();
  const db = join(dir, 'yoga.sqlite');

  it('export openapi: no /graphql in paths, x-capstate-left-out names it and its operation tools, one stderr line, and the document validates', async () => {
    const loaded = cli(['load', join(root, 'bench', 'fidelity', 'graphql-yoga', 'capture.har'), '--db', db]);
    expect(loaded.status, loaded.stderr).toBe(0);
    const r = cli(['export', 'openapi', '--db', db]);
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { paths: Record<string, unknown>; 'x-capstate-left-out': unknown };
    expect(Object.keys(doc.paths)).toEqual(['/index.html']);
    expect(doc['x-capstate-left-out']).toEqual([
      {
        operation: 'POST /graphql',
        operationId: 'post_graphql',
        why: 'a GraphQL endpoint: its operations are MCP tools, see capstate serve',
        mcp_tools: expect.arrayContaining(['graphql_post', 'graphql_create_post']),
      },
    ]);
    expect(r.stderr).toMatch(/^capstate: openapi: 1 operation, 0 entity schemas, from capture 1$/m);
    expect(r.stderr).toMatch(
      /^capstate: left out: POST \/graphql \(a GraphQL endpoint: its operations are MCP tools, see capstate serve\)$/m,
    );
    await expectValidOpenApi(db, 'graphql-yoga');
  });

  it('export json-server: the GraphQL endpoint makes no key of db.json', () => {
    const r = cli(['export', 'json-server', '--db', db]);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({});
  });
});
