/**
 * The fact writer: the only code that inserts into the fact tables. Loaders normalise
 * what they read into `LoadedRecord`s; this module classifies bodies through the body
 * owner, deduplicates them, flattens JSON into members and drops credential values.
 *
 * It uses prepared better-sqlite3 statements with bound parameters rather than Kysely:
 * the load is a bulk hot path (millions of member rows) and Kysely's async per-query
 * compilation costs more than the insert itself (docs/decisions.md, "Loader inserts").
 */
import type { Sqlite } from '../store/open.js';
import { classifyRetainedBody, flattenMembers, type BodyKind, type MemberRow, type RetainedBody } from './bodies.js';
import { isCredentialHeader, isRedactedUrl } from './secrets.js';

export interface HeaderIn { name: string; value: string | null }

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
  resourceType: string | null;
  requestMediaType: string | null;
  responseMediaType: string | null;
  requestBodyId: number;
  responseBodyId: number;
  requestHeaders: HeaderIn[];
  responseHeaders: HeaderIn[];
  requestCookies: string[];
  responseCookies: string[];
}

export interface CaptureIn {
  path: string;
  sha256: string;
  bytes: number;
  format: 'har' | 'scenario-evidence';
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

export class FactWriter {
  private readonly bodyIds = new Map<string, number>();
  private readonly members: unknown[] = [];
  private memberCount = 0;
  readonly counts: WriteCounts = { records: 0, members: 0, newBodies: 0, bodiesByKind: { request: noKinds(), response: noKinds() } };

  private readonly st;

  constructor(private readonly db: Sqlite) {
    const memberCols = '(?, ?, ?, ?, ?, ?, ?, ?)';
    this.st = {
      capture: db.prepare(`insert into capture (path, sha256, bytes, format, format_version, creator, start_url,
        request_bodies_selected, response_bodies_selected, header_values_selected, loaded_at)
        values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      page: db.prepare('insert into page (capture_id, position, page_id, title, started_ms) values (?, ?, ?, ?, ?)'),
      findBody: db.prepare("select id from body where sha256 = ? and kind = ? and ifnull(unusable_reason, '') = ?").pluck(),
      body: db.prepare('insert into body (sha256, bytes, kind, is_usable, unusable_reason, content) values (?, ?, ?, ?, ?, ?)'),
      record: db.prepare(`insert into record (capture_id, ordinal, method, url, origin, path, query, is_url_redacted,
        status, status_text, http_version, started_ms, duration_ms, page_id, step_id, transaction_id,
        redirected_from_transaction_id, resource_type, request_media_type, response_media_type,
        request_body_id, response_body_id)
        values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      param: db.prepare('insert into query_param (record_id, position, name, value) values (?, ?, ?, ?)'),
      header: db.prepare('insert into header (record_id, side, source, position, name, value, is_redacted) values (?, ?, ?, ?, ?, ?, ?)'),
      member1: db.prepare(`insert into member (body_id, pointer, parent_pointer, key, position, depth, type, value) values ${memberCols}`),
      memberN: db.prepare(`insert into member (body_id, pointer, parent_pointer, key, position, depth, type, value) values ${Array(MEMBER_BATCH).fill(memberCols).join(', ')}`),
    };
  }

  writeCapture(c: CaptureIn, loadedAt: string): number {
    const r = this.st.capture.run(c.path, c.sha256, c.bytes, c.format, c.formatVersion, c.creator, c.startUrl,
      bool(c.requestBodiesSelected), bool(c.responseBodiesSelected), bool(c.headerValuesSelected), loadedAt);
    return Number(r.lastInsertRowid);
  }

  writePage(captureId: number, position: number, pageId: string, title: string | null, startedMs: number | null): void {
    this.st.page.run(captureId, position, pageId, title, startedMs);
  }

  /** Classifies a retained body (bodies.ts), stores it once per identity, returns its id. */
  writeBody(retained: RetainedBody, side: 'request' | 'response'): number {
    const b = classifyRetainedBody(retained);
    this.counts.bodiesByKind[side][b.kind]++;
    const identity = `${b.sha256}\0${b.kind}\0${b.reason ?? ''}`;
    const cached = this.bodyIds.get(identity);
    if (cached !== undefined) return cached;
    const found = this.st.findBody.get(b.sha256, b.kind, b.reason ?? '') as number | bigint | undefined;
    if (found !== undefined) {
      this.bodyIds.set(identity, Number(found));
      return Number(found);
    }
    const id = Number(this.st.body.run(b.sha256, b.bytes.length, b.kind, b.isUsable ? 1 : 0, b.reason, b.content).lastInsertRowid);
    this.bodyIds.set(identity, id);
    this.counts.newBodies++;
    if (b.kind === 'json') flattenMembers(b.value!, (m) => this.pushMember(id, m));
    this.flushMembers();
    return id;
  }

  private pushMember(bodyId: number, m: MemberRow): void {
    this.members.push(bodyId, m.pointer, m.parentPointer, m.key, m.position, m.depth, m.type, m.value);
    this.memberCount++;
    if (this.memberCount === MEMBER_BATCH) {
      this.st.memberN.run(this.members);
      this.counts.members += MEMBER_BATCH;
      this.members.length = 0;
      this.memberCount = 0;
    }
  }

  private flushMembers(): void {
    for (let i = 0; i < this.memberCount; i++) this.st.member1.run(this.members.slice(i * 8, i * 8 + 8));
    this.counts.members += this.memberCount;
    this.members.length = 0;
    this.memberCount = 0;
  }

  writeRecord(captureId: number, r: LoadedRecord): number {
    const u = r.url;
    const query = u.search ? u.search.slice(1) : null;
    const id = Number(this.st.record.run(captureId, r.ordinal, r.method, r.rawUrl, u.origin, u.pathname, query,
      isRedactedUrl(r.rawUrl) ? 1 : 0, r.status, r.statusText, r.httpVersion, r.startedMs, r.durationMs,
      r.pageId, r.stepId, r.transactionId, r.redirectedFromTransactionId, r.resourceType,
      r.requestMediaType, r.responseMediaType, r.requestBodyId, r.responseBodyId).lastInsertRowid);
    let p = 0;
    for (const [name, value] of u.searchParams) this.st.param.run(id, p++, name, value);
    this.writeHeaders(id, 'request', r.requestHeaders);
    this.writeHeaders(id, 'response', r.responseHeaders);
    r.requestCookies.forEach((name, i) => this.st.header.run(id, 'request', 'cookie', i, name, null, 1));
    r.responseCookies.forEach((name, i) => this.st.header.run(id, 'response', 'cookie', i, name, null, 1));
    this.counts.records++;
    return id;
  }

  private writeHeaders(recordId: number, side: 'request' | 'response', headers: HeaderIn[]): void {
    headers.forEach((h, i) => {
      // BS-65: the name stays, the credential value never reaches the store.
      const redacted = isCredentialHeader(h.name);
      this.st.header.run(recordId, side, 'header', i, h.name, redacted ? null : h.value, redacted || h.value === null ? 1 : 0);
    });
  }
}
