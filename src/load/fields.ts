/**
 * Typed reads of capture fields that fail with a CapstateError naming the file, the
 * record ordinal and the JSON path, and saying what to do.
 */
import { CapstateError } from '../errors.js';
import { formatPath, type JsonPath } from './split.js';

export type Obj = Record<string, unknown>;

export class FieldReader {
  constructor(
    readonly file: string,
    readonly record: number | undefined,
    readonly base: JsonPath,
  ) {}

  fail(path: JsonPath, message: string, code = 'bad-field'): never {
    throw new CapstateError(code, message, { file: this.file, record: this.record, path: formatPath([...this.base, ...path]) });
  }

  obj(o: unknown, path: JsonPath, what: string): Obj {
    if (o === null || typeof o !== 'object' || Array.isArray(o))
      this.fail(path, `${what} must be an object; the capture is malformed here`);
    return o as Obj;
  }

  /** A required member of `o` at `path` + key. */
  required(o: Obj, path: JsonPath, key: string): unknown {
    if (!(key in o) || o[key] === undefined)
      this.fail(
        [...path, key],
        `required field "${key}" is missing; the capture is incomplete or not of a supported format`,
        'missing-field',
      );
    return o[key];
  }

  string(o: Obj, path: JsonPath, key: string, opts: { required?: boolean; nonEmpty?: boolean } = {}): string | null {
    const v = opts.required ? this.required(o, path, key) : o[key];
    if (v === undefined || v === null) {
      if (opts.required) this.fail([...path, key], `"${key}" must be a string, not null`);
      return null;
    }
    if (typeof v !== 'string') this.fail([...path, key], `"${key}" must be a string, got ${describe(v)}`);
    if (opts.nonEmpty && v === '') this.fail([...path, key], `"${key}" must not be empty`);
    return v;
  }

  number(o: Obj, path: JsonPath, key: string, opts: { required?: boolean; integer?: boolean } = {}): number | null {
    const v = opts.required ? this.required(o, path, key) : o[key];
    if (v === undefined || v === null) {
      if (opts.required) this.fail([...path, key], `"${key}" must be a number, not null`);
      return null;
    }
    if (typeof v !== 'number' || !Number.isFinite(v)) this.fail([...path, key], `"${key}" must be a number, got ${describe(v)}`);
    if (opts.integer && !Number.isInteger(v)) this.fail([...path, key], `"${key}" must be an integer, got ${v}`);
    return v;
  }

  bool(o: Obj, path: JsonPath, key: string): boolean | null {
    const v = o[key];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'boolean') this.fail([...path, key], `"${key}" must be true or false, got ${describe(v)}`);
    return v;
  }

  array(o: Obj, path: JsonPath, key: string, opts: { required?: boolean } = {}): unknown[] {
    const v = opts.required ? this.required(o, path, key) : o[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail([...path, key], `"${key}" must be an array, got ${describe(v)}`);
    return v;
  }

  /** An instant as epoch milliseconds: RFC 3339 text with any offset, or epoch ms. */
  instant(o: Obj, path: JsonPath, key: string): number | null {
    const v = o[key];
    if (v === undefined || v === null || v === '') return null;
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    if (typeof v !== 'string') this.fail([...path, key], `"${key}" must be a date-time string, got ${describe(v)}`, 'invalid-date');
    const ms = parseInstant(v);
    if (ms === null)
      this.fail(
        [...path, key],
        `"${key}" is not a valid date-time: ${JSON.stringify(v.slice(0, 60))}; expected ISO 8601 such as 2024-05-01T10:00:00.000Z`,
        'invalid-date',
      );
    return ms;
  }
}

/** A short description of a JSON value for error messages (`the string "…"`, `an array`, `number 3`). */
export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)$/;

/** Date.UTC for every year: Date.UTC itself reads years 0–99 as 1900–1999. */
function utc(Y: number, M: number, D: number, H = 0, MI = 0, S = 0): number {
  const d = new Date(0);
  d.setUTCFullYear(Y, M, D);
  d.setUTCHours(H, MI, S, 0);
  return d.getTime();
}

/**
 * RFC 3339 / ISO 8601 date-time with an offset → epoch ms (fractions beyond ms kept as a
 * fraction of a ms). Returns null for anything else, including impossible dates.
 */
export function parseInstant(s: string): number | null {
  const m = INSTANT.exec(s);
  if (!m) return null;
  const [, y, mo, d, h, mi, sec = '0', frac = '', off] = m;
  const Y = +y,
    M = +mo,
    D = +d,
    H = +h,
    MI = +mi,
    S = +sec;
  if (M < 1 || M > 12 || D < 1 || H > 23 || MI > 59 || S > 60) return null;
  const days = new Date(utc(Y, M, 0)).getUTCDate();
  if (D > days) return null;
  let offsetMin = 0;
  if (off !== 'Z' && off !== 'z') {
    const sign = off[0] === '-' ? -1 : 1;
    const digits = off.slice(1).replace(':', '');
    const oh = +digits.slice(0, 2),
      om = digits.length > 2 ? +digits.slice(2, 4) : 0;
    if (oh > 23 || om > 59) return null;
    offsetMin = sign * (oh * 60 + om);
  }
  const base = utc(Y, M - 1, D, H, MI, Math.min(S, 59));
  const fracMs = frac ? Number(`0.${frac}`) * 1000 : 0;
  return base + fracMs - offsetMin * 60_000;
}
