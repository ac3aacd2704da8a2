/**
 * OQ-2 as revised (issue 17): the subject is the origin of the page's final document,
 * redirects followed; failed records and source maps are never evidence; same-site
 * origins answering JSON are admitted with it; `--manifest` may name `subject_origin` and
 * `admit_origins`. Static assets stay facts but form no tool. A real Chromium export
 * (fixtures/news-site-playwright) carries every case, plus small HARs for the edges.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { cli, fixture, tempDir } from './helpers.js';
import { writeHar, type Exchange } from './har-builder.js';
import { isSameSite, registrableDomain } from '../src/manifest/site.js';

const dir = tempDir();
const NEWS = fixture('news-site-playwright', 'capture.har');
const port = /http:\/\/news\.test:(\d+)\//.exec(readFileSync(NEWS, 'utf8'))![1];
const at = (host: string) => `http://${host}:${port}`;
let n = 0;

type Admission = { subject_origin: string; subject_source: string; admitted_records: number; notes: string[] };
type Manifest = { admission: Admission; tools: { name: string; template: string; record_ordinals: number[] }[] };

function manifestOf(file: string, args: string[] = []): Manifest {
  const r = cli(['manifest', file, '--json', ...args]);
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { manifests: Manifest[] }).manifests[0];
}

/** The news capture with its document edited by `patch`. */
function newsWith(patch: (doc: any) => void): string {
  const doc = JSON.parse(readFileSync(NEWS, 'utf8'));
  patch(doc);
  const file = join(dir, `news-${n++}.har`);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

function manifestFile(doc: unknown): string {
  const file = join(dir, `override-${n++}.json`);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

describe("OQ-2 (revised) the subject is the origin of the page's final document", () => {
  it("OQ-2 a page that redirects twice (news.test → www.news.test/ → /home): the final document's origin, not the image CDN or the API", () => {
    const m = manifestOf(NEWS);
    expect(m.admission).toMatchObject({ subject_origin: at('www.news.test'), subject_source: 'document' });
  });

  it('OQ-2 a page title naming the bare domain is followed along the same chain', () => {
    const m = manifestOf(
      newsWith((doc) => {
        doc.log.pages[0].title = `${at('news.test')}/`;
      }),
    );
    expect(m.admission).toMatchObject({ subject_origin: at('www.news.test'), subject_source: 'page' });
  });

  it("OQ-2 without pages and without HTML, source maps and failed records are not evidence: the app's one JSON answer wins", () => {
    const ex: Exchange[] = [
      { url: 'https://app.example.test/api/items', body: [{ id: 'it-01' }] },
      { url: 'https://cdn.libs.test/jquery.min.map', body: { version: 3, mappings: 'AAAA' } },
      { url: 'https://cdn.libs.test/vue.min.map', body: { version: 3, mappings: 'AAAA' } },
      { url: 'https://metrics.test/v1/collect', status: 0, body: {} },
      { url: 'https://metrics.test/v1/collect', status: -1, body: {} },
      { url: 'https://metrics.test/v1/collect', status: 0, body: {} },
    ];
    const m = manifestOf(writeHar(dir, `maps-${n++}.har`, ex));
    expect(m.admission).toMatchObject({
      subject_origin: 'https://app.example.test',
      subject_source: 'json-responses',
      admitted_records: 1,
    });
  });
});

describe('OQ-2 (revised) same-site origins that answer JSON are admitted with the subject', () => {
  it('OQ-2 api.news.test beside www.news.test is admitted; the image CDN, library CDN, ad server and the bare redirecting domain are not', () => {
    const m = manifestOf(NEWS);
    expect(m.admission.notes).toContain(`admitted with the subject: ${at('api.news.test')} 3`);
    expect(m.tools.map((t) => t.template)).toEqual(['/', '/home', '/v1/articles', '/v1/articles/{id}']);
    const db = join(dir, 'news.sqlite');
    expect(cli(['load', NEWS, '--db', db]).status).toBe(0);
    const s = new Database(db, { readonly: true });
    expect(s.prepare('select distinct origin from record where tool_id is not null order by origin').pluck().all()).toEqual([
      at('api.news.test'),
      at('www.news.test'),
    ]);
  });

  it('OQ-2 a same-site origin that answers no JSON (only images) is not admitted', () => {
    const ex: Exchange[] = [
      { url: 'https://www.shop.test/', body: '<html></html>', mimeType: 'text/html' },
      { url: 'https://www.shop.test/api/items', body: [] },
      { url: 'https://static.shop.test/logo.png', body: 'x', mimeType: 'image/png' },
    ];
    const m = manifestOf(writeHar(dir, `static-${n++}.har`, ex, { pageTitle: 'https://www.shop.test/' }));
    expect(m.admission.notes.some((x) => x.includes('admitted with the subject'))).toBe(false);
    expect(m.admission.admitted_records).toBe(2);
  });

  it('OQ-2 registrable domains: country-code second levels and hosting platforms are public suffixes', () => {
    expect(registrableDomain('www.bbc.co.uk')).toBe('bbc.co.uk');
    expect(registrableDomain('api.example.com')).toBe('example.com');
    expect(isSameSite('https://www.example.com', 'https://api.example.com')).toBe(true);
    expect(isSameSite('https://alice.github.io', 'https://bob.github.io')).toBe(false);
    expect(isSameSite('https://shop.co.uk', 'https://other.co.uk')).toBe(false);
    expect(isSameSite('http://www.example.com', 'https://api.example.com')).toBe(false);
    expect(isSameSite('http://127.0.0.1:3000', 'http://127.0.0.1:8080')).toBe(true);
    expect(isSameSite('http://localhost:3000', 'http://127.0.0.1:3000')).toBe(false);
  });
});

describe('OQ-2 (revised) --manifest names subject_origin and admit_origins', () => {
  it('OQ-2 subject_origin replaces the inferred subject; admit_origins admits an origin of another site', () => {
    const override = manifestFile({ subject_origin: at('api.news.test'), admit_origins: [at('ads.adnet.test')] });
    const m = manifestOf(NEWS, ['--manifest', override, '--redact']);
    expect(m.admission).toMatchObject({ subject_origin: at('api.news.test'), subject_source: 'override' });
    // www.news.test is same-site but answers no JSON; the ad server is admitted by name.
    expect(m.admission.notes).toContain(`admitted with the subject: ${at('ads.adnet.test')} 1`);
    expect(m.tools.map((t) => t.template)).toEqual(['/gampad/ads', '/v1/articles', '/v1/articles/{id}']);
  });

  it('OQ-2 an admitted ad URL with sig= then refuses the capture unless --redact, naming the parameter', () => {
    const override = manifestFile({ admit_origins: [at('ads.adnet.test')] });
    const r = cli(['manifest', NEWS, '--json', '--manifest', override]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/record #20 \(log\.entries\[19\]\.request\.url\).*"sig".*--redact/);
    expect(r.stderr).not.toContain('Q29mZmVlQmVhbnMx');
  });

  it('OQ-2 an override origin that is not an origin is refused with its path', () => {
    for (const [doc, path] of [
      [{ subject_origin: 'https://www.news.test/home' }, 'subject_origin'],
      [{ admit_origins: ['api.news.test'] }, 'admit_origins[0]'],
      [{ admit_origins: 'x' }, 'admit_origins'],
    ] as const) {
      const r = cli(['manifest', NEWS, '--manifest', manifestFile(doc)]);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`: ${path}: `);
    }
  });
});

describe('OQ-2 (revised) a third-party ad beacon with a credential-looking value never refuses a capture', () => {
  it("OQ-2 the news capture loads; the ad's sig and the presigned image's X-Amz-Signature are stored as [REDACTED]", () => {
    const db = join(dir, 'news-ad.sqlite');
    const r = cli(['load', NEWS, '--db', db]);
    expect(r.status, r.stderr).toBe(0);
    const s = new Database(db, { readonly: true });
    expect(s.prepare('select url from record where ordinal = 20').pluck().get()).toMatch(/&sig=\[REDACTED\]&correlator=4521$/);
    expect(s.prepare('select url from record where ordinal = 16').pluck().get()).toMatch(/X-Amz-Signature=\[REDACTED\]$/);
    expect(s.prepare('select count(*) from record where tool_id is null and ordinal in (16, 20)').pluck().get()).toBe(2);
  });
});

describe('issue 17 static assets are facts, not tools', () => {
  it("the page's own stylesheet, script and logo are stored but form no tool, and the manifest says so", () => {
    const m = manifestOf(NEWS);
    expect(m.admission.notes).toContain(
      '3 static-asset records (scripts, stylesheets, images, fonts, media, source maps) kept as facts, not in the catalog: #4, #6, #7',
    );
    expect(m.tools.some((t) => /\.(css|js|gif)$/.test(t.template))).toBe(false);
    const card = JSON.parse(cli(['card', NEWS, '--json']).stdout) as { tools: { name: string }[] };
    expect(card.tools.map((t) => t.name)).toEqual(['get_root', 'get_home', 'get_v1_articles', 'get_v1_articles_by_id']);
  });

  it('a JSON answer is never a static asset, whatever its resource type', () => {
    const ex: Exchange[] = [
      { url: 'https://app.example.test/api/items', body: [] },
      { url: 'https://app.example.test/api/config.js', body: { a: 1 } },
    ];
    const m = manifestOf(writeHar(dir, `jsonjs-${n++}.har`, ex));
    expect(m.tools.map((t) => t.template)).toEqual(['/api/config.js', '/api/items']);
  });
});
