import { defineCommand } from 'citty';
import { CapstateError } from '../errors.js';
import { printStoredState, stateArgs } from './state.js';

/** The analysis views by their spec names (ES-1); `environment-state` is the one so far. */
const KINDS = ['environment-state'] as const;

export default defineCommand({
  meta: {
    name: 'inspect-analysis-view',
    description: 'Print an analysis view by its spec name: --view \'{"kind":"environment-state"}\' (JSON, as `state --json`)',
  },
  args: {
    ...stateArgs,
    view: { type: 'string', description: 'The view, as JSON: {"kind":"environment-state"}', required: true, valueHint: 'JSON' },
  },
  async run({ args: a, rawArgs }) {
    let view: unknown;
    try {
      view = JSON.parse(a.view);
    } catch (e) {
      throw new CapstateError('usage', `--view is not JSON: ${(e as Error).message}`, {}, 2);
    }
    const kind = (view as { kind?: unknown } | null)?.kind;
    if (typeof view !== 'object' || view === null || Array.isArray(view) || !KINDS.includes(kind as never)) {
      throw new CapstateError('usage', `--view must be {"kind": ${KINDS.map((k) => JSON.stringify(k)).join(' | ')}}`, {}, 2);
    }
    const extra = Object.keys(view).filter((key) => key !== 'kind');
    if (extra.length)
      throw new CapstateError('usage', `--view has unknown member${extra.length > 1 ? 's' : ''} ${extra.join(', ')}`, {}, 2);
    await printStoredState(a, rawArgs, { json: true, out: a.out });
  },
});
