/**
 * Capture comparison on real captures: one local page recorded with and without a change
 * (text, a network response, a storage value, a redirect chain, responses reordered by
 * concurrency), compared through the core, the CLI and the MCP tools (BS-72 to BS-81).
 */
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { captureBrowserScenario, type Evidence } from '../src/browser/index.js';
import { compareWebCaptures, type ComparisonResult } from '../src/compare/index.js';
import { CHROMIUM, describeBrowser, startExternalBrowser, type ExternalBrowser } from './browser-app.js';
import { cli, tempDir } from './helpers.js';
import { METHOD_EXCHANGES, serveHar, text, type Served } from './serve-helpers.js';
import { CLOSED_BROWSER_POLICY } from '../src/serve/browser-policy.js';

/** What the page shows and serves; each capture changes one thing. */
interface Variant {
  title: string;
  items: string[];
  pref: string;
  redirectTo: string;
  slowFirst: 'a' | 'b';
}
const BASE: Variant = { title: 'Items', items: ['Lamp', 'Desk'], pref: 'dark', redirectTo: '/api/new', slowFirst: 'a' };
let variant: Variant = BASE;

const server = http.createServer((req, res) => {
  const u = new URL(req.url!, 'http://x');
  const json = (v: unknown, delay = 0) =>
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(v));
    }, delay);
  switch (u.pathname) {
    case '/favicon.ico':
      res.writeHead(204);
      return res.end();
    case '/api/items':
      return json(variant.items);
    case '/api/old':
      res.writeHead(302, { location: variant.redirectTo });
      return res.end();
    case '/api/new':
    case '/api/newer':
      return json({ at: u.pathname });
    // Concurrency: the two slow responses arrive in the order the variant says.
    case '/api/slow':
      return json({ n: u.searchParams.get('n') }, u.searchParams.get('n') === variant.slowFirst ? 300 : 20);
    case '/':
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(`<!doctype html><html><head><title>${variant.title}</title></head><body><h1>${variant.title}</h1><button id="go">Go</button><ul id="list"></ul>
        <script>
          document.getElementById('go').onclick = async () => {
            localStorage.setItem('pref', ${JSON.stringify(variant.pref)}); localStorage.setItem('lang', 'en');
            const [items] = await Promise.all([fetch('/api/items').then((r) => r.json()), fetch('/api/old').then((r) => r.text()), fetch('/api/slow?n=a').then((r) => r.text()), fetch('/api/slow?n=b').then((r) => r.text())]);
            document.getElementById('list').innerHTML = items.map((i) => '<li>' + i + '</li>').join('');
            document.body.dataset.state = 'ready';
          };
        </script></body></html>`);
    default:
      res.writeHead(404);
      return res.end();
  }
});
let origin = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(
  () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
);

function scenario(
  network: Record<string, boolean> = { request_body: false, response_body: true, header_values: false },
): Record<string, unknown> {
  return {
    browser: { mode: 'launch', executable_path: CHROMIUM },
    start_url: { url: `${origin}/` },
    actions: [
      { step_id: 'go', action: 'click', locator: { kind: 'css', selector: '#go' }, timeout_ms: 10000 },
      {
        step_id: 'ready',
        action: 'wait_for',
        locator: { kind: 'css', selector: "body[data-state='ready']" },
        state: 'attached',
        timeout_ms: 10000,
      },
    ],
    capture: {
      after_each_step: ['url', 'storage'],
      at_end: ['dom', 'accessibility', 'screenshot'],
      events: ['network', 'console'],
      network,
    },
  };
}

async function record(v: Partial<Variant> = {}, s = scenario()): Promise<Evidence> {
  variant = { ...BASE, ...v };
  const e = await captureBrowserScenario(s);
  expect(e.steps.map((x) => x.status)).toEqual(['completed', 'completed']);
  return e;
}

const dir = tempDir();
const art = (r: ComparisonResult, stepId: string, kind: string) =>
  r.steps.find((s) => s.step_id === stepId)!.artifacts.find((x) => x.kind === kind)!;
const changedKinds = (r: ComparisonResult) =>
  [...(r.initial_state ? [r.initial_state] : []), ...r.steps].flatMap((s) =>
    s.artifacts.filter((x) => x.verdict === 'changed').map((x) => `${s.step_id ?? 'initial'}.${x.kind}`),
  );

describeBrowser('BS-72 / BS-81 comparing connected captures', () => {
  let external: ExternalBrowser | null = null;
  afterAll(async () => {
    await external?.stop();
  });

  it('BS-72 two connected captures compare like launched ones; a connected and a launched capture are incompatible contexts', async () => {
    external = await startExternalBrowser();
    const connect = () => ({ ...scenario(), browser: { mode: 'connect', cdp_endpoint: external!.endpoint } });
    // The caller's browser keeps what a capture's page stored: the first capture starts from
    // empty storage, later ones from what it left, so it is compared only as a warm-up.
    const first = await record({}, connect());
    const base = await record({}, connect());
    const same = await record({}, connect());
    expect(changedKinds(compareWebCaptures({ before: first, after: base }))).toEqual(['initial.storage']);
    const changed = await record({ items: ['Lamp', 'Desk', 'Chair'] }, connect());
    // BS-81: connected captures are admitted although they are not equality-eligible (BS-43).
    expect(base.equality.eligible).toBe(false);
    const r = compareWebCaptures({ before: base, after: same });
    expect(r.alignment_failures).toEqual([]);
    expect(changedKinds(r)).toEqual([]);
    const c = compareWebCaptures({ before: base, after: changed });
    expect(c.verdict).toBe('changed');
    expect(art(c, 'go', 'network').only_after!.map((h) => new URL(h.url!).pathname)).toEqual(['/api/items']);
    const launched = await record();
    const mixed = compareWebCaptures({ before: base, after: launched });
    expect(mixed.alignment_failures.map((f) => f.code)).toEqual(['incompatible-context']);
    expect(mixed.verdict).not.toBe('unchanged');
  }, 60_000);
});

describeBrowser('BS-72 / BS-74 / BS-77 / BS-75 comparing real captures of one page', () => {
  const caps: Record<string, Evidence> = {};
  beforeAll(async () => {
    // Sequential: one page, one variant at a time.
    caps.base = await record();
    caps.reordered = await record({ slowFirst: 'b' });
    caps.text = await record({ title: 'Things' });
    caps.response = await record({ items: ['Lamp', 'Desk', 'Chair'] });
    caps.storage = await record({ pref: 'light' });
    caps.redirect = await record({ redirectTo: '/api/newer' });
  }, 90_000);

  it('BS-74 concurrency reorders the responses, yet the captures compare unchanged with equal digests', () => {
    const seq = (e: Evidence) => e.events.filter((x) => x.kind === 'response' && String(x.url ?? '').length === 0).length;
    expect(seq(caps.base)).toBeGreaterThanOrEqual(0);
    const order = (e: Evidence) => {
      const ids = new Map(e.events.filter((x) => x.kind === 'request').map((x) => [x.transaction_id, new URL(x.url as string).search]));
      return e.events
        .filter((x) => x.kind === 'response' && String(ids.get(x.transaction_id)).startsWith('?n='))
        .map((x) => ids.get(x.transaction_id));
    };
    expect(order(caps.base)).toEqual(['?n=b', '?n=a']);
    expect(order(caps.reordered)).toEqual(['?n=a', '?n=b']);
    const r = compareWebCaptures({ before: caps.base, after: caps.reordered });
    expect(changedKinds(r)).toEqual([]);
    expect(r.alignment_failures).toEqual([]);
    expect(r.verdict).toBe('unchanged');
    for (const s of r.steps) for (const x of s.artifacts) expect(x.after.digest, `${s.step_id}.${x.kind}`).toBe(x.before.digest);
  });

  it('BS-73 / BS-76 identical captures are unchanged with equal digests whatever the input order of rules', () => {
    const rules = [
      { artifact_kinds: ['dom', 'url'], find: 'Lamp', replace: 'L' },
      { artifact_kinds: ['accessibility'], find: 'Desk', replace: 'D' },
      { artifact_kinds: ['dom'], find: 'Desk', replace: 'D' },
    ];
    const r1 = compareWebCaptures({ before: caps.base, after: caps.base, rules });
    const r2 = compareWebCaptures({ before: caps.base, after: caps.base, rules: [...rules].reverse() });
    expect(r1.verdict).toBe('unchanged');
    expect(r2.normalization).toEqual(r1.normalization);
    expect(r2.steps).toEqual(r1.steps);
  });

  it('BS-73 a text change: DOM, accessibility and screenshot of the last step change', () => {
    const r = compareWebCaptures({ before: caps.base, after: caps.text });
    expect(r.verdict).toBe('changed');
    expect(changedKinds(r)).toEqual(expect.arrayContaining(['ready.dom', 'ready.accessibility', 'ready.screenshot']));
    // The page's own HTML is a response body of the initial navigation.
    expect(changedKinds(r)).toContain('initial.network');
    expect(changedKinds(r).filter((k) => k.startsWith('go.'))).toEqual([]);
  });

  it('BS-74 a changed network response is a change of the step that sent it, naming the transaction', () => {
    const r = compareWebCaptures({ before: caps.base, after: caps.response });
    const n = art(r, 'go', 'network');
    expect(n.verdict).toBe('changed');
    expect(n.only_after!.map((h) => new URL(h.url!).pathname)).toEqual(['/api/items']);
    expect(art(r, 'ready', 'network').verdict).toBe('unchanged');
  });

  it('BS-77 a changed storage value changes storage; its enumeration order alone would not', () => {
    const r = compareWebCaptures({ before: caps.base, after: caps.storage });
    // The value reaches the page in its inline script, so the document (its response body and
    // the final DOM, which holds the script) changes too; accessibility and screenshot do not.
    expect(changedKinds(r)).toEqual(['initial.network', 'go.storage', 'ready.dom', 'ready.storage']);
    const reversed = structuredClone(caps.base);
    for (const s of reversed.steps) {
      const st = s.captures.storage as { state: string; value: { local_storage: unknown[] } };
      st.value.local_storage.reverse();
    }
    expect(compareWebCaptures({ before: caps.base, after: reversed }).verdict).toBe('unchanged');
  });

  it('BS-75 a redirect chain to another target changes the hop and, through its ancestry, nothing else is blamed', () => {
    const r = compareWebCaptures({ before: caps.base, after: caps.redirect });
    const n = art(r, 'go', 'network');
    expect(n.verdict).toBe('changed');
    const paths = (hops: { url: string | null }[]) => hops.map((h) => new URL(h.url!).pathname).sort();
    // The 302 hop's Location header is not selected, so /api/old itself compares equal.
    expect(paths(n.only_before!)).toEqual(['/api/new']);
    expect(paths(n.only_after!)).toEqual(['/api/newer']);
  });

  it('BS-62 / BS-71 / BS-72 / BS-80 unknown paths: another selection, legacy fingerprints, a renamed step', async () => {
    const other = await record({}, scenario({ request_body: true, response_body: true, header_values: false }));
    const sel = compareWebCaptures({ before: caps.base, after: other });
    expect(art(sel, 'go', 'network')).toMatchObject({ verdict: 'unknown', recovery: expect.stringMatching(/capture.network/) });
    expect(art(sel, 'ready', 'dom').verdict).toBe('unchanged');
    const legacy = structuredClone(caps.base);
    for (const s of legacy.steps) delete (s.captures.storage as { value: Record<string, unknown> }).value.fingerprint_version;
    expect(art(compareWebCaptures({ before: legacy, after: legacy }), 'go', 'storage').verdict).toBe('unknown');
    const families = structuredClone(caps.base);
    families.scenario.event_families = ['network'];
    expect(art(compareWebCaptures({ before: caps.base, after: families }), 'ready', 'events').verdict).toBe('unknown');
    const renamed = structuredClone(caps.base);
    renamed.steps[1].step_id = 'done';
    const r = compareWebCaptures({ before: caps.base, after: renamed });
    expect(r.alignment_failures.map((f) => f.code)).toEqual(['missing-counterpart', 'missing-counterpart']);
    expect(r.verdict).toBe('unknown');
  }, 30_000);

  it('BS-72 the CLI compares two Evidence files and prints what changed and what could not be compared', () => {
    const a = join(dir, 'base.json'),
      b = join(dir, 'response.json');
    writeFileSync(a, JSON.stringify(caps.base));
    writeFileSync(b, JSON.stringify(caps.response));
    const r = cli(['compare-web-captures', a, b]);
    expect(r.status, r.stderr).toBe(0);
    // The new item is in the response of step go and in the list the last step shows.
    expect(r.stdout).toMatch(/^CHANGED: 2 changed, 1 unchanged, 0 unknown step\(s\)/);
    expect(r.stdout).toMatch(/ready: changed — changed: screenshot, dom, accessibility\n/);
    expect(r.stdout).toMatch(
      /go: changed — changed: network\n\s+~ GET http:\/\/127\.0\.0\.1:\d+\/api\/items: network-content\(response\)\.body\n/,
    );
  });

  describeBrowser('MCP capture_browser_scenario and compare_web_captures', () => {
    let s: Served;
    beforeAll(async () => {
      s = await serveHar(dir, METHOD_EXCHANGES, {
        browser: { ...CLOSED_BROWSER_POLICY, allowBrowser: true, executablePath: CHROMIUM, evidenceDir: dir },
      });
    });
    afterAll(() => s.close());

    it('hints: the capture is open-world and not read-only; the comparison is read-only', () => {
      expect(s.tool('capture_browser_scenario').annotations).toEqual({ readOnlyHint: false, idempotentHint: false, openWorldHint: true });
      expect(s.tool('compare_web_captures').annotations).toEqual({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    });

    it('capture_browser_scenario returns the Evidence and says nothing was written; compare_web_captures takes it inline', async () => {
      variant = BASE;
      const c = await s.call('capture_browser_scenario', scenario());
      expect(c.isError, text(c)).toBeFalsy();
      expect(text(c)).toMatch(/Nothing was written to disk/);
      const ev = c.structuredContent as unknown as Evidence;
      expect(ev.schema_version).toBe(1);
      expect(ev.steps.map((x) => x.step_id)).toEqual(['go', 'ready']);
      const file = join(dir, 'base-mcp.json');
      writeFileSync(file, JSON.stringify(caps.base));
      const r = await s.call('compare_web_captures', {
        before: file,
        after: ev,
        rules: [{ artifact_kinds: ['dom'], find: 'x', replace: 'y' }],
      });
      expect(r.isError, text(r)).toBeFalsy();
      expect(r.structuredContent).toMatchObject({ ok: true, verdict: 'unchanged', normalization: { rules: [{ find: 'x' }] } });
      expect(text(r)).toMatch(/^UNCHANGED/);
    }, 30_000);

    it('bad arguments come back as isError with the one error shape', async () => {
      const r = await s.call('compare_web_captures', { before: join(dir, 'nope.json'), after: {} });
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toMatchObject({ ok: false, code: 'no-such-file' });
      const bad = await s.call('compare_web_captures', {
        before: caps.base as unknown as Record<string, unknown>,
        after: caps.base as unknown as Record<string, unknown>,
        options: { nope: true },
      });
      expect(bad.structuredContent).toMatchObject({ ok: false, code: 'bad-comparison-policy' });
      const cap = await s.call('capture_browser_scenario', {
        browser: { mode: 'launch', executable_path: CHROMIUM },
        start_url: { url: `${origin}/` },
        actions: [],
        nope: 1,
      });
      expect(cap.isError).toBe(true);
    });
  });
});
