#!/usr/bin/env node
/**
 * A small notes app for capstate's real-capture test: a JSON REST API over in-memory data
 * seeded from seed.json, and one page whose script reads it the way a browser app does.
 *
 *   node examples/notes-app/server.mjs [PORT]     (PORT 0 picks a free one; prints the URL)
 *
 * API (all JSON):
 *   GET    /api/v1/me                        the signed-in user (a document)
 *   GET    /api/v1/settings                  settings (a document)
 *   GET    /api/v1/notebooks                 {"requestId":uuid,"notebooks":[…],"total":N} (?include=stats adds per-notebook stats)
 *   GET    /api/v1/notebooks/{id}            {"notebook":{…}}
 *   GET    /api/v1/notes?notebook={id}       [{…}, …] a notebook's notes (all notes without it)
 *   GET    /api/v1/notes/{id}                {…} or 404 (?fields=a,b returns only those members)
 *   POST   /api/v1/notes                     creates a note → 201 {…}
 *   PATCH  /api/v1/notes/{id}                merges members → 200 {…}
 */
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
export const seed = () => JSON.parse(readFileSync(join(here, 'seed.json'), 'utf8'));

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Notes</title></head>
<body>
<h1 id="who">Notes</h1>
<ul id="notebooks"></ul>
<ul id="notes"></ul>
<article id="note"></article>
<button id="add">Add note</button>
<button id="rename">Rename note</button>
<script>
const api = (path, init) => fetch('/api/v1' + path, { headers: { 'Accept': 'application/json', 'Content-Type': 'application/json', 'Authorization': 'Bearer nts_live_7Qx2mK9pL4vR8sT1' }, ...init }).then((r) => r.json());
async function open(noteId) {
  const n = await api('/notes/' + noteId);
  document.getElementById('note').textContent = n.title + ': ' + n.body;
}
async function start() {
  const me = await api('/me');
  document.getElementById('who').textContent = 'Notes of ' + me.name;
  await api('/settings');
  const { notebooks } = await api('/notebooks');
  await api('/notebooks?include=stats');
  await api('/notebooks');
  await api('/notes/note-1002?fields=title');
  document.getElementById('notebooks').innerHTML = notebooks.map((b) => '<li>' + b.name + ' (' + b.noteCount + ')</li>').join('');
  const nb = await api('/notebooks/nb-inbox');
  const notes = await api('/notes?notebook=' + nb.notebook.id);
  document.getElementById('notes').innerHTML = notes.map((n) => '<li>' + n.title + '</li>').join('');
  await open(notes[0].id);
  await api('/notebooks/nb-work');
  await api('/notes?notebook=nb-work');
  await open('note-1003');
  await api('/notebooks');
  document.body.dataset.ready = 'yes';
}
document.getElementById('add').onclick = async () => {
  const created = await api('/notes', { method: 'POST', body: JSON.stringify({ notebookId: 'nb-inbox', title: 'Pay rent', body: 'before Friday', tags: [] }) });
  await api('/notes?notebook=nb-inbox');
  await open(created.id);
  document.body.dataset.added = created.id;
};
document.getElementById('rename').onclick = async () => {
  await api('/notes/note-1003', { method: 'PATCH', body: JSON.stringify({ title: 'Q4 planning (final)' }) });
  await open('note-1003');
  await api('/notebooks');
  document.body.dataset.renamed = 'yes';
};
start();
</script>
</body></html>`;

export function createNotesServer() {
  const data = seed();
  let nextId = 2001;
  const send = (res, status, value) => {
    const body = JSON.stringify(value);
    res.writeHead(status, {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Request-Id': 'req-' + Math.random().toString(16).slice(2, 10),
    });
    res.end(body);
  };
  const count = (nb) => data.notes.filter((n) => n.notebookId === nb.id).length;
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://local');
    const parts = url.pathname.split('/').filter(Boolean);
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      if (url.pathname === '/' || url.pathname === '/index.html') {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        return res.end(page);
      }
      if (parts[0] !== 'api' || parts[1] !== 'v1') return send(res, 404, { error: 'not found' });
      const [, , kind, id] = parts;
      if (req.method === 'GET' && kind === 'me') return send(res, 200, data.me);
      if (req.method === 'GET' && kind === 'settings') return send(res, 200, data.settings);
      if (req.method === 'GET' && kind === 'notebooks' && !id) {
        const include = url.searchParams.get('include');
        const notebooks = data.notebooks.map((b) => ({
          ...b,
          noteCount: count(b),
          ...(include === 'stats' ? { stats: { pinned: data.notes.filter((n) => n.notebookId === b.id && n.pinned).length } } : {}),
        }));
        return send(res, 200, { requestId: randomUUID(), notebooks, total: notebooks.length });
      }
      if (req.method === 'GET' && kind === 'notebooks') {
        const b = data.notebooks.find((x) => x.id === id);
        return b ? send(res, 200, { notebook: { ...b, noteCount: count(b) } }) : send(res, 404, { error: 'no such notebook' });
      }
      if (req.method === 'GET' && kind === 'notes' && !id) {
        const nb = url.searchParams.get('notebook');
        return send(
          res,
          200,
          data.notes.filter((n) => !nb || n.notebookId === nb),
        );
      }
      if (req.method === 'GET' && kind === 'notes') {
        const n = data.notes.find((x) => x.id === id);
        if (!n) return send(res, 404, { error: 'no such note' });
        const fields = url.searchParams.get('fields');
        return send(
          res,
          200,
          fields
            ? Object.fromEntries(
                fields
                  .split(',')
                  .filter((f) => f in n)
                  .map((f) => [f, n[f]]),
              )
            : n,
        );
      }
      if (req.method === 'POST' && kind === 'notes' && !id) {
        const body = JSON.parse(raw || '{}');
        const n = {
          id: `note-${nextId++}`,
          notebookId: body.notebookId,
          title: body.title,
          body: body.body ?? '',
          pinned: false,
          tags: body.tags ?? [],
          updatedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        };
        data.notes.push(n);
        return send(res, 201, n);
      }
      if (req.method === 'PATCH' && kind === 'notes' && id) {
        const n = data.notes.find((x) => x.id === id);
        if (!n) return send(res, 404, { error: 'no such note' });
        Object.assign(n, JSON.parse(raw || '{}'), { updatedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z') });
        return send(res, 200, n);
      }
      return send(res, 405, { error: 'method not allowed' });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = createNotesServer();
  server.listen(Number(process.argv[2] ?? 8080), '127.0.0.1', () => {
    process.stdout.write(`notes app on http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/\n`);
  });
}
