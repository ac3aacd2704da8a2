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
import { ServedModel } from '../model/served/model.js';
import { loggedWrite } from '../model/served/write-log.js';
import { itemValue } from '../model/served/records.js';
import type { CallAnswer } from '../model/served/answer.js';
import { answerWriteByConvention, logUnansweredWrite } from '../model/served/write-route.js';
import { answerByItemRoute } from '../model/served/item-route.js';
import { DECLINED_CODES, DECLINED_STATUS, provenanceHeaders } from '../model/served/provenance.js';
import { admit, corsHeaders, httpGuard, isJsonContentType, preflightHeaders, type HttpGuard } from './guard.js';
import { boundHttpAnswer, limitAnswer } from '../serve/answer-bounds.js';
import { matchRoute, routesOf, type Route } from './routes.js';
import { explainDecline } from './near-miss.js';
import { StaticFiles } from './static-files.js';
import { logRequest, noteAnswer, type RequestLogger } from './request-log.js';

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

/**
 * The path a request is answered on: its own, except that `GET /`, which no tool and no
 * recorded file answers, opens the recorded `/index.html` (as a static server does), so
 * `open http://127.0.0.1:PORT/` shows the recorded app.
 */
async function sitePath(routes: readonly Route[], statics: StaticFiles, method: string, path: string): Promise<string> {
  if (path !== '/' || (method !== 'GET' && method !== 'HEAD') || matchRoute(routes, method, path) || (await statics.has(path))) return path;
  return matchRoute(routes, method, '/index.html') || (await statics.has('/index.html')) ? '/index.html' : path;
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
  const part = from(input.callQueryArg) ? 'query' : 'body';
  const name = argument.slice(argument.indexOf('.') + 1);
  const didNotMatch =
    argument === input.callQueryArg
      ? `the query string: the capture sent none to ${tool.template}`
      : argument === input.bodyArg
        ? `the body: not of the type the capture sent to ${tool.template}`
        : `the ${part} ${part === 'query' ? 'key' : 'field'} ${name}: the capture never sent it, or never a value of this type`;
  return new CapstateError(
    'no-convention',
    `${e.message}: the model holds no convention for it (${tool.method} ${tool.template} answers what the capture showed)`,
    {
      ...e.context,
      nearest_tool: tool.name,
      nearest_template: `${tool.method.toUpperCase()} ${tool.template}`,
      did_not_match: didNotMatch,
    },
  );
}

/**
 * Issue 45: a write no route answers may still have changed the app where a read route of the
 * capture reads (`DELETE /issues/5.json` beside `GET /issues/{id}.json`): it is logged as a
 * write the model did not apply, so those reads are declined rather than answered from a state
 * from before it (write-log.ts). The entity is the item route's id; a collection read route
 * (`/issues.json`) makes every read of the type stale.
 */
function logUnroutedWrite(routes: Route[], model: ServedModel, method: string, path: string): boolean {
  const match = matchRoute(routes, 'GET', path);
  if (!match) return false;
  const { r: read, m } = match;
  const params = new Map(read.params.map((p, i) => [p, m[i + 1]]));
  const call = { params, query: [] };
  model.writes.push(loggedWrite({ root: read.tool.root_path, tool: '', method, call, applied: false, entity: itemValue(read.tool, call) }));
  return true;
}

function send(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  headers: Record<string, string>,
  origin: string | null = null,
): void {
  ({ status, body, headers } = boundHttpAnswer(res, status, body, headers));
  noteAnswer(res, headers);
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
    // Issue 48: a GraphQL client reads `errors`; the decline is one of them, with the same 501.
    const graphql = (doc.context as Record<string, unknown>).graphql === true;
    send(
      res,
      DECLINED_STATUS,
      JSON.stringify(
        graphql
          ? {
              errors: [
                {
                  message: `capstate declined: ${doc.message}`,
                  extensions: { code: 'CAPSTATE_DECLINED', capstate: { code: doc.code, context: doc.context } },
                },
              ],
            }
          : problem,
      ) + '\n',
      {
        'content-type': graphql ? 'application/json' : 'application/problem+json',
        'x-capstate-error': doc.code,
        'capstate-answer': 'declined',
      },
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
 * the model (guard.ts; default: the loopback origins), `maxAnswerBytes`, the bound of every
 * answer (src/serve/answer-bounds.ts), and `log`, the request log.
 */
export interface HttpOptions {
  guard?: HttpGuard;
  maxAnswerBytes?: number;
  /** Where one line per request goes (request-log.ts); none: no request log. */
  log?: RequestLogger;
}

/**
 * The HTTP handler over one served capture and one model (exported for tests), with the
 * capture's recorded files (`statics`). The guard's Host check applies once its `bound` is
 * set, as listenHttp does.
 */
export function httpHandler(
  ctx: ServeContext,
  model: ServedModel = new ServedModel(ctx),
  opts: HttpOptions = {},
  statics: StaticFiles = new StaticFiles(ctx),
): (req: IncomingMessage, res: ServerResponse) => void {
  const guard = opts.guard ?? httpGuard();
  const routes = routesOf(ctx.manifest.tools);
  const handle = async (req: IncomingMessage, res: ServerResponse, origin: string | null) => {
    const url = new URL(req.url ?? '/', 'http://capstate.invalid');
    const method = (req.method ?? 'GET').toUpperCase();
    const path = await sitePath(routes, statics, method, url.pathname);
    if (method === 'OPTIONS' && origin !== null && req.headers['access-control-request-method']) {
      return send(res, 204, '', preflightHeaders(origin, req));
    }
    const body = await readRequestBody(req);
    const sendOk = (status: number, text: string | Buffer, headers: Record<string, string>) => send(res, status, text, headers, origin);
    const sendAnswer = answerSender(req, method, sendOk);

    if (path.startsWith(DATA_PLANE_PREFIX)) {
      const what = path.slice(DATA_PLANE_PREFIX.length);
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
        model.load(await validateState(ctx, jsonBody(req, body, `${method} ${path}`)));
        const s = await getState(model);
        return sendOk(200, JSON.stringify({ ok: true, loaded: true, sha256: s.sha256 }) + '\n', { 'content-type': 'application/json' });
      }
      throw new CapstateError(
        'no-data-plane-route',
        `${method} ${path}: the data plane has GET and PUT ${DATA_PLANE_PREFIX}state and POST ${DATA_PLANE_PREFIX}reset`,
        {},
      );
    }

    // HEAD is GET without the body (RFC 9110 §9.3.2): a path a GET tool answers answers HEAD as it.
    const match = matchRoute(routes, method, path) ?? (method === 'HEAD' ? matchRoute(routes, 'GET', path) : undefined);
    if (!match) {
      // An OPTIONS that is no CORS preflight (answered above) asks what the app allows there, which
      // the capture did not record (Django REST framework answers its schema): declined, not a made-up Allow.
      if (method === 'OPTIONS') {
        throw new CapstateError(
          'no-route',
          `OPTIONS ${path}: the capture recorded no OPTIONS answer here; capstate answers an OPTIONS only as a CORS preflight (with Origin and Access-Control-Request-Method)`,
          { method, path },
        );
      }
      // A page, script, style, image or font the capture recorded and no tool answers.
      const file = method === 'GET' || method === 'HEAD' ? await statics.answer(path, url.search.slice(1)) : null;
      if (file) return sendOk(file.status, method === 'HEAD' ? '' : file.body, file.headers);
      // No tool of this path: the API's conventions may still answer it (item-route.ts).
      const query = [...url.searchParams].map(([name, value]) => ({ name, value }));
      const conventional =
        (await answerByItemRoute(ctx, model, method, path, query)) ??
        (query.length === 0
          ? await answerWriteByConvention(
              ctx,
              model,
              method,
              path,
              body.length ? (jsonBody(req, body, `${method} ${path}`) as JsonValue) : undefined,
            )
          : null);
      if (conventional) return sendAnswer(conventional);
      if (!ctx.vocabulary.isSafeMethod(method) && !logUnroutedWrite(routes, model, method, path))
        await logUnansweredWrite(ctx, model, method, path);
      if (await statics.has(path)) {
        throw new CapstateError('no-route', `${method} ${path}: this is a file the capture recorded, answered for GET and HEAD only`, {
          method,
          path,
          did_not_match: `the method: the capture recorded GET ${path}`,
        });
      }
      // The nearest tool and what did not match are added as for every decline (near-miss.ts).
      throw new CapstateError('no-route', `${method} ${path}: no tool of this capture answers this method and path`, { method, path });
    }
    const { r, m } = match;
    const input = await toolInputCached(ctx, r.tool);
    const args: Record<string, unknown> = {};
    r.params.forEach((p, i) => {
      args[p] = decodeParam(m[i + 1], path);
    });
    const query: Record<string, string | string[]> = {};
    for (const [k, v] of url.searchParams) {
      const prev = query[k];
      query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    }
    if (Object.keys(query).length) args[input.callQueryArg] = query;
    if (body.length > 0 && input.bodyArg) {
      args[input.bodyArg] = input.bodyShape?.type === 'string' ? body.toString('utf8') : jsonBody(req, body, `${method} ${path}`);
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
    if (opts.log) logRequest(opts.log, req, res);
    limitAnswer(res, opts.maxAnswerBytes);
    let origin: string | null = null;
    try {
      ({ origin } = admit(guard, req));
    } catch (e) {
      // Refused before anything is read or answered: no CORS header, so a page sees nothing.
      req.resume();
      return sendError(res, e, null);
    }
    handle(req, res, origin).catch((e) => {
      const path = new URL(req.url ?? '/', 'http://capstate.invalid').pathname;
      sendError(res, explainDecline(e, routes, (req.method ?? 'GET').toUpperCase(), path), origin);
    });
  };
}

/**
 * Why the server could not listen, as a runtime failure (exit 1): the flags were right, the
 * machine said no (a busy port is the usual case, issue 46).
 */
function listenFailure(e: NodeJS.ErrnoException, host: string, port: number): CapstateError {
  const at = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const why =
    e.code === 'EADDRINUSE'
      ? `port ${port} is already in use on ${host} (another server listens there); stop that server, or choose another port: --port ${port === 65535 ? port - 1 : port + 1}`
      : e.code === 'EACCES'
        ? `listening on port ${port} is not allowed here (ports below 1024 need privileges); choose a port above 1023`
        : e.code === 'EADDRNOTAVAIL'
          ? `${host} is not an address of this machine; use 127.0.0.1 or one of its own addresses`
          : `cannot listen on ${at} (${e.code ?? e.message})`;
  return new CapstateError('cannot-listen', why, { host, port }, 1);
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
): Promise<{ server: Server; url: string; model: ServedModel; files: string[] }> {
  const model = new ServedModel(ctx);
  const guard = opts.guard ?? httpGuard();
  const statics = new StaticFiles(ctx);
  const server = createServer(httpHandler(ctx, model, { ...opts, guard }, statics));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(listenFailure(e, host, port)));
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  guard.bound = { host, port: actual };
  return { server, url: `http://${host.includes(':') ? `[${host}]` : host}:${actual}`, model, files: await statics.paths() };
}
