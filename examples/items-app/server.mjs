// A small local JSON API app for the README's browser-scenario example (not part of capstate).
// node examples/items-app/server.mjs   → http://127.0.0.1:3000 (PORT=… to change)
import http from 'node:http';

const SEARCH_MS = 300;
const items = [
  { id: 'it-01', name: 'Lamp', stock: 4 },
  { id: 'it-02', name: 'Desk', stock: 1 },
];

const page = `<!doctype html><html><head><title>Items</title></head><body>
<input id="q" value="lamp"><button id="search">Search</button>
<ul id="results"></ul>
<script>
  document.getElementById('search').onclick = async () => {
    const list = document.getElementById('results');
    delete list.dataset.state;
    const r = await fetch('/api/items?q=' + encodeURIComponent(document.getElementById('q').value));
    const found = await r.json();
    list.innerHTML = found.map((i) => '<li><a href="#' + i.id + '">' + i.name + '</a></li>').join('');
    for (const i of found) await (await fetch('/api/items/' + i.id)).json();
    list.dataset.state = 'ready';
  };
</script></body></html>`;

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const json = (status, v) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(v));
  };
  let body = '';
  req.on('data', (c) => {
    body += c;
  });
  req.on('end', () => {
    if (url.pathname === '/api/items' && req.method === 'GET') {
      const q = (url.searchParams.get('q') ?? '').toLowerCase();
      // A search takes a moment, as a real one does: the page's follow-up requests are then
      // always sent after the Search click returns (the README's comparison relies on it).
      return setTimeout(
        () =>
          json(
            200,
            items.filter((i) => i.name.toLowerCase().includes(q)),
          ),
        SEARCH_MS,
      );
    }
    if (url.pathname === '/api/items' && req.method === 'POST') {
      const item = { id: `it-${String(items.length + 1).padStart(2, '0')}`, stock: 0, ...JSON.parse(body || '{}') };
      items.push(item);
      return json(201, item);
    }
    const m = /^\/api\/items\/([^/]+)$/.exec(url.pathname);
    if (m) {
      const item = items.find((i) => i.id === m[1]);
      return item ? json(200, item) : json(404, { error: 'not found' });
    }
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(page);
    }
    if (url.pathname === '/favicon.ico') {
      res.writeHead(204);
      return res.end();
    }
    json(404, { error: 'not found' });
  });
});
server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () =>
  console.error(`items app on http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`),
);
