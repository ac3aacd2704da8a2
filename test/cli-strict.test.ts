/** Issue 19: a strict and plain CLI — unknown options fail with a did-you-mean, `help COMMAND`, uncoloured help off a terminal. */
import { describe, expect, it } from 'vitest';
import type { ArgsDef } from 'citty';
import { loadCommands } from '../src/cli/commands.js';
import { checkOptions, closestOption } from '../src/cli/strict-args.js';
import { colourFor, stripColour } from '../src/cli/help.js';
import { cli } from './helpers.js';

const commands = await loadCommands();

const ESC = '\u001b[';

describe('unknown options are usage errors with a did-you-mean', () => {
  it('--jsn on info exits 2, prints nothing on stdout and suggests --json', () => {
    const r = cli(['info', '--db', 'nowhere.sqlite', '--jsn']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/unknown option --jsn for info; did you mean --json\?/);
  });

  it('every command rejects an unknown option before doing anything (exit 2)', () => {
    for (const name of Object.keys(commands)) {
      const r = cli([name, '--definitely-not-an-option']);
      expect(r.status, `${name}: ${r.stderr}`).toBe(2);
      expect(r.stderr, name).toMatch(new RegExp(`unknown option --definitely-not-an-option for ${name}`));
    }
  });

  it('every command suggests its own option for a one-letter typo of it', () => {
    for (const [name, cmd] of Object.entries(commands)) {
      const args = (cmd.args ?? {}) as ArgsDef;
      const option = Object.entries(args).find(([n, d]) => d.type !== 'positional' && n.length >= 4)?.[0];
      if (!option) continue;
      const typo = option.slice(0, -1) + (option.endsWith('x') ? 'y' : 'x');
      expect(() => checkOptions(name, [`--${typo}`], args), name).toThrow(new RegExp(`did you mean --${option}\\?`));
    }
  });

  it('a value that looks like an option, a negative number, -, and anything after -- are not options', () => {
    const args: ArgsDef = { db: { type: 'string' }, json: { type: 'boolean' }, n: { type: 'string', alias: 'x' } };
    expect(() => checkOptions('t', ['--db', '--weird-name.sqlite', '--json', '-1', '-', '--', '--anything'], args)).not.toThrow();
    expect(() => checkOptions('t', ['--db=a', '--no-json', '-x', '3', '-h'], args)).not.toThrow();
    expect(() => checkOptions('t', ['--json', '--weird'], args)).toThrow(/unknown option --weird/);
    expect(() => checkOptions('t', ['-q'], args)).toThrow(/unknown option -q/);
  });

  it('suggests nothing when no option is close', () => {
    expect(closestOption('frobnicate', ['json', 'db'])).toBeUndefined();
    expect(closestOption('max-row', ['max-rows', 'max-bytes'])).toBe('max-rows');
  });

  it('a known option still works (info --json on a missing store is the store error, not a usage error)', () => {
    const r = cli(['info', '--db', 'nowhere.sqlite', '--json']);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false });
  });
});

describe('capstate help COMMAND', () => {
  it("prints that command's help on stdout and exits 0", () => {
    const r = cli(['help', 'load']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/USAGE capstate load/);
    expect(r.stdout).toMatch(/--quiet/);
  });

  it('help alone prints the main help; help of an unknown command is a usage error', () => {
    const r = cli(['help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Exit codes: 0 ok/);
    const bad = cli(['help', 'lod']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/unknown command 'lod'; did you mean 'load'\?/);
  });
});

describe('help is not coloured off a terminal or under NO_COLOR', () => {
  it('piped help carries no ANSI escapes, even with NO_COLOR unset', () => {
    const env = { NO_COLOR: '', TERM: 'xterm-256color', CI: '', TEST: '' };
    for (const args of [['--help'], ['help', 'sql'], ['sql', '--help']]) {
      const r = cli(args, { env });
      expect(r.status).toBe(0);
      expect(r.stdout, args.join(' ')).not.toContain(ESC);
    }
    expect(cli(['sql'], { env }).stderr).not.toContain(ESC);
  });

  it('colour only for a terminal with NO_COLOR unset or empty and TERM not dumb', () => {
    const tty = { isTTY: true } as NodeJS.WriteStream;
    const pipe = { isTTY: false } as unknown as NodeJS.WriteStream;
    expect(colourFor(tty, { TERM: 'xterm' })).toBe(true);
    expect(colourFor(tty, { TERM: 'xterm', NO_COLOR: '' })).toBe(true);
    expect(colourFor(tty, { TERM: 'xterm', NO_COLOR: 'yes' })).toBe(false);
    expect(colourFor(tty, { TERM: 'dumb' })).toBe(false);
    expect(colourFor(pipe, { TERM: 'xterm' })).toBe(false);
    expect(stripColour(`${ESC}1mUSAGE${ESC}22m ${ESC}36mx${ESC}39m`)).toBe('USAGE x');
  });
});
