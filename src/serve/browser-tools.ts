/**
 * The browser analysis tools: `capture_browser_scenario` (BS-1) and `compare_web_captures`
 * (BS-72). Thin wrappers over the core functions the CLI commands call, with the same
 * input objects.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { captureBrowserScenario, stepLine, type Evidence } from '../browser/index.js';
import { toJson } from '../json/output.js';
import { mcpScenarioSchema } from '../browser/schema.js';
import { compareWebCaptures, summarize } from '../compare/index.js';
import { comparisonPolicySchema } from '../compare/policy.js';
import { CapstateError } from '../errors.js';
import { firstIssue } from '../json/zod-issue.js';
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

/**
 * A tool's `inputSchema`: the JSON Schema of its declaration, as a caller may send it
 * (without `$schema`, and without an open object's `properties: {}` and
 * `additionalProperties: {}`, which say nothing).
 */
function inputSchemaOf(schema: z.ZodType): Tool['inputSchema'] {
  const override = ({ jsonSchema: j }: { jsonSchema: Record<string, unknown> }) => {
    for (const k of ['properties', 'additionalProperties']) {
      const v = j[k];
      if (v !== null && typeof v === 'object' && Object.keys(v).length === 0) delete j[k];
    }
  };
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input', override }) as Record<string, unknown>;
  return json as Tool['inputSchema'];
}

const evidenceRef = z
  .union([z.string(), z.looseObject({})], { error: 'must be an Evidence object or the path of an Evidence file' })
  .describe(
    "The Evidence object itself (as capture_browser_scenario returns it), or the path of an Evidence file under the server's evidence directory",
  );

/** compare_web_captures' arguments: the two captures and the comparison policy's members. */
export const COMPARE_ARGUMENTS = z.strictObject({ before: evidenceRef, after: evidenceRef, ...comparisonPolicySchema.shape });

export const BROWSER_TOOLS: Tool[] = [
  {
    name: 'capture_browser_scenario',
    description:
      'Drive Chromium through a declarative scenario (the object `capstate capture-browser-scenario` takes: browser, start_url, ' +
      'actions, capture, …) against the URLs it names, and return the scenario Evidence as structuredContent. Nothing is written to disk. ' +
      'The browser is the one the server was started with; secrets may name only the environment variables the server allows.',
    // The scenario's own declaration, with the browser's executable and endpoint left to the server.
    inputSchema: inputSchemaOf(mcpScenarioSchema),
    annotations: CAPTURE_HINTS,
  },
  {
    name: 'compare_web_captures',
    description:
      'Compare two browser scenario captures step by step: per aligned step_id `changed`, `unchanged` or `unknown`, ' +
      'with per-artifact before/after digests and states, alignment failures, and the normalization commitment with its SHA-256.',
    inputSchema: inputSchemaOf(COMPARE_ARGUMENTS),
    annotations: COMPARE_HINTS,
  },
];

/**
 * compare_web_captures' arguments checked against their declaration: an unknown or missing
 * argument, or a capture that is neither a path nor an object, is `bad-arguments`; what is
 * wrong inside options and rules is left to readPolicy (`bad-comparison-policy`).
 */
function compareArguments(args: unknown): z.infer<typeof COMPARE_ARGUMENTS> {
  const tool = 'compare_web_captures';
  const input = args ?? {};
  const r = COMPARE_ARGUMENTS.safeParse(input);
  if (r.success) return input as z.infer<typeof COMPARE_ARGUMENTS>;
  const mine = r.error.issues.filter((i) => i.path[0] !== 'options' && i.path[0] !== 'rules');
  if (mine.length === 0) return input as z.infer<typeof COMPARE_ARGUMENTS>;
  const { issue, path, missing } = firstIssue(mine, input);
  if (path.length === 0) throw new CapstateError('bad-arguments', `${tool}: arguments must be an object`, { tool });
  const argument = String(path[0]);
  const message =
    issue.code === 'unrecognized_keys'
      ? `unknown argument ${JSON.stringify(argument)}; arguments: ${Object.keys(COMPARE_ARGUMENTS.shape).join(', ')}`
      : missing
        ? `missing required argument ${JSON.stringify(argument)}: an Evidence file path or an Evidence object`
        : `${argument}: ${issue.message}`;
  throw new CapstateError('bad-arguments', `${tool}: ${message}`, { tool, argument });
}

/** Answers a browser tool call; throws CapstateError for bad input. */
export async function callBrowserTool(name: string, args: unknown, policy: BrowserPolicy, signal?: AbortSignal): Promise<CallToolResult> {
  if (name === 'capture_browser_scenario') {
    // The operator's browser and secrets, never the caller's (src/serve/browser-policy.ts).
    // The scenario's validator names any unknown or wrong argument (invalid-scenario, with its path).
    const scenario = applyBrowserPolicy(policy, (args ?? {}) as Record<string, unknown>);
    const evidence: Evidence = await captureBrowserScenario(scenario, { signal, env: allowedSecretEnv(policy) });
    const steps = evidence.steps.map(stepLine).join('; ');
    const head =
      `Evidence of ${evidence.steps.length} step(s) on ${evidence.scenario.start_url} (${steps}); ${evidence.events.length} events. ` +
      'Nothing was written to disk: the Evidence is only in this result (structuredContent). Pass it inline to compare_web_captures, or save it to a file for `capstate load`.';
    return {
      content: [
        { type: 'text', text: head },
        { type: 'text', text: toJson(evidence, 0) },
      ],
      structuredContent: toPlain(evidence) as Record<string, unknown>,
    };
  }
  const a = compareArguments(args);
  // Files only under the operator's evidence directory; inline Evidence always.
  const side = (s: 'before' | 'after', v: unknown) => (typeof v === 'string' ? evidencePath(policy, s, v) : v);
  const r = compareWebCaptures({ before: side('before', a.before), after: side('after', a.after), options: a.options, rules: a.rules });
  const doc = { ok: true, ...r };
  return {
    content: [
      { type: 'text', text: summarize(r) },
      { type: 'text', text: toJson(doc, 0) },
    ],
    structuredContent: toPlain(doc) as Record<string, unknown>,
  };
}
