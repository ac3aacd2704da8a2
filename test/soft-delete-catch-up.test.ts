/**
 * Issues 44 and 45 on Alertmanager 0.25 (Debian), recorded in Chromium (bench/fidelity/alertmanager):
 * the capture creates four silences (each answered `{"silenceID": …}`, which the model cannot
 * verify as a create) and deletes one, which Alertmanager expires rather than removes: the list
 * after it shows the silence with `"status": {"state": "expired"}`. Catch-up (catch-up.ts) takes
 * the state those later reads show — a create's id from its answer's only member, a delete whose
 * entity they still show as they show it — so held-out item reads of the silences answer from
 * state. Truth: Alertmanager's own answers (truth.json, ids and clocks masked as the benchmark does).
 */
import { describe, expect, it } from 'vitest';
import { maskJson } from '../bench/fidelity/compare.js';
import { alertmanager } from '../bench/fidelity/apps/alertmanager.js';
import { join } from 'node:path';
import { servedFidelityApp } from './fidelity-served.js';
import { cli, root, tempDir } from './helpers.js';

const am = servedFidelityApp('alertmanager');
const mask = (v: unknown) => maskJson(v, alertmanager.mask);

describe('catch-up after creates answered by an id and a soft delete', () => {
  it("catch-up: a DELETE whose entity the reads after it still show (expired) takes what they show; the creates' ids come from their answers' only member", async () => {
    await am.replayCapture();
    for (const [id, path] of [
      ['unread-item-01', '/api/v2/silence/fc944421-a322-47d7-98e3-b55f4b2b8a79'],
      ['after-write-26', '/api/v2/silence/00af2dbe-0d49-463b-87da-2e32f595b6f8'],
    ]) {
      const r = await am.get(path);
      expect(r.h('capstate-answer'), path).toBe('state');
      expect(mask(r.json), path).toEqual(mask(am.truth(id).json));
    }
    expect(((await am.get('/api/v2/silence/00af2dbe-0d49-463b-87da-2e32f595b6f8')).json as { status: unknown }).status).toEqual({
      state: 'expired',
    });
  });

  it('check-effects: after a create the model replays, no id of its type is claimed absent (the silence read after the creates replays its record, not a 404)', () => {
    const db = join(tempDir(), 'am.sqlite');
    expect(cli(['load', join(root, 'bench', 'fidelity', 'alertmanager', 'capture.har'), '--db', db]).status).toBe(0);
    const r = JSON.parse(cli(['check-effects', '--db', db, '--json']).stdout) as {
      checks: { request_line: string; reproduced: boolean; answered_status: number }[];
    };
    const read = r.checks.find((c) => c.request_line === 'GET /api/v2/silence/28fcfa07-b5b7-446c-a253-23686817f577')!;
    expect(read).toMatchObject({ reproduced: true, answered_status: 200 });
  });

  it('item-route: a collection read by an item route of its own elsewhere is not read under its list path', async () => {
    await am.replayCapture();
    // Alertmanager reads a silence at /api/v2/silence/{id}; under /api/v2/silences it answers an unrouted 404.
    const r = await am.get('/api/v2/silences/28fcfa07-b5b7-446c-a253-23686817f577');
    expect(r.status).toBe(501);
    expect(r.h('capstate-answer')).toBe('declined');
  });
});
