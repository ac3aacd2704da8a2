/**
 * Issue 44 kind 1: the page an app cuts a list to when the call names no page size. Django
 * REST framework answers `/api/posts/` with the first 5 of 12 posts (`PAGE_SIZE`) and
 * `?page=2` with the next 5; WordPress answers `/wp-json/wp/v2/posts` with 10 of 11. Read as a
 * snapshot, such a line replays, and `?page=2` or `?author=3` is no query the state answers.
 *
 * The size is found, not guessed: it is what the list's line without a query lists (its
 * plain line: the app's own default, not a client's choice), where that is fewer than the
 * collection holds and no line naming no size key lists more. It is kept only when reading
 * every line without a size key as cut to it reproduces a recorded line that no reading
 * without it did, and loses none that did (src/state/steps/plans.ts, `listPlan`). Serving
 * then answers a call naming no size (`?page=2`, `?author=3`, `?offset=4`) with at most that
 * many, its totals counting before the cut (src/model/plan/list-queries.ts, `parseListQuery`).
 */
import type { ReadLine } from './facts.js';
import type { Ctx } from './plan-context.js';

/** The plain line's count where it may be a default page of the collection's `collection` entities, else undefined. */
export function defaultSizeCandidate(
  ctx: Ctx,
  lines: readonly { line: ReadLine; listed: readonly string[] }[],
  collection: number,
): number | undefined {
  const v = ctx.facts.vocabulary;
  const sized = (r: ReadLine) => r.query_pairs.some((p) => ['size', 'end'].includes(v.windowRole(p.name) ?? ''));
  const plain = lines.find((l) => l.line.query_pairs.length === 0);
  const n = plain?.listed.length ?? 0;
  if (n === 0 || n >= collection) return undefined;
  return lines.every((l) => sized(l.line) || l.listed.length <= n) ? n : undefined;
}

/**
 * Whether reading the lines as cut to `size` reproduces one no reading without it did and loses
 * none: `reproduced(line, size)` says whether the state renders the line's list, read so.
 */
export function sizeReproduces(
  lines: readonly ReadLine[],
  size: number,
  reproduced: (line: ReadLine, size: number | undefined) => boolean,
): boolean {
  let gained = false;
  for (const r of lines) {
    const before = reproduced(r, undefined);
    const after = reproduced(r, size);
    if (before && !after) return false;
    gained ||= after && !before;
  }
  return gained;
}
