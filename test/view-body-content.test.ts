/**
 * `body_content` (no rule of its own): fact rows in, view rows out — every body as it was
 * recorded, in plain SQL any SQLite client reads (issue 46: no body is kept deflated).
 */
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { factStore } from './view-facts.js';

const dir = tempDir();

describe('issue 14 body_content, rows in and out', () => {
  it('issue 14 a body kept as it is reads as stored: JSON as TEXT', () => {
    const f = factStore(dir);
    const id = f.body({ id: 'it-1', name: 'Oak table' });
    expect(f.rows('select content, typeof(content) from body_content where id = ?', id)).toEqual([
      ['{"id":"it-1","name":"Oak table"}', 'text'],
    ]);
  });

  it('issue 46 a large body reads as TEXT, character for character (UTF-8 beyond ASCII included)', () => {
    const f = factStore(dir);
    const value = Array.from({ length: 40 }, (_, i) => ({ id: i + 1, name: `Schrank ${i} — Eiche, geölt` }));
    const id = f.body(value);
    const [[stored, coding, bytes]] = f.rows('select typeof(content), coding, bytes from body where id = ?', id);
    expect([stored, coding, bytes]).toEqual(['text', null, Buffer.byteLength(JSON.stringify(value))]);
    expect(f.rows('select content, typeof(content) from body_content where id = ?', id)).toEqual([[JSON.stringify(value), 'text']]);
  });

  it('issue 14 a binary body stays a BLOB, and the no-body row has no content', () => {
    const f = factStore(dir);
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);
    const id = f.body(png);
    const [[content, type]] = f.rows('select content, typeof(content) from body_content where id = ?', id);
    expect(type).toBe('blob');
    expect(Buffer.compare(content as Buffer, png)).toBe(0);
    expect(f.rows("select c.content from body_content c join body b on b.id = c.id where b.kind = 'none'")).toEqual([[null]]);
  });

  it('issue 14 one row per body: as many rows as the body table, each under its body id', () => {
    const f = factStore(dir);
    f.body({ a: 1 });
    f.body({ b: 2 });
    f.body(Buffer.from([1, 2, 3]));
    expect(f.rows('select id from body_content order by id')).toEqual(f.rows('select id from body order by id'));
    expect(f.rows('select count(*) from body_content')).toEqual([[4]]);
  });
});
