/**
 * Which path segments are parameters and what they are called (ES-3, OQ-1 a–e and OQ-1 naming, with
 * OQ-9's identity names first): strong id shapes, values a JSON list lists, weak ids seen twice or
 * repeated by their own response, sibling paths, consistency across siblings; names voted by the
 * members that repeat a value, shared by sibling templates (issue 18).
 */
import type { Vocabulary } from '../store/vocabulary.js';
import { isStrongId, isVersionSegment, looksLikeId, type TemplateShape } from './paths.js';
import type { ListIndex, OwnMembers } from './lookups.js';
import type { Rec } from './records.js';

/** Records per template whose members vote on parameter names: enough to agree, bounded for big captures. */
const NAMING_SAMPLE = 16;

/** Which segments of each record are parameters (OQ-1 a, b, c). */
export async function decideParams(
  recs: Rec[],
  lists: ListIndex,
  own: OwnMembers,
  vocabulary: Vocabulary,
): Promise<Map<number, boolean[]>> {
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
  for (let changed = true; changed; ) {
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
        if (g) g.push(r);
        else groups.set(key, [r]);
      }
      for (const g of groups.values()) {
        const collectionLike = g.some((r) => itemId.get(r.id)![i + 1]);
        const staticLater = g.every((r) =>
          isParam
            .get(r.id)!
            .slice(i + 1, -1)
            .some((p) => !p),
        );
        if (collectionLike || !staticLater) continue;
        if (new Set(g.map((r) => r.shape.segments[i])).size < 2) continue;
        for (const r of g) {
          if (isParam.get(r.id)![i] || isVersionSegment(r.shape.segments[i]) || recorded.has(r.shape.segments.slice(0, i + 1).join('/')))
            continue;
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
    const prefixKey = (r: Rec) =>
      JSON.stringify([
        r.shape.suffix && i === r.shape.segments.length - 1 ? r.shape.suffix : '',
        r.shape.segments.slice(0, i).map((s, j) => (isParam.get(r.id)![j] ? '\u0000' : s)),
      ]);
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
      if (seen.has(seg) || (await own.namesFor(r.responseBodyId, seg)).some((k) => vocabulary.isIdentityName(k)))
        isParam.get(r.id)![i] = true;
    }
  }
  // (e) issue 18: a weak id shape whose value is a parameter in another path of the capture is
  // one here too (Grafana's page `/d/abc123XYZ/service-overview` beside
  // `/api/dashboards/uid/{uid}`, `/api/v0/items/it-01/notes` beside `/api/items/{id}`).
  const paramValues = new Set<string>();
  for (const r of recs)
    r.shape.segments.forEach((s, i) => {
      if (isParam.get(r.id)![i]) paramValues.add(s);
    });
  for (const r of recs) {
    const flags = isParam.get(r.id)!;
    r.shape.segments.forEach((s, i) => {
      if (!flags[i] && looksLikeId(s) && paramValues.has(s)) flags[i] = true;
    });
  }
  return isParam;
}

/** Names each parameter from the members it matched (OQ-1 naming), else id, id2, … */
export async function nameParams(
  recs: Rec[],
  isParam: Map<number, boolean[]>,
  lists: ListIndex,
  own: OwnMembers,
  vocabulary: Vocabulary,
): Promise<Map<number, TemplateShape>> {
  const rank = vocabulary.identityRank;
  // Records with the same static skeleton share parameter names, across methods.
  const groups = new Map<string, Rec[]>();
  // OQ-1: a trailing slash is remembered for rendering but ignored for shape.
  const skeleton = (r: Rec) => JSON.stringify([r.shape.suffix, r.shape.segments.map((s, i) => (isParam.get(r.id)![i] ? null : s))]);
  for (const r of recs) {
    const key = skeleton(r);
    const g = groups.get(key);
    if (g) g.push(r);
    else groups.set(key, [r]);
  }
  const decided: { g: Rec[]; names: (string | null)[] }[] = [];
  for (const g of groups.values()) {
    const first = g[0];
    const flags = isParam.get(first.id)!;
    const names: (string | null)[] = [];
    for (let i = 0; i < flags.length; i++) {
      if (!flags[i]) {
        names.push(null);
        continue;
      }
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
      if (!used.has(base)) {
        used.add(base);
        return base;
      }
      for (let n = 2; ; n++)
        if (!used.has(`${base}${n}`)) {
          used.add(`${base}${n}`);
          return `${base}${n}`;
        }
    };
    for (const n of names) if (n) unique(n);
    used.clear();
    const finalNames = names.map((n) => (n === null ? null : unique(n || 'id')));
    for (const r of g) {
      out.set(r.id, {
        parts: r.shape.segments.map((s, i) =>
          finalNames[i] !== null ? { kind: 'param' as const, name: finalNames[i]! } : { kind: 'static' as const, text: s },
        ),
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
function unifySiblingNames(
  decided: { g: Rec[]; names: (string | null)[] }[],
  isParam: Map<number, boolean[]>,
  rank: (name: string) => number,
): void {
  const maxLen = Math.max(0, ...decided.map((d) => d.names.length));
  for (let i = 0; i < maxLen; i++) {
    const clusters = new Map<string, typeof decided>();
    for (const d of decided) {
      if (i >= d.names.length || d.names[i] === null) continue;
      const flags = isParam.get(d.g[0].id)!;
      const key = JSON.stringify(d.g[0].shape.segments.slice(0, i + 1).map((s, j) => (flags[j] ? '\u0000' : s)));
      const c = clusters.get(key);
      if (c) c.push(d);
      else clusters.set(key, [d]);
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
  const stem = (before ?? '')
    .toLowerCase()
    .replace(/(ies)$/, 'y')
    .replace(/s$/, '');
  const names = (c: string) => stem !== '' && (c.toLowerCase() === `${stem}id` || c.toLowerCase() === `${stem}_id`);
  const others = vocabulary.identityNames.length;
  const score = (c: string) => (vocabulary.isIdentityName(c) ? vocabulary.identityRank(c) : names(c) ? others : others + 1);
  return [...candidates].sort((a, b) => score(a) - score(b))[0];
}

function sanitizeParamName(name: string): string {
  const s = name.replace(/[^A-Za-z0-9_]/g, '_').replace(/^(\d)/, '_$1');
  return s || 'id';
}
