/**
 * The fidelity benchmark's judgement (bench/fidelity/compare.ts) on hand-made truth/answer
 * pairs, and the held-out property of every app's heldout.json: no request the capture made.
 */
import { describe, expect, it } from 'vitest';
import { declineReason, judge, isDeclined, type Answer } from '../bench/fidelity/compare.js';
import { APPS, captureRequests, heldOut } from '../bench/fidelity/harness.js';

const answer = (over: Partial<Answer>): Answer => ({
  status: 200,
  content_type: 'application/json; charset=utf-8',
  json: [],
  x_total_count: null,
  link: null,
  ...over,
});

describe('fidelity judgement', () => {
  it('matches the same status and JSON body, key order and the Link origin aside', () => {
    const truth = answer({
      json: [{ id: 1, title: 'a' }],
      x_total_count: '8',
      link: '<http://127.0.0.1:4000/posts?_page=1&_limit=1>; rel="first", <http://127.0.0.1:4000/posts?_page=2&_limit=1>; rel="next"',
    });
    const model = answer({
      json: [{ title: 'a', id: 1 }],
      x_total_count: '8',
      link: '<http://127.0.0.1:5999/posts?_page=2&_limit=1>; rel="next", <http://127.0.0.1:5999/posts?_page=1&_limit=1>; rel="first"',
      capstate: { source: 'state' },
    });
    expect(judge(truth, model)).toEqual({ verdict: 'matched', why: [] });
  });

  it('counts an empty Link header and none alike (no links), but not missing links the app sent', () => {
    expect(judge(answer({ json: [], link: '' }), answer({ json: [] })).verdict).toBe('matched');
    expect(judge(answer({ json: [], link: '<http://a/posts?_page=1>; rel="first"' }), answer({ json: [] })).why).toEqual(['Link differs']);
  });

  it('calls a plausible answer that differs wrong: capstate 404/400 documents, other bodies, missing totals', () => {
    const truth = answer({ status: 404, json: {} });
    expect(judge(truth, answer({ status: 404, json: { error: 'not found' } })).verdict).toBe('wrong');
    const noRecord = answer({ status: 404, json: { ok: false, code: 'no-record' }, capstate: { error: 'no-record' } });
    expect(isDeclined(noRecord)).toBe(false);
    expect(judge(answer({ json: [{ id: 2 }] }), noRecord).verdict).toBe('wrong');
    expect(judge(answer({ json: [], x_total_count: '8' }), answer({ json: [] })).why).toEqual(['X-Total-Count absent, app 8']);
  });

  it('calls 501, problem+json, Capstate-Answer: declined and capstate 5xx errors declined', () => {
    const truth = answer({ json: [{ id: 2 }] });
    expect(judge(truth, answer({ status: 501, json: {} })).verdict).toBe('declined');
    expect(judge(truth, answer({ status: 404, content_type: 'application/problem+json', json: {} })).verdict).toBe('declined');
    expect(judge(truth, answer({ status: 200, json: [], capstate: { answer: 'declined; tool=get_posts' } })).verdict).toBe('declined');
    expect(judge(truth, answer({ status: 502, json: {}, capstate: { error: 'no-response' } })).verdict).toBe('declined');
    expect(judge(truth, answer({ status: 500, json: {} })).verdict).toBe('wrong');
  });

  it('names a decline by the reason capstate gave: its error header, else its problem code', () => {
    expect(declineReason(answer({ status: 501, json: { code: 'no-record' }, capstate: { error: 'no-convention' } }))).toBe('no-convention');
    expect(
      declineReason(answer({ status: 404, content_type: 'application/problem+json', json: { code: 'default-not-found' }, capstate: {} })),
    ).toBe('default-not-found');
    expect(declineReason(answer({ status: 200, json: [], capstate: { answer: 'declined' } }))).toBe('declined');
  });

  it('masks the members an app sets itself', () => {
    const truth = answer({ json: { id: 1, updated_on: '2024-01-01T00:00:00Z' } });
    const model = answer({ json: { id: 1, updated_on: '2026-12-06T05:00:00Z' } });
    expect(judge(truth, model).verdict).toBe('wrong');
    expect(judge(truth, model, { fields: ['updated_on'] }).verdict).toBe('matched');
  });
});

describe('held-out lists', () => {
  for (const app of APPS) {
    it(`${app.name}: heldout.json has no request the capture made, ids unique`, () => {
      // A write is the capture's when its body is too; after the first held-out write the app
      // stands where no capture showed it, so a read there may name a line the capture read (issue 45).
      const key = (r: { method: string; path: string; body?: string }) =>
        `${r.method} ${r.path}${r.method === 'GET' ? '' : ` ${r.body ?? ''}`}`;
      const made = new Set(captureRequests(app).map(key));
      const held = heldOut(app);
      const firstWrite = held.findIndex((r) => r.method !== 'GET');
      const fromCaptureState = firstWrite < 0 ? held : held.slice(0, firstWrite);
      expect(held.length).toBeGreaterThan(0);
      expect(fromCaptureState.filter((r) => made.has(key(r))).map((r) => r.id)).toEqual([]);
      expect(held.filter((r) => r.method !== 'GET' && made.has(key(r))).map((r) => r.id)).toEqual([]);
      expect(new Set(held.map((r) => r.id)).size).toBe(held.length);
    });
  }
});
