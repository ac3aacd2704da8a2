/**
 * Issue 46: a load reports progress through every phase — reading the facts, the manifest,
 * the state pass step by step — with a percent and a time left that are the whole load's:
 * never 100% before the end, never backwards, and a time left at the end of the reading that
 * still counts the manifest and the state. A step that keeps the load's thread busy is
 * covered by a heartbeat thread. No timing assertions: clocks are the test's, or the checks
 * are on order and presence.
 */
import { describe, expect, it } from 'vitest';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadProgress } from '../src/ingest/load-captures.js';
import { loadCaptures } from '../src/ingest/load-captures.js';
import { progressReporter } from '../src/cli/progress.js';
import { HEARTBEAT_EVERY_MS, HEARTBEAT_LOOK_MS } from '../src/cli/progress-heartbeat.js';
import { LoadEstimator, loadFraction } from '../src/cli/progress-estimate.js';
import { cli, tempDir } from './helpers.js';

const dir = tempDir();
const MB = 1e6;

/** A.har's progress once it is read (8 MB, 5 records), at the step `extra` names. */
const p = (extra: Partial<LoadProgress>): LoadProgress => ({
  file: 'a.har',
  bytesRead: 8 * MB,
  bytesTotal: 8 * MB,
  records: 5,
  ...extra,
});

/** A HAR over the 4 MB progress threshold, with a list, items and a write, so the state pass has types. */
function bigHar(): string {
  const file = join(dir, 'big.har');
  const entry = (i: number, method = 'GET', url = `http://localhost/api/items/${i}`, body: unknown = { id: i, pad: 'x'.repeat(3000) }) =>
    JSON.stringify({
      startedDateTime: new Date(Date.UTC(2024, 0, 1, 0, 0, 0, i)).toISOString(),
      time: 1,
      request: { method, url, headers: [] },
      response: { status: 200, headers: [], content: { mimeType: 'application/json', text: JSON.stringify(body) } },
    });
  const entries = Array.from({ length: 2000 }, (_, i) => entry(i));
  entries.push(entry(2000, 'GET', 'http://localhost/api/items', [{ id: 1 }, { id: 2 }]));
  writeFileSync(file, `{"log":{"version":"1.2","entries":[${entries.join(',')}]}}`);
  return file;
}
const big = bigHar();

/** Which phase a stderr progress line speaks of. */
function phaseOf(line: string): string {
  if (/ MB, \d+%/.test(line)) return 'facts';
  if (line.includes('finding the tools')) return 'manifest';
  if (line.includes(', state: ')) return 'state';
  if (/100%, done in/.test(line)) return 'done';
  return 'other';
}

describe('cli-progress: capstate load tells every phase', () => {
  it('prints the reading, the manifest, the state steps and the end in that order, with a percent that never goes back and is 100 only on the last line', () => {
    const r = cli(['load', big, '--db', join(dir, 'phases.sqlite')]);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('capstate: ') && l.includes(big));
    const phases = lines.map(phaseOf).filter((p, i, all) => p !== all[i - 1]);
    expect(phases).toEqual(['facts', 'manifest', 'state', 'done']);
    const percents = lines.map((l) => Number(l.match(/[:,] (\d+)%/)?.[1]));
    expect(percents.every((p) => Number.isInteger(p))).toBe(true);
    for (let i = 1; i < percents.length; i++) expect(percents[i]).toBeGreaterThanOrEqual(percents[i - 1]);
    expect(percents.slice(0, -1).every((p) => p < 100)).toBe(true);
    expect(percents.at(-1)).toBe(100);
    // The state pass names its steps: the rules, then the types.
    expect(r.stderr).toContain('state: evaluating the rules over the records');
    expect(r.stderr).toMatch(/state: building type 1 of \d+/);
  });

  it('the loader tells the state steps in their order, each unit counted up to its total', async () => {
    const events: LoadProgress[] = [];
    await loadCaptures({ db: join(dir, 'steps.sqlite'), files: [big], onProgress: (p) => events.push(p) });
    const phases = events.map((e) => e.phase ?? 'facts').filter((p, i, all) => p !== all[i - 1]);
    expect(phases).toEqual(['facts', 'manifest', 'state', 'done']);
    const steps = events.flatMap((e) => (e.step ? [e.step.step] : [])).filter((s, i, all) => s !== all[i - 1]);
    expect(steps).toEqual(['views', 'bounds', 'records', 'types', 'write-check', 'digest']);
    const types = events.flatMap((e) => (e.step?.step === 'types' ? [e.step] : []));
    expect(types.map((t) => t.done)).toEqual(Array.from({ length: types[0].total + 1 }, (_, i) => i));
    // The fraction of the whole load never goes back.
    const fractions = events.map(loadFraction);
    for (let i = 1; i < fractions.length; i++) expect(fractions[i]).toBeGreaterThanOrEqual(fractions[i - 1]);
  });
});

describe('cli-progress: the time left counts the phases after the reading', () => {
  const at = (bytesRead: number, extra: Partial<LoadProgress> = {}): LoadProgress => ({
    file: 'a.har',
    bytesRead,
    bytesTotal: 200 * MB,
    records: 10,
    ...extra,
  });
  it('at the end of the reading, the time left is the manifest and state still to come, not zero, and the percent is not 100', () => {
    const e = new LoadEstimator(0);
    const end = e.observe(at(200 * MB), 64_000); // the 200 MB read in 64 s
    expect(end.percent).toBeLessThan(100);
    expect(end.secondsLeft).toBeGreaterThan(30);
  });
  it('after the reading, a slow state pass lengthens the time left from its own pace', () => {
    const e = new LoadEstimator(0);
    e.observe(at(200 * MB), 64_000);
    const early = e.observe(at(200 * MB, { phase: 'state', step: { step: 'views', done: 0, total: 1 } }), 70_000);
    // The views took 100 s, a quarter of the state pass: the rest at that pace is minutes, not seconds.
    const slow = e.observe(at(200 * MB, { phase: 'state', step: { step: 'bounds', done: 0, total: 4 } }), 170_000);
    expect(early.secondsLeft).toBeGreaterThan(0);
    expect(slow.secondsLeft).toBeGreaterThan(120);
    expect(slow.percent).toBeGreaterThanOrEqual(early.percent);
  });
  it('is 99 at most until the load is done, however far the steps say they are, and 100 when done', () => {
    const e = new LoadEstimator(0);
    const last = e.observe(at(200 * MB, { phase: 'state', step: { step: 'digest', done: 1, total: 1 } }), 1000);
    expect(last.percent).toBe(99);
    expect(e.observe(at(200 * MB, { phase: 'done' }), 2000).percent).toBe(100);
  });
});

/** A reporter off a terminal, its clock set by the test, and the lines it wrote. */
function offTerminal() {
  const chunks: string[] = [];
  const clock = { t: 0 };
  const r = progressReporter({ isTTY: false, write: (c: string) => chunks.push(c) }, { now: () => clock.t });
  return { r, clock, lines: () => chunks.join('').split('\n').filter(Boolean) };
}

describe('cli-progress: off a terminal, the steps after the reading', () => {
  it('print a line at each new step, and within a step at most one per few seconds', () => {
    const { r, clock, lines } = offTerminal();
    clock.t = 1000;
    r.update(p({ phase: 'facts' }));
    r.update(p({ phase: 'manifest' }));
    for (let i = 0; i < 50; i++) {
      clock.t += 10;
      r.update(p({ phase: 'state', step: { step: 'types', done: i, total: 50 } }));
    }
    clock.t += 5000;
    r.update(p({ phase: 'state', step: { step: 'types', done: 49, total: 50 } }));
    r.update(p({ phase: 'state', step: { step: 'write-check', done: 0, total: 1 } }));
    r.update(p({ phase: 'done' }));
    r.end();
    expect(lines()).toEqual([
      'capstate: a.har: 8.0/8.0 MB, 48%, 8.0 MB/s, about 0:01 left, 5 records',
      'capstate: a.har: 48%, about 0:01 left, finding the tools in 5 records',
      'capstate: a.har: 75%, almost done, state: building type 1 of 50',
      expect.stringMatching(/^capstate: a\.har: \d+%, about 0:\d\d left, state: building type 50 of 50$/),
      expect.stringMatching(/^capstate: a\.har: \d+%, about 0:\d\d left, state: checking the write tools against later reads$/),
      'capstate: a.har: 100%, done in 0:07',
    ]);
  });
});

/** A reporter off a terminal writing to file `name`, its heartbeat every 100 ms; `started` once the heartbeat runs. */
function beatingReporter(name: string) {
  const file = join(dir, name);
  const fd = openSync(file, 'w');
  let ready!: () => void;
  const started = new Promise<void>((res) => (ready = res));
  const r = progressReporter(
    { isTTY: false, write: (c: string) => writeFileSync(fd, c) },
    { heartbeat: { fd, everyMs: 100, onReady: () => ready() } },
  );
  return { file, fd, r, started };
}

describe('cli-progress: a heartbeat while the load thread is busy', () => {
  it('repeats the step with its time left while this thread is blocked, and writes nothing after the reporter ends', async () => {
    const { file, fd, r, started } = beatingReporter('beat.log');
    r.update(p({ phase: 'facts' }));
    r.update(p({ phase: 'state', step: { step: 'views', done: 0, total: 1 } }));
    await started;
    // One long synchronous step, as a big view evaluation is: this thread prints nothing meanwhile.
    const until = Date.now() + 1500;
    while (Date.now() < until) {
      /* busy */
    }
    r.end();
    const after = readFileSync(file, 'utf8');
    await new Promise((res) => setTimeout(res, 400));
    closeSync(fd);
    expect(readFileSync(file, 'utf8')).toBe(after);
    expect(after).toMatch(/capstate: a\.har: \d+%, .*state: evaluating the rules over the records \(0:0\d so far\)\n/);
  });
});

describe('cli-progress: issue 49, progress never silent for 5 s', () => {
  it('in the reading too: while the parse side reads for credentials before counting a byte, the heartbeat says the capture is being read', async () => {
    const { file, fd, r, started } = beatingReporter('beat-reading.log');
    // What the loader tells as the reading begins (load-captures.ts): no byte read yet, so no line of its own.
    r.update({ ...p({ phase: 'facts' }), bytesRead: 0, records: 0 });
    await started;
    const until = Date.now() + 1500;
    while (Date.now() < until) {
      /* busy, as the first pass keeps the loader */
    }
    r.end();
    closeSync(fd);
    expect(readFileSync(file, 'utf8')).toMatch(/capstate: a\.har: \d+%, .*reading the capture \(0:0\d so far\)\n/);
  });

  it('off a terminal the heartbeat repeats the step every 3 s and looks every 250 ms: no silence reaches 5 s, a late timer on a busy machine included', () => {
    expect(HEARTBEAT_EVERY_MS.file + HEARTBEAT_LOOK_MS).toBeLessThan(5000);
    expect(HEARTBEAT_EVERY_MS.tty + HEARTBEAT_LOOK_MS).toBeLessThan(5000);
    // Room for a timer that fires late: beside the test suite a 4 s heartbeat's gaps reached 5.54 s.
    expect(5000 - (HEARTBEAT_EVERY_MS.file + HEARTBEAT_LOOK_MS)).toBeGreaterThanOrEqual(1500);
  });
});

describe('cli-progress: issue 49, a state told after other work', () => {
  it("a file's state comes after the other files' reading: its time is its own, not theirs", () => {
    const { r, clock, lines } = offTerminal();
    clock.t = 1000;
    r.update(p({ phase: 'facts' }));
    r.update(p({ phase: 'manifest' }));
    // b.har is read for a minute before a.har's state begins.
    clock.t += 60_000;
    r.update({ ...p({ phase: 'facts' }), file: 'b.har' });
    r.update({ ...p({ phase: 'manifest' }), file: 'b.har' });
    clock.t += 1000;
    r.update(p({ phase: 'state', step: { step: 'views', done: 0, total: 1 } }));
    clock.t += 1000;
    r.update(p({ phase: 'done' }));
    r.end();
    expect(lines().at(-1)).toBe('capstate: a.har: 100%, done in 0:03');
  });
  it("a pending capture's state computed alone: the percent is its steps', the time left their pace once there is one", () => {
    const e = new LoadEstimator(0);
    const first = e.observe(p({ file: 'capture 2', phase: 'state', step: { step: 'views', done: 0, total: 1 } }), 0);
    expect([first.percent, first.secondsLeft]).toEqual([0, null]);
    // The views are about a quarter of the state pass: ten seconds for them leaves about thirty.
    const next = e.observe(p({ file: 'capture 2', phase: 'state', step: { step: 'bounds', done: 0, total: 4 } }), 10_000);
    expect(next.percent).toBe(26);
    expect(next.secondsLeft).toBeCloseTo(28.5, 0);
    expect(e.observe(p({ file: 'capture 2', phase: 'done' }), 20_000)).toMatchObject({ percent: 100, secondsLeft: 0 });
  });
});
