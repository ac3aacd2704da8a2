/**
 * Issue 19: the package installs as a package. `npm pack` ships only what runs; the
 * tarball, unpacked into an empty folder's node_modules, runs `capstate --version`, the
 * demo, the README's library example and a type-check against the shipped `.d.ts`.
 *
 * The machine has no registry access or npm cache, so `npm install TARBALL` cannot fetch
 * the dependencies. The test does what npm would: it unpacks the tarball as
 * node_modules/capstate, links node_modules/.bin/capstate to the package's `bin` (made
 * executable), and
 * symlinks into node_modules only the packages reachable from capstate's `dependencies`
 * (not its devDependencies), taken from this checkout's node_modules.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fixture, root, tempDir } from './helpers.js';

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
};
const work = tempDir();
const run = (cmd: string, args: string[], cwd = work) => spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

/** The packages `dependencies` reach, as hoisted in this checkout's node_modules (nested ones come with their parent). */
function runtimeClosure(): string[] {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    const dir = join(root, 'node_modules', name);
    if (!existsSync(join(dir, 'package.json'))) return; // nested under its parent, or an absent optional one
    seen.add(name);
    const p = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    for (const d of Object.keys({ ...p.dependencies, ...p.optionalDependencies, ...p.peerDependencies })) visit(d);
  };
  for (const d of Object.keys(pkg.dependencies)) visit(d);
  return [...seen];
}

let packed: { filename: string; files: { path: string }[] } | undefined;
function pack(): { filename: string; files: { path: string }[] } {
  if (packed) return packed;
  // --ignore-scripts: `prepare` would build again; `npm test` has built dist/ already.
  const r = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], root);
  expect(r.status, r.stderr).toBe(0);
  packed = (JSON.parse(r.stdout) as { filename: string; files: { path: string }[] }[])[0];
  return packed;
}

function install(): string {
  const app = join(work, 'app');
  if (existsSync(app)) return app;
  const into = join(app, 'node_modules', 'capstate');
  mkdirSync(into, { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'empty', private: true, type: 'module' }));
  const t = run('tar', ['-xzf', join(work, pack().filename), '-C', into, '--strip-components=1']);
  expect(t.status, t.stderr).toBe(0);
  for (const name of runtimeClosure()) {
    const link = join(app, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(realpathSync(join(root, 'node_modules', name)), link);
  }
  mkdirSync(join(app, 'node_modules', '.bin'));
  symlinkSync(join('..', 'capstate', pkg.bin.capstate), join(app, 'node_modules', '.bin', 'capstate'));
  chmodSync(join(into, pkg.bin.capstate), 0o755); // as npm does for a package's bin

  return app;
}

describe('npm pack ships only what runs', () => {
  it('the tarball holds the built code, declarations, migrations, views, schema, docs and README, and nothing else', () => {
    const files = pack().files.map((f) => f.path);
    expect(files).toContain('dist/src/cli/main.js');
    expect(files).toContain('dist/src/index.js');
    expect(files).toContain('dist/src/index.d.ts');
    expect(files).toContain('dist/src/load/parse-worker.js');
    expect(files).toContain('README.md');
    expect(files).toContain('LICENSE');
    expect(files.filter((f) => f.startsWith('migrations/')).length).toBeGreaterThan(0);
    expect(files.filter((f) => f.startsWith('queries/')).length).toBeGreaterThan(0);
    const stray = files.filter(
      (f) =>
        !/^(dist\/src\/.+\.(js|d\.ts)|migrations\/.+\.sql|queries\/.+\.sql|schema\/.+\.sql|docs\/.+\.md|README\.md|package\.json|LICENSE)$/.test(
          f,
        ),
    );
    expect(stray).toEqual([]);
    expect(files.some((f) => /^(test|fixtures|bench|scripts|examples|src)\//.test(f) || f.startsWith('dist/bench/'))).toBe(false);
  });
});

describe('the packed package installed into an empty folder', () => {
  it('runs capstate --version', () => {
    const app = install();
    const r = run(join(app, 'node_modules', '.bin', 'capstate'), ['--version'], app);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${pkg.version}\n`);
  });

  it('runs the demo: load a capture, print its state', () => {
    const app = install();
    const bin = join(app, 'node_modules', '.bin', 'capstate');
    copyFileSync(fixture('grafana', 'capture.har'), join(app, 'capture.har'));
    const load = run(bin, ['load', 'capture.har', '--db', 'demo.sqlite'], app);
    expect(load.status, load.stderr).toBe(0);
    const state = run(bin, ['state', '--db', 'demo.sqlite', '--json'], app);
    expect(state.status, state.stderr).toBe(0);
    const expected = readFileSync(fixture('grafana', 'expected', 'state.json'), 'utf8');
    expect(JSON.parse(state.stdout).sha256).toBe(JSON.parse(expected).sha256);
  });

  it("runs the README's library example through the package's exports", () => {
    const app = install();
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const code = /<!-- library-example[^>]*-->\n```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(code, 'README library example').toBeDefined();
    writeFileSync(join(app, 'example.mjs'), code!);
    copyFileSync(fixture('grafana', 'capture.har'), join(app, 'capture.har'));
    const r = run(process.execPath, ['example.mjs'], app);
    expect(r.status, r.stderr).toBe(0);
    const state = JSON.parse(readFileSync(fixture('grafana', 'expected', 'state.json'), 'utf8')) as {
      types: { collection: string }[];
      entities: unknown[];
    };
    expect(r.stdout).toMatch(/^capture 1: \d+ records$/m);
    for (const t of state.types) expect(r.stdout).toContain(`type ${t.collection}:`);
    expect(r.stdout).toMatch(new RegExp(`served at http://127\\.0\\.0\\.1:\\d+: ${state.entities.length} entities`));
  });

  it('issue 47: capstate/playwright is an export of the package: it imports and routes a page-like object', () => {
    const app = install();
    writeFileSync(
      join(app, 'route.mjs'),
      [
        "import { routeFromCapture } from 'capstate/playwright';",
        'const routes = [];',
        'const page = { route: async (url, h) => routes.push([url, h]), unroute: async () => {} };',
        "const r = await routeFromCapture(page, 'capture.har', { url: '**/api/**' });",
        'console.log(typeof routeFromCapture, routes.length, routes[0][0], Array.isArray(r.answers));',
        'await r.close();',
      ].join('\n'),
    );
    copyFileSync(fixture('grafana', 'capture.har'), join(app, 'capture.har'));
    const r = run(process.execPath, ['route.mjs'], app);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('function 1 **/api/** true\n');
  });

  it('type-checks a TypeScript caller against the shipped declarations', () => {
    const app = install();
    writeFileSync(
      join(app, 'use.ts'),
      [
        "import { loadCaptures, readStoredState, kyselyFor, openStore, CapstateError, type EnvironmentState, type LoadedCapture } from 'capstate';",
        'const loaded: LoadedCapture[] = await loadCaptures({ db: "x.sqlite", files: ["capture.har"] });',
        'const s: EnvironmentState = await readStoredState(kyselyFor(openStore("x.sqlite")), loaded[0].capture_id, "x.sqlite");',
        'const n: number = s.types.length;',
        'export const e = new CapstateError("c", "m"), count = n;',
        '// @ts-expect-error: the library API is typed, so a wrong option is caught',
        'await loadCaptures({ db: 1, files: [] });',
        // Issue 47: capstate/playwright, typed against Playwright's own Page.
        "import { routeFromCapture, type CaptureRoute } from 'capstate/playwright';",
        "import type { Page } from 'playwright-core';",
        'declare const page: Page;',
        "const route: CaptureRoute = await routeFromCapture(page, 'app.har', { url: '**/api/**', unanswered: 'continue' });",
        'export const answered: string[] = route.answers.map((a) => a.answer);',
        '// @ts-expect-error: unanswered is decline or continue',
        "await routeFromCapture(page, 'app.har', { unanswered: 'ignore' });",
      ].join('\n'),
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        files: ['use.ts'],
      }),
    );
    const r = run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], app);
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

describe('the licence: one, and package.json and LICENSE agree', () => {
  it('LICENSE is the MIT licence text and package.json says MIT', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { license?: string };
    const text = readFileSync(join(root, 'LICENSE'), 'utf8');
    expect(pkg.license).toBe('MIT');
    expect(text.split('\n')[0]).toBe('MIT License');
    expect(text).toMatch(/^Copyright \(c\) \d{4} \S.*$/m);
    expect(text).toContain('Permission is hereby granted, free of charge, to any person obtaining a copy');
    expect(text).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
  });
});
