/**
 * The layering of src/ (docs/architecture.md) as a test: dependency-cruiser runs
 * .dependency-cruiser.cjs on src/, and every import from a higher floor, from a
 * neighbour on the same floor, from a module on no floor, or round a cycle fails the
 * test with the import line that does it.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { root, tempDir } from './helpers.js';

const DEPCRUISE = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const CONFIG = join(root, '.dependency-cruiser.cjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  cycle?: { name: string }[];
}

/** Runs the checked rule on `cwd`/src and returns the violations (depcruise exits non-zero when there are any). */
function cruise(cwd: string): Violation[] {
  let text: string;
  try {
    text = execFileSync(process.execPath, [DEPCRUISE, 'src', '--config', CONFIG, '--output-type', 'json'], {
      cwd,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (e) {
    text = (e as { stdout?: string }).stdout ?? '';
    if (!text) throw e;
  }
  return (JSON.parse(text) as { summary: { violations: Violation[] } }).summary.violations;
}

/** The line of `from` whose import specifier resolves to `to`, as `file:line: text`. */
function importLine(cwd: string, from: string, to: string): string {
  const lines = readFileSync(join(cwd, from), 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    for (const m of lines[i].matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
      const target = relative(cwd, resolve(cwd, dirname(from), m[1])).replace(/\.js$/, '.ts');
      if (target === to) return `${from}:${i + 1}: ${lines[i].trim()}`;
    }
  }
  return `${from}: (an import of ${to})`;
}

/** One line per violation: the rule, then the import line (or the cycle's modules). */
function describeViolations(cwd: string, violations: Violation[]): string[] {
  return violations.map((v) =>
    v.cycle
      ? `${v.rule.name}: ${[v.from, ...v.cycle.map((c) => c.name)].join(' -> ')}`
      : `${v.rule.name}: ${importLine(cwd, v.from, v.to)}`,
  );
}

describe('layering: no module imports a higher floor, and no import cycles', () => {
  it('src/ keeps the floor order of docs/architecture.md', () => {
    expect(describeViolations(root, cruise(root))).toEqual([]);
  });

  it('the check fails on an upward import, a neighbour on its floor, a module on no floor and a run-time cycle, naming each line', () => {
    const dir = tempDir();
    copyFileSync(join(root, 'tsconfig.json'), join(dir, 'tsconfig.json'));
    const file = (path: string, text: string) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    file('src/cli/common.ts', 'export const JSON_FORMAT_VERSION = 1;\n');
    file(
      'src/json/output.ts',
      "// the ground floor reaching up\nimport { JSON_FORMAT_VERSION } from '../cli/common.js';\nexport const v = JSON_FORMAT_VERSION;\n",
    );
    file('src/model/a.ts', "import { b } from '../browser/b.js';\nexport const a = b;\n");
    file('src/browser/b.ts', 'export const b = 1;\n');
    file('src/stray/x.ts', "import { v } from '../json/output.js';\nexport const x = v;\n");
    file('src/serve/p.ts', "import { q } from './q.js';\nexport const p = () => q;\n");
    file('src/serve/q.ts', "import { p } from './p.js';\nexport const q = () => p;\n");
    // A cycle closed only by type imports is gone at run time: allowed.
    file('src/serve/r.ts', "import type { S } from './s.js';\nexport interface R { s?: S }\n");
    file('src/serve/s.ts', "import type { R } from './r.js';\nexport interface S { r?: R }\n");
    expect(describeViolations(dir, cruise(dir)).sort()).toEqual([
      "floor-json: src/json/output.ts:2: import { JSON_FORMAT_VERSION } from '../cli/common.js';",
      "floor-model: src/model/a.ts:1: import { b } from '../browser/b.js';",
      "floor-unknown: src/stray/x.ts:1: import { v } from '../json/output.js';",
      'no-circular: src/serve/p.ts -> src/serve/q.ts -> src/serve/p.ts',
    ]);
  });

  it('loading does not reach serving, nor the state pass serving: ingest -> serve and state -> serve fail the check', () => {
    const dir = tempDir();
    copyFileSync(join(root, 'tsconfig.json'), join(dir, 'tsconfig.json'));
    const file = (path: string, text: string) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    file('src/serve/catalog.ts', 'export const catalog = 1;\n');
    file('src/model/served/effects.ts', 'export const check = 1;\n');
    file(
      'src/ingest/store-state.ts',
      "import { catalog } from '../serve/catalog.js';\nimport { check } from '../model/served/effects.js';\nexport const s = catalog + check;\n",
    );
    file('src/state/writer.ts', "import { catalog } from '../serve/catalog.js';\nexport const w = catalog;\n");
    expect(describeViolations(dir, cruise(dir)).sort()).toEqual([
      "floor-ingest: src/ingest/store-state.ts:1: import { catalog } from '../serve/catalog.js';",
      "floor-state: src/state/writer.ts:1: import { catalog } from '../serve/catalog.js';",
    ]);
  });

  it('docs/architecture.md lists the floors the check enforces', () => {
    const config = createRequire(import.meta.url)(CONFIG) as { forbidden: { name: string; comment: string }[] };
    const enforced = config.forbidden
      .filter((r) => /^floor-/.test(r.name) && r.name !== 'floor-unknown')
      .map((r) => `${/\(floor (\d+)\)/.exec(r.comment)?.[1]} ${r.name.slice('floor-'.length)}`);
    const documented = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8')
      .split('\n')
      .map((line) => /^\| (\d+) \| ([^|]+) \|/.exec(line))
      .filter((m) => m !== null)
      .flatMap((m) => [...m![2].matchAll(/`([a-z-]+)(?:\/|\.ts)`/g)].map((f) => `${m![1]} ${f[1]}`));
    expect(documented.sort()).toEqual(enforced.sort());
  });
});

/** Issue 43: a file past this many lines had come to hold several concerns (manifest/infer.ts, store/types.ts). */
const MAX_LINES = 500;

/** The .ts files under `dir` over MAX_LINES, as `src/<path>: <n> lines`. */
function longFiles(dir: string): string[] {
  const files = (readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => f.endsWith('.ts')).sort();
  return files.flatMap((f) => {
    const text = readFileSync(join(dir, f), 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    return lines > MAX_LINES ? [`src/${f}: ${lines} lines`] : [];
  });
}

describe('file size: a module of src/ that grows past 500 lines is split by concern', () => {
  it('no file in src/ is over 500 lines', () => {
    expect(longFiles(join(root, 'src'))).toEqual([]);
  });

  it('the check names a file of 501 lines and passes one of 500', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'a'), { recursive: true });
    writeFileSync(join(dir, 'a', 'long.ts'), 'export {};\n'.repeat(501));
    writeFileSync(join(dir, 'short.ts'), 'export {};\n'.repeat(500));
    expect(longFiles(dir)).toEqual(['src/a/long.ts: 501 lines']);
  });
});
