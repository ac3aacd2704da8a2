/**
 * OQ-1 tool names: `<method>_<static segments and by_<param>>`, unique, at most 64 characters,
 * cut at whole tokens; names that collide only through the cut keep what tells them apart (issue 18).
 */
import { parseTemplate } from './paths.js';
import type { InferredTool } from './inferred.js';

/** OQ-1 tool names: `<method>_<static segments and by_<param>>`, unique, at most 64 characters. */
export function assignNames(tools: InferredTool[]): void {
  const full = tools.map((t) => {
    const shape = parseTemplate(t.template);
    const words = shape.parts.map((p) => (p.kind === 'static' ? p.text : `by_${p.name}`));
    if (shape.suffix) words.push(shape.suffix.slice(1));
    const joined = [t.method.toLowerCase(), ...(words.length ? words : ['root'])]
      .join('_')
      .toLowerCase()
      .replace(/[^a-z0-9_]+/g, '_')
      .replace(/_+/g, '_')
      .replace(/^_|_$/g, '');
    return (
      joined
        .split('_')
        // `by_<param>` is one token: a cut never leaves a bare `by`.
        .reduce<string[]>((acc, w) => {
          if (acc.length > 0 && acc[acc.length - 1] === 'by') acc[acc.length - 1] = `by_${w}`;
          else acc.push(w);
          return acc;
        }, [])
    );
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
      const parts = (j: number) => {
        let d = 0;
        while (d < full[i].length && d < full[j].length && full[i][d] === full[j][d]) d++;
        return d;
      };
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
