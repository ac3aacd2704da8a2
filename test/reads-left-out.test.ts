/**
 * The fidelity benchmark's captures (recorded from the real apps in Debian's Chromium) with some
 * of their reads left out. Reads change nothing, so the apps' own answers (truth.json) still hold;
 * but the model knows less, and each case here had answered wrongly — a 404 for an entity it
 * never saw, the next id after the few it held, an embed or a filter of a collection it holds in
 * part, a window borrowed across envelope shapes, a Link learned on one collection only. Each is
 * declined now, and the app's answer shows the guess would have been wrong.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APPS, appDir, captureRequests, send, type Req } from '../bench/fidelity/harness.js';
import { serveCaptureVariant } from './fidelity-served.js';

interface Truth {
  answers: { id: string; status: number; json?: unknown }[];
}

/**
 * Serves `app`'s capture without its GET records of the listed paths (every occurrence), replays
 * the rest of the capture's requests, and hands `use` the served base and the app's truth.
 */
async function withoutReads(
  app: string,
  paths: string[],
  use: (base: string, truth: (id: string) => { status: number; json?: unknown }) => Promise<void>,
) {
  const dir = appDir(APPS.find((a) => a.name === app)!);
  const left = (e: { request: { method: string; url: string } }) => {
    const u = new URL(e.request.url);
    return e.request.method === 'GET' && paths.includes(u.pathname + u.search);
  };
  const { base, close } = await serveCaptureVariant(app, (har) => {
    har.log.entries = har.log.entries.filter((e) => !left(e));
  });
  const answers = (JSON.parse(readFileSync(join(dir, 'truth.json'), 'utf8')) as Truth).answers;
  try {
    const kept = captureRequests(APPS.find((a) => a.name === app)!).filter((r) => !(r.method === 'GET' && paths.includes(r.path)));
    for (const r of kept) await send(base, r);
    await use(base, (id) => answers.find((a) => a.id === id)!);
  } finally {
    await close();
  }
}

const ask = async (base: string, method: string, path: string, body?: unknown) => {
  const r: Req = { method, path, ...(body === undefined ? {} : { body: JSON.stringify(body), content_type: 'application/json' }) };
  return send(base, r);
};

describe('reads left out: a write on an id the model does not hold', () => {
  it('knownAbsent: PATCH /api/posts/2/, a post no kept read shows, is declined where Django answers 200 (it was 404)', async () => {
    await withoutReads(
      'django-rest',
      ['/api/posts/?page=2', '/api/posts/?author=2', '/api/posts/?ordering=-views', '/api/posts/', '/api/posts/13/', '/api/posts/4/'],
      async (base, truth) => {
        const r = await ask(base, 'PATCH', '/api/posts/2/', { published: false });
        expect(r.status).toBe(501);
        expect(truth('write-37').status).toBe(200);
        // A post this session deleted is known gone, whatever the model holds.
        expect((await ask(base, 'DELETE', '/api/posts/3/')).status).toBe(204);
        expect((await ask(base, 'DELETE', '/api/posts/3/')).status).toBe(404);
      },
    );
  });

  it("knownAbsent: after the capture's create of message 15, which the model did not apply, DELETE /messages/15 is declined, not Feathers' 404", async () => {
    await withoutReads(
      'feathers',
      ['/messages?%24sort%5Bid%5D=-1&%24limit=5', '/messages/99', '/tags', '/messages/15'],
      async (base, truth) => {
        const r = await ask(base, 'DELETE', '/messages/15');
        expect(r.status).toBe(501);
        expect(truth('write-34').status).toBe(200);
      },
    );
  });
});

describe('reads left out: the id of a create', () => {
  it('refuseUnknownTop: POST /comments on comments held in part is declined, where the model gave 4 and json-server 12', async () => {
    await withoutReads(
      'json-server-0.17',
      ['/posts/1', '/posts/2', '/comments', '/users', '/users/1', '/posts?_sort=views&_order=desc', '/posts/1?_embed=comments'],
      async (base, truth) => {
        const r = await ask(base, 'POST', '/comments', { postId: 1, userId: 2, body: 'Held-out comment' });
        expect(r.status).toBe(501);
        expect((r.json as { code: string }).code).toBe('no-convention');
        expect(truth('write-59').json).toMatchObject({ id: 12 });
      },
    );
  });
});

describe('reads left out: lists and embeds of a collection held in part', () => {
  const json10 = ['/posts', '/posts/1', '/comments', '/users', '/posts?_page=1&_per_page=3', '/posts?_sort=-views', '/posts/2'];

  it('childrenHeld: /posts/2?_embed=comments is declined where comments are held in part (the model embedded only this session’s)', async () => {
    await withoutReads('json-server-1.0', json10, async (base, truth) => {
      const r = await ask(base, 'GET', '/posts/2?_embed=comments');
      expect(r.status).toBe(501);
      expect((truth('after-write-52').json as { comments: unknown[] }).comments.length).toBeGreaterThan(1);
    });
  });

  it("refuseUnheldNulls: after the capture's DELETE /posts/5, /comments?postId=1 is declined: json-server 1.0 lists the comments it cleared, which the model never saw", async () => {
    await withoutReads('json-server-1.0', json10, async (base, truth) => {
      const r = await ask(base, 'GET', '/comments?postId=1');
      expect(r.status).toBe(501);
      expect((r.json as { code: string }).code).toBe('stale-record');
      expect((truth('read-after-write-62').json as { postId: string | null }[]).some((c) => c.postId === null)).toBe(true);
    });
  });

  it('api-window: a window proved on an enveloped page is not borrowed by a list answering a bare array (json-server 1.0 answers an envelope)', async () => {
    await withoutReads(
      'json-server-1.0',
      ['/posts', '/posts/2', '/users/1', '/posts?userId=2', '/comments?postId=1', '/posts?_sort=-views', '/comments?postId=2'],
      async (base, truth) => {
        const r = await ask(base, 'GET', '/comments?_page=1&_per_page=4');
        expect(r.status).toBe(501);
        expect(truth('page-32').json).toMatchObject({ first: 1, pages: 3 });
      },
    );
  });

  it('count header: X-WP-Total of ?post=3 counts post 3’s comments, not every comment, so ?post=2 is declined (it listed none; WordPress lists one)', async () => {
    await withoutReads('wordpress', ['/wp-json/wp/v2/comments'], async (base, truth) => {
      const r = await ask(base, 'GET', '/wp-json/wp/v2/comments?post=2');
      expect(r.status).toBe(501);
      expect(truth('filter-22').json).toHaveLength(1);
    });
  });

  it('item Link habit: the Link posts’ and pages’ item reads send is not lent to users (WordPress links a user to the API root)', async () => {
    await withoutReads('wordpress', ['/wp-json/wp/v2/users/2'], async (base) => {
      const r = await ask(base, 'GET', '/wp-json/wp/v2/users/3');
      expect(r.status).toBe(501);
      expect((r.json as { detail: string }).detail).toContain('the app sends a Link header with answers like this one');
    });
  });
});

describe('reads left out: what an update leaves of the members it does not send', () => {
  it("unshownUpdate: Redmine's PUTs with no later read of their issues replay (204) and leave the issue unknown, not replaced by the PUT's members", async () => {
    await withoutReads(
      'redmine',
      ['/issues.json', '/issues/1.json', '/issues/13.json', '/issues.json?project_id=2'],
      async (base, truth) => {
        const r = await ask(base, 'GET', '/issues/6.json');
        expect(r.status).toBe(501);
        // The app kept every member the PUT did not send.
        expect(truth('after-write-37').json).toMatchObject({ issue: { id: 6, project: { id: 2 } } });
        // A held-out PUT leaving members out is declined: the capture never showed what becomes of them.
        const put = await ask(base, 'PUT', '/issues/3.json', { issue: { done_ratio: 10 } });
        expect(put.status).toBe(501);
        expect((put.json as { detail: string }).detail).toContain(
          'no update of the capture by PUT /issues/{id}.json that left members out was followed',
        );
      },
    );
  });
});

describe('reads left out: a write to a collection no kept read shows', () => {
  it('logUnansweredWrite: DELETE /api/tags/1/ with no tags read kept is declined and logged, so post 12, whose tags held 1, is declined too (Django dropped the tag)', async () => {
    await withoutReads('django-rest', ['/api/tags/', '/api/tags/2/'], async (base, truth) => {
      expect((await ask(base, 'DELETE', '/api/tags/1/')).status).toBe(501);
      const r = await ask(base, 'GET', '/api/posts/12/');
      expect(r.status).toBe(501);
      expect((r.json as { detail: string }).detail).toContain('posts 12 names tags 1');
      expect((truth('read-after-write-55').json as { tags: number[] }).tags).toEqual([]);
    });
  });
});
