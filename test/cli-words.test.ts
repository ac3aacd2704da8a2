/**
 * Issue 46: the default text of `capstate state` and `capstate manifest` says things in
 * words a user knows — no "evidence: inferred, authorization, response-semantics unknown",
 * "admitted: subject … (from document)", "record view: body-unusable", "membership
 * recorded", "type root" or "(issue 18)". `--explain` prints those exact terms; `--json` is
 * unchanged.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { cli, fixture, tempDir } from './helpers.js';

const dir = tempDir();
/** The terms users did not understand, as the default text printed them. */
const TERMS =
  /evidence: inferred|response-semantics|record view|type's bound|membership (all|recorded)|type root|\(issue \d+\)|admitted: subject|\(from (document|page|start-url)\)|identity \w+ \((path|name|suffix|member)\)| root \/|\(api-write\)/;

/** Loads a fixture once into a store of its own. */
function store(name: string, file = 'capture.har'): string {
  const db = join(dir, `${name}.sqlite`);
  const r = cli(['load', fixture(name, file), '--db', db, '--quiet']);
  expect(r.status, r.stderr).toBe(0);
  return db;
}

describe('cli-words: state and manifest in plain words by default, the exact terms with --explain', () => {
  // grafana: a record view (body-unusable, no-initial-record), documents, lists with counters;
  // json-server-nested: a nested list with a parent and "recorded" membership, a manifest note citing issue 18.
  const stores = { grafana: store('grafana'), nested: store('json-server-nested') };

  it('the state says how it was inferred, what the traffic cannot tell, and how each read is answered, without the rule vocabulary', () => {
    const text = cli(['state', '--db', stores.grafana]).stdout;
    expect(text).not.toMatch(TERMS);
    expect(text).toMatch(/^environment state of capture 1, inferred from the recorded traffic \(records in order of their start time\)$/m);
    expect(text).toContain('not known from the traffic: who may call what; what the app means by its answers beyond what they show');
    expect(text).toMatch(/get_d_by_id_service_overview +replays its recorded answers: record #1 .* has no usable JSON body/);
    expect(text).toMatch(
      /get_api_annotations +replays its recorded answers: none of its records comes before the first change to its type, so none shows the initial state\n/,
    );
    expect(text).toMatch(
      /get_api_teams_search +a list of teams from the state \(at \/teams in the answer, every entity, counts in \/totalCount\)/,
    );
    expect(text).toMatch(/folders {2}\/api\/folders {2}keyed by uid \(as in its item paths\)/);
    const nested = cli(['state', '--db', stores.nested]).stdout;
    expect(nested).not.toMatch(TERMS);
    expect(nested).toMatch(/get_comments +a list of comments from the state \(the whole answer, the entities its records listed\)/);
  });

  it('the state with --explain keeps the exact terms: evidence, record view and its reason, membership, identity source', () => {
    const text = cli(['state', '--db', stores.grafana, '--explain']).stdout;
    expect(text).toContain('(timeline: start-time; evidence: inferred, authorization, response-semantics, write-effects unknown)');
    expect(text).toMatch(/record view: body-unusable — record #1 .* has no usable JSON body \(ES-4\)/);
    expect(text).toMatch(/list plan \(teams at \/teams, membership all, counters \/totalCount\)/);
    expect(text).toMatch(/identity uid \(path\)/);
    expect(cli(['state', '--db', stores.nested, '--explain']).stdout).toMatch(/membership recorded, each \{id\}'s by postId/);
  });

  it('the manifest names the app and where it was found, the type of each tool, and notes without issue numbers; --explain keeps the terms', () => {
    const text = cli(['manifest', '--db', stores.nested]).stdout;
    expect(text).not.toMatch(TERMS);
    expect(text).toMatch(/^app http:\/\/localhost:\d+ \(from the app's HTML page\); (\d+) of \d+ records are its traffic and are used$/m);
    expect(text).toContain('note: /posts/{id}/comments lists /comments under a parent: one type with /comments\n');
    expect(text).toMatch(/get_comments +GET +\/comments +type \/comments /);
    const exact = cli(['manifest', '--db', stores.nested, '--explain']).stdout;
    expect(exact).toMatch(/^admitted: subject http:\/\/localhost:\d+ \(from document\), \d+ of \d+ records$/m);
    expect(exact).toContain('one type with /comments (issue 18)');
    expect(exact).toMatch(/get_comments +GET +\/comments +root \/comments /);
  });

  it('--json is unchanged: the manifest and the state keep their keys and stored terms', () => {
    const m = JSON.parse(cli(['manifest', '--db', stores.nested, '--json']).stdout) as {
      manifests: { admission: { subject_source: string; notes: string[] }; tools: { root_path: string }[] }[];
    };
    expect(m.manifests[0].admission.subject_source).toBe('document');
    expect(m.manifests[0].admission.notes).toContain(
      '/posts/{id}/comments lists /comments under a parent: one type with /comments (issue 18)',
    );
    const s = JSON.parse(cli(['state', '--db', stores.grafana, '--json']).stdout) as {
      evidence: { status: string; unknown: string[] };
      plans: { kind: string; reason?: string; membership?: string }[];
    };
    expect(s.evidence).toMatchObject({ status: 'inferred', unknown: ['authorization', 'response-semantics', 'write-effects'] });
    expect(s.plans.some((p) => p.kind === 'record' && p.reason === 'body-unusable')).toBe(true);
    expect(s.plans.some((p) => p.membership === 'all')).toBe(true);
  });
});
