/**
 * A small news site spread over several hosts, all served by one local server that routes
 * by the Host header (Chromium maps every host to 127.0.0.1, see record.mjs). It has what
 * real pages have and what issue 17 is about: a bare domain that redirects twice to its
 * final document, a same-site JSON API, a static-image CDN that makes the most requests,
 * a library CDN whose source map is JSON, an ad server answering JSON to a signed URL, a
 * presigned image, and a metrics host that never answers.
 */
import { createServer } from 'node:http';

// A 1×1 GIF: every image here is the same tiny picture.
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///ywAAAAAAQABAAACAUwAOw==', 'base64');
const ARTICLES = [
  { id: 101, slug: 'city-council-votes', title: 'City council votes on the new tram line', section: 'local' },
  { id: 102, slug: 'river-festival', title: 'River festival returns this weekend', section: 'culture' },
];

function page(port) {
  const at = (host, path) => `http://${host}:${port}${path}`;
  const photos = Array.from({ length: 8 }, (_, i) => `<img src="${at('img-cdn.test', `/photos/${i + 1}.gif`)}" alt="">`).join('\n');
  return `<!DOCTYPE html><html><head><title>The Daily Test</title>
<link rel="stylesheet" href="/static/site.css">
<script src="${at('cdn-libs.test', '/jquery.min.js')}"></script>
<script src="/static/app.js" defer></script></head>
<body><h1><img src="/static/logo.gif" alt="">The Daily Test</h1>
${photos}
<img src="${at('img-cdn.test', '/signed/hero.gif')}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20261201T100000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=5d1f0c2b9e8a7f6d4c3b2a1908f7e6d5c4b3a2910f8e7d6c5b4a39281706f5e4" alt="">
<main id="articles"></main>
<script>
window.addEventListener('DOMContentLoaded', async () => {
  const api = ${JSON.stringify(at('api.news.test', '/v1'))};
  const list = await (await fetch(api + '/articles')).json();
  for (const a of list.articles) await (await fetch(api + '/articles/' + a.id)).json();
  await fetch(${JSON.stringify(at('ads.adnet.test', '/gampad/ads?iu=%2F1234%2Fnews&sz=300x250&sig=Q29mZmVlQmVhbnMxMjM0NTY3ODk&correlator=4521'))}).then((r) => r.json());
  await fetch(${JSON.stringify(at('cdn-libs.test', '/jquery.min.map'))}).then((r) => r.json());
  await fetch(${JSON.stringify(at('metrics.down.test', '/beacon?e=view'))}, { method: 'POST', body: 'e=view' }).catch(() => null);
  document.body.dataset.ready = 'yes';
});
</script></body></html>`;
}

export function createNewsServer() {
  const server = createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const json = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': '*' });
      res.end(JSON.stringify(body));
    };
    const send = (type, body) => {
      res.writeHead(200, { 'content-type': type, 'access-control-allow-origin': '*', 'cache-control': 'no-store' });
      res.end(body);
    };
    if (host === 'news.test') {
      res.writeHead(301, { location: `http://www.news.test:${port}/` });
      return res.end();
    }
    if (host === 'www.news.test') {
      if (url.pathname === '/') {
        res.writeHead(302, { location: '/home' });
        return res.end();
      }
      if (url.pathname === '/home') return send('text/html; charset=utf-8', page(port));
      if (url.pathname === '/static/site.css') return send('text/css', 'body{font-family:serif}');
      if (url.pathname === '/static/app.js') return send('application/javascript', 'console.log("app");');
      if (url.pathname === '/static/logo.gif') return send('image/gif', GIF);
    }
    if (host === 'api.news.test') {
      if (url.pathname === '/v1/articles') return json(200, { articles: ARTICLES, total: ARTICLES.length });
      const m = /^\/v1\/articles\/(\d+)$/.exec(url.pathname);
      const a = m && ARTICLES.find((x) => x.id === Number(m[1]));
      if (a) return json(200, { ...a, body: `Text of ${a.slug}.` });
    }
    if (host === 'img-cdn.test') return send('image/gif', GIF);
    if (host === 'cdn-libs.test') {
      if (url.pathname === '/jquery.min.js')
        return send('application/javascript', 'window.jQuery=function(){};\n//# sourceMappingURL=jquery.min.map');
      if (url.pathname === '/jquery.min.map')
        return json(200, { version: 3, file: 'jquery.min.js', sources: ['jquery.js'], names: [], mappings: 'AAAA' });
    }
    if (host === 'ads.adnet.test') return json(200, { slots: [{ id: 'div-gpt-ad-1', size: [300, 250], empty: true }] });
    if (host === 'metrics.down.test') return req.socket.destroy(); // no response at all
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  return server;
}
