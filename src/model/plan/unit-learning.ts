/**
 * Issue 16: learning a list's query keys line by line (list-queries.ts reads each line's
 * query; this keeps which units every line reproduced).
 */
import { kindOf, type QueryKind, type QueryUnit } from './list-queries.js';
import type { ListQueries } from './types.js';

/**
 * Issue 16: what a list's lines teach as its `list_queries`: a query key is answered for any
 * value only when every line using its unit (its kind; apart from it each filter operator and the
 * multi-field sort) reproduced. One per list: plans.ts over its initial lines, later-queries.ts
 * over the reads after the capture's verified writes.
 */
export class UnitLearning {
  private readonly learned = new Map<QueryUnit, Set<string>>();
  private readonly failedUnits = new Set<QueryUnit>();

  /** A line that reproduced: each unit it rests on, with its keys. */
  learn(units: ReadonlyMap<QueryUnit, readonly string[]>): void {
    for (const [u, names] of units) for (const n of names) (this.learned.get(u) ?? this.learned.set(u, new Set()).get(u)!).add(n);
  }

  /** A line that did not: each unit it rests on. */
  fail(units: Iterable<QueryUnit>): void {
    for (const u of units) this.failedUnits.add(u);
  }

  /** A line whose query picked the ids `picked` where the app listed `shown`: learned where the two agree, in order, else failed. */
  judge(units: ReadonlyMap<QueryUnit, readonly string[]>, picked: readonly string[], shown: readonly (string | undefined)[]): void {
    if (picked.length === shown.length && picked.every((id, i) => id === shown[i])) this.learn(units);
    else this.fail(units.keys());
  }

  /** Whether every one of `units` already failed (another line cannot teach them). */
  allFailed(units: Iterable<QueryUnit>): boolean {
    return [...units].every((u) => this.failedUnits.has(u));
  }

  /** The keys of the units no line failed, by kind. */
  queries(): ListQueries {
    const kept = [...this.learned].filter(([u]) => !this.failedUnits.has(u));
    const of = (k: QueryKind) => [...new Set(kept.filter(([u]) => kindOf(u) === k).flatMap(([, names]) => [...names]))].sort();
    return {
      filter: of('filter'),
      sort: of('sort'),
      window: of('window'),
      ...(kept.some(([u]) => u === 'sort:multi') ? { multi_sort: true as const } : {}),
      ...(kept.some(([u]) => u === 'filter:any') ? { any_of: true as const } : {}),
    };
  }
}
