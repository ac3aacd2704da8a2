/** SHA-256 digests as lower-case hex: bodies, captures, exports and the views' hash. */
import { createHash } from 'node:crypto';

export function sha256Hex(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}
