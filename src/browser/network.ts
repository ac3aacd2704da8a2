/**
 * Network evidence (BS-57 to BS-68): one transaction per observed request object, its
 * request/response/terminal events, and network-content events with headers and bodies
 * read through a bounded queue (16 reads at once, 5 s each, BS-41, BS-67).
 */
import { setMaxListeners } from 'node:events';
import type { BrowserContext, Request, Response } from 'playwright-core';
import { sha256Hex } from '../json/sha256.js';
import { isAlwaysRedactedHeader } from '../load/secrets.js';
import { bodyAllocationCost, type EventLog, MAX_CONCURRENT_CONTENT_READS, PROVIDER_READ_TIMEOUT_MS } from './limits.js';
import type { Redaction, RedactionView } from './redaction.js';
import type { Limits } from './schema.js';
import { withDeadline } from './deadline.js';

export interface ContentSelection {
  request_body: boolean;
  response_body: boolean;
  header_values: boolean;
}

type BodyState =
  | { state: 'captured'; base64: string; bytes: number; media_type: string | null; sha256: string }
  | { state: 'body-size-limit' | 'body-allocation-limit'; observed_bytes: number; allowed_bytes: number; media_type: string | null }
  | { state: 'not_selected' | 'not_exposed' | 'unavailable' | 'cancelled' | 'provider-timeout'; media_type?: string | null };

type HeaderState =
  | { state: 'captured'; values: { name: string; value: string | null; redacted?: true }[] }
  | { state: 'not_selected' | 'unavailable' | 'cancelled' | 'provider-timeout'; reason?: string };

interface Tx {
  id: string;
  n: number;
  beyond: boolean;
  stepId: string | null;
  ended: Promise<'finished' | 'failed' | 'unfinished'>;
  end: (s: 'finished' | 'failed' | 'unfinished') => void;
  terminal: 'finished' | 'failed' | null;
  response: Response | null;
}

class Timeout extends Error {}
class Cancelled extends Error {}

/**
 * Runs `f` with the fixed provider-read deadline (BS-41); cancellation interrupts a read
 * in progress (BS-67).
 */
async function read<T>(f: () => Promise<T>, signal: AbortSignal): Promise<T> {
  let onAbort: (() => void) | undefined;
  try {
    if (signal.aborted) throw new Cancelled();
    const cancelled = new Promise<never>((_, reject) => {
      onAbort = () => reject(new Cancelled());
      signal.addEventListener('abort', onAbort, { once: true });
    });
    return await withDeadline(Promise.race([f(), cancelled]), PROVIDER_READ_TIMEOUT_MS, () => new Timeout());
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/** The typed state of a failed provider read. */
function failedRead(e: unknown): 'provider-timeout' | 'cancelled' | 'unavailable' {
  return e instanceof Timeout ? 'provider-timeout' : e instanceof Cancelled ? 'cancelled' : 'unavailable';
}

/** A queue running at most 16 jobs at once; cancelled queued jobs never call their provider API (BS-67). */
class ContentQueue {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly all = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  /** Aborted at cancellation: reads in progress stop waiting for their provider. */
  readonly signal = this.abort.signal;

  constructor() {
    // One abort listener per read in progress: up to 16 (plus headers), above Node's default 10.
    setMaxListeners(MAX_CONCURRENT_CONTENT_READS * 2, this.signal);
  }

  get cancelled(): boolean {
    return this.signal.aborted;
  }

  cancel(): void {
    this.abort.abort();
  }

  run(job: () => Promise<void>, onCancel: () => void): void {
    const p = (async () => {
      if (this.active >= MAX_CONCURRENT_CONTENT_READS) await new Promise<void>((r) => this.waiting.push(r));
      this.active++;
      try {
        if (this.cancelled) onCancel();
        else await job();
      } finally {
        this.active--;
        this.waiting.shift()?.();
      }
    })();
    this.all.add(p);
    void p.finally(() => this.all.delete(p));
  }

  /**
   * Queues the job once `ready` settles. The wait is tracked, so a drain started before
   * `ready`'s callbacks ran still waits for the job (the content of a transaction that
   * ended just before the last step did is not lost).
   */
  after(ready: Promise<unknown>, job: () => Promise<void>, onCancel: () => void): void {
    const p = ready.then(() => this.run(job, onCancel));
    this.all.add(p);
    void p.finally(() => this.all.delete(p));
  }

  async drain(): Promise<void> {
    while (this.all.size) await Promise.allSettled([...this.all]);
  }
}

export interface NetworkObserverOptions {
  log: EventLog;
  redaction: Redaction;
  content: ContentSelection;
  limits: Limits;
  stepId: () => string | null;
  /** BS-45: in connect mode only requests of the root page and its popups are kept. */
  accept: (req: Request) => boolean;
}

export class NetworkObserver {
  private readonly txs = new Map<Request, Tx>();
  private readonly queue = new ContentQueue();
  private count = 0;
  private headerBytes = 0;
  private stopped = false;
  /** Whether any selected content could not be read (BS-67: coverage incomplete). */
  incomplete = false;
  responseBodiesCaptured = 0;

  constructor(private readonly o: NetworkObserverOptions) {}

  attach(context: BrowserContext): void {
    context.on('request', (r) => this.onRequest(r));
    context.on('response', (r) => this.onResponse(r));
    context.on('requestfinished', (r) => this.onEnd(r, 'finished'));
    context.on('requestfailed', (r) => this.onEnd(r, 'failed'));
  }

  private now(): string {
    return new Date().toISOString();
  }

  private onRequest(req: Request): void {
    if (this.stopped || !this.o.accept(req)) return;
    const n = ++this.count;
    let end!: Tx['end'];
    const ended = new Promise<'finished' | 'failed' | 'unfinished'>((r) => {
      end = r;
    });
    const tx: Tx = {
      id: `t${n}`,
      n,
      beyond: n > this.o.limits.max_network_transactions,
      stepId: this.o.stepId(),
      ended,
      end,
      terminal: null,
      response: null,
    };
    this.txs.set(req, tx);
    if (tx.beyond) {
      this.o.log.beyondLimit(n, 'request');
      return;
    }
    const from = req.redirectedFrom();
    const prev = from ? this.txs.get(from) : undefined;
    const view = this.o.redaction.view();
    // BS-61: linked only to an observed predecessor; otherwise say whether there was one.
    const link =
      prev && !prev.beyond
        ? { redirected_from_transaction_id: prev.id }
        : { redirected_from_transaction_id: null, redirected_from_transaction_state: from ? 'unknown' : 'root' };
    const seq = this.o.log.push(
      {
        kind: 'request',
        step_id: tx.stepId,
        transaction_id: tx.id,
        ...link,
        method: req.method(),
        url: view.text(req.url()),
        resource_type: req.resourceType(),
        observed_at: this.now(),
      },
      tx.id,
    );
    const c = this.o.content;
    if (seq !== null && (c.request_body || c.header_values)) {
      this.queue.run(
        async () => {
          const headers = c.header_values ? await this.headers(() => req.headersArray(), view) : { state: 'not_selected' as const };
          const mediaType = req.headers()['content-type'] ?? null;
          let body: BodyState = { state: 'not_selected' };
          if (c.request_body) {
            // BS-64: the bytes Playwright exposes; none exposed proves nothing about the request.
            const raw = req.postDataBuffer();
            body = raw === null ? { state: 'not_exposed', media_type: mediaType } : this.body(raw, mediaType, view);
          }
          this.emitContent(tx, seq, headers, body);
        },
        () => this.emitContent(tx, seq, { state: 'cancelled' }, { state: 'cancelled' }),
      );
    }
  }

  private onResponse(res: Response): void {
    const tx = this.txs.get(res.request());
    if (!tx || this.stopped) return;
    tx.response = res;
    if (tx.beyond) {
      this.o.log.beyondLimit(tx.n, 'response');
      return;
    }
    const view = this.o.redaction.view();
    const seq = this.o.log.push(
      {
        kind: 'response',
        step_id: this.o.stepId(),
        transaction_id: tx.id,
        status: res.status(),
        status_text: res.statusText(),
        observed_at: this.now(),
      },
      tx.id,
    );
    const c = this.o.content;
    if (seq === null || !(c.response_body || c.header_values)) return;
    // BS-66: only completed responses are read; waiting does not take a read slot.
    let how: 'finished' | 'failed' | 'unfinished' = 'unfinished';
    this.queue.after(
      tx.ended.then((h) => {
        how = h;
      }),
      async () => {
        const headers = c.header_values ? await this.headers(() => res.headersArray(), view) : { state: 'not_selected' as const };
        const mediaType = res.headers()['content-type'] ?? null;
        let body: BodyState = { state: 'not_selected' };
        if (c.response_body) {
          if (how !== 'finished') body = { state: 'unavailable', media_type: mediaType };
          else {
            try {
              body = this.body(await read(() => res.body(), this.queue.signal), mediaType, view);
              if (body.state === 'captured') this.responseBodiesCaptured++;
            } catch (e) {
              // A redirect or a body CDP no longer holds: a typed unavailable state (BS-41).
              body = { state: failedRead(e), media_type: mediaType };
            }
          }
          if (body.state !== 'captured' && body.state !== 'not_selected' && !(res.status() >= 300 && res.status() < 400))
            this.incomplete = true;
        }
        this.emitContent(tx, seq, headers, body);
      },
      () => this.emitContent(tx, seq, { state: 'cancelled' }, { state: 'cancelled' }),
    );
  }

  /**
   * BS-50: the redirect hop a request step's fetch met. Under the step's dispatch route
   * Chromium follows (and, with `redirect: 'manual'`, cancels) the redirect inside its
   * interception, so Playwright reports no response for the hop; the step reads the hop
   * from CDP and reports it here, before the transaction's terminal event. Its headers
   * (Location included) follow the header-value rules; a redirect has no body to read.
   */
  redirectHop(req: Request, status: number, statusText: string, headers: { name: string; value: string }[]): void {
    const tx = this.txs.get(req);
    if (!tx || this.stopped || tx.response || tx.terminal || this.hops.has(tx)) return;
    if (tx.beyond) {
      this.o.log.beyondLimit(tx.n, 'response');
      return;
    }
    const view = this.o.redaction.view();
    const seq = this.o.log.push(
      {
        kind: 'response',
        step_id: this.o.stepId(),
        transaction_id: tx.id,
        status,
        status_text: view.text(statusText),
        observed_at: this.now(),
      },
      tx.id,
    );
    this.hops.add(tx);
    const c = this.o.content;
    if (seq === null || !(c.response_body || c.header_values)) return;
    this.queue.run(
      async () => {
        const hs = c.header_values ? await this.headers(async () => headers, view) : { state: 'not_selected' as const };
        const mediaType = headers.find((h) => h.name.toLowerCase() === 'content-type')?.value ?? null;
        this.emitContent(tx, seq, hs, c.response_body ? { state: 'unavailable', media_type: mediaType } : { state: 'not_selected' });
      },
      () => this.emitContent(tx, seq, { state: 'cancelled' }, { state: 'cancelled' }),
    );
  }

  /** Transactions whose redirect hop a request step reported. */
  private readonly hops = new Set<Tx>();

  private onEnd(req: Request, how: 'finished' | 'failed'): void {
    const tx = this.txs.get(req);
    if (!tx || tx.terminal) return;
    tx.terminal = how;
    tx.end(how);
    if (this.stopped) return;
    if (tx.beyond) {
      this.o.log.beyondLimit(tx.n, how === 'finished' ? 'request-finished' : 'request-failed');
      return;
    }
    // BS-58: the browser's own start and duration, reported when the request ends.
    const t = req.timing();
    const timing: Record<string, unknown> = {};
    if (t.startTime > 0) {
      timing.started_at = new Date(t.startTime).toISOString();
      if (t.responseEnd >= 0) timing.elapsed_ms = Math.round(t.responseEnd * 1000) / 1000;
    }
    const ev =
      how === 'finished'
        ? { kind: 'request-finished', step_id: this.o.stepId(), transaction_id: tx.id, ...timing }
        : {
            kind: 'request-failed',
            step_id: this.o.stepId(),
            transaction_id: tx.id,
            error_text: this.o.redaction.view().text(req.failure()?.errorText ?? 'unknown'),
            ...timing,
          };
    this.o.log.push(ev, tx.id);
    this.o.log.terminal(tx.id, how);
  }

  private async headers(f: () => Promise<{ name: string; value: string }[]>, view: RedactionView): Promise<HeaderState> {
    let raw: { name: string; value: string }[];
    try {
      raw = await read(f, this.queue.signal);
    } catch (e) {
      this.incomplete = true;
      return { state: failedRead(e) };
    }
    // BS-65: producer order and duplicates kept; credential values dropped before accounting.
    const values = raw.map((h) =>
      isAlwaysRedactedHeader(h.name) ? { name: h.name, value: null, redacted: true as const } : { name: h.name, value: view.text(h.value) },
    );
    const cost = values.reduce((n, h) => n + (h.name.length + (h.value?.length ?? 4)) * 2, 0);
    if (this.headerBytes + cost > this.o.limits.max_header_value_bytes) {
      this.incomplete = true;
      return { state: 'unavailable', reason: 'max_header_value_bytes' };
    }
    this.headerBytes += cost;
    return { state: 'captured', values };
  }

  /** BS-40, BS-42, BS-52, BS-65: size, allocation estimate, redaction, then the retained copy. */
  private body(raw: Buffer, mediaType: string | null, view: RedactionView): BodyState {
    const l = this.o.limits;
    if (raw.length > l.max_network_body_bytes)
      return { state: 'body-size-limit', observed_bytes: raw.length, allowed_bytes: l.max_network_body_bytes, media_type: mediaType };
    const cost = bodyAllocationCost(raw.length, view.pageValuesRead);
    if (cost > l.max_network_body_allocation_bytes)
      return {
        state: 'body-allocation-limit',
        observed_bytes: cost,
        allowed_bytes: l.max_network_body_allocation_bytes,
        media_type: mediaType,
      };
    // BS-42 precheck: when the event budget already rejects this body, skip the copies.
    if (!this.o.log.fits(Math.ceil((raw.length * 8) / 3))) return { state: 'unavailable', media_type: mediaType };
    const kept = view.bytes(raw);
    if (kept.length > l.max_network_body_bytes)
      return { state: 'body-size-limit', observed_bytes: kept.length, allowed_bytes: l.max_network_body_bytes, media_type: mediaType };
    return { state: 'captured', base64: kept.toString('base64'), bytes: kept.length, media_type: mediaType, sha256: sha256Hex(kept) };
  }

  private emitContent(tx: Tx, source: number, headers: HeaderState, body: BodyState): void {
    const seq = this.o.log.push(
      { kind: 'network-content', step_id: this.o.stepId(), transaction_id: tx.id, source_event_sequence: source, headers, body },
      tx.id,
    );
    if (seq === null) this.incomplete = true;
  }

  /**
   * BS-66, BS-67: stop observing, end every transaction still in flight as
   * `request-unfinished` (their response bodies are unavailable), then drain admitted reads.
   */
  async finish(): Promise<void> {
    this.stopped = true;
    for (const tx of this.txs.values()) {
      if (tx.terminal) continue;
      if (!tx.beyond) {
        this.o.log.push({ kind: 'request-unfinished', step_id: this.o.stepId(), transaction_id: tx.id }, tx.id);
        this.o.log.terminal(tx.id, 'unfinished');
      }
      tx.end('unfinished');
    }
    await this.queue.drain();
  }

  /**
   * Cancellation (BS-67): queued reads produce `cancelled` states without calling the
   * provider; reads in progress are interrupted and also end `cancelled`.
   */
  cancel(): void {
    this.queue.cancel();
  }
}
