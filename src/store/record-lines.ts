/**
 * The one reader of a tool's records (issue 13): the state pass reads a type's admitted
 * reads through it, serving a tool's records (writes included). Both get the same fields —
 * timeline position (ES-6), request line, path values, query pairs in request order, body
 * kinds as the body owner stored them — and whether each is an initial read with its bound,
 * which the caller supplies from where it stands: the pass from the `initial_reads` view,
 * serving from the stored `state_records`.
 */
import type { Kysely } from 'kysely';
import type { DB } from './types.js';

export type BodyKindStored = DB['body']['kind'];

/** The write that ends a type's initial reads, and the rule that chose it; null: nothing bounds it. */
export type LineBound = { ordinal: number; rule: 'ES-8' | 'ES-9' | 'ES-27' } | null;

/** A stored row's bound columns (`initial_reads`, `state_records`) as a line's bound. */
export function lineBound(r: { bound_ordinal: number | null; bound_rule: 'ES-8' | 'ES-9' | 'ES-27' | null }): LineBound {
  return r.bound_ordinal === null || r.bound_rule === null ? null : { ordinal: r.bound_ordinal, rule: r.bound_rule };
}

export interface RecordLine {
  record_id: number;
  ordinal: number;
  timeline_position: number;
  started_ms: number | null;
  ended_ms: number | null;
  tool: string;
  root_path: string;
  method: string;
  path: string;
  query: string | null;
  status: number;
  response_media_type: string | null;
  response_body_id: number;
  response_kind: BodyKindStored;
  request_body_id: number;
  request_kind: BodyKindStored;
  /** Template parameter values (path_param), by name, in template order. */
  params: Map<string, string>;
  /** Query pairs in request order (query_param). */
  query_pairs: { name: string; value: string }[];
  /** An initial read (ES-8, ES-9, ES-27): before the bound of its type. */
  is_initial: boolean;
  /** For an initial read: the record that bounds its type (null: unbounded, or not initial). */
  bound: LineBound;
}

export interface LineTool {
  id: number;
  name: string;
  root_path: string;
}

export interface LineScope {
  /** The tools' capture: the timeline is evaluated for it alone, not for every capture in the file. */
  captureId: number;
  tools: LineTool[];
  /** Only admitted reads (`read_records`), or every record of the tools. */
  readsOnly: boolean;
  /** Initial reads (record id → bound), as the caller's source decided them. */
  initial: ReadonlyMap<number, LineBound>;
}

/** The tools' records in timeline order. */
export async function readRecordLines(k: Kysely<DB>, scope: LineScope): Promise<RecordLine[]> {
  const toolIds = scope.tools.map((t) => t.id);
  if (toolIds.length === 0) return [];
  const byTool = new Map(scope.tools.map((t) => [t.id, t]));
  const timing = scope.readsOnly
    ? k
        .selectFrom('read_records')
        .select(['record_id', 'timeline_position', 'started_ms', 'ended_ms'])
        .where('capture_id', '=', scope.captureId)
    : k
        .selectFrom('records_timeline')
        .select(['record_id', 'timeline_position', 'started_ms', 'ended_ms'])
        .where('capture_id', '=', scope.captureId);
  // CROSS JOIN keeps the timeline outer (SQLite's rule for it): inside a snapshot `t` is a
  // table without indexes, and as the inner side it was scanned once per record of the tools
  // (35,000 records of one GraphQL tool: 33 s instead of 0.1 s).
  const rows = await k
    .selectFrom(timing.as('t'))
    .crossJoin('record as r')
    .whereRef('r.id', '=', 't.record_id')
    .innerJoin('body as rb', 'rb.id', 'r.response_body_id')
    .innerJoin('body as qb', 'qb.id', 'r.request_body_id')
    .select([
      'r.id',
      'r.ordinal',
      't.timeline_position',
      't.started_ms',
      't.ended_ms',
      'r.tool_id',
      'r.method',
      'r.path',
      'r.query',
      'r.status',
      'r.response_media_type',
      'r.response_body_id',
      'rb.kind as response_kind',
      'r.request_body_id',
      'qb.kind as request_kind',
    ])
    .where('r.tool_id', 'in', toolIds)
    .orderBy('t.timeline_position')
    .execute();
  const [params, queries] = await Promise.all([
    k
      .selectFrom('path_param as p')
      .innerJoin('record as r', 'r.id', 'p.record_id')
      .select(['p.record_id', 'p.name', 'p.value'])
      .where('r.tool_id', 'in', toolIds)
      .orderBy('p.record_id')
      .orderBy('p.position')
      .execute(),
    k
      .selectFrom('query_param as q')
      .innerJoin('record as r', 'r.id', 'q.record_id')
      .select(['q.record_id', 'q.name', 'q.value'])
      .where('r.tool_id', 'in', toolIds)
      .orderBy('q.record_id')
      .orderBy('q.position')
      .execute(),
  ]);
  const byId = new Map<number, RecordLine>();
  const out = rows.map((r) => {
    const tool = byTool.get(r.tool_id!)!;
    const line: RecordLine = {
      record_id: r.id,
      ordinal: r.ordinal,
      timeline_position: r.timeline_position,
      started_ms: r.started_ms,
      ended_ms: r.ended_ms,
      tool: tool.name,
      root_path: tool.root_path,
      method: r.method,
      path: r.path,
      query: r.query,
      status: r.status,
      response_media_type: r.response_media_type,
      response_body_id: r.response_body_id,
      response_kind: r.response_kind,
      request_body_id: r.request_body_id,
      request_kind: r.request_kind,
      params: new Map(),
      query_pairs: [],
      is_initial: scope.initial.has(r.id),
      bound: scope.initial.get(r.id) ?? null,
    };
    byId.set(r.id, line);
    return line;
  });
  for (const p of params) byId.get(p.record_id)?.params.set(p.name, p.value);
  for (const q of queries) byId.get(q.record_id)?.query_pairs.push({ name: q.name, value: q.value });
  return out;
}
