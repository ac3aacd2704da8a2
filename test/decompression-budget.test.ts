/**
 * Issue 42 finding 4 (and the zip parts of 6 and 7): every decompression of one capture
 * shares one budget — a `.har.gz` unpacked, a zip's `.har` and body members, Polly.JS
 * bodies inflated as their Content-Encoding says — so a small input cannot write
 * gigabytes to the temp folder or hold them in memory. Past it, the load stops with
 * `inflate-budget` naming the file and the member or record and field; the temp folder is
 * left empty. A zip whose sizes lie is refused naming the member, never inflated further
 * than it says; no zip error names a temporary path. Most cases load in-process with a
 * small budget (milliseconds); two run the CLI at the default budget.
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { CapstateError } from '../src/errors.js';
import { loadCaptures } from '../src/ingest/load-captures.js';
import { cli, tempDir } from './helpers.js';
import { zipOf, type Member } from './zip-builder.js';

const dir = tempDir();
const MiB = 1024 * 1024;
let n = 0;

type Json = Record<string, unknown>;

function writeFile(name: string, bytes: Buffer | string): string {
  const file = join(dir, name);
  writeFileSync(file, bytes);
  return file;
}

function entry(i: number, content: Json, headers: Json[] = []): Json {
  return {
    startedDateTime: `2026-01-01T00:00:${String(i).padStart(2, '0')}Z`,
    time: 1,
    request: { method: 'GET', url: `http://a.test/api/items/${i}`, headers: [] },
    response: { status: 200, headers, content },
  };
}

const harOf = (entries: Json[], extra: Json = {}): Json => ({
  log: { version: '1.2', creator: { name: 'test', version: '1' }, entries, ...extra },
});

/** A Playwright zip whose one entry's response body is the member `body.bin`. */
function zipWithBody(body: Member): Buffer {
  const har = harOf([entry(0, { size: body.data.length, mimeType: 'application/octet-stream', _file: body.name })]);
  return zipOf([{ name: 'har.har', data: Buffer.from(JSON.stringify(har)) }, body]);
}

/** Loads in-process; returns the CapstateError it throws (the test fails if it loads). */
async function refusal(file: string, maxInflatedBytes?: number): Promise<CapstateError> {
  const db = join(dir, `s${n++}.sqlite`);
  try {
    await loadCaptures({ db, files: [file], maxInflatedBytes });
  } catch (e) {
    expect(e).toBeInstanceOf(CapstateError);
    return e as CapstateError;
  }
  throw new Error(`${file} loaded; it should have been refused`);
}

/** This process's temporary unpacking folders (inputs.ts names them capstate-PID-XXXXXX). */
const ownTempDirs = () => readdirSync(tmpdir()).filter((d) => d.startsWith(`capstate-${process.pid}-`));

/** A JSON body of `bytes` bytes that compresses to almost nothing. */
const jsonBody = (bytes: number) => Buffer.from(`{"pad":"${'0'.repeat(bytes - 10)}"}`);

/** A Polly 6 entry: the body's Content-Encoding bytes as base64 chunks. */
function pollyEntry(i: number, coding: 'gzip' | 'deflate' | 'br', body: Buffer): Json {
  const wire = coding === 'gzip' ? gzipSync(body) : coding === 'deflate' ? deflateSync(body) : brotliCompressSync(body);
  return entry(
    i,
    { size: body.length, mimeType: 'application/json', encoding: 'base64', text: JSON.stringify([wire.toString('base64')]) },
    [{ name: 'content-encoding', value: coding }],
  );
}

describe('issue 42 one decompression budget per capture', () => {
  it('a .har.gz that inflates past the budget is refused naming the .gz file, and its temp folder is removed', async () => {
    const har = harOf([entry(0, { size: 2, mimeType: 'application/json', text: '{}' })], { comment: 'x'.repeat(4 * MiB) });
    const gz = writeFile('big.har.gz', gzipSync(JSON.stringify(har)));
    const e = await refusal(gz, 1 * MiB);
    expect(e.code).toBe('inflate-budget');
    expect(e.context.file).toBe(gz);
    expect(e.message).toMatch(/^the gzip-compressed capture decompresses past this capture's decompression budget of 1 MiB/);
    expect(ownTempDirs()).toEqual([]);
  });

  it('a zip with a body member larger than the budget is refused naming the zip and the member, before inflating it', async () => {
    const zip = writeFile('huge-member.zip', zipWithBody({ name: 'abc.dat', data: Buffer.alloc(8 * MiB) }));
    const e = await refusal(zip, 2 * MiB);
    expect(e.code).toBe('inflate-budget');
    expect(e.context.file).toBe(zip);
    expect(e.message).toMatch(
      /^the zip member "abc\.dat" \(named by log\.entries\[0\]\.response\.content\._file\) decompresses past this capture's decompression budget of 2 MiB/,
    );
    expect(ownTempDirs()).toEqual([]);
  });

  it('a zip whose members each fit but together pass the budget is refused naming the record they reach it at', async () => {
    const entries = Array.from({ length: 8 }, (_, i) => entry(i, { size: MiB, mimeType: 'application/octet-stream', _file: 'same.bin' }));
    const zip = writeFile(
      'repeated-member.zip',
      zipOf([
        { name: 'har.har', data: Buffer.from(JSON.stringify(harOf(entries))) },
        { name: 'same.bin', data: Buffer.alloc(MiB) },
      ]),
    );
    const e = await refusal(zip, 4 * MiB);
    expect(e.code).toBe('inflate-budget');
    expect(e.context).toMatchObject({ file: zip, path: expect.stringMatching(/^log\.entries\[\d\]$/) });
  });

  it('Polly chunk bodies that together pass the budget are refused naming the record and field, though each is under the per-body cap', async () => {
    const entries = Array.from({ length: 10 }, (_, i) => pollyEntry(i, 'gzip', jsonBody(MiB)));
    const har = writeFile('polly-many.har', JSON.stringify(harOf(entries)));
    const e = await refusal(har, 4 * MiB + 1024);
    expect(e.code).toBe('inflate-budget');
    expect(e.context).toMatchObject({ file: har, record: 5, path: 'log.entries[4].response.content.text' });
    expect(e.message).toMatch(/^the body \(Content-Encoding: gzip\) decompresses past this capture's decompression budget/);
  });

  it('Content-Encoding bodies in every coding (gzip, deflate, br) share the one budget', async () => {
    const codings = ['br', 'deflate', 'gzip', 'br', 'deflate'] as const;
    const har = writeFile('codings.har', JSON.stringify(harOf(codings.map((c, i) => pollyEntry(i, c, jsonBody(MiB))))));
    const e = await refusal(har, 3 * MiB + 1024);
    expect(e.code).toBe('inflate-budget');
    expect(e.context).toMatchObject({ file: har, record: 4, path: 'log.entries[3].response.content.text' });
    expect(e.message).toMatch(/Content-Encoding: br/);
  });

  it('a .har.gz and its Content-Encoding bodies share the one budget', async () => {
    const entries = Array.from({ length: 3 }, (_, i) => pollyEntry(i, 'gzip', jsonBody(MiB)));
    const gz = writeFile('polly.har.gz', gzipSync(JSON.stringify(harOf(entries))));
    // The unpacked HAR is small; the three bodies alone fit, the HAR and the bodies do not.
    const e = await refusal(gz, 3 * MiB);
    expect(e.code).toBe('inflate-budget');
    expect(e.context).toMatchObject({ file: gz, path: expect.stringMatching(/response\.content\.text$/) });
  });
});

describe('issue 42 a zip that lies about its sizes', () => {
  it('a member that inflates past the size it declares is refused naming the zip and the member, inflated no further', async () => {
    const zip = writeFile('lying-size.zip', zipWithBody({ name: 'body.bin', data: Buffer.alloc(4 * MiB), declaredSize: 10 }));
    const e = await refusal(zip);
    expect(e.code).toBe('bad-archive');
    expect(e.context.file).toBe(zip);
    expect(e.message).toMatch(/^the zip member "body\.bin" inflates to more than the 10 bytes it declares/);
  });

  it('a .har member that inflates past the size it declares is refused the same way', async () => {
    const har = JSON.stringify(harOf([entry(0, { size: 2, mimeType: 'application/json', text: '{}' })]));
    const zip = writeFile('lying-har.zip', zipOf([{ name: 'har.har', data: Buffer.from(har), declaredSize: 20 }]));
    const e = await refusal(zip);
    expect(e.code).toBe('bad-archive');
    expect(e.message).toMatch(/^the zip member "har\.har" inflates to more than the 20 bytes it declares/);
  });

  it('a member whose local header and central directory disagree is refused naming it; the CLI prints no stack trace', () => {
    const data = Buffer.from('{"a":1}');
    const zip = writeFile('disagree.zip', zipWithBody({ name: 'body.bin', data, localSizes: [3, 999_999] }));
    const r = cli(['load', zip, '--db', join(dir, `c${n++}.sqlite`)]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/disagree\.zip: the zip member "body\.bin" has sizes that disagree/);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});

describe("issue 42 a zip error names the user's file, never a temporary path", () => {
  it('a zip whose .har is not JSON is refused naming the zip, from a file and from standard input', () => {
    // Stored, so every byte is ASCII and passes through the CLI helper's UTF-8 stdin unchanged.
    const zip = zipOf([{ name: 'har.har', data: Buffer.from('{"log": {"entries": [1, }'), deflate: false }]);
    const file = writeFile('bad-json.zip', zip);
    for (const [args, input, named] of [
      [[file], undefined, /bad-json\.zip/],
      [['-'], zip.toString('latin1'), /^capstate: error: -: /m],
    ] as const) {
      const r = cli(['load', ...args, '--db', join(dir, `c${n++}.sqlite`)], { input });
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(named);
      expect(r.stderr).not.toMatch(/capstate-\d+-|capture\.json/);
    }
  });
});

describe('issue 42 the default budget, through the CLI', () => {
  /** A run of CLI loads with their own TMPDIR, to see what each leaves behind. */
  function loadWithTmp(file: string) {
    const tmp = join(dir, `tmp${n++}`);
    mkdirSync(tmp);
    const r = cli(['load', file, '--db', join(dir, `c${n++}.sqlite`)], { env: { TMPDIR: tmp } });
    return { r, left: readdirSync(tmp) };
  }

  it('a 300 KB .har.gz that inflates to 300 MiB stops at 256 MiB: exit 1, the file named, the temp folder empty', () => {
    // gzip members concatenate: a HAR's head, 300 members of 1 MiB of one byte, its tail.
    const run = gzipSync(Buffer.alloc(MiB, 0x61), { level: 9 });
    const head = gzipSync(JSON.stringify(harOf([])).replace(/}}$/, ',"comment":"'));
    const gz = writeFile('bomb.har.gz', Buffer.concat([head, ...Array.from({ length: 300 }, () => run), gzipSync('"}}')]));
    const { r, left } = loadWithTmp(gz);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /bomb\.har\.gz: the gzip-compressed capture decompresses past this capture's decompression budget of 256 MiB \(200 × the [\d.]+ KiB given, at least 256 MiB\)/,
    );
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(left).toEqual([]);
  });

  it('a 1.4 MB zip with a 300 MiB member is refused before the member is inflated: exit 1, zip and member named', () => {
    const zip = writeFile('bomb.zip', zipWithBody({ name: 'abc.dat', data: Buffer.alloc(300 * MiB) }));
    const { r, left } = loadWithTmp(zip);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /bomb\.zip: the zip member "abc\.dat" \(named by log\.entries\[0\]\.response\.content\._file\) decompresses past this capture's decompression budget of [\d.]+ MiB \(200 × the [\d.]+ MiB given/,
    );
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(left).toEqual([]);
  });
});
