/**
 * Loading captures into the store (issue 49: facts, then state). It sits above the loader,
 * the manifest and the state pass (docs/architecture.md): the facts and manifests of all the
 * command's files are written in one transaction, so a failed or killed load adds none of
 * them; each capture's environment state follows in a short transaction of its own
 * (load-states.ts), and until it commits the capture is pending, which every reader says.
 * A store that does not exist yet is built in a temporary file beside it, states included,
 * in one transaction, and linked into place only after the commit.
 */
import { closeSync, createReadStream, existsSync, fsyncSync, linkSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { CapstateError } from '../errors.js';
import { openStore, type Sqlite } from '../store/open.js';
import { checkStorePath, storeError } from '../store/guard.js';
import { newStoreWorkFile, removeAbandonedTemps, removeAbandonedWork } from '../store/abandoned-work.js';
import type { BodyKind } from '../load/bodies.js';
import { readHarPages } from '../load/har.js';
import { checkDuplicates, parsePiece } from '../load/entries.js';
import { parsedCapture } from '../load/pipeline.js';
import { ScenarioReader } from '../load/scenario.js';
import { FactWriter, noKinds } from '../load/writer.js';
import { kyselyFor } from '../store/open.js';
import { inferManifest, type ManifestOverride } from '../manifest/infer.js';
import { collectBetweenPhases } from './collect.js';
import { completePendingStates, storeLoadedStates } from './load-states.js';
import type { StateProgress } from '../state/index.js';
import { Redactor, SensitiveLiterals } from '../load/secrets.js';
import { QuirkTally } from '../load/quirks.js';
import { openInput } from '../load/inputs.js';
import type { InflateBudget } from '../load/inflate-budget.js';
import { isPostgresUrl } from '../store/postgres-store.js';
import { loadIntoPostgres } from './load-postgres.js';

export interface LoadProgress {
  file: string;
  bytesRead: number;
  bytesTotal: number;
  records: number;
  /**
   * Issue 46: the load's phase — reading the facts (the bytes above), inferring the manifest,
   * the state pass (`step` says which of its steps and how many of its units are done), then
   * done. Absent means facts (callers from before the phases).
   */
  phase?: LoadPhase;
  step?: StateProgress;
}

export type LoadPhase = 'facts' | 'manifest' | 'state' | 'done';

export interface LoadOptions {
  db: string;
  files: string[];
  onProgress?: (p: LoadProgress) => void;
  /** Messages for stderr (warnings, skipped duplicates). */
  log?: (message: string) => void;
  /** Fixed load time for reproducible stores (tests); defaults to now. */
  loadedAt?: string;
  /** The user's manifest override (`--manifest FILE`), stored with each capture: canonical JSON and its hash. */
  manifest?: { override: ManifestOverride; json: string; sha256: string };
  /** Literals that must not reach the store (`--sensitive VALUE`): a capture carrying one is rejected. */
  sensitive?: string[];
  /** OQ-2 (revised): store credential values of admitted records' URLs as `[REDACTED]` instead of refusing (`--redact`). */
  redact?: boolean;
  /** The id each file's capture gets, in `files` order (ids a PostgreSQL store gave out); else the next free one. */
  captureIds?: number[];
  /**
   * Issue 42: what all decompression of one capture may produce together, in bytes (its
   * .gz or zip unpacked, Content-Encoding bodies inflated); default 200 × the capture's
   * bytes, at least 256 MiB (src/load/inflate-budget.ts).
   */
  maxInflatedBytes?: number;
}

export interface LoadedCapture {
  file: string;
  capture_id: number;
  sha256: string;
  format: 'har' | 'scenario-evidence';
  bytes: number;
  /** True when the same bytes were already loaded; nothing was added. */
  already_loaded: boolean;
  records: number;
  /** How each record's response body was classified (OQ-33). */
  response_bodies_by_kind: Record<BodyKind, number>;
  request_bodies_by_kind: Record<BodyKind, number>;
  new_bodies: number;
  members: number;
  duration_ms: number;
  /**
   * Where `duration_ms` went (issue 14): `facts` from the start (hashing, the parse worker's
   * credential pass, records, bodies, members), then `manifest` (OQ-1/OQ-2) and `state` (the
   * environment state, stored after all the command's facts; issue 49). Zero for a capture
   * already loaded. The other files' phases in between are not counted.
   */
  phases_ms: LoadPhases;
}

export interface LoadPhases {
  facts: number;
  manifest: number;
  state: number;
}

async function fileSha256(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) h.update(chunk as Buffer);
  return h.digest('hex');
}

async function loadOne(
  db: Sqlite,
  writer: FactWriter,
  file: string,
  opts: LoadOptions & { captureId: number | null },
): Promise<LoadedCapture> {
  if (file !== '-' && !statSync(file).isFile()) throw new CapstateError('not-a-file', `${file} is not a file`, { file });
  // Issue 17: stdin (`-`), gzip and Playwright's zipped HAR are unpacked into a plain file first.
  const input = await openInput(file, { maxInflatedBytes: opts.maxInflatedBytes });
  try {
    return await loadInput(db, writer, file, input.path, input.identity, opts, (q) => q.add(null, input.unpacked), input.inflate);
  } catch (e) {
    throw input.renamed(e);
  } finally {
    input.cleanup();
  }
}

/**
 * Loads the plain capture at `path`; `file` names it in errors and the store, `identity`
 * holds the bytes that identify it (the file as given).
 */
async function loadInput(
  db: Sqlite,
  writer: FactWriter,
  file: string,
  path: string,
  identity: string,
  opts: LoadOptions & { captureId: number | null },
  noteInput: (q: QuirkTally) => void,
  inflate?: InflateBudget,
): Promise<LoadedCapture> {
  const t0 = performance.now();
  const st = statSync(identity);
  // Issue 49: the reading has begun. This thread hashes the file and the parse side reads it whole
  // for credentials (BS-65) before a byte is counted: the progress's heartbeat says so meanwhile.
  opts.onProgress?.({ file, bytesRead: 0, bytesTotal: st.size, records: 0, phase: 'facts' });
  // The parse worker's first pass (credentials) runs while this thread hashes the file.
  const parsed = parsedCapture(path, opts.sensitive ?? [], inflate);
  try {
    const sha256 = await fileSha256(identity);
    const existing = db.prepare('select id, format from capture where sha256 = ?').get(sha256) as
      | { id: number; format: LoadedCapture['format'] }
      | undefined;
    if (existing) {
      const stored = db.prepare('select override_sha256 from manifest where capture_id = ?').pluck().get(existing.id) as
        | string
        | null
        | undefined;
      if ((stored ?? null) !== (opts.manifest?.sha256 ?? null)) {
        throw new CapstateError(
          'manifest-differs',
          `this capture is already loaded as capture ${existing.id} with ${stored ? 'another' : 'no'} --manifest override; its tools are fixed by what it was loaded with. Load it into another store (--db) to use a different override`,
          { file },
        );
      }
      // The literals the user declares now must not be in the store already.
      for (const literal of opts.sensitive ?? []) {
        const hit = db
          .prepare(`select r.ordinal from record r
            join body_content req on req.id = r.request_body_id join body_content res on res.id = r.response_body_id
            where r.capture_id = ? and (instr(r.url, ?) > 0 or instr(cast(req.content as text), ?) > 0 or instr(cast(res.content as text), ?) > 0
              or exists (select 1 from header h where h.record_id = r.id and instr(h.value, ?) > 0))
            order by r.ordinal limit 1`)
          .pluck()
          .get(existing.id, literal, literal, literal, literal) as number | undefined;
        if (hit !== undefined) {
          throw new CapstateError(
            'sensitive-value',
            `this capture is already in the store as capture ${existing.id}, and record #${hit} carries a value declared with --sensitive; delete the store (or load the redacted capture into a new one)`,
            { file, record: hit },
          );
        }
      }
      opts.log?.(`${file}: already loaded as capture ${existing.id} (same SHA-256); skipped`);
      return {
        file,
        capture_id: existing.id,
        sha256,
        format: existing.format,
        bytes: st.size,
        already_loaded: true,
        records: 0,
        response_bodies_by_kind: noKinds(),
        request_bodies_by_kind: noKinds(),
        new_bodies: 0,
        members: 0,
        duration_ms: performance.now() - t0,
        phases_ms: { facts: 0, manifest: 0, state: 0 },
      };
    }
    const before = {
      ...writer.counts,
      request: { ...writer.counts.bodiesByKind.request },
      response: { ...writer.counts.bodiesByKind.response },
    };

    let format: LoadedCapture['format'] | null = null;
    const root = new Map<string, unknown>();
    let captureId = -1;
    let scenario: ScenarioReader | null = null;
    let records = 0;
    let pagePosition = 0;
    const quirks = new QuirkTally();
    noteInput(quirks);
    const loadedAt = opts.loadedAt ?? new Date().toISOString();

    // The capture row is written when the first piece needs it; what it says about the
    // producer comes from root members that may follow the entries, so it is filled in last.
    const startCapture = (fmt: LoadedCapture['format']) => {
      format = fmt;
      captureId = writer.writeCapture(
        { path: file === '-' ? '-' : resolve(file), sha256, bytes: st.size, format: fmt },
        loadedAt,
        opts.captureId,
      );
      if (fmt === 'scenario-evidence') scenario = new ScenarioReader(file, (b, side, where) => writer.writeBody(b, side, where));
    };
    const describeCapture = () => {
      const creator = root.get('creator') as { name?: unknown; version?: unknown } | undefined;
      const meta = format === 'scenario-evidence' ? ScenarioReader.readMeta(file, root) : null;
      writer.describeCapture(
        captureId,
        {
          formatVersion: meta ? meta.formatVersion : typeof root.get('version') === 'string' ? (root.get('version') as string) : null,
          creator:
            creator && typeof creator.name === 'string'
              ? `${creator.name}${typeof creator.version === 'string' ? ' ' + creator.version : ''}`
              : null,
          startUrl: meta?.startUrl ?? null,
          requestBodiesSelected: meta?.requestBodies ?? null,
          responseBodiesSelected: meta?.responseBodies ?? null,
          headerValuesSelected: meta?.headerValues ?? null,
        },
        { file, path: 'scenario.start_url' },
      );
    };

    // The parse side runs in a worker thread (pipeline.ts); this thread stores what it hands over.
    for await (const m of parsed.items) {
      if (m.t === 'credentials') {
        writer.redactor = new Redactor(m.values);
      } else if (m.t === 'container') {
        // An empty `entries` or `events` array still says which format this is.
        if (format !== null) continue;
        if (m.path[0] === 'log' && m.path[1] === 'entries') startCapture('har');
        else if (m.path[0] === 'events') startCapture('scenario-evidence');
      } else if (m.t === 'bytes') {
        opts.onProgress?.({ file, bytesRead: m.bytesRead, bytesTotal: st.size, records, phase: 'facts' });
      } else if (m.t === 'entry') {
        if (format === null) startCapture('har');
        const { index, record } = m;
        quirks.add(index + 1, record.quirks);
        const at = (path: string) => ({ file, record: index + 1, path: `log.entries[${index}].${path}` });
        const requestBodyId = writer.writeClassifiedBody(m.request, 'request');
        const responseBodyId = writer.writeClassifiedBody(m.response, 'response');
        writer.writeRecord(captureId, { ...record, url: new URL(record.rawUrl), requestBodyId, responseBodyId }, at('request'));
        records++;
      } else {
        const p = m.piece;
        const top = p.path[0];
        if (top === 'events') {
          if (format === null) startCapture('scenario-evidence');
          if (format !== 'scenario-evidence')
            throw new CapstateError(
              'unknown-format',
              'the file has both HAR "log" and scenario "events"; capstate cannot tell which it is',
              { file },
            );
          const value = parsePiece(file, p);
          checkDuplicates(file, p, value, undefined);
          scenario!.onEvent(p.path[1] as number, value);
        } else if (top === 'log') {
          const key = p.path[1] as string;
          const value = parsePiece(file, p);
          checkDuplicates(file, p, value, undefined);
          if (key === 'pages') {
            if (value === null) quirks.add(null, [{ code: 'pages-null', field: 'log.pages' }]);
            const pages = readHarPages(file, value);
            // Pages may come before or after the entries; store them once the capture row exists.
            if (format === null) startCapture('har');
            pages.forEach((pg, i) =>
              writer.writePage(captureId, pagePosition++, pg.id, pg.title, pg.startedMs, { file, path: `log.pages[${i}].title` }),
            );
          } else {
            root.set(key, value); // version, creator, browser, comment
          }
        } else {
          const value = parsePiece(file, p);
          checkDuplicates(file, p, value, undefined);
          root.set(top as string, value);
        }
      }
    }
    if (format === null) {
      if (root.has('schema_version') || root.has('steps')) startCapture('scenario-evidence');
      else
        throw new CapstateError(
          'unknown-format',
          'not a HAR 1.2 file (no log.entries) nor scenario Evidence (no events); capstate reads those two formats',
          { file, path: '(root)' },
        );
    }
    describeCapture();
    if (scenario) {
      const s = scenario as ScenarioReader;
      for (const { record, where } of s.finish()) {
        writer.writeRecord(captureId, record, where);
        records++;
      }
      if (s.skippedWithoutRequest) opts.log?.(`${file}: ${s.skippedWithoutRequest} response event(s) without a request event were skipped`);
    }
    const tFacts = performance.now();
    // Issue 46: the phases after the reading say where they are, so a long load is not silent.
    const tell = (phase: LoadPhase, step?: StateProgress) =>
      opts.onProgress?.({ file, bytesRead: st.size, bytesTotal: st.size, records, phase, ...(step ? { step } : {}) });
    tell('manifest');
    // In a function of its own, so the manifest (a record list per tool, tens of MB at 1 GB)
    // is garbage before the state pass: a local of this frame would stay reachable until it ends.
    const storeManifest = async () => {
      // The manifest groups the records into tools (OQ-1) and decides admission (OQ-2); a
      // rejection throws here, inside the transaction, so nothing of the capture is stored.
      const manifest = await inferManifest(kyselyFor(db), captureId, file, opts.manifest?.override);
      // OQ-2 (revised): a credential query value refuses the capture only on an admitted record.
      // The records' URLs were noted by this thread's writer (writeRecord), whose Redactor holds
      // the credentials the parse side collected.
      writer.redactor.refuseAdmitted(new Set(manifest.tools.flatMap((t) => t.records.map((r) => r.ordinal))), opts.redact);
      writer.writeManifest(captureId, manifest, opts.manifest ?? null);
      writer.writeNormalisations(captureId, quirks.list);
    };
    collectBetweenPhases();
    await storeManifest();
    collectBetweenPhases();
    const tManifest = performance.now();
    // DESIGN (must, issue 49): the state follows (load-states.ts), after the facts' commit
    // into an existing store; until then the capture is pending and readers say so.
    const delta = (now: Record<BodyKind, number>, then: Record<BodyKind, number>) => {
      const d = noKinds();
      for (const k of Object.keys(d) as BodyKind[]) d[k] = now[k] - then[k];
      return d;
    };
    return {
      file,
      capture_id: captureId,
      sha256,
      format: format!,
      bytes: st.size,
      already_loaded: false,
      records,
      response_bodies_by_kind: delta(writer.counts.bodiesByKind.response, before.response),
      request_bodies_by_kind: delta(writer.counts.bodiesByKind.request, before.request),
      new_bodies: writer.counts.newBodies - before.newBodies,
      members: writer.counts.members - before.members,
      // Its phases' sum: the state's is added when it is stored (load-states.ts).
      duration_ms: tFacts - t0 + (tManifest - tFacts),
      phases_ms: { facts: tFacts - t0, manifest: tManifest - tFacts, state: 0 },
    };
  } finally {
    // Ends the worker on every way out (done, already loaded, an error on this side).
    await parsed.close();
  }
}

/**
 * Loads capture files into the store at `opts.db`: their facts in one transaction, then each
 * capture's state in one of its own (issue 49). Throws a CapstateError for bad input; the
 * store then holds none of the files' facts (a failure in the state phase leaves the
 * captures pending, and says so).
 */
export async function loadCaptures(opts: LoadOptions): Promise<LoadedCapture[]> {
  if (isPostgresUrl(opts.db)) return loadIntoPostgres(opts, loadCaptures);
  const target = resolve(opts.db);
  checkStorePath(opts.db); // issue 15: a missing directory, a directory or a text file as --db, said in one line
  // Work files of loads that were killed (SIGKILL leaves no chance to clean up): beside the
  // target, and unpacked inputs in $TMPDIR (a killed `load big.har.gz` left its gigabyte there).
  removeAbandonedWork(target);
  removeAbandonedTemps();
  const isNew = !existsSync(target);
  // A new store is written beside its target and put in place after the commit, so neither a
  // failure nor SIGKILL can leave a half-built file under the target's name.
  const work = isNew ? newStoreWorkFile(target) : opts.db;
  const stopInterrupts = isNew ? removeOnInterrupt(work) : () => {};
  let db: Sqlite | null = null;
  try {
    db = openStore(work, { write: true });
    if (isNew) {
      // Bulk-load settings are safe only for a file nobody sees until it is in place.
      db.pragma('journal_mode = OFF');
      db.pragma('synchronous = OFF');
    }
    // 16 MiB of page cache: the fact tables grow at their ends (ids, ordinals, a body's pointers),
    // so more buys little and would count against the load's flat-memory goal (issue 14).
    db.pragma('cache_size = -16384');
    const writer = new FactWriter(db, new SensitiveLiterals(opts.sensitive ?? []));
    const results: LoadedCapture[] = [];
    // Issue 49: what a killed load left pending is completed first, so this load's summary
    // and the store's readers see every capture whole again.
    if (!isNew) await completePendingStates(db, opts);
    db.exec('BEGIN IMMEDIATE');
    try {
      for (const [i, file] of opts.files.entries()) {
        if (file !== '-' && !existsSync(file)) throw new CapstateError('no-such-file', `${file}: no such file`, { file });
        results.push(await loadOne(db, writer, file, { ...opts, captureId: opts.captureIds?.[i] ?? null }));
      }
      // Nobody reads a new store before it is in place: its states go in its one transaction.
      if (isNew) await storeLoadedStates(db, results, opts, false);
      db.exec('COMMIT');
    } catch (e) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw e;
    }
    // An existing store: the facts are visible now, each capture pending until its state commits.
    if (!isNew) await storeLoadedStates(db, results, opts, true);
    if (isNew) {
      db.pragma('journal_mode = DELETE');
      db.close();
      db = null;
      if (!placeNewStore(work, target)) {
        // Another load created the store while this one built its own (two loads into a
        // path that did not exist): load again into that store, so both captures are kept.
        rmSync(work, { force: true });
        opts.log?.(`${opts.db}: another load created this store meanwhile; loading into it`);
        return await loadCaptures(opts);
      }
    }
    return results;
  } catch (e) {
    throw storeError(e, opts.db); // issue 15: SQLite failures (busy, read-only, full) in one line
  } finally {
    stopInterrupts();
    if (db) db.close();
    if (isNew) removeAbandonedWork(target, true);
  }
}

/**
 * Puts a finished new store at `target`: its bytes are flushed first (the bulk load wrote
 * with synchronous=OFF), then it is hard-linked, which unlike rename never replaces a
 * store another load put there meanwhile. False when `target` exists now. A file system
 * without hard links gets a rename (the race is back there, nothing else is lost).
 */
function placeNewStore(work: string, target: string): boolean {
  fsyncPath(work, 'r+');
  try {
    linkSync(work, target);
    rmSync(work, { force: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV') throw e;
    if (existsSync(target)) return false;
    renameSync(work, target);
  }
  try {
    fsyncPath(dirname(target), 'r');
  } catch {
    /* some systems cannot fsync a directory; the file itself is flushed */
  }
  return true;
}

function fsyncPath(path: string, flags: string): void {
  const fd = openSync(path, flags);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Until the returned function is called, SIGINT and SIGTERM remove the work file (and its
 * journal) before the process ends with the signal's exit code (130, 143), so an
 * interrupted load leaves nothing behind; `exit` listeners (temporary stores) still run.
 */
function removeOnInterrupt(work: string): () => void {
  const handler = (signal: NodeJS.Signals) => {
    for (const f of [work, `${work}-journal`]) rmSync(f, { force: true });
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}
