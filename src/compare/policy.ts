/**
 * The comparison policy: built-in rules (BS-73, BS-74, BS-75, BS-77, BS-78), their options,
 * and the caller's bounded exact-literal replacement rules (BS-76, OQ-44), sorted
 * canonically so the same policy gives the same commitment whatever the input order.
 */
import { CapstateError } from '../errors.js';
import { canonicalSha256 } from './canonical.js';

/** Artifact kinds a comparison reports per step (BS-79); `network` and `events` are the event artifacts. */
export const ARTIFACT_KINDS = ['action', 'screenshot', 'dom', 'accessibility', 'url', 'history', 'storage', 'network', 'events'] as const;
export type ArtifactKind = typeof ARTIFACT_KINDS[number];
/** Kinds caller rules may name: those holding retained strings (a screenshot is compared by digest only). */
export const RULE_ARTIFACT_KINDS = ARTIFACT_KINDS.filter((k) => k !== 'screenshot');

/** OQ-44's bounds. */
export const MAX_RULES = 64;
export const MAX_LITERAL_CHARS = 1024;

export interface CallerRule { artifact_kinds: ArtifactKind[]; find: string; replace: string }

export interface CompareOptions {
  /** BS-60, BS-78: leave `observed_at`, `started_at` and `elapsed_ms` out of network events. */
  ignore_network_request_timing: boolean;
  /** BS-75: fingerprint each hop with its predecessor's fingerprint. */
  preserve_redirect_transaction_ancestry: boolean;
  /** BS-77: storage arrays compared as unordered inventories. */
  compare_storage_entries_as_unordered_collection: boolean;
}

export const DEFAULT_OPTIONS: CompareOptions = {
  ignore_network_request_timing: true,
  preserve_redirect_transaction_ancestry: true,
  compare_storage_entries_as_unordered_collection: true,
};

/** The built-in rules every comparison applies, named in the commitment (BS-73, BS-74). */
export const BUILT_IN_RULES = [
  'exclude_step_elapsed_time',
  'exclude_event_sequence_and_index_fields',
  'compare_screenshots_by_content_digest',
  'compare_dom_and_accessibility_as_normalized_text',
  'remove_capture_local_transaction_ids',
  'attribute_network_to_sending_step',
  'compare_network_transactions_unordered',
  'exclude_network_content_source_sequence',
] as const;

export interface Policy { options: CompareOptions; rules: CallerRule[] }

/** The normalization commitment (BS-73) and its canonical SHA-256 (OQ-43). */
export interface Commitment {
  built_in: string[];
  options: CompareOptions;
  rules: CallerRule[];
  sha256: string;
}

function bad(message: string, path: string): CapstateError {
  return new CapstateError('bad-comparison-policy', message, { path });
}

/** Validates `options` and `rules` as given by the CLI (`--policy`) or the MCP tool, and sorts the rules (BS-76). */
export function readPolicy(options: unknown, rules: unknown): Policy {
  const o: CompareOptions = { ...DEFAULT_OPTIONS };
  if (options !== undefined && options !== null) {
    if (typeof options !== 'object' || Array.isArray(options)) throw bad('options must be an object of booleans', 'options');
    for (const [k, v] of Object.entries(options)) {
      if (!(k in DEFAULT_OPTIONS)) throw bad(`unknown option ${JSON.stringify(k)}; options: ${Object.keys(DEFAULT_OPTIONS).join(', ')}`, `options.${k}`);
      if (typeof v !== 'boolean') throw bad(`option ${k} must be true or false`, `options.${k}`);
      o[k as keyof CompareOptions] = v;
    }
  }
  const list: CallerRule[] = [];
  if (rules !== undefined && rules !== null) {
    if (!Array.isArray(rules)) throw bad('rules must be an array of {artifact_kinds, find, replace}', 'rules');
    if (rules.length > MAX_RULES) throw bad(`at most ${MAX_RULES} rules (OQ-44), got ${rules.length}`, 'rules');
    rules.forEach((r, i) => {
      const at = `rules[${i}]`;
      if (!r || typeof r !== 'object' || Array.isArray(r)) throw bad('a rule must be an object {artifact_kinds, find, replace}', at);
      for (const k of Object.keys(r)) if (!['artifact_kinds', 'find', 'replace'].includes(k)) throw bad(`unknown rule field ${JSON.stringify(k)}`, `${at}.${k}`);
      const { artifact_kinds: kinds, find, replace } = r as Record<string, unknown>;
      if (!Array.isArray(kinds) || kinds.length === 0) throw bad(`artifact_kinds must be a non-empty array of ${RULE_ARTIFACT_KINDS.join(', ')}`, `${at}.artifact_kinds`);
      kinds.forEach((k, j) => { if (!(RULE_ARTIFACT_KINDS as readonly unknown[]).includes(k)) throw bad(`unknown artifact kind ${JSON.stringify(k)}; kinds: ${RULE_ARTIFACT_KINDS.join(', ')}`, `${at}.artifact_kinds[${j}]`); });
      if (typeof find !== 'string' || find.length < 1 || find.length > MAX_LITERAL_CHARS) throw bad(`find must be a string of 1 to ${MAX_LITERAL_CHARS} characters`, `${at}.find`);
      if (typeof replace !== 'string' || replace.length > MAX_LITERAL_CHARS) throw bad(`replace must be a string of at most ${MAX_LITERAL_CHARS} characters`, `${at}.replace`);
      list.push({ artifact_kinds: [...new Set(kinds as ArtifactKind[])].sort(), find, replace });
    });
  }
  return { options: o, rules: sortRules(list) };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** OQ-44: rules sorted by (artifact kinds joined, find, replace); kinds already sorted within each rule. */
export function sortRules(rules: CallerRule[]): CallerRule[] {
  return [...rules].sort((x, y) => cmp(x.artifact_kinds.join(','), y.artifact_kinds.join(',')) || cmp(x.find, y.find) || cmp(x.replace, y.replace));
}

/** The full commitment (BS-73): built-in rules, options, caller rules, and its SHA-256. */
export function commitment(p: Policy): Commitment {
  const body = { built_in: [...BUILT_IN_RULES, ...Object.entries(p.options).filter(([, on]) => on).map(([k]) => k)].sort(), options: p.options, rules: p.rules };
  return { ...body, sha256: canonicalSha256(body) };
}

/** Applies the caller rules for `kind` to one retained string, in canonical order (BS-76). */
export function applyRules(rules: CallerRule[], kind: ArtifactKind, s: string): string {
  let out = s;
  for (const r of rules) if (r.artifact_kinds.includes(kind)) out = out.split(r.find).join(r.replace);
  return out;
}

/** Applies the caller rules to every string leaf of a value, except digests (`sha256` members). */
export function applyRulesDeep(rules: CallerRule[], kind: ArtifactKind, v: unknown): unknown {
  if (!rules.some((r) => r.artifact_kinds.includes(kind))) return v;
  const walk = (x: unknown): unknown => {
    if (typeof x === 'string') return applyRules(rules, kind, x);
    if (Array.isArray(x)) return x.map(walk);
    if (x && typeof x === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, y] of Object.entries(x)) out[k] = k === 'sha256' ? y : walk(y);
      return out;
    }
    return x;
  };
  return walk(v);
}
