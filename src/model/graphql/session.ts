/**
 * @rule GQL-7
 * Issue 48: one served session's GraphQL entities — the capture's initial ones (learn.ts)
 * under an overlay of this session's checked mutations — and the lists they make: a root
 * list's members are its recorded positions with deleted ones gone and created ones after
 * them, in the order the app keeps (checked against the capture's own later reads, verify.ts).
 */
import type { JsonValue } from '../../json/exact.js';
import type { GqlRecord, Learned, RootConvention } from './learn.js';
import { entityKey, isRef, referenceOf, refNames, type Entity, type NValue } from './normalize.js';

export class GqlSession {
  private overlay = new Map<string, Entity | null>();
  /** Entities this session created, per type, in order. */
  private created = new Map<string, string[]>();
  /** Types a mutation the model did not apply may have changed ('*': any type). */
  readonly stale = new Set<string>();
  mutations = 0;
  /** The canonical bodies of this session's mutations, in order (call.ts: where it stands among the capture's). */
  readonly log: string[] = [];

  /**
   * @param otherWrites how many writes this session made through the capture's other tools
   *   (REST writes beside the endpoint), which may have changed what its recorded answers show.
   */
  constructor(
    readonly learned: Learned,
    readonly otherWrites: () => number = () => 0,
  ) {}

  /** What this session wrote, for `restore` (a mutation that cannot answer is undone). */
  save(): { overlay: Map<string, Entity | null>; created: Map<string, string[]> } {
    return { overlay: new Map(this.overlay), created: new Map([...this.created].map(([t, ids]) => [t, [...ids]])) };
  }

  restore(saved: { overlay: Map<string, Entity | null>; created: Map<string, string[]> }): void {
    this.overlay = saved.overlay;
    this.created = saved.created;
  }

  reset(): void {
    this.overlay.clear();
    this.created.clear();
    this.stale.clear();
    this.mutations = 0;
    this.log.length = 0;
  }

  entity(key: string): Entity | undefined {
    if (this.overlay.has(key)) return this.overlay.get(key) ?? undefined;
    return this.learned.initial.get(key);
  }

  isStale(typename: string): boolean {
    return this.stale.has('*') || this.stale.has(typename);
  }

  /**
   * GQL-9, the capture's track: after this session's k-th mutation, when its mutations are the
   * capture's first k in order, every answer the capture recorded from that mutation up to its
   * next one shows the app as it stands now: the entities they show take the fields they show.
   */
  catchUp(k: number): void {
    const mutations = this.learned.mutationRecords;
    if (k < 1 || k > mutations.length) return;
    const from = mutations[k - 1].ordinal;
    const to = k < mutations.length ? mutations[k].ordinal : Infinity;
    for (const r of this.learned.records) if (r.ordinal >= from && r.ordinal < to) this.absorb(r);
  }

  /** The entities a record of the capture shows take the fields it shows (a deleted one stays deleted). */
  absorb(r: GqlRecord): void {
    for (const [key, e] of r.shown) {
      const had = this.entity(key);
      if (had === undefined && this.overlay.get(key) === null) continue;
      this.overlay.set(key, { typename: e.typename, id: e.id, fields: { ...had?.fields, ...e.fields } });
    }
  }

  /** Whether this session changed any entity of the type. */
  touched(typename: string): boolean {
    if (this.created.has(typename)) return true;
    for (const key of this.overlay.keys()) if (key.startsWith(`${typename}:`)) return true;
    return false;
  }

  put(e: Entity, isNew: boolean): void {
    const key = entityKey(e.typename, e.id);
    this.overlay.set(key, e);
    if (isNew) {
      const list = this.created.get(e.typename) ?? [];
      list.push(e.id);
      this.created.set(e.typename, list);
    }
  }

  remove(typename: string, id: string): void {
    this.overlay.set(entityKey(typename, id), null);
  }

  /** Every id of a type the model holds now (initial, created; deleted ones gone). */
  ids(typename: string): string[] {
    const out = new Set<string>();
    for (const e of this.learned.initial.values()) if (e.typename === typename) out.add(e.id);
    for (const id of this.created.get(typename) ?? []) out.add(id);
    return [...out].filter((id) => this.entity(entityKey(typename, id)) !== undefined);
  }

  /**
   * A root list's members now, in order, when every position of it is known (the capture read
   * the whole list, in one read or in pages); null otherwise.
   */
  members(c: RootConvention): string[] | null {
    const l = this.listing(c);
    return l && l.every((id) => id !== null) ? (l as string[]) : null;
  }

  /**
   * GQL-6 (issue 48): where the count of a plain list is not known, its first places the capture
   * showed one after the other from 0 (Apollo's `books(limit: 4, offset: 0)` and `offset: 4`),
   * this session's deletes gone. They stay its first members whatever the rest holds: a delete
   * elsewhere and a create (the app appends, as `listing` reads it) come after them. Null when
   * the capture never showed the first place.
   */
  knownPrefix(c: RootConvention): string[] | null {
    if (!c.typename || !c.positions.has(0)) return null;
    const t = c.typename;
    const out: string[] = [];
    for (let i = 0; c.positions.has(i); i++) out.push(c.positions.get(i)!);
    return out.filter((id) => this.entity(entityKey(t, id)) !== undefined);
  }

  /**
   * A root list now, by position: the capture's positions (null where it never showed the
   * member), less this session's deletes, then this session's creates (the app appends; the
   * capture's reads after its creates check it). Null when the count is not known, or a delete
   * of a member at a position the capture never showed leaves the places after it unknown.
   */
  listing(c: RootConvention): (string | null)[] | null {
    if (c.total === null || !c.typename) return null;
    const t = c.typename;
    const base: (string | null)[] = [];
    for (let i = 0; i < c.total; i++) base.push(c.positions.get(i) ?? null);
    const gone = [...this.overlay].filter(([k, e]) => e === null && k.startsWith(`${t}:`)).map(([k]) => k.slice(t.length + 1));
    for (const id of gone) if (!base.includes(id) && base.includes(null)) return null;
    const created = (this.created.get(t) ?? []).filter((id) => !base.includes(id));
    return [...base, ...created].filter((id) => id === null || this.entity(entityKey(t, id)) !== undefined);
  }

  /**
   * GQL-5, ids of created entities: the app's counter as the capture shows it — this session's
   * n-th create of a type gets the id the capture's n-th create got, and the ones after count
   * on from the last (integers); with no recorded create, one past the largest id of a type
   * whose every member the model holds. Null when neither tells.
   */
  nextId(typename: string): string | null {
    const n = this.created.get(typename)?.length ?? 0;
    const recorded = this.learned.createdIds.get(typename) ?? [];
    if (n < recorded.length) return recorded[n];
    const last = recorded[recorded.length - 1];
    if (last !== undefined) return /^(0|[1-9]\d*)$/.test(last) ? String(Number(last) + n - recorded.length + 1) : null;
    const lists = [...this.learned.roots.values()].filter((c) => c.typename === typename && c.kind !== 'item' && c.kind !== 'other');
    if (!lists.some((c) => this.members(c) !== null)) return null;
    let max = 0;
    for (const id of this.ids(typename)) {
      if (!/^(0|[1-9]\d*)$/.test(id)) return null;
      max = Math.max(max, Number(id));
    }
    return String(max + 1);
  }
}

/**
 * GQL-7, filters: whether entity `e` passes argument `name` = `value` of a list, read as the
 * field of that name (`published: true`) or the reference it names (`authorId: "2"` → the
 * `author` reference's id); undefined when the entity does not show the field.
 */
export function passes(e: Entity, name: string, value: JsonValue): boolean | undefined {
  if (name in e.fields) {
    const v = e.fields[name];
    if (isRef(v)) return refNames(v, value);
    if (v !== null && typeof v === 'object') return undefined;
    return v === value || (typeof v !== typeof value && String(v) === String(value));
  }
  const field = referenceOf(name);
  const ref: NValue | undefined = field ? e.fields[field] : undefined;
  if (isRef(ref)) return refNames(ref, value);
  return undefined;
}
