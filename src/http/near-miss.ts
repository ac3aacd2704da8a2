/**
 * What a declined call nearly matched (issue 46, as WireMock names the closest stub and what
 * differed): the route most like a request no tool answers, and the recorded request line
 * most like a call no record answers, each with the part that did not match in words.
 */
import { CapstateError } from '../errors.js';
import { isParamSegment } from '../manifest/paths.js';
import type { Route } from './routes.js';

export interface NearMiss {
  /** The nearest tool's name and its `METHOD /template`. */
  tool: string;
  template: string;
  /** What did not match, in words: `"post" where the tool has "posts"`. */
  differs: string;
}

/** Edit distance of two short strings (path segments), for a misspelt segment's likeness. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}

const likeness = (a: string, b: string): number => 1 - distance(a, b) / Math.max(a.length, b.length, 1);
const segmentsOf = (path: string): string[] => path.split('/').filter(Boolean);

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The same method most, then a write of the same kind (PUT for PATCH), then any write for a write. */
function methodLikeness(a: string, b: string): number {
  if (a === b) return 1;
  if ((a === 'PUT' && b === 'PATCH') || (a === 'PATCH' && b === 'PUT')) return 0.75;
  return WRITES.has(a) === WRITES.has(b) ? 0.5 : 0;
}

/**
 * The route most like `method path`: segments that match (a parameter matches any) count
 * most, a misspelt segment by its likeness, a different number of segments against it, the
 * same method a little. Undefined when no route shares anything with the path.
 */
export function nearestRoute(routes: readonly Route[], method: string, path: string): NearMiss | undefined {
  const asked = segmentsOf(path);
  let best: { r: Route; score: number } | undefined;
  for (const r of routes) {
    const segs = segmentsOf(r.tool.template);
    let score = methodLikeness(r.tool.method.toUpperCase(), method) - 3 * Math.abs(segs.length - asked.length);
    for (let i = 0; i < Math.min(segs.length, asked.length); i++)
      score +=
        segs[i] === asked[i] || isParamSegment(segs[i]) ? 4 : likeness(segs[i], asked[i]) >= 0.5 ? 3 * likeness(segs[i], asked[i]) : 0;
    if (score > 1 && (!best || score > best.score)) best = { r, score };
  }
  if (!best) return undefined;
  const tool = best.r.tool;
  return {
    tool: tool.name,
    template: `${tool.method.toUpperCase()} ${tool.template}`,
    differs: routeDifference(routes, tool, method, asked),
  };
}

/** What `method asked` has that the route of `tool` does not, in words. */
function routeDifference(routes: readonly Route[], tool: Route['tool'], method: string, asked: string[]): string {
  const segs = segmentsOf(tool.template);
  const parts: string[] = [];
  for (let i = 0; i < Math.min(segs.length, asked.length); i++) {
    if (segs[i] !== asked[i] && !isParamSegment(segs[i]))
      parts.push(`${JSON.stringify(asked[i])} where the tool has ${JSON.stringify(segs[i])}`);
  }
  if (asked.length > segs.length) parts.push(`the path goes on past the template (/${asked.slice(segs.length).join('/')})`);
  if (asked.length < segs.length) parts.push(`the path stops before the template's /${segs.slice(asked.length).join('/')}`);
  if (tool.method.toUpperCase() !== method) {
    if (parts.length === 0) {
      const there = routes.filter((r) => r.tool.template === tool.template).map((r) => r.tool.method.toUpperCase());
      return `the path matches, the method does not: the capture has ${[...new Set(there)].join(', ')} ${tool.template}, no ${method}`;
    }
    parts.push(`the method is ${tool.method.toUpperCase()}, not ${method}`);
  }
  return parts.join('; ');
}

/** `a=1&b=2` as pairs (a request line's query part). */
function pairsOf(query: string): [string, string][] {
  return [...new URLSearchParams(query)];
}

/**
 * The recorded request line (`GET /posts?_page=1`) most like the call asked, with what
 * differs: its path first (`/projects/2.json` where it has `/projects/1.json`), then its query;
 * the same path, then the most pairs in common, then the most keys. Only when path and query
 * are the same does the request body differ.
 */
export function nearestLine(asked: string, recorded: readonly string[]): { line: string; differs: string } | undefined {
  const split = (line: string) => {
    const i = line.indexOf('?');
    return { path: i < 0 ? line : line.slice(0, i), pairs: pairsOf(i < 0 ? '' : line.slice(i + 1)) };
  };
  const mine = split(asked);
  let best: { line: string; score: number } | undefined;
  for (const line of recorded) {
    const theirs = split(line);
    const pairs = mine.pairs.filter(([k, v]) => theirs.pairs.some(([k2, v2]) => k === k2 && v === v2)).length;
    const keys = mine.pairs.filter(([k]) => theirs.pairs.some(([k2]) => k === k2)).length;
    const path = theirs.path === mine.path ? 100 : 0;
    const score = path + pairs * 4 + keys * 2 - Math.abs(theirs.pairs.length - mine.pairs.length);
    if (!best || score > best.score) best = { line, score };
  }
  if (!best) return undefined;
  const theirs = split(best.line);
  const has = (list: [string, string][], k: string) => list.some(([k2]) => k2 === k);
  const parts = [
    ...(theirs.path === mine.path ? [] : [`${mine.path.replace(/^\S+ /, '')} where it has ${theirs.path.replace(/^\S+ /, '')}`]),
    ...mine.pairs.filter(([k]) => !has(theirs.pairs, k)).map(([k]) => `${k} is not in it`),
    ...theirs.pairs.filter(([k]) => !has(mine.pairs, k)).map(([k, v]) => `it has ${k}=${v}`),
    ...mine.pairs
      .filter(([k, v]) => has(theirs.pairs, k) && !theirs.pairs.some(([k2, v2]) => k2 === k && v2 === v))
      .map(([k, v]) => `${k}=${v} where it has ${k}=${theirs.pairs.find(([k2]) => k2 === k)![1]}`),
  ];
  return { line: best.line, differs: parts.length ? parts.join('; ') : 'the request body' };
}

/** What did not match, for the declines whose tool was found (the tool itself is the nearest). */
const MATCHED_TOOL_MISS: Record<string, string> = {
  'stale-record': "no record of it was made after writes like this session's",
  'no-response': 'the capture recorded the request but no response to it',
};

/**
 * A decline (provenance.ts's codes) with its near miss in `context`: `nearest_tool`,
 * `nearest_template` and `did_not_match`, added to the message where it does not say them
 * yet. `routes`, `method`, `path`: the request declined. Other errors pass unchanged.
 */
export function explainDecline(e: unknown, routes: readonly Route[], method: string, path: string): unknown {
  if (!(e instanceof CapstateError)) return e;
  const context = e.context as Record<string, unknown>;
  // A GraphQL decline names the operation and field it stopped at (src/model/graphql/call.ts).
  if (context.did_not_match !== undefined || context.graphql === true) return e;
  const more: Record<string, unknown> = {};
  let words = '';
  if (e.code === 'no-record' && typeof context.request_line === 'string' && Array.isArray(context.recorded_request_lines)) {
    const near = nearestLine(context.request_line, context.recorded_request_lines.map(String));
    more.nearest_tool = context.tool;
    if (near) {
      more.nearest_request_line = near.line;
      more.did_not_match = near.differs;
      words = `; the nearest recorded line is ${near.line}: ${near.differs}`;
    }
  } else if (e.code in MATCHED_TOOL_MISS && typeof context.tool === 'string') {
    more.nearest_tool = context.tool;
    more.did_not_match = MATCHED_TOOL_MISS[e.code];
  } else if (e.code === 'no-route' || e.code === 'no-convention') {
    const near = nearestRoute(routes, method, path);
    if (near) {
      Object.assign(more, { nearest_tool: near.tool, nearest_template: near.template, did_not_match: near.differs });
      words = `; the nearest is ${near.tool} (${near.template}): ${near.differs}`;
    } else {
      const some = [...new Set(routes.map((r) => `${r.tool.method.toUpperCase()} ${r.tool.template}`))];
      words = `; no tool's path is like it (the capture's tools answer ${some.slice(0, 5).join(', ')}${some.length > 5 ? `, … ${some.length - 5} more` : ''}; capstate manifest lists them)`;
    }
  } else return e;
  return new CapstateError(e.code, e.message + words, { ...context, ...more }, e.exitCode);
}
