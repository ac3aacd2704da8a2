import { defineCommand } from 'citty';
import { plainText } from '../model/plan/words.js';
import { compareWebCaptures, summarize } from '../compare/index.js';
import { CapstateError } from '../errors.js';
import { readScenarioInput } from './capture-browser-scenario.js';
import { jsonArg, out, printJson } from './common.js';

export const args = {
  ...jsonArg,
  policy: {
    type: 'string',
    description: 'Comparison policy: inline JSON or a file with {"options": {…}, "rules": [{"artifact_kinds", "find", "replace"}]}',
    valueHint: 'POLICY_JSON',
  },
} as const;

/** `{options?, rules?}` from --policy, parsed by the one exact parser (same members as the MCP tool's input). */
function readPolicyArg(policy: string | undefined): { options?: unknown; rules?: unknown } {
  if (policy === undefined) return {};
  const { value } = readScenarioInput(policy);
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new CapstateError('bad-comparison-policy', '--policy must be a JSON object {"options"?, "rules"?}', { path: 'policy' });
  for (const k of Object.keys(value))
    if (k !== 'options' && k !== 'rules')
      throw new CapstateError('bad-comparison-policy', `unknown policy member ${JSON.stringify(k)}; members: options, rules`, { path: k });
  return value as { options?: unknown; rules?: unknown };
}

export default defineCommand({
  meta: {
    name: 'compare-web-captures',
    description:
      'Compare two browser scenario captures (Evidence files) step by step: changed, unchanged or unknown per step and artifact, under a committed normalization',
  },
  args: {
    ...args,
    before: { type: 'positional', description: 'The earlier Evidence file', required: true, valueHint: 'A' },
    after: { type: 'positional', description: 'The later Evidence file', required: true, valueHint: 'B' },
  },
  run({ args: a }) {
    const r = compareWebCaptures({
      before: a.before as string,
      after: a.after as string,
      ...readPolicyArg(a.policy as string | undefined),
    });
    if (a.json) return printJson({ ok: true, ...r });
    out(plainText(summarize(r)));
  },
});
