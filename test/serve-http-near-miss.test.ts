/**
 * Issue 46: a call the model declines names the nearest tool and what did not match (as
 * WireMock names the closest stub and what differed), in the 501 problem's message and in
 * its context (`nearest_tool`, `nearest_template`, `did_not_match`), for every decline code.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapstateError } from '../src/errors.js';
import type { ManifestTool } from '../src/manifest/read.js';
import { explainDecline, nearestLine, nearestRoute } from '../src/http/near-miss.js';
import { routesOf } from '../src/http/routes.js';
import { writeHar } from './har-builder.js';
import { root, tempDir } from './helpers.js';
import { METHOD_EXCHANGES, serveHttp } from './serve-helpers.js';

const dir = tempDir();
let base: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ base, close } = await serveHttp(join(root, 'bench/fidelity/json-server-0.17/capture.har'), join(dir, 'js.sqlite')));
});
afterAll(() => close());

interface Problem {
  status: number;
  code: string;
  message: string;
  context: { nearest_tool?: string; nearest_template?: string; did_not_match?: string };
}

async function declined(method: string, path: string, body?: unknown): Promise<Problem> {
  const r = await fetch(base + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(r.status, `${method} ${path}`).toBe(501);
  expect(r.headers.get('capstate-answer')).toBe('declined');
  return (await r.json()) as Problem;
}

describe('issue 46: a declined call names the nearest tool and what did not match', () => {
  it('no route, a misspelt segment: the tool with the right one, and the segment', async () => {
    const p = await declined('GET', '/post');
    expect(p.code).toBe('no-route');
    expect(p.context).toMatchObject({
      nearest_tool: 'get_posts',
      nearest_template: 'GET /posts',
      did_not_match: '"post" where the tool has "posts"',
    });
    expect(p.message).toContain('the nearest is get_posts (GET /posts): "post" where the tool has "posts"');
  });

  it('no route, a path longer than any template: the template it goes past', async () => {
    const p = await declined('GET', '/posts/1/comments/3');
    expect(p.context.nearest_tool).toBe('get_posts_by_id');
    expect(p.context.did_not_match).toBe('the path goes on past the template (/comments/3)');
  });

  it('a method the path does not have: the methods it has, the nearest a write like it (PATCH for PUT)', async () => {
    const p = await declined('PUT', '/posts/1', { title: 'x' });
    expect(p.code).toBe('no-convention');
    expect(p.context.nearest_tool).toBe('patch_posts_by_id');
    expect(p.context.did_not_match).toBe('the path matches, the method does not: the capture has DELETE, GET, PATCH /posts/{id}, no PUT');
  });

  it('a query key the capture never sent: its tool, and the key', async () => {
    const p = await declined('GET', '/users?zzz=1');
    expect(p.code).toBe('no-convention');
    expect(p.context).toMatchObject({ nearest_tool: 'get_users', nearest_template: 'GET /users' });
    expect(p.context.did_not_match).toMatch(/^the query key zzz: the capture never sent it/);
  });

  it('a path like nothing the capture has: the tools it has, and where to list them', async () => {
    const p = await declined('GET', '/zzz');
    expect(p.context.nearest_tool).toBeUndefined();
    expect(p.message).toMatch(
      /no tool's path is like it \(the capture's tools answer GET \/[a-z.]+, .*, … 6 more; capstate manifest lists them\)/,
    );
  });

  it('no record of a line: the nearest recorded line and how its query differs', () => {
    const e = new CapstateError('no-record', 'get_posts: no retained record answers GET /posts?_page=9&_limit=3', {
      tool: 'get_posts',
      request_line: 'GET /posts?_page=9&_limit=3',
      recorded_request_lines: ['GET /posts', 'GET /posts?userId=2', 'GET /posts?_page=1&_limit=3'],
    });
    const out = explainDecline(e, [], 'GET', '/posts') as CapstateError;
    expect(out.context).toMatchObject({
      nearest_tool: 'get_posts',
      nearest_request_line: 'GET /posts?_page=1&_limit=3',
      did_not_match: '_page=9 where it has _page=1',
    });
    expect(out.message).toContain('the nearest recorded line is GET /posts?_page=1&_limit=3: _page=9 where it has _page=1');
    expect(nearestLine('GET /posts?q=a', ['GET /posts?userId=2'])?.differs).toBe('q is not in it; it has userId=2');
  });

  it('a path no record has: the nearest line names the path that differs, not the request body', () => {
    const near = nearestLine('GET /projects/2.json', ['GET /projects/1.json', 'GET /projects.json?limit=2']);
    expect(near).toEqual({ line: 'GET /projects/1.json', differs: '/projects/2.json where it has /projects/1.json' });
    // The same path wins over a line with more of the query in common.
    expect(nearestLine('GET /issues/3.json?include=journals', ['GET /issues.json?include=journals', 'GET /issues/3.json'])?.line).toBe(
      'GET /issues/3.json',
    );
    expect(nearestLine('POST /search', ['POST /search'])?.differs).toBe('the request body');
  });

  it('a query POST with a body no record has, over HTTP: its tool, the nearest line, and that the body differs', async () => {
    const served = await serveHttp(writeHar(dir, 'methods.har', METHOD_EXCHANGES), join(dir, 'methods.sqlite'));
    try {
      const r = await fetch(`${served.base}/api/v1/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"q":"zzz"}',
      });
      expect(r.status).toBe(501);
      const p = (await r.json()) as Problem & { context: { nearest_request_line?: string } };
      expect(p.code).toBe('no-record');
      expect(p.context).toMatchObject({
        nearest_tool: expect.stringMatching(/search/),
        nearest_request_line: 'POST /api/v1/search',
        did_not_match: 'the request body',
      });
    } finally {
      await served.close();
    }
  });

  it('a matched tool whose records do not answer now (stale-record): that tool, and why', () => {
    const e = new CapstateError('stale-record', 'get_comments: …', { tool: 'get_comments', request_line: 'GET /comments?postId=2' });
    const out = explainDecline(e, [], 'GET', '/comments') as CapstateError;
    expect(out.context).toMatchObject({
      nearest_tool: 'get_comments',
      did_not_match: "no record of it was made after writes like this session's",
    });
  });

  it('the nearest route weighs segments over methods, and a misspelling by its likeness', () => {
    const tool = (method: string, template: string) => ({ name: `${method.toLowerCase()}${template}`, method, template }) as ManifestTool;
    const routes = routesOf([tool('GET', '/api/users'), tool('GET', '/api/users/{id}'), tool('POST', '/api/orders')]);
    expect(nearestRoute(routes, 'POST', '/api/user/7')?.template).toBe('GET /api/users/{id}');
    expect(nearestRoute(routes, 'GET', '/api/order')?.differs).toBe('"order" where the tool has "orders"; the method is POST, not GET');
    expect(nearestRoute(routes, 'GET', '/other')).toBeUndefined();
  });
});
