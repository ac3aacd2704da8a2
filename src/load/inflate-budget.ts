/**
 * One decompression budget per capture a load reads (issue 42). Everything decompression
 * produces for that capture is charged to it: a `.har.gz` unpacked to the temp folder, a
 * zip's `.har` member and the capture rebuilt from it with its bodies put back, and every
 * Polly.JS body inflated as its Content-Encoding says. A per-body cap alone let twenty
 * bodies of a 1.7 MB HAR inflate to 1.26 GB, and a 1 MiB `.har.gz` write 1 GiB.
 *
 * The default scales with what the user gave: 200 × the input's bytes, at least 256 MiB.
 * Real HAR JSON deflates 5–20×, rarely 50×; gzip tops out near 1,032× on a run of one byte,
 * so 200× leaves a real capture (a 1 GB `.har.gz` gets 200 GB) and stops a bomb at 256 MiB.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { CapstateError, type ErrorContext } from '../errors.js';

export const INFLATE_RATIO = 200;
export const INFLATE_FLOOR_BYTES = 256 * 1024 * 1024;

/** What crosses to the parse worker, which charges Content-Encoding bodies to the same budget. */
export interface InflateBudgetState {
  limit: number;
  used: number;
  basis: string;
}

/** Where a charge comes from, for the error: `subject` says what inflated, the context where, `advice` what to do. */
export interface InflateSite {
  subject: string;
  context?: ErrorContext;
  advice?: string;
}

/** Bytes in words: `256 MiB`, `612 KiB`, `17 bytes`. */
export function bytesInWords(n: number): string {
  const units: [number, string][] = [
    [2 ** 30, 'GiB'],
    [2 ** 20, 'MiB'],
    [2 ** 10, 'KiB'],
  ];
  for (const [size, unit] of units) {
    if (n >= size) return `${Number.isInteger(n / size) ? n / size : (n / size).toFixed(1)} ${unit}`;
  }
  return `${n} bytes`;
}

export class InflateBudget {
  used = 0;

  constructor(
    readonly limit: number,
    readonly basis: string,
  ) {}

  /** The default budget for an input of `inputBytes`, or `maxBytes` when the caller sets one. */
  static forInput(inputBytes: number, maxBytes?: number): InflateBudget {
    if (maxBytes !== undefined) return new InflateBudget(maxBytes, 'as the caller set it');
    return new InflateBudget(
      Math.max(INFLATE_FLOOR_BYTES, INFLATE_RATIO * inputBytes),
      `${INFLATE_RATIO} × the ${bytesInWords(inputBytes)} given, at least ${bytesInWords(INFLATE_FLOOR_BYTES)}`,
    );
  }

  static from(s: InflateBudgetState): InflateBudget {
    const b = new InflateBudget(s.limit, s.basis);
    b.used = s.used;
    return b;
  }

  state(): InflateBudgetState {
    return { limit: this.limit, used: this.used, basis: this.basis };
  }

  get remaining(): number {
    return Math.max(0, this.limit - this.used);
  }

  /** Counts `n` more bytes; throws `inflate-budget` once the total passes the limit. */
  charge(n: number, site: InflateSite): void {
    this.used += n;
    if (this.used > this.limit) throw this.exceeded(site);
  }

  /** Throws `inflate-budget` before any work when `n` bytes would not fit. */
  reserve(n: number, site: InflateSite): void {
    if (n > this.remaining) throw this.exceeded(site);
  }

  exceeded(site: InflateSite): CapstateError {
    return new CapstateError(
      'inflate-budget',
      `${site.subject} decompresses past this capture's decompression budget of ${bytesInWords(this.limit)} (${this.basis}), ` +
        'which stops compressed inputs that expand into gigabytes (decompression bombs); nothing was loaded. ' +
        (site.advice ?? 'If the capture is genuine, decompress it yourself and load the plain file'),
      site.context ?? {},
    );
  }

  /** A stream stage that charges what passes through and fails the pipeline once over. */
  counter(site: InflateSite): Transform {
    return new Transform({
      transform: (chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) => {
        try {
          this.charge(chunk.length, site);
        } catch (e) {
          done(e as Error);
          return;
        }
        done(null, chunk);
      },
    });
  }
}

/** zlib's answer when a sync call's output would pass `maxOutputLength`. */
export const isOutputTooLarge = (e: unknown): boolean => (e as { code?: string } | null)?.code === 'ERR_BUFFER_TOO_LARGE';
