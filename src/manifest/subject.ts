/**
 * OQ-2 (revised 2026-12-01), ES-2: which origin a capture is about, and which origins are
 * admitted with it. The subject is the origin of the page's final document: the first
 * page's URL (or the first text/html document, or a scenario's start URL) followed along
 * its redirect chain to the document that answered. Records without a response (status 0
 * or -1) and source maps are never evidence. Same-site origins that answer JSON are
 * admitted with the subject; `--manifest` may name both explicitly. Static assets of the
 * admitted origins stay facts but form no tool (issue 17).
 */
import { isSameSite } from './site.js';

export interface SubjectRecord {
  ordinal: number;
  origin: string;
  url: string;
  path: string;
  status: number;
  isJson: boolean;
  isHtml: boolean;
  resourceType: string | null;
  pageId: string | null;
  /** The response's Location header, when stored. */
  location: string | null;
  transactionId: string | null;
  redirectedFromTransactionId: string | null;
}

export type SubjectSource = 'page' | 'document' | 'start-url' | 'json-responses' | 'all-responses' | 'override';

export interface SubjectChoice {
  subjectOrigin: string | null;
  subjectSource: SubjectSource;
  /** Ordinals of the redirect chain followed to the final document (empty when none was found). */
  chain: number[];
}

/** No response was recorded: a failed or aborted request (HAR status 0 or -1). */
export function isFailed(r: Pick<SubjectRecord, 'status'>): boolean {
  return r.status <= 0;
}

/** A source map (`.map`, `.js.map`, `.css.map`): JSON, but the build's, not the app's. */
export function isSourceMap(r: Pick<SubjectRecord, 'path'>): boolean {
  return /\.map$/i.test(r.path);
}

/** A JSON answer that is evidence of the app: not failed, not a source map. */
export function answersJson(r: SubjectRecord): boolean {
  return r.isJson && !isFailed(r) && !isSourceMap(r);
}

/** What a static asset is, by the browser's resource type or a well-known extension (issue 17). */
export type AssetKind = 'source map' | 'font' | 'image' | 'stylesheet' | 'script' | 'media file';

/** The asset kinds, in the order a record is told by (a font's path decides before an image's type). */
const ASSET_KINDS: { kind: AssetKind; types: string[]; extension: RegExp }[] = [
  { kind: 'source map', types: [], extension: /\.map$/i },
  { kind: 'font', types: ['font'], extension: /\.(woff2?|ttf|otf|eot)$/i },
  { kind: 'image', types: ['image'], extension: /\.(png|jpe?g|gif|webp|avif|svg|ico|bmp)$/i },
  { kind: 'stylesheet', types: ['stylesheet'], extension: /\.css$/i },
  { kind: 'script', types: ['script'], extension: /\.m?js$/i },
  { kind: 'media file', types: ['media'], extension: /\.(mp4|webm|mp3|wav|ogg|m4a|flac|avi|mov)$/i },
];

/** A record's asset kind by its resource type or its path's extension, or null for neither. */
export function assetKind(r: { path: string; resourceType: string | null }): AssetKind | null {
  const type = r.resourceType?.toLowerCase() ?? '';
  return ASSET_KINDS.find((k) => k.types.includes(type) || k.extension.test(r.path))?.kind ?? null;
}

/** Resource types of static assets that have no kind of their own above. */
const OTHER_STATIC_TYPES = new Set(['manifest', 'texttrack']);

/**
 * A static asset (issue 17): a source map, or a record of resource type script,
 * stylesheet, image, font or media, or with a well-known asset extension, that does not
 * answer JSON. It stays a fact; it forms no tool.
 */
export function isStaticAsset(r: SubjectRecord): boolean {
  if (isSourceMap(r)) return true;
  if (r.isJson) return false;
  return assetKind(r) !== null || (r.resourceType !== null && OTHER_STATIC_TYPES.has(r.resourceType.toLowerCase()));
}

function originOf(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch {
    return null;
  }
}

const withoutFragment = (url: string) => url.replace(/#.*$/, '');

/**
 * Follows a document's redirect chain from `start` (a URL): each 3xx hop to the record its
 * Location (or, in scenario Evidence, its redirect link) names, until a record answers
 * 2xx/304 or the chain leaves the capture. Returns the chain's records in order.
 */
export function followRedirects(recs: SubjectRecord[], start: SubjectRecord): SubjectRecord[] {
  const chain: SubjectRecord[] = [start];
  const seen = new Set([start.ordinal]);
  let cur = start;
  while (cur.status >= 300 && cur.status < 400 && chain.length < 32) {
    let next: SubjectRecord | undefined;
    if (cur.transactionId !== null) next = recs.find((r) => r.redirectedFromTransactionId === cur.transactionId && !seen.has(r.ordinal));
    if (!next && cur.location) {
      let target: string | null = null;
      try {
        target = withoutFragment(new URL(cur.location, cur.url).href);
      } catch {
        target = null;
      }
      if (target !== null) {
        const at = target;
        next =
          recs.find((r) => r.ordinal > cur.ordinal && !seen.has(r.ordinal) && withoutFragment(r.url) === at) ??
          recs.find((r) => !seen.has(r.ordinal) && withoutFragment(r.url) === at);
      }
    }
    if (!next) break;
    chain.push(next);
    seen.add(next.ordinal);
    cur = next;
  }
  return chain;
}

function mostFrequentOrigin(recs: SubjectRecord[]): string | null {
  const counts = new Map<string, { n: number; first: number }>();
  for (const r of recs) {
    const c = counts.get(r.origin);
    if (c) c.n++;
    else counts.set(r.origin, { n: 1, first: r.ordinal });
  }
  let best: string | null = null;
  for (const [o, c] of counts) {
    const b = best === null ? null : counts.get(best)!;
    if (!b || c.n > b.n || (c.n === b.n && c.first < b.first)) best = o;
  }
  return best;
}

/**
 * The subject (OQ-2 revised, step 1). `startUrl` is the first page's title when it is a
 * URL (HAR) or the scenario's start URL; `firstPageId` the first page's id, whose first
 * text/html document is the start when the title is not a URL.
 */
export function chooseSubject(
  recs: SubjectRecord[],
  opts: { startUrl: string | null; startSource: 'page' | 'start-url'; firstPageId: string | null; overrideOrigin?: string },
): SubjectChoice {
  if (opts.overrideOrigin) return { subjectOrigin: opts.overrideOrigin, subjectSource: 'override', chain: [] };
  const live = recs.filter((r) => !isFailed(r));
  let start: SubjectRecord | undefined;
  let source: SubjectSource | null = null;
  const startOrigin = opts.startUrl !== null ? originOf(opts.startUrl) : null;
  if (startOrigin !== null) {
    const url = withoutFragment(opts.startUrl!);
    start = live.find((r) => withoutFragment(r.url) === url) ?? live.find((r) => r.isHtml && r.origin === startOrigin);
    source = opts.startSource;
  } else {
    // No URL to start from: the first page's first HTML document, else the capture's.
    const html = live.filter((r) => r.isHtml || (r.resourceType ?? '').toLowerCase() === 'document');
    start = (opts.firstPageId !== null ? html.find((r) => r.pageId === opts.firstPageId) : undefined) ?? html[0];
    if (start) source = 'document';
  }
  if (start) {
    const chain = followRedirects(recs, start);
    const last = chain[chain.length - 1];
    // A chain that leaves the capture (its last hop is a 3xx whose target was not recorded)
    // still names where the document is.
    let origin = last.origin;
    if (last.status >= 300 && last.status < 400 && last.location) origin = originOf(new URL(last.location, last.url).href) ?? origin;
    return { subjectOrigin: origin, subjectSource: source!, chain: chain.map((r) => r.ordinal) };
  }
  if (startOrigin !== null) return { subjectOrigin: startOrigin, subjectSource: opts.startSource, chain: [] };
  const json = live.filter(answersJson);
  if (json.length > 0) return { subjectOrigin: mostFrequentOrigin(json), subjectSource: 'json-responses', chain: [] };
  const evidence = live.filter((r) => !isSourceMap(r));
  return { subjectOrigin: mostFrequentOrigin(evidence.length > 0 ? evidence : recs), subjectSource: 'all-responses', chain: [] };
}

/**
 * The origins admitted with the subject (OQ-2 revised, step 2): same-site origins that
 * answer JSON, and those the override names. Sorted; the subject is not listed.
 */
export function admittedOrigins(recs: SubjectRecord[], subject: string, overrideOrigins: string[] = []): string[] {
  const out = new Set<string>(overrideOrigins.filter((o) => o !== subject));
  for (const r of recs)
    if (r.origin !== subject && !out.has(r.origin) && answersJson(r) && isSameSite(r.origin, subject)) out.add(r.origin);
  return [...out].sort();
}
