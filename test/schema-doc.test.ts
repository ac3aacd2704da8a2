import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../src/store/open.js';
import { schemaReference } from '../src/store/reference.js';
import { root, tempDir } from './helpers.js';

const dir = tempDir();

describe('docs/schema.md (the store reference)', () => {
  const db = openStore(join(dir, 'schema.sqlite'), { write: true });
  const text = schemaReference(db);
  const objects = db.prepare("select type, name from sqlite_master where type in ('table', 'view') and name not like 'sqlite_%'").all() as {
    type: string;
    name: string;
  }[];
  const columns = (name: string) => db.prepare('select name from pragma_table_info(?)').pluck().all(name) as string[];

  it('is what `npm run docs:schema` writes from a freshly migrated store (regenerate it when this fails)', () => {
    expect(readFileSync(join(root, 'docs/schema.md'), 'utf8')).toBe(text);
  });

  it('has a section for every table and view, naming each of its columns', () => {
    expect(objects.length).toBeGreaterThan(40);
    for (const o of objects) {
      const section = text.split(`\n### ${o.name}\n`)[1]?.split('\n### ')[0];
      expect(section, o.name).toBeDefined();
      expect(section!.startsWith(`\n${o.type === 'table' ? 'Table' : 'View'}. `), o.name).toBe(true);
      for (const c of columns(o.name)) expect(section, `${o.name}.${c}`).toContain(`| \`${c}\` |`);
    }
  });

  it("takes each table's sentence from its schema/ header and each view's from its queries/ @says", () => {
    const record = text.split('\n### record\n')[1];
    expect(record).toContain(
      readFileSync(join(root, 'schema/record.sql'), 'utf8')
        .split('\n')[0]
        .replace(/^--\s*/, ''),
    );
    const writes = text.split('\n### writes\n')[1];
    expect(writes).toContain(
      readFileSync(join(root, 'queries/writes.sql'), 'utf8')
        .match(/^-- @says\s+(.+)$/m)![1]
        .trim(),
    );
  });
});
