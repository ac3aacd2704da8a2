/**
 * Issue 19: short flags for the common options (`-d` `--db`, `-j` `--json`, `-q` `--quiet`,
 * `-o` `--out`) and `capstate completion bash`, a completion script generated from the
 * command table (citty has none).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ArgsDef } from 'citty';
import { describe, expect, it } from 'vitest';
import { loadCommands } from '../src/cli/commands.js';
import { commandWords } from '../src/cli/completion.js';
import { checkOptions, expandShortFlags } from '../src/cli/strict-args.js';
import { cli, cliPath, fixture, root, tempDir } from './helpers.js';

const commands = await loadCommands();

const dir = tempDir();
const SHORT: Record<string, string> = { db: 'd', json: 'j', quiet: 'q', out: 'o' };
const argsOf = (name: string) => (commands[name].args ?? {}) as ArgsDef;

describe('short flags: -d, -j, -q, -o on every command that has the option', () => {
  it('each command gives its --db, --json, --quiet and --out the same letter, and no letter twice (nor -h, -v)', () => {
    for (const name of Object.keys(commands)) {
      const letters: string[] = [];
      for (const [option, def] of Object.entries(argsOf(name))) {
        const alias = ([] as string[]).concat((def as { alias?: string | string[] }).alias ?? []);
        if (SHORT[option]) expect(alias, `${name} --${option}`).toEqual([SHORT[option]]);
        letters.push(...alias);
      }
      expect(new Set(letters).size, name).toBe(letters.length);
      expect(letters, name).not.toContain('h');
      expect(letters, name).not.toContain('v');
    }
  });

  it('are written out long before the command reads them: alone, grouped, with a value, with =', () => {
    const args = argsOf('state');
    expect(expandShortFlags(['-j', '-d', 'x.sqlite', 'cap.har'], args)).toEqual(['--json', '--db', 'x.sqlite', 'cap.har']);
    expect(expandShortFlags(['-jqd', 'x.sqlite'], args)).toEqual(['--json', '--quiet', '--db', 'x.sqlite']);
    expect(expandShortFlags(['-o=s.json', '-d=x.sqlite'], args)).toEqual(['--out=s.json', '--db=x.sqlite']);
  });

  it('leave alone a value (even one starting with -), what follows --, negative numbers and letters the command lacks', () => {
    const args = argsOf('state');
    expect(expandShortFlags(['--db', '-j', '-d', '-q'], args)).toEqual(['--db', '-j', '--db', '-q']);
    expect(expandShortFlags(['--', '-j'], args)).toEqual(['--', '-j']);
    expect(expandShortFlags(['-jx', '-1'], args)).toEqual(['-jx', '-1']);
    expect(() => checkOptions('state', expandShortFlags(['-jx'], args), args)).toThrow(/unknown option -x for state/);
  });

  it('a flag that takes a value inside a group is a usage error saying how to write it', () => {
    expect(() => expandShortFlags(['-dj', 'x.sqlite'], argsOf('state'))).toThrow(
      /-d takes a value, so it ends a group of short flags: write -j -d DB/,
    );
    const r = cli(['state', '-dj', 'x.sqlite']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/-d takes a value/);
  });

  it('work end to end: load -qd, info -jd, state -d … -jo, and a failure under -j is the JSON error document', () => {
    const db = join(dir, 'short.sqlite');
    const load = cli(['load', fixture('grafana-mini', 'capture.har'), '-qd', db]);
    expect(load.status, load.stderr).toBe(0);
    expect(load.stdout).toMatch(/^.*capture\.har: learned \d+ collection/);
    expect(JSON.parse(cli(['info', '-jd', db]).stdout)).toMatchObject({ ok: true, db });
    const out = join(dir, 'state.json');
    const state = cli(['state', '-d', db, '-jo', out]);
    expect(state.status, state.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(cli(['state', '--db', db, '--json']).stdout);
    expect(state.stdout).toBe(readFileSync(out, 'utf8'));
    const missing = cli(['info', '-j', '-d', join(dir, 'no', 'such.sqlite')]);
    expect(missing.status).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ ok: false, code: 'no-store' });
    // A capture given with -d loads into that store (not a temporary one).
    const into = join(dir, 'into.sqlite');
    expect(cli(['manifest', fixture('grafana-mini', 'capture.har'), '-q', '-d', into]).status).toBe(0);
    expect(existsSync(into)).toBe(true);
  });

  it('help shows them beside the long names', () => {
    const help = cli(['help', 'state']).stdout;
    for (const s of ['-d, --db', '-j, --json', '-q, --quiet', '-o, --out']) expect(help).toContain(s);
  });
});

/** What bash offers after `words` (the last one being completed), with the generated script sourced. */
function complete(script: string, words: string[], cwd = root): string[] {
  const program = `source ${JSON.stringify(script)}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})\nCOMP_CWORD=${words.length - 1}\n_capstate\nprintf '%s\\n' "\${COMPREPLY[@]}"\n`;
  return execFileSync('bash', ['--norc', '--noprofile', '-c', program], { cwd, encoding: 'utf8' }).split('\n').filter(Boolean);
}

describe('capstate completion bash: a script generated from the command table', () => {
  const script = join(dir, 'capstate.bash');
  const written = () => {
    const r = cli(['completion', 'bash']);
    expect(r.status, r.stderr).toBe(0);
    writeFileSync(script, r.stdout);
    return r.stdout;
  };

  it('lists every command and every option of each command, short flags included', () => {
    const text = written();
    const main = cli(['--help']).stdout;
    const listed = [...main.matchAll(/^\s+([a-z-]+) {2,}\S/gm)].map((m) => m[1]);
    expect(listed).toContain('completion');
    expect(listed.sort()).toEqual(Object.keys(commands).sort());
    for (const name of Object.keys(commands)) {
      const line = text.split('\n').find((l) => l.startsWith(`      ${name}) COMPREPLY=($(compgen -W '`));
      expect(line, name).toBeDefined();
      for (const option of commandWords(argsOf(name)).options)
        expect(line!.split("'")[1].split(' '), `${name} ${option}`).toContain(option);
    }
    expect(bashSyntaxOk(script)).toBe(true);
  });

  it("completes in bash: commands, a command's options, paths after --db, commands after help", () => {
    written();
    expect(complete(script, ['capstate', 'st'])).toEqual(['state']);
    expect(complete(script, ['capstate', 'c'])).toEqual([
      'card',
      'check-effects',
      'capture-browser-scenario',
      'compare-web-captures',
      'completion',
    ]);
    expect(complete(script, ['capstate', 'state', '--ex'])).toEqual(['--explain']);
    expect(complete(script, ['capstate', 'state', '-'])).toEqual(expect.arrayContaining(['-j', '--json', '-d', '--db', '-o', '--out']));
    expect(complete(script, ['capstate', 'load', 'fixtures/grafana-mini/cap'])).toEqual(['fixtures/grafana-mini/capture.har']);
    expect(complete(script, ['capstate', 'sql', '--max-rows', ''])).toEqual([]);
    expect(complete(script, ['capstate', 'help', 'm'])).toEqual(['manifest', 'migrate']);
  });

  it('another shell is a usage error naming the ones there are', () => {
    const r = cli(['completion', 'tcsh']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/no completion for "tcsh": capstate writes completion for bash, zsh, fish/);
  });
});

function bashSyntaxOk(file: string): boolean {
  execFileSync('bash', ['-n', file]);
  return existsSync(cliPath);
}
