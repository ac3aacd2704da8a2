/**
 * `capstate serve --http [HOST:]PORT` (issue 16): the served model over plain HTTP on the
 * app's own paths, so a front-end, a Playwright test or curl can run against it. Each
 * request is matched to its manifest tool by method and template and answered by
 * answerCall, exactly as the MCP tool of that name answers; the recorded content-type is
 * sent, no credential is asked for or given. The data plane sits under `/__capstate/`.
 * One HTTP server is one session: one model shared by every client of that server.
 */
import type { JsonValue } from '../json/exact.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { CapstateError } from '../errors.js';
import { plainError } from '../model/plan/words.js';
import { parseExactJson } from '../json/exact.js';
import type { ManifestTool } from '../manifest/read.js';
import { answerCall } from '../model/served/call.js';
import type { ServeContext } from '../model/served/context.js';
import { checkStateBodyDepth, getState, validateState } from '../serve/data-plane.js';
import { toolInputCached } from '../model/served/answer.js';
import { isParamSegment, templateParams } from '../manifest/paths.js';
import { ServedModel } from '../model/served/model.js';
import { itemValue, loggedWrite } from '../model/served/write-log.js';
import type { CallAnswer } from '../model/served/answer.js';
import { answerWriteByConvention } from '../model/served/write-route.js';
import { answerByItemRoute } from '../model/served/item-route.js';
import { DECLINED_CODES, DECLINED_STATUS, provenanceHeaders } from '../model/served/provenance.js';
import { admit, corsHeaders, httpGuard, isJsonContentType, preflightHeaders, type HttpGuard } from './guard.js';
import { boundHttpAnswer, limitAnswer } from '../serve/answer-bounds.js';

/** The reserved prefix of the data plane: `/__capstate/state` (GET, PUT), `/__capstate/reset` (POST). */
export const DATA_PLANE_PREFIX = '/__capstate/';

/** Request bodies larger than this are refused with 413 (the MCP transport's line limit). */
const MAX_REQUEST_BYTES = 10 * 1024 * 1024;

/** `8080`, `0.0.0.0:8080`, `[::1]:8080` → host and port (default host 127.0.0.1: loopback only). */
export function parseListen(value: string): { host: string; port: number } {
  const m = /^(?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535)
    throw new CapstateError('usage', `--http takes [HOST:]PORT (for example 8080 or 127.0.0.1:8080), not ${JSON.stringify(value)}`, {}, 2);
  return { host: m[1] ? m[1].replace(/^\[|\]$/g, '') : '127.0.0.1', port };
}

interface Route {
  tool: ManifestTool;
  pattern: RegExp;
  params: string[];
  literal: number;
}

/** Templates as patterns, most literal first: `/posts/new` wins over `/posts/{id}`. */
function routesOf(ctx: ServeContext): Route[] {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return ctx.manifest.tools
    .map((tool) => {
      const parts = tool.template.split(/\{[^}]+\}/);
      return {
        tool,
        params: templateParams(tool.template),
        literal: parts.join('').length,
        pattern: new RegExp('^' + parts.map(escape).join('([^/]+)') + '$'),
      };
    })
    .sort((a, b) => a.params.length - b.params.length || b.literal - a.literal);
}

/**
 * Over HTTP a request's query string and body fields are the app's to judge, not the tool
 * schema's: a key or a value type the capture never showed is something the model holds no
 * convention for, so it is declined (501), never answered with a 400 the app might not give
 * (issue 44). MCP callers keep `bad-arguments`: there the schema is the contract.
 */
function asDecline(e: unknown, tool: ManifestTool, input: { callQueryArg: string; bodyArg?: string | null }): unknown {
  if (!(e instanceof CapstateError) || e.code !== 'bad-arguments') return e;
  const argument = String((e.context as { argument?: unknown }).argument ?? '');
  const from = (name: string) => argument === name || argument.startsWith(`${name}.`);
  if (!from(input.callQueryArg) && !(input.bodyArg && from(input.bodyArg))) return e;
  return new CapstateError(
    'no-convention',
    `${e.message}: the model holds no convention for it (${tool.method} ${tool.template} answers what the capture showed)`,
    { ...e.context, nearest_tool: tool.name },
  );
}

/**
 * Issue 45: a write no route answers may still have changed the app where a read route of the
 * capture reads (`DELETE /issues/5.json` beside `GET /issues/{id}.json`): it is logged as a
 * write the model did not apply, so those reads are declined rather than answered from a state
 * from before it (write-log.ts). The entity is the item route's id; a collection read route
 * (`/issues.json`) makes every read of the type stale.
 */
function logUnroutedWrite(routes: Route[], model: ServedModel, method: string, path: string): void {
  const read = routes.filter((r) => r.tool.method.toUpperCase() === 'GET').find((r) => r.pattern.test(path));
  if (!read) return;
  const m = read.pattern.exec(path)!;
  const params = new Map(read.params.map((p, i) => [p, m[i + 1]]));
  const call = { params, query: [] };
  model.writes.push(loggedWrite({ root: read.tool.root_path, tool: '', method, call, applied: false, entity: itemValue(read.tool, call) }));
}

/**
 * The route most like `method path`, for a decline's hint: the most leading segments in
 * common (a parameter matches any), then the same number of segments, then the same method.
 */
function nearestRoute(routes: Route[], method: string, path: string): Route | undefined {
  const asked = path.split('/').filter(Boolean);
  let best: { r: Route; score: number } | undefined;
  for (const r of routes) {
    const segs = r.tool.template.split('/').filter(Boolean);
    let common = 0;
    while (common < Math.min(segs.length, asked.length) && (segs[common] === asked[common] || isParamSegment(segs[common]))) common++;
    if (common === 0) continue;
    const score = common * 4 + (segs.length === asked.length ? 2 : 0) + (r.tool.method.toUpperCase() === method ? 1 : 0);
    if (!best || score > best.score) best = { r, score };
  }
  return best?.r;
}

function send(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  headers: Record<string, string>,
  origin: string | null = null,
): void {
  ({ status, body, headers } = boundHttpAnswer(res, status, body, headers));
  res.writeHead(status, { ...headers, ...corsHeaders(origin, headers), 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
}

const STATUS_OF: Record<string, number> = {
  'bad-arguments': 400,
  'bad-state': 400,
  'bad-json': 400,
  'bad-path': 400,
  'bad-host': 403,
  'cross-origin': 403,
  'no-data-plane-route': 404,
  'no-state': 409,
  'too-large': 413,
  'unsupported-media-type': 415,
  'no-response': 502,
};

function sendError(res: ServerResponse, e: unknown, origin: string | null): void {
  const doc =
    e instanceof CapstateError
      ? plainError(e.toJSON())
      : { ok: false, code: 'internal', message: String((e as Error)?.message ?? e), context: {} };
  if (DECLINED_CODES.has(doc.code)) {
    // The model cannot answer: a problem document (RFC 9457) with 501, which no client takes
    // for the app's own answer, in capstate's error shape as well (provenance.ts).
    const problem = { type: 'about:blank', title: 'Not answered by the model', status: DECLINED_STATUS, detail: doc.message, ...doc };
    send(
      res,
      DECLINED_STATUS,
      JSON.stringify(problem) + '\n',
      { 'content-type': 'application/problem+json', 'x-capstate-error': doc.code, 'capstate-answer': 'declined' },
      origin,
    );
    return;
  }
  send(
    res,
    STATUS_OF[doc.code] ?? 500,
    JSON.stringify(doc) + '\n',
    { 'content-type': 'application/json', 'x-capstate-error': doc.code },
    origin,
  );
}

async function readRequestBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_REQUEST_BYTES) throw new CapstateError('too-large', `request body over ${MAX_REQUEST_BYTES / 1024 / 1024} MiB`, {});
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The JSON request body, read only under a JSON content type (guard.ts: no cross-origin `text/plain` write). */
function jsonBody(req: IncomingMessage, bytes: Buffer, where: string): unknown {
  if (!isJsonContentType(req.headers['content-type'])) {
    throw new CapstateError(
      'unsupported-media-type',
      `${where}: a JSON body needs Content-Type: application/json (got ${JSON.stringify(req.headers['content-type'] ?? 'none')})`,
      {},
    );
  }
  const parsed = parseExactJson(bytes.toString('utf8'));
  if (!parsed.ok) throw new CapstateError('bad-json', `${where}: the request body is not JSON (${parsed.detail})`, {});
  // Plain JSON for the tools' argument checks (the exact parser may give Maps and bigints).
  // The exact parser takes what recorded bodies hold, raw control characters in strings
  // included; a caller's body must be JSON proper, and one that is not is its 400, not our 500.
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    throw new CapstateError(
      'bad-json',
      `${where}: the request body is not JSON (${(e as Error).message}); escape control characters in strings, e.g. \\u0000`,
      {},
    );
  }
}

/** A path parameter decoded; bad percent-encoding is the caller's mistake (400), not ours. */
function decodeParam(value: string, path: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new CapstateError(
      'bad-path',
      `${path}: ${JSON.stringify(value)} is not valid percent-encoding (a % must be followed by two hex digits of UTF-8)`,
      { path },
    );
  }
}

/**
 * The operator's options of `serve --http`: `guard`, which web pages and host names may drive
 * the model (guard.ts; default: the loopback origins), and `maxAnswerBytes`, the bound of every
 * answer (src/serve/answer-bounds.ts).
 */
export interface HttpOptions {
  guard?: HttpGuard;
  maxAnswerBytes?: number;
}

/**
 * The HTTP handler over one served capture and one model (exported for tests). The guard's
 * Host check applies once its `bound` is set, as listenHttp does.
 */
export function httpHandler(
  ctx: ServeContext,
  model: ServedModel = new ServedModel(ctx),
  opts: HttpOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const guard = opts.guard ?? httpGuard();
  const routes = routesOf(ctx);
  const handle = async (req: IncomingMessage, res: ServerResponse, origin: string | null) => {
    const url = new URL(req.url ?? '/', 'http://capstate.invalid');
    const method = (req.method ?? 'GET').toUpperCase();
    if (method === 'OPTIONS' && origin !== null && req.headers['access-control-request-method']) {
      return send(res, 204, '', preflightHeaders(origin, req));
    }
    const body = await readRequestBody(req);
    const sendOk = (status: number, text: string | Buffer, headers: Record<string, string>) => send(res, status, text, headers, origin);
    const sendAnswer = answerSender(req, method, sendOk);

    if (url.pathname.startsWith(DATA_PLANE_PREFIX)) {
      const what = url.pathname.slice(DATA_PLANE_PREFIX.length);
      if (what === 'reset' && method === 'POST') {
        model.reset();
        const s = await getState(model);
        return sendOk(200, JSON.stringify({ ok: true, reset: true, sha256: s.sha256 }) + '\n', { 'content-type': 'application/json' });
      }
      if (what === 'state' && method === 'GET') {
        const s = await getState(model);
        return sendOk(200, s.text, { 'content-type': 'application/json', 'x-capstate-sha256': s.sha256 });
      }
      if (what === 'state' && (method === 'PUT' || method === 'POST')) {
        checkStateBodyDepth(body);
        model.load(await validateState(ctx, jsonBody(req, body, `${method} ${url.pathname}`)));
        const s = await getState(model);
        return sendOk(200, JSON.stringify({ ok: true, loaded: true, sha256: s.sha256 }) + '\n', { 'content-type': 'application/json' });
      }
      throw new CapstateError(
        'no-data-plane-route',
        `${method} ${url.pathname}: the data plane has GET and PUT ${DATA_PLANE_PREFIX}state and POST ${DATA_PLANE_PREFIX}reset`,
        {},
      );
    }

    const match = routes
      .filter((r) => r.tool.method.toUpperCase() === method)
      .map((r) => ({ r, m: r.pattern.exec(url.pathname) }))
      .find((x) => x.m);
    if (!match) {
      if (method === 'OPTIONS') {
        return sendOk(204, '', { allow: 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS' });
      }
      // No tool of this path: the API's conventions may still answer it (item-route.ts).
      const query = [...url.searchParams].map(([name, value]) => ({ name, value }));
      const conventional =
        (await answerByItemRoute(ctx, model, method, url.pathname, query)) ??
        (query.length === 0
          ? await answerWriteByConvention(
              ctx,
              model,
              method,
              url.pathname,
              body.length ? (jsonBody(req, body, `${method} ${url.pathname}`) as JsonValue) : undefined,
            )
          : null);
      if (conventional) return sendAnswer(conventional);
      if (!ctx.vocabulary.isSafeMethod(method)) logUnroutedWrite(routes, model, method, url.pathname);
      const near = nearestRoute(routes, method, url.pathname);
      throw new CapstateError(
        'no-route',
        `${method} ${url.pathname}: no tool of this capture answers this method and path` +
          (near ? `; the nearest is ${near.tool.name} (${near.tool.method} ${near.tool.template})` : ''),
        {
          method,
          path: url.pathname,
          ...(near ? { nearest_tool: near.tool.name, nearest_template: `${near.tool.method} ${near.tool.template}` } : {}),
        },
      );
    }
    const { r, m } = match;
    const input = await toolInputCached(ctx, r.tool);
    const args: Record<string, unknown> = {};
    r.params.forEach((p, i) => {
      args[p] = decodeParam(m![i + 1], url.pathname);
    });
    const query: Record<string, string | string[]> = {};
    for (const [k, v] of url.searchParams) {
      const prev = query[k];
      query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    }
    if (Object.keys(query).length) args[input.callQueryArg] = query;
    if (body.length > 0 && input.bodyArg) {
      args[input.bodyArg] = input.bodyShape?.type === 'string' ? body.toString('utf8') : jsonBody(req, body, `${method} ${url.pathname}`);
    }
    return sendAnswer(
      await answerCall(ctx, r.tool.name, args, model).catch((e: unknown) => {
        throw asDecline(e, r.tool, input);
      }),
    );
  };
  /** Sends a model's answer with its provenance and the recorded content type. */
  const answerSender =
    (req: IncomingMessage, method: string, sendOk: (status: number, text: string | Buffer, headers: Record<string, string>) => void) =>
    (a: CallAnswer) => {
      const headers: Record<string, string> = {
        ...(a.headers ?? {}),
        ...provenanceHeaders(a),
        'x-capstate-source': a.source,
        'x-capstate-tool': a.tool,
      };
      // A recomputed page Link names this server, as the app names its own host.
      if (headers.link && req.headers.host) headers.link = headers.link.replace(/<https?:\/\/[^/>]+/g, `<http://${req.headers.host}`);
      if (a.record_ordinal) headers['x-capstate-record'] = String(a.record_ordinal);
      if (a.media_type) headers['content-type'] = a.media_type;
      const b = a.body;
      const bytes = b.raw ?? Buffer.from(b.text ?? '', 'utf8');
      if (b.kind === 'none' && !headers['content-type']) delete headers['content-type'];
      sendOk(a.status, method === 'HEAD' ? '' : bytes, headers);
    };
  return (req, res) => {
    limitAnswer(res, opts.maxAnswerBytes);
    let origin: string | null = null;
    try {
      ({ origin } = admit(guard, req));
    } catch (e) {
      // Refused before anything is read or answered: no CORS header, so a page sees nothing.
      req.resume();
      return sendError(res, e, null);
    }
    handle(req, res, origin).catch((e) => sendError(res, e, origin));
  };
}

/**
 * Starts the HTTP server; resolves once it listens. `opts.guard` (guard.ts, default: the
 * loopback origins) says which web pages and host names may drive it; its Host check uses the
 * bound port.
 */
export async function listenHttp(
  ctx: ServeContext,
  host: string,
  port: number,
  opts: HttpOptions = {},
): Promise<{ server: Server; url: string; model: ServedModel }> {
  const model = new ServedModel(ctx);
  const guard = opts.guard ?? httpGuard();
  const server = createServer(httpHandler(ctx, model, { ...opts, guard }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        // A busy or forbidden port is the machine's state, not a mistake in the command line: exit 1 (issue 46).
        new CapstateError('cannot-listen', `--http ${host}:${port}: cannot listen (${e.code ?? e.message}); choose another port`, {
          host,
          port,
        }),
      ),
    );
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  guard.bound = { host, port: actual };
  return { server, url: `http://${host.includes(':') ? `[${host}]` : host}:${actual}`, model };
}
