/**
 * ES-39 / OQ-32: the view's transient bytes, counted against one 96 MiB budget per
 * invocation. Exceeding it aborts the view with `budget-exceeded` naming the phase; no
 * partial state is returned.
 */
import { CapstateError } from '../errors.js';
import { objectEntries, type JsonValue } from '../json/exact.js';

export const STATE_BUDGET_BYTES = 96 * 1024 * 1024;

export type Phase = 'manifest' | 'records' | 'bodies' | 'values' | 'planning';

export class Budget {
  private used = 0;
  private readonly byPhase = new Map<Phase, number>();

  /** `CAPSTATE_STATE_BUDGET_BYTES` lowers the limit (tests, diagnosis); it never raises it. */
  constructor(readonly limit = Math.min(STATE_BUDGET_BYTES, Number(process.env.CAPSTATE_STATE_BUDGET_BYTES) || STATE_BUDGET_BYTES)) {}

  charge(phase: Phase, bytes: number): void {
    this.used += bytes;
    this.byPhase.set(phase, (this.byPhase.get(phase) ?? 0) + bytes);
    if (this.used > this.limit) {
      throw new CapstateError('budget-exceeded',
        `the environment-state view needs more than its ${this.limit} transient bytes (ES-39) in the ${phase} phase ` +
        `(${this.used} counted: ${[...this.byPhase].map(([p, b]) => `${p} ${b}`).join(', ')}); ` +
        'split the capture (fewer or smaller initial reads) and try again', { phase });
    }
  }

  /** ES-39: a planning pass that the ES-27 re-extraction trims releases its charge first. */
  release(phase: Phase): void {
    this.used -= this.byPhase.get(phase) ?? 0;
    this.byPhase.delete(phase);
  }

  get bytes(): number { return this.used; }
}

/** OQ-32 costs: strings 2 bytes per UTF-16 unit + 16, numbers 8, booleans and null 4, containers 16 + members (+ keys). */
export function valueCost(v: JsonValue | undefined): number {
  if (v === undefined) return 0;
  if (v === null || typeof v === 'boolean') return 4;
  if (typeof v === 'number' || typeof v === 'bigint') return 8;
  if (typeof v === 'string') return 2 * v.length + 16;
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + valueCost(x), 16);
  return objectEntries(v).reduce((n, [k, x]) => n + 2 * k.length + 16 + valueCost(x), 16);
}

/** A record row: the sum of its stored columns. */
export function rowCost(row: Record<string, unknown>): number {
  let n = 0;
  for (const v of Object.values(row)) n += typeof v === 'string' ? 2 * v.length + 16 : 8;
  return n;
}
