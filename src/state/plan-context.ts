/**
 * What a tool's plans and its document are formed from, shared by the plans step
 * (steps/plans.ts), its list lines (plan-list-lines.ts), its view base (plan-view-base.ts) and
 * the documents step (steps/documents.ts): the context one read tool is planned in, the reasons
 * it collects, and the small checks all of them make. Moved out of steps/plans.ts (issue 43) so
 * those modules share it without importing each other: a documents step importing the plans
 * step's helpers, which imports the documents step, would be a run-time cycle.
 */
import { stringifyExact, type JsonValue } from '../json/exact.js';
import type { Observation } from './steps/merge-entities.js';
import type { ReadLine, StateFacts } from './facts.js';
import { lineName, type Collections } from '../model/plan/render.js';
import type { Reason } from '../model/plan/types.js';
import type { ViewShaping } from '../model/plan/variants.js';

/** OQ-30 / DOC-4: the rendered-size limit, compact exact JSON in UTF-8 bytes. */
export const MAX_RENDERED_BYTES = 262_144;

export const ok = (status: number) => status >= 200 && status <= 299;
export const renderedBytes = (v: JsonValue) => Buffer.byteLength(stringifyExact(v), 'utf8');

export interface Outcome {
  reasons: { reason: Reason; detail: string }[];
}

export { lineName };

export interface Ctx {
  facts: StateFacts;
  state: Collections;
  tool: string;
  collection: string;
  lines: ReadLine[];
  initial: ReadLine[];
  /** The initial reads, projections and variants included. */
  initialAll: ReadLine[];
  obs: Observation[];
  shaping: ViewShaping;
}

export function noInitialDetail(reads: ReadLine[], projected = 0): string {
  if (projected > 0)
    return `its ${projected} initial read${projected === 1 ? ' is a projection or variant' : 's are projections or variants'} (ES-12..ES-19)`;
  return reads.length === 1
    ? `its one record comes after the type's bound (ES-8/ES-9)`
    : `all ${reads.length} of its records come after the type's bound (ES-8/ES-9)`;
}

export function unusableLines(ctx: Ctx, reasons: Outcome['reasons'], need: (r: ReadLine) => boolean): void {
  for (const r of ctx.lines) {
    if (need(r) && !ctx.facts.bodyUsable(r.response_body_id)) {
      reasons.push({ reason: 'body-unusable', detail: `record #${r.ordinal} (${lineName(r)}) has no usable JSON body (ES-4)` });
      return;
    }
  }
}
