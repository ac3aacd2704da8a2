/**
 * Issue 47: the stored state as a json-server database (`db.json`), so `npx json-server db.json`
 * serves the entities the capture showed before its first write. json-server routes a
 * top-level key `posts` at `/posts` (its list) and `/posts/:id` (its items), and an object at
 * `/profile`; so each type whose root is one path segment becomes an array under that segment
 * (entities in the state's order, ES-34), and each document read at a one-segment path without
 * a query becomes a key of its own. Anything json-server cannot serve at its recorded path is
 * left out and named, never renamed: a `db.json` that serves `/items` for a capture of
 * `/api/v2/items` would answer requests the app never took.
 */
import type { JsonValue } from '../json/exact.js';
import type { Manifest } from '../manifest/read.js';
import type { EnvironmentState } from '../state/index.js';

export interface JsonServerDb {
  /** The database, keys in the order json-server lists them on its home page. */
  db: Record<string, JsonValue>;
  /** What was left out, in plain words (for stderr). */
  left_out: string[];
}

const ONE_SEGMENT = /^\/([A-Za-z0-9_-]+)$/;

/** The templates the list and item plans of `collection` read it at. */
function templatesOf(state: EnvironmentState, manifest: Manifest, collection: string): string[] {
  const tools = new Set(
    state.plans.filter((p) => (p.kind === 'list' || p.kind === 'item') && p.collection === collection).map((p) => p.tool),
  );
  return manifest.tools.filter((t) => tools.has(t.name)).map((t) => t.template);
}

/** The state's types and documents as a json-server database. */
export function jsonServerDb(state: EnvironmentState, manifest: Manifest): JsonServerDb {
  const db: Record<string, JsonValue> = Object.create(null);
  const leftOut: string[] = [];
  for (const t of state.types) {
    const key = ONE_SEGMENT.exec(t.root_path)?.[1];
    if (key === undefined) {
      leftOut.push(`${t.collection} (at ${t.root_path}: json-server serves a collection only at /NAME)`);
      continue;
    }
    const elsewhere = templatesOf(state, manifest, t.collection).filter(
      (p) => p !== `/${key}` && !new RegExp(`^/${key}/\\{[^}/]+\\}$`).test(p),
    );
    if (elsewhere.length) {
      leftOut.push(`${t.collection} (read at ${elsewhere.join(', ')}: json-server serves a collection only at /NAME and /NAME/:id)`);
      continue;
    }
    if (t.identity !== 'id') {
      leftOut.push(`${t.collection} (its entities are told apart by ${t.identity}; json-server's items are /${key}/:id)`);
      continue;
    }
    db[key] = state.entities
      .filter((e) => e.collection === t.collection)
      .sort((a, b) => a.state_order - b.state_order)
      .map((e) => e.value);
  }
  for (const d of state.documents) {
    const key = ONE_SEGMENT.exec(d.path)?.[1];
    if (key === undefined || d.query !== null || d.status < 200 || d.status > 299) {
      leftOut.push(`the document at ${d.path}${d.query ? `?${d.query}` : ''} (json-server serves a document only at /NAME)`);
      continue;
    }
    if (Object.hasOwn(db, key)) {
      leftOut.push(`the document at ${d.path} (a collection already has that path)`);
      continue;
    }
    db[key] = d.value;
  }
  return { db, left_out: leftOut };
}
