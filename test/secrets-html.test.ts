/**
 * BS-28 (issue 15): a declared secret holding HTML-special characters appears escaped in a
 * serialised DOM (`&lt;tag&gt;`, `&amp;`, `&quot;`, `&#39;`); that spelling is redacted
 * too, by the capture's redaction (the DOM artifact) and by the loader's echo redaction.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureBrowserScenario } from '../src/browser/index.js';
import { Redaction } from '../src/browser/redaction.js';
import { htmlSpellingsOf, Redactor, spellingsOf } from '../src/load/secrets.js';
import { CHROMIUM, describeBrowser } from './browser-app.js';

const SECRET = `<b>k&y"it's</b>-1234`;

describe('BS-28 the HTML-escaped spellings of a secret', () => {
  it('BS-28 spellingsOf lists the text, attribute and numeric-reference escapes; plain values get none', () => {
    expect(htmlSpellingsOf(SECRET)).toEqual(
      expect.arrayContaining([
        '&lt;b&gt;k&amp;y"it\'s&lt;/b&gt;-1234',
        "<b>k&amp;y&quot;it's</b>-1234",
        "&lt;b&gt;k&amp;y&quot;it's&lt;/b&gt;-1234",
        '&lt;b&gt;k&amp;y&quot;it&#39;s&lt;/b&gt;-1234',
        '&lt;b&gt;k&amp;y&quot;it&#x27;s&lt;/b&gt;-1234',
      ]),
    );
    expect(spellingsOf(SECRET)).toEqual(expect.arrayContaining(htmlSpellingsOf(SECRET)));
    expect(htmlSpellingsOf('plain-value-123')).toEqual([]);
  });

  it('BS-28 the capture redaction replaces a secret in a DOM text node and attribute, escaped either way', () => {
    const view = new Redaction(new Map([['k', SECRET]])).view();
    const dom = `<p id="q">&lt;b&gt;k&amp;y"it's&lt;/b&gt;-1234</p><input value="&lt;b&gt;k&amp;y&quot;it's&lt;/b&gt;-1234"><i title='&lt;b&gt;k&amp;y&quot;it&#39;s&lt;/b&gt;-1234'></i>`;
    expect(view.text(dom)).toBe(
      '<p id="q">[REDACTED:secret:k]</p><input value="[REDACTED:secret:k]"><i title=\'[REDACTED:secret:k]\'></i>',
    );
    expect(view.bytes(Buffer.from(dom)).toString()).toBe(view.text(dom));
  });

  it('BS-28 the loader redacts a credential echoed HTML-escaped in a page', () => {
    const token = 'tok<en>&"9f8e7d';
    const r = new Redactor([token]);
    expect(r.text('<p>tok&lt;en&gt;&amp;"9f8e7d</p><a data-t="tok&lt;en&gt;&amp;&quot;9f8e7d">')).toBe(
      '<p>[REDACTED]</p><a data-t="[REDACTED]">',
    );
  });
});

describeBrowser('BS-28 the DOM artifact of a real capture', () => {
  const page = `<!doctype html><html><head><title>Echo</title></head><body><p id="q"></p><input id="a"><script>
    const v = new URL(location.href).searchParams.get('key') ?? '';
    document.getElementById('q').textContent = v;
    document.getElementById('a').setAttribute('value', v);
    history.replaceState(null, '', '/echo');
  </script></body></html>`;
  const server = http.createServer((_req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(page);
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

  it('BS-28 a secret with <, >, &, " and \' set as text and as an attribute leaves only its reference in the DOM', async () => {
    const e = await captureBrowserScenario(
      {
        browser: { mode: 'launch', executable_path: CHROMIUM },
        start_url: { url: `${origin}/`, query: [{ name: 'key', value: { source: 'secret', secret_id: 'k' } }] },
        secrets: [{ secret_id: 'k', environment_variable: 'CAPSTATE_TEST_HTML_SECRET' }],
        actions: [{ step_id: 'settle', action: 'wait_for_timeout', duration_ms: 100 }],
        capture: { after_each_step: ['dom'] },
      },
      { env: { CAPSTATE_TEST_HTML_SECRET: SECRET } },
    );
    const dom = (e.steps[0].captures.dom as { value: string }).value;
    expect(dom).toContain('<p id="q">[REDACTED:secret:k]</p>');
    expect(dom).toContain('value="[REDACTED:secret:k]"');
    const text = JSON.stringify(e);
    for (const s of [SECRET, ...htmlSpellingsOf(SECRET), 'k&amp;y']) expect(text).not.toContain(s);
  });
});
