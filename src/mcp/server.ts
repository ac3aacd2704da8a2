/**
 * The MCP server: the catalog (src/serve/catalog.ts) on tools/list, and every tools/call
 * through answerCall (environment tools) or callAnalysisTool. Failures come back as the
 * one error shape with `isError: true`, and the server keeps serving.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CapstateError } from '../errors.js';
import { capstateVersion } from '../store/open.js';
import { ANALYSIS_TOOL_NAMES, callAnalysisTool } from '../serve/analysis.js';
import { answerCall, checkArgumentDepth } from '../model/served/call.js';
import { buildCatalog, unlistedWhy, type Catalog } from '../serve/catalog.js';
import type { ServeContext } from '../model/served/context.js';
import type { BrowserPolicy } from '../serve/browser-policy.js';
import { UNTRUSTED_CATALOG_WARNING } from '../serve/descriptions.js';
import { answerResult, errorResult } from '../serve/results.js';
import { boundToolResult } from '../serve/answer-bounds.js';
import { callDataPlaneTool, DATA_PLANE_TOOL_NAMES } from '../serve/data-plane.js';
import { defaultModel, ServedModel } from '../model/served/model.js';

const version = capstateVersion;

/**
 * Answers one tools/call: the same path for every transport (and the bench). A result over
 * the catalog's answer limit is an `answer-too-large` error result instead (issue 42).
 */
export async function callTool(
  ctx: ServeContext,
  catalog: Catalog,
  name: string,
  args: unknown,
  signal?: AbortSignal,
  model: ServedModel = defaultModel(ctx),
): Promise<CallToolResult> {
  return boundToolResult(await answerTool(ctx, catalog, name, args, signal, model), name, catalog.maxAnswerBytes);
}

async function answerTool(
  ctx: ServeContext,
  catalog: Catalog,
  name: string,
  args: unknown,
  signal: AbortSignal | undefined,
  model: ServedModel,
): Promise<CallToolResult> {
  try {
    // load_state refuses its own state, too deep, as bad-state (src/serve/data-plane.ts).
    if (name !== 'load_state') checkArgumentDepth(name, args);
    if (ANALYSIS_TOOL_NAMES.has(name)) {
      // A tool left out of the list is not answered either (capture_browser_scenario keeps its own refusal, the policy's).
      const why = name === 'capture_browser_scenario' ? null : unlistedWhy(name, catalog.browser);
      if (why !== null) throw new CapstateError('tool-not-listed', why, { tool: name });
      return await callAnalysisTool(ctx, name, args, signal, catalog.browser, catalog.sqlTimeoutMs);
    }
    if (DATA_PLANE_TOOL_NAMES.has(name)) return await callDataPlaneTool(ctx, model, name, args);
    if (!catalog.tools.some((t) => t.name === name)) {
      const why = catalog.leftOut.includes(name) ? ' (left out of the catalog: the catalog reserve is spent)' : '';
      throw new CapstateError(
        'unknown-tool',
        `no tool ${JSON.stringify(name)} in this environment${why}; list the tools to see the names`,
        { tool: name },
      );
    }
    return answerResult(await answerCall(ctx, name, args, model));
  } catch (e) {
    return errorResult(e, [name, args]);
  }
}

export interface CapstateServer {
  server: Server;
  catalog: Catalog;
  model: ServedModel;
}

/** An MCP server over one served capture; connect it to any transport. */
export async function createServer(
  ctx: ServeContext,
  opts: { reserveBytes?: number; browser?: BrowserPolicy; sqlTimeoutMs?: number; maxAnswerBytes?: number } = {},
): Promise<CapstateServer> {
  const catalog = await buildCatalog(ctx, opts);
  const m = ctx.manifest;
  const instructions = [
    `capstate replays a recorded capture of ${m.admission.subject_origin} (capture ${ctx.captureId}, ${m.admission.admitted_records} admitted records).`,
    "Each environment tool answers from the inferred state (reads; writes the capture verified take effect on this session's own copy) or with a retained recorded response, and says which and why; nothing reaches the network.",
    "reset_state, get_state and load_state reset, read and replace this session's copy of the state.",
    UNTRUSTED_CATALOG_WARNING,
    ...catalog.limitations.map((l) => `Catalog limitation: ${l}.`),
  ].join('\n');
  const server = new Server({ name: 'capstate', version }, { capabilities: { tools: {} }, instructions });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: catalog.tools }));
  // Each server (one per MCP session) works on its own copy of the stored state.
  const model = new ServedModel(ctx);
  server.setRequestHandler(CallToolRequestSchema, (req, extra) =>
    callTool(ctx, catalog, req.params.name, req.params.arguments, extra.signal, model),
  );
  return { server, catalog, model };
}
