/**
 * Issue 46, DOC-7: a read of the whole database (json-server's `/db`: an object whose members
 * are the API's other collections and documents) is no type of its own. The view
 * `database_documents` rows in and out, then a real json-server 0.17.4 capture
 * (fixtures/json-server-home: its home page reads `/db` and `/__rules`) and small HARs that
 * must stay as they were (an object of arrays whose names are no other tool's is a list).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { cli, fixture, tempDir } from './helpers.js';
import { writeHar, type Exchange } from './har-builder.js';
import { factStore } from './view-facts.js';

const dir = tempDir();
const A = 'http://app.test';
let n = 0;

interface State {
  types: { collection: string; root_path: string }[];
  documents: { tool: string; path: string }[];
  plans: { tool: string; kind: string; reason?: string; detail?: string }[];
}

function stateOf(exchanges: Exchange[]): State {
  const r = cli(['state', writeHar(dir, `db${n++}.har`, exchanges, { pageTitle: `${A}/` }), '--json']);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as State;
}

const posts = [
  { id: 1, title: 'a' },
  { id: 2, title: 'b' },
];
const comments = [
  { id: 1, postId: 1, body: 'x' },
  { id: 2, postId: 2, body: 'y' },
];

describe('DOC-7 database_documents, rows in and out', () => {
  it('names a parameterless GET whose answers hold only the other tools’ collections and documents, each in their shape', () => {
    const f = factStore(dir);
    const db = f.tool({ template: '/db', root: '/db' });
    const p = f.tool({ template: '/posts', root: '/posts' });
    const c = f.tool({ template: '/comments', root: '/comments' });
    const profile = f.tool({ template: '/profile', root: '/profile' });
    f.record({ tool: p, path: '/posts', body: posts });
    f.record({ tool: c, path: '/comments', body: comments });
    f.record({ tool: profile, path: '/profile', body: { name: 'town' } });
    f.record({ tool: db, path: '/db', body: { posts, comments, profile: { name: 'town' } } });
    expect(f.rows('select tool_id, root_path from database_documents')).toEqual([[db, '/db']]);
    expect(f.rows("select distinct lists_collection from read_records where tool = 'GET /db'")).toEqual([[0]]);
    expect(f.rows("select distinct lists_collection from read_records where tool = 'GET /posts'")).toEqual([[1]]);
  });

  it('under an API base: `/api/db` beside `/api/posts`', () => {
    const f = factStore(dir);
    const db = f.tool({ template: '/api/db', root: '/api/db' });
    const p = f.tool({ template: '/api/posts', root: '/api/posts' });
    f.record({ tool: p, path: '/api/posts', body: posts });
    f.record({ tool: db, path: '/api/db', body: { posts } });
    expect(f.rows('select tool_id from database_documents')).toEqual([[db]]);
  });

  it('names none when a member names no other tool, has another shape, or no member is an array of objects', () => {
    const f = factStore(dir);
    const p = f.tool({ template: '/posts', root: '/posts' });
    const profile = f.tool({ template: '/profile', root: '/profile' });
    f.record({ tool: p, path: '/posts', body: posts });
    f.record({ tool: profile, path: '/profile', body: { name: 'town' } });
    // A member no tool lists: a search answer or an envelope, not the database.
    const search = f.tool({ template: '/search', root: '/search' });
    f.record({ tool: search, path: '/search', body: { posts, users: [{ id: 1 }] } });
    // A member in another shape than its tool answers (`posts` as an object).
    const odd = f.tool({ template: '/odd', root: '/odd' });
    f.record({ tool: odd, path: '/odd', body: { posts: { id: 1 } } });
    // Only documents, no collection.
    const docs = f.tool({ template: '/docs', root: '/docs' });
    f.record({ tool: docs, path: '/docs', body: { profile: { name: 'town' } } });
    // A tool in another directory: `/admin/db` holds `posts`, but `/posts` is not beside it.
    const admin = f.tool({ template: '/admin/db', root: '/admin' });
    f.record({ tool: admin, path: '/admin/db', body: { posts } });
    expect(f.rows('select tool_id from database_documents')).toEqual([]);
  });

  it('names none when one successful answer is not such an object', () => {
    const f = factStore(dir);
    const db = f.tool({ template: '/db', root: '/db' });
    const p = f.tool({ template: '/posts', root: '/posts' });
    f.record({ tool: p, path: '/posts', body: posts });
    f.record({ tool: db, path: '/db', body: { posts } });
    f.record({ tool: db, path: '/db', body: posts });
    expect(f.rows('select tool_id from database_documents')).toEqual([]);
  });
});

describe('issue 46: json-server’s /db is no type', () => {
  it('a small HAR: /db reads as a document, /posts and /comments stay the types', () => {
    const s = stateOf([
      { url: `${A}/posts`, body: posts },
      { url: `${A}/comments`, body: comments },
      { url: `${A}/db`, body: { posts, comments } },
    ]);
    expect(s.types.map((t) => t.root_path).sort()).toEqual(['/comments', '/posts']);
    expect(s.documents.map((d) => d.path)).toEqual(['/db']);
  });

  it('an object of arrays whose names no other tool lists stays a list (`/feed` → `{"items": [...]}`)', () => {
    const s = stateOf([
      { url: `${A}/feed`, body: { items: posts } },
      { url: `${A}/posts`, body: posts },
    ]);
    expect(s.types.map((t) => t.root_path).sort()).toEqual(['/feed', '/posts']);
  });

  it('fixtures/json-server-home (a real json-server 0.17.4): no type db; /db changed across the POST, so it replays', () => {
    const expected = JSON.parse(readFileSync(fixture('json-server-home', 'expected', 'state.json'), 'utf8')) as State;
    const s = JSON.parse(cli(['state', fixture('json-server-home', 'capture.har'), '--json']).stdout) as State;
    expect(s).toEqual(expected);
    expect(s.types.map((t) => t.collection).sort()).toEqual(['comments', 'posts']);
    expect(s.plans.find((p) => p.tool === 'get_db')).toMatchObject({ kind: 'record', reason: 'fields-differ' });
    expect(s.plans.find((p) => p.tool === 'get_db')?.detail).toMatch(/changed between #5 and #12 across write #10/);
  });
});
