/**
 * Clock formats (ES-29, ES-30, OQ-22): how a view spells instants, named when the view
 * always spells a field differently from the stored value, and used to render instants the
 * view never recorded.
 */
import type { JsonValue } from '../../json/exact.js';

export type ClockFormat = { separator: 'T' | ' '; fraction_digits: number; offset: string } | { epoch: 's' | 'ms' };

const TEXT = /^(\d{4})-(\d{2})-(\d{2})([T ])(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/;
/** OQ-18: epoch numbers count as clocks only under clock-like names. */
const CLOCK_NAME = /(at|At|time|Time|date|Date|ts|timestamp)$/;

interface Instant {
  seconds: number;
  fraction: string;
}

/** One instant however it is spelled: the same second and the same fraction, trailing zeros aside. */
export const sameInstant = (a: Instant, b: Instant) =>
  a.seconds === b.seconds && a.fraction.replace(/0+$/, '') === b.fraction.replace(/0+$/, '');

/** The spelling and instant of a clock value, or undefined when it is not one. */
export function readClock(field: string, v: JsonValue | undefined): { format: ClockFormat; instant: Instant } | undefined {
  if (typeof v === 'string') {
    const m = TEXT.exec(v);
    if (!m) return undefined;
    const [, y, mo, d, sep, h, mi, s, frac = '', off] = m;
    const offsetMin = off === 'Z' ? 0 : (off[0] === '-' ? -1 : 1) * (Number(off.slice(1, 3)) * 60 + Number(off.slice(4, 6)));
    const seconds = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) / 1000 - offsetMin * 60;
    return { format: { separator: sep as 'T' | ' ', fraction_digits: frac.length, offset: off }, instant: { seconds, fraction: frac } };
  }
  if ((typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint') {
    if (!CLOCK_NAME.test(field)) return undefined;
    const digits = String(v).replace('-', '').length;
    if (digits === 10) return { format: { epoch: 's' }, instant: { seconds: Number(v), fraction: '' } };
    if (digits === 13) {
      const ms = Number(v);
      return { format: { epoch: 'ms' }, instant: { seconds: Math.floor(ms / 1000), fraction: String(ms % 1000).padStart(3, '0') } };
    }
  }
  return undefined;
}

const formatKey = (f: ClockFormat) => JSON.stringify(f);

/**
 * ES-29: the spelling a view names for `field`, given each of its observations' value and the
 * entity's stored value; undefined when the view ever shows the stored spelling, spells the
 * field two ways, or a value is not a clock.
 */
export function viewClockFormat(
  field: string,
  pairs: { view: JsonValue | undefined; stored: JsonValue | undefined }[],
): ClockFormat | undefined {
  let named: ClockFormat | undefined;
  for (const { view, stored } of pairs) {
    if (view === undefined || view === null) continue;
    const v = readClock(field, view),
      s = readClock(field, stored);
    if (!v || !s) return undefined;
    if (formatKey(v.format) === formatKey(s.format)) return undefined; // shown the stored way
    if (named && formatKey(named) !== formatKey(v.format)) return undefined; // spelled both ways
    named = v.format;
  }
  return named;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/**
 * ES-30: a stored instant in the view's spelling: wall-clock time at the view's offset, the
 * view's separator, the value's own fraction zero-padded to the view's width (no digit
 * dropped); epoch spellings computed from the instant.
 */
export function renderClock(field: string, stored: JsonValue, format: ClockFormat): JsonValue {
  const c = readClock(field, stored);
  if (!c) return stored;
  if ('epoch' in format) {
    return format.epoch === 's' ? c.instant.seconds : c.instant.seconds * 1000 + Number((c.instant.fraction + '000').slice(0, 3));
  }
  const offsetMin =
    format.offset === 'Z'
      ? 0
      : (format.offset[0] === '-' ? -1 : 1) * (Number(format.offset.slice(1, 3)) * 60 + Number(format.offset.slice(4, 6)));
  const wall = new Date((c.instant.seconds + offsetMin * 60) * 1000);
  const fraction =
    c.instant.fraction.length >= format.fraction_digits ? c.instant.fraction : c.instant.fraction.padEnd(format.fraction_digits, '0');
  return (
    `${wall.getUTCFullYear()}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())}${format.separator}` +
    `${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}:${pad(wall.getUTCSeconds())}${fraction ? '.' + fraction : ''}${format.offset}`
  );
}

/** The current instant in a recorded clock's spelling (ES-29/30): same separator, fraction width and offset, or epoch unit. */
export function clockNow(field: string, format: ClockFormat, now = new Date()): JsonValue {
  if ('epoch' in format) return format.epoch === 's' ? Math.floor(now.getTime() / 1000) : now.getTime();
  const iso = now.toISOString(); // 2026-12-01T12:00:00.123Z
  const fraction = iso.slice(20, 23).padEnd(format.fraction_digits, '0').slice(0, format.fraction_digits);
  return renderClock(field, `${iso.slice(0, 19)}${fraction ? '.' + fraction : ''}Z`, format);
}
