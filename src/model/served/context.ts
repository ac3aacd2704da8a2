/**
 * What serving one capture needs, read once: the manifest (tool names, templates,
 * statuses — the manifest owns them, ES-3, DESC-4) and a read-only connection that every
 * answer and description reads from. Serving never writes (ES-40: nothing but replay).
 */
import type { Kysely } from 'kysely';
import { listCaptureIds, pickCapture, readManifest, type Manifest, type ManifestTool } from '../../manifest/read.js';
import { kyselyFor, openStore, type Sqlite } from '../../store/open.js';
import type { DB } from '../../store/types.js';
import { freshStoredState } from '../plan/stored.js';
import { readVocabulary, type Vocabulary } from '../../store/vocabulary.js';
import { temporaryCaptureCopy } from '../../store/capture-copy.js';

export interface ServeContext {
  /**
   * The file served from (query_store opens its own read-only connection on it): the store, or
   * a private copy of the served capture when the store holds others (issue 42).
   */
  file: string;
  /** The store as messages name it (the user's file, not a private copy). */
  storeName: string;
  /** Removes the private copy, if any (closeServeContext calls it). */
  release?: () => void;
  db: Sqlite;
  k: Kysely<DB>;
  captureId: number;
  /** The capture's SHA-256: the stable "parent id" of evidence ids (OQ-37). */
  captureSha256: string;
  manifest: Manifest;
  tools: Map<string, ManifestTool>;
  /** Tool id per tool name (the store's key for records and views). */
  toolIds: Map<string, number>;
  /** The store's vocabulary (safe methods, parameter roles; issue 13). */
  vocabulary: Vocabulary;
}

/**
 * Opens a store read-only and picks the capture to serve: `captureId`, or the store's only
 * capture. A store with several captures needs an explicit id, since tool names repeat, and
 * is served from a private copy of that capture alone: a caller given one capture's tools
 * reads nothing of the others, whatever it asks query_store or inspect_analysis_view.
 */
export async function openServeContext(file: string, captureId?: number): Promise<ServeContext> {
  let db = openStore(file);
  let k = kyselyFor(db);
  let copy: { file: string; cleanup: () => void } | null = null;
  try {
    const ids = await listCaptureIds(k);
    const id = pickCapture(ids, file, captureId);
    // Serving answers reads from the stored state: a stale one is reported at start, with its fix.
    await freshStoredState(k, id, file);
    if (ids.length > 1) {
      await k.destroy();
      copy = await temporaryCaptureCopy(file, id);
      db = openStore(copy.file);
      k = kyselyFor(db);
      return { ...(await serveContextOn(db, k, copy.file, id)), storeName: file, release: copy.cleanup };
    }
    return await serveContextOn(db, k, file, id);
  } catch (e) {
    await k.destroy();
    copy?.cleanup();
    throw e;
  }
}

/**
 * The context of capture `captureId` over a connection the caller holds (and closes): the
 * load checks a capture's writes inside its own transaction this way (issue 16), so the check
 * reads the state rows the load has just written and not yet committed.
 */
export async function serveContextOn(db: Sqlite, k: Kysely<DB>, file: string, captureId: number): Promise<ServeContext> {
  const manifest = await readManifest(k, captureId);
  const capture = await k.selectFrom('capture').select('sha256').where('id', '=', captureId).executeTakeFirstOrThrow();
  const toolRows = await k.selectFrom('tool').select(['id', 'name']).where('capture_id', '=', captureId).execute();
  return {
    file,
    storeName: file,
    db,
    k,
    captureId,
    captureSha256: capture.sha256,
    manifest,
    tools: new Map(manifest.tools.map((t) => [t.name, t])),
    toolIds: new Map(toolRows.map((t) => [t.name, t.id])),
    vocabulary: await readVocabulary(k),
  };
}

/** Closes the context's read-only connection. */
export async function closeServeContext(ctx: ServeContext): Promise<void> {
  await ctx.k.destroy(); // closes ctx.db as well
  ctx.release?.();
}

/**
 * `compute` run once per served store: what serving learns from the capture (an API's habits)
 * is the same for every call, so the first call's promise is kept with the context.
 */
export function perContext<T>(compute: (ctx: ServeContext) => Promise<T>): (ctx: ServeContext) => Promise<T> {
  const kept = new WeakMap<ServeContext, Promise<T>>();
  return (ctx) => {
    let hit = kept.get(ctx);
    if (!hit) kept.set(ctx, (hit = compute(ctx)));
    return hit;
  };
}

/** `perContext` per key: `compute(ctx, ...key)` run once per served store and key (a tool, a collection, a type root and its identity). */
export function perContextKey<K extends string[], T>(
  compute: (ctx: ServeContext, ...key: K) => Promise<T>,
): (ctx: ServeContext, ...key: K) => Promise<T> {
  const kept = new WeakMap<ServeContext, Map<string, Promise<T>>>();
  return (ctx, ...key) => {
    let byKey = kept.get(ctx);
    if (!byKey) kept.set(ctx, (byKey = new Map()));
    const k = key.join('\0');
    let hit = byKey.get(k);
    if (!hit) byKey.set(k, (hit = compute(ctx, ...key)));
    return hit;
  };
}
