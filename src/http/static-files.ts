/**
 * The capture's static responses (issue 46): the HTML, scripts, styles, images and fonts the
 * manifest does not turn into tools, served on their recorded paths (GET, HEAD) as recorded,
 * so the recorded app itself opens in a browser against the model. They are replays: the
 * answer says `Capstate-Answer: replay` and names its record. Only the index of paths is held;
 * a body is read from the store when asked for (memory stays bounded, DESIGN).
 */
import type { ServeContext } from '../model/served/context.js';
import { readBody } from '../model/served/records.js';

/** The media types served as static files: pages, scripts, styles, images, fonts, media, wasm, source maps. */
const STATIC_MEDIA =
  /^(text\/(html|css|javascript|ecmascript)|application\/(xhtml\+xml|(x-)?javascript|ecmascript|wasm|manifest\+json|(x-)?font-[a-z0-9]+|vnd\.ms-fontobject)|image\/|font\/|audio\/|video\/)/i;

/** Browser resource types of the same (a record whose media type is unknown or generic). */
const STATIC_RESOURCE = new Set(['document', 'script', 'stylesheet', 'image', 'font', 'media', 'manifest']);

interface StaticRecord {
  ordinal: number;
  status: number;
  query: string | null;
  bodyId: number;
  mediaType: string | null;
}

/** A static response as served: its bytes, content type and record. */
export interface StaticAnswer {
  status: number;
  body: Buffer;
  headers: Record<string, string>;
}

/** Whether a record's response is a static file (by its media type, else by the browser's resource type). */
export function isStaticResponse(mediaType: string | null, resourceType: string | null): boolean {
  const type = (mediaType ?? '').split(';')[0].trim();
  if (type && type !== 'x-unknown' && type !== 'application/octet-stream') return STATIC_MEDIA.test(type);
  return resourceType !== null && STATIC_RESOURCE.has(resourceType);
}

/** The static files of one served capture, by path. */
export class StaticFiles {
  private index: Promise<Map<string, StaticRecord[]>> | null = null;

  constructor(private readonly ctx: ServeContext) {}

  private load(): Promise<Map<string, StaticRecord[]>> {
    this.index ??= this.ctx.k
      .selectFrom('record as r')
      .innerJoin('body as b', 'b.id', 'r.response_body_id')
      .select(['r.ordinal', 'r.status', 'r.path', 'r.query', 'r.response_body_id', 'r.response_media_type', 'r.resource_type'])
      .where('r.capture_id', '=', this.ctx.captureId)
      .where('r.tool_id', 'is', null)
      .where('r.method', '=', 'GET')
      .where('r.status', '>=', 200)
      .where('r.status', '<', 300)
      // A cut body is not the file; an empty one shows nothing worth serving.
      .where('b.kind', 'in', ['text', 'base64'])
      .orderBy('r.ordinal')
      .execute()
      .then((rows) => {
        const byPath = new Map<string, StaticRecord[]>();
        for (const r of rows) {
          if (!isStaticResponse(r.response_media_type, r.resource_type)) continue;
          const list = byPath.get(r.path) ?? [];
          list.push({ ordinal: r.ordinal, status: r.status, query: r.query, bodyId: r.response_body_id, mediaType: r.response_media_type });
          byPath.set(r.path, list);
        }
        return byPath;
      });
    return this.index;
  }

  /** The recorded paths served as static files, in path order. */
  async paths(): Promise<string[]> {
    return [...(await this.load()).keys()].sort();
  }

  /** Whether `path` is a recorded static file. */
  async has(path: string): Promise<boolean> {
    return (await this.load()).has(path);
  }

  /**
   * The recorded response of `path`: the latest record with the same query (`app.js?v=3`),
   * else the latest of the path (a cache-busting query changes nothing in a recorded file).
   */
  async answer(path: string, query: string): Promise<StaticAnswer | null> {
    const records = (await this.load()).get(path);
    if (!records) return null;
    const same = records.filter((r) => (r.query ?? '') === query);
    const chosen = (same.length ? same : records).at(-1)!;
    const body = await readBody(this.ctx, chosen.bodyId, chosen.mediaType);
    if (body.content === null) return null;
    return {
      status: chosen.status,
      body: typeof body.content === 'string' ? Buffer.from(body.content, 'utf8') : body.content,
      headers: {
        ...(chosen.mediaType && chosen.mediaType !== 'x-unknown' ? { 'content-type': chosen.mediaType } : {}),
        'capstate-answer': 'replay',
        'x-capstate-source': 'replay',
        'x-capstate-record': String(chosen.ordinal),
      },
    };
  }
}
