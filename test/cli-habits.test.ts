/**
 * Issue 46: a CLI that behaves like the tools people know — a did-you-mean for a mistyped
 * command, a usage error in one line plus where to look (not the whole help page), exit 2
 * for a mistake in the command line and 1 for a failure at run time (a busy port included).
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { editDistance } from '../src/cli/strict-args.js';
import { unknownCommand } from '../src/cli/run.js';
import { cli, cliProcess, fixture, tempDir } from './helpers.js';

const dir = tempDir();

/** stderr's lines, without the one a store-less command may add about progress. */
const lines = (text: string) => text.split('\n').filter(Boolean);

describe('did-you-mean for commands', () => {
  it("capstate staet: unknown command 'staet'; did you mean 'state'? (exit 2, nothing on stdout)", () => {
    const r = cli(['staet']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toEqual(["capstate: unknown command 'staet'; did you mean 'state'?", 'capstate: see capstate help']);
  });

  it('a swap of two letters is one edit, so it is suggested; a word near no command lists them', () => {
    expect(editDistance('staet', 'state')).toBe(1);
    expect(editDistance('sreve', 'serve')).toBe(1);
    expect(unknownCommand(['sreve'])).toBe("unknown command 'sreve'; did you mean 'serve'?");
    expect(unknownCommand(['chek-effects'])).toBe("unknown command 'chek-effects'; did you mean 'check-effects'?");
    expect(unknownCommand(['frobnicate'])).toMatch(/^unknown command 'frobnicate'; commands: load, info, manifest, state/);
  });

  it('capstate help staet suggests the command too', () => {
    const r = cli(['help', 'staet']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^capstate: unknown command 'staet'; did you mean 'state'\?\n/);
  });
});

describe('a usage error is one line plus where to look', () => {
  it('every command: an unknown option is two lines on stderr, the second naming capstate help COMMAND (exit 2)', () => {
    for (const name of ['load', 'state', 'serve', 'sql', 'report', 'card', 'check-effects', 'completion']) {
      const r = cli([name, '--jsn']);
      expect(r.status, name).toBe(2);
      expect(r.stdout, name).toBe('');
      const said = lines(r.stderr);
      expect(said, name).toHaveLength(2);
      expect(said[0], name).toMatch(new RegExp(`^capstate: error: unknown option --jsn for ${name}`));
      expect(said[1], name).toBe(`capstate: see capstate help ${name} (or capstate ${name} --help)`);
      expect(r.stderr, name).not.toMatch(/USAGE|OPTIONS/);
    }
  });

  it('a usage error raised by the command itself (sql --max-rows 0, a missing argument) is as short', () => {
    for (const args of [
      ['sql', 'select 1', '--max-rows', '0', '--db', fixture('none.sqlite')],
      ['completion'],
      ['search', ' ', '--db', fixture('none.sqlite')],
    ]) {
      const r = cli(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(lines(r.stderr), args.join(' ')).toHaveLength(2);
      expect(r.stderr).toMatch(new RegExp(`see capstate help ${args[0]} `));
    }
  });

  it('asked-for help still prints the whole page on stdout (exit 0)', () => {
    const r = cli(['state', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/USAGE capstate state/);
  });
});

describe('runtime failures exit 1', () => {
  it('a store that is not there, or a capture file that is not there, is exit 1', () => {
    expect(cli(['state', '--db', `${dir}/nowhere.sqlite`]).status).toBe(1);
    expect(cli(['load', `${dir}/nowhere.har`, '--db', `${dir}/x.sqlite`]).status).toBe(1);
  });

  it('serve --http on a busy port exits 1 with one line, not the usage exit 2', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    try {
      const r = cliProcess(['serve', fixture('grafana-mini', 'capture.har'), '--quiet', '--http', `127.0.0.1:${port}`]);
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`port ${port} is already in use on 127\\.0\\.0\\.1 .*choose another port`));
      expect(r.stderr).not.toMatch(/see capstate help/);
    } finally {
      busy.close();
    }
  });
});
