/**
 * The manifest's SQL look-ups in the stored JSON (member_node): which recorded path segments a
 * JSON list or the record's own response names, and under which member names. OQ-1 (b) and
 * OQ-1 naming ask them; issue 18's weak ids (OQ-9 identity names) and ES-7's singular roots too.
 * Typed Kysely; values go in as bound parameters or bound JSON arrays.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../store/types.js';
import type { Vocabulary } from '../store/vocabulary.js';
import { sqlChildPointer } from '../json/pointer.js';
import type { Rec } from './records.js';

/** Bound parameter lists stay far below SQLite's variable limit. */
export function chunks<T>(items: T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * OQ-1 (b): scalar member values of objects listed by JSON responses of a path (with or
 * without a format suffix). Per prefix, SQLite looks only for the values that occur right
 * after that prefix in some recorded path, so neither memory nor time follows the size
 * of the listings.
 */
export class ListIndex {
  private readonly byPath = new Map<string, Rec[]>();
  private readonly cache = new Map<string, Map<string, string[]>>();

  constructor(
    private readonly k: Kysely<DB>,
    private readonly admitted: Rec[],
  ) {
    for (const r of admitted) {
      if (r.method !== 'GET' || !r.isJson) continue;
      const key = r.shape.segments.join('/');
      const list = this.byPath.get(key) ?? [];
      list.push(r);
      this.byPath.set(key, list);
    }
  }

  /** Issue 18: which of `values` the JSON reads of `path` list (as a scalar member of a listed object). */
  async listedValues(path: string[], values: Set<string>): Promise<Set<string>> {
    const bodies = [...new Set((this.byPath.get(path.join('/')) ?? []).map((r) => r.responseBodyId))];
    return bodies.length === 0 ? new Set() : new Set((await this.lookup(bodies, values)).keys());
  }

  /**
   * Scalar members of objects inside arrays of `bodies` whose value is one of `wanted`, by value.
   * One query: the bodies and the values go in as two JSON arrays (`json_each`), so each body's
   * members are read once. Chunked IN lists read every body again for each chunk of values,
   * and both grow with the capture (48 lookups: 3.9 s at 500 MB).
   */
  private async lookup(bodies: number[], wanted: Set<string>): Promise<Map<string, string[]>> {
    const values = new Map<string, string[]>();
    // Integers are stored as INTEGER in the ANY column: look for both spellings (json_each
    // gives a JSON integer as INTEGER, exact to 64 bits, and a JSON string as TEXT).
    const needles: string[] = [];
    for (const w of wanted) {
      needles.push(JSON.stringify(w));
      if (/^-?(0|[1-9]\d{0,17})$/.test(w)) needles.push(w);
    }
    if (needles.length === 0) return values;
    const bodyList = JSON.stringify(bodies);
    const needleList = `[${needles.join(',')}]`;
    // Down from each array to its objects and their members (member_node's key ranges).
    // CROSS JOIN keeps that order: SQLite otherwise starts from the matching members
    // and, a parent having no index by node, scans the body for each one's array.
    const query = this.k
      .selectFrom('member_node as a')
      .crossJoin('member_node as o')
      .crossJoin('member_node as m')
      .whereRef('o.body_id', '=', 'a.body_id')
      .whereRef('o.parent', '=', 'a.node')
      .whereRef('m.body_id', '=', 'o.body_id')
      .whereRef('m.parent', '=', 'o.node')
      .select(['m.key', 'm.value', 'm.body_id', memberPointer('o', 'm').as('pointer')])
      .where(sql<boolean>`a.body_id in (select value from json_each(${bodyList}))`)
      .where('a.type', '=', 'array')
      .where('o.type', '=', 'object')
      .where('m.type', 'in', ['string', 'integer'])
      .where(sql<boolean>`m.value in (select value from json_each(${needleList}))`)
      .orderBy('m.body_id')
      .orderBy('pointer');
    // Streamed: the matches grow with the capture (a list body per read, an entry per id), and
    // only their distinct values and names are kept (issue 14: flat memory).
    for await (const row of query.stream()) {
      const v = String(row.value);
      const names = values.get(v) ?? [];
      if (typeof row.key === 'string' && !names.includes(row.key)) names.push(row.key);
      values.set(v, names);
    }
    return values;
  }

  /** Member names (in body order) whose listed value equals `value` under `prefix`. */
  async namesFor(prefix: string[], value: string): Promise<string[]> {
    const key = prefix.join('/');
    let values = this.cache.get(key);
    if (!values) {
      values = new Map();
      const bodies = [...new Set((this.byPath.get(key) ?? []).map((r) => r.responseBodyId))];
      if (bodies.length > 0) {
        // The values to look for: what follows this prefix in the recorded paths.
        const wanted = new Set<string>();
        for (const r of this.admitted) {
          const segs = r.shape.segments;
          if (segs.length > prefix.length && prefix.every((p, i) => segs[i] === p)) wanted.add(segs[prefix.length]);
        }
        values = await this.lookup(bodies, wanted);
      }
      this.cache.set(key, values);
    }
    return values.get(value) ?? [];
  }
}

/** The RFC 6901 pointer of member `m` of container `o` or `p` (member_node keeps containers' pointers only). */
const memberPointer = (container: 'o' | 'p', m: 'm') => sqlChildPointer(`${container}.pointer`, `${m}.key`);

/** Members of a record's own response (root, or one level inside a wrapper object) that repeat a path value. */
export class OwnMembers {
  constructor(private readonly k: Kysely<DB>) {}

  async namesFor(bodyId: number, value: string): Promise<string[]> {
    // The members of the root object and of objects one level down (depth ≤ 2), in pointer order.
    const found = await this.k
      .selectFrom('member_node as p')
      .innerJoin('member_node as m', (j) => j.onRef('m.body_id', '=', 'p.body_id').onRef('m.parent', '=', 'p.node'))
      .select(['m.key', 'm.value'])
      .where('p.body_id', '=', bodyId)
      .where('p.depth', '<=', 1)
      .where('p.type', '=', 'object')
      .where('m.type', 'in', ['string', 'integer'])
      .orderBy('p.depth')
      .orderBy(memberPointer('p', 'm'))
      .execute();
    return found.filter((r) => typeof r.key === 'string' && String(r.value) === value).map((r) => r.key as string);
  }

  /**
   * Issue 18: whether the response repeats `value` in an identity-name member where ES-38 and
   * IDN-5 look for an entity (the root, one member, `/0`, `/<member>/0`: depth 3 at most).
   */
  async repeatsAsIdentity(bodyId: number, value: string, vocabulary: Vocabulary): Promise<boolean> {
    const needles: (string | bigint)[] = [value, ...(/^-?(0|[1-9]\d{0,17})$/.test(value) ? [BigInt(value)] : [])];
    // Scalars at depth 3 at most: members of a container at depth 2 at most (member_node keeps containers' depths, migration 0012).
    const found = await this.k
      .selectFrom('member_node as p')
      .innerJoin('member_node as m', (j) => j.onRef('m.body_id', '=', 'p.body_id').onRef('m.parent', '=', 'p.node'))
      .select(['m.key'])
      .where('p.body_id', '=', bodyId)
      .where('p.depth', '<=', 2)
      .where('m.type', 'in', ['string', 'integer'])
      .where('m.value', 'in', needles as string[])
      .execute();
    return found.some((r) => typeof r.key === 'string' && vocabulary.isIdentityName(r.key));
  }
}
