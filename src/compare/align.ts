/**
 * Step alignment (BS-72): by exact, unique `step_id` only. Duplicates, missing
 * counterparts, changed action kinds and incompatible browser/origin contexts are
 * alignment failures; they block an "unchanged" verdict but not a "changed" one.
 */
import type { CaptureIn, StepIn } from './input.js';

export interface AlignmentFailure {
  code: 'duplicate-step-id' | 'missing-counterpart' | 'action-kind-changed' | 'incompatible-context';
  message: string;
  step_id?: string;
  side?: 'before' | 'after';
  before?: string | null;
  after?: string | null;
}

export interface Aligned {
  step_id: string;
  before: StepIn;
  after: StepIn;
}

function originOf(url: string | null): string | null {
  if (url === null) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** The steps both captures hold once, in the order of `before`, and every alignment failure. */
export function alignSteps(a: CaptureIn, b: CaptureIn): { aligned: Aligned[]; failures: AlignmentFailure[] } {
  const failures: AlignmentFailure[] = [];
  // Context first: steps of captures made against different origins or browser boundaries are not the same steps.
  const oa = originOf(a.admitted.startUrl),
    ob = originOf(b.admitted.startUrl);
  if (oa === null || ob === null || oa !== ob) {
    failures.push({
      code: 'incompatible-context',
      message:
        oa === null || ob === null
          ? 'a capture does not name its start origin (scenario.start_url)'
          : `the captures start on different origins (${oa} and ${ob})`,
      before: oa,
      after: ob,
    });
  }
  if (a.browserMode !== b.browserMode) {
    failures.push({
      code: 'incompatible-context',
      message: `the captures use different browser boundaries (${a.browserMode ?? 'unknown'} and ${b.browserMode ?? 'unknown'})`,
      before: a.browserMode,
      after: b.browserMode,
    });
  }
  const index = (c: CaptureIn) => {
    const by = new Map<string, StepIn[]>();
    for (const s of c.steps) by.set(s.step_id!, [...(by.get(s.step_id!) ?? []), s]);
    for (const [id, list] of by)
      if (list.length > 1)
        failures.push({
          code: 'duplicate-step-id',
          step_id: id,
          side: c.side,
          message: `step_id ${JSON.stringify(id)} appears ${list.length} times in ${c.side}; steps align only by a unique step_id`,
        });
    return by;
  };
  const ia = index(a),
    ib = index(b);
  const aligned: Aligned[] = [];
  const seen = new Set<string>();
  for (const s of [...a.steps, ...b.steps]) {
    const id = s.step_id!;
    if (seen.has(id)) continue;
    seen.add(id);
    const x = ia.get(id),
      y = ib.get(id);
    if (!x || !y) {
      const side = x ? 'after' : 'before';
      failures.push({ code: 'missing-counterpart', step_id: id, side, message: `step ${JSON.stringify(id)} is missing in ${side}` });
      continue;
    }
    if (x.length > 1 || y.length > 1) continue;
    if (x[0].action !== y[0].action) {
      failures.push({
        code: 'action-kind-changed',
        step_id: id,
        before: x[0].action,
        after: y[0].action,
        message: `step ${JSON.stringify(id)} is a ${x[0].action} in before and a ${y[0].action} in after`,
      });
    }
    aligned.push({ step_id: id, before: x[0], after: y[0] });
  }
  return { aligned, failures };
}
