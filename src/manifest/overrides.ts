/**
 * The user's `--manifest FILE` override: its validation (errors name the file and the JSON path),
 * its canonical form for storing and hashing, and matching its template rules to records, which
 * take precedence over inference (OQ-1 templates by rule, OQ-2 revised `subject_origin` and
 * `admit_origins`, OQ-5 `api_base`).
 */
import { CapstateError } from '../errors.js';
import { matchTemplate, parseTemplate, type TemplateShape } from './paths.js';
import type { Rec } from './records.js';

/** The user's `--manifest FILE`. */
export interface ManifestOverride {
  template_rules?: { method: string; template: string }[];
  api_base?: string;
  /** OQ-2 (revised): the subject origin, instead of the one inferred. */
  subject_origin?: string;
  /** OQ-2 (revised): origins admitted with the subject (beside the same-site JSON origins). */
  admit_origins?: string[];
}

/** Validates a `--manifest` document; errors name the file and the JSON path. */
export function parseOverride(file: string, text: string): ManifestOverride {
  let doc: unknown;
  const fail = (path: string, message: string): never => {
    throw new CapstateError('bad-manifest', message, { file, path });
  };
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return fail('(root)', `not valid JSON: ${(e as Error).message}`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc))
    return fail('(root)', 'a manifest override is an object {"template_rules": [...], "api_base": "/api"}');
  const o = doc as Record<string, unknown>;
  const allowed = ['template_rules', 'api_base', 'subject_origin', 'admit_origins'];
  for (const k of Object.keys(o)) if (!allowed.includes(k)) fail(k, `unknown field "${k}"; allowed: ${allowed.join(', ')}`);
  const out: ManifestOverride = {};
  const origin = (v: unknown, at: string): string => {
    let u: URL | null = null;
    try {
      u = typeof v === 'string' ? new URL(v) : null;
    } catch {
      u = null;
    }
    if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.origin !== v)
      fail(
        at,
        'an origin is scheme, host and port only, such as "https://www.example.com" or "http://localhost:3000" (no path, no trailing slash)',
      );
    return v as string;
  };
  if (o.subject_origin !== undefined) out.subject_origin = origin(o.subject_origin, 'subject_origin');
  if (o.admit_origins !== undefined) {
    if (!Array.isArray(o.admit_origins)) fail('admit_origins', 'admit_origins is an array of origins such as ["https://api.example.com"]');
    out.admit_origins = [...new Set((o.admit_origins as unknown[]).map((v, i) => origin(v, `admit_origins[${i}]`)))].sort();
  }
  if (o.api_base !== undefined) {
    if (typeof o.api_base !== 'string' || !/^\/([^/]+(\/[^/]+)*)?$/.test(o.api_base))
      fail('api_base', 'api_base is a path such as "/api" or "/ghost/api/admin" (no trailing slash)');
    out.api_base = o.api_base as string;
  }
  if (o.template_rules !== undefined) {
    if (!Array.isArray(o.template_rules)) fail('template_rules', 'template_rules is an array of {"method", "template"}');
    out.template_rules = (o.template_rules as unknown[]).map((r, i) => {
      const at = `template_rules[${i}]`;
      if (!r || typeof r !== 'object' || Array.isArray(r)) fail(at, 'a rule is {"method": "GET", "template": "/api/folders/{uid}"}');
      const rule = r as Record<string, unknown>;
      for (const k of Object.keys(rule))
        if (k !== 'method' && k !== 'template') fail(`${at}.${k}`, `unknown field "${k}"; allowed: method, template`);
      if (typeof rule.method !== 'string' || !/^[A-Za-z]+$/.test(rule.method))
        fail(`${at}.method`, 'method is an HTTP method such as "GET"');
      if (typeof rule.template !== 'string') fail(`${at}.template`, 'template is a path template such as "/api/folders/{uid}"');
      let shape: TemplateShape | null = null;
      try {
        shape = parseTemplate(rule.template as string);
      } catch (e) {
        fail(`${at}.template`, (e as Error).message);
      }
      const names = shape!.parts.filter((p) => p.kind === 'param').map((p) => (p as { name: string }).name);
      const dup = names.find((n, j) => names.indexOf(n) !== j);
      if (dup) fail(`${at}.template`, `the parameter {${dup}} appears twice; name each parameter once`);
      if (names.includes('__proto__')) fail(`${at}.template`, 'a parameter cannot be named __proto__');
      return { method: (rule.method as string).toUpperCase(), template: rule.template as string };
    });
    const seen = new Set<string>();
    out.template_rules.forEach((r, i) => {
      const key = `${r.method} ${r.template}`;
      if (seen.has(key)) fail(`template_rules[${i}]`, `the rule ${key} is listed twice`);
      seen.add(key);
    });
  }
  return out;
}

/** The override in canonical form (fixed key order), for storing and hashing. */
export function canonicalOverride(o: ManifestOverride): string {
  return JSON.stringify({
    ...(o.admit_origins !== undefined ? { admit_origins: o.admit_origins } : {}),
    ...(o.api_base !== undefined ? { api_base: o.api_base } : {}),
    ...(o.subject_origin !== undefined ? { subject_origin: o.subject_origin } : {}),
    ...(o.template_rules !== undefined
      ? { template_rules: o.template_rules.map((r) => ({ method: r.method, template: r.template })) }
      : {}),
  });
}

/** A record's override rule: the rule's method and shape, and the path values its parameters take. */
export interface OverrideMatch {
  method: string;
  shape: TemplateShape;
  values: string[];
}

/**
 * OQ-1: the first override rule (in the file's order) whose method and template match each
 * record; a rule that matches no admitted record adds a note.
 */
export function matchOverrideRules(admitted: Rec[], override: ManifestOverride, notes: string[]): Map<number, OverrideMatch> {
  const ruleShapes = (override.template_rules ?? []).map((r) => ({ ...r, shape: parseTemplate(r.template) }));
  const byOverride = new Map<number, OverrideMatch & { rule: (typeof ruleShapes)[number] }>();
  for (const r of admitted) {
    for (const rule of ruleShapes) {
      if (rule.method !== r.method) continue;
      const values = matchTemplate(rule.shape, r.shape);
      if (values) {
        byOverride.set(r.id, { method: rule.method, shape: rule.shape, values, rule });
        break;
      }
    }
  }
  const used = new Set([...byOverride.values()].map((o) => o.rule));
  for (const rule of ruleShapes)
    if (!used.has(rule)) notes.push(`override rule ${rule.method} ${rule.template} matched no admitted record`);
  return byOverride;
}
