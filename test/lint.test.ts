/**
 * The lint step of `npm test` (`npm run lint` in `pretest`: Biome with biome.jsonc's small rule
 * set) can fail: planted files with one mistake per kind the rules exist for fail it, each
 * finding named by its rule and line. (`pretest` lints the tree itself; not repeated here.)
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { root, tempDir } from './helpers.js';

const BIOME = join(root, 'node_modules', '@biomejs', 'biome', 'bin', 'biome');

interface Finding {
  category: string;
  location: { path: string; start?: { line: number } };
}

/** Runs `biome lint` in `cwd` with biome.jsonc there; returns `rule path:line` per finding (Biome exits non-zero when there are any). */
function lint(cwd: string, ...extra: string[]): string[] {
  let text: string;
  try {
    text = execFileSync(process.execPath, [BIOME, 'lint', '--reporter=json', '--max-diagnostics=none', ...extra], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (e) {
    text = (e as { stdout?: string }).stdout ?? '';
    if (!text) throw e;
  }
  const findings = (JSON.parse(text) as { diagnostics: Finding[] }).diagnostics;
  return findings.map((f) => `${f.category.replace(/^lint\/\w+\//, '')} ${f.location.path}:${f.location.start?.line ?? '?'}`);
}

describe("lint: biome.jsonc's rules", () => {
  it('the check fails on an unused variable and import, a floating promise, debugger, a duplicate key, ==, a focused test and a number that loses precision', () => {
    const dir = tempDir();
    copyFileSync(join(root, 'biome.jsonc'), join(dir, 'biome.jsonc'));
    const file = (path: string, text: string) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    file(
      'src/planted.ts',
      [
        "import { join } from 'node:path';",
        'async function later(): Promise<number> { return 1; }',
        'export function planted(a: number | null): number {',
        '  const unused = 2;',
        '  later();',
        '  debugger;',
        '  const o = { k: 1, k: 2 };',
        '  if (a == 1) return o.k;',
        '  if (a == null) return 9007199254740993;', // == null is allowed
        '  return 0;',
        '}',
        '',
      ].join('\n'),
    );
    file('test/planted.test.ts', "import { it } from 'vitest';\nit.only('runs alone', () => {});\n");
    // biome.jsonc's `vcs` reads .gitignore from a git root; the temporary directory has none.
    expect(lint(dir, '--vcs-enabled=false').sort()).toEqual([
      'noDebugger src/planted.ts:6',
      'noDoubleEquals src/planted.ts:8',
      'noDuplicateObjectKeys src/planted.ts:7',
      'noFloatingPromises src/planted.ts:5',
      'noFocusedTests test/planted.test.ts:2',
      'noPrecisionLoss src/planted.ts:9',
      'noUnusedImports src/planted.ts:1',
      'noUnusedVariables src/planted.ts:4',
    ]);
  });
});
