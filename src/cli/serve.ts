import { defineCommand } from 'citty';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { CapstateError } from '../errors.js';
import { CLOSED_BROWSER_POLICY, DEFAULT_BROWSER_EXECUTABLE, type BrowserPolicy } from '../serve/browser-policy.js';
import { closeServeContext } from '../model/served/context.js';
import { parseMaxAnswerBytes } from '../serve/answer-bounds.js';
import { createServer } from '../mcp/server.js';
import { LineTransport, MAX_LINE_BYTES } from '../mcp/stdio-transport.js';
import { listenHttp, parseListen, DATA_PLANE_PREFIX } from '../http/server.js';
import { routeLines } from '../http/routes.js';
import { httpGuard } from '../http/guard.js';
import { log, parseTimeout } from './common.js';
import { openSource, sourceArgs } from './source.js';
import { mcpSession } from './mcp-startup.js';

export const args = {
  ...sourceArgs,
  'allow-browser': {
    type: 'boolean',
    description: 'List and answer capture_browser_scenario (off by default: it runs a browser on this machine for the caller)',
    default: false,
  },
  browser: {
    type: 'string',
    description: `The browser executable capture_browser_scenario launches (callers cannot choose another; default ${DEFAULT_BROWSER_EXECUTABLE})`,
    valueHint: 'PATH',
  },
  'browser-cdp': {
    type: 'string',
    description: 'A loopback CDP endpoint capture_browser_scenario may attach to in connect mode (default: none, connect mode refused)',
    valueHint: 'URL',
  },
  'secret-env': {
    type: 'string',
    description: 'An environment variable a scenario may declare as a secret; repeat for more (default: none)',
    valueHint: 'NAME',
  },
  'sql-timeout': {
    type: 'string',
    description: 'Stop a query_store statement after this many seconds (default 5; 0: no limit)',
    valueHint: 'SECONDS',
  },
  'max-answer-bytes': {
    type: 'string',
    description:
      "Send no answer (MCP tool result, HTTP body) larger than this; a larger one is an answer-too-large error for that call (default 8MiB, under the MCP SDK client's 10 MiB line; also 512KiB, 16MiB)",
    valueHint: 'BYTES',
  },
  http: {
    type: 'string',
    description:
      "Serve over plain HTTP on the app's own paths at [HOST:]PORT (default host 127.0.0.1) instead of MCP stdio; data plane under /__capstate/",
    valueHint: '[HOST:]PORT',
  },
  port: {
    type: 'string',
    description: 'Serve over HTTP on 127.0.0.1:PORT: the same as --http 127.0.0.1:PORT (the json-server and Mockoon habit)',
    valueHint: 'PORT',
  },
  quiet: {
    type: 'boolean',
    alias: 'q',
    description: 'With --http or --port: no line per request on stderr (method, path, status, how it was answered, ms)',
    default: false,
  },
  cors: {
    type: 'string',
    description:
      'With --http: a web origin (http://HOST:PORT) whose pages may use the served model; repeat for more (default: the loopback origins only)',
    valueHint: 'ORIGIN',
  },
  'allowed-host': {
    type: 'string',
    description: 'With --http: a host name requests may address the server by, besides its address and the loopback names; repeat for more',
    valueHint: 'NAME',
  },
  'evidence-dir': {
    type: 'string',
    description: 'compare_web_captures may open Evidence files under DIR (default: inline Evidence only)',
    valueHint: 'DIR',
  },
} as const;

/** Every value of a repeatable flag (`--secret-env A --secret-env=B`), in order. */
function repeated(rawArgs: string[], flag: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const r = rawArgs[i];
    if (r === flag && i + 1 < rawArgs.length) values.push(rawArgs[++i]);
    else if (r.startsWith(flag + '=')) values.push(r.slice(flag.length + 1));
  }
  return values;
}

/** The operator's browser policy from the flags; checked before anything is served. */
function browserPolicy(
  a: { browser?: string; 'browser-cdp'?: string; 'evidence-dir'?: string; 'allow-browser'?: boolean },
  rawArgs: string[],
): BrowserPolicy {
  const secretEnv = repeated(rawArgs, '--secret-env')
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  for (const name of secretEnv) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new CapstateError('usage', `--secret-env takes an environment variable name; ${JSON.stringify(name)} is not one`, {}, 2);
  }
  const evidenceDir = a['evidence-dir'] ?? null;
  if (evidenceDir !== null && !(existsSync(evidenceDir) && statSync(evidenceDir).isDirectory())) {
    throw new CapstateError('usage', `--evidence-dir ${evidenceDir}: no such directory`, {}, 2);
  }
  const executablePath = a.browser ?? DEFAULT_BROWSER_EXECUTABLE;
  if (a['allow-browser'] && a['browser-cdp'] === undefined && !existsSync(executablePath)) {
    throw new CapstateError(
      'usage',
      `--allow-browser: no browser executable at ${executablePath}; install Chromium (apt-get install chromium) or give its path with --browser PATH`,
      {},
      2,
    );
  }
  return {
    ...CLOSED_BROWSER_POLICY,
    allowBrowser: Boolean(a['allow-browser']),
    executablePath,
    cdpEndpoint: a['browser-cdp'] ?? null,
    secretEnv,
    evidenceDir: evidenceDir === null ? null : resolve(evidenceDir),
  };
}

/** The address from `--http [HOST:]PORT` or `--port PORT` (127.0.0.1); both at once is a usage error. */
function listenFlag(http: string | undefined, port: string | undefined): { host: string; port: number } | null {
  if (http !== undefined && port !== undefined)
    throw new CapstateError('usage', '--port PORT is short for --http 127.0.0.1:PORT; give one of them, not both', {}, 2);
  if (port !== undefined && !/^\s*\d{1,5}\s*$/.test(port))
    throw new CapstateError(
      'usage',
      `--port takes a port number such as 3000, not ${JSON.stringify(port)} (--http HOST:PORT for another host)`,
      {},
      2,
    );
  const value = http ?? port;
  return value === undefined ? null : parseListen(value);
}

/** The recorded files served, named up to a dozen. */
function filesLine(files: string[]): string {
  const shown = files.slice(0, 12).join(', ');
  return files.length > 12 ? `${shown}, … (${files.length - 12} more)` : shown;
}

export default defineCommand({
  meta: {
    name: 'serve',
    description:
      "Serve a capture over MCP (stdio): one tool per manifest tool, answering reads from the environment state, verified writes on the session's own copy " +
      'and the rest by replaying retained records, plus reset_state, get_state, load_state, inspect_analysis_view, inspect_environment_manifest and query_store. ' +
      "Only protocol touches stdout. With --http [HOST:]PORT (or --port PORT): the same answers over plain HTTP on the app's own paths, with the capture's recorded pages, scripts, styles and images.",
  },
  args,
  async run({ args: a, rawArgs }) {
    const browser = browserPolicy(a, rawArgs);
    const sqlTimeoutMs = parseTimeout(a['sql-timeout'], '--sql-timeout');
    const maxAnswerBytes = parseMaxAnswerBytes(a['max-answer-bytes']);
    const listen = listenFlag(a.http, a.port);
    const guard = httpGuard(repeated(rawArgs, '--cors'), repeated(rawArgs, '--allowed-host'));
    const { ctx, cleanup } = await openSource(a, rawArgs);
    try {
      if (listen) {
        const requestLog = a.quiet ? undefined : (line: string) => process.stderr.write(`${line}\n`);
        const { server, url, files } = await listenHttp(ctx, listen.host, listen.port, { guard, maxAnswerBytes, log: requestLog });
        // Listening before anything is said: a signal from whoever read the address ends it cleanly.
        const stopped = new Promise<void>((resolve) => {
          process.once('SIGINT', () => resolve());
          process.once('SIGTERM', () => resolve());
        });
        log(
          `serving capture ${ctx.captureId} (${ctx.manifest.capture_path}) over HTTP at ${url}: ${ctx.manifest.tools.length} tools on the app's paths; ` +
            `data plane: GET/PUT ${url}${DATA_PLANE_PREFIX}state, POST ${url}${DATA_PLANE_PREFIX}reset; ` +
            `web pages allowed: ${guard.origins ? [...guard.origins].join(', ') : 'the loopback origins (--cors ORIGIN for others)'}`,
        );
        // The routes, so a user sees what the model answers before the app asks (stderr: stdout stays empty).
        process.stderr.write(`${['routes:', ...routeLines(ctx.manifest.tools).map((l) => `  ${l}`)].join('\n')}\n`);
        if (files.length) process.stderr.write(`recorded files (replayed as recorded): ${filesLine(files)}\n`);
        const page =
          files.includes('/index.html') || ctx.manifest.tools.some((t) => t.method.toUpperCase() === 'GET' && t.template === '/index.html');
        if (page) log(`open ${url}/ to run the recorded app against the model`);
        log(a.quiet ? 'ready (--quiet: no line per request)' : 'ready; one line per request follows (--quiet: none)');
        await stopped;
        await new Promise<void>((resolve) => server.close(() => resolve()));
        return;
      }
      const { server, catalog } = await createServer(ctx, { browser, sqlTimeoutMs, maxAnswerBytes });
      const transport = new LineTransport(process.stdin, process.stdout, MAX_LINE_BYTES, maxAnswerBytes);
      // Transport failures and answered bad lines are logged: stdout is the protocol's alone.
      server.onerror = (e) => log(`mcp: ${e.message}`);
      const closed = new Promise<void>((resolve) => {
        const done = () => resolve();
        // The client ends the session by closing our stdin; signals end it too.
        process.stdin.once('end', done);
        process.stdin.once('close', done);
        process.once('SIGINT', done);
        process.once('SIGTERM', done);
        server.onclose = done;
      });
      // From here a failure is the session's, not start-up's (mcp-startup.ts).
      mcpSession.started = true;
      await server.connect(transport);
      log(
        `serving capture ${ctx.captureId} (${ctx.manifest.capture_path}) over MCP stdio: ` +
          `${catalog.environmentTools.length} environment tools + ${catalog.tools.length - catalog.environmentTools.length} analysis tools, ` +
          `${catalog.bytes} of ${catalog.reserveBytes} catalog bytes${catalog.limitations.length ? '; ' + catalog.limitations.join('; ') : ''}`,
      );
      await closed;
      await server.close();
      if (transport.failure) {
        throw new CapstateError(
          'transport-failed',
          `the MCP session ended because ${transport.failure.message}; restart the server (the client may have gone away)`,
          {},
        );
      }
    } finally {
      await closeServeContext(ctx);
      cleanup();
    }
  },
});
