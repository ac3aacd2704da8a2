/**
 * @rule DOC-2, DOC-3, DOC-4, DOC-5
 * Documents, a step of the state pass beside forming plans (steps/plans.ts, which calls it for
 * a GET list tool without an entity plan): the tool's latest initial value saved as it was
 * (DOC-2; which paths name files is the view `file_documents`, DOC-1, and which read the whole
 * database `database_documents`, DOC-7), unless it is no successful answer (a 4xx is the API's
 * not-found, issue 46), that value changed across a recorded write (DOC-3), renders to more
 * than the rendered-size limit (DOC-4; `MAX_RENDERED_BYTES` is ../plan-context.ts's, as plans'
 * `rendered-oversize` check uses it too), or its initial reads cover more than one path or
 * query string (DOC-5). Its reasons join the plans step's, reported by precedence (DOC-6).
 */
import { jsonEqual } from '../../model/plan/json.js';
import type { StateDocument } from '../../model/plan/types.js';
import type { ReadLine } from '../facts.js';
import {
  MAX_RENDERED_BYTES,
  lineName,
  noInitialDetail,
  ok,
  renderedBytes,
  unusableLines,
  type Ctx,
  type Outcome,
} from '../plan-context.js';
import { writeBetween } from './change-bounds.js';

/** DOC-2..DOC-5: the document of a GET list tool without an entity plan, or the reasons it has none. */
export function documentOf(ctx: Ctx, reads: ReadLine[], reasons: Outcome['reasons']): StateDocument | null {
  if (ctx.initial.length === 0) {
    // OQ-26 / OQ-29: e.g. a list read only after its first write.
    reasons.push({ reason: 'no-initial-record', detail: noInitialDetail(reads, reads.filter((r) => r.is_initial).length) });
    return null;
  }
  if (ctx.lines.length > 1) {
    const paths = new Set(ctx.lines.map((l) => l.path));
    reasons.push(
      paths.size > 1
        ? { reason: 'path-varies', detail: `its initial reads have ${paths.size} paths (DOC-5)` }
        : { reason: 'query-varies', detail: `its initial reads have ${ctx.lines.length} query strings on one path (DOC-5)` },
    );
  }
  // Issue 46: only a successful answer is the path's value. A 4xx (json-server's `{}` for an
  // unknown path) is the API's not-found evidence, which serving reads from the records
  // (model/served notFound); as a document it would answer the path as if it held `{}`.
  const failed = ctx.lines.find((l) => !ok(l.status));
  if (failed) {
    reasons.push({
      reason: 'fields-differ',
      detail: `record #${failed.ordinal} (${lineName(failed)}) answered ${failed.status}, which is no document (DOC-2)`,
    });
  }
  unusableLines(ctx, reasons, () => true);
  // DOC-3: a value that changed across any recorded write keeps the tool recorded.
  for (let i = 1; i < ctx.initial.length; i++) {
    const [a, b] = [ctx.initial[i - 1], ctx.initial[i]];
    if (a.path !== b.path || a.query !== b.query) continue;
    const w = writeBetween(ctx.facts, a, b)?.ordinal;
    if (w !== undefined && !jsonEqual(ctx.facts.bodyValue(a.response_body_id), ctx.facts.bodyValue(b.response_body_id))) {
      reasons.push({
        reason: 'fields-differ',
        detail: `the value changed between #${a.ordinal} and #${b.ordinal} across write #${w} (DOC-3)`,
      });
      break;
    }
  }
  if (reasons.length) return null;
  const r = ctx.lines[0];
  const value = ctx.facts.bodyValue(r.response_body_id)!;
  if (renderedBytes(value) > MAX_RENDERED_BYTES) {
    reasons.push({ reason: 'rendered-oversize', detail: `the document renders to more than ${MAX_RENDERED_BYTES} bytes (DOC-4)` });
    return null;
  }
  return { tool: ctx.tool, path: r.path, query: r.query, status: r.status, value, record_ordinal: r.ordinal };
}
