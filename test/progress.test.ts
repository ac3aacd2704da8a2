/**
 * Load progress (issue 19): on a terminal one line updated in place with percent, MB/s and
 * time left; off a terminal a plain line per tenth of the file; nothing with --quiet; all
 * on stderr. The reporter is driven with a stand-in stream and clock, then the CLI through
 * a real pseudo-terminal (`script`).
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clock, formatProgress, progressReporter, PROGRESS_MIN_BYTES } from '../src/cli/progress.js';
import { cli, cliPath, tempDir } from './helpers.js';

const dir = tempDir();
const MB = 1e6;

/** A stream that keeps what is written, and a clock the test moves. */
function fake(isTTY: boolean) {
  const chunks: string[] = [];
  let t = 0;
  return {
    stream: { isTTY, columns: 200, write: (c: string) => chunks.push(c) },
    chunks,
    now: () => t,
    tick: (ms: number) => {
      t += ms;
    },
  };
}

/** Reads a 300 MB file in 1 MB steps, 10 ms apart (100 MB/s). */
function read300(r: ReturnType<typeof progressReporter>, tick: (ms: number) => void) {
  for (let mb = 1; mb <= 300; mb++) {
    tick(10);
    r.update({ file: 'big.har', bytesRead: mb * MB, bytesTotal: 300 * MB, records: mb * 10 });
  }
}

describe('progress: the line', () => {
  it('says how far, how fast and how long is left', () => {
    expect(
      formatProgress(
        { file: 'a.har', bytesRead: 30 * MB, bytesTotal: 300 * MB, records: 1234 },
        { percent: 4, bytesPerSecond: 15 * MB, secondsLeft: 18, elapsedMs: 2000 },
      ),
    ).toBe('a.har: 30.0/300.0 MB, 4%, 15.0 MB/s, about 0:18 left, 1,234 records');
  });
  it('leaves out rate and time left before there is time to measure them', () => {
    expect(
      formatProgress(
        { file: 'a.har', bytesRead: 5 * MB, bytesTotal: 300 * MB, records: 1 },
        { percent: 0, bytesPerSecond: null, secondsLeft: null, elapsedMs: 50 },
      ),
    ).toBe('a.har: 5.0/300.0 MB, 0%, 1 records');
  });
  it('time left reads as m:ss or h:mm:ss', () => {
    expect([clock(0), clock(59.6), clock(61), clock(3725)]).toEqual(['0:00', '1:00', '1:01', '1:02:05']);
  });
});

describe('progress: off a terminal', () => {
  it('prints a plain line per tenth of the file: ten lines for 300 MB (the reading is about half the load), no carriage returns or escapes', () => {
    const f = fake(false);
    const r = progressReporter(f.stream, { now: f.now });
    read300(r, f.tick);
    r.end();
    const lines = f.chunks.join('').split('\n').filter(Boolean);
    expect(lines).toHaveLength(10);
    expect(lines.map((l) => l.match(/, (\d+)%/)![1])).toEqual(['4', '9', '14', '19', '24', '28', '33', '38', '43', '48']);
    // 2.7 s of reading left, and the manifest and state at their usual share of the reading's 3 s.
    expect(lines[0]).toBe('capstate: big.har: 30.0/300.0 MB, 4%, 100.0 MB/s, about 0:06 left, 300 records');
    expect(f.chunks.join('')).not.toMatch(/[\r\u001b]/);
  });
  it('says nothing for a file under 4 MB, and nothing at all with --quiet', () => {
    const small = fake(false);
    const r = progressReporter(small.stream, { now: small.now });
    r.update({ file: 's.har', bytesRead: PROGRESS_MIN_BYTES - 1, bytesTotal: PROGRESS_MIN_BYTES - 1, records: 3 });
    expect(small.chunks).toEqual([]);
    for (const isTTY of [false, true]) {
      const q = fake(isTTY);
      read300(progressReporter(q.stream, { quiet: true, now: q.now }), q.tick);
      expect(q.chunks).toEqual([]);
    }
  });
});

describe('progress: on a terminal', () => {
  it('redraws one line in place (carriage return, erase to end of line), at most ten times a second, and clears it at the end', () => {
    const f = fake(true);
    const r = progressReporter(f.stream, { now: f.now });
    read300(r, f.tick); // 3 s of reading
    const draws = f.chunks.length;
    expect(draws).toBeGreaterThanOrEqual(29);
    expect(draws).toBeLessThanOrEqual(31);
    for (const c of f.chunks) expect(c).toMatch(/^\r.*\u001b\[K$/);
    expect(f.chunks.join('')).not.toContain('\n');
    expect(f.chunks.at(-1)).toContain('300.0/300.0 MB, 48%');
    r.end();
    expect(f.chunks.at(-1)).toBe('\r\u001b[K');
  });
  it('a log line clears the progress line first, so the two never share a line', () => {
    const f = fake(true);
    const r = progressReporter(f.stream, { now: f.now });
    f.tick(300);
    r.update({ file: 'big.har', bytesRead: 50 * MB, bytesTotal: 300 * MB, records: 5 });
    r.log('big.har: a warning');
    expect(f.chunks.slice(-2)).toEqual(['\r\u001b[K', 'capstate: big.har: a warning\n']);
  });
  it('fits the terminal width', () => {
    const f = fake(true);
    f.stream.columns = 40;
    const r = progressReporter(f.stream, { now: f.now });
    f.tick(300);
    r.update({ file: 'a-very-long-capture-file-name-indeed.har', bytesRead: 50 * MB, bytesTotal: 300 * MB, records: 5 });
    expect(f.chunks[0].replace(/^\r|\u001b\[K$/g, '').length).toBeLessThanOrEqual(39);
  });
});

const hasScript = existsSync('/usr/bin/script');
describe.skipIf(!hasScript)('progress: capstate load through a pseudo-terminal and through a pipe', () => {
  const big = join(dir, 'big.har');
  const entry = (i: number) =>
    JSON.stringify({
      startedDateTime: new Date(Date.UTC(2024, 0, 1, 0, 0, 0, i)).toISOString(),
      time: 1,
      request: { method: 'GET', url: `http://localhost/api/items/${i}`, headers: [] },
      response: {
        status: 200,
        headers: [],
        content: { mimeType: 'application/json', text: JSON.stringify({ id: i, pad: 'x'.repeat(30_000) }) },
      },
    });
  writeFileSync(big, `{"log":{"version":"1.2","entries":[${Array.from({ length: 300 }, (_, i) => entry(i)).join(',')}]}}`);
  const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

  it('on a terminal: the progress line updates in place with percent; piped: plain lines; --quiet: nothing on stderr', () => {
    const cmd = [process.execPath, cliPath, 'load', big, '--db', join(dir, 'tty.sqlite')].map(shellQuote).join(' ');
    const tty = spawnSync('script', ['-q', '-e', '-c', cmd, '/dev/null'], { encoding: 'utf8', env: { ...process.env, COLUMNS: '120' } });
    expect(tty.status, tty.stderr).toBe(0);
    expect(tty.stdout).toMatch(/\rcapstate: .*big\.har: [\d.]+\/[\d.]+ MB, \d+%.*\u001b\[K/);
    expect(tty.stdout).toContain('\r\u001b[K'); // cleared before the summary
    const piped = cli(['load', big, '--db', join(dir, 'pipe.sqlite')]);
    expect(piped.status, piped.stderr).toBe(0);
    const lines = piped.stderr.split('\n').filter((l) => / MB, \d+%/.test(l));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThanOrEqual(10);
    expect(piped.stderr).not.toMatch(/[\r\u001b]/);
    expect(piped.stdout).not.toMatch(/ MB, \d+%/);
    const quiet = cli(['load', big, '--db', join(dir, 'quiet.sqlite'), '--quiet']);
    expect(quiet.status).toBe(0);
    expect(quiet.stderr).toBe('');
  });

  it('state CAPTURE shows the loading progress too (off a terminal: plain lines on stderr), and --quiet silences it', () => {
    const r = cli(['state', big, '--json']);
    expect(r.stderr).toMatch(/big\.har: [\d.]+\/[\d.]+ MB, \d+%/);
    expect(() => JSON.parse(r.stdout)).not.toThrow();
    const q = cli(['state', big, '--json', '--quiet']);
    expect(q.stderr).not.toMatch(/ MB, \d+%/);
  });
});
