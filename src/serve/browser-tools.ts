/**
 * The browser analysis tools: `capture_browser_scenario` (BS-1) and `compare_web_captures`
 * (BS-72). Thin wrappers over the core functions the CLI commands call, with the same
 * input objects.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { captureBrowserScenario, stepLine, type Evidence } from '../browser/index.js';
import { toJson } from '../json/output.js';
import { compareWebCaptures, summarize, MAX_RULES } from '../compare/index.js';
import { RULE_ARTIFACT_KINDS, MAX_LITERAL_CHARS } from '../compare/policy.js';
import { CapstateError } from '../errors.js';
import { hintsFor } from './hints.js';
import { allowedSecretEnv, applyBrowserPolicy, evidencePath, type BrowserPolicy } from './browser-policy.js';
import { toPlain } from './results.js';

/**
 * Hints (MCP-1, OQ-38, our reading in docs/decisions.md "Comparing captures"): MCP-1's
 * table speaks of the environment's replay tools, which never leave the capture. A
 * capture drives a real browser against the caller's URLs, so it is not read-only, not
 * idempotent, and open-world; `destructiveHint` stays unset (the MCP default applies, as
 * MCP-1 leaves it for writes), since a scenario's clicks and request steps may change the
 * app. A comparison only reads two captures: MCP-1's GET row.
 */
export const CAPTURE_HINTS = { readOnlyHint: false, idempotentHint: false, openWorldHint: true } as const;
// A fixed, read-only tool of capstate's own, defined before any store is open (so not from a vocabulary).
export const COMPARE_HINTS = hintsFor('GET', false, true);

const evidenceRef = { description: 'The Evidence object itself (as capture_browser_scenario returns it), or the path of an Evidence file under the server\'s evidence directory', anyOf: [{ type: 'string' }, { type: 'object' }] };

export const BROWSER_TOOLS: Tool[] = [
  {
    name: 'capture_browser_scenario',
    description: 'Drive Chromium through a declarative scenario (the object `capstate capture-browser-scenario` takes: browser, start_url, ' +
      'actions, capture, …) against the URLs it names, and return the scenario Evidence as structuredContent. Nothing is written to disk. ' +
      'The browser is the one the server was started with; secrets may name only the environment variables the server allows.',
    inputSchema: {
      type: 'object',
      properties: {
        browser: { type: 'object', description: '{"mode": "launch"} starts the browser this server was configured with (executable_path may be left out); {"mode": "connect"} attaches only to the endpoint the server was started with' },
        start_url: { type: 'object', description: '{"url": "http://127.0.0.1:3000/"}' },
        actions: { type: 'array', items: { type: 'object' }, description: 'Steps, each with a unique step_id and an action (goto, click, fill, press, select_option, check, uncheck, wait_for, wait_for_timeout, request)' },
        environment: { type: 'object' }, secrets: { type: 'array', items: { type: 'object' } }, storage: { type: 'object' },
        capture: { type: 'object', description: 'after_each_step, at_end, events, network, limits' },
        command_timeout_ms: { type: 'integer', minimum: 1 },
      },
      required: ['browser', 'start_url', 'actions'],
      additionalProperties: false,
    },
    annotations: CAPTURE_HINTS,
  },
  {
    name: 'compare_web_captures',
    description: 'Compare two browser scenario captures step by step: per aligned step_id `changed`, `unchanged` or `unknown`, ' +
      'with per-artifact before/after digests and states, alignment failures, and the normalization commitment with its SHA-256.',
    inputSchema: {
      type: 'object',
      properties: {
        before: evidenceRef,
        after: evidenceRef,
        options: {
          type: 'object',
          properties: {
            ignore_network_request_timing: { type: 'boolean', default: true },
            preserve_redirect_transaction_ancestry: { type: 'boolean', default: true },
            compare_storage_entries_as_unordered_collection: { type: 'boolean', default: true },
          },
          additionalProperties: false,
        },
        rules: {
          type: 'array', maxItems: MAX_RULES,
          description: 'Exact-literal replacements, applied in canonical order to retained strings of the named artifact kinds',
          items: {
            type: 'object',
            properties: {
              artifact_kinds: { type: 'array', minItems: 1, items: { type: 'string', enum: [...RULE_ARTIFACT_KINDS] } },
              find: { type: 'string', minLength: 1, maxLength: MAX_LITERAL_CHARS },
              replace: { type: 'string', maxLength: MAX_LITERAL_CHARS },
            },
            required: ['artifact_kinds', 'find', 'replace'],
            additionalProperties: false,
          },
        },
      },
      required: ['before', 'after'],
      additionalProperties: false,
    },
    annotations: COMPARE_HINTS,
  },
];

function argsObject(tool: string, args: unknown, allowed: string[]): Record<string, unknown> {
  const a = args ?? {};
  if (typeof a !== 'object' || Array.isArray(a)) throw new CapstateError('bad-arguments', `${tool}: arguments must be an object`, { tool });
  for (const k of Object.keys(a)) if (!allowed.includes(k)) throw new CapstateError('bad-arguments', `${tool}: unknown argument ${JSON.stringify(k)}; arguments: ${allowed.join(', ')}`, { tool, argument: k });
  return a as Record<string, unknown>;
}

/** Answers a browser tool call; throws CapstateError for bad input. */
export async function callBrowserTool(name: string, args: unknown, policy: BrowserPolicy, signal?: AbortSignal): Promise<CallToolResult> {
  if (name === 'capture_browser_scenario') {
    // The operator's browser and secrets, never the caller's (src/serve/browser-policy.ts).
    const scenario = applyBrowserPolicy(policy, argsObject(name, args, ['browser', 'start_url', 'actions', 'environment', 'secrets', 'storage', 'capture', 'command_timeout_ms']));
    const evidence: Evidence = await captureBrowserScenario(scenario, { signal, env: allowedSecretEnv(policy) });
    const steps = evidence.steps.map(stepLine).join('; ');
    const head = `Evidence of ${evidence.steps.length} step(s) on ${evidence.scenario.start_url} (${steps}); ${evidence.events.length} events. ` +
      'Nothing was written to disk: the Evidence is only in this result (structuredContent). Pass it inline to compare_web_captures, or save it to a file for `capstate load`.';
    return { content: [{ type: 'text', text: head }, { type: 'text', text: toJson(evidence, 0) }], structuredContent: toPlain(evidence) as Record<string, unknown> };
  }
  const a = argsObject(name, args, ['before', 'after', 'options', 'rules']);
  // Files only under the operator's evidence directory; inline Evidence always.
  const side = (s: 'before' | 'after', v: unknown) => (typeof v === 'string' ? evidencePath(policy, s, v) : v);
  const r = compareWebCaptures({ before: side('before', a.before), after: side('after', a.after), options: a.options, rules: a.rules });
  const doc = { ok: true, ...r };
  return { content: [{ type: 'text', text: summarize(r) }, { type: 'text', text: toJson(doc, 0) }], structuredContent: toPlain(doc) as Record<string, unknown> };
}
