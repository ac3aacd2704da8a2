/**
 * OQ-43: canonical JSON (RFC 8785, JSON Canonicalization Scheme) for every digest and
 * fingerprint of the comparison, and its SHA-256 as lowercase hex (through the one
 * SHA-256 owner, src/load/bodies.ts).
 */
import { canonicalJson } from '../json/canonical.js';
import { sha256Hex } from '../json/sha256.js';

export { canonicalJson };

/** SHA-256 (lowercase hex) of a value's canonical JSON. */
export function canonicalSha256(v: unknown): string {
  return sha256Hex(Buffer.from(canonicalJson(v), 'utf8'));
}
