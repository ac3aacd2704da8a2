import { defineCommand } from 'citty';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { captureBrowserScenario, stepLine, type Evidence } from '../browser/index.js';
import { CapstateError } from '../errors.js';
import { parseExactJson, plainJson } from '../json/exact.js';
import { jsonArg, log, out, printJson } from './common.js';
import { toJson } from '../json/output.js';
import { plainText } from '../model/plan/words.js';

export const args = {
  ...jsonArg,
  out: { type: 'string', alias: 'o', description: 'Write the Evidence to FILE (then stdout gets a summary)', valueHint: 'FILE' },
} as const;

/**
 * BS-1: INPUT_JSON is inline JSON (it starts with `{`) or a path to a JSON file. Parsed by
 * the one exact parser, so a request body keeps big integers digit for digit and a
 * duplicate key is refused rather than silently resolved.
 */
export function readScenarioInput(input: string): { value: unknown; file?: string } {
  const inline = input.trimStart().startsWith('{');
  let text = input;
  const file = inline ? undefined : input;
  if (!inline) {
    if (!existsSync(input))
      throw new CapstateError(
        'no-such-file',
        `${input}: no such file (INPUT_JSON is inline JSON starting with "{" or a path to a JSON file)`,
        { file: input },
      );
    text = readFileSync(input, 'utf8');
  }
  const parsed = parseExactJson(text);
  if (!parsed.ok)
    throw new CapstateError('bad-json', `the scenario is not valid JSON (${parsed.reason}): ${parsed.detail}`, file ? { file } : {});
  return { value: plainJson(parsed.value), file };
}

function summary(e: Evidence): Record<string, unknown> {
  const network = e.events.filter((ev) => ev.kind === 'request').length;
  return {
    start_url: e.scenario.start_url,
    initial_state: e.initial_state.status,
    steps: e.steps.map((s) => ({ step_id: s.step_id, status: s.status, ...(s.error ? { error: s.error.message } : {}) })),
    events: e.events.length,
    network_transactions: network,
    omitted: Object.fromEntries(Object.entries(e.omissions.by_kind).map(([k, v]) => [k, v.count])),
    equality_eligible: e.equality.eligible,
  };
}

export default defineCommand({
  meta: {
    name: 'capture-browser-scenario',
    description:
      'Drive Chromium through a declarative scenario (INPUT_JSON: inline JSON or a file) and write scenario Evidence that `capstate load` reads',
  },
  args: {
    ...args,
    input: {
      type: 'positional',
      description: 'The scenario: inline JSON or a path to a JSON file',
      required: true,
      valueHint: 'INPUT_JSON',
    },
  },
  async run({ args: a }) {
    const { value, file } = readScenarioInput(a.input as string);
    // SIGINT/SIGTERM cancel the capture; cleanup still runs (BS-23).
    const abort = new AbortController();
    const cancel = () => {
      log('cancelling the capture (cleanup runs first)');
      abort.abort();
    };
    process.once('SIGINT', cancel);
    process.once('SIGTERM', cancel);
    let evidence: Evidence;
    try {
      evidence = await captureBrowserScenario(value, { file, signal: abort.signal, onStep: (id) => log(`step ${id}: running`) });
    } finally {
      process.off('SIGINT', cancel);
      process.off('SIGTERM', cancel);
    }
    for (const s of [evidence.initial_state, ...evidence.steps]) {
      if (s.status === 'failed')
        log(
          `${'step_id' in s ? `step ${(s as { step_id: string }).step_id}` : 'initial navigation'} failed: ${plainText(s.error?.message ?? '')}`,
        );
    }
    const lines = (head: string, tail: string) => {
      const s = summary(evidence);
      return [
        head,
        ...evidence.steps.map((st) => `  ${plainText(stepLine(st))}`),
        `  ${s.events} events, ${s.network_transactions} network transactions retained`,
        tail,
      ].join('\n');
    };
    if (a.out) {
      const tmp = `${a.out}.tmp-${process.pid}`;
      writeFileSync(tmp, toJson(evidence) + '\n');
      renameSync(tmp, a.out);
      if (a.json) return printJson({ ok: true, out: a.out, ...summary(evidence) });
      return out(
        lines(
          `${a.out}: Evidence of ${evidence.steps.length} step(s) on ${evidence.scenario.start_url}`,
          `load it: capstate load ${a.out}`,
        ),
      );
    }
    if (a.json) return printJson({ ok: true, ...evidence });
    out(
      lines(
        `Evidence of ${evidence.steps.length} step(s) on ${evidence.scenario.start_url}`,
        'the Evidence itself: add --json (stdout) or --out FILE',
      ),
    );
  },
});
