/**
 * Issue 46: `capstate completion bash|zsh|fish`, each generated from the command table:
 * files offered by kind (captures `.har`, `.har.gz`, `.zip`, `.json`; stores `.sqlite` after
 * `--db`), nothing after a value that is not a file, and no `--no-*` forms. Each script is
 * checked by its own shell (`bash -n`, `zsh -n`, `fish -n`, where installed) and asked what
 * it offers.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCommands } from '../src/cli/commands.js';
import { commandWords } from '../src/cli/completion.js';
import { cli, tempDir } from './helpers.js';

const commands = await loadCommands();
const dir = tempDir();
const installed = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

/** A folder holding one file of each kind, and a subfolder to walk into. */
const files = join(dir, 'files');
mkdirSync(join(files, 'sub'), { recursive: true });
for (const f of ['a.har', 'b.har.gz', 'c.zip', 'd.json', 'e.sqlite', 'f.txt', 'g.db']) writeFileSync(join(files, f), '');

function script(shell: string): string {
  const r = cli(['completion', shell]);
  expect(r.status, r.stderr).toBe(0);
  const file = join(dir, `capstate.${shell}`);
  writeFileSync(file, r.stdout);
  return file;
}

/** What bash offers for `words` (the last one being completed), in the folder of files. */
function bash(words: string[]): string[] {
  const program = `source ${JSON.stringify(script('bash'))}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})\nCOMP_CWORD=${words.length - 1}\n_capstate\nprintf '%s\\n' "\${COMPREPLY[@]}"\n`;
  return execFileSync('bash', ['--norc', '--noprofile', '-c', program], { cwd: files, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .sort();
}

/** What fish offers for the command line `line`. */
function fish(line: string): string[] {
  const program = `source ${script('fish')}; complete -C ${JSON.stringify(line)}`;
  return execFileSync('fish', ['--no-config', '-c', program], { cwd: files, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t')[0])
    .sort();
}

/** What zsh's function asks for, with the completion system's compadd and _files standing in. */
function zsh(words: string[]): string {
  const program = `compadd() { print -r -- "compadd \${@:2}" }; _files() { print -r -- "_files $*" }; compdef() {}; source ${script('zsh')}; words=(${words.map((w) => `'${w}'`).join(' ')}); CURRENT=${words.length}; _capstate; true`;
  return execFileSync('zsh', ['-f', '-c', program], { cwd: files, encoding: 'utf8' }).trim();
}

const CAPTURES = ['a.har', 'b.har.gz', 'c.zip', 'd.json', 'sub'];
const STORES = ['e.sqlite', 'g.db', 'sub'];

describe('capstate completion bash|zsh|fish', () => {
  it('writes a script for each shell that names every command and every option, with no --no- forms', () => {
    for (const shell of ['bash', 'zsh', 'fish']) {
      const text = cli(['completion', shell]).stdout;
      expect(text, shell).not.toMatch(/--no-|-l no-/);
      for (const [name, cmd] of Object.entries(commands)) {
        expect(text, `${shell} ${name}`).toContain(name);
        for (const o of commandWords((cmd.args ?? {}) as never).options) {
          const spelled = shell === 'fish' ? (o.startsWith('--') ? `-l ${o.slice(2)}` : `-s ${o.slice(1)}`) : o;
          expect(text, `${shell} ${name} ${o}`).toContain(spelled);
        }
      }
    }
  });

  it('bash -n parses the bash script', () => {
    expect(spawnSync('bash', ['-n', script('bash')]).status).toBe(0);
  });

  it.skipIf(!installed('zsh'))('zsh -n parses the zsh script', () => {
    const r = spawnSync('zsh', ['-n', script('zsh')], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  });

  it.skipIf(!installed('fish'))('fish -n parses the fish script', () => {
    const r = spawnSync('fish', ['-n', script('fish')], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  });

  it('bash offers captures as arguments, stores after --db, nothing after --capture, and no --no- option', () => {
    expect(bash(['capstate', 'load', ''])).toEqual(CAPTURES);
    expect(bash(['capstate', 'state', '--db', ''])).toEqual(STORES);
    expect(bash(['capstate', 'state', '-d', ''])).toEqual(STORES);
    expect(bash(['capstate', 'report', ''])).toEqual([...CAPTURES, 'e.sqlite', 'g.db'].sort());
    expect(bash(['capstate', 'state', '--capture', ''])).toEqual([]);
    expect(bash(['capstate', 'state', '--out', ''])).toContain('f.txt');
    expect(bash(['capstate', 'completion', ''])).toEqual(['bash', 'fish', 'zsh']);
    expect(bash(['capstate', 'state', '--'])).not.toContain('--no-explain');
  });

  it.skipIf(!installed('fish'))('fish offers the same', () => {
    expect(fish('capstate load ')).toEqual(['a.har', 'b.har.gz', 'c.zip', 'd.json', 'sub/']);
    expect(fish('capstate state --db ')).toEqual(['e.sqlite', 'g.db', 'sub/']);
    expect(fish('capstate state --capture ')).toEqual([]);
    expect(fish('capstate sta')).toEqual(['state']);
    expect(fish('capstate completion ')).toEqual(['bash', 'fish', 'zsh']);
    expect(fish('capstate state --')).not.toContain('--no-explain');
    expect(fish('capstate state --')).toContain('--explain');
  });

  it.skipIf(!installed('zsh'))('zsh asks for captures as arguments, stores after --db, nothing after --capture', () => {
    expect(zsh(['capstate', 'load', ''])).toBe('_files -g *.(har|har.gz|zip|json)');
    expect(zsh(['capstate', 'state', '--db', ''])).toBe('_files -g *.(sqlite|sqlite3|db)');
    expect(zsh(['capstate', 'state', '--capture', ''])).toBe('');
    expect(zsh(['capstate', 'st'])).toMatch(/^compadd load info manifest state /);
    expect(zsh(['capstate', 'state', '-'])).toMatch(/^compadd --help -h --db -d .*--explain$/);
  });
});
