/**
 * Type roots (OQ-5, ES-7): the API base, each template's root (base + version + one segment),
 * and issue 18's merges: a singular item root with its plural list root, a nested collection
 * with its flat list root (or a type of its own). ES-8's bounds and ES-37's checks read these roots.
 */
import { isVersionSegment, parsePath, parseTemplate, renderTemplate, type TemplateShape } from './paths.js';
import type { InferredTool } from './inferred.js';
import type { ListIndex } from './lookups.js';
import type { Rec } from './records.js';

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
export async function mergeSingularRoots(tools: InferredTool[], byId: Map<number, Rec>, lists: ListIndex, notes: string[]): Promise<void> {
  const byRoot = new Map<string, InferredTool[]>();
  for (const t of tools) byRoot.set(t.rootPath, [...(byRoot.get(t.rootPath) ?? []), t]);
  for (const [root, group] of byRoot) {
    const segs = root.split('/').filter((x) => x !== '');
    if (segs.length === 0) continue;
    const singular = segs[segs.length - 1];
    const plural = pluralsOf(singular)
      .map((p) => `/${[...segs.slice(0, -1), p].join('/')}`)
      .find((p) => byRoot.get(p)?.some((t) => t.method === 'GET' && parsePath(t.template).segments.join('/') === p.slice(1)));
    if (!plural) continue;
    if (
      !group.every((t) => {
        const parts = parseTemplate(t.template).parts;
        return parts.length === segs.length + 1 && parts[segs.length].kind === 'param' && t.template.startsWith(`${root}/`);
      })
    )
      continue;
    const values = group
      .filter((t) => t.method === 'GET')
      .flatMap((t) => t.records)
      .filter((r) => {
        const s = byId.get(r.id)!.status;
        return s >= 200 && s <= 299;
      })
      .map((r) => r.params[r.params.length - 1].value);
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
export function mergeNestedRoots(tools: InferredTool[], byId: Map<number, Rec>, apiBase: string, notes: string[]): void {
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
    notes.push(
      own
        ? `${nested} lists ${flat} under a parent: a type of its own, no flat list recorded (issue 18)`
        : `${nested} lists ${flat} under a parent: one type with ${flat} (issue 18)`,
    );
  }
}

/** OQ-5: the longest common segment prefix of the JSON-answering templates, capped. */
export function inferApiBase(templates: TemplateShape[]): string {
  if (templates.length === 0) return '/';
  const segs = templates.map((t) => t.parts);
  let n = Math.min(...segs.map((s) => s.length - 1)); // every path keeps one segment after the base
  for (let i = 0; i < n; i++) {
    const p = segs[0][i];
    if (p.kind !== 'static' || !segs.every((s) => s[i].kind === 'static' && (s[i] as { text: string }).text === p.text)) {
      n = i;
      break;
    }
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
