/**
 * Storage value fingerprints, version 2 (BS-70). The digest covers the exact value:
 * a well-formed string is hashed as UTF-8; a string with an unpaired UTF-16 surrogate
 * (which UTF-8 cannot carry) as one 0xff byte followed by its UTF-16LE code units, a
 * prefix that cannot occur in UTF-8. A declared secret or page value has no digest.
 */
import { createHash } from 'node:crypto';
import { decodeBase64Strict } from '../load/bodies.js';

export const FINGERPRINT_VERSION = 2;

export type Fingerprint = { state: 'hashed'; sha256: string } | { state: 'redacted-secret'; sha256: null };

/** BS-70: the SHA-256 of a JavaScript string's exact value. */
export function fingerprintString(s: string): string {
  const h = createHash('sha256');
  if (s.isWellFormed()) h.update(Buffer.from(s, 'utf8'));
  else h.update(Buffer.from([0xff])).update(Buffer.from(s, 'utf16le'));
  return h.digest('hex');
}

export function fingerprint(s: string, isSecret: boolean): Fingerprint {
  return isSecret ? { state: 'redacted-secret', sha256: null } : { state: 'hashed', sha256: fingerprintString(s) };
}

/**
 * Strings cross the browser protocol as UTF-8 JSON, which replaces unpaired surrogates.
 * Page code therefore sends every storage string as its UTF-16 code units in base64
 * (see `PAGE_ENCODE`), and this turns them back into the exact string.
 */
export function decodeUtf16Base64(b64: string): string {
  // Node's UTF-16LE decoder copies code units as they are, unpaired surrogates included.
  return (decodeBase64Strict(b64) ?? Buffer.alloc(0)).toString('utf16le');
}

/** Page-side source of the encoder `decodeUtf16Base64` reverses (evaluated in the page). */
export const PAGE_ENCODE = `(s) => { let b = ''; for (let i = 0; i < s.length; i++) { const c = s.charCodeAt(i); b += String.fromCharCode(c & 255, c >> 8); } return btoa(b); }`;
