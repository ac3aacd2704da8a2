/** Issue 19: `sql --json` rows are objects keyed by column (format_version 2); `--csv` exports every row unless --max-rows is given. */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { SQL_JSON_FORMAT_VERSION } from '../src/cli/sql.js';
import { rowsAsObjects } from '../src/store/read-only-sql.js';
import { JSON_FORMAT_VERSION } from '../src/json/output.js';
import { cli, fixture, tempDir } from './helpers.js';

const db = join(tempDir(), 'sql.sqlite');
const loaded = cli(['load', fixture('grafana-mini', 'capture.har'), '--db', db]);

describe('sql --json: rows as objects keyed by column', () => {
  it('each row is an object in column order, columns still listed, format_version 2', () => {
    expect(loaded.status, loaded.stderr).toBe(0);
    const r = cli(['sql', "select 2 as b, 'x' as a, null as c union all select 3, 'y', x'00'", '--db', db, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.format_version).toBe(SQL_JSON_FORMAT_VERSION);
    expect(SQL_JSON_FORMAT_VERSION).toBeGreaterThan(JSON_FORMAT_VERSION);
    expect(Object.keys(doc)).toEqual(['format_version', 'ok', 'columns', 'rows', 'truncated']);
    expect(doc.columns).toEqual(['b', 'a', 'c']);
    expect(doc.rows).toEqual([
      { b: 2, a: 'x', c: null },
      { b: 3, a: 'y', c: { base64: 'AA==' } },
    ]);
    expect(Object.keys(doc.rows[0])).toEqual(['b', 'a', 'c']);
  });

  it('other commands keep format_version 1', () => {
    expect(JSON.parse(cli(['info', '--db', db, '--json']).stdout).format_version).toBe(JSON_FORMAT_VERSION);
  });

  it('two columns of one name are an error naming the column (exit 1), not a silently lost value', () => {
    const r = cli(['sql', 'select 1 as id, 2 as id', '--db', db, '--json']);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, code: 'duplicate-column' });
    expect(r.stderr).toMatch(/more than one column named "id"/);
    // The table and CSV show both columns as before.
    expect(cli(['sql', 'select 1 as id, 2 as id', '--db', db, '--csv']).stdout).toBe('id,id\r\n1,2\r\n');
  });

  it('a column named __proto__ is an ordinary key', () => {
    expect(rowsAsObjects(['__proto__', 'a'], [[1, 2]], 'sql --json')[0]).toEqual(JSON.parse('{"__proto__": 1, "a": 2}'));
  });
});

describe('sql --csv: an export is not cut at the default row cap', () => {
  const q = 'with recursive n(i) as (select 1 union all select i + 1 from n where i < 12000) select i from n';

  it('prints all 12,000 rows with no stop note', () => {
    const r = cli(['sql', q, '--db', db, '--csv', '--timeout', '0']);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split('\r\n');
    expect(lines.length).toBe(12_002); // header, 12,000 rows, the empty string after the last CRLF
    expect(lines[12_000]).toBe('12000');
    expect(r.stderr).not.toMatch(/stopped after/);
  });

  it('--max-rows still cuts it; --json and the table keep the default cap of 10,000', () => {
    const cut = cli(['sql', q, '--db', db, '--csv', '--max-rows', '7']);
    expect(cut.stdout.split('\r\n').length).toBe(9);
    expect(cut.stderr).toMatch(/stopped after 7 rows/);
    const json = cli(['sql', q, '--db', db, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ truncated: true });
    expect(JSON.parse(json.stdout).rows.length).toBe(10_000);
  });
});
