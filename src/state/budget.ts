/**
 * @rule ES-39, OQ-32
 * ES-39 / OQ-32: the view's transient bytes held at one time, counted against one 96 MiB
 * budget per invocation. The pass holds the capture's shared facts throughout and one type
 * (a unit of work) at a time: `unit` charges a type's rows, bodies and values and releases
 * them when the type is done. Exceeding the budget aborts the view with `budget-exceeded`
 * naming the phase and the type; no partial state is returned.
 */
import { CapstateError } from '../errors.js';
import { objectEntries, type JsonValue } from '../json/exact.js';

export const STATE_BUDGET_BYTES = 96 * 1024 * 1024;

export type Phase = 'manifest' | 'records' | 'bodies' | 'values' | 'planning';

export class Budget {
  private used = 0;
  private readonly byPhase = new Map<Phase, number>();
  private current: { name: string; used: number; byPhase: Map<Phase, number> } | undefined;

  /** `CAPSTATE_STATE_BUDGET_BYTES` lowers the limit (tests, diagnosis); it never raises it. */
  constructor(readonly limit = Math.min(STATE_BUDGET_BYTES, Number(process.env.CAPSTATE_STATE_BUDGET_BYTES) || STATE_BUDGET_BYTES)) {}

  charge(phase: Phase, bytes: number): void {
    this.used += bytes;
    this.byPhase.set(phase, (this.byPhase.get(phase) ?? 0) + bytes);
    if (this.current) this.current.byPhase.set(phase, (this.current.byPhase.get(phase) ?? 0) + bytes);
    if (this.used > this.limit) {
      const unit = this.current?.name;
      throw new CapstateError(
        'budget-exceeded',
        `the environment-state view needs more than its ${this.limit} transient bytes (ES-39) in the ${phase} phase` +
          `${unit === undefined ? '' : ` of type ${unit}`} ` +
          `(${this.used} counted: ${[...this.byPhase].map(([p, b]) => `${p} ${b}`).join(', ')}); ` +
          `${unit === undefined ? 'split the capture' : `this one type needs more than the budget alone: split the capture so fewer or smaller reads of ${unit}`} and try again`,
        { phase, ...(unit === undefined ? {} : { type: unit }) },
      );
    }
  }

  /** Lets go of `bytes` charged to `phase` (a value no longer held). */
  release(phase: Phase, bytes: number): void {
    this.used -= bytes;
    this.byPhase.set(phase, (this.byPhase.get(phase) ?? 0) - bytes);
    if (this.current) this.current.byPhase.set(phase, (this.current.byPhase.get(phase) ?? 0) - bytes);
  }

  /** Runs `fn` as one unit of work (a type): what it charges is released when it ends, even when it throws. */
  async unit<T>(name: string, fn: () => Promise<T>): Promise<T> {
    if (this.current) throw new Error('capstate: budget units do not nest');
    this.current = { name, used: this.used, byPhase: new Map() };
    try {
      return await fn();
    } finally {
      for (const [phase, bytes] of this.current.byPhase) this.byPhase.set(phase, this.byPhase.get(phase)! - bytes);
      this.used = this.current.used;
      this.current = undefined;
    }
  }

  get bytes(): number {
    return this.used;
  }
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
