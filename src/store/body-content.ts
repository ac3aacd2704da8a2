/**
 * Text bodies kept deflated (issue 14: the store ≤ 2× its HAR). `body.content` of a text body
 * of at least DEFLATE_MIN_BYTES is a zlib stream (RFC 1950, what SQLite's `sqlar_compress`
 * writes) when that saves at least an eighth, and `body.coding` says `deflate`; every other
 * body's content is its bytes as before. Readers go through `storedContent` or the
 * `body_content` view (queries/body_content.sql), which inflates with `sqlar_uncompress`: the
 * sqlite3 shell has that function built in, and `registerBodyFunctions` gives it to every
 * connection capstate opens, so the view reads the same in both.
 */
import { deflateSync, inflateSync } from 'node:zlib';
import type Database from 'better-sqlite3';

/** Smaller text bodies stay as they are: they save little and stay readable in `body.content`. */
export const DEFLATE_MIN_BYTES = 1024;

/** zlib's level 3: on the bench capture's JSON as small as level 6 within 7%, at twice its speed. */
const LEVEL = 3;

export type BodyCoding = 'deflate' | null;

/** The deflated form of a text body of `bytes` UTF-8 bytes, or undefined when it is kept as it is. */
export function deflatedBody(text: string, bytes: number): Buffer | undefined {
  if (bytes < DEFLATE_MIN_BYTES) return undefined;
  const out = deflateSync(text, { level: LEVEL });
  return out.length <= bytes - (bytes >> 3) ? out : undefined;
}

/** What a body row's content holds once inflated: TEXT for UTF-8 bodies, BLOB for binary, as before deflating. */
export function storedContent(content: string | Buffer | null, coding: string | null): string | Buffer | null {
  if (coding !== 'deflate' || content === null) return content;
  return inflateSync(content).toString('utf8');
}

/**
 * SQLite shell's `sqlar_uncompress(DATA, SZ)`: DATA itself when it is SZ bytes long (stored as
 * it is), else DATA inflated. Registered on capstate's connections so `body_content` works in
 * them as it does in the sqlite3 shell.
 */
export function sqlarUncompress(data: unknown, size: unknown): unknown {
  if (data === null || data === undefined) return null;
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(String(data), 'utf8');
  if (Number(size) <= 0 || bytes.length === Number(size)) return data;
  return inflateSync(bytes);
}

/** Gives a connection what the `body_content` view needs. */
export function registerBodyFunctions(db: Database.Database): void {
  db.function('sqlar_uncompress', { deterministic: true }, sqlarUncompress);
}
