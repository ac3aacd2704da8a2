/**
 * The environment manifest (OQ-1, OQ-2, OQ-5, OQ-7): the single owner of grouping records
 * into tools. Deterministic: the same facts and override give the same tools. The loader
 * stores the result as facts (`manifest`, `tool`, `path_param`, `record.tool_id`); every
 * reader joins on those and never regroups records.
 */
import type { Kysely } from 'kysely';
import { CapstateError } from '../errors.js';
import type { DB } from '../store/types.js';
import { readVocabulary } from '../store/vocabulary.js';
import { admittedOrigins, chooseSubject, isStaticAsset } from './subject.js';
import { parseTemplate, renderTemplate, type TemplateShape } from './paths.js';
import type { InferredManifest, InferredTool } from './inferred.js';
import { matchOverrideRules, type ManifestOverride } from './overrides.js';
import { recordsOf, type Rec } from './records.js';
import { ListIndex, OwnMembers } from './lookups.js';
import { decideParams, nameParams } from './parameters.js';
import { inferApiBase, mergeNestedRoots, mergeSingularRoots, rootPath } from './roots.js';
import { isQueryPost } from './query-posts.js';
import { assignNames } from './tool-names.js';

// The manifest's API, as before the split: the loader and the CLI import it from here.
export type { InferredManifest, InferredTool } from './inferred.js';
export { canonicalOverride, parseOverride, type ManifestOverride } from './overrides.js';
export { inferApiBase, rootPath } from './roots.js';

/** Computes the manifest of one loaded capture from its facts. Throws CapstateError on rejection. */
export async function inferManifest(
  k: Kysely<DB>,
  captureId: number,
  file: string,
  override: ManifestOverride = {},
): Promise<InferredManifest> {
  const capture = await k.selectFrom('capture').selectAll().where('id', '=', captureId).executeTakeFirstOrThrow();
  const recs = await recordsOf(k, captureId);

  // ES-2 / OQ-2 format: a scenario capture is admissible only when it selected response bodies.
  if (capture.format === 'scenario-evidence' && capture.response_bodies_selected !== 1) {
    throw new CapstateError(
      'response-bodies-not-selected',
      'this scenario capture did not select response bodies (scenario.network_content.response_body), so no state can be inferred from it; record it again with "capture": {"network": {"response_body": true}}',
      { file, path: 'scenario.network_content.response_body' },
    );
  }

  // OQ-2 (revised) subject: the origin of the page's final document (redirects followed),
  // or of the scenario's start URL; else the most frequent origin of JSON answers. Failed
  // records and source maps are never evidence (subject.ts).
  let startUrl: string | null = null;
  let firstPageId: string | null = null;
  if (capture.format === 'scenario-evidence') startUrl = capture.start_url;
  else {
    const page = await k
      .selectFrom('page')
      .select(['title', 'page_id'])
      .where('capture_id', '=', captureId)
      .orderBy('position')
      .executeTakeFirst();
    startUrl = page?.title && /^https?:\/\//i.test(page.title) ? page.title : null;
    firstPageId = page?.page_id ?? null;
  }
  const choice = chooseSubject(recs, {
    startUrl,
    startSource: capture.format === 'scenario-evidence' ? 'start-url' : 'page',
    firstPageId,
    overrideOrigin: override.subject_origin,
  });
  const subjectOrigin = choice.subjectOrigin;
  const subjectSource = choice.subjectSource;
  if (recs.length === 0) {
    throw new CapstateError(
      'no-subject-records',
      "the capture holds no request that got a response, so there is nothing to admit; record the app's traffic (for a scenario: select network events)",
      { file },
    );
  }
  // Same-site origins that answer JSON, and those the override names, are admitted too.
  const withSubject = subjectOrigin === null ? [] : admittedOrigins(recs, subjectOrigin, override.admit_origins);
  const admittedSet = new Set([subjectOrigin, ...withSubject]);
  const onAdmitted = recs.filter((r) => admittedSet.has(r.origin));
  if (onAdmitted.length === 0) {
    const hint = override.subject_origin
      ? 'check subject_origin in the --manifest override'
      : 'capture traffic of the app itself, or name it with "subject_origin" in a --manifest override';
    throw new CapstateError('no-subject-records', `no record is on the capture's subject origin ${subjectOrigin ?? '(none)'}; ${hint}`, {
      file,
    });
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
    notes.push(
      `${n} record${n === 1 ? '' : 's'} of other origins not admitted: ${[...others]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .map(([o, c]) => `${o} ${c}`)
        .join(', ')}`,
    );
  }
  if (assets.length > 0) {
    notes.push(
      `${assets.length} static-asset record${assets.length === 1 ? '' : 's'} (scripts, stylesheets, images, fonts, media, source maps) kept as facts, not in the catalog: ${assets
        .slice(0, 12)
        .map((r) => `#${r.ordinal}`)
        .join(', ')}${assets.length > 12 ? ', …' : ''}`,
    );
  }

  const lists = new ListIndex(k, admitted);
  const own = new OwnMembers(k);

  // Override rules first (they take precedence), then inference for the rest.
  const byOverride = matchOverrideRules(admitted, override, notes);
  const inferred = admitted.filter((r) => !byOverride.has(r.id));
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
  const tools = [...toolMap.values()].sort((a, b) =>
    a.template < b.template ? -1 : a.template > b.template ? 1 : a.method.localeCompare(b.method),
  );

  // OQ-5 type roots.
  const byId = new Map(admitted.map((r) => [r.id, r]));
  const jsonTemplates = tools.filter((t) => t.records.some((tr) => byId.get(tr.id)!.isJson)).map((t) => parseTemplate(t.template));
  const apiBase = override.api_base ?? inferApiBase(jsonTemplates.length > 0 ? jsonTemplates : tools.map((t) => parseTemplate(t.template)));
  for (const t of tools) t.rootPath = rootPath(parseTemplate(t.template), apiBase);
  if (!override.api_base) await mergeSingularRoots(tools, byId, lists, notes);
  if (!override.api_base) mergeNestedRoots(tools, byId, apiBase, notes);
  if (
    override.api_base &&
    override.api_base !== '/' &&
    !tools.some((t) => t.template === override.api_base || t.template.startsWith(`${override.api_base}/`))
  ) {
    notes.push(`override api_base ${override.api_base} is a prefix of no admitted path; type roots fall back to first segments`);
  }

  // OQ-7 query POSTs, per tool.
  for (const t of tools) t.isQueryPost = t.method === 'POST' && (await isQueryPost(k, t, byId, vocabulary));

  assignNames(tools);
  return {
    subjectOrigin: subjectOrigin!,
    subjectSource,
    apiBase,
    apiBaseSource: override.api_base ? 'override' : 'inferred',
    notes,
    tools,
  };
}
