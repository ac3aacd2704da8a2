/**
 * Issue 17 "input formats users have": a `.har.gz`, Playwright's zipped HAR (`recordHar`
 * with a `.zip` path) and `-` for standard input load directly, and say so in `capstate
 * info`; a damaged archive is refused naming the file the user gave, never an internal
 * error or a temporary path.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { cli, fixture, sha256File, tempDir } from './helpers.js';
import { zipOf } from './zip-builder.js';

const dir = tempDir();
const PLAIN = fixture('news-site-playwright', 'capture.har');
const GZ = fixture('news-site-gz', 'capture.har.gz');
const ZIP = fixture('news-site-zip', 'capture.zip');
let n = 0;

function load(args: string[], input?: string) {
  const db = join(dir, `f${n++}.sqlite`);
  return { r: cli(['load', ...args, '--db', db, '--json'], { input }), db };
}

function normalised(db: string): string[] {
  const info = JSON.parse(cli(['info', '--db', db, '--json']).stdout) as { captures: { normalised: { quirk: string }[] }[] };
  return info.captures[0].normalised.map((q) => q.quirk);
}

const stateOf = (db: string) => cli(['state', '--db', db, '--json']).stdout;

/** A zip of stored members (no compression, sizes in the local headers), enough for the reader's edge cases. */
const storedZip = (members: [string, Buffer][]): Buffer =>
  zipOf(members.map(([name, data]) => ({ name, data, deflate: false, localSizes: [data.length, data.length] })));

function writeFile(name: string, bytes: Buffer | string): string {
  const file = join(dir, name);
  writeFileSync(file, bytes);
  return file;
}

describe('issue 17 input format .har.gz', () => {
  it("a gzip-compressed HAR loads directly, identified by the compressed bytes, with the plain file's state", () => {
    const { r, db } = load([GZ]);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).captures[0]).toMatchObject({ format: 'har', records: 22, sha256: sha256File(GZ) });
    expect(normalised(db)).toEqual(['gzip']);
    const plain = load([PLAIN]);
    expect(stateOf(db)).toBe(stateOf(plain.db));
  });

  it('is recognised by its bytes, not its name', () => {
    const renamed = writeFile('capture.json', readFileSync(GZ));
    const { r } = load([renamed]);
    expect(r.status, r.stderr).toBe(0);
  });

  it('a truncated gzip file is bad-archive naming the file, not an internal error', () => {
    const bytes = readFileSync(GZ);
    const cut = writeFile('cut.har.gz', bytes.subarray(0, bytes.length / 2));
    const { r } = load([cut]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^capstate: error: .*cut\.har\.gz: not a readable gzip file/m);
  });

  it('a gzip of something that is not a capture is refused naming the .gz file, not a temporary path', () => {
    const file = writeFile('notes.txt.gz', gzipSync('{"log": {"entries": [1, }'));
    const { r } = load([file]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('notes.txt.gz');
    expect(r.stderr).not.toMatch(/capstate-\d+-/);
  });
});

describe('issue 17 input format Playwright zipped HAR', () => {
  it("a recordHar .zip loads: bodies come from their content._file members; the state equals the embedded recording's", () => {
    const { r, db } = load([ZIP]);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).captures[0]).toMatchObject({
      format: 'har',
      records: 22,
      response_bodies_by_kind: { json: 5, base64: 10, text: 4, none: 3 },
    });
    expect(normalised(db)).toEqual(['zip']);
    expect(stateOf(db)).toBe(stateOf(load([PLAIN]).db));
    const s = new Database(db, { readonly: true });
    // The beacon's request body was a postData._file member.
    expect(
      String(s.prepare('select b.content from record r join body b on b.id = r.request_body_id where r.ordinal = 22').pluck().get()),
    ).toBe('e=view');
  });

  it('a zip without a .har, or with a _file the zip does not hold, is bad-archive naming the zip', () => {
    const none = writeFile('none.zip', storedZip([['readme.txt', Buffer.from('hi')]]));
    expect(load([none]).r.stderr).toMatch(/none\.zip: the zip holds no \.har file/);
    const har = {
      log: {
        version: '1.2',
        creator: { name: 'Playwright', version: '1' },
        entries: [
          {
            startedDateTime: '2026-01-01T00:00:00Z',
            time: 1,
            request: { method: 'GET', url: 'http://a.test/api/x', headers: [] },
            response: { status: 200, headers: [], content: { size: 2, mimeType: 'application/json', _file: 'gone.json' } },
          },
        ],
      },
    };
    const missing = writeFile('missing.zip', storedZip([['har.har', Buffer.from(JSON.stringify(har))]]));
    const r = load([missing]).r;
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/missing\.zip: log\.entries\[0\]\.response\.content\._file names "gone\.json", which the zip does not hold/);
  });

  it('a zip holding one .har without _file members loads as that HAR', () => {
    const plain = writeFile('plain.zip', storedZip([['session.har', readFileSync(PLAIN)]]));
    const { r, db } = load([plain]);
    expect(r.status, r.stderr).toBe(0);
    expect(stateOf(db)).toBe(stateOf(load([PLAIN]).db));
  });

  it('a damaged zip (no central directory) is bad-archive', () => {
    const bytes = readFileSync(ZIP);
    const r = load([writeFile('damaged.zip', bytes.subarray(0, 200))]).r;
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/damaged\.zip: not a zip file capstate can read/);
    // Deflated bytes overwritten inside the HAR member: its inflation fails.
    const corrupt = Buffer.from(bytes);
    corrupt.fill(0x55, 60, 400);
    const c = load([writeFile('corrupt.zip', corrupt)]).r;
    expect(c.status).toBe(1);
    expect(c.stderr).toMatch(/corrupt\.zip: the zip member "har\.har" cannot be read/);
  });
});

describe('issue 17 input format - (standard input)', () => {
  it('load - reads the capture from stdin', () => {
    const { r, db } = load(['-'], readFileSync(PLAIN, 'utf8'));
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).captures[0]).toMatchObject({ file: '-', records: 22, sha256: sha256File(PLAIN) });
    expect(normalised(db)).toEqual(['stdin']);
    const s = new Database(db, { readonly: true });
    expect(s.prepare('select path from capture').pluck().get()).toBe('-');
  });

  it('an empty stdin is refused as not a capture, naming -', () => {
    const { r } = load(['-'], '');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^capstate: error: -: /m);
  });
});
