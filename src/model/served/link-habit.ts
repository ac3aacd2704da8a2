/**
 * Issue 44 (kind 8): the `Link` header the app sends with an answer the model makes, learned
 * from the answers the capture recorded. json-server sends one only with a page (list-answer.ts
 * recomputes those); WordPress sends one with every answer — an item's permalink
 * (`<{link}>; rel="alternate"; type=text/html`, the entity's own `link` member), else the API's
 * root (`<…/wp-json/>; rel="https://api.w.org/"`), on errors too. An answer without the app's
 * Link is a plausible wrong answer, so where the recorded answers show a Link the model cannot
 * make for this one, the read is declined (docs/decisions.md, "The app's Link header").
 */
import { itemParamOf } from '../../manifest/paths.js';
import { CapstateError } from '../../errors.js';
import type { JsonValue } from '../../json/exact.js';
import { childPointer, pointerTokens } from '../../json/pointer.js';
import { at, entriesOf, isObject } from '../plan/json.js';
import { perContext, perContextKey, type ServeContext } from './context.js';
import { jsonValueOf, readBody, toolRecords, type ToolRecord } from './records.js';

/** How the app's recorded answers of one kind carry a Link. */
export type LinkHabit =
  /** None of them sends one (or none was recorded): the answer sends none. */
  | { kind: 'none' }
  /** Each sends the same one, naming nothing of its own request: the answer sends it too. */
  | { kind: 'constant'; value: string }
  /** Each sends `<` its body's member at `pointer` `>` and the same rest: the answer fills it from its own body. */
  | { kind: 'member'; pointer: string; rest: string }
  /** They send one the model cannot tell how to make: the answer is declined. */
  | { kind: 'unknown'; ordinal: number; value: string };

/** A page's links (json-server's, GitHub's): the list answer recomputes those itself. */
const PAGE_REL = /rel="?(first|prev|next|last)"?/i;

/** Every recorded response `Link` of the capture, by record ordinal, read once per context. */
const recordedLinks = perContext(async (ctx): Promise<Map<number, string>> => {
  const names = ctx.vocabulary.headerNames('next');
  const out = new Map<number, string>();
  if (names.length === 0) return out;
  // Only those headers: a 500 MB capture's write check reads this once per step, not every header.
  const rows = await ctx.k
    .selectFrom('header')
    .innerJoin('record', 'record.id', 'header.record_id')
    .select(['record.ordinal', 'header.value'])
    .where('record.capture_id', '=', ctx.captureId)
    .where('header.side', '=', 'response')
    .where('header.source', '=', 'header')
    .where((eb) => eb(eb.fn<string>('lower', ['header.name']), 'in', [...names]))
    .orderBy('record.ordinal')
    .orderBy('header.position')
    .execute();
  // A record's first such header, as a page's links are read (list-answer.ts).
  for (const r of rows) if (r.value !== null && !out.has(r.ordinal)) out.set(r.ordinal, r.value);
  return out;
});

/** The Link the capture recorded with record `ordinal`'s answer, if any. */
export async function recordedLink(ctx: ServeContext, ordinal: number): Promise<string | undefined> {
  return (await recordedLinks(ctx)).get(ordinal);
}

/** Whether `link` names a value of its own request's path (`/posts/3`): then it is not the same for another request. */
function namesOwnRequest(link: string, r: ToolRecord): boolean {
  return [...r.params.values()].some((v) => {
    const at = link.indexOf(`/${v}`);
    return at >= 0 && /^([/?#.>;]|$)/.test(link.slice(at + 1 + v.length));
  });
}

/**
 * The habit of `records` (answers of one kind: a tool's 2xx answers, or the API's item reads'),
 * pages' links left out.
 */
export async function linkHabitOf(ctx: ServeContext, records: readonly ToolRecord[]): Promise<LinkHabit> {
  const links = await recordedLinks(ctx);
  const shown = records.filter((r) => !PAGE_REL.test(links.get(r.ordinal) ?? ''));
  const withLink = shown.filter((r) => links.has(r.ordinal));
  if (withLink.length === 0) return { kind: 'none' };
  const first = withLink[0];
  const unknown: LinkHabit = { kind: 'unknown', ordinal: first.ordinal, value: links.get(first.ordinal)! };
  if (withLink.length < shown.length) return unknown;
  const member = await memberTemplate(ctx, withLink, links);
  if (member) return member;
  const value = links.get(first.ordinal)!;
  if (withLink.every((r) => links.get(r.ordinal) === value && !namesOwnRequest(value, r))) return { kind: 'constant', value };
  return unknown;
}

/** `<href>rest` → [href, rest]; null for several links or another shape. */
function splitLink(link: string): [string, string] | null {
  const m = /^<([^<>]*)>([^<>]*)$/.exec(link.trim());
  return m ? [m[1], m[2]] : null;
}

/** The string members of an answer, and of the one object it wraps (`{"issue": {…}}`), by pointer. */
function stringMembers(value: JsonValue | undefined): [string, string][] {
  const entries = entriesOf(value);
  const out: [string, string][] = [];
  for (const [k, v] of entries) if (typeof v === 'string') out.push([childPointer('', k), v]);
  const [only] = entries;
  if (entries.length === 1 && isObject(only[1]))
    for (const [k, v] of entriesOf(only[1])) if (typeof v === 'string') out.push([childPointer(childPointer('', only[0]), k), v]);
  return out;
}

/** A member every record's Link names as its href, with the same rest; null when none does. */
async function memberTemplate(ctx: ServeContext, records: readonly ToolRecord[], links: Map<number, string>): Promise<LinkHabit | null> {
  let candidates: string[] | null = null;
  let rest: string | null = null;
  for (const r of records) {
    const parts = splitLink(links.get(r.ordinal)!);
    if (!parts || (rest !== null && parts[1] !== rest)) return null;
    rest = parts[1];
    const body = jsonValueOf(await readBody(ctx, r.response_body_id, r.response_media_type));
    const here = stringMembers(body)
      .filter(([, v]) => v === parts[0])
      .map(([p]) => p);
    candidates = candidates === null ? here : candidates.filter((c) => here.includes(c));
    if (candidates.length === 0) return null;
  }
  return candidates && rest !== null ? { kind: 'member', pointer: candidates[0], rest } : null;
}

/**
 * The Link an answer with body `value` sends by `habit`: undefined for none; a decline where
 * the habit is unknown or the body lacks the member (`tool`, `asked` name it).
 */
export function linkBy(habit: LinkHabit, value: JsonValue | undefined, tool: string, asked: string): string | undefined {
  if (habit.kind === 'none') return undefined;
  if (habit.kind === 'constant') return habit.value;
  if (habit.kind === 'member') {
    const v = value === undefined ? undefined : at(value, habit.pointer);
    if (typeof v === 'string') return `<${v}>${habit.rest}`;
  }
  const shown =
    habit.kind === 'unknown'
      ? `record #${habit.ordinal} sent Link: ${habit.value}`
      : `its Link names ${pointerTokens(habit.pointer).join('.')}, which this answer lacks`;
  throw new CapstateError(
    'no-convention',
    `${tool}: the app sends a Link header with answers like this one (${shown}), and the capture does not show which it sends for ${asked}`,
    { tool, request_line: asked, nearest_tool: tool, did_not_match: 'the Link header the app sends' },
  );
}

/** `headers` with the Link `habit` gives `value` (unchanged where it gives none). */
export function withHabitLink(
  headers: Record<string, string> | undefined,
  habit: LinkHabit,
  value: JsonValue | undefined,
  tool: string,
  asked: string,
): Record<string, string> | undefined {
  const link = linkBy(habit, value, tool, asked);
  return link === undefined ? headers : { ...headers, link };
}

/** The habit of a tool's own 2xx answers, learned once per context. */
export const toolLinkHabit = perContextKey(async (ctx, tool: string) =>
  linkHabitOf(
    ctx,
    (await toolRecords(ctx, tool)).filter((r) => r.status >= 200 && r.status <= 299),
  ),
);

/**
 * The habit of the API's item reads' 2xx answers together (GET tools whose template ends in a
 * parameter): what an item read by the API's item route, which has no records of its own, sends.
 */
export const itemReadsLinkHabit = perContext(async (ctx): Promise<LinkHabit> => {
  const records: ToolRecord[] = [];
  for (const tool of ctx.manifest.tools)
    if (tool.method.toUpperCase() === 'GET' && itemParamOf(tool.template) !== undefined)
      records.push(...(await toolRecords(ctx, tool.name)).filter((r) => r.status >= 200 && r.status <= 299));
  const habit = await linkHabitOf(ctx, records);
  // Item reads of other collections that send a Link say nothing of this collection's: WordPress
  // links a post and a page to their permalinks, a user to the API root. Only none is lent.
  if (habit.kind === 'member' || habit.kind === 'constant') {
    const links = await recordedLinks(ctx);
    const first = records.find((r) => links.has(r.ordinal));
    if (first) return { kind: 'unknown', ordinal: first.ordinal, value: links.get(first.ordinal)! };
  }
  return habit;
});
