/**
 * Atomicity (issue: "A load interrupted by SIGKILL leaves the store as it was"): a load
 * killed while it reads (before its facts commit; after, see load-pending-state.test.ts)
 * leaves an existing store byte-identical once SQLite has rolled back its
 * hot journal (any writing open does that, e.g. `capstate migrate`), and leaves nothing at
 * the path of a store that did not exist.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, cliPath, sha256File, tempDir } from './helpers.js';

const dir = tempDir();
const smallHar = join(dir, 'small.har');
const bigHar = join(dir, 'big.har');

function entry(i: number, body: string): Record<string, unknown> {
  return {
    startedDateTime: new Date(Date.UTC(2024, 4, 1, 10) + i * 10).toISOString(),
    time: 5,
    request: { method: 'GET', url: `http://127.0.0.1:3000/api/items?page=${i}`, headers: [{ name: 'Accept', value: 'application/json' }] },
    response: { status: 200, content: { mimeType: 'application/json', text: body } },
  };
}

/** ~40 MB valid HAR: 10,000 entries with distinct ~3.7 KB JSON bodies (~280 members each). */
async function writeBigHar(file: string): Promise<void> {
  const ws = createWriteStream(file);
  ws.write('{"log":{"version":"1.2","creator":{"name":"capstate-test-big","version":"1"},"entries":[');
  for (let i = 0; i < 10_000; i++) {
    const body = JSON.stringify({
      page: i,
      items: Array.from({ length: 40 }, (_, j) => ({ id: i * 100 + j, name: `item ${j} of page ${i}`, tags: ['a', 'b'], price: j * 1.25 })),
    });
    if (!ws.write((i ? ',' : '') + JSON.stringify(entry(i, body)))) await once(ws, 'drain');
  }
  ws.end(']}}');
  await once(ws, 'finish');
}

beforeAll(async () => {
  writeFileSync(
    smallHar,
    JSON.stringify(
      {
        log: {
          version: '1.2',
          creator: { name: 'capstate-test-small', version: '1' },
          entries: [1, 2, 3].map((i) => entry(i, JSON.stringify({ id: i, name: `item ${i}` }))),
        },
      },
      null,
      2,
    ),
  );
  await writeBigHar(bigHar);
  expect(statSync(bigHar).size).toBeGreaterThan(30e6);
});

interface Killed {
  signal: NodeJS.Signals | null;
  code: number | null;
  stderr: string;
  progressLines: number;
  storeGrew: boolean;
}

/**
 * Starts `capstate load BIG --db store` and SIGKILLs it mid-load: as soon as the file at
 * `watch` has grown past `sizeBefore` (SQLite has spilled pages into it, so the kill
 * leaves a hot journal to roll back), or, failing that, once progress shows half the file
 * read. Off a terminal, progress lines are printed for files over 4 MB at each tenth read.
 */
async function loadAndKill(store: string, watch: (pid: number) => string, sizeBefore: number): Promise<Killed> {
  const child: ChildProcess = spawn(process.execPath, [cliPath, 'load', bigHar, '--db', store], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  let progressLines = 0;
  let halfway = false;
  let storeGrew = false;
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    for (const m of d.toString().matchAll(/: ([\d.]+)\/([\d.]+) MB, /g)) {
      progressLines++;
      if (Number(m[1]) >= Number(m[2]) / 2) halfway = true;
    }
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const timer = setInterval(() => {
    const f = watch(child.pid!);
    if (existsSync(f) && statSync(f).size > sizeBefore) storeGrew = true;
    if ((progressLines > 0 && storeGrew) || halfway) child.kill('SIGKILL');
  }, 20);
  try {
    const [code, signal] = await exited;
    return { code, signal, stderr, progressLines, storeGrew };
  } finally {
    clearInterval(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

describe('atomicity: a load killed by SIGKILL leaves an existing store as it was', () => {
  it('atomicity: after SIGKILL mid-load and a writing open (capstate migrate), the store is byte-identical, same record count, info works', async () => {
    const store = join(dir, 'existing.sqlite');
    const first = cli(['load', smallHar, '--db', store]);
    expect(first.status, first.stderr).toBe(0);
    const hash = sha256File(store);
    const size = statSync(store).size;
    const countOf = () => {
      const r = cli(['sql', 'select count(*) from record', '--db', store, '--json']);
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout).rows[0]['count(*)'] as number;
    };
    const records = countOf();
    expect(records).toBe(3);

    const k = await loadAndKill(store, () => store, size);
    expect(k.signal, `the load finished before it was killed:\n${k.stderr}`).toBe('SIGKILL');
    expect(k.progressLines, k.stderr).toBeGreaterThan(0);

    // Opening for writing rolls back the hot journal the killed load left.
    const m = cli(['migrate', '--db', store]);
    expect(m.status, m.stderr).toBe(0);
    expect(sha256File(store)).toBe(hash);
    expect(countOf()).toBe(records);

    const info = cli(['info', '--db', store, '--json']);
    expect(info.status, info.stderr).toBe(0);
    const doc = JSON.parse(info.stdout);
    expect(doc.captures).toHaveLength(1);
    expect(doc.captures[0].records).toBe(3);
    const text = cli(['info', '--db', store]);
    expect(text.status, text.stderr).toBe(0);

    // The store is usable for the next load: the small capture is still "already loaded".
    const again = cli(['load', smallHar, '--db', store, '--json']);
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).captures[0].already_loaded).toBe(true);
  });
});

describe('atomicity: a load killed by SIGKILL into a new store path leaves no file there', () => {
  it('atomicity: SIGKILL during a load into a store that did not exist leaves nothing at that path; a later load there works', async () => {
    const store = join(dir, 'fresh.sqlite');
    expect(existsSync(store)).toBe(false);
    // The new store is built in `.fresh.sqlite.loading-PID` beside the target.
    const k = await loadAndKill(store, (pid) => join(dir, `.fresh.sqlite.loading-${pid}`), 0);
    expect(k.signal, `the load finished before it was killed:\n${k.stderr}`).toBe('SIGKILL');
    expect(k.progressLines, k.stderr).toBeGreaterThan(0);
    expect(existsSync(store)).toBe(false);
    expect(existsSync(`${store}-journal`)).toBe(false);

    // A later load into the same path builds a complete store.
    const r = cli(['load', smallHar, '--db', store]);
    expect(r.status, r.stderr).toBe(0);
    const info = cli(['info', '--db', store, '--json']);
    expect(info.status, info.stderr).toBe(0);
    expect(JSON.parse(info.stdout).captures.map((c: { records: number }) => c.records)).toEqual([3]);
  });
});
