/**
 * Issue 44 (kinds 1 and 8): pages served in the page envelope a recorded page proved
 * (src/model/plan/page-envelope.ts; the state pass keeps it on the list plan,
 * `ListPlan.page_envelope`). A list pages in its own; a list of the API called with the same
 * window keys pages in another list's, marked `api-page-envelope` (the habit is the API's until
 * the capture shows otherwise).
 */
import type { JsonValue } from '../../json/exact.js';
import type { ListPlan, PageEnvelope } from '../plan/types.js';
import { perContext, type ServeContext } from './context.js';
import { servedListPlans } from './model.js';
import { envelopeOf } from './read-index.js';
import { toolRecords } from './records.js';

/** A list's page envelope, with the tool whose recorded page proved it. */
export interface ServedPageEnvelope extends PageEnvelope {
  tool: string;
}

/** The page envelopes the API's list plans hold, read once per served store. */
export const pageEnvelopes = perContext(
  async (ctx): Promise<ServedPageEnvelope[]> =>
    (await servedListPlans(ctx)).flatMap((plan) => (plan.page_envelope ? [{ ...plan.page_envelope, tool: plan.tool }] : [])),
);

/**
 * The page envelope a call naming the window keys `keys` renders in for `plan`, with the
 * recorded page's answer and status: its own, else one another list of the API proved with the same keys;
 * null when none.
 */
export async function pageEnvelopeFor(
  ctx: ServeContext,
  plan: ListPlan,
  keys: readonly string[],
): Promise<{ reading: ServedPageEnvelope; envelope: JsonValue; status: number } | null> {
  const same = (r: PageEnvelope) => r.keys.length === keys.length && keys.every((k) => r.keys.includes(k));
  const readings = (await pageEnvelopes(ctx)).filter(same);
  const reading = readings.find((r) => r.tool === plan.tool) ?? readings[0];
  const envelope = reading && (await envelopeOf(ctx, reading.record_ordinal));
  const record = reading && (await toolRecords(ctx, reading.tool)).find((r) => r.ordinal === reading.record_ordinal);
  return reading && record && envelope !== undefined ? { reading, envelope, status: record.status } : null;
}
