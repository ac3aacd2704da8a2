/**
 * The comparison policy: built-in rules (BS-73, BS-74, BS-75, BS-77, BS-78), their options,
 * and the caller's bounded exact-literal replacement rules (BS-76, OQ-44), sorted
 * canonically so the same policy gives the same commitment whatever the input order.
 */
import { z } from 'zod';
import { CapstateError } from '../errors.js';
import { firstIssue } from '../json/zod-issue.js';
import { canonicalSha256 } from './canonical.js';

/** Artifact kinds a comparison reports per step (BS-79); `network` and `events` are the event artifacts. */
export const ARTIFACT_KINDS = ['action', 'screenshot', 'dom', 'accessibility', 'url', 'history', 'storage', 'network', 'events'] as const;
export type ArtifactKind = (typeof ARTIFACT_KINDS)[number];
/** Kinds caller rules may name: those holding retained strings (a screenshot is compared by digest only). */
export const RULE_ARTIFACT_KINDS = ARTIFACT_KINDS.filter((k) => k !== 'screenshot');

/** OQ-44's bounds. */
export const MAX_RULES = 64;
export const MAX_LITERAL_CHARS = 1024;

export interface CallerRule {
  artifact_kinds: ArtifactKind[];
  find: string;
  replace: string;
}

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

export interface Policy {
  options: CompareOptions;
  rules: CallerRule[];
}

/** The normalization commitment (BS-73) and its canonical SHA-256 (OQ-43). */
export interface Commitment {
  built_in: string[];
  options: CompareOptions;
  rules: CallerRule[];
  sha256: string;
}

const option = (name: keyof CompareOptions) => z.boolean({ error: `option ${name} must be true or false` }).default(DEFAULT_OPTIONS[name]);

/** The built-in rules' options (BS-75, BS-77, BS-78); each defaults to true. */
export const comparisonOptionsSchema = z.strictObject(
  {
    ignore_network_request_timing: option('ignore_network_request_timing'),
    preserve_redirect_transaction_ancestry: option('preserve_redirect_transaction_ancestry'),
    compare_storage_entries_as_unordered_collection: option('compare_storage_entries_as_unordered_collection'),
  },
  {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `unknown option ${JSON.stringify(iss.keys[0])}; options: ${Object.keys(DEFAULT_OPTIONS).join(', ')}`
        : 'options must be an object of booleans',
  },
);

const kindsMessage = `artifact_kinds must be a non-empty array of ${RULE_ARTIFACT_KINDS.join(', ')}`;
const findMessage = `find must be a string of 1 to ${MAX_LITERAL_CHARS} characters`;
const replaceMessage = `replace must be a string of at most ${MAX_LITERAL_CHARS} characters`;

/** The caller's exact-literal replacement rules (BS-76), bounded by OQ-44. */
export const comparisonRulesSchema = z
  .array(
    z.strictObject(
      {
        artifact_kinds: z
          .array(
            z.enum(RULE_ARTIFACT_KINDS as [ArtifactKind, ...ArtifactKind[]], {
              error: (iss) => `unknown artifact kind ${JSON.stringify(iss.input)}; kinds: ${RULE_ARTIFACT_KINDS.join(', ')}`,
            }),
            { error: kindsMessage },
          )
          .min(1, { error: kindsMessage }),
        find: z.string({ error: findMessage }).min(1, { error: findMessage }).max(MAX_LITERAL_CHARS, { error: findMessage }),
        replace: z.string({ error: replaceMessage }).max(MAX_LITERAL_CHARS, { error: replaceMessage }),
      },
      {
        error: (iss) =>
          iss.code === 'unrecognized_keys'
            ? `unknown rule field ${JSON.stringify(iss.keys[0])}`
            : 'a rule must be an object {artifact_kinds, find, replace}',
      },
    ),
    { error: 'rules must be an array of {artifact_kinds, find, replace}' },
  )
  .max(MAX_RULES, { error: (iss) => `at most ${MAX_RULES} rules (OQ-44), got ${(iss.input as unknown[]).length}` })
  .describe('Exact-literal replacements, applied in canonical order to retained strings of the named artifact kinds');

/** A comparison policy as the CLI's `--policy` and the MCP tool take it: options and rules, both optional. */
export const comparisonPolicySchema = z.strictObject({
  options: comparisonOptionsSchema.optional(),
  rules: comparisonRulesSchema.optional(),
});

const pathOf = (path: readonly PropertyKey[]) =>
  path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('');

/**
 * Validates `options` and `rules` as given by the CLI (`--policy`) or the MCP tool (null is
 * absent), and sorts the rules (BS-76). The first problem is a `bad-comparison-policy`
 * error whose `context.path` names it (`rules[0].artifact_kinds[1]`).
 */
export function readPolicy(options: unknown, rules: unknown): Policy {
  const input = { options: options ?? undefined, rules: rules ?? undefined };
  const r = comparisonPolicySchema.safeParse(input);
  if (!r.success) {
    const { issue, path } = firstIssue(r.error.issues, input);
    throw new CapstateError('bad-comparison-policy', issue.message, { path: pathOf(path) });
  }
  const list = (r.data.rules ?? []).map((x) => ({
    artifact_kinds: [...new Set(x.artifact_kinds)].sort(),
    find: x.find,
    replace: x.replace,
  }));
  return { options: r.data.options ?? { ...DEFAULT_OPTIONS }, rules: sortRules(list) };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** OQ-44: rules sorted by (artifact kinds joined, find, replace); kinds already sorted within each rule. */
export function sortRules(rules: CallerRule[]): CallerRule[] {
  return [...rules].sort(
    (x, y) => cmp(x.artifact_kinds.join(','), y.artifact_kinds.join(',')) || cmp(x.find, y.find) || cmp(x.replace, y.replace),
  );
}

/** The full commitment (BS-73): built-in rules, options, caller rules, and its SHA-256. */
export function commitment(p: Policy): Commitment {
  const body = {
    built_in: [
      ...BUILT_IN_RULES,
      ...Object.entries(p.options)
        .filter(([, on]) => on)
        .map(([k]) => k),
    ].sort(),
    options: p.options,
    rules: p.rules,
  };
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
