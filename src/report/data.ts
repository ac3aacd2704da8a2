/**
 * What the HTML report shows, read from the store (issue 19): the capture's stored state
 * (the state_* tables, as `capstate state` reads them) and its timeline from the final
 * views (`records_timeline`, `writes`) and `state_records` (which records were initial
 * reads, as the state pass decided). Nothing here decides a rule again.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../store/types.js';
import type { EnvironmentState } from '../state/index.js';
import { readStoredState } from '../model/plan/stored.js';

export interface TimelineMark {
  ordinal: number;
  position: number;
  method: string;
  url: string;
  status: number;
  started_ms: number | null;
  duration_ms: number;
  /** The manifest tool the record belongs to, and that tool's type root. */
  tool: string;
  root_path: string;
  is_write: boolean;
  /** A read before its type's bound: it shows the initial state. */
  is_initial: boolean;
}

export interface ReportData {
  capture: { id: number; path: string; format: string; bytes: number; sha256: string };
  state: EnvironmentState;
  /** The state's SHA-256 (what `capstate state --json` carries). */
  state_sha256: string;
  marks: TimelineMark[];
}

/** Reads capture `captureId`'s report data; throws as `capstate state` does when its state is stale or failed. */
export async function readReportData(k: Kysely<DB>, captureId: number, file: string): Promise<ReportData> {
  const state = await readStoredState(k, captureId, file);
  const capture = await k
    .selectFrom('capture')
    .innerJoin('state_capture', 'state_capture.capture_id', 'capture.id')
    .select(['capture.id', 'capture.path', 'capture.format', 'capture.bytes', 'capture.sha256', 'state_capture.sha256 as state_sha256'])
    .where('capture.id', '=', captureId)
    .executeTakeFirstOrThrow();
  const rows = await k
    .selectFrom('records_timeline as t')
    .innerJoin('record as r', 'r.id', 't.record_id')
    .innerJoin('tool as o', 'o.id', 'r.tool_id')
    .leftJoin('writes as w', 'w.record_id', 't.record_id')
    .leftJoin('state_records as s', (j) => j.onRef('s.record_id', '=', 't.record_id').onRef('s.capture_id', '=', 't.capture_id'))
    .select([
      't.ordinal',
      't.timeline_position',
      't.method',
      't.url',
      't.status',
      't.started_ms',
      't.duration_ms',
      'o.name as tool',
      'o.root_path',
      'w.record_id as write_id',
      's.is_initial',
    ])
    .where('t.capture_id', '=', captureId)
    .orderBy('t.timeline_position')
    .execute();
  return {
    capture: { id: capture.id, path: capture.path, format: capture.format, bytes: Number(capture.bytes), sha256: capture.sha256 },
    state,
    state_sha256: capture.state_sha256!,
    marks: rows.map((r) => ({
      ordinal: r.ordinal,
      position: r.timeline_position,
      method: r.method,
      url: r.url,
      status: r.status,
      started_ms: r.started_ms,
      duration_ms: r.duration_ms,
      tool: r.tool,
      root_path: r.root_path,
      is_write: r.write_id !== null,
      is_initial: r.is_initial === 1,
    })),
  };
}
