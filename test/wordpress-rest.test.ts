/**
 * WordPress 6.1 (fixtures/wordpress-rest: Debian's wordpress, recorded in Chromium; truth the
 * app's own answers to reads the capture never sent, expected/truth.json). Each item tool was
 * read twice, so its Link habit (link-habit.ts) rests on two answers: posts send their own
 * permalink (`link`), users the API root. And the app's 404 for posts names posts, so a missing
 * user is declined rather than answered with it.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkRels } from '../bench/fidelity/compare.js';
import { fixture, tempDir } from './helpers.js';
import { serveHttp } from './serve-helpers.js';
import { readFileSync } from 'node:fs';

type Truth = { method: string; path: string; status: number; link: string | null; json: unknown };
const truth = (JSON.parse(readFileSync(fixture('wordpress-rest', 'expected', 'truth.json'), 'utf8')) as { answers: Truth[] }).answers;
const of = (path: string) => truth.find((t) => t.path === path)!;

let base = '';
let close: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ base, close } = await serveHttp(fixture('wordpress-rest', 'capture.har'), join(tempDir(), 'wordpress-rest.sqlite')));
});
afterAll(async () => close?.());

const get = async (path: string) => {
  const r = await fetch(base + path);
  return { status: r.status, json: (await r.json()) as unknown, h: (n: string) => r.headers.get(n) };
};

describe('WordPress 6.1 (fixtures/wordpress-rest): items the capture never read by id', () => {
  it.each(['/wp-json/wp/v2/posts/1', '/wp-json/wp/v2/posts/12', '/wp-json/wp/v2/users/1'])(
    "link habit: %s answers the app's body and Link from state",
    async (path) => {
      const r = await get(path);
      expect(r.h('capstate-answer')).toBe('state');
      expect(r.status).toBe(of(path).status);
      expect(r.json).toEqual(of(path).json);
      expect(linkRels(r.h('link'))).toEqual(linkRels(of(path).link));
    },
  );

  it("api not-found: /users/99 is declined, since the API's one recorded 404 names posts", async () => {
    const r = await get('/wp-json/wp/v2/users/99');
    expect(r.status).toBe(501);
    expect((r.json as { code: string }).code).toBe('no-convention');
    expect(of('/wp-json/wp/v2/users/99').status).toBe(404);
  });

  it('a post outside every list read whole is declined, not a made-up 404 (the list was read through a status filter)', async () => {
    const r = await get('/wp-json/wp/v2/posts/1000');
    expect(r.status).toBe(501);
    expect(r.h('capstate-answer')).toBe('declined');
  });
});
