/**
 * Issue 18 on a real app: Debian's Alertmanager 0.25, recorded by
 * fixtures/alertmanager-recordhar/record.mjs (Chromium, Playwright recordHar), with its ground
 * truth read from Alertmanager's own API outside the capture (expected/truth.json). Nothing here needs
 * Alertmanager at test time. The synthetic HARs below prove the edges of the two inferences.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { cli, fixture, tempDir } from './helpers.js';
import { writeHar, type Exchange } from './har-builder.js';

const dir = tempDir();
let n = 0;
const A = 'http://app.test';

interface State {
  types: { collection: string; root_path: string; identity: string; identity_source: string; initial_order: string[] }[];
  entities: { collection: string; id: string; value: Record<string, unknown> }[];
  plans: { tool: string; kind: string; reason?: string }[];
}

function stateOf(file: string): State {
  const r = cli(['state', file, '--json']);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as State;
}
const stateOfExchanges = (exchanges: Exchange[]) => stateOf(writeHar(dir, `am${n++}.har`, exchanges));
const entitiesOf = (s: State, collection: string) => s.entities.filter((e) => e.collection === collection);
const kinds = (s: State) => Object.fromEntries(s.plans.map((p) => [p.tool, p.kind === 'record' ? `record:${p.reason}` : p.kind]));

interface Truth {
  silences: { id: string; comment: string; matchers: unknown[] }[];
  alerts: { fingerprint: string; labels: Record<string, string> }[];
  receivers: string[];
}

describe('ACC-1 Alertmanager recorded in Chromium yields the state its own API reports (issue 18)', () => {
  const truth = JSON.parse(readFileSync(fixture('alertmanager-recordhar', 'expected', 'truth.json'), 'utf8')) as Truth;
  const s = stateOf(fixture('alertmanager-recordhar', 'capture.har'));

  it('issue 18 singular item paths beside plural lists: /api/v2/silence/{id} and /api/v2/silences are one type holding the silences', () => {
    expect(
      s.types.filter((t) => t.root_path.startsWith('/api/v2/silence')).map((t) => [t.root_path, t.identity, t.identity_source]),
    ).toEqual([['/api/v2/silences', 'id', 'path']]);
    const silences = entitiesOf(s, 'silences');
    expect(silences.map((e) => e.id).sort()).toEqual(truth.silences.map((x) => x.id));
    for (const e of silences) {
      const t = truth.silences.find((x) => x.id === e.id)!;
      expect({ comment: e.value.comment, matchers: e.value.matchers }).toEqual({ comment: t.comment, matchers: t.matchers });
    }
    expect(kinds(s)).toMatchObject({ get_api_v2_silences: 'list', get_api_v2_silence_by_id: 'item' });
  });

  it('issue 18 identities beyond the fixed names: alerts by fingerprint, receivers by name, marked as member identities', () => {
    expect(s.types.filter((t) => t.identity_source === 'member').map((t) => [t.root_path, t.identity])).toEqual([
      ['/api/v2/alerts', 'fingerprint'],
      ['/api/v2/receivers', 'name'],
    ]);
    const alerts = entitiesOf(s, 'alerts');
    expect(alerts.map((e) => e.id).sort()).toEqual(truth.alerts.map((a) => a.fingerprint));
    for (const e of alerts) expect(e.value.labels).toEqual(truth.alerts.find((a) => a.fingerprint === e.id)!.labels);
    expect(
      entitiesOf(s, 'receivers')
        .map((e) => e.id)
        .sort(),
    ).toEqual(truth.receivers);
    // ES-37: every plan kept reproduces its recorded reads; the groups view stays a document.
    expect(kinds(s)).toMatchObject({
      get_api_v2_alerts: 'list',
      get_api_v2_receivers: 'list',
      get_api_v2_alerts_groups: 'document',
      get_api_v2_status: 'document',
    });
  });
});

describe('issue 18 singular item paths beside plural lists', () => {
  const list = [
    { id: 'a1b2c3d4-0000-4000-8000-000000000001', state: 'active' },
    { id: 'a1b2c3d4-0000-4000-8000-000000000002', state: 'active' },
  ];

  it('merge when every item read names an entity the plural list lists, and the item plan reads the merged type', () => {
    const s = stateOfExchanges([
      { url: `${A}/api/v2/silences`, body: list },
      { url: `${A}/api/v2/silence/${list[0].id}`, body: list[0] },
    ]);
    expect(s.types.map((t) => t.root_path)).toEqual(['/api/v2/silences']);
    expect(kinds(s)).toEqual({ get_api_v2_silences: 'list', get_api_v2_silence_by_id: 'item' });
  });

  it('stay two types when an item read names an id the list does not list', () => {
    const s = stateOfExchanges([
      { url: `${A}/api/v2/silences`, body: list },
      {
        url: `${A}/api/v2/silence/ffffffff-0000-4000-8000-00000000000f`,
        body: { id: 'ffffffff-0000-4000-8000-00000000000f', state: 'expired' },
      },
    ]);
    expect(s.types.map((t) => t.root_path)).toEqual(['/api/v2/silence', '/api/v2/silences']);
  });
});

describe('issue 18 identities beyond the fixed names', () => {
  it('ES-11 an identity name present on every entry still comes first', () => {
    const s = stateOfExchanges([
      {
        url: `${A}/api/things`,
        body: [
          { id: 1, code: 'x1' },
          { id: 2, code: 'x2' },
        ],
      },
    ]);
    expect(s.types.map((t) => [t.identity, t.identity_source])).toEqual([['id', 'name']]);
  });

  it('a member unique across the listed items identifies them; clock values and text with spaces do not', () => {
    const s = stateOfExchanges([
      {
        url: `${A}/api/alerts`,
        body: [
          { startsAt: '2026-01-01T10:00:00Z', summary: 'disk full', fingerprint: '3444cf5e78b81b0e', severity: 'critical' },
          { startsAt: '2026-01-01T10:05:00Z', summary: 'load high', fingerprint: '5f468d3250daa793', severity: 'warning' },
        ],
      },
    ]);
    expect(s.types.map((t) => [t.root_path, t.identity, t.identity_source])).toEqual([['/api/alerts', 'fingerprint', 'member']]);
    expect(s.entities.map((e) => e.id)).toEqual(['3444cf5e78b81b0e', '5f468d3250daa793']);
  });

  it('a member unique in one read but not in another read of the root identifies nothing (it is not stable)', () => {
    const s = stateOfExchanges([
      {
        url: `${A}/api/receivers`,
        body: [
          { name: 'default', kind: 'a' },
          { name: 'ops', kind: 'b' },
        ],
      },
      {
        url: `${A}/api/receivers`,
        body: [
          { name: 'default', kind: 'a' },
          { name: 'ops', kind: 'a' },
          { name: 'ops', kind: 'c' },
        ],
      },
    ]);
    expect(s.types).toEqual([]);
  });

  it('one listed item proves nothing unique', () => {
    const s = stateOfExchanges([{ url: `${A}/api/receivers`, body: [{ name: 'default' }] }]);
    expect(s.types).toEqual([]);
    expect(kinds(s)).toEqual({ get_api_receivers: 'document' });
  });
});
