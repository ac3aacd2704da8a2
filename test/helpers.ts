/** Shared test helpers: temporary stores, the built CLI, file hashes. */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll } from 'vitest';

export const root = resolve(__dirname, '..');
export const cliPath = join(root, 'dist/src/cli/main.js');
export const fixture = (...p: string[]) => join(root, 'fixtures', ...p);

/** A temporary directory removed after the test file. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'capstate-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface CliResult { status: number; stdout: string; stderr: string }

/** Runs the built CLI (`npm test` builds first via `pretest`). */
export function cli(args: string[], opts: { cwd?: string; input?: string } = {}): CliResult {
  if (!existsSync(cliPath)) throw new Error(`${cliPath} missing: run npm run build`);
  const r = spawnSync(process.execPath, [cliPath, ...args], { cwd: opts.cwd ?? root, encoding: 'utf8', input: opts.input, maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

export function sha256File(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}
