/**
 * Per-artifact normalization (BS-73, BS-76, BS-77, BS-71): what each step artifact is
 * compared as, and the reasons an artifact cannot be compared.
 */
import type { Obj } from '../load/fields.js';
import { decodeBase64Strict } from '../load/bodies.js';
import { sha256Hex } from '../json/sha256.js';
import { canonicalJson, canonicalSha256 } from './canonical.js';
import { applyRules, applyRulesDeep, type ArtifactKind, type Policy } from './policy.js';

/** One side of an artifact: its capture state and, when it can be compared, its normalized digest. */
export interface Side {
  state: string;
  digest: string | null;
  /** Why this side's content cannot establish identity (legacy fingerprints, …); null when it can. */
  unknown?: { reason: string; recovery: string };
}

/** BS-73: "normalized text": caller rules, then line endings unified and runs of white space made one space. */
export function normalizeText(rules: Policy['rules'], kind: ArtifactKind, s: string): string {
  return applyRules(rules, kind, s).replace(/\r\n?/g, '\n').replace(/\s+/g, ' ').trim();
}

/** BS-77: sort whole entries by their canonical JSON, keeping duplicates. */
function unordered(list: unknown[]): unknown[] {
  return list
    .map((x) => [canonicalJson(x), x] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, x]) => x);
}

function hasHash(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(hasHash);
  if (v && typeof v === 'object') {
    const o = v as Obj;
    if (typeof o.sha256 === 'string') return true;
    return Object.values(o).some(hasHash);
  }
  return false;
}

/**
 * Storage (BS-70, BS-71, BS-77): the fingerprint version is checked first and left out of
 * the content; cookies keep scope, flags and value fingerprints, with the absolute expiry
 * (a timing field) reduced to whether the cookie is a session cookie.
 */
function storage(value: unknown, p: Policy): { normalized: unknown; unknown?: Side['unknown'] } {
  const v = (value && typeof value === 'object' ? value : {}) as Obj;
  const version = v.fingerprint_version;
  let unknown: Side['unknown'];
  if (version === undefined || version === null) {
    // BS-71 Reading: storage without any hash (empty, or only redacted secrets) has no legacy hash.
    if (hasHash(v))
      unknown = {
        reason: 'legacy storage fingerprints (no fingerprint_version) cannot establish value identity (BS-71)',
        recovery: 'recapture both sides with this capstate (fingerprint version 2)',
      };
  } else if (version !== 2) {
    unknown = {
      reason: `unsupported storage fingerprint_version ${JSON.stringify(version)}`,
      recovery: 'recapture both sides with this capstate (fingerprint version 2)',
    };
  }
  const sort = p.options.compare_storage_entries_as_unordered_collection ? unordered : (l: unknown[]) => l;
  const cookies = Array.isArray(v.cookies)
    ? v.cookies.map((c) => {
        const o = { ...(c as Obj) };
        if ('expires' in o) {
          o.session = o.expires === -1 || o.expires === null;
          delete o.expires;
        }
        return applyRulesDeep(p.rules, 'storage', o);
      })
    : (v.cookies ?? null);
  const area = (a: unknown) => (Array.isArray(a) ? sort(a.map((e) => applyRulesDeep(p.rules, 'storage', e))) : (a ?? null));
  const normalized: Obj = {
    url: typeof v.url === 'string' ? applyRules(p.rules, 'storage', v.url) : (v.url ?? null),
    origin: typeof v.origin === 'string' ? applyRules(p.rules, 'storage', v.origin) : (v.origin ?? null),
    cookies: Array.isArray(cookies) ? sort(cookies) : cookies,
    local_storage: area(v.local_storage),
    session_storage: area(v.session_storage),
  };
  return { normalized, unknown };
}

/** The normalized content of a captured step artifact (screenshot, dom, accessibility, url, history, storage). */
export function normalizeCaptured(kind: ArtifactKind, value: unknown, p: Policy): { normalized: unknown; unknown?: Side['unknown'] } {
  switch (kind) {
    case 'screenshot': {
      // BS-73: by content digest: the recorded SHA-256, else the digest of the retained bytes.
      const o = (value ?? {}) as Obj;
      if (typeof o.sha256 === 'string') return { normalized: { sha256: o.sha256.toLowerCase() } };
      const bytes = typeof o.base64 === 'string' ? decodeBase64Strict(o.base64) : null;
      return bytes
        ? { normalized: { sha256: sha256Hex(bytes) } }
        : { normalized: null, unknown: { reason: 'the screenshot has neither a digest nor bytes', recovery: 'recapture the screenshot' } };
    }
    case 'dom':
    case 'accessibility':
      return typeof value === 'string'
        ? { normalized: normalizeText(p.rules, kind, value) }
        : { normalized: applyRulesDeep(p.rules, kind, value) };
    case 'url':
      return { normalized: typeof value === 'string' ? applyRules(p.rules, 'url', value) : (value ?? null) };
    case 'history':
      return { normalized: applyRulesDeep(p.rules, 'history', value) };
    case 'storage':
      return storage(value, p);
    default:
      return { normalized: applyRulesDeep(p.rules, kind, value) };
  }
}

/** A digest of a normalized value (OQ-43). */
export const digestOf = (normalized: unknown): string => canonicalSha256(normalized);
