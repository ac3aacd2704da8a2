// Writes docs/schema.md from a freshly migrated store (npm run docs:schema builds first).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, packageRoot } from '../dist/src/store/open.js';
import { schemaReference } from '../dist/src/store/reference.js';

const dir = mkdtempSync(join(tmpdir(), 'capstate-schema-'));
try {
  const db = openStore(join(dir, 'schema.sqlite'), { write: true });
  const text = schemaReference(db);
  db.close();
  writeFileSync(join(packageRoot, 'docs', 'schema.md'), text);
  process.stderr.write('docs:schema: wrote docs/schema.md\n');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
