/**
 * Projected rows and representation variants (ES-12 to ES-14, ES-17 to ES-19, OQ-13 to
 * OQ-16): which records leave a view's checks and entity observations, and the
 * `projected_record_ordinals` / `projected_query_keys` each view lists.
 *
 * These rules compare member sets across request lines; they run in the state pass over
 * the views' facts (decisions: a SQL view for them is still to come).
 */
import { lineKey, type ReadLine, type StateFacts } from './facts.js';
import { keysOf, member } from './json.js';

export interface QueryKey { name: string; value?: string; omitted?: true }

export interface ViewShaping {
  projected_record_ordinals: number[];
  projected_query_keys: QueryKey[];
  /** OQ-17: projection values the checked rows and the replayed (projected, variant) rows gave. */
  projection_values: { checked: string[]; replayed: string[] };
}

export interface Shaping {
  /** Records that leave checks and observations (ES-12, ES-13, ES-19). */
  excluded: Set<number>;
  byTool: Map<string, ViewShaping>;
}

/**
 * ES-20: whether a request's query pairs name one of a view's distinguishing keys (a name
 * only variants give, a value the base rows never give, or a name the base rows all give
 * and the request omits). Serving replays such a call; the gate does not count it.
 */
export function namesVariantKey(keys: readonly QueryKey[], pairs: readonly { name: string; value: string }[]): boolean {
  const names = new Map(pairs.map((p) => [p.name, p.value]));
  return keys.some((key) => (key.omitted ? !names.has(key.name) : key.value === undefined ? names.has(key.name) : names.get(key.name) === key.value));
}


interface Line {
  key: string;
  reads: ReadLine[];
  latest: ReadLine;
  pairs: [string, string][];
  /** Member set of the objects the latest record shows (union), and those every object carries. */
  members: Set<string>;
  common: Set<string>;
  objects: number;
  ids: Map<string, Set<string>>;
}

const setEq = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x));
/** The members every one of these lines' objects carries (none for no lines). */
const commonTo = (lines: Line[]) => (lines.length ? lines.map((l) => l.common).reduce((a, b) => new Set([...a].filter((k) => b.has(k)))) : new Set<string>());

export function classifyRows(facts: Omit<StateFacts, 'order'>): Shaping {
  const excluded = new Set<number>();
  const byTool = new Map<string, ViewShaping>();
  const identity = new Map(facts.identities.map((t) => [t.root_path, t.identity_field]));
  const tools = new Map(facts.tools.map((t) => [t.name, t]));
  // OQ-13's parameter roles, from the store's vocabulary table.
  const { isProjection, isPagination, isShaping } = facts.vocabulary;

  const byToolReads = new Map<string, ReadLine[]>();
  for (const r of facts.reads) {
    if (r.method.toUpperCase() !== 'GET' || r.status < 200 || r.status > 299) continue;
    const list = byToolReads.get(r.tool) ?? [];
    list.push(r);
    byToolReads.set(r.tool, list);
  }

  for (const [toolName, reads] of byToolReads) {
    const tool = tools.get(toolName)!;
    const isItem = tool.ends_in_param === 1;
    const idField = identity.get(tool.root_path);
    const objectsOf = (r: ReadLine) => facts.objectsShown(r, isItem);
    const lineOf = (rs: ReadLine[]): Line => {
      const latest = rs[rs.length - 1];
      const objs = objectsOf(latest);
      const members = new Set<string>();
      let common = null as Set<string> | null;
      const ids = new Map<string, Set<string>>();
      for (const o of objs) {
        const ks = new Set(keysOf(o));
        ks.forEach((k) => members.add(k));
        const prev: Set<string> | null = common;
        common = prev === null ? ks : new Set([...prev].filter((k) => ks.has(k)));
        const idv = idField === undefined ? undefined : member(o, idField);
        if (typeof idv === 'string' || typeof idv === 'number' || typeof idv === 'bigint') ids.set(String(idv), ks);
      }
      return { key: lineKey(latest), reads: rs, latest, pairs: latest.query_pairs, members, common: common ?? new Set(), objects: objs.length, ids };
    };
    const group = (rs: ReadLine[]) => {
      const m = new Map<string, ReadLine[]>();
      for (const r of rs) { const k = lineKey(r); const l = m.get(k) ?? []; l.push(r); m.set(k, l); }
      return [...m.values()].map(lineOf);
    };
    const initialLines = group(reads.filter((r) => r.is_initial));
    const shaping: ViewShaping = { projected_record_ordinals: [], projected_query_keys: [], projection_values: { checked: [], replayed: [] } };
    const projected = new Set<Line>();
    const projectionValue = (l: Line) => l.pairs.filter(([k]) => isProjection(k)).map(([, v]) => v);
    const partial = (l: Line) => projectionValue(l).some((v) => v !== '*');

    // ES-12: a projected item read that does not return the item (no located entity).
    // ES-13: a projected list row, unless its objects carry every member shown elsewhere.
    const others = (l: Line) => initialLines.filter((x) => x !== l && !partial(x));
    for (const l of initialLines) {
      if (!partial(l)) continue;
      if (isItem) { if (l.objects === 0) projected.add(l); continue; }
      const elsewhere = new Set(others(l).flatMap((x) => [...x.members]));
      if (elsewhere.size === 0 || [...elsewhere].some((k) => !l.common.has(k))) projected.add(l);
    }

    // ES-17/18/19: variants among the remaining rows.
    const rest = initialLines.filter((l) => !projected.has(l));
    const shapingNames = (l: Line) => new Set(l.pairs.map(([k]) => k).filter(isShaping));
    let base = rest.filter((l) => shapingNames(l).size === 0);
    if (base.length === 0) base = rest.filter((l) => projectionValue(l).length > 0 && projectionValue(l).every((v) => v === '*'));
    if (base.length === 0 && rest.length > 0) {
      // OQ-15: the rows whose member set is shared by the most rows; ties: earliest.
      const score = (l: Line) => rest.filter((x) => setEq(x.members, l.members)).length;
      const best = Math.max(...rest.map(score));
      const first = rest.filter((l) => score(l) === best).sort((a, b) => a.latest.timeline_position - b.latest.timeline_position)[0];
      base = rest.filter((l) => setEq(l.members, first.members));
    }
    const baseMembers = new Set(base.flatMap((l) => [...l.members]));
    const baseCommon = commonTo(base);
    const baseNames = new Set(base.flatMap((l) => l.pairs.map(([k]) => k)));
    const baseValues = new Map<string, Set<string>>();
    for (const l of base) for (const [k, v] of l.pairs) { const s = baseValues.get(k) ?? new Set<string>(); s.add(v); baseValues.set(k, s); }
    const allBaseName = (k: string) => base.length > 0 && base.every((l) => l.pairs.some(([n]) => n === k));
    const keys = new Map<string, QueryKey>();
    for (const l of rest) {
      if (base.includes(l) || l.objects === 0) continue;
      const showsOther = [...l.ids].some(([id, ks]) => rest.some((x) => x !== l && x.ids.has(id) && !setEq(x.ids.get(id)!, ks)));
      const namesNew = l.pairs.some(([k]) => !isPagination(k) && !baseNames.has(k));
      const differs = [...l.members].some((k) => !baseMembers.has(k)) || [...baseCommon].some((k) => !l.common.has(k));
      if (!((showsOther || namesNew) && differs)) continue;
      // ES-19: the query keys that tell this variant apart from the base rows.
      const own: QueryKey[] = [];
      const variantOnly = (k: string) => !baseNames.has(k);
      for (const [k, v] of l.pairs) {
        if (isPagination(k)) continue;
        if (variantOnly(k)) own.push({ name: k });
        else if (!baseValues.get(k)?.has(v)) own.push({ name: k, value: v });
      }
      for (const k of baseNames) if (allBaseName(k) && !isPagination(k) && !l.pairs.some(([n]) => n === k)) own.push({ name: k, omitted: true });
      if (own.length === 0) continue; // indistinguishable: stays an ordinary row (ES-19 Reading)
      projected.add(l);
      for (const q of own) keys.set(JSON.stringify([q.name, q.value ?? null, q.omitted ?? false]), q);
    }

    for (const l of projected) {
      for (const r of l.reads) excluded.add(r.record_id);
      shaping.projected_record_ordinals.push(l.latest.ordinal);
    }
    // ES-14: item rows first recorded after the initial read that name a shaping parameter no
    // other row names and show other members, or select fields and omit members always shown.
    if (isItem) {
      const initialKeys = new Set(initialLines.map((l) => l.key));
      const lateLines = group(reads.filter((r) => !r.is_initial)).filter((l) => !initialKeys.has(l.key));
      const checked = initialLines.filter((l) => !projected.has(l));
      const names = new Set(checked.flatMap((l) => l.pairs.map(([k]) => k)));
      const always = commonTo(checked);
      const shown = new Set(checked.flatMap((l) => [...l.members]));
      for (const l of lateLines) {
        if (l.objects === 0) continue; // a row that shows no entity shows no members
        const newShaping = l.pairs.some(([k]) => isShaping(k) && !isProjection(k) && !names.has(k))
          && ([...l.members].some((k) => !shown.has(k)) || [...always].some((k) => !l.common.has(k)));
        const selects = partial(l) && [...always].some((k) => !l.common.has(k));
        if (newShaping || selects) shaping.projected_record_ordinals.push(l.latest.ordinal);
      }
    }
    shaping.projected_record_ordinals.sort((a, b) => a - b);
    shaping.projected_query_keys = [...keys.values()].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : (a.value ?? '') < (b.value ?? '') ? -1 : (a.value ?? '') > (b.value ?? '') ? 1 : Number(a.omitted ?? false) - Number(b.omitted ?? false));
    for (const l of initialLines) (projected.has(l) ? shaping.projection_values.replayed : shaping.projection_values.checked).push(...projectionValue(l));
    shaping.projection_values.checked = [...new Set(shaping.projection_values.checked)].sort();
    shaping.projection_values.replayed = [...new Set(shaping.projection_values.replayed)].sort();
    byTool.set(toolName, shaping);
  }
  return { excluded, byTool };
}
