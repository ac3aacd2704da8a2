/**
 * A command's start-up pays for its own modules only: the command table imports a command's
 * module when it runs, and node-pg is imported when a PostgreSQL store is opened. What a
 * process imported is read through a module resolve hook (`node --import`), which sees every
 * module an `import` or `import()` reaches.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { captureOf, cliPath, root, tempDir } from './helpers.js';

const dir = tempDir();
const hooks = join(dir, 'hooks.mjs');
writeFileSync(
  hooks,
  [
    "import { appendFileSync } from 'node:fs';",
    'export async function resolve(specifier, context, next) {',
    '  const r = await next(specifier, context);',
    "  appendFileSync(process.env.MODULE_LOG, r.url + '\\n');",
    '  return r;',
    '}',
  ].join('\n'),
);
const register = join(dir, 'register.mjs');
writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);

let runs = 0;
/** The URLs of the modules `capstate ARGS` imported, and its exit status. */
function modulesOf(args: string[]): { status: number | null; stderr: string; urls: string[] } {
  const log = join(dir, `modules-${++runs}.log`);
  writeFileSync(log, '');
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, cliPath, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, MODULE_LOG: log },
  });
  return { status: r.status, stderr: r.stderr, urls: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

const heavy = {
  'the PostgreSQL client': /\/node_modules\/pg\//,
  'the MCP SDK': /\/node_modules\/@modelcontextprotocol\//,
  Playwright: /\/node_modules\/playwright-core\//,
};
const loaded = (urls: string[]) =>
  Object.entries(heavy)
    .filter(([, re]) => urls.some((u) => re.test(u)))
    .map(([name]) => name);

describe('a command imports only what it runs', () => {
  const db = join(dir, 'store.sqlite');

  it('load, state, info and migrate on a SQLite file import neither node-pg, the MCP SDK nor Playwright', () => {
    for (const args of [
      ['load', captureOf('json-server'), '--db', db, '--quiet'],
      ['state', '--db', db],
      ['info', '--db', db],
      ['migrate', '--db', db, '--recompute'],
    ]) {
      const r = modulesOf(args);
      expect(r.status, `${args[0]}: ${r.stderr}`).toBe(0);
      expect(
        r.urls.some((u) => u.endsWith(`/dist/src/cli/${args[0]}.js`)),
        `${args[0]} imports its own module`,
      ).toBe(true);
      expect(loaded(r.urls), args[0]).toEqual([]);
    }
  });

  it('--version imports neither the store, better-sqlite3 nor any command (issue 43: it answered after opening the store module)', () => {
    const r = modulesOf(['--version']);
    expect(r.status).toBe(0);
    const own = r.urls.filter((u) => u.includes('/dist/src/')).map((u) => u.replace(/.*\/dist\/src\//, ''));
    expect(own.sort()).toEqual(['cli/main.js', 'cli/memory.js', 'cli/version.js']);
    expect(r.urls.some((u) => /\/node_modules\/better-sqlite3\//.test(u))).toBe(false);
  });

  it("a command does not import the other commands' modules", () => {
    const r = modulesOf(['info', '--db', db]);
    const commands = r.urls.filter((u) => /\/dist\/src\/cli\/[a-z-]+\.js$/.test(u)).map((u) => u.replace(/.*\/cli\//, ''));
    expect(commands).not.toContain('serve.js');
    expect(commands).not.toContain('capture-browser-scenario.js');
    expect(commands).not.toContain('load.js');
  });

  it('help lists every command, so it imports them all (the MCP SDK with serve)', () => {
    const r = modulesOf(['--help']);
    expect(r.status).toBe(0);
    expect(loaded(r.urls)).toContain('the MCP SDK');
  });

  it('a PostgreSQL URL imports node-pg when the store is opened (an unreachable server is a clear error)', () => {
    const r = modulesOf(['info', '--db', 'postgres://capstate@127.0.0.1:1/none']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/cannot reach PostgreSQL at postgres:\/\/capstate@127\.0\.0\.1:1\/none/);
    expect(loaded(r.urls)).toContain('the PostgreSQL client');
  });
});

describe('help text', () => {
  it('carries no trailing blanks (citty pads each row to the widest)', () => {
    const r = spawnSync(process.execPath, [cliPath, 'help', 'state'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/--explain/);
    expect(r.stdout.split('\n').filter((l) => /[ \t]$/.test(l))).toEqual([]);
  });
});
