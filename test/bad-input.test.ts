/**
 * Bad input (issue: "Bad input"): every class of broken capture gets an error that names
 * the file, the record (1-based: log.entries[0] is record #1) and the JSON path, exits 1,
 * and leaves the store byte-identical (one transaction per load); a bad load into a store
 * that does not exist yet leaves no file behind. Bodies that are merely unusable (ES-4)
 * are not load errors. Loading the same capture twice is a deliberate no-op.
 *
 * Every bad capture is generated here from a small valid HAR built in code.
 */
import { createWriteStream, copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, sha256File, tempDir } from './helpers.js';
import { MAX_VALUE_BYTES } from '../src/load/split.js';

const dir = tempDir();

// ---------------------------------------------------------------- capture builders

type Json = Record<string, any>;

function entry(i: number): Json {
  return {
    startedDateTime: `2024-05-01T10:00:0${i}.000Z`,
    time: 12.5,
    request: { method: 'GET', url: `http://127.0.0.1:3000/api/items/${i}`, headers: [{ name: 'Accept', value: 'application/json' }] },
    response: { status: 200, content: { mimeType: 'application/json', text: JSON.stringify({ id: i, name: `item ${i}` }) } },
  };
}

/** A small valid HAR 1.2 capture: 3 entries with JSON response bodies. */
function validHar(tag = 'base'): Json {
  return { log: { version: '1.2', creator: { name: `capstate-test-${tag}`, version: '1' }, entries: [entry(1), entry(2), entry(3)] } };
}

let fileNo = 0;
/** Writes `content` to a fresh file in the temp dir and returns its absolute path. */
function writeCapture(name: string, content: string | Buffer): string {
  const file = join(dir, `${String(++fileNo).padStart(2, '0')}-${name}`);
  writeFileSync(file, content);
  return file;
}

/** A valid HAR changed by `mutate` (which gets the entries array). */
function harWith(name: string, mutate: (entries: Json[], har: Json) => void): string {
  const har = validHar();
  mutate(har.log.entries, har);
  return writeCapture(name, JSON.stringify(har, null, 2));
}

// ---------------------------------------------------------------- stores

const baseHar = writeCapture('base.har', JSON.stringify(validHar(), null, 2));
const baseStore = join(dir, 'base.sqlite');

beforeAll(() => {
  const r = cli(['load', baseHar, '--db', baseStore]);
  expect(r.status, r.stderr).toBe(0);
});

let storeNo = 0;
/** A copy of a store holding the valid base capture (3 records). */
function loadedStore(): string {
  const s = join(dir, `store-${++storeNo}.sqlite`);
  copyFileSync(baseStore, s);
  return s;
}

/** An empty directory; `store.sqlite` inside it does not exist. */
function emptyStoreDir(): string {
  const d = join(dir, `new-${++storeNo}`);
  mkdirSync(d);
  return d;
}

function sqlRows(store: string, query: string): unknown[][] {
  const r = cli(['sql', query, '--db', store, '--json']);
  expect(r.status, r.stderr).toBe(0);
  // sql --json rows are objects keyed by column (format_version 2); positional here for brevity.
  return (JSON.parse(r.stdout) as { rows: Record<string, unknown>[] }).rows.map((row) => Object.values(row));
}

const count = (store: string, table: string): number => sqlRows(store, `select count(*) from ${table}`)[0][0] as number;

// ---------------------------------------------------------------- the bad-load contract

interface Expected {
  code: string;
  /** 1-based record ordinal for entry-level problems; undefined for file-level ones. */
  record?: number;
  /** The exact JSON path, or a RegExp when only its prefix is fixed. */
  path?: string | RegExp;
}

/**
 * Runs a bad load (1) with --json into a store holding a valid capture and (2) in text mode
 * into a store path that does not exist, and checks the whole contract.
 */
function expectBadLoad(files: string | string[], want: Expected): void {
  const list = Array.isArray(files) ? files : [files];
  const bad = list[list.length - 1];

  // (1) --json, existing store.
  const store = loadedStore();
  const before = sha256File(store);
  const records = count(store, 'record');
  const j = cli(['load', ...list, '--db', store, '--json']);
  expect(j.status, j.stderr).toBe(1);
  expect(j.stderr).not.toMatch(/internal error|RangeError|Maximum call stack|\n\s+at /);
  let doc: Json;
  try {
    doc = JSON.parse(j.stdout); // exactly one JSON document
  } catch {
    throw new Error(`--json stdout is not one JSON document:\n${j.stdout}`);
  }
  expect(Object.keys(doc).sort()).toEqual(['code', 'context', 'format_version', 'message', 'ok']);
  expect(doc.format_version).toBe(1);
  expect(doc.ok).toBe(false);
  expect(doc.code).toBe(want.code);
  expect(typeof doc.message).toBe('string');
  expect(doc.message.length).toBeGreaterThan(10);
  expect(doc.context.file).toBe(bad);
  // One transaction per load: the store is exactly as before, with no journal left over.
  expect(sha256File(store)).toBe(before);
  expect(existsSync(`${store}-journal`)).toBe(false);
  expect(count(store, 'record')).toBe(records);
  // Where: soft, so that every missing piece of the error's location is reported.
  expect.soft(doc.context.record, 'context.record').toBe(want.record);
  if (want.path instanceof RegExp) expect.soft(doc.context.path, 'context.path').toMatch(want.path);
  else if (want.path !== undefined) expect.soft(doc.context.path, 'context.path').toBe(want.path);

  // (2) text mode, store path that does not exist.
  const fresh = emptyStoreDir();
  const t = cli(['load', ...list, '--db', join(fresh, 'store.sqlite')]);
  expect(t.status, t.stderr).toBe(1);
  expect(t.stdout).toBe('');
  expect(t.stderr).not.toMatch(/internal error|RangeError|Maximum call stack|\n\s+at /);
  expect(t.stderr).toContain(bad);
  // Neither the store nor its `.store.sqlite.loading-PID` work file (nor a journal) remains.
  expect(readdirSync(fresh)).toEqual([]);
  if (want.record !== undefined) expect.soft(t.stderr, 'stderr names the record').toContain(`record #${want.record}`);
  else expect.soft(t.stderr, 'stderr names no record').not.toContain('record #');
  if (typeof want.path === 'string') expect.soft(t.stderr, 'stderr names the JSON path').toContain(want.path);
  else if (want.path) expect.soft(t.stderr, 'stderr names the JSON path').toMatch(new RegExp(want.path.source.replace(/^\^/, '')));
}

// ---------------------------------------------------------------- file-level problems

describe('bad input: a file that is not JSON', () => {
  it('bad input: a file that is not JSON ("hello") is bad-json at the root, exit 1, store unchanged, no new store', () => {
    expectBadLoad(writeCapture('hello.har', 'hello'), { code: 'bad-json', path: '(root)' });
  });

  it('bad input: an empty file is bad-json at the root, exit 1, store unchanged, no new store', () => {
    expectBadLoad(writeCapture('empty.har', ''), { code: 'bad-json', path: '(root)' });
  });
});

describe('bad input: a truncated file', () => {
  it('bad input: truncated file (cut inside entry 2) is "truncated" and names the record being read, record #2 (log.entries[1])', () => {
    const text = JSON.stringify(validHar(), null, 2);
    const cut = text.indexOf('/api/items/2'); // inside log.entries[1].request.url
    expect(cut).toBeGreaterThan(0);
    expectBadLoad(writeCapture('truncated.har', text.slice(0, cut)), { code: 'truncated', record: 2, path: /^log\.entries\[1\]/ });
  });
});

describe('bad input: JSON that is neither HAR nor scenario Evidence', () => {
  it('bad input: {"foo":1} is unknown-format naming the file, exit 1, store unchanged', () => {
    expectBadLoad(writeCapture('foo.json', '{"foo":1}'), { code: 'unknown-format' });
  });

  it('bad input: a "log" that is not an object is unknown-format at path log', () => {
    expectBadLoad(writeCapture('log-array.har', '{"log":[1,2,3]}'), { code: 'unknown-format', path: 'log' });
  });
});

// ---------------------------------------------------------------- entry fields

describe('bad input: entries missing required fields', () => {
  it('bad input: an entry without request.url is missing-field at record #2 (log.entries[1].request.url)', () => {
    expectBadLoad(
      harWith('no-url.har', (e) => {
        delete e[1].request.url;
      }),
      { code: 'missing-field', record: 2, path: 'log.entries[1].request.url' },
    );
  });

  it('bad input: an entry without response.status is missing-field at record #2 (log.entries[1].response.status)', () => {
    expectBadLoad(
      harWith('no-status.har', (e) => {
        delete e[1].response.status;
      }),
      { code: 'missing-field', record: 2, path: 'log.entries[1].response.status' },
    );
  });
});

describe('bad input: a field of the wrong type', () => {
  it('bad input: response.status "200" (a string) is bad-field at record #2 (log.entries[1].response.status)', () => {
    expectBadLoad(
      harWith('status-string.har', (e) => {
        e[1].response.status = '200';
      }),
      { code: 'bad-field', record: 2, path: 'log.entries[1].response.status' },
    );
  });
});

describe('bad input: invalid dates', () => {
  it('bad input: startedDateTime "yesterday" is invalid-date at record #2 (log.entries[1].startedDateTime)', () => {
    expectBadLoad(
      harWith('date-yesterday.har', (e) => {
        e[1].startedDateTime = 'yesterday';
      }),
      { code: 'invalid-date', record: 2, path: 'log.entries[1].startedDateTime' },
    );
  });

  it('bad input: an impossible date (2024-02-30T10:00:00Z) is invalid-date at record #2', () => {
    expectBadLoad(
      harWith('date-feb30.har', (e) => {
        e[1].startedDateTime = '2024-02-30T10:00:00Z';
      }),
      { code: 'invalid-date', record: 2, path: 'log.entries[1].startedDateTime' },
    );
  });
});

describe('bad input: invalid base64', () => {
  it('bad input: content.encoding base64 with text that is not base64 is invalid-base64 at log.entries[1].response.content.text', () => {
    expectBadLoad(
      harWith('bad-base64.har', (e) => {
        e[1].response.content.encoding = 'base64';
        e[1].response.content.text = 'this is not base64!';
      }),
      { code: 'invalid-base64', record: 2, path: 'log.entries[1].response.content.text' },
    );
  });
});

describe('bad input: invalid UTF-8', () => {
  it('bad input: raw bytes C3 28 inside a body string are invalid-utf8 naming record #2 (log.entries[1]…)', () => {
    const bytes = Buffer.from(JSON.stringify(validHar()).replace('item 2', 'item @@'), 'utf8');
    const at = bytes.indexOf('item @@');
    bytes[at + 5] = 0xc3; // a lead byte …
    bytes[at + 6] = 0x28; // … followed by '(' instead of a continuation byte
    expectBadLoad(writeCapture('bad-utf8.har', bytes), { code: 'invalid-utf8', record: 2, path: /^log\.entries\[1\]/ });
  });
});

describe('bad input: deeply nested JSON', () => {
  it('bad input: 100,000 levels of nesting inside entry 1 is a clean too-deep error (no stack overflow) naming record #1', () => {
    const depth = 100_000;
    const text = JSON.stringify(validHar()).replace('"time":12.5', `"time":12.5,"_x":${'['.repeat(depth)}${']'.repeat(depth)}`);
    expectBadLoad(writeCapture('deep.har', text), { code: 'too-deep', record: 1, path: /^log\.entries\[0\]/ });
  });
});

describe('bad input: a huge single value', () => {
  it(`bad input: an entry whose content.text is over MAX_VALUE_BYTES (${MAX_VALUE_BYTES} bytes) is value-too-large naming record #1`, async () => {
    const file = join(dir, 'huge.har');
    const har = validHar();
    har.log.entries[0].response.content = { mimeType: 'text/plain', text: '@@BODY@@' };
    const [head, tail] = JSON.stringify(har).split('"@@BODY@@"');
    const ws = createWriteStream(file);
    ws.write(head + '"');
    const mib = Buffer.alloc(1024 * 1024, 0x61); // 'a'
    for (let i = 0; i < MAX_VALUE_BYTES / mib.length + 2; i++) if (!ws.write(mib)) await once(ws, 'drain');
    ws.end('"' + tail);
    await once(ws, 'finish');
    try {
      expectBadLoad(file, { code: 'value-too-large', record: 1, path: /^log\.entries\[0\]/ });
    } finally {
      rmSync(file, { force: true });
    }
  });
});

describe('bad input: duplicate keys', () => {
  it('bad input: "status":200,"status":404 in a response is duplicate-key at record #1 (log.entries[0].response.status)', () => {
    const text = JSON.stringify(validHar()).replace('"status":200', '"status":200,"status":404');
    expectBadLoad(writeCapture('dup-key.har', text), { code: 'duplicate-key', record: 1, path: 'log.entries[0].response.status' });
  });
});

describe('bad input: credentials in a URL', () => {
  it('bad input: a URL with user:password@ is sensitive-value at record #2 (log.entries[1].request.url)', () => {
    expectBadLoad(
      harWith('userinfo.har', (e) => {
        e[1].request.url = 'http://alice:s3cret@127.0.0.1:3000/api/items/2';
      }),
      { code: 'sensitive-value', record: 2, path: 'log.entries[1].request.url' },
    );
  });

  it('bad input: the credential is not echoed in the error', () => {
    const file = harWith('userinfo-echo.har', (e) => {
      e[1].request.url = 'http://alice:s3cret@127.0.0.1:3000/api/items/2';
    });
    const r = cli(['load', file, '--db', join(emptyStoreDir(), 'store.sqlite'), '--json']);
    expect(r.status).toBe(1);
    expect(r.stdout + r.stderr).not.toContain('s3cret');
  });
});

// ---------------------------------------------------------------- all or nothing

describe('bad input: a multi-file load is all or nothing', () => {
  it('bad input: when the second file is bad, the first (valid) file is not loaded either; store byte-identical', () => {
    const good = writeCapture('other-good.har', JSON.stringify(validHar('other'), null, 2));
    const bad = harWith('second-bad.har', (e) => {
      e[2].startedDateTime = 'yesterday';
    });
    expectBadLoad([good, bad], { code: 'invalid-date', record: 3, path: 'log.entries[2].startedDateTime' });

    // And explicitly: the first file's capture is not in the store.
    const store = loadedStore();
    const r = cli(['load', good, bad, '--db', store]);
    expect(r.status).toBe(1);
    expect(count(store, 'capture')).toBe(1);
    expect(sqlRows(store, `select count(*) from capture where creator like 'capstate-test-other%'`)[0][0]).toBe(0);
  });
});

// ---------------------------------------------------------------- scenario Evidence

function validEvidence(): Json {
  const body = Buffer.from('[{"id":1,"name":"Lamp"}]');
  return {
    schema_version: 1,
    scenario: { start_url: 'http://127.0.0.1:3000/', network_content: { request_body: true, response_body: true, header_values: true } },
    steps: [{ step_id: 's1', action: 'click', status: 'completed' }],
    events: [
      {
        sequence: 1,
        kind: 'request',
        step_id: 's1',
        transaction_id: 't1',
        redirected_from_transaction_id: null,
        method: 'GET',
        url: 'http://127.0.0.1:3000/api/items',
        observed_at: '2026-11-29T10:00:00.010Z',
      },
      {
        sequence: 2,
        kind: 'response',
        step_id: 's1',
        transaction_id: 't1',
        status: 200,
        status_text: 'OK',
        observed_at: '2026-11-29T10:00:00.040Z',
      },
      {
        sequence: 3,
        kind: 'network-content',
        step_id: 's1',
        transaction_id: 't1',
        source_event_sequence: 2,
        body: {
          state: 'captured',
          base64: body.toString('base64'),
          bytes: body.length,
          media_type: 'application/json',
          sha256: createHash('sha256').update(body).digest('hex'),
        },
      },
    ],
  };
}

function evidenceWith(name: string, mutate: (events: Json[]) => void): string {
  const ev = validEvidence();
  mutate(ev.events);
  return writeCapture(name, JSON.stringify(ev, null, 2));
}

describe('bad input: scenario Evidence network events are strict', () => {
  it('bad input: the valid Evidence built here loads (control)', () => {
    const r = cli(['load', evidenceWith('evidence-ok.json', () => {}), '--db', join(emptyStoreDir(), 'store.sqlite')]);
    expect(r.status, r.stderr).toBe(0);
  });

  it('bad input: an unknown field in a network event is unknown-field at events[1].colour', () => {
    expectBadLoad(
      evidenceWith('evidence-unknown-field.json', (ev) => {
        ev[1].colour = 'red';
      }),
      { code: 'unknown-field', path: 'events[1].colour' },
    );
  });

  it('bad input: a network event without transaction_id is missing-field at events[1].transaction_id', () => {
    expectBadLoad(
      evidenceWith('evidence-no-tx.json', (ev) => {
        delete ev[1].transaction_id;
      }),
      { code: 'missing-field', path: 'events[1].transaction_id' },
    );
  });

  it('bad input: a body whose sha256 does not match its bytes is bad-field at events[2].body.sha256', () => {
    expectBadLoad(
      evidenceWith('evidence-sha-mismatch.json', (ev) => {
        ev[2].body.sha256 = '0'.repeat(64);
      }),
      { code: 'bad-field', path: 'events[2].body.sha256' },
    );
  });
});

// ---------------------------------------------------------------- ES-4: unusable bodies are not load errors

describe('ES-4: a JSON body that cannot be used for state still loads, as kind text with the reason', () => {
  const cases: { name: string; text: string; reason: string }[] = [
    { name: 'duplicate keys', text: '{"a":1,"a":2}', reason: 'duplicate-key' },
    { name: 'a __proto__ member', text: '{"__proto__":{"isAdmin":true}}', reason: 'proto-member' },
    { name: '100,000 levels of nesting', text: '['.repeat(100_000) + ']'.repeat(100_000), reason: 'too-deep' },
    {
      name: 'a 300 KiB body',
      text: JSON.stringify({ items: Array.from({ length: 3100 }, (_, i) => ({ id: i, name: 'x'.repeat(80) })) }),
      reason: 'oversize',
    },
    { name: 'a 2^70 integer', text: `{"n":${2n ** 70n}}`, reason: 'inexact-number' },
  ];

  for (const c of cases) {
    it(`ES-4: a JSON response body with ${c.name} loads (exit 0) as kind text, unusable_reason ${c.reason}`, () => {
      if (c.reason === 'oversize') expect(Buffer.byteLength(c.text)).toBeGreaterThan(300 * 1024);
      const file = harWith(`es4-${c.reason}.har`, (e) => {
        e[0].response.content.text = c.text;
      });
      const store = join(emptyStoreDir(), 'store.sqlite');
      const r = cli(['load', file, '--db', store]);
      expect(r.status, r.stderr).toBe(0);
      expect(count(store, 'record')).toBe(3);
      const rows = sqlRows(
        store,
        'select b.kind, b.unusable_reason, b.is_usable from record r join body b on b.id = r.response_body_id where r.ordinal = 1',
      );
      expect(rows).toEqual([['text', c.reason, 0]]);
      // The other records' bodies are unaffected.
      expect(sqlRows(store, `select count(*) from record r join body b on b.id = r.response_body_id where b.kind = 'json'`)[0][0]).toBe(2);
    });
  }
});

// ---------------------------------------------------------------- the same capture twice

describe('loading the same capture twice is a deliberate no-op', () => {
  it('loading a capture that is already in the store exits 0, adds nothing, says "already loaded", store byte-identical', () => {
    const store = loadedStore();
    const before = sha256File(store);
    const records = count(store, 'record');
    const r = cli(['load', baseHar, '--db', store]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/already loaded/);
    expect(count(store, 'record')).toBe(records);
    expect(count(store, 'capture')).toBe(1);
    expect(sha256File(store)).toBe(before);
  });

  it('with --json the capture entry says already_loaded: true, records 0, and the existing capture id', () => {
    const store = loadedStore();
    const id = sqlRows(store, 'select id from capture')[0][0];
    const r = cli(['load', baseHar, '--db', store, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ format_version: 1, ok: true });
    expect(doc.captures).toHaveLength(1);
    expect(doc.captures[0]).toMatchObject({ file: baseHar, already_loaded: true, records: 0, capture_id: id });
    expect(count(store, 'record')).toBe(3);
  });

  it('the same bytes under another name count as the same capture (identity is the SHA-256)', () => {
    const store = loadedStore();
    const copy = join(dir, 'base-copy.har');
    copyFileSync(baseHar, copy);
    const r = cli(['load', copy, '--db', store, '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).captures[0].already_loaded).toBe(true);
    expect(count(store, 'capture')).toBe(1);
  });

  it('the same file twice in one command is loaded once', () => {
    const store = join(emptyStoreDir(), 'store.sqlite');
    const r = cli(['load', baseHar, baseHar, '--db', store, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.captures.map((c: Json) => c.already_loaded)).toEqual([false, true]);
    expect(count(store, 'capture')).toBe(1);
    expect(count(store, 'record')).toBe(3);
  });
});
