import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCommands } from '../src/cli/commands.js';
import { spawn } from 'node:child_process';
import { cli, cliPath, cliProcess, fixture, root, sha256File, tempDir } from './helpers.js';

const commands = await loadCommands();

const dir = tempDir();
const db = join(dir, 'cli.sqlite');
const grafana = fixture('grafana-mini', 'capture.har');

/** stdout must be exactly one JSON document. */
function oneJson(stdout: string): Record<string, unknown> {
  const doc = JSON.parse(stdout) as Record<string, unknown>;
  // sql's rows-as-objects document is version 2 (issue 19); every other document is 1.
  expect(doc.format_version).toBe(Array.isArray(doc.columns) && doc.ok === true ? 2 : 1);
  return doc;
}

describe('capstate load', () => {
  it('prints a summary on stdout and, with --json, exactly one JSON document', () => {
    const r = cli(['load', grafana, '--db', db, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const doc = oneJson(r.stdout);
    expect(doc.ok).toBe(true);
    const [c] = doc.captures as {
      records: number;
      format: string;
      response_bodies_by_kind: Record<string, number>;
      already_loaded: boolean;
    }[];
    expect(c).toMatchObject({ records: 13, format: 'har', already_loaded: false });
    expect(c.response_bodies_by_kind.json).toBe(10);
  });

  it('--json says where the load time went: facts, manifest and state within duration_ms; nothing for a capture already loaded', () => {
    const store = join(dir, 'phases.sqlite');
    type Loaded = { duration_ms: number; already_loaded: boolean; phases_ms: { facts: number; manifest: number; state: number } };
    const first = cli(['load', grafana, '--db', store, '--json']);
    expect(first.status, first.stderr).toBe(0);
    const [c] = oneJson(first.stdout).captures as Loaded[];
    expect(Object.keys(c.phases_ms).sort()).toEqual(['facts', 'manifest', 'state']);
    for (const ms of Object.values(c.phases_ms)) expect(ms).toBeGreaterThan(0);
    const sum = c.phases_ms.facts + c.phases_ms.manifest + c.phases_ms.state;
    expect(sum).toBeLessThanOrEqual(c.duration_ms);
    expect(sum).toBeGreaterThan(c.duration_ms * 0.9); // the three phases are the load, not a part of it
    const again = cli(['load', grafana, '--db', store, '--json']);
    expect(again.status, again.stderr).toBe(0);
    const [d] = oneJson(again.stdout).captures as Loaded[];
    expect(d.already_loaded).toBe(true);
    expect(d.phases_ms).toEqual({ facts: 0, manifest: 0, state: 0 });
  });

  it('reports progress on stderr only, for captures over a few MB', () => {
    const big = join(dir, 'big.har');
    const entry = (i: number) =>
      JSON.stringify({
        startedDateTime: new Date(Date.UTC(2024, 0, 1, 0, 0, 0, i)).toISOString(),
        time: 1,
        request: { method: 'GET', url: `http://localhost/api/items/${i}`, headers: [] },
        response: {
          status: 200,
          headers: [],
          content: { mimeType: 'application/json', text: JSON.stringify({ id: i, pad: 'x'.repeat(3000) }) },
        },
      });
    writeFileSync(big, `{"log":{"version":"1.2","entries":[${Array.from({ length: 2500 }, (_, i) => entry(i)).join(',')}]}}`);
    const r = cli(['load', big, '--db', join(dir, 'big.sqlite'), '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/MB, \d+%, .*[\d,]+ records/);
    expect((oneJson(r.stdout).captures as { records: number }[])[0].records).toBe(2500);
  });

  it('loading the same capture again adds nothing and says so', () => {
    const before = sha256File(db);
    const r = cli(['load', grafana, '--db', db]);
    expect(r.status).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/already loaded as capture 1/);
    expect(sha256File(db)).toBe(before);
  });
});

describe('capstate info', () => {
  it('summarises captures, records, origins and bodies by kind', () => {
    const r = cli(['info', '--db', db]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/13 records, 11 admitted, timeline by start-time/);
    expect(r.stdout).toMatch(/http:\/\/localhost:3000 12, https:\/\/grafana.com 1/);
    const doc = oneJson(cli(['info', '--db', db, '--json']).stdout);
    expect((doc.captures as unknown[]).length).toBe(1);
    expect(doc.views).toContain('records_timeline');
  });

  it('fails with exit 1 and says what to do when there is no store', () => {
    const r = cli(['info', '--db', join(dir, 'missing.sqlite')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/capstate load CAPTURE/);
    expect(r.stdout).toBe('');
  });
});

describe('capstate sql', () => {
  it('prints a table, CSV, or one JSON document with exact 64-bit integers', () => {
    const q = "select value from response_members where key = 'externalId'";
    expect(cli(['sql', q, '--db', db]).stdout).toMatch(/9007199254740993\n/);
    expect(cli(['sql', q, '--db', db, '--csv']).stdout).toBe('value\r\n9007199254740993\r\n');
    const r = cli(['sql', q, '--db', db, '--json']);
    expect(r.stdout).toMatch(/"value": 9007199254740993\s*\}/);
    expect(oneJson(r.stdout).columns).toEqual(['value']);
  });

  it('runs on a read-only connection: writes fail with exit 1 and the store is unchanged', () => {
    const before = sha256File(db);
    for (const q of [
      'delete from record returning id',
      'insert into meta values (1, 2) returning key',
      'update record set status = 0 returning id',
    ]) {
      const r = cli(['sql', q, '--db', db]);
      expect(r.status, q).toBe(1);
      expect(r.stderr).toMatch(/readonly|read-only/);
    }
    const r = cli(['sql', 'create table x (a)', '--db', db, '--json']);
    expect(r.status).toBe(1);
    expect(oneJson(r.stdout)).toMatchObject({ ok: false, code: 'not-a-query' });
    expect(sha256File(db)).toBe(before);
  });

  it('caps the rows it prints', () => {
    const r = cli(['sql', 'select * from member', '--db', db, '--json', '--max-rows', '5']);
    expect((oneJson(r.stdout).rows as unknown[]).length).toBe(5);
    expect(r.stderr).toMatch(/stopped after 5 rows/);
  });
});

describe('a reader that stops early', () => {
  it('`capstate sql … --csv | head -1`: capstate stops quietly (exit 0, no stack) when the pipe closes', async () => {
    const db = join(tempDir(), 'epipe.sqlite');
    expect(cli(['load', fixture('grafana', 'capture.har'), '--db', db, '--quiet']).status).toBe(0);
    const child = spawn(process.execPath, [
      cliPath,
      'sql',
      'with recursive n(i) as (select 1 union all select i + 1 from n where i < 200000) select i from n',
      '--db',
      db,
      '--csv',
    ]);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    await new Promise<void>((resolve) =>
      child.stdout.once('data', () => {
        child.stdout.destroy();
        resolve();
      }),
    );
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });
});

describe('exit codes and usage', () => {
  // These run the real process (the rest of the suite runs commands in process, issue 43):
  // the exit status and the separation of stdout and stderr are the process's.
  it('no command or an unknown command is a usage error (exit 2), help exits 0 and documents exit codes', () => {
    expect(cliProcess([]).status).toBe(2);
    expect(cliProcess(['frobnicate']).status).toBe(2);
    const help = cliProcess(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/0 ok, 1 bad input or failed check, 2 usage/);
  });

  it('a missing required argument is a usage error (exit 2) with usage on stderr', () => {
    const r = cliProcess(['sql', '--db', db]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/QUERY/);
  });

  it('an unknown option is a usage error (exit 2) naming it (issue 19; test/cli-strict.test.ts)', () => {
    const r = cli(['info', '--db', db, '--jsno']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/unknown option --jsno/);
  });

  it('as a process: --version prints the package version; a failed check exits 1 with the error on stderr and one JSON document on stdout', () => {
    const v = cliProcess(['--version']);
    expect(v).toEqual({
      status: 0,
      stdout: `${(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version}\n`,
      stderr: '',
    });
    const r = cliProcess(['sql', 'delete from record', '--db', db, '--json']);
    expect(r.status).toBe(1);
    expect(oneJson(r.stdout).ok).toBe(false);
    expect(r.stderr).toMatch(/^capstate: error: /);
  });
});

describe('docs (STYLE §8)', () => {
  it('every CLI command is documented in the README', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    for (const name of Object.keys(commands)) expect(readme, name).toMatch(new RegExp(`capstate ${name}\\b`));
  });
});

describe('CLI fixes', () => {
  it('sql --json prints BLOBs as {"base64": …}', () => {
    const r = cli(['sql', "select x'00ff' as b, 1 as n", '--db', db, '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(oneJson(r.stdout).rows).toEqual([{ b: { base64: 'AP8=' }, n: 1 }]);
  });

  it('sql --csv ends every line with CRLF, the last one too, and NULL is an empty field', () => {
    const r = cli(['sql', "select 1 as a, null as b, 'x,\"y' as c, x'00ff' as d union all select 2, 'z', null, null", '--db', db, '--csv']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('a,b,c,d\r\n1,,"x,""y",AP8=\r\n2,z,,\r\n');
    expect(cli(['sql', '--help']).stdout).toMatch(/NULL prints as an empty field/);
  });

  it('sql --json with --csv is a usage error (exit 2)', () => {
    const r = cli(['sql', 'select 1', '--db', db, '--json', '--csv']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--json and --csv/);
  });

  it('the command is the first argument naming one, so options may come first', () => {
    const r = cli(['--db', db, 'info']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^capture 1: .*capture\.har$/m);
    const s = cli(['--db', db, '--json', 'sql', 'select 1 as one']);
    expect(s.status, s.stderr).toBe(0);
    expect(oneJson(s.stdout).rows).toEqual([{ one: 1 }]);
    const u = cli(['--db', db, 'frobnicate']);
    expect(u.status).toBe(2);
    expect(u.stderr).toMatch(/frobnicate/);
  });

  it('an error naming the file in its message does not print the path twice', () => {
    const t = join(dir, 't.txt');
    writeFileSync(t, 'not sqlite at all, just some text that is long enough to not be a database header');
    const r = cli(['info', '--db', t]);
    expect(r.status).toBe(1);
    expect(r.stderr.split(t).length - 1, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/is not a capstate store/);
    const missing = join(dir, 'nope.sqlite');
    const m = cli(['info', '--db', missing]);
    expect(m.stderr).not.toContain(`${missing}: no store at ${missing}`);
  });

  it('manifest text says "1 tool" and "2 tools"', () => {
    const one = join(dir, 'one.har');
    const two = join(dir, 'two.har');
    const entry = (url: string, i: number) => ({
      startedDateTime: new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString(),
      time: 1,
      request: { method: 'GET', url, headers: [] },
      response: { status: 200, headers: [], content: { mimeType: 'application/json', text: JSON.stringify({ id: i }) } },
    });
    writeFileSync(one, JSON.stringify({ log: { version: '1.2', entries: [entry('http://app.test/api/me', 0)] } }));
    writeFileSync(
      two,
      JSON.stringify({ log: { version: '1.2', entries: [entry('http://app.test/api/me', 0), entry('http://app.test/api/teams', 1)] } }),
    );
    const r1 = cli(['manifest', one]);
    expect(r1.status, r1.stderr).toBe(0);
    expect(r1.stdout).toMatch(/^1 tool:$/m);
    const r2 = cli(['manifest', two]);
    expect(r2.status, r2.stderr).toBe(0);
    expect(r2.stdout).toMatch(/^2 tools:$/m);
  });
});
