/**
 * `capstate load --db postgres://…` (issue 20): the captures are worked out exactly as for a
 * SQLite store — facts, manifest, environment state, checked writes — in a private SQLite file,
 * with the capture ids the PostgreSQL store gives out, and then published into it in one
 * transaction (store/postgres-publish.ts). Loaders on several machines can run at once: each
 * one works on its own machine and the server only takes the rows. A capture the store holds
 * already (same SHA-256) is reported as such and not added twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CapstateError } from '../errors.js';
import { noKinds } from '../load/writer.js';
import { openStore } from '../store/open.js';
import { publishCaptures, type ExistingCheck } from '../store/postgres-publish.js';
import { displayUrl, openPostgresStore, reserveCaptureIds } from '../store/postgres-store.js';
import type { LoadedCapture, LoadOptions } from './load-captures.js';

/** The checks a re-load of a capture already in the store passes on SQLite too (same words). */
function existingCheck(opts: LoadOptions, fileOf: (sha256: string) => string): ExistingCheck {
  return async (store, id, sha256) => {
    const file = fileOf(sha256);
    const stored =
      (await store.client.query<{ o: string | null }>('select override_sha256 as o from manifest where capture_id = $1', [id])).rows[0]
        ?.o ?? null;
    if (stored !== (opts.manifest?.sha256 ?? null)) {
      throw new CapstateError(
        'manifest-differs',
        `this capture is already loaded as capture ${id} with ${stored ? 'another' : 'no'} --manifest override; its tools are fixed by what it was loaded with. Load it into another store (--db) to use a different override`,
        { file },
      );
    }
    for (const literal of opts.sensitive ?? []) {
      const hit = (
        await store.client.query<{ ordinal: number }>(
          `select r.ordinal from record r
          join body req on req.id = r.request_body_id join body res on res.id = r.response_body_id
          where r.capture_id = $1 and (strpos(r.url, $2) > 0 or strpos(coalesce(req.content, ''), $2) > 0 or strpos(coalesce(res.content, ''), $2) > 0
            or exists (select 1 from header h where h.record_id = r.id and strpos(h.value, $2) > 0))
          order by r.ordinal limit 1`,
          [id, literal],
        )
      ).rows[0]?.ordinal;
      if (hit !== undefined) {
        throw new CapstateError(
          'sensitive-value',
          `this capture is already in the store as capture ${id}, and record #${hit} carries a value declared with --sensitive; delete it from the store (or load the redacted capture into a new schema)`,
          { file, record: hit },
        );
      }
    }
  };
}

export async function loadIntoPostgres(
  opts: LoadOptions,
  loadSqlite: (opts: LoadOptions) => Promise<LoadedCapture[]>,
): Promise<LoadedCapture[]> {
  const store = await openPostgresStore(opts.db, { write: true });
  const dir = mkdtempSync(join(tmpdir(), `capstate-${process.pid}-`));
  const onExit = () => rmSync(dir, { recursive: true, force: true });
  process.on('exit', onExit);
  try {
    const scratch = join(dir, 'work.sqlite');
    const captureIds = await reserveCaptureIds(store, opts.files.length);
    const results = await loadSqlite({ ...opts, db: scratch, captureIds });
    const fresh = results.filter((r) => !r.already_loaded).map((r) => r.capture_id);
    const db = openStore(scratch);
    let published;
    try {
      const fileOf = (sha256: string) => results.find((r) => r.sha256 === sha256)?.file ?? '';
      published = await publishCaptures(db, store, fresh, existingCheck(opts, fileOf));
    } finally {
      db.close();
    }
    const existing = new Map(published.existing.map((e) => [e.sha256, e.id]));
    return results.map((r) => {
      const id = existing.get(r.sha256);
      if (id === undefined) return r;
      opts.log?.(`${r.file}: already loaded as capture ${id} (same SHA-256) in ${displayUrl(opts.db)}; skipped`);
      return {
        ...r,
        capture_id: id,
        already_loaded: true,
        records: 0,
        new_bodies: 0,
        members: 0,
        response_bodies_by_kind: noKinds(),
        request_bodies_by_kind: noKinds(),
      };
    });
  } finally {
    await store.close().catch(() => {});
    onExit();
    process.off('exit', onExit);
  }
}
