/**
 * One list per vocabulary (issue 13): the names the rules recognise live in the store's
 * `vocabulary` table (migrations/0002-vocabulary.sql); views join it and TypeScript reads
 * it through src/store/vocabulary.ts.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kyselyFor, listViews, openStore } from '../src/store/open.js';
import { paramBase, readVocabulary } from '../src/store/vocabulary.js';
import { root, tempDir } from './helpers.js';
import { factStore } from './view-facts.js';

const dir = tempDir();

function vocabularyRows(): { vocabulary: string; name: string }[] {
  const db = openStore(join(dir, 'rows.sqlite'), { write: true });
  const rows = db.prepare('select vocabulary, name from vocabulary order by vocabulary, rank').all() as {
    vocabulary: string;
    name: string;
  }[];
  db.close();
  return rows;
}

/** Every rule view and every TypeScript source file, with its lines. */
function sources(): { file: string; lines: string[] }[] {
  const sql = readdirSync(join(root, 'queries'))
    .filter((f) => f.endsWith('.sql'))
    .map((f) => `queries/${f}`);
  const ts = (readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `src/${f}`);
  return [...sql, ...ts].map((file) => ({ file, lines: readFileSync(join(root, file), 'utf8').split('\n') }));
}

const quotedIn = (line: string) => new Set([...line.matchAll(/['"`]([^'"`\s]+)['"`]/g)].map((m) => m[1]));

describe('one list per vocabulary', () => {
  it('ES-11 no identity name is written as a literal in queries/*.sql or src/ (the migration holds them)', () => {
    const names = vocabularyRows()
      .filter((r) => r.vocabulary === 'identity')
      .map((r) => r.name);
    expect(names).toEqual(['id', 'uuid', 'uid', 'guid', '_id']);
    const found: string[] = [];
    for (const { file, lines } of sources()) {
      lines.forEach((line, i) => {
        const q = quotedIn(line);
        // In TypeScript `'id'` is also the store's key column and a HAR field name; any other
        // identity name, or `'id'` beside another one, is a copy of the list.
        const hits = names.filter((n) => q.has(n));
        const copied = file.endsWith('.sql') ? hits : hits.some((n) => n !== 'id') ? hits : [];
        if (copied.length) found.push(`${file}:${i + 1} ${copied.join(', ')}`);
      });
    }
    expect(found).toEqual([]);
  });

  it('OQ-13 no source line lists three or more names of one vocabulary (parameter roles, tokens, totals, safe methods)', () => {
    const rows = vocabularyRows();
    const found: string[] = [];
    for (const { file, lines } of sources()) {
      lines.forEach((line, i) => {
        const q = quotedIn(line);
        const byKind = new Map<string, string[]>();
        for (const r of rows) if (q.has(r.name)) byKind.set(r.vocabulary, [...(byKind.get(r.vocabulary) ?? []), r.name]);
        for (const [kind, names] of byKind) if (names.length >= 3) found.push(`${file}:${i + 1} ${kind}: ${names.join(', ')}`);
      });
    }
    expect(found).toEqual([]);
  });

  it('a view that joins the vocabulary says so in its @reads header', () => {
    const readers = listViews().filter((v) => /\bfrom\s+vocabulary\b|\bjoin\s+vocabulary\b/i.test(v.sql));
    // collection_order and the variant views read the parameter roles through query_param_roles.
    expect(readers.map((v) => v.name).sort()).toEqual([
      'file_documents',
      'item_locations',
      'list_counters',
      'list_locations',
      'list_membership',
      'list_page_signals',
      'post_created_ids',
      'query_param_roles',
      'read_records',
      'type_identities',
    ]);
    for (const v of readers) expect(v.reads, v.file).toContain('vocabulary');
  });
});

describe('views and code read the vocabulary table', () => {
  it('ES-11 a new identity name identifies a list (list_locations) and a type (type_identities)', () => {
    const f = factStore(dir);
    const tags = f.tool({ template: '/api/tags' });
    f.record({
      tool: tags,
      path: '/api/tags',
      body: [
        { key: 'tg-a', label: 'A' },
        { key: 'tg-b', label: 'B' },
      ],
    });
    const identity = () => f.rows('select identity_field, identity_source from type_identities');
    // Issue 18: before, `key` identifies the tags only as a member unique across them.
    expect(f.rows('select identity_key, identity_source from list_locations')).toEqual([['key', 'member']]);
    expect(identity()).toEqual([['key', 'member']]);
    f.db.prepare("insert into vocabulary (vocabulary, name, rank) values ('identity', 'key', 5)").run();
    expect(f.rows('select identity_key, identity_source from list_locations')).toEqual([['key', 'name']]);
    expect(identity()).toEqual([['key', 'name']]);
  });

  it('ES-33 an ordering parameter the vocabulary no longer lists makes its row the order row', () => {
    const f = factStore(dir);
    const tags = f.tool({ template: '/api/tags' });
    f.record({ tool: tags, path: '/api/tags', query: 'sort=name', body: [{ id: 'tg-a' }, { id: 'tg-b' }] });
    f.record({ tool: tags, path: '/api/tags', body: [{ id: 'tg-b' }, { id: 'tg-a' }] });
    const order = () => f.rows('select entity_id, state_order, order_source, order_record_id from collection_order order by state_order');
    expect(order()).toEqual([
      ['tg-b', 0, 'row', 2],
      ['tg-a', 1, 'row', 2],
    ]);
    f.db.prepare("delete from vocabulary where vocabulary = 'ordering' and name = 'sort'").run();
    expect(order()).toEqual([
      ['tg-a', 0, 'row', 1],
      ['tg-b', 1, 'row', 1],
    ]);
  });

  it('ES-33 (decisions) `sort[0][field]` is an ordering parameter by its base, in the views and in TypeScript alike', async () => {
    const f = factStore(dir);
    const tags = f.tool({ template: '/api/tags' });
    f.record({ tool: tags, path: '/api/tags', query: 'sort[0][field]=name', body: [{ id: 'tg-a' }, { id: 'tg-b' }] });
    f.record({ tool: tags, path: '/api/tags', body: [{ id: 'tg-b' }, { id: 'tg-a' }] });
    expect(f.rows('select entity_id, order_record_id from collection_order order by state_order')).toEqual([
      ['tg-b', 2],
      ['tg-a', 2],
    ]);
    const k = kyselyFor(f.db);
    const v = await readVocabulary(k);
    expect(paramBase('Sort[0][field]')).toBe('sort');
    expect(v.isOrdering('sort[0][field]')).toBe(true);
    expect(v.isShaping('sort[0][field]')).toBe(false);
    expect(v.isPagination('page[number]')).toBe(true);
    expect(v.isProjection('fields[articles]')).toBe(true);
    expect(v.isShaping('include')).toBe(true);
  });

  it('ES-36 an item-total word the vocabulary no longer lists is no counter', () => {
    const f = factStore(dir);
    const tags = f.tool({ template: '/api/tags' });
    f.record({ tool: tags, path: '/api/tags', body: { count: 2, pageCount: 1, items: [{ id: 'tg-a' }, { id: 'tg-b' }] } });
    const counters = () => f.rows('select member_pointer, is_counter from list_counters order by member_pointer');
    expect(counters()).toEqual([['/count', 1]]);
    f.db.prepare("delete from vocabulary where vocabulary = 'item_total' and name = 'count'").run();
    expect(counters()).toEqual([]);
  });

  it('ES-35 a next-page token the vocabulary lists makes a list recorded, not all', () => {
    const f = factStore(dir);
    const tags = f.tool({ template: '/api/tags' });
    f.record({ tool: tags, path: '/api/tags', body: { items: [{ id: 'tg-a' }], continuation: 'c-2' } });
    const membership = () => f.rows('select membership from list_membership');
    expect(membership()).toEqual([['all']]);
    f.db.prepare("insert into vocabulary (vocabulary, name, rank) values ('next_token', 'continuation', 10)").run();
    expect(membership()).toEqual([['recorded']]);
  });

  it('a safe method is a read (read_records) and TypeScript asks the same rows', async () => {
    const f = factStore(dir);
    const head = f.tool({ method: 'HEAD', template: '/api/tags' });
    f.record({ tool: head, path: '/api/tags' });
    expect(f.rows('select method from read_records')).toEqual([['HEAD']]);
    expect((await readVocabulary(kyselyFor(f.db))).isSafeMethod('head')).toBe(true);
    f.db.prepare("delete from vocabulary where vocabulary = 'safe_method' and name = 'HEAD'").run();
    expect(f.rows('select method from read_records')).toEqual([]);
    // A new Kysely instance reads the table again (the vocabulary is read once per instance).
    expect((await readVocabulary(kyselyFor(f.db))).isSafeMethod('HEAD')).toBe(false);
  });
});
