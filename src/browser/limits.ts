/**
 * Retained events under `capture.limits` (BS-36 to BS-42, BS-66): every event passes
 * through here; what does not fit is counted by kind and reason, and the network
 * transactions it belonged to are identified (BS-39).
 */
import type { Limits } from './schema.js';

/** BS-41: fixed, not caller-selectable. */
export const MAX_CONCURRENT_CONTENT_READS = 16;
export const PROVIDER_READ_TIMEOUT_MS = 5000;
export const MAX_LISTENER_OWNERS = 2048;

export interface EvidenceEvent {
  sequence: number;
  kind: string;
  step_id: string | null;
  [field: string]: unknown;
}
export type NewEvent = Omit<EvidenceEvent, 'sequence'> & { kind: string; step_id: string | null };

const NETWORK_METADATA = new Set(['request', 'response', 'request-finished', 'request-failed', 'request-unfinished']);

/**
 * BS-37: a conservative estimate of an event's allocation cost: its JSON text as UTF-16
 * (two bytes a character) plus a fixed object overhead. Not a serialized byte count.
 */
export function estimateEventBytes(ev: object): number {
  return JSON.stringify(ev).length * 2 + 64;
}

/**
 * OQ-47: the estimated cost of redacting a body and serializing it as base64:
 * bytes × 4/3 (base64) × 2 (UTF-16) × (1 + page values read × 43/6). The factor puts the
 * threshold for one page value and the 1 MiB default at 47 KiB, the figure BS-52 gives.
 */
export const PAGE_VALUE_SEARCH_FACTOR = 43 / 6;
export function bodyAllocationCost(bytes: number, pageValuesRead: number): number {
  return Math.ceil(bytes * (4 / 3) * 2 * (1 + pageValuesRead * PAGE_VALUE_SEARCH_FACTOR));
}

export interface Omissions {
  by_kind: Record<string, { count: number; reasons: Record<string, number> }>;
  network_transactions: { transaction_id: string; omitted_kinds: string[]; terminal_state?: string }[];
  network_transaction_range: { first: string; last: string; count: number } | null;
}

export class EventLog {
  readonly events: EvidenceEvent[] = [];
  private retainedBytes = 0;
  private metadataBytes = 0;
  private readonly byKind = new Map<string, { count: number; reasons: Map<string, number> }>();
  private readonly txRows = new Map<string, { omitted: Set<string>; terminal?: string }>();
  private beyond: { first: number; last: number } | null = null;

  constructor(readonly limits: Limits) {}

  get lastSequence(): number {
    return this.events.length;
  }

  /** Whether an event of about `bytes` would still fit the retained-bytes budget (BS-42 precheck). */
  fits(bytes: number): boolean {
    return (
      this.events.length < this.limits.max_events &&
      bytes <= this.limits.max_event_bytes &&
      this.retainedBytes + bytes <= this.limits.max_retained_event_bytes
    );
  }

  /** Retains `ev` (giving it the next sequence) or counts it as omitted; returns the sequence or null. */
  push(ev: NewEvent, transactionId: string | null = null): number | null {
    const candidate = { sequence: this.events.length + 1, ...ev } as EvidenceEvent;
    const bytes = estimateEventBytes(candidate);
    const reason =
      this.events.length >= this.limits.max_events
        ? 'max_events'
        : bytes > this.limits.max_event_bytes
          ? 'max_event_bytes'
          : this.retainedBytes + bytes > this.limits.max_retained_event_bytes
            ? 'max_retained_event_bytes'
            : NETWORK_METADATA.has(ev.kind) && this.metadataBytes + bytes > this.limits.max_network_metadata_bytes
              ? 'max_network_metadata_bytes'
              : null;
    if (reason) {
      this.omit(ev.kind, reason, transactionId);
      return null;
    }
    this.retainedBytes += bytes;
    if (NETWORK_METADATA.has(ev.kind)) this.metadataBytes += bytes;
    this.events.push(candidate);
    return candidate.sequence;
  }

  omit(kind: string, reason: string, transactionId: string | null = null): void {
    const k = this.byKind.get(kind) ?? { count: 0, reasons: new Map() };
    k.count++;
    k.reasons.set(reason, (k.reasons.get(reason) ?? 0) + 1);
    this.byKind.set(kind, k);
    if (transactionId !== null) this.txRow(transactionId)?.omitted.add(kind);
  }

  /** BS-66: the terminal state is kept even when its event did not fit. */
  terminal(transactionId: string, state: 'finished' | 'failed' | 'unfinished'): void {
    const row = this.txRows.get(transactionId);
    if (row) row.terminal = state;
  }

  private txRow(id: string): { omitted: Set<string>; terminal?: string } | null {
    let row = this.txRows.get(id);
    if (row) return row;
    // BS-39: omission metadata is bounded too; transactions beyond the limit are in the range.
    if (this.txRows.size >= this.limits.max_network_transactions) return null;
    row = { omitted: new Set() };
    this.txRows.set(id, row);
    return row;
  }

  /** A transaction beyond `max_network_transactions` (numbered `n`): none of its events are kept. */
  beyondLimit(n: number, kind: string): void {
    this.beyond = this.beyond ? { first: Math.min(this.beyond.first, n), last: Math.max(this.beyond.last, n) } : { first: n, last: n };
    this.omit(kind, 'max_network_transactions');
  }

  omissions(): Omissions {
    const by_kind: Omissions['by_kind'] = {};
    for (const [kind, v] of [...this.byKind].sort(([a], [b]) => (a < b ? -1 : 1))) {
      by_kind[kind] = { count: v.count, reasons: Object.fromEntries([...v.reasons].sort(([a], [b]) => (a < b ? -1 : 1))) };
    }
    return {
      by_kind,
      network_transactions: [...this.txRows].map(([id, r]) => ({
        transaction_id: id,
        omitted_kinds: [...r.omitted].sort(),
        ...(r.terminal ? { terminal_state: r.terminal } : {}),
      })),
      network_transaction_range: this.beyond
        ? { first: `t${this.beyond.first}`, last: `t${this.beyond.last}`, count: this.beyond.last - this.beyond.first + 1 }
        : null,
    };
  }
}

/**
 * BS-41: at most 2,048 objects (pages, popups, workers, WebSockets) carry capstate's event
 * listeners at once. An owner beyond that capacity gets no listeners: its creation event
 * kind is counted as omitted with reason `max_listener_owners`, and none of its later
 * events are observed. An owner's slot is released when it closes.
 */
export class ListenerOwners {
  private active = 0;

  constructor(
    private readonly log: EventLog,
    readonly capacity = MAX_LISTENER_OWNERS,
  ) {}

  /** Takes a slot for a new owner whose creation event is `kind`; returns its release, or null when full. */
  admit(kind: string): (() => void) | null {
    if (this.active >= this.capacity) {
      this.log.omit(kind, 'max_listener_owners');
      return null;
    }
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
    };
  }

  get size(): number {
    return this.active;
  }
}
