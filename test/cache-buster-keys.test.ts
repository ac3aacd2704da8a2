/**
 * Issue 44 ("Query keys the tool never saw are refused"): a cache-buster — jQuery's `cache:
 * false` adds `_=<timestamp>`, others `_t=`, `nocache=` — is a key the apps measured ignore
 * (json-server 0.17 and 1.0, Alertmanager, Redmine answer `?_=1712` exactly as without it). A
 * read naming one that no learned convention explains, with a whole-number or empty value, is
 * answered as the call without it and says so (`convention: ignored-key`); any other unseen key,
 * or a cache-buster with another value, is still declined. On the fidelity benchmark's captures
 * (bench/fidelity/, recorded from the real apps in Debian's Chromium).
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapstateError } from '../src/errors.js';
import { answerCall } from '../src/model/served/call.js';
import { ServedModel } from '../src/model/served/model.js';
import { openStore, kyselyFor } from '../src/store/open.js';
import { readVocabulary } from '../src/store/vocabulary.js';
import { serveCaptureVariant, servedFidelityApp } from './fidelity-served.js';
import { root, tempDir } from './helpers.js';
import { serveHar, serveHttp, serveStoreHttp, type Served } from './serve-helpers.js';

const dir = tempDir();

/** A list whose entities carry a `_t` member, and a search read only ever asked `q=a`. */
const NOTES = [
  {
    url: 'http://localhost:3000/api/notes',
    body: [
      { id: 'n-1', _t: 5, title: 'a' },
      { id: 'n-2', _t: 6, title: 'b' },
    ],
  },
  { url: 'http://localhost:3000/api/search?q=a', body: { hits: [] } },
];
const app = (name: string) => join(root, 'bench', 'fidelity', name, 'capture.har');

/** An HTTP answer as a test compares it: what a client sees of the app, and capstate's provenance. */
async function answer(base: string, path: string) {
  const r = await fetch(base + path);
  return {
    seen: {
      status: r.status,
      body: await r.text(),
      type: r.headers.get('content-type'),
      total: r.headers.get('x-total-count'),
      link: r.headers.get('link'),
      record: r.headers.get('x-capstate-record'),
      source: r.headers.get('x-capstate-source'),
    },
    answer: r.headers.get('capstate-answer'),
    convention: r.headers.get('capstate-convention'),
    error: r.headers.get('x-capstate-error'),
  };
}

/** `path` with and without its cache-buster answer alike; the one with it is marked `ignored-key` beside `convention`. */
async function expectIgnored(base: string, path: string, busted: string, convention: string | null = null) {
  const plain = await answer(base, path);
  const withKey = await answer(base, busted);
  expect(plain.seen.status, path).toBe(200);
  expect(withKey.seen, busted).toEqual(plain.seen);
  expect(plain.convention, path).toBe(convention);
  expect(withKey.answer, busted).toBe('convention');
  expect(withKey.convention, busted).toBe(convention ? [convention, 'ignored-key'].sort().join(', ') : 'ignored-key');
}

describe('issue 44: cache-buster query keys are ignored and said so (json-server 0.17)', () => {
  const served = servedFidelityApp('json-server-0.17');

  it('a list from state: /posts?_=1712 answers as /posts, marked ignored-key', async () => {
    await expectIgnored(served.base(), '/posts', '/posts?_=1712');
    expect((await answer(served.base(), '/posts')).answer).toBe('state');
  });

  it('an item from state: /posts/1?_=1712 answers as /posts/1, and an empty value or another buster name alike', async () => {
    await expectIgnored(served.base(), '/posts/1', '/posts/1?_=1712');
    await expectIgnored(served.base(), '/posts/1', '/posts/1?nocache=');
    await expectIgnored(served.base(), '/posts', '/posts?_t=1712345678901');
  });

  it('beside a learned convention: both are named (api-filter, ignored-key; ignored-key, item-route)', async () => {
    await expectIgnored(served.base(), '/comments?userId=3', '/comments?userId=3&_=1712', 'api-filter');
    await expectIgnored(served.base(), '/comments/2', '/comments/2?_=1712', 'item-route');
  });

  it('why says in plain words that the key was taken for a cache-buster and ignored (MCP _meta and structured why)', async () => {
    const res = await served.mcp().call('get_posts', { query: { _: '1712' } });
    expect(res.isError).toBeFalsy();
    expect(res._meta).toMatchObject({ 'capstate/answer': 'convention', 'capstate/convention': 'ignored-key' });
    expect((res.structuredContent as { why: string }).why).toMatch(/the query key _=1712 was taken for a cache-buster .* and ignored/);
    // A tool whose capture shows no query key takes a query of cache-busters only.
    const item = await served.mcp().call('get_posts_by_id', { id: '1', query: { _: '1712' } });
    expect(item.isError).toBeFalsy();
    expect(item._meta).toMatchObject({ 'capstate/convention': 'ignored-key' });
  });

  it('still declined: a cache-buster whose value is no whole number, a repeated one, and a key no vocabulary row names', async () => {
    for (const path of ['/posts?_=abc', '/posts?_=-1', '/posts?_=1&_=2', '/posts?zzz=1', '/posts/1?zzz=1', '/posts?_T=1']) {
      const r = await answer(served.base(), path);
      expect(r.seen.status, path).toBe(501);
      expect(r.answer, path).toBe('declined');
      expect(r.error, path).toBe('no-convention');
    }
    // An item route no tool holds (item-route.ts) takes one cache-buster alone, like a tool's check.
    for (const path of ['/comments/2?_=1&_=2', '/comments/2?_=abc', '/comments/2?zzz=1']) {
      const r = await answer(served.base(), path);
      expect(r.seen.status, path).toBe(501);
      expect(r.answer, path).toBe('declined');
    }
    // Over MCP the schema is the contract: the same calls are bad arguments, as before.
    const bad = await served.mcp().call('get_posts_by_id', { id: '1', query: { zzz: '1' } });
    expect(bad.isError).toBe(true);
    expect((bad.structuredContent as { code: string }).code).toBe('bad-arguments');
  });

  it('a write is never given an ignored key: its query may be part of what it changes', async () => {
    const ctx = served.mcp().ctx;
    // A fresh model: the check refuses before anything is written.
    const call = answerCall(ctx, 'post_posts', { query: { _: '1712' }, body: { title: 't' } }, new ServedModel(ctx));
    await expect(call).rejects.toMatchObject({ code: 'bad-arguments' });
  });

  it('an answer the call without the key gets by a convention names both (default-not-found, ignored-key)', async () => {
    const ctx = served.mcp().ctx;
    const a = await answerCall(ctx, 'get_posts_by_id', { id: '1000', query: { _: '1712' } }, new ServedModel(ctx));
    expect(a.status).toBe(404);
    expect(a.convention).toBe('default-not-found, ignored-key');
    expect(a.why).toMatch(/_=1712 was taken for a cache-buster/);
  });
});

describe('issue 44: a replayed record answers with its cache-buster ignored (Alertmanager)', () => {
  let base = '';
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ base, close } = await serveHttp(app('alertmanager'), join(dir, 'alertmanager.sqlite')));
  });
  afterAll(async () => close?.());

  it('a replayed record: /api/v2/alerts/groups?_=1712 replays the record of /api/v2/alerts/groups', async () => {
    await expectIgnored(base, '/api/v2/alerts/groups', '/api/v2/alerts/groups?_=1712');
    const r = await answer(base, '/api/v2/alerts/groups?_=1712');
    expect(r.seen.source).toBe('replay');
    expect(r.seen.record).not.toBeNull();
  });

  it('a document and a list from state: /api/v2/status and /api/v2/receivers with _=1712', async () => {
    await expectIgnored(base, '/api/v2/status', '/api/v2/status?_=1712');
    await expectIgnored(base, '/api/v2/receivers', '/api/v2/receivers?_=1712');
    expect((await answer(base, '/api/v2/status?_=1712')).seen.source).toBe('state');
  });

  it('a cache-buster whose value is no whole number, or an unknown key, is declined as before', async () => {
    for (const path of ['/api/v2/receivers?_=abc', '/api/v2/receivers?zzz=1']) {
      const r = await answer(base, path);
      expect(r.seen.status, path).toBe(501);
      expect(r.error, path).toBe('no-convention');
    }
  });
});

describe('issue 44: json-server 1.0, whose paged /posts line replays its record (an envelope variant)', () => {
  let base = '';
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ base, close } = await serveHttp(app('json-server-1.0'), join(dir, 'json-server-1.sqlite')));
  });
  afterAll(async () => close?.());

  it('/posts?_=1712 answers as /posts; /posts?_page=1&_per_page=3&_=1 as /posts?_page=1&_per_page=3 (from state, in its page envelope)', async () => {
    await expectIgnored(base, '/posts', '/posts?_=1712');
    await expectIgnored(base, '/posts?_sort=-views', '/posts?_sort=-views&_=1');
    await expectIgnored(base, '/posts?_page=1&_per_page=3', '/posts?_page=1&_per_page=3&_=1');
    expect((await answer(base, '/posts?_page=1&_per_page=3&_=1')).seen.source).toBe('state');
  });
});

describe('issue 44: the vocabulary decides which keys are cache-busters', () => {
  it('migration 0015 seeds the cache_buster rows, compared exactly as spelled', async () => {
    const db = openStore(join(dir, 'vocabulary.sqlite'), { write: true });
    const rows = db.prepare("select name from vocabulary where vocabulary = 'cache_buster' order by rank").pluck().all();
    expect(rows).toEqual(['_', '_t', '_ts', 'nocache', 'cachebust', 'cachebuster']);
    const k = kyselyFor(db);
    const v = await readVocabulary(k);
    for (const name of rows as string[]) expect(v.isCacheBuster(name), name).toBe(true);
    for (const name of ['_T', 'NoCache', '__', 'page', 'ts', '_[0]']) expect(v.isCacheBuster(name), name).toBe(false);
    await k.destroy();
  });

  it('a key whose row is removed from the store is no longer ignored (code reads the table, lists nothing)', async () => {
    const db = join(dir, 'no-underscore.sqlite');
    const { close } = await serveHttp(app('json-server-0.17'), db);
    await close();
    const raw = new Database(db);
    raw.prepare("delete from vocabulary where vocabulary = 'cache_buster' and name = '_'").run();
    raw.close();
    const served = await serveStoreHttp(db);
    try {
      expect((await answer(served.base, '/posts?_=1712')).seen.status).toBe(501);
      expect((await answer(served.base, '/posts?_t=1712')).convention).toBe('ignored-key');
    } finally {
      await served.close();
    }
  });

  it('a cache-buster name that is a member of the listed entities is theirs, not ignored', async () => {
    const s: Served = await serveHar(dir, NOTES);
    try {
      const member = await s.call('get_api_notes', { query: { _t: '5' } });
      expect(member.isError).toBe(true);
      const other = await s.call('get_api_notes', { query: { _: '5' } });
      expect(other.isError).toBeFalsy();
      expect(other._meta).toMatchObject({ 'capstate/convention': 'ignored-key' });
    } finally {
      await s.close();
    }
  });

  it('a decline of the call without the key says the key was ignored', async () => {
    const s: Served = await serveHar(dir, NOTES);
    try {
      const e = await answerCall(s.ctx, 'get_api_search', { query: { q: 'b', _: '1712' } }).then(
        () => null,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(CapstateError);
      expect((e as CapstateError).code).toBe('no-record');
      expect((e as CapstateError).message).toMatch(
        /no retained record answers GET \/api\/search\?q=b; .*\(the query key _=1712 was taken for a cache-buster/,
      );
      expect((e as CapstateError).context).toMatchObject({ ignored_keys: '_=1712' });
    } finally {
      await s.close();
    }
  });
});

describe('issue 44: an ignored key is part of the URL the app links from', () => {
  const js = servedFidelityApp('json-server-0.17');
  const drf = servedFidelityApp('django-rest');

  it('page links keep the ignored key where it was asked (json-server 0.17, the real app answers so)', async () => {
    // json-server 0.17.4 answered `GET /posts?_=5&_page=2&_limit=3` with these links (probed).
    await js.reset();
    const r = await js.get('/posts?_=5&_page=2&_limit=3');
    expect(r.h('capstate-convention')).toBe('ignored-key');
    const b = js.base();
    expect(r.h('link')).toBe(
      `<${b}/posts?_=5&_page=1&_limit=3>; rel="first", <${b}/posts?_=5&_page=1&_limit=3>; rel="prev", <${b}/posts?_=5&_page=3&_limit=3>; rel="next", <${b}/posts?_=5&_page=3&_limit=3>; rel="last"`,
    );
  });

  it("ignored key: a replayed answer linking the request's own URL (Django's next) is declined, since the app's link would name the key", async () => {
    await drf.reset();
    const r = await drf.get('/api/posts/?published=true&_=1712');
    expect(r.status).toBe(501);
    expect((r.json as { detail: string }).detail).toContain(
      "links the request's own URL (http://127.0.0.1:8392/api/posts/?page=2&published=true)",
    );
    // A replayed answer without such a link is still answered.
    expect((await drf.get('/api/tags/?_=5')).status).toBe(200);
  });

  it("ignored key: a page rendered from state names it in the envelope's next link, as Django does", async () => {
    // The Django capture with its read of page 3 moved before the writes: the posts list is then
    // held whole and rendered from state (the app's own answer after the writes: truth repeat-33).
    const { base, close } = await serveCaptureVariant('django-rest', (har) => {
      const entries = har.log.entries;
      const page3 = entries.findIndex((e) => e.request.url.endsWith('/api/posts/?page=3'));
      const [moved] = entries.splice(page3, 1);
      entries.splice(6, 0, moved);
      entries.forEach((e, i) => {
        e.startedDateTime = new Date(Date.UTC(2026, 11, 7, 10, 0, i)).toISOString();
      });
    });
    try {
      const r = await fetch(`${base}/api/posts/?published=true&_=1712`);
      expect(r.headers.get('x-capstate-source')).toBe('state');
      expect(((await r.json()) as { next: string }).next).toBe((drf.truth('repeat-33').json as { next: string }).next);
    } finally {
      await close();
    }
  });
});
