/**
 * Secrets and page values (BS-9, BS-28, BS-52, BS-65): declared secrets are resolved from
 * environment variables before any browser starts, and every persisted string or body
 * has their values replaced by a marker naming the reference. The escaped spellings are
 * the loader's (`spellingsOf` in src/load/secrets.ts), so producer and loader agree on
 * what "the same value" means.
 */
import { CapstateError } from '../errors.js';
import { spellingsOf } from '../load/secrets.js';
import type { Scenario } from './schema.js';

/** BS-52: page values shorter than this are not redacted (they would rewrite ids and ports). */
export const MIN_PAGE_VALUE_LENGTH = 8;

/** `[REDACTED:secret:<secret_id>]` (our reading of BS-28's "secret reference"). */
export function secretMarker(id: string): string {
  return `[REDACTED:secret:${id}]`;
}

/** BS-52: `[REDACTED:page:<step_id>.<header>]`. */
export function pageMarker(stepId: string, header: string): string {
  return `[REDACTED:page:${stepId}.${header}]`;
}

/**
 * BS-9: every declared secret's variable must be set (an empty string counts as set);
 * otherwise an input error naming the declaration and the variable, before any browser.
 */
export function resolveSecrets(s: Scenario, env: NodeJS.ProcessEnv, file?: string): Map<string, string> {
  const out = new Map<string, string>();
  (s.secrets ?? []).forEach((d, i) => {
    const v = env[d.environment_variable];
    if (v === undefined) {
      throw new CapstateError(
        'missing-secret',
        `secrets[${i}]: secret ${JSON.stringify(d.secret_id)} needs the environment variable ${d.environment_variable}, which is not set; export it before capturing`,
        { ...(file ? { file } : {}), path: `secrets[${i}].environment_variable`, environment_variable: d.environment_variable },
      );
    }
    out.set(d.secret_id, v);
  });
  return out;
}

interface Needle {
  text: string;
  bytes: Buffer;
  marker: string;
  markerBytes: Buffer;
}

/** A fixed set of replacements: one state of the redaction, used for everything recorded while it held. */
export class RedactionView {
  constructor(
    private readonly needles: Needle[],
    readonly pageValuesRead: number,
  ) {}

  text(s: string): string;
  text(s: string | null): string | null;
  text(s: string | null): string | null {
    if (s === null || this.needles.length === 0) return s;
    let out = s;
    for (const n of this.needles) if (out.includes(n.text)) out = out.split(n.text).join(n.marker);
    return out;
  }

  /** Replaces values in raw bytes without decoding anything else (BS-65). */
  bytes(b: Buffer): Buffer {
    let out = b;
    for (const n of this.needles) {
      let at = out.indexOf(n.bytes);
      if (at < 0) continue;
      const parts: Buffer[] = [];
      let from = 0;
      while (at >= 0) {
        parts.push(out.subarray(from, at), n.markerBytes);
        from = at + n.bytes.length;
        at = out.indexOf(n.bytes, from);
      }
      parts.push(out.subarray(from));
      out = Buffer.concat(parts);
    }
    return out;
  }

  /** Whether `s` holds any redacted value (a storage value then gets no digest, BS-70). */
  holdsValue(s: string): boolean {
    return this.needles.some((n) => s.includes(n.text));
  }

  /** Deep copy of a JSON-like value with every string redacted. */
  json<T>(v: T): T {
    if (typeof v === 'string') return this.text(v) as T;
    if (Array.isArray(v)) return v.map((x) => this.json(x)) as T;
    if (v && typeof v === 'object' && !Buffer.isBuffer(v)) {
      const o: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) o[k] = this.json(x);
      return o as T;
    }
    return v;
  }
}

/**
 * The growing set of redacted values: declared secrets from the start, page values as
 * request steps read them (BS-52: records produced after the read carry the marker,
 * earlier ones keep the value, so each record takes the view current when it was made).
 */
export class Redaction {
  private readonly needles: Needle[] = [];
  private readonly pageValues = new Map<string, string>();
  private pageCount = 0;
  private current: RedactionView;

  constructor(secrets: Map<string, string>) {
    for (const [id, value] of secrets) if (value !== '') this.add(value, secretMarker(id));
    this.current = this.build();
  }

  private add(value: string, marker: string): void {
    for (const s of spellingsOf(value)) {
      if (s === '' || this.needles.some((n) => n.text === s)) continue;
      this.needles.push({ text: s, bytes: Buffer.from(s, 'utf8'), marker, markerBytes: Buffer.from(marker, 'utf8') });
    }
  }

  private build(): RedactionView {
    // Longest first, so a value that contains another is replaced whole.
    const sorted = [...this.needles].sort((a, b) => b.bytes.length - a.bytes.length || (a.text < b.text ? -1 : 1));
    return new RedactionView(sorted, this.pageCount);
  }

  /**
   * BS-52: a value read from the page for `header` of `stepId`. Redacted in its stored
   * form and in the form fetch sends (without surrounding spaces and tabs); values shorter
   * than 8 characters are kept; a value read again keeps its first marker.
   */
  addPageValue(stepId: string, header: string, stored: string, sent: string): void {
    const forms = [...new Set([stored, sent.replace(/^[ \t]+|[ \t]+$/g, '')])].filter((v) => v.length >= MIN_PAGE_VALUE_LENGTH);
    if (forms.length === 0) return;
    const known = forms.map((f) => this.pageValues.get(f)).find((m) => m !== undefined);
    const marker = known ?? pageMarker(stepId, header);
    for (const f of forms) {
      if (this.pageValues.has(f)) continue;
      this.pageValues.set(f, marker);
      this.add(f, marker);
    }
    if (!known) this.pageCount++;
    this.current = this.build();
  }

  view(): RedactionView {
    return this.current;
  }
}
