/**
 * Issue 47: `capstate export openapi` — OpenAPI 3.1 of the inferred API. On recorded apps it says
 * what the model learned: entity schemas shared by list and item answers, each query key's role,
 * the envelope around a list, the write effects check-effects verified. (That it is valid and
 * byte-stable on every fixture is checked in stored-state.test.ts, on the stores it loads.)
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCaptures } from '../src/ingest/load-captures.js';
import { captureOf, cli, root, tempDir } from './helpers.js';
import { openApiText } from './openapi-check.js';

type Doc = Record<string, any>;
const dir = tempDir();

/** Loads `file` into a store of its own and returns its export. */
async function exported(name: string, file: string): Promise<[string]> {
  const db = join(dir, `${name}.sqlite`);
  await loadCaptures({ db, files: [file], loadedAt: '2026-01-01T00:00:00.000Z' });
  return [await openApiText(db)];
}

describe('issue 47: capstate export openapi', () => {
  it('json-server: one entity schema for list and item, the roles of query keys, the verified write effects', async () => {
    const [text] = await exported('js017', join(root, 'bench', 'fidelity', 'json-server-0.17', 'capture.har'));
    const d = JSON.parse(text) as Doc;
    const posts = d.components.schemas.posts;
    expect(posts.properties.id).toEqual({ type: 'integer' });
    expect(posts.required).toEqual(expect.arrayContaining(['id', 'title', 'views']));
    expect(posts['x-capstate']).toMatchObject({ collection: 'posts', identity: 'id' });
    expect(d.paths['/posts'].get.responses['200'].content['application/json'].schema).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/posts' },
    });
    expect(d.paths['/posts/{id}'].get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/posts' });
    const roles = Object.fromEntries(
      (d.paths['/posts'].get.parameters as Doc[]).filter((p) => p.in === 'query').map((p) => [p.name, p['x-capstate-role']]),
    );
    expect(roles).toMatchObject({ userId: 'filter', _sort: 'sort', _order: 'sort', _page: 'page', _limit: 'page' });
    expect((d.paths['/posts/{id}'].get.parameters as Doc[]).find((p) => p.name === '_embed')?.['x-capstate-role']).toBe('embed');
    expect((d.paths['/posts/{id}'].get.parameters as Doc[]).find((p) => p.name === 'id')).toMatchObject({
      in: 'path',
      schema: { type: 'integer' },
    });
    expect(d.paths['/posts/{id}'].delete['x-capstate']).toMatchObject({ answers: 'state', write_effect: 'remove' });
  });

  it('Redmine: the list inside its envelope is the entity schema; the recorded 404 is the not-found answer of every item read', async () => {
    const [text] = await exported('redmine', join(root, 'bench', 'fidelity', 'redmine', 'capture.har'));
    const d = JSON.parse(text) as Doc;
    const list = d.paths['/issues.json'].get.responses['200'].content['application/json'].schema;
    expect(list.type).toBe('object');
    expect(list.properties.issues).toEqual({ type: 'array', items: { $ref: '#/components/schemas/issues' } });
    expect(list.properties.total_count).toEqual({ type: 'integer' });
    expect(d.components.schemas.issues.properties.created_on).toMatchObject({ type: 'string', format: 'date-time' });
    expect(Object.keys(d.paths['/issues/{id}.json'].get.responses)).toEqual(['200', '404']);
    // Projects were never read at an unknown id: their 404 is the API's, as issues answered it.
    expect(d.paths['/projects/{id}.json'].get.responses['404']['x-capstate']).toMatchObject({ convention: 'api-not-found' });
  });

  it('the CLI writes it to --out and says what it wrote', () => {
    const out = join(dir, 'openapi.json');
    const r = cli(['export', 'openapi', captureOf('json-server'), '-q', '--out', out]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/openapi: \d+ operations, 1 entity schemas?, from capture 1; wrote /);
  });
});
