/**
 * capstate's version, read from its package.json without importing the store (`capstate
 * --version` starts fast: issue 43). src/store/open.ts reads the same file for the store.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function packageJson(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('capstate: package root not found');
    dir = up;
  }
  return join(dir, 'package.json');
}

export const version: string = (JSON.parse(readFileSync(packageJson(), 'utf8')) as { version: string }).version;
