/**
 * The one place the served environment reaches the environment-state view (ES-1).
 * src/state (the renderer) is not part of this build, so the view answers
 * `not-available`; the state renderer replaces this function's body and nothing else.
 */
import { CapstateError } from '../errors.js';
import type { ServeContext } from './context.js';

/** The `environment-state` analysis view of capture `parent` (not available in this build). */
export async function environmentStateView(_ctx: ServeContext, parent: number): Promise<Record<string, unknown>> {
  throw new CapstateError('not-available',
    'the environment-state view is not available in this build (src/state is not part of it yet); ' +
    'tools answer by replaying retained records, and the environment-manifest view is available',
    { parent, view: 'environment-state' });
}
