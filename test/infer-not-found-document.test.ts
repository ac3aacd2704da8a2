/**
 * Issue 46 (DOC-2): a recorded 4xx is the API's not-found evidence, never a document.
 * json-server answers an unknown path (`/__rules`, which its home page reads) with 404 `{}`;
 * as a document the model answered `{}` as that path's value. It is a record view and replays
 * its 404, while a 2xx beside it stays a document and the not-found convention (recorded 404s
 * of item templates) still answers an id the state lacks.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { cli, tempDir } from './helpers.js';
import { writeHar } from './har-builder.js';
import { serveStore } from './serve-helpers.js';

const dir = tempDir();
const A = 'http://app.test';

interface State {
  documents: { tool: string; path: string }[];
  plans: { tool: string; kind: string; reason?: string; detail?: string }[];
}

const har = writeHar(
  dir,
  'not-found.har',
  [
    { url: `${A}/__rules`, status: 404, body: {} },
    { url: `${A}/profile`, body: { name: 'town' } },
    { url: `${A}/posts`, body: [{ id: 1, title: 'a' }] },
    { url: `${A}/posts/1`, body: { id: 1, title: 'a' } },
    { url: `${A}/posts/9`, status: 404, body: {} },
  ],
  { pageTitle: `${A}/` },
);

describe('issue 46: a recorded 404 is not a document', () => {
  const db = join(dir, 'not-found.sqlite');
  const load = cli(['load', har, '--db', db]);

  it('the 404 path is a record view saying its answer was 404; the 200 path beside it is a document', () => {
    expect(load.status, load.stderr).toBe(0);
    const s = JSON.parse(cli(['state', '--db', db, '--json']).stdout) as State;
    expect(s.documents.map((d) => d.path)).toEqual(['/profile']);
    const rules = s.plans.find((p) => p.tool === 'get_rules');
    expect(rules).toMatchObject({ kind: 'record', reason: 'fields-differ' });
    expect(rules?.detail).toMatch(/#1 \(\/__rules\) answered 404/);
  });

  it('served: the 404 path replays its 404, and an id the state lacks gets the API’s recorded 404', async () => {
    const s = await serveStore(db);
    try {
      const rules = await s.call('get_rules', {});
      expect(rules.structuredContent).toMatchObject({ status: 404, source: 'replay', record_ordinal: 1 });
      const missing = await s.call('get_posts_by_id', { id: '7' });
      expect(missing.structuredContent).toMatchObject({ status: 404, source: 'state', record_ordinal: 5 });
    } finally {
      await s.close();
    }
  });
});
