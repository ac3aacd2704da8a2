/**
 * The one place the served environment reaches the environment-state view (ES-1): the
 * same document `capstate state --json` prints.
 */
import { environmentState, stateDocumentValue } from '../state/index.js';
import type { ServeContext } from './context.js';

/** The `environment-state` analysis view of capture `parent`. */
export async function environmentStateView(ctx: ServeContext, parent: number): Promise<Record<string, unknown>> {
  return stateDocumentValue(await environmentState(ctx.k, parent));
}
