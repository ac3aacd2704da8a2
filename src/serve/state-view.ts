/**
 * The one place the served environment reaches the environment-state view (ES-1): the
 * same document `capstate state --json` prints.
 */
import { environmentState, stateDocumentValue } from '../state/index.js';
import type { ServeContext } from './context.js';
import { servedState } from './from-state.js';

/** The `environment-state` analysis view of capture `parent` (the served one's state is computed once). */
export async function environmentStateView(ctx: ServeContext, parent: number): Promise<Record<string, unknown>> {
  const state = parent === ctx.captureId ? (await servedState(ctx)).state : await environmentState(ctx.k, parent);
  return stateDocumentValue(state);
}
