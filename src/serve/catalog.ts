/**
 * The served catalog: one MCP tool per manifest tool (name, DESC description,
 * inputSchema, MCP-1 hints), each GraphQL endpoint followed by its recorded operations as
 * tools of their own (issue 48), plus the analysis tools, charged against the catalog reserve
 * (DESC-5, MCP-2, OQ-37), and the environment card built from the same definitions.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ServeContext } from '../model/served/context.js';
import { ANALYSIS_TOOLS, ANALYSIS_TOOL_NAMES } from './analysis.js';
import { toolInputCached } from '../model/served/answer.js';
import { describeTool, minimalDescription, UNTRUSTED_CATALOG_WARNING } from './descriptions.js';
import { hintsFor, operationHints } from './hints.js';
import { graphqlOperations } from '../model/graphql/operations.js';
import { DATA_PLANE_TOOLS, DATA_PLANE_TOOL_NAMES } from './data-plane.js';
import type { JsonSchema } from '../model/served/input-schema.js';
import { DEFAULT_SQL_TIMEOUT_MS } from '../store/read-only-sql.js';
import { CLOSED_BROWSER_POLICY, type BrowserPolicy } from './browser-policy.js';
import { DEFAULT_MAX_ANSWER_BYTES } from './answer-bounds.js';

/** OQ-37: UTF-8 bytes of the serialized tool definitions, hints included. */
export const CATALOG_RESERVE_BYTES = 64 * 1024;

export interface Catalog {
  /** Analysis tools first, then the data-plane tools, then the environment's tools in manifest order. */
  tools: Tool[];
  /** The environment's tools only (what the card lists). */
  environmentTools: Tool[];
  /** Bytes charged against the reserve. */
  bytes: number;
  reserveBytes: number;
  /** Tools whose description fell back to `METHOD template` to fit. */
  shortened: string[];
  /** Tools left out because even their minimal definition did not fit. */
  leftOut: string[];
  limitations: string[];
  /** What callers may do with a browser and with Evidence files (start-up flags of serve). */
  browser: BrowserPolicy;
  /** query_store's deadline in milliseconds (serve --sql-timeout; 0: none). */
  sqlTimeoutMs: number;
  /** The largest tool result sent, in bytes of its JSON (serve --max-answer-bytes; src/serve/answer-bounds.ts). */
  maxAnswerBytes: number;
}

const bytesOf = (t: Tool) => Buffer.byteLength(JSON.stringify(t), 'utf8');

/**
 * Why an analysis tool is left out of this server's list, or null when it is listed: the tools
 * that are not about the served app are listed only when the operator asked for them at start-up.
 * capture_browser_scenario runs a program on this machine (`serve --allow-browser`);
 * compare_web_captures compares two web captures, not this app (issue 46: it was listed for every
 * app), so it is listed with the flags that bring web captures to the server, `--allow-browser`
 * (which records them) or `--evidence-dir DIR` (which holds them).
 */
export function unlistedWhy(name: string, browser: BrowserPolicy): string | null {
  if (name === 'capture_browser_scenario' && !browser.allowBrowser)
    return 'capture_browser_scenario is off on this server; the operator can start it with `capstate serve --allow-browser`';
  if (name === 'compare_web_captures' && !browser.allowBrowser && browser.evidenceDir === null)
    return (
      'compare_web_captures compares web captures, not this app, and is not listed on this server; ' +
      'the operator lists it with `capstate serve --evidence-dir DIR` (or `--allow-browser`)'
    );
  return null;
}

/** Builds the catalog of the served capture. `reserveBytes` exists for tests and benches. */
export async function buildCatalog(
  ctx: ServeContext,
  opts: { reserveBytes?: number; browser?: BrowserPolicy; sqlTimeoutMs?: number; maxAnswerBytes?: number } = {},
): Promise<Catalog> {
  const browser = opts.browser ?? CLOSED_BROWSER_POLICY;
  const reserve = opts.reserveBytes ?? CATALOG_RESERVE_BYTES;
  const tools: Tool[] = [];
  const environmentTools: Tool[] = [];
  const shortened: string[] = [];
  const leftOut: string[] = [];
  let used = 0;
  /** Charges a tool against the reserve: its full description, else the minimal one, else it is left out. */
  const admit = (name: string, make: (description: string) => Tool, full: string, minimal: string): boolean => {
    let def = make(full);
    let size = bytesOf(def);
    if (used + size > reserve) {
      def = make(minimal);
      size = bytesOf(def);
      if (used + size > reserve) {
        leftOut.push(name);
        return false;
      }
      shortened.push(name);
    }
    used += size;
    tools.push(def);
    environmentTools.push(def);
    return true;
  };
  // The analysis tools are fixed text and come first, so a large capture cannot crowd them out.
  // Tools that are not about the app are listed only when the operator asked for them (unlistedWhy).
  for (const t of ANALYSIS_TOOLS) {
    if (unlistedWhy(t.name, browser) !== null) continue;
    tools.push(t);
    used += bytesOf(t);
  }
  for (const t of DATA_PLANE_TOOLS) {
    tools.push(t);
    used += bytesOf(t);
  }
  for (const mt of ctx.manifest.tools) {
    if (ANALYSIS_TOOL_NAMES.has(mt.name) || DATA_PLANE_TOOL_NAMES.has(mt.name)) {
      leftOut.push(mt.name);
      continue;
    } // names are method-prefixed; never expected
    const input = await toolInputCached(ctx, mt);
    const described = await describeTool(ctx, mt);
    const make = (description: string): Tool => ({
      name: mt.name,
      description,
      inputSchema: input.schema as Tool['inputSchema'],
      annotations: hintsFor(mt.method, mt.is_query_post, ctx.vocabulary.isSafeMethod(mt.method)),
    });
    admit(mt.name, make, described.text, minimalDescription(mt));
    // Issue 48: each operation the capture sent to a GraphQL endpoint is a tool of its own, listed after it
    // (and charged as any tool: one that does not fit is left out and named, with or without its endpoint).
    for (const op of await graphqlOperations(ctx, mt)) {
      const makeOp = (description: string): Tool => ({
        name: op.name,
        description,
        inputSchema: op.inputSchema as Tool['inputSchema'],
        annotations: operationHints(op.kind, op.effects),
      });
      admit(op.name, makeOp, op.description, `GraphQL ${op.kind} ${op.stableName} on ${mt.method.toUpperCase()} ${mt.template}`);
    }
  }
  const limitations: string[] = [];
  if (shortened.length)
    limitations.push(
      `${shortened.length} tool description${shortened.length === 1 ? '' : 's'} shortened to METHOD template to fit the catalog reserve of ${reserve} bytes`,
    );
  if (leftOut.length)
    limitations.push(`${leftOut.length} tool${leftOut.length === 1 ? '' : 's'} left out: the catalog reserve of ${reserve} bytes is spent`);
  return {
    tools,
    environmentTools,
    bytes: used,
    reserveBytes: reserve,
    shortened,
    leftOut,
    limitations,
    browser,
    sqlTimeoutMs: opts.sqlTimeoutMs ?? DEFAULT_SQL_TIMEOUT_MS,
    maxAnswerBytes: opts.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES,
  };
}

export interface CardTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/** The environment card (MCP-2): per tool only `name`, `description`, `inputSchema` — no hints. */
export function environmentCard(ctx: ServeContext, catalog: Catalog): Record<string, unknown> {
  return {
    ok: true,
    capture: {
      id: ctx.captureId,
      path: ctx.manifest.capture_path,
      sha256: ctx.captureSha256,
      subject_origin: ctx.manifest.admission.subject_origin,
    },
    warning: UNTRUSTED_CATALOG_WARNING,
    tools: catalog.environmentTools.map(
      (t): CardTool => ({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema as JsonSchema }),
    ),
    catalog: { bytes: catalog.bytes, reserve_bytes: catalog.reserveBytes, shortened: catalog.shortened, left_out: catalog.leftOut },
    limitations: catalog.limitations,
  };
}
