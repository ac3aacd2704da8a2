/**
 * The analysis tools served beside the environment's own tools: `inspect_analysis_view`
 * (OQ-4), `inspect_environment_manifest`, `query_store` (read-only SQL, STYLE §14),
 * `capture_browser_scenario` and `compare_web_captures`.
 * Each is a thin wrapper over the core function the CLI calls.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { CapstateError } from '../errors.js';
import { toJson } from '../json/output.js';
import { DEFAULT_SQL_TIMEOUT_MS, rowsAsObjects, runReadOnlySql } from '../store/read-only-sql.js';
import { readManifest } from '../manifest/read.js';
import type { ServeContext } from '../model/served/context.js';
import { BROWSER_TOOLS, callBrowserTool } from './browser-tools.js';
import { CLOSED_BROWSER_POLICY, type BrowserPolicy } from './browser-policy.js';
import { hintsFor } from './hints.js';
import { documentResult, ECHO_MAX_CHARS, exactDocumentResult, shortEcho } from './results.js';
import { environmentStateView } from './state-view.js';
import { inputSchemaOf, parseToolArguments, QUERY_STORE_ROWS, VIEW_KINDS } from './tool-arguments.js';

export { QUERY_STORE_ROWS, VIEW_KINDS };
/** Rows stop once their JSON passes this many bytes (a row can hold a whole body). */
export const QUERY_STORE_MAX_BYTES = 1024 * 1024;

// capstate's own analysis tools exist before any store is open and only read: GET is safe
// by definition here, not by a store's vocabulary.
const readOnly = hintsFor('GET', false, true);

export const ANALYSIS_TOOLS: Tool[] = [
  {
    name: 'inspect_analysis_view',
    description:
      'An analysis view of a capture in the store: {"view": {"kind": "environment-manifest"}} gives its ' +
      'environment manifest (admission, template rules, tools with records and statuses); {"view": {"kind": "environment-state"}} ' +
      "the inferred initial state. `parent`: the served capture's id (the default; no other is shown).",
    inputSchema: inputSchemaOf('inspect_analysis_view'),
    annotations: readOnly,
  },
  {
    name: 'inspect_environment_manifest',
    description:
      'The environment manifest of the served capture: which records were admitted and which tools they form ' +
      '(method, template, type root, query-POST flag, record ordinals, statuses). Same as inspect_analysis_view with kind environment-manifest.',
    inputSchema: inputSchemaOf('inspect_environment_manifest'),
    annotations: readOnly,
  },
  {
    name: 'query_store',
    description:
      'Run one read-only SQL statement against the capstate store (fact tables such as record, body, member, ' +
      `tool, and rule views such as records_timeline, initial_reads, list_locations; body text is in body.content, or in the view body_content). At most ${QUERY_STORE_ROWS.default} rows ` +
      `unless max_rows says otherwise (up to ${QUERY_STORE_ROWS.max}), and at most ${QUERY_STORE_MAX_BYTES / 1024 / 1024} MiB of rows; rows are objects keyed by column, as \`capstate sql --json\` prints them. Integers beyond 2^53 are exact in the text content and ` +
      'decimal strings in structuredContent.',
    inputSchema: inputSchemaOf('query_store'),
    annotations: readOnly,
  },
  // capture_browser_scenario and compare_web_captures (src/serve/browser-tools.ts).
  ...BROWSER_TOOLS,
];

export const ANALYSIS_TOOL_NAMES = new Set(ANALYSIS_TOOLS.map((t) => t.name));

/** Answers one analysis tool call (throws CapstateError for bad arguments and failures). */
export async function callAnalysisTool(
  ctx: ServeContext,
  name: string,
  args: unknown,
  signal?: AbortSignal,
  browser: BrowserPolicy = CLOSED_BROWSER_POLICY,
  sqlTimeoutMs = DEFAULT_SQL_TIMEOUT_MS,
): Promise<CallToolResult> {
  switch (name) {
    case 'capture_browser_scenario':
    case 'compare_web_captures':
      return callBrowserTool(name, args, browser, signal);
    case 'inspect_analysis_view': {
      const { parent = ctx.captureId, view } = parseToolArguments(name, args);
      // One capture per caller (issue 42): the served capture is the only one this server shows.
      if (parent !== ctx.captureId) {
        throw new CapstateError(
          'no-such-capture',
          `this server serves capture ${ctx.captureId} only; capture ${parent} is not one it shows`,
          { capture: parent },
        );
      }
      if (view.kind === 'environment-manifest') {
        return documentResult({ ok: true, kind: 'environment-manifest', parent, manifest: await readManifest(ctx.k, parent) });
      }
      return exactDocumentResult(await environmentStateView(ctx, parent));
    }
    case 'inspect_environment_manifest': {
      parseToolArguments(name, args);
      return documentResult({ ok: true, kind: 'environment-manifest', parent: ctx.captureId, manifest: ctx.manifest });
    }
    case 'query_store': {
      const a = parseToolArguments(name, args);
      const max = a.max_rows ?? QUERY_STORE_ROWS.default;
      // STYLE §14: a fresh connection opened read-only, and only statements that return rows.
      // The byte budget stops the read itself, so no row past it is fetched.
      let bytes = 0;
      // The statement runs in its own process with a deadline, so a runaway query ends with
      // an error and every other call is answered meanwhile.
      const r = await runReadOnlySql(ctx.file, a.sql, {
        maxRows: max,
        maxBytes: QUERY_STORE_MAX_BYTES,
        timeoutMs: sqlTimeoutMs,
        timeoutHint: "the server's serve --sql-timeout SECONDS",
        fits: (row) => (bytes += Buffer.byteLength(toJson(row, 0), 'utf8') + 1) <= QUERY_STORE_MAX_BYTES,
      });
      // A column without AS is named by its expression's text, comments included: a 10 MB
      // comment came back as a 10 MB name, twice (text and structuredContent). Long names
      // are echoed in short; `AS name` names a column as the caller wants.
      const columns = r.columns.map((c) => (c.length > ECHO_MAX_CHARS ? shortEcho(c) : c));
      return documentResult({
        ok: true,
        columns,
        // Issue 46: rows as objects keyed by column, as `capstate sql --json` prints them.
        rows: rowsAsObjects(columns, r.rows, 'query_store'),
        truncated: r.truncated,
        max_rows: max,
        ...(r.unfit ? { truncated_at_bytes: QUERY_STORE_MAX_BYTES } : {}),
      });
    }
    default:
      throw new CapstateError('unknown-tool', `no analysis tool ${JSON.stringify(name)}`, { tool: name });
  }
}
