/**
 * Issue 44: query keys a client adds only so that no cache answers the call — jQuery's
 * `cache: false` adds `_=<timestamp>`, other libraries `_t=`, `nocache=` (the vocabulary's
 * `cache_buster` rows, migrations/0015-cache-buster-keys.sql). The apps measured answer such a
 * call exactly as without the key (json-server 0.17 and 1.0, Alertmanager, Redmine), so a read
 * that names one where no learned convention explains it is answered as the call without it,
 * and says so (`convention: ignored-key`), rather than declined.
 *
 * The key is taken apart from the call once, where the arguments are checked
 * (input-schema.ts `checkArguments`, which keeps it in `CallRequest.ignored`): every answer path
 * after that — state, conventions, replay — sees the call without it.
 */
import { CapstateError } from '../../errors.js';
import type { ManifestTool } from '../../manifest/read.js';
import type { CallAnswer } from './answer.js';
import type { ServeContext } from './context.js';
import { servedLookups, servedTypes } from './model.js';
import { collectionFields } from './read-index.js';
import { isWriteTool } from './records.js';

/** The provenance an answer that ignored a cache-buster carries (provenance.ts). */
export const IGNORED_KEY = 'ignored-key';

export interface QueryPair {
  name: string;
  value: string;
}

/**
 * Whether `value` is what a cache-buster sends: a whole number (a timestamp, a counter) or
 * nothing. Any other value may be one the app reads (`_=abc` could be a search), so it is not
 * ignored.
 */
export const isCacheBusterValue = (value: string): boolean => /^[0-9]*$/.test(value);

/** Whether one query pair may be ignored under `test` (cacheBusterTest): a cache-buster key with one cache-buster value. */
export const isIgnorable = (test: ((name: string) => boolean) | null, name: string, value: unknown): boolean =>
  !!test?.(name) && typeof value === 'string' && isCacheBusterValue(value);

/** Whether a query is cache-busters alone, each named once (the call without them names no query). */
export function onlyCacheBusters(test: ((name: string) => boolean) | null, pairs: readonly (readonly [string, unknown])[]): boolean {
  return pairs.length > 0 && new Set(pairs.map(([n]) => n)).size === pairs.length && pairs.every(([n, v]) => isIgnorable(test, n, v));
}

/**
 * The test of the query keys a call of `tool` may name only to defeat caches, or null where
 * none may be ignored (a write: its query may be part of what it changes). A key passes when
 * the vocabulary lists it as a cache-buster, the tool's schema does not know it (`known`: keys
 * recorded on the tool or given by a learned convention, which then explains it), and it is no
 * member of the entities the tool reads (json-server filters by any member, so a `_t` member
 * would make `?_t=1` a filter).
 */
export async function cacheBusterTest(
  ctx: ServeContext,
  tool: ManifestTool,
  known: ReadonlySet<string>,
): Promise<((name: string) => boolean) | null> {
  if (isWriteTool(ctx, tool)) return null;
  const plan = await (await servedLookups(ctx))?.plan(tool.name);
  const collections =
    plan?.kind === 'item' || plan?.kind === 'list'
      ? [plan.collection]
      : (await servedTypes(ctx)).filter((t) => t.root_path === tool.root_path).map((t) => t.collection);
  const fields = new Set(plan?.kind === 'item' || plan?.kind === 'list' ? plan.fields : []);
  for (const c of collections) for (const f of await collectionFields(ctx, c)) fields.add(f);
  return (name) => ctx.vocabulary.isCacheBuster(name) && !known.has(name) && !fields.has(name);
}

/** `_=1712`, `_=1712, nocache=1`: the ignored pairs as a call names them. */
const pairsText = (ignored: readonly QueryPair[]) => ignored.map((p) => `${p.name}=${p.value}`).join(', ');

/** What `why` and a decline's message say of the ignored keys, in plain words. */
function ignoredWords(ignored: readonly QueryPair[]): string {
  const one = ignored.length === 1;
  return (
    `the query ${one ? 'key' : 'keys'} ${pairsText(ignored)} ${one ? 'was' : 'were'} taken for ${one ? 'a cache-buster' : 'cache-busters'} ` +
    `(a key a client adds only so that no cache answers the call) and ignored, as apps do`
  );
}

/** `convention` with `ignored-key` beside the conventions it already names (a sorted, comma-separated list, as from-state.ts joins them). */
function withIgnoredConvention(convention: string | undefined): string {
  return [...new Set([...(convention ? convention.split(', ') : []), IGNORED_KEY])].sort().join(', ');
}

/**
 * The answer to a call whose cache-busters `ignored` were taken out of it: `answer()` answers the
 * call without them; the result says they were ignored (`ignored-key`, and in `why`), and so
 * does a decline or error, so no caller thinks the key was read.
 */
export async function answerIgnoring(ignored: readonly QueryPair[] | undefined, answer: () => Promise<CallAnswer>): Promise<CallAnswer> {
  if (!ignored?.length) return answer();
  let a: CallAnswer;
  try {
    a = await answer();
  } catch (e) {
    if (!(e instanceof CapstateError)) throw e;
    throw new CapstateError(
      e.code,
      `${e.message} (${ignoredWords(ignored)})`,
      { ...e.context, ignored_keys: pairsText(ignored) },
      e.exitCode,
    );
  }
  // A replayed answer that links the request's own URL (Django's `"next": "http://host/api/posts/?page=2"`)
  // shows it without the key, where the app builds its links from the URL it was asked, key and all.
  const own = a.source === 'replay' ? ownLink(a) : undefined;
  if (own)
    throw new CapstateError(
      'no-convention',
      `${a.request_line}: the recorded answer links the request's own URL (${own}), which the app builds from every key it is asked, so its answer would name ${pairsText(ignored)} there; the capture does not show it (${ignoredWords(ignored)})`,
      {
        tool: a.tool,
        request_line: a.request_line,
        ignored_keys: pairsText(ignored),
        did_not_match: 'an answer without a link to its own URL',
      },
    );
  return { ...a, convention: withIgnoredConvention(a.convention), why: `${a.why}; ${ignoredWords(ignored)}` };
}

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A link in a replayed answer's body or Link header to the request's own path (absolute, or relative with a query), or undefined. */
function ownLink(a: CallAnswer): string | undefined {
  const path = a.request_line.slice(a.request_line.indexOf(' ') + 1).split('?')[0];
  if (!path) return undefined;
  const link = new RegExp(`(https?://[^"\\s<>]*${escaped(path)}(\\?[^"\\s<>]*)?(?=["<>\\s]|$))|("${escaped(path)}\\?[^"]*)`);
  const found = link.exec(a.body.text ?? '') ?? link.exec(a.headers?.link ?? '');
  return found?.[0].replace(/^"/, '');
}
