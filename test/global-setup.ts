/**
 * Once per `vitest run` (issue 43): one store migrated to the latest schema with its views,
 * which tests that need an empty store copy (helpers.ts `migratedStore`) instead of running
 * every migration and building the views again for each.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openStore } from '../src/store/open.js';

declare module 'vitest' {
  export interface ProvidedContext {
    migratedStore: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'capstate-template-'));
  const file = join(dir, 'migrated.sqlite');
  openStore(file, { write: true }).close();
  project.provide('migratedStore', file);
  return () => rmSync(dir, { recursive: true, force: true });
}
