/**
 * The environment manifest (OQ-1, OQ-2, OQ-5, OQ-7): the single owner of grouping records
 * into tools. Deterministic: the same facts and override give the same tools. The loader
 * stores the result as facts (`manifest`, `tool`, `path_param`, `record.tool_id`); every
 * reader joins on those and never regroups records.
 */
import type { Kysely } from 'kysely';
import { CapstateError } from '../errors.js';
import type { DB } from '../store/types.js';
import { readVocabulary, type Vocabulary } from '../store/vocabulary.js';
import { parseExactJson } from '../json/exact.js';
import { sqlChildPointer } from '../json/pointer.js';
import { isGraphqlQueryOnly } from './graphql.js';
import { admittedOrigins, chooseSubject, isStaticAsset, type SubjectRecord, type SubjectSource } from './subject.js';
import { sql } from 'kysely';
import { storedContent } from '../store/body-content.js';
import { isStrongId, isVersionSegment, looksLikeId, matchTemplate, parsePath, parseTemplate, renderTemplate, type PathShape, type TemplateShape } from './paths.js';


/** The user's `--manifest FILE`. */
export interface ManifestOverride {
  template_rules?: { method: string; template: string }[];
  api_base?: string;
  /** OQ-2 (revised): the subject origin, instead of the one inferred. */
  subject_origin?: string;
  /** OQ-2 (revised): origins admitted with the subject (beside the same-site JSON origins). */
  admit_origins?: string[];
}

export interface InferredTool {
  name: string;
  method: string;
  template: string;
  rootPath: string;
  isQueryPost: boolean;
  /** The template's last segment is a parameter: an item template (glossary). */
  endsInParam: boolean;
  source: 'inferred' | 'override';
  records: { id: number; ordinal: number; params: { name: string; value: string }[] }[];
}

export interface InferredManifest {
  subjectOrigin: string;
  subjectSource: SubjectSource;
  apiBase: string;
  apiBaseSource: 'inferred' | 'override';
  notes: string[];
  tools: InferredTool[];
}

interface Rec extends SubjectRecord {
  id: number;
  ordinal: number;
  method: string;
  origin: string;
  path: string;
  shape: PathShape;
  responseBodyId: number;
  requestBodyId: number;
  isJson: boolean;
}

/** Validates a `--manifest` document; errors name the file and the JSON path. */
export function parseOverride(file: string, text: string): ManifestOverride {
  let doc: unknown;
  const fail = (path: string, message: string): never => { throw new CapstateError('bad-manifest', message, { file, path }); };
  try { doc = JSON.parse(text); } catch (e) { return fail('(root)', `not valid JSON: ${(e as Error).message}`); }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return fail('(root)', 'a manifest override is an object {"template_rules": [...], "api_base": "/api"}');
  const o = doc as Record<string, unknown>;
  const allowed = ['template_rules', 'api_base', 'subject_origin', 'admit_origins'];
  for (const k of Object.keys(o)) if (!allowed.includes(k)) fail(k, `unknown field "${k}"; allowed: ${allowed.join(', ')}`);
  const out: ManifestOverride = {};
  const origin = (v: unknown, at: string): string => {
    let u: URL | null = null;
    try { u = typeof v === 'string' ? new URL(v) : null; } catch { u = null; }
    if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.origin !== v) fail(at, 'an origin is scheme, host and port only, such as "https://www.example.com" or "http://localhost:3000" (no path, no trailing slash)');
    return v as string;
  };
  if (o.subject_origin !== undefined) out.subject_origin = origin(o.subject_origin, 'subject_origin');
  if (o.admit_origins !== undefined) {
    if (!Array.isArray(o.admit_origins)) fail('admit_origins', 'admit_origins is an array of origins such as ["https://api.example.com"]');
    out.admit_origins = [...new Set((o.admit_origins as unknown[]).map((v, i) => origin(v, `admit_origins[${i}]`)))].sort();
  }
  if (o.api_base !== undefined) {
    if (typeof o.api_base !== 'string' || !/^\/([^/]+(\/[^/]+)*)?$/.test(o.api_base)) fail('api_base', 'api_base is a path such as "/api" or "/ghost/api/admin" (no trailing slash)');
    out.api_base = o.api_base as string;
  }
  if (o.template_rules !== undefined) {
    if (!Array.isArray(o.template_rules)) fail('template_rules', 'template_rules is an array of {"method", "template"}');
    out.template_rules = (o.template_rules as unknown[]).map((r, i) => {
      const at = `template_rules[${i}]`;
      if (!r || typeof r !== 'object' || Array.isArray(r)) fail(at, 'a rule is {"method": "GET", "template": "/api/folders/{uid}"}');
      const rule = r as Record<string, unknown>;
      for (const k of Object.keys(rule)) if (k !== 'method' && k !== 'template') fail(`${at}.${k}`, `unknown field "${k}"; allowed: method, template`);
      if (typeof rule.method !== 'string' || !/^[A-Za-z]+$/.test(rule.method)) fail(`${at}.method`, 'method is an HTTP method such as "GET"');
      if (typeof rule.template !== 'string') fail(`${at}.template`, 'template is a path template such as "/api/folders/{uid}"');
      let shape: TemplateShape | null = null;
      try { shape = parseTemplate(rule.template as string); } catch (e) { fail(`${at}.template`, (e as Error).message); }
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
    ...(o.template_rules !== undefined ? { template_rules: o.template_rules.map((r) => ({ method: r.method, template: r.template })) } : {}),
  });
}

/**
 * The capture's records as the manifest reads them, in ordinal order. A function of its own so
 * the query's rows are garbage once mapped: they would otherwise stay reachable for the whole
 * inference (38k records at 1 GB, tens of MB).
 */
async function recordsOf(k: Kysely<DB>, captureId: number): Promise<Rec[]> {
  const rows = await k.selectFrom('record').innerJoin('body', 'body.id', 'record.response_body_id')
    .select(['record.id', 'record.ordinal', 'record.method', 'record.origin', 'record.path', 'record.url', 'record.status', 'record.resource_type',
      'record.page_id', 'record.response_media_type', 'record.transaction_id', 'record.redirected_from_transaction_id',
      'record.response_body_id', 'record.request_body_id', 'body.kind'])
    .where('record.capture_id', '=', captureId).orderBy('record.ordinal').execute();
  // Redirects are followed by their Location (OQ-2 revised); only 3xx answers need it.
  const locations = new Map<number, string>();
  const hops = await k.selectFrom('header').innerJoin('record', 'record.id', 'header.record_id')
    .select(['header.record_id', 'header.value'])
    .where('record.capture_id', '=', captureId).where('record.status', '>=', 300).where('record.status', '<', 400)
    .where('header.side', '=', 'response').where('header.source', '=', 'header').where(sql<string>`lower(header.name)`, '=', 'location')
    .where('header.value', 'is not', null).orderBy('header.record_id').orderBy('header.position').execute();
  for (const h of hops) if (!locations.has(h.record_id)) locations.set(h.record_id, h.value!);
  return rows.map((r) => ({
    id: r.id, ordinal: r.ordinal, method: r.method.toUpperCase(), origin: r.origin, path: r.path, shape: parsePath(r.path),
    responseBodyId: r.response_body_id, requestBodyId: r.request_body_id, isJson: r.kind === 'json',
    url: r.url, status: r.status, resourceType: r.resource_type, pageId: r.page_id,
    isHtml: /html/i.test(r.response_media_type ?? ''), location: locations.get(r.id) ?? null,
    transactionId: r.transaction_id, redirectedFromTransactionId: r.redirected_from_transaction_id,
  }));
}

/** Computes the manifest of one loaded capture from its facts. Throws CapstateError on rejection. */
export async function inferManifest(k: Kysely<DB>, captureId: number, file: string, override: ManifestOverride = {}): Promise<InferredManifest> {
  const capture = await k.selectFrom('capture').selectAll().where('id', '=', captureId).executeTakeFirstOrThrow();
  const recs = await recordsOf(k, captureId);

  // ES-2 / OQ-2 format: a scenario capture is admissible only when it selected response bodies.
  if (capture.format === 'scenario-evidence' && capture.response_bodies_selected !== 1) {
    throw new CapstateError('response-bodies-not-selected', 'this scenario capture did not select response bodies (scenario.network_content.response_body), so no state can be inferred from it; record it again with "capture": {"network": {"response_body": true}}', { file, path: 'scenario.network_content.response_body' });
  }

  // OQ-2 (revised) subject: the origin of the page's final document (redirects followed),
  // or of the scenario's start URL; else the most frequent origin of JSON answers. Failed
  // records and source maps are never evidence (subject.ts).
  let startUrl: string | null = null;
  let firstPageId: string | null = null;
  if (capture.format === 'scenario-evidence') startUrl = capture.start_url;
  else {
    const page = await k.selectFrom('page').select(['title', 'page_id']).where('capture_id', '=', captureId).orderBy('position').executeTakeFirst();
    startUrl = page?.title && /^https?:\/\//i.test(page.title) ? page.title : null;
    firstPageId = page?.page_id ?? null;
  }
  const choice = chooseSubject(recs, {
    startUrl, startSource: capture.format === 'scenario-evidence' ? 'start-url' : 'page', firstPageId, overrideOrigin: override.subject_origin,
  });
  const subjectOrigin = choice.subjectOrigin;
  const subjectSource = choice.subjectSource;
  if (recs.length === 0) {
    throw new CapstateError('no-subject-records', 'the capture holds no request that got a response, so there is nothing to admit; record the app\'s traffic (for a scenario: select network events)', { file });
  }
  // Same-site origins that answer JSON, and those the override names, are admitted too.
  const withSubject = subjectOrigin === null ? [] : admittedOrigins(recs, subjectOrigin, override.admit_origins);
  const admittedSet = new Set([subjectOrigin, ...withSubject]);
  const onAdmitted = recs.filter((r) => admittedSet.has(r.origin));
  if (onAdmitted.length === 0) {
    const hint = override.subject_origin ? 'check subject_origin in the --manifest override' : 'capture traffic of the app itself, or name it with "subject_origin" in a --manifest override';
    throw new CapstateError('no-subject-records', `no record is on the capture's subject origin ${subjectOrigin ?? '(none)'}; ${hint}`, { file });
  }
  // Issue 17: static assets stay facts but form no tool, so the catalog shows the API.
  const assets = onAdmitted.filter(isStaticAsset);
  const admitted = onAdmitted.filter((r) => !isStaticAsset(r));
  const notes: string[] = [];
  if (withSubject.length > 0) {
    const counts = withSubject.map((o) => `${o} ${recs.filter((r) => r.origin === o).length}`);
    notes.push(`admitted with the subject: ${counts.join(', ')}`);
  }
  const others = new Map<string, number>();
  for (const r of recs) if (!admittedSet.has(r.origin)) others.set(r.origin, (others.get(r.origin) ?? 0) + 1);
  if (others.size > 0) {
    const n = recs.length - onAdmitted.length;
    notes.push(`${n} record${n === 1 ? '' : 's'} of other origins not admitted: ${[...others].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([o, c]) => `${o} ${c}`).join(', ')}`);
  }
  if (assets.length > 0) {
    notes.push(`${assets.length} static-asset record${assets.length === 1 ? '' : 's'} (scripts, stylesheets, images, fonts, media, source maps) kept as facts, not in the catalog: ${assets.slice(0, 12).map((r) => `#${r.ordinal}`).join(', ')}${assets.length > 12 ? ', …' : ''}`);
  }

  const lists = new ListIndex(k, admitted);
  const own = new OwnMembers(k);

  // Override rules first (they take precedence), then inference for the rest.
  const ruleShapes = (override.template_rules ?? []).map((r) => ({ ...r, shape: parseTemplate(r.template) }));
  const byOverride = new Map<number, { method: string; shape: TemplateShape; values: string[]; rule: (typeof ruleShapes)[number] }>();
  for (const r of admitted) {
    for (const rule of ruleShapes) {
      if (rule.method !== r.method) continue;
      const values = matchTemplate(rule.shape, r.shape);
      if (values) { byOverride.set(r.id, { method: rule.method, shape: rule.shape, values, rule }); break; }
    }
  }
  const inferred = admitted.filter((r) => !byOverride.has(r.id));
  const used = new Set([...byOverride.values()].map((o) => o.rule));
  for (const rule of ruleShapes) if (!used.has(rule)) notes.push(`override rule ${rule.method} ${rule.template} matched no admitted record`);
  // OQ-9's identity names come from the store (the loader opened it for writing, so the
  // vocabulary migration has run before any capture is grouped).
  const vocabulary = await readVocabulary(k);
  const isParam = await decideParams(inferred, lists, own, vocabulary);
  const named = await nameParams(inferred, isParam, lists, own, vocabulary);

  // Group into tools.
  const toolMap = new Map<string, InferredTool>();
  const addTo = (method: string, shape: TemplateShape, source: InferredTool['source'], r: Rec, values: string[]) => {
    const template = renderTemplate(shape);
    const key = `${method} ${template}`;
    let tool = toolMap.get(key);
    if (!tool) {
      const lastPart = shape.parts[shape.parts.length - 1];
      tool = { name: '', method, template, rootPath: '', isQueryPost: false, endsInParam: lastPart?.kind === 'param', source, records: [] };
      toolMap.set(key, tool);
    }
    const names = shape.parts.filter((p) => p.kind === 'param').map((p) => (p as { name: string }).name);
    tool.records.push({ id: r.id, ordinal: r.ordinal, params: values.map((value, i) => ({ name: names[i], value })) });
    return tool;
  };
  for (const r of admitted) {
    const o = byOverride.get(r.id);
    if (o) addTo(o.method, o.shape, 'override', r, o.values);
    else {
      const shape = named.get(r.id)!;
      const values = r.shape.segments.filter((_, i) => isParam.get(r.id)![i]);
      addTo(r.method, shape, 'inferred', r, values);
    }
  }
  const tools = [...toolMap.values()].sort((a, b) => (a.template < b.template ? -1 : a.template > b.template ? 1 : a.method.localeCompare(b.method)));

  // OQ-5 type roots.
  const byId = new Map(admitted.map((r) => [r.id, r]));
  const jsonTemplates = tools.filter((t) => t.records.some((tr) => byId.get(tr.id)!.isJson)).map((t) => parseTemplate(t.template));
  const apiBase = override.api_base ?? inferApiBase(jsonTemplates.length > 0 ? jsonTemplates : tools.map((t) => parseTemplate(t.template)));
  for (const t of tools) t.rootPath = rootPath(parseTemplate(t.template), apiBase);
  if (!override.api_base) await mergeSingularRoots(tools, byId, lists, notes);
  if (!override.api_base) mergeNestedRoots(tools, byId, apiBase, notes);
  if (override.api_base && override.api_base !== '/' && !tools.some((t) => t.template === override.api_base || t.template.startsWith(`${override.api_base}/`))) {
    notes.push(`override api_base ${override.api_base} is a prefix of no admitted path; type roots fall back to first segments`);
  }

  // OQ-7 query POSTs, per tool.
  for (const t of tools) t.isQueryPost = t.method === 'POST' && await isQueryPost(k, t, byId, vocabulary);

  assignNames(tools);
  return { subjectOrigin: subjectOrigin!, subjectSource, apiBase, apiBaseSource: override.api_base ? 'override' : 'inferred', notes, tools };
}

/** Bound parameter lists stay far below SQLite's variable limit. */
function chunks<T>(items: T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * OQ-1 (b): scalar member values of objects listed by JSON responses of a path (with or
 * without a format suffix). Per prefix, SQLite looks only for the values that occur right
 * after that prefix in some recorded path, so neither memory nor time follows the size
 * of the listings.
 */
class ListIndex {
  private readonly byPath = new Map<string, Rec[]>();
  private readonly cache = new Map<string, Map<string, string[]>>();

  constructor(private readonly k: Kysely<DB>, private readonly admitted: Rec[]) {
    for (const r of admitted) {
      if (r.method !== 'GET' || !r.isJson) continue;
      const key = r.shape.segments.join('/');
      const list = this.byPath.get(key) ?? [];
      list.push(r);
      this.byPath.set(key, list);
    }
  }

  /** Issue 18: which of `values` the JSON reads of `path` list (as a scalar member of a listed object). */
  async listedValues(path: string[], values: Set<string>): Promise<Set<string>> {
    const bodies = [...new Set((this.byPath.get(path.join('/')) ?? []).map((r) => r.responseBodyId))];
    return bodies.length === 0 ? new Set() : new Set((await this.lookup(bodies, values)).keys());
  }

  /**
   * Scalar members of objects inside arrays of `bodies` whose value is one of `wanted`, by value.
   * One query: the bodies and the values go in as two JSON arrays (`json_each`), so each body's
   * members are read once. Chunked IN lists read every body again for each chunk of values,
   * and both grow with the capture (48 lookups: 3.9 s at 500 MB).
   */
  private async lookup(bodies: number[], wanted: Set<string>): Promise<Map<string, string[]>> {
    const values = new Map<string, string[]>();
    // Integers are stored as INTEGER in the ANY column: look for both spellings (json_each
    // gives a JSON integer as INTEGER, exact to 64 bits, and a JSON string as TEXT).
    const needles: string[] = [];
    for (const w of wanted) {
      needles.push(JSON.stringify(w));
      if (/^-?(0|[1-9]\d{0,17})$/.test(w)) needles.push(w);
    }
    if (needles.length === 0) return values;
    const bodyList = JSON.stringify(bodies);
    const needleList = `[${needles.join(',')}]`;
    // Down from each array to its objects and their members (member_node's key ranges).
    // CROSS JOIN keeps that order: SQLite otherwise starts from the matching members
    // and, a parent having no index by node, scans the body for each one's array.
    const query = this.k.selectFrom('member_node as a')
      .crossJoin('member_node as o')
      .crossJoin('member_node as m')
      .whereRef('o.body_id', '=', 'a.body_id').whereRef('o.parent', '=', 'a.node')
      .whereRef('m.body_id', '=', 'o.body_id').whereRef('m.parent', '=', 'o.node')
      .select(['m.key', 'm.value', 'm.body_id', memberPointer('o', 'm').as('pointer')])
      .where(sql<boolean>`a.body_id in (select value from json_each(${bodyList}))`)
      .where('a.type', '=', 'array').where('o.type', '=', 'object')
      .where('m.type', 'in', ['string', 'integer'])
      .where(sql<boolean>`m.value in (select value from json_each(${needleList}))`)
      .orderBy('m.body_id').orderBy('pointer');
    // Streamed: the matches grow with the capture (a list body per read, an entry per id), and
    // only their distinct values and names are kept (issue 14: flat memory).
    for await (const row of query.stream()) {
      const v = String(row.value);
      const names = values.get(v) ?? [];
      if (typeof row.key === 'string' && !names.includes(row.key)) names.push(row.key);
      values.set(v, names);
    }
    return values;
  }

  /** Member names (in body order) whose listed value equals `value` under `prefix`. */
  async namesFor(prefix: string[], value: string): Promise<string[]> {
    const key = prefix.join('/');
    let values = this.cache.get(key);
    if (!values) {
      values = new Map();
      const bodies = [...new Set((this.byPath.get(key) ?? []).map((r) => r.responseBodyId))];
      if (bodies.length > 0) {
        // The values to look for: what follows this prefix in the recorded paths.
        const wanted = new Set<string>();
        for (const r of this.admitted) {
          const segs = r.shape.segments;
          if (segs.length > prefix.length && prefix.every((p, i) => segs[i] === p)) wanted.add(segs[prefix.length]);
        }
        values = await this.lookup(bodies, wanted);
      }
      this.cache.set(key, values);
    }
    return values.get(value) ?? [];
  }
}

/** The RFC 6901 pointer of member `m` of container `o` or `p` (member_node keeps containers' pointers only). */
const memberPointer = (container: 'o' | 'p', m: 'm') => sqlChildPointer(`${container}.pointer`, `${m}.key`);

/** Members of a record's own response (root, or one level inside a wrapper object) that repeat a path value. */
class OwnMembers {
  constructor(private readonly k: Kysely<DB>) {}

  async namesFor(bodyId: number, value: string): Promise<string[]> {
    // The members of the root object and of objects one level down (depth ≤ 2), in pointer order.
    const found = await this.k.selectFrom('member_node as p')
      .innerJoin('member_node as m', (j) => j.onRef('m.body_id', '=', 'p.body_id').onRef('m.parent', '=', 'p.node'))
      .select(['m.key', 'm.value'])
      .where('p.body_id', '=', bodyId).where('p.depth', '<=', 1).where('p.type', '=', 'object')
      .where('m.type', 'in', ['string', 'integer'])
      .orderBy('p.depth').orderBy(memberPointer('p', 'm')).execute();
    return found.filter((r) => typeof r.key === 'string' && String(r.value) === value).map((r) => r.key as string);
  }

  /**
   * Issue 18: whether the response repeats `value` in an identity-name member where ES-38 and
   * IDN-5 look for an entity (the root, one member, `/0`, `/<member>/0`: depth 3 at most).
   */
  async repeatsAsIdentity(bodyId: number, value: string, vocabulary: Vocabulary): Promise<boolean> {
    const needles: (string | bigint)[] = [value, ...(/^-?(0|[1-9]\d{0,17})$/.test(value) ? [BigInt(value)] : [])];
    // Scalars at depth 3 at most: members of a container at depth 2 at most (member_node keeps containers' depths, migration 0012).
    const found = await this.k.selectFrom('member_node as p')
      .innerJoin('member_node as m', (j) => j.onRef('m.body_id', '=', 'p.body_id').onRef('m.parent', '=', 'p.node'))
      .select(['m.key'])
      .where('p.body_id', '=', bodyId).where('p.depth', '<=', 2).where('m.type', 'in', ['string', 'integer'])
      .where('m.value', 'in', needles as string[]).execute();
    return found.some((r) => typeof r.key === 'string' && vocabulary.isIdentityName(r.key));
  }
}

/** Records per template whose members vote on parameter names: enough to agree, bounded for big captures. */
const NAMING_SAMPLE = 16;

/** Which segments of each record are parameters (OQ-1 a, b, c). */
async function decideParams(recs: Rec[], lists: ListIndex, own: OwnMembers, vocabulary: Vocabulary): Promise<Map<number, boolean[]>> {
  const isParam = new Map<number, boolean[]>();
  for (const r of recs) {
    const flags: boolean[] = [];
    for (let i = 0; i < r.shape.segments.length; i++) {
      const seg = r.shape.segments[i];
      flags.push(isStrongId(seg) || (!isVersionSegment(seg) && (await lists.namesFor(r.shape.segments.slice(0, i), seg)).length > 0));
    }
    isParam.set(r.id, flags);
  }
  // (a, weak) issue 18: a weak id shape (`it-01`, `issue-62`, `example3`) is a parameter only
  // where paths with the same prefix (parameters masked) show 2+ id-looking values at that
  // position, or where the record's own response repeats it in an identity-name member
  // (Grafana's `/api/dashboards/uid/abc123XYZ`, whose dashboard repeats it in its identity member);
  // with one observed value and no such member it is a static name.
  for (const r of recs) {
    const flags = isParam.get(r.id)!;
    for (let i = 0; i < r.shape.segments.length; i++) {
      const seg = r.shape.segments[i];
      if (flags[i] || !looksLikeId(seg)) continue;
      if (await own.repeatsAsIdentity(r.responseBodyId, seg, vocabulary)) flags[i] = true;
    }
  }
  const maxSegs = Math.max(0, ...recs.map((r) => r.shape.segments.length));
  for (let i = 0; i < maxSegs; i++) {
    const groups = new Map<string, { values: Set<string>; weak: Rec[] }>();
    for (const r of recs) {
      if (i >= r.shape.segments.length) continue;
      const seg = r.shape.segments[i];
      if (!looksLikeId(seg)) continue;
      const flags = isParam.get(r.id)!;
      const key = JSON.stringify(r.shape.segments.slice(0, i).map((s, j) => (flags[j] ? '\u0000' : s)));
      const g = groups.get(key) ?? { values: new Set<string>(), weak: [] };
      g.values.add(seg);
      if (!flags[i]) g.weak.push(r);
      groups.set(key, g);
    }
    for (const g of groups.values()) if (g.values.size >= 2) for (const r of g.weak) isParam.get(r.id)![i] = true;
  }
  // (c) sibling paths (OQ-1): a segment before the last that shows 2+ values among paths
  // whose other segments are identical (parameters masked), repeated until nothing changes,
  // so `/repos/octocat/hello-world/…` and `/repos/octocat/spoon-knife/…` make `{repo}`, and
  // then `/repos/octocat/{repo}/…` and `/repos/torvalds/{repo}/…` make `{owner}`. Never the
  // first segment (`/api`, `/repos` name areas), never a collection name (followed by an
  // item id, or itself a recorded path), and only where a static segment follows.
  const recorded = new Set(recs.map((r) => r.shape.segments.join('/')));
  const maxLen = Math.max(0, ...recs.map((r) => r.shape.segments.length));
  // Parameters by shape or listing (a, b): what follows a collection name.
  const itemId = new Map([...isParam].map(([id, flags]) => [id, [...flags]]));
  for (let changed = true; changed;) {
    changed = false;
    for (let i = 1; i < maxLen - 1; i++) {
      const groups = new Map<string, Rec[]>();
      for (const r of recs) {
        const n = r.shape.segments.length;
        if (i >= n - 1) continue;
        const flags = isParam.get(r.id)!;
        const others = r.shape.segments.map((s, j) => (j === i ? null : flags[j] ? '\u0000' : s));
        const key = JSON.stringify([r.shape.suffix, others]);
        const g = groups.get(key);
        if (g) g.push(r); else groups.set(key, [r]);
      }
      for (const g of groups.values()) {
        const collectionLike = g.some((r) => itemId.get(r.id)![i + 1]);
        const staticLater = g.every((r) => isParam.get(r.id)!.slice(i + 1, -1).some((p) => !p));
        if (collectionLike || !staticLater) continue;
        if (new Set(g.map((r) => r.shape.segments[i])).size < 2) continue;
        for (const r of g) {
          if (isParam.get(r.id)![i] || isVersionSegment(r.shape.segments[i]) || recorded.has(r.shape.segments.slice(0, i + 1).join('/'))) continue;
          isParam.get(r.id)![i] = true;
          changed = true;
        }
      }
    }
  }
  // (d) consistency across sibling paths: under the same templated prefix, a value that is a
  // parameter in one path is one in every path (`/repos/octocat/hello-world/pulls` beside
  // `/repos/{id}/{id2}/issues/{number}`), and so is a value the record's own response
  // repeats in an identity-name member (`/api/folders/general` beside `/api/folders/{uid}`).
  for (let i = 1; i < maxLen; i++) {
    const paramValues = new Map<string, Set<string>>();
    const prefixKey = (r: Rec) => JSON.stringify([r.shape.suffix && i === r.shape.segments.length - 1 ? r.shape.suffix : '', r.shape.segments.slice(0, i).map((s, j) => (isParam.get(r.id)![j] ? '\u0000' : s))]);
    for (const r of recs) {
      if (i >= r.shape.segments.length || !isParam.get(r.id)![i]) continue;
      const key = prefixKey(r);
      const set = paramValues.get(key) ?? new Set<string>();
      set.add(r.shape.segments[i]);
      paramValues.set(key, set);
    }
    for (const r of recs) {
      if (i >= r.shape.segments.length || isParam.get(r.id)![i] || isVersionSegment(r.shape.segments[i])) continue;
      const seen = paramValues.get(prefixKey(r));
      if (!seen) continue;
      const seg = r.shape.segments[i];
      if (seen.has(seg) || (await own.namesFor(r.responseBodyId, seg)).some((k) => vocabulary.isIdentityName(k))) isParam.get(r.id)![i] = true;
    }
  }
  // (e) issue 18: a weak id shape whose value is a parameter in another path of the capture is
  // one here too (Grafana's page `/d/abc123XYZ/service-overview` beside
  // `/api/dashboards/uid/{uid}`, `/api/v0/items/it-01/notes` beside `/api/items/{id}`).
  const paramValues = new Set<string>();
  for (const r of recs) r.shape.segments.forEach((s, i) => { if (isParam.get(r.id)![i]) paramValues.add(s); });
  for (const r of recs) {
    const flags = isParam.get(r.id)!;
    r.shape.segments.forEach((s, i) => { if (!flags[i] && looksLikeId(s) && paramValues.has(s)) flags[i] = true; });
  }
  return isParam;
}

/** Names each parameter from the members it matched (OQ-1 naming), else id, id2, … */
async function nameParams(recs: Rec[], isParam: Map<number, boolean[]>, lists: ListIndex, own: OwnMembers, vocabulary: Vocabulary): Promise<Map<number, TemplateShape>> {
  const rank = vocabulary.identityRank;
  // Records with the same static skeleton share parameter names, across methods.
  const groups = new Map<string, Rec[]>();
  // OQ-1: a trailing slash is remembered for rendering but ignored for shape.
  const skeleton = (r: Rec) => JSON.stringify([r.shape.suffix, r.shape.segments.map((s, i) => (isParam.get(r.id)![i] ? null : s))]);
  for (const r of recs) {
    const key = skeleton(r);
    const g = groups.get(key);
    if (g) g.push(r); else groups.set(key, [r]);
  }
  const decided: { g: Rec[]; names: (string | null)[] }[] = [];
  for (const g of groups.values()) {
    const first = g[0];
    const flags = isParam.get(first.id)!;
    const names: (string | null)[] = [];
    for (let i = 0; i < flags.length; i++) {
      if (!flags[i]) { names.push(null); continue; }
      const votes = new Map<string, { n: number; order: number }>();
      let order = 0;
      for (const r of g.slice(0, NAMING_SAMPLE)) {
        const seg = r.shape.segments[i];
        const listed = await lists.namesFor(r.shape.segments.slice(0, i), seg);
        const candidates = listed.length > 0 ? listed : await own.namesFor(r.responseBodyId, seg);
        const best = pickName(candidates, r.shape.segments[i - 1], vocabulary);
        if (best) {
          const v = votes.get(best) ?? { n: 0, order: order++ };
          v.n++;
          votes.set(best, v);
        }
      }
      const ranked = [...votes].sort((a, b) => b[1].n - a[1].n || rank(a[0]) - rank(b[0]) || a[1].order - b[1].order);
      names.push(ranked.length ? sanitizeParamName(ranked[0][0]) : '');
    }
    decided.push({ g, names });
  }
  unifySiblingNames(decided, isParam, rank);
  const out = new Map<number, TemplateShape>();
  for (const { g, names } of decided) {
    const first = g[0];
    // Unnamed → id, id2, …; duplicates get a number too.
    const used = new Set<string>();
    const unique = (base: string) => {
      if (!used.has(base)) { used.add(base); return base; }
      for (let n = 2; ; n++) if (!used.has(`${base}${n}`)) { used.add(`${base}${n}`); return `${base}${n}`; }
    };
    for (const n of names) if (n) unique(n);
    used.clear();
    const finalNames = names.map((n) => (n === null ? null : unique(n || 'id')));
    for (const r of g) {
      out.set(r.id, {
        parts: r.shape.segments.map((s, i) => (finalNames[i] !== null ? { kind: 'param' as const, name: finalNames[i]! } : { kind: 'static' as const, text: s })),
        trailingSlash: first.shape.trailingSlash,
        suffix: r.shape.suffix,
      });
    }
  }
  return out;
}

/**
 * Issue 18 (OQ-1 naming): sibling templates — the same static segments and parameter places
 * up to a position — use one parameter name there (`/api/items/{uid}` beside
 * `/api/items/{uid}/history`, not `{id}` in one and `{uid}` in the other). The name is a
 * member-found one: identity names first (OQ-9 order), then the one most records voted for,
 * then the alphabetically first; unnamed parameters take it too.
 */
function unifySiblingNames(decided: { g: Rec[]; names: (string | null)[] }[], isParam: Map<number, boolean[]>, rank: (name: string) => number): void {
  const maxLen = Math.max(0, ...decided.map((d) => d.names.length));
  for (let i = 0; i < maxLen; i++) {
    const clusters = new Map<string, typeof decided>();
    for (const d of decided) {
      if (i >= d.names.length || d.names[i] === null) continue;
      const flags = isParam.get(d.g[0].id)!;
      const key = JSON.stringify(d.g[0].shape.segments.slice(0, i + 1).map((s, j) => (flags[j] ? '\u0000' : s)));
      const c = clusters.get(key);
      if (c) c.push(d); else clusters.set(key, [d]);
    }
    for (const c of clusters.values()) {
      if (c.length < 2) continue;
      const votes = new Map<string, number>();
      for (const d of c) if (d.names[i]) votes.set(d.names[i]!, (votes.get(d.names[i]!) ?? 0) + d.g.length);
      if (votes.size === 0) continue;
      const chosen = [...votes].sort((a, b) => rank(a[0]) - rank(b[0]) || b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))[0][0];
      // A name the template already uses at another position stays where it is.
      for (const d of c) if (!d.names.some((n, j) => j !== i && n === chosen)) d.names[i] = chosen;
    }
  }
}

/**
 * Identity names first (OQ-9 priority), then a suffix name that names the segment before the
 * value (`teamId` after `/teams`, where `orgId` and `userId` repeat the same 1), then the
 * first candidate in key order.
 */
function pickName(candidates: string[], before: string | undefined, vocabulary: Vocabulary): string | null {
  if (candidates.length === 0) return null;
  const stem = (before ?? '').toLowerCase().replace(/(ies)$/, 'y').replace(/s$/, '');
  const names = (c: string) => stem !== '' && (c.toLowerCase() === `${stem}id` || c.toLowerCase() === `${stem}_id`);
  const others = vocabulary.identityNames.length;
  const score = (c: string) => (vocabulary.isIdentityName(c) ? vocabulary.identityRank(c) : names(c) ? others : others + 1);
  return [...candidates].sort((a, b) => score(a) - score(b))[0];
}

function sanitizeParamName(name: string): string {
  const s = name.replace(/[^A-Za-z0-9_]/g, '_').replace(/^(\d)/, '_$1');
  return s || 'id';
}

/** `silence` → `silences`, `policy` → `policies`, `box` → `boxes`. */
function pluralsOf(segment: string): string[] {
  return [`${segment}s`, `${segment}es`, ...(/[^aeiou]y$/i.test(segment) ? [`${segment.slice(0, -1)}ies`] : [])];
}

/**
 * Issue 18 (ES-7): a singular item root beside a plural list root is one type with it
 * (Alertmanager's `/api/v2/silence/{id}` beside `/api/v2/silences`): every tool of the
 * singular root is an item template right under it, a GET of the plural path is recorded,
 * and every successful item read names a value that plural list lists. ES-37 still checks
 * the merged type's plans against every read.
 */
async function mergeSingularRoots(tools: InferredTool[], byId: Map<number, Rec>, lists: ListIndex, notes: string[]): Promise<void> {
  const byRoot = new Map<string, InferredTool[]>();
  for (const t of tools) byRoot.set(t.rootPath, [...(byRoot.get(t.rootPath) ?? []), t]);
  for (const [root, group] of byRoot) {
    const segs = root.split('/').filter((x) => x !== '');
    if (segs.length === 0) continue;
    const singular = segs[segs.length - 1];
    const plural = pluralsOf(singular).map((p) => `/${[...segs.slice(0, -1), p].join('/')}`)
      .find((p) => byRoot.get(p)?.some((t) => t.method === 'GET' && parsePath(t.template).segments.join('/') === p.slice(1)));
    if (!plural) continue;
    if (!group.every((t) => { const parts = parseTemplate(t.template).parts; return parts.length === segs.length + 1 && parts[segs.length].kind === 'param' && t.template.startsWith(`${root}/`); })) continue;
    const values = group.filter((t) => t.method === 'GET').flatMap((t) => t.records)
      .filter((r) => { const s = byId.get(r.id)!.status; return s >= 200 && s <= 299; }).map((r) => r.params[r.params.length - 1].value);
    if (values.length === 0) continue;
    const wanted = new Set(values);
    const listed = await lists.listedValues(plural.slice(1).split('/'), wanted);
    if ([...wanted].some((v) => !listed.has(v))) continue;
    for (const t of group) t.rootPath = plural;
    notes.push(`type root ${root} is one type with ${plural}: its item reads name entities that ${plural} lists (issue 18)`);
  }
}

/**
 * Issue 18 (ES-7): a nested collection (`/posts/{id}/comments`, one parent parameter between
 * two static segments under the API base and its version segment, if any) beside a recorded JSON GET of the flat list
 * (`/comments`) lists that type's entities under a parent: its tools (the GET listing one
 * parent's members, the POST creating one) take the flat list's root, so their reads are
 * the type's reads and their writes bound it (ES-8). With no flat list recorded, a nested GET
 * answered for two parents or more (Redmine's `/projects/{id}/memberships.json`) takes that
 * root too, a type of its own. The state pass learns which field carries the parent (ES-37
 * checks it against every nested read; decisions: "nested collections").
 */
function mergeNestedRoots(tools: InferredTool[], byId: Map<number, Rec>, apiBase: string, notes: string[]): void {
  const base = apiBase === '/' ? [] : apiBase.slice(1).split('/');
  const text = (p: TemplateShape['parts'][number]) => (p.kind === 'static' ? p.text : null);
  // Where a template's type segments start: after the API base and a version segment (ES-7's root), or null off the base.
  const start = (parts: TemplateShape['parts']): number | null => {
    if (parts.length <= base.length || !base.every((b, i) => text(parts[i]) === b)) return null;
    const v = text(parts[base.length]);
    return v !== null && isVersionSegment(v) && base.length + 1 < parts.length ? base.length + 1 : base.length;
  };
  const flatLists = new Set<string>();
  for (const t of tools) {
    const parts = parseTemplate(t.template).parts;
    const i = start(parts);
    if (t.method !== 'GET' || t.endsInParam || i === null || parts.length !== i + 1) continue;
    if (t.records.some((r) => byId.get(r.id)!.isJson)) flatLists.add(t.rootPath);
  }
  // Without a flat list, a nested template lists a collection of its own when its GET answered
  // JSON for two parents or more (`/projects/{id}/memberships.json` per project); read for one
  // parent it keeps ES-7's root (`/api/v1/items/it-01/tags` → `/api/v1/items`).
  const parentsRead = new Map<string, Set<string>>();
  for (const t of tools) {
    if (t.method !== 'GET') continue;
    for (const r of t.records) {
      if (!byId.get(r.id)!.isJson || r.params.length !== 1) continue;
      (parentsRead.get(t.template) ?? parentsRead.set(t.template, new Set()).get(t.template)!).add(r.params[0].value);
    }
  }
  const nestedLists = new Set([...parentsRead].filter(([, values]) => values.size >= 2).map(([template]) => template));
  const moved = new Map<string, { flat: string; own: boolean }>();
  for (const t of tools) {
    const parts = parseTemplate(t.template).parts;
    const i = start(parts);
    if (i === null || parts.length !== i + 3) continue;
    const [parent, param, child] = parts.slice(i);
    if (parent.kind !== 'static' || param.kind !== 'param' || child.kind !== 'static') continue;
    const flat = '/' + [...parts.slice(0, i).map((p) => text(p)!), child.text].join('/');
    if (flat === t.rootPath) continue;
    const own = !flatLists.has(flat);
    if (own && !nestedLists.has(t.template)) continue;
    t.rootPath = flat;
    moved.set(renderTemplate({ parts, trailingSlash: false, suffix: '' }), { flat, own });
  }
  for (const [nested, { flat, own }] of moved) {
    notes.push(own
      ? `${nested} lists ${flat} under a parent: a type of its own, no flat list recorded (issue 18)`
      : `${nested} lists ${flat} under a parent: one type with ${flat} (issue 18)`);
  }
}

/** OQ-5: the longest common segment prefix of the JSON-answering templates, capped. */
export function inferApiBase(templates: TemplateShape[]): string {
  if (templates.length === 0) return '/';
  const segs = templates.map((t) => t.parts);
  let n = Math.min(...segs.map((s) => s.length - 1)); // every path keeps one segment after the base
  for (let i = 0; i < n; i++) {
    const p = segs[0][i];
    if (p.kind !== 'static' || !segs.every((s) => s[i].kind === 'static' && (s[i] as { text: string }).text === p.text)) { n = i; break; }
  }
  const base = segs[0].slice(0, Math.max(0, n)).map((p) => (p as { text: string }).text);
  if (base.length > 0 && isVersionSegment(base[base.length - 1])) base.pop(); // the version is not part of the base
  return '/' + base.join('/');
}

/** ES-7: API base + version segment (when present) + one segment. */
export function rootPath(t: TemplateShape, apiBase: string): string {
  const base = apiBase === '/' ? [] : apiBase.slice(1).split('/');
  const parts = t.parts.map((p) => (p.kind === 'static' ? p.text : `{${p.name}}`));
  const under = base.every((b, i) => parts[i] === b);
  let i = under ? base.length : 0;
  const out = parts.slice(0, i);
  if (i < parts.length && isVersionSegment(parts[i]) && i + 1 < parts.length) out.push(parts[i++]);
  // A root names a type: it never ends in a parameter (`/repos/{owner}/…` has the root `/repos`).
  if (i < parts.length && t.parts[i].kind === 'static') out.push(parts[i]);
  if (out.length === 0 && t.parts[0]?.kind === 'static') out.push(parts[0]);
  // A format suffix belongs to the representation, not the type: /issues.json and
  // /issues/{id}.json share the root /issues.
  return '/' + out.join('/');
}

/**
 * OQ-7: a POST tool is a query by its last static segment (a query name or ending), or
 * GraphQL without mutations. Issue 18: RPC-style reads sent as POST are queries too — a last
 * static segment that is a method name starting with a read verb at a word boundary
 * (`getCurrentUser`, `GetNavigationMenu2`, `list_users`), or a static segment naming an area
 * of reads (`/queries/`, `/$rpc/`). The words are the vocabulary's `query_*` rows.
 */
async function isQueryPost(k: Kysely<DB>, t: InferredTool, byId: Map<number, Rec>, vocabulary: Vocabulary): Promise<boolean> {
  const shape = parseTemplate(t.template);
  const statics = shape.parts.filter((p) => p.kind === 'static').map((p) => (p as { text: string }).text);
  const last = statics[statics.length - 1] ?? '';
  const words = vocabulary.queryWords;
  const lower = last.toLowerCase();
  if (statics.some((s) => words.areas.has(s.toLowerCase()))) return true;
  // gRPC-style `package.Service.Method`: the method is the part after the last dot.
  const method = last.slice(last.lastIndexOf('.') + 1);
  if (words.methodPrefixes.some((p) => method.length > p.length && method.toLowerCase().startsWith(p) && /^[A-Z0-9_-]/.test(method.slice(p.length)))) return true;
  if (!words.segments.has(lower) && !words.suffixes.some((s) => lower.endsWith(s))) return false;
  if (last.toLowerCase() !== 'graphql') return true;
  // GraphQL: a query POST only when every recorded document provably runs queries only.
  const bodies: unknown[] = [];
  for (const chunk of chunks(t.records.map((r) => byId.get(r.id)!.requestBodyId))) {
    const rows = await k.selectFrom('body').select(['kind', 'content', 'coding']).where('id', 'in', chunk).execute();
    for (const b of rows) {
      const content = storedContent(b.content, b.coding);
      if (b.kind === 'json') {
        const parsed = parseExactJson(String(content));
        bodies.push(parsed.ok ? parsed.value : null);
      } else bodies.push(b.kind === 'text' ? String(content) : null);
    }
  }
  return isGraphqlQueryOnly(bodies);
}

/** OQ-1 tool names: `<method>_<static segments and by_<param>>`, unique, at most 64 characters. */
function assignNames(tools: InferredTool[]): void {
  const full = tools.map((t) => {
    const shape = parseTemplate(t.template);
    const words = shape.parts.map((p) => (p.kind === 'static' ? p.text : `by_${p.name}`));
    if (shape.suffix) words.push(shape.suffix.slice(1));
    const joined = [t.method.toLowerCase(), ...(words.length ? words : ['root'])].join('_')
      .toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/_+/g, '_').replace(/^_|_$/g, '');
    return joined.split('_')
      // `by_<param>` is one token: a cut never leaves a bare `by`.
      .reduce<string[]>((acc, w) => { if (acc.length > 0 && acc[acc.length - 1] === 'by') acc[acc.length - 1] = `by_${w}`; else acc.push(w); return acc; }, []);
  });
  const names = full.map((tokens) => cutAtToken(tokens));
  // Issue 18: names that collide only because the cut dropped where they differ keep the
  // first token that tells them apart (and what follows it, as far as it fits) instead of `_2`.
  const byName = new Map<string, number[]>();
  names.forEach((n, i) => byName.set(n, [...(byName.get(n) ?? []), i]));
  for (const group of byName.values()) {
    if (group.length < 2) continue;
    for (const i of group) {
      const others = group.filter((j) => full[j].join('_') !== full[i].join('_'));
      if (others.length === 0) continue;
      // Where this name first parts from another one (its last token at the latest): the tail kept.
      const parts = (j: number) => { let d = 0; while (d < full[i].length && d < full[j].length && full[i][d] === full[j][d]) d++; return d; };
      const d = Math.min(full[i].length - 1, ...others.map(parts));
      const tail = full[i].slice(d);
      // As much of the head as leaves room for the whole tail; a tail too long keeps its start.
      let h = d;
      while (h > 1 && [...full[i].slice(0, h), ...tail].join('_').length > 64) h--;
      names[i] = cutAtToken([...full[i].slice(0, h), ...tail]);
    }
  }
  const used = new Set<string>();
  tools.forEach((t, i) => {
    const base = names[i];
    let name = base;
    for (let n = 2; used.has(name); n++) {
      const suffix = `_${n}`;
      name = cutAtToken(base.split('_'), 64 - suffix.length) + suffix;
    }
    used.add(name);
    t.name = name;
  });
}

/** Issue 18: the longest run of whole tokens within `max` characters (a lone longer token is cut). */
function cutAtToken(tokens: string[], max = 64): string {
  let out = '';
  for (const w of tokens) {
    const next = out ? `${out}_${w}` : w;
    if (next.length > max) break;
    out = next;
  }
  return out || tokens.join('_').slice(0, max).replace(/_+$/, '');
}
