/**
 * Issue 44: a query key whose value is a label matcher (`filter=alertname="DiskFull"`,
 * Alertmanager's and Prometheus's spelling), learned from a filtered read beside the whole list
 * the capture read just before it (src/model/served/paired-queries.ts), and answered after the
 * capture's own writes from the whole list it read after them (paired-answer.ts). On
 * Alertmanager 0.25 (Debian) recorded in Chromium (bench/fidelity/alertmanager); truth is
 * Alertmanager's own answers to the held-out requests (truth.json, clocks and ids masked as the
 * benchmark masks them).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alertmanager } from '../bench/fidelity/apps/alertmanager.js';
import { maskJson } from '../bench/fidelity/compare.js';
import { applyListQuery, parseListQuery, type ListQuery } from '../src/model/plan/list-queries.js';
import { labelReader, matcherKey } from '../src/model/plan/label-matchers.js';
import type { StateEntity } from '../src/model/plan/types.js';
import type { Vocabulary } from '../src/store/vocabulary.js';
import { servedFidelityApp } from './fidelity-served.js';
import { cli, root, tempDir } from './helpers.js';

const am = servedFidelityApp('alertmanager');
const mask = (v: unknown) => maskJson(v, alertmanager.mask);

const alert = (i: number, labels: Record<string, string>): StateEntity => ({
  collection: 'alerts',
  id: `f${i}`,
  value: { fingerprint: `f${i}`, labels, annotations: { summary: `alert ${i}` }, status: { state: 'active' } },
  view_values: {},
  state_order: i,
  record_ordinals: [],
});
const ALERTS = [
  alert(0, { alertname: 'DiskFull', severity: 'critical', team: 'storage' }),
  alert(1, { alertname: 'DiskFull', severity: 'warning' }),
  alert(2, { alertname: 'HighLatency', severity: 'warning', team: 'web' }),
];
const FIELDS = new Set(['fingerprint', 'labels', 'annotations', 'status']);
// The keys a vocabulary names (sort, page, projection) play no part here.
const vocabulary = {
  isProjection: () => false,
  isRandom: () => false,
  isOrdering: () => false,
  isPagination: () => false,
  windowRole: () => null,
} as unknown as Vocabulary;
const parse = (pairs: { name: string; value: string }[], all = ALERTS) =>
  parseListQuery(pairs, vocabulary, (n) => FIELDS.has(n), undefined, labelReader(FIELDS, all));
const picked = (q: ListQuery) => applyListQuery(ALERTS, q, 'get_alerts').entities.map((e) => e.id);

describe('label matchers: a key whose value names a label, an operator and a value', () => {
  it('label-matchers: name="value" filters on the one object member holding the label, spelled as its own learned key per operator', () => {
    const p = parse([{ name: 'filter', value: 'alertname="DiskFull"' }]);
    expect(p.ok && p.query.filter).toEqual([{ field: 'labels.alertname', values: ['DiskFull'], matcher: '=' }]);
    expect(p.ok && [...p.kinds]).toEqual([['filter', [matcherKey('filter', '=', 'labels')]]]);
    expect(matcherKey('filter', '=', 'labels')).toBe('filter = labels');
    expect(picked(p.ok ? p.query : {})).toEqual(['f0', 'f1']);
  });

  it('label-matchers: != and !~ keep an absent label (it is the empty string), =~ and !~ match the whole value', () => {
    const ids = (value: string) => {
      const p = parse([{ name: 'filter', value }]);
      return p.ok ? picked(p.query) : p.why;
    };
    expect(ids('team!="web"')).toEqual(['f0', 'f1']);
    expect(ids('alertname=~"Disk.*"')).toEqual(['f0', 'f1']);
    expect(ids('alertname=~"Disk"')).toEqual([]);
    expect(ids('team!~"st.*"')).toEqual(['f1', 'f2']);
    expect(ids('team=""')).toEqual(['f1']);
    expect(ids('alertname="No\\"Such"')).toEqual([]);
  });

  it('label-matchers: a label no member holds, or two members hold, a repeated matcher key and a value that is no matcher are not read', () => {
    expect(parse([{ name: 'filter', value: 'nosuchlabel="x"' }]).ok).toBe(false);
    const twice = [alert(0, { summary: 'x' })];
    expect(parse([{ name: 'filter', value: 'summary="x"' }], twice).ok).toBe(false);
    expect(
      parse([
        { name: 'filter', value: 'team="web"' },
        { name: 'filter', value: 'severity="warning"' },
      ]),
    ).toMatchObject({ ok: false, why: 'a repeated matcher key' });
    expect(parse([{ name: 'filter', value: 'severity' }]).ok).toBe(false);
    expect(parse([{ name: 'filter', value: 'alertname=~"("' }]).ok).toBe(false);
  });
});

describe("label matchers on Alertmanager's alerts", () => {
  it("label-matchers: the capture's filter read beside the whole list before it teaches the = operator on labels, and no other", () => {
    const db = join(tempDir(), 'am.sqlite');
    expect(cli(['load', join(root, 'bench', 'fidelity', 'alertmanager', 'capture.har'), '--db', db]).status).toBe(0);
    const state = JSON.parse(cli(['state', '--db', db, '--json']).stdout) as {
      plans: { tool: string; list_queries?: { filter: string[] } }[];
    };
    expect(state.plans.find((p) => p.tool === 'get_api_v2_alerts')!.list_queries?.filter).toEqual(['filter = labels']);
  });

  it("label-matchers: after the capture's writes, other labels and values answer like Alertmanager from the whole list it read after them", async () => {
    await am.replayCapture();
    for (const [id, path] of [
      ['filter-08', '/api/v2/alerts?filter=severity=%22critical%22'],
      ['filter-17', '/api/v2/alerts?filter=alertname=%22NoSuchAlert%22'],
      ['after-write-28', '/api/v2/alerts?filter=team=%22web%22'],
    ]) {
      const r = await am.get(path);
      expect(r.h('capstate-answer'), path).toBe('state');
      expect(mask(r.json), path).toEqual(mask(am.truth(id).json));
    }
  });

  it('label-matchers: an operator, or several matchers, the capture never showed are declined, not guessed', async () => {
    await am.replayCapture();
    for (const path of [
      '/api/v2/alerts?filter=severity!=%22critical%22',
      '/api/v2/alerts?filter=alertname=~%22Disk.*%22',
      '/api/v2/alerts?filter=team=%22web%22&filter=severity=%22warning%22',
    ]) {
      const r = await am.get(path);
      expect(r.status, path).toBe(501);
      expect(r.h('capstate-answer'), path).toBe('declined');
    }
  });
});
