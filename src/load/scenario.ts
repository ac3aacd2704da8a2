/**
 * Scenario Evidence (docs/evidence-format.md, BS-57 to BS-68) → records: one per network
 * transaction with a response event (OQ-3), in the order of their request events.
 * Bodies are classified and stored as their content events stream past, so memory holds
 * transaction metadata only.
 */
import { CapstateError, type ErrorContext } from '../errors.js';
import { admitRetainedScenario, type RetainedScenario } from './admission.js';
import { decodeBase64Strict, type RetainedBody } from './bodies.js';
import { sha256Hex } from '../json/sha256.js';
import { FieldReader, type Obj } from './fields.js';
import { parseUrl } from './har.js';
import type { HeaderIn, LoadedRecord } from './writer.js';

const COMMON = ['sequence', 'kind', 'step_id', 'transaction_id'];
const FIELDS: Record<string, string[]> = {
  request: [
    ...COMMON,
    'redirected_from_transaction_id',
    'redirected_from_transaction_state',
    'method',
    'url',
    'resource_type',
    'observed_at',
  ],
  response: [...COMMON, 'status', 'status_text', 'observed_at'],
  'request-finished': [...COMMON, 'started_at', 'elapsed_ms'],
  'request-failed': [...COMMON, 'error_text', 'started_at', 'elapsed_ms'],
  'request-unfinished': [...COMMON],
  'network-content': [...COMMON, 'source_event_sequence', 'headers', 'body'],
};
const BODY_FIELDS = ['state', 'base64', 'bytes', 'media_type', 'sha256', 'observed_bytes', 'allowed_bytes'];
const CUT_STATES = new Set(['body-size-limit', 'body-allocation-limit']);

interface Transaction {
  id: string;
  order: number;
  /** Index of the transaction's request event, to name it in errors. */
  eventIndex: number;
  requestSeq: number;
  responseSeq: number | null;
  method: string;
  url: URL;
  rawUrl: string;
  stepId: string | null;
  redirectedFrom: string | null;
  /** `redirected_from_transaction_state` as recorded (BS-61). */
  redirectStateField: 'root' | 'unknown' | null;
  resourceType: string | null;
  observedAt: number | null;
  startedAt: number | null;
  elapsedMs: number | null;
  status: number | null;
  statusText: string | null;
  requestHeaders: HeaderIn[];
  responseHeaders: HeaderIn[];
  requestBodyId: number | null;
  responseBodyId: number | null;
  requestMediaType: string | null;
  responseMediaType: string | null;
}

/** The loader's view of a retained capture's root: the shared admission (BS-81). */
export type ScenarioMeta = RetainedScenario;

export class ScenarioReader {
  private readonly txs = new Map<string, Transaction>();
  private readonly pendingContent: { index: number; ev: Obj }[] = [];
  private readonly seqToTx = new Map<number, { tx: string; side: 'request' | 'response' }>();
  skippedWithoutRequest = 0;

  constructor(
    private readonly file: string,
    private readonly writeBody: (b: RetainedBody, side: 'request' | 'response', where: ErrorContext) => number,
  ) {}

  /** Root members other than `events`, through the one admission rule for retained captures (BS-81). */
  static readMeta(file: string, root: Map<string, unknown>): ScenarioMeta {
    return admitRetainedScenario(file, (k) => root.get(k));
  }

  onEvent(index: number, event: unknown): void {
    const f: FieldReader = new FieldReader(this.file, undefined, ['events', index]);
    const ev = f.obj(event, [], 'an event');
    const kind = f.string(ev, [], 'kind', { required: true })!;
    const allowed = FIELDS[kind];
    if (!allowed) return; // console, page errors, frames, …: not network facts
    for (const k of Object.keys(ev)) {
      if (!allowed.includes(k))
        f.fail([k], `unknown field "${k}" in a ${kind} event; the capture was written by an unsupported producer version`, 'unknown-field');
    }
    const seq = f.number(ev, [], 'sequence', { required: true, integer: true })!;
    const txId = f.string(ev, [], 'transaction_id', { required: true, nonEmpty: true })!;
    if (kind === 'request') {
      if (this.txs.has(txId)) f.fail(['transaction_id'], `transaction ${JSON.stringify(txId)} has a second request event`, 'bad-field');
      f.required(ev, [], 'redirected_from_transaction_id');
      const rawUrl = f.string(ev, [], 'url', { required: true, nonEmpty: true })!;
      const urlReader = new FieldReader(this.file, undefined, ['events', index]);
      this.txs.set(txId, {
        id: txId,
        order: this.txs.size,
        eventIndex: index,
        requestSeq: seq,
        responseSeq: null,
        method: f.string(ev, [], 'method', { required: true, nonEmpty: true })!,
        url: parseUrlAt(urlReader, rawUrl),
        rawUrl,
        stepId: f.string(ev, [], 'step_id'),
        redirectedFrom: f.string(ev, [], 'redirected_from_transaction_id'),
        redirectStateField: redirectState(f, ev),
        resourceType: f.string(ev, [], 'resource_type'),
        observedAt: f.instant(ev, [], 'observed_at'),
        startedAt: null,
        elapsedMs: null,
        status: null,
        statusText: null,
        requestHeaders: [],
        responseHeaders: [],
        requestBodyId: null,
        responseBodyId: null,
        requestMediaType: null,
        responseMediaType: null,
      });
      this.seqToTx.set(seq, { tx: txId, side: 'request' });
      return;
    }
    const tx = this.txs.get(txId);
    if (kind === 'response') {
      const status = f.number(ev, [], 'status', { required: true, integer: true })!;
      if (!tx) {
        this.skippedWithoutRequest++;
        return;
      }
      tx.responseSeq = seq;
      tx.status = status;
      tx.statusText = f.string(ev, [], 'status_text');
      this.seqToTx.set(seq, { tx: txId, side: 'response' });
      return;
    }
    if (kind === 'request-finished' || kind === 'request-failed') {
      const startedAt = f.instant(ev, [], 'started_at');
      const elapsed = f.number(ev, [], 'elapsed_ms');
      if (tx) {
        tx.startedAt = startedAt;
        tx.elapsedMs = elapsed;
      }
      return;
    }
    if (kind === 'network-content') {
      f.number(ev, [], 'source_event_sequence', { required: true, integer: true });
      // Content may arrive before the event it points at is known (BS-68): resolve at the end.
      this.pendingContent.push({ index, ev });
    }
  }

  private applyContent(index: number, ev: Obj): void {
    const f: FieldReader = new FieldReader(this.file, undefined, ['events', index]);
    const src = this.seqToTx.get(ev.source_event_sequence as number);
    if (!src || src.tx !== ev.transaction_id) {
      f.fail(
        ['source_event_sequence'],
        `points at no request or response event of transaction ${JSON.stringify(ev.transaction_id)}`,
        'bad-field',
      );
    }
    const tx = this.txs.get(src.tx)!;
    if (ev.headers !== undefined && ev.headers !== null) {
      const h = f.obj(ev.headers, ['headers'], '"headers"');
      const values = f.array(h, ['headers'], 'values').map((v, i) => {
        const vo = f.obj(v, ['headers', 'values', i], 'a header');
        return {
          name: f.string(vo, ['headers', 'values', i], 'name', { required: true })!,
          value: f.string(vo, ['headers', 'values', i], 'value'),
        };
      });
      if (src.side === 'request') tx.requestHeaders = values;
      else tx.responseHeaders = values;
    }
    if (ev.body !== undefined && ev.body !== null) {
      const path = ['body'];
      const b = f.obj(ev.body, path, '"body"');
      for (const k of Object.keys(b))
        if (!BODY_FIELDS.includes(k))
          f.fail(
            [...path, k],
            `unknown field "${k}" in a body; the capture was written by an unsupported producer version`,
            'unknown-field',
          );
      const state = f.string(b, path, 'state', { required: true })!;
      const mediaType = f.string(b, path, 'media_type');
      let retained: RetainedBody = { mediaType, isCut: false };
      if (state === 'captured') {
        const b64 = f.string(b, path, 'base64', { required: true })!;
        const bytes = decodeBase64Strict(b64);
        if (bytes === null) f.fail([...path, 'base64'], 'body.base64 is not valid base64; the capture is corrupt', 'invalid-base64');
        const n = f.number(b, path, 'bytes', { integer: true });
        if (n !== null && n !== bytes.length)
          f.fail([...path, 'bytes'], `body.bytes says ${n} but base64 holds ${bytes.length} bytes; the capture is corrupt`, 'bad-field');
        const sha = f.string(b, path, 'sha256');
        if (sha !== null && sha.toLowerCase() !== sha256Hex(bytes))
          f.fail([...path, 'sha256'], 'body.sha256 does not match the retained bytes; the capture is corrupt', 'bad-field');
        retained = { bytes, mediaType, isCut: false };
      } else if (CUT_STATES.has(state)) {
        const b64 = f.string(b, path, 'base64');
        const bytes = b64 === null ? Buffer.alloc(0) : decodeBase64Strict(b64);
        if (bytes === null) f.fail([...path, 'base64'], 'body.base64 is not valid base64; the capture is corrupt', 'invalid-base64');
        retained = { bytes, mediaType, isCut: true };
      }
      const id = this.writeBody(retained, src.side, { file: this.file, path: `events[${index}].body` });
      if (src.side === 'request') {
        tx.requestBodyId = id;
        tx.requestMediaType = mediaType;
      } else {
        tx.responseBodyId = id;
        tx.responseMediaType = mediaType;
      }
    }
  }

  /** The records, in the order of their transactions' request events, with where each came from. */
  finish(): { record: LoadedRecord; where: ErrorContext }[] {
    for (const { index, ev } of this.pendingContent) this.applyContent(index, ev);
    const none = (side: 'request' | 'response'): number => this.writeBody({ mediaType: null, isCut: false }, side, { file: this.file });
    const out: { record: LoadedRecord; where: ErrorContext }[] = [];
    for (const tx of [...this.txs.values()].sort((a, b) => a.order - b.order)) {
      if (tx.status === null) continue; // OQ-3: no response, no record
      out.push({
        where: { file: this.file, record: out.length + 1, path: `events[${tx.eventIndex}]` },
        record: {
          ordinal: out.length + 1,
          method: tx.method,
          url: tx.url,
          rawUrl: tx.rawUrl,
          // BS-59: the browser's start when reported, else when capstate observed the request.
          startedMs: tx.startedAt ?? tx.observedAt,
          durationMs: tx.elapsedMs ?? 0,
          status: tx.status,
          statusText: tx.statusText,
          httpVersion: null,
          pageId: null,
          stepId: tx.stepId,
          transactionId: tx.id,
          // BS-61: linked only to a predecessor this capture observed; a null predecessor
          // without a state field (older captures) proves nothing.
          redirectedFromTransactionId: tx.redirectedFrom !== null && this.txs.has(tx.redirectedFrom) ? tx.redirectedFrom : null,
          redirectState:
            tx.redirectedFrom !== null ? (this.txs.has(tx.redirectedFrom) ? 'linked' : 'unknown') : (tx.redirectStateField ?? 'unknown'),
          resourceType: tx.resourceType,
          requestMediaType: tx.requestMediaType,
          responseMediaType: tx.responseMediaType,
          requestBodyId: tx.requestBodyId ?? none('request'),
          responseBodyId: tx.responseBodyId ?? none('response'),
          requestHeaders: tx.requestHeaders,
          responseHeaders: tx.responseHeaders,
          requestCookies: [],
          responseCookies: [],
        },
      });
    }
    return out;
  }
}

function parseUrlAt(f: FieldReader, raw: string): URL {
  try {
    return parseUrl(f, raw);
  } catch (e) {
    if (e instanceof CapstateError) {
      // parseUrl names the HAR field; an event names its own.
      throw new CapstateError(e.code, e.message, { ...e.context, path: `${e.context.path?.replace(/\.request\.url$/, '')}.url` });
    }
    throw e;
  }
}

function redirectState(f: FieldReader, ev: Obj): 'root' | 'unknown' | null {
  const v = f.string(ev, [], 'redirected_from_transaction_state');
  if (v !== null && v !== 'root' && v !== 'unknown')
    f.fail(['redirected_from_transaction_state'], `must be "root" or "unknown", got ${JSON.stringify(v)}`, 'bad-field');
  return v as 'root' | 'unknown' | null;
}
