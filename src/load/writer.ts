/**
 * The fact writer: the only code that inserts into the fact tables. Loaders normalise
 * what they read into `LoadedRecord`s; this module classifies bodies through the body
 * owner, deduplicates them, flattens JSON into members and drops credential values.
 *
 * It uses prepared better-sqlite3 statements with bound parameters rather than Kysely:
 * the load is a bulk hot path (millions of member rows) and Kysely's async per-query
 * compilation costs more than the insert itself (docs/decisions.md, "Loader inserts").
 */
import { CapstateError, type ErrorContext } from '../errors.js';
import type { InferredManifest } from '../manifest/infer.js';
import type { Sqlite } from '../store/open.js';
import { flattenMembers, memberNodeParams, type BodyKind, type MemberRow, type RetainedBody } from './bodies.js';
import { parseExactJson } from '../json/exact.js';
import { classifyForStore, type BodyOut } from './entries.js';
import { MEMBER_NODE_COLUMNS, MEMBER_NODE_INSERT, MEMBER_NODE_PARAMS, MEMBER_NODE_PLACEHOLDERS, MEMBER_TREE_SQL } from './member-tree.js';
import type { Quirk, QuirkCount } from './quirks.js';
import { isCredentialHeader, isRedactedHeader, isRedactedUrl, Redactor, SensitiveLiterals } from './secrets.js';

export interface HeaderIn {
  name: string;
  value: string | null;
}

export interface LoadedRecord {
  ordinal: number;
  method: string;
  url: URL;
  rawUrl: string;
  startedMs: number | null;
  durationMs: number;
  status: number;
  statusText: string | null;
  httpVersion: string | null;
  pageId: string | null;
  stepId: string | null;
  transactionId: string | null;
  redirectedFromTransactionId: string | null;
  /** BS-61; null for HAR. */
  redirectState: 'linked' | 'root' | 'unknown' | null;
  resourceType: string | null;
  requestMediaType: string | null;
  responseMediaType: string | null;
  requestBodyId: number;
  responseBodyId: number;
  requestHeaders: HeaderIn[];
  responseHeaders: HeaderIn[];
  requestCookies: string[];
  responseCookies: string[];
  /** Producer quirks normalised in this record (quirks.ts, issue 17). */
  quirks?: Quirk[];
}

export interface CaptureIn {
  path: string;
  sha256: string;
  bytes: number;
  format: 'har' | 'scenario-evidence';
}

/** What a capture says about itself, known once its root members are read. */
export interface CaptureMeta {
  formatVersion: string | null;
  creator: string | null;
  startUrl: string | null;
  requestBodiesSelected: boolean | null;
  responseBodiesSelected: boolean | null;
  headerValuesSelected: boolean | null;
}

export interface WriteCounts {
  records: number;
  members: number;
  newBodies: number;
  /** Per side of the exchange: what each record's request and response body was classified as. */
  bodiesByKind: { request: Record<BodyKind, number>; response: Record<BodyKind, number> };
}

export const noKinds = (): Record<BodyKind, number> => ({ none: 0, base64: 0, cut: 0, json: 0, text: 0 });

const MEMBER_BATCH = 100;
const bool = (b: boolean | null) => (b === null ? null : b ? 1 : 0);

/** Distinct headers remembered at a time (writeHeaders); unique values (dates, request ids) would otherwise grow it without bound. */
const STORED_HEADERS_KEPT = 4096;

export class FactWriter {
  private readonly bodyIds = new Map<string, number>();
  private readonly members: unknown[] = [];
  private memberCount = 0;
  readonly counts: WriteCounts = { records: 0, members: 0, newBodies: 0, bodiesByKind: { request: noKinds(), response: noKinds() } };

  private readonly st;

  /** The redactor is replaced per capture: it holds that capture's credential values. */
  redactor = new Redactor([]);
  /**
   * A header as stored, by name and value, for the redactor it was decided with: most of a
   * session's headers repeat on every request (User-Agent, Accept, sec-ch-ua…), and deciding
   * each again was a tenth of a long single-app load (both checks are pure for one redactor).
   */
  private readonly storedHeaders = new Map<string, { value: string | null; flag: number }>();
  private storedFor: Redactor | null = null;

  constructor(
    db: Sqlite,
    private readonly sensitive = new SensitiveLiterals([]),
  ) {
    this.st = {
      capture: db.prepare('insert into capture (id, path, sha256, bytes, format, loaded_at) values (?, ?, ?, ?, ?, ?)'),
      describeCapture: db.prepare(`update capture set format_version = ?, creator = ?, start_url = ?,
        request_bodies_selected = ?, response_bodies_selected = ?, header_values_selected = ? where id = ?`),
      page: db.prepare('insert into page (capture_id, position, page_id, title, started_ms) values (?, ?, ?, ?, ?)'),
      findBody: db.prepare("select id from body where sha256 = ? and kind = ? and ifnull(unusable_reason, '') = ?").pluck(),
      body: db.prepare('insert into body (sha256, bytes, kind, is_usable, unusable_reason, content) values (?, ?, ?, ?, ?, ?)'),
      record: db.prepare(`insert into record (capture_id, ordinal, method, url, origin, path, query, is_url_redacted,
        status, status_text, http_version, started_ms, duration_ms, page_id, step_id, transaction_id,
        redirected_from_transaction_id, redirect_state, resource_type, request_media_type, response_media_type,
        request_body_id, response_body_id)
        values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      param: db.prepare('insert into query_param (record_id, position, name, value) values (?, ?, ?, ?)'),
      header: db.prepare('insert into header (record_id, side, source, position, name, value, is_redacted) values (?, ?, ?, ?, ?, ?, ?)'),
      member1: db.prepare(MEMBER_NODE_INSERT),
      manifest:
        db.prepare(`insert into manifest (capture_id, subject_origin, subject_source, api_base, api_base_source, override_json, override_sha256)
        values (?, ?, ?, ?, ?, ?, ?)`),
      note: db.prepare('insert into admission_note (capture_id, position, note) values (?, ?, ?)'),
      normalisation: db.prepare(
        'insert into capture_normalisation (capture_id, position, quirk, field, records, first_record, note) values (?, ?, ?, ?, ?, ?, ?)',
      ),
      tool: db.prepare(`insert into tool (capture_id, name, method, template, root_path, is_query_post, ends_in_param, template_source)
        values (?, ?, ?, ?, ?, ?, ?, ?)`),
      recordTool: db.prepare('update record set tool_id = ? where id = ?'),
      pathParam: db.prepare('insert into path_param (record_id, position, name, value) values (?, ?, ?, ?)'),
      memberTree: db.prepare(MEMBER_TREE_SQL),
      memberN: db.prepare(
        `insert into member_node ${MEMBER_NODE_COLUMNS} values ${Array(MEMBER_BATCH).fill(MEMBER_NODE_PLACEHOLDERS).join(', ')}`,
      ),
    };
  }

  /** Writes the capture row; `id` when the capture's id was given out elsewhere (a PostgreSQL store's). */
  writeCapture(c: CaptureIn, loadedAt: string, id: number | null = null): number {
    return Number(this.st.capture.run(id, c.path, c.sha256, c.bytes, c.format, loadedAt).lastInsertRowid);
  }

  describeCapture(captureId: number, m: CaptureMeta, where: ErrorContext): void {
    if (this.sensitive.find(m.startUrl) !== -1) {
      throw new CapstateError(
        'sensitive-value',
        'the scenario start_url carries a value declared with --sensitive; remove or redact it in the capture and load again',
        where,
      );
    }
    this.st.describeCapture.run(
      m.formatVersion,
      m.creator,
      this.redactor.freeText(m.startUrl),
      bool(m.requestBodiesSelected),
      bool(m.responseBodiesSelected),
      bool(m.headerValuesSelected),
      captureId,
    );
  }

  writePage(
    captureId: number,
    position: number,
    pageId: string,
    title: string | null,
    startedMs: number | null,
    where: ErrorContext,
  ): void {
    if (this.sensitive.find(title) !== -1) {
      throw new CapstateError(
        'sensitive-value',
        'the page title carries a value declared with --sensitive; remove or redact it in the capture and load again',
        where,
      );
    }
    this.st.page.run(captureId, position, pageId, this.redactor.freeText(title), startedMs);
  }

  /**
   * Classifies a retained body (bodies.ts), stores it once per identity, returns its id.
   * `where` names the body in errors (a declared sensitive literal found in it).
   */
  writeBody(retained: RetainedBody, side: 'request' | 'response', where: ErrorContext): number {
    return this.writeClassifiedBody(classifyForStore(retained, side, this.sensitive, this.redactor, where), side);
  }

  /** Stores a body classified by classifyForStore (on this thread or the parse worker's) once per identity; returns its id. */
  writeClassifiedBody(b: BodyOut, side: 'request' | 'response'): number {
    this.counts.bodiesByKind[side][b.kind]++;
    const identity = `${b.sha256}\0${b.kind}\0${b.reason ?? ''}`;
    const cached = this.bodyIds.get(identity);
    if (cached !== undefined) return cached;
    const found = this.st.findBody.get(b.sha256, b.kind, b.reason ?? '') as number | bigint | undefined;
    if (found !== undefined) {
      this.bodyIds.set(identity, Number(found));
      return Number(found);
    }
    const id = Number(this.st.body.run(b.sha256, b.byteLength, b.kind, b.isUsable ? 1 : 0, b.reason, b.content).lastInsertRowid);
    this.bodyIds.set(identity, id);
    this.counts.newBodies++;
    // ES-5: the body owner accepted this text for json_tree; otherwise flatten its exact value.
    if (b.isTreeText) this.counts.members += this.st.memberTree.run({ body: id, text: b.content }).changes;
    else if (b.kind === 'json') {
      const parsed = parseExactJson(b.content as string);
      if (!parsed.ok) throw new Error(`body ${b.sha256} was classified json but does not parse: ${parsed.detail}`);
      flattenMembers(parsed.value, (m) => this.pushMember(id, m));
      this.flushMembers();
    }
    return id;
  }

  private pushMember(bodyId: number, m: MemberRow): void {
    this.members.push(...memberNodeParams(bodyId, m));
    this.memberCount++;
    if (this.memberCount === MEMBER_BATCH) {
      this.st.memberN.run(this.members);
      this.counts.members += MEMBER_BATCH;
      this.members.length = 0;
      this.memberCount = 0;
    }
  }

  private flushMembers(): void {
    for (let i = 0; i < this.memberCount; i++)
      this.st.member1.run(this.members.slice(i * MEMBER_NODE_PARAMS, (i + 1) * MEMBER_NODE_PARAMS));
    this.counts.members += this.memberCount;
    this.members.length = 0;
    this.memberCount = 0;
  }

  /** Refuses a record that would carry a credential into the store (OQ-2). */
  private checkSensitive(r: LoadedRecord, where: ErrorContext): void {
    // OQ-2 (revised): refused after the manifest, and only if the record is admitted.
    this.redactor.noteRefusable(r.url, { ...where, path: `${where.path}.url` });
    if (this.sensitive.size === 0) return;
    if (this.sensitive.find(r.rawUrl) !== -1) {
      throw new CapstateError(
        'sensitive-value',
        'the URL carries a value declared with --sensitive; remove or redact it in the capture and load again',
        { ...where, path: `${where.path}.url` },
      );
    }
    for (const [side, headers] of [
      ['request', r.requestHeaders],
      ['response', r.responseHeaders],
    ] as const) {
      for (const h of headers) {
        if (!isCredentialHeader(h.name) && this.sensitive.find(h.value) !== -1) {
          throw new CapstateError(
            'sensitive-value',
            `the ${side} header "${h.name}" carries a value declared with --sensitive; remove or redact it in the capture and load again`,
            where,
          );
        }
      }
    }
  }

  /** Stores a record; `where` names it in errors (`{file, record, path}`). */
  writeRecord(captureId: number, r: LoadedRecord, where: ErrorContext): number {
    this.checkSensitive(r, where);
    // Credential parameters and credential values from elsewhere in the capture (a
    // session id) are replaced after the authority, so the URL stays a URL.
    const rawUrl = this.redactor.url(r.rawUrl);
    const u = rawUrl === r.rawUrl ? r.url : new URL(rawUrl);
    const query = u.search ? u.search.slice(1) : null;
    const id = Number(
      this.st.record.run(
        captureId,
        r.ordinal,
        r.method,
        rawUrl,
        u.origin,
        u.pathname,
        query,
        isRedactedUrl(rawUrl) ? 1 : 0,
        r.status,
        this.redactor.freeText(r.statusText),
        r.httpVersion,
        r.startedMs,
        r.durationMs,
        r.pageId,
        r.stepId,
        r.transactionId,
        r.redirectedFromTransactionId,
        r.redirectState,
        r.resourceType,
        r.requestMediaType,
        r.responseMediaType,
        r.requestBodyId,
        r.responseBodyId,
      ).lastInsertRowid,
    );
    let p = 0;
    for (const [name, value] of u.searchParams) this.st.param.run(id, p++, name, value);
    this.writeHeaders(id, 'request', r.requestHeaders);
    this.writeHeaders(id, 'response', r.responseHeaders);
    r.requestCookies.forEach((name, i) => this.st.header.run(id, 'request', 'cookie', i, name, null, 1));
    r.responseCookies.forEach((name, i) => this.st.header.run(id, 'response', 'cookie', i, name, null, 1));
    this.counts.records++;
    return id;
  }

  /** Stores the manifest of a capture (OQ-1): admission, tools, each record's tool and path parameters. */
  writeManifest(captureId: number, m: InferredManifest, override: { json: string; sha256: string } | null): void {
    this.st.manifest.run(
      captureId,
      m.subjectOrigin,
      m.subjectSource,
      m.apiBase,
      m.apiBaseSource,
      override?.json ?? null,
      override?.sha256 ?? null,
    );
    m.notes.forEach((note, i) => this.st.note.run(captureId, i, note));
    for (const t of m.tools) {
      const toolId = Number(
        this.st.tool.run(captureId, t.name, t.method, t.template, t.rootPath, t.isQueryPost ? 1 : 0, t.endsInParam ? 1 : 0, t.source)
          .lastInsertRowid,
      );
      for (const r of t.records) {
        this.st.recordTool.run(toolId, r.id);
        r.params.forEach((p, i) => this.st.pathParam.run(r.id, i, p.name, p.value));
      }
    }
  }

  /** Stores what the loader normalised in a capture (issue 17). */
  writeNormalisations(captureId: number, list: QuirkCount[]): void {
    list.forEach((q, i) => this.st.normalisation.run(captureId, i, q.quirk, q.field, q.records, q.first_record, q.note));
  }

  private writeHeaders(recordId: number, side: 'request' | 'response', headers: HeaderIn[]): void {
    if (this.storedFor !== this.redactor) {
      this.storedHeaders.clear();
      this.storedFor = this.redactor;
    }
    headers.forEach((h, i) => {
      const key = h.value === null ? `${h.name}\u0001` : `${h.name}\0${h.value}`;
      let stored = this.storedHeaders.get(key);
      if (stored === undefined) {
        // BS-65: the name stays, the credential value never reaches the store (by name, by
        // form, or a Referer/Location with a password or token, OQ-2; secrets.ts).
        const redacted = isRedactedHeader(h.name, h.value);
        stored = { value: redacted ? null : this.redactor.freeText(h.value), flag: redacted || h.value === null ? 1 : 0 };
        if (this.storedHeaders.size >= STORED_HEADERS_KEPT) this.storedHeaders.clear();
        this.storedHeaders.set(key, stored);
      }
      this.st.header.run(recordId, side, 'header', i, h.name, stored.value, stored.flag);
    });
  }
}
