/**
 * The one place the served environment reaches the environment-state view (ES-1): the
 * same document `capstate state --json` prints, rebuilt from the stored state_* tables.
 */
import { stateDocumentValue } from '../state/index.js';
import { readStoredState } from '../model/plan/stored.js';
import type { ServeContext } from '../model/served/context.js';

/** The `environment-state` analysis view of capture `parent`, rebuilt from its stored rows. */
export async function environmentStateView(ctx: ServeContext, parent: number): Promise<Record<string, unknown>> {
  return stateDocumentValue(await readStoredState(ctx.k, parent, ctx.storeName));
}
