/**
 * Once per `vitest run` (issue 43): one store migrated to the latest schema with its views,
 * which tests that need an empty store copy (helpers.ts `migratedStore`) instead of running
 * every migration and building the views again for each; and the directory where each worker
 * keeps the fixture stores its files share (fixture-stores.ts), removed with it.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openStore } from '../src/store/open.js';

declare module 'vitest' {
  export interface ProvidedContext {
    migratedStore: string;
    /** A directory for stores the tests of a worker load once and share (fixture-stores.ts). */
    sharedStoresDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'capstate-template-'));
  const file = join(dir, 'migrated.sqlite');
  openStore(file, { write: true }).close();
  project.provide('migratedStore', file);
  const shared = join(dir, 'shared');
  mkdirSync(shared);
  project.provide('sharedStoresDir', shared);
  return () => rmSync(dir, { recursive: true, force: true });
}
