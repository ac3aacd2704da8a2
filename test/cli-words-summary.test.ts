/**
 * Issue 46: after `capstate load`, one plain summary per capture — what the model learned,
 * how many recorded writes take effect, which records it ignored and what they are — and the
 * next step; `--explain` gives the exact terms and their rules, `--json` is unchanged.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, fixture, root, tempDir } from './helpers.js';

const dir = tempDir();
const load = (name: string, db: string, ...args: string[]) => {
  const r = cli(['load', fixture(name, 'capture.har'), '--db', db, '--quiet', ...args]);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
};

describe('cli-words: the summary after load', () => {
  it('says what was learned and that every recorded write takes effect, then the next step with the store named', () => {
    const db = join(dir, 'json-server.sqlite');
    expect(load('json-server', db).split('\n')).toEqual([
      `${fixture('json-server', 'capture.har')}: learned 1 collection and 1 document; 5 of 5 recorded writes take effect`,
      `store: ${db}`,
      `next: capstate serve --http 3000 --db ${db}  (the app's API at http://127.0.0.1:3000/)`,
      `  or: capstate state --db ${db}              (what it learned)`,
      '',
    ]);
  });

  it('names the records it ignored by kind, and says plainly when no recorded write takes effect', () => {
    expect(load('news-site-playwright', join(dir, 'news.sqlite'))).toMatch(
      /capture\.har: learned 1 collection; no recorded writes; ignored 17 records: 14 from other sites, 1 image, 1 script, 1 stylesheet\n/,
    );
    expect(load('grafana', join(dir, 'grafana.sqlite'))).toMatch(
      /capture\.har: learned 6 collections and 4 documents; none of its 2 recorded writes take effect \(they replay their recorded answers\)\n/,
    );
  });

  it('issue 48 a GraphQL endpoint: the entities its answers showed, and its mutations (not its queries) as the recorded writes', () => {
    const har = join(root, 'bench/fidelity/graphql-yoga/capture.har');
    const r = cli(['load', har, '--db', join(dir, 'yoga.sqlite'), '--quiet']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(`${har}: learned 9 GraphQL entities of 2 types; 3 of 3 recorded writes take effect`);
    // One unchecked mutation (graphql-mutation's AddStar), said in the singular.
    expect(load('graphql-mutation', join(dir, 'gm.sqlite')).split('\n')[0]).toMatch(
      /: learned nothing it answers from state \(every read replays its records\); none of its 1 recorded write takes effect \(it replays its recorded answer\)/,
    );
  });

  it('issue 48 capstate state names a GraphQL endpoint and says its model is not part of the stored state', () => {
    const db = join(dir, 'gm-state.sqlite');
    load('graphql-mutation', db);
    const r = cli(['state', '--db', db]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'graphql: post_graphql (POST /graphql) is a GraphQL endpoint: serving answers it from its own model of the entities its answers show, which this stored state does not hold',
    );
  });

  it('with several captures in the store, the next step names the one just loaded', () => {
    const db = join(dir, 'two.sqlite');
    load('json-server', db);
    const out = load('grafana', db);
    expect(out).toContain(`next: capstate serve --http 3000 --db ${db} --capture 2 `);
    expect(out).toContain(`  or: capstate state --db ${db} --capture 2 `);
  });

  it('leaves --db out of the next step when the commands find the store without it', () => {
    const r = cli(['load', fixture('json-server', 'capture.har'), '--quiet'], { cwd: dir });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^next: capstate serve --http 3000 +\(the app's API/m);
    expect(r.stdout).toMatch(/^ {2}or: capstate state +\(what it learned\)$/m);
  });

  it('--explain gives the exact terms with their rules and the load facts; --json is the same document as before', () => {
    const out = load('grafana', join(dir, 'explain.sqlite'), '--explain');
    expect(out).toMatch(/capture\.har: capture 1 \(har\), \d+ records, response bodies .*JSON members; [\d.]+ s/);
    expect(out).toContain('  state (ES-1): 6 types (ES-7, ES-11), 4 documents (DOC-1..DOC-5)');
    expect(out).toContain('  write effects (ES-41): 0 write tool(s) verified, 2 replayed; 0 of 2 write records under verified tools');
    expect(out).toMatch(/records in no tool \(OQ-2 admission, static assets kept as facts\): /);
    const json = cli(['load', fixture('grafana', 'capture.har'), '--db', join(dir, 'json.sqlite'), '--json']);
    const doc = JSON.parse(json.stdout) as { ok: boolean; captures: Record<string, unknown>[] };
    expect(doc.ok).toBe(true);
    expect(Object.keys(doc.captures[0]).sort()).toEqual(
      [
        'already_loaded',
        'bytes',
        'capture_id',
        'duration_ms',
        'file',
        'format',
        'members',
        'new_bodies',
        'phases_ms',
        'records',
        'request_bodies_by_kind',
        'response_bodies_by_kind',
        'sha256',
      ].sort(),
    );
    expect(json.stdout).not.toMatch(/learned|next:/);
  });
});

describe('cli-words: the demo of scripts/setup.sh', () => {
  it('ends with a next step: serving the store the demo built, or loading a capture of your own', () => {
    const setup = readFileSync(join(root, 'scripts', 'setup.sh'), 'utf8');
    const demo = /npm run demo\n([\s\S]*?)\nfi/.exec(setup);
    expect(demo, 'the demo branch of setup.sh').not.toBeNull();
    const said = [...demo![1].matchAll(/^\s*echo "(.*)"$/gm)].map((m) => m[1]);
    expect(said[0]).toMatch(/^next: \.\/capstate serve --http \d+ --db (\S+) /);
    // The store it names is the one the demo builds.
    const store = said[0].match(/--db (\S+)/)![1];
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { demo: string } };
    expect(pkg.scripts.demo).toContain(`--db ${store}`);
    expect(said.at(-1)).toMatch(/^ {2}or: \.\/capstate load /);
  });
});
