/**
 * Reading a stored manifest (the facts the loader wrote from inferManifest) in the shape
 * `capstate manifest --json` prints and later consumers (state view, MCP) reuse.
 */
import type { Kysely } from 'kysely';
import { CapstateError, shellWord } from '../errors.js';
import type { DB } from '../store/types.js';

export interface ManifestTool {
  name: string;
  method: string;
  template: string;
  root_path: string;
  is_query_post: boolean;
  template_source: 'inferred' | 'override';
  record_ordinals: number[];
  /** DESC-4: the sorted distinct statuses of the tool's records; the manifest owns this set. */
  statuses: number[];
}

export interface Manifest {
  capture_id: number;
  capture_path: string;
  admission: {
    decision: 'admitted';
    format: 'har' | 'scenario-evidence';
    subject_origin: string;
    subject_source: string;
    records: number;
    admitted_records: number;
    notes: string[];
  };
  api_base: string;
  api_base_source: 'inferred' | 'override';
  /** The `--manifest` override the capture was loaded with, or null. */
  override: unknown;
  template_rules: { method: string; template: string; tool: string }[];
  tools: ManifestTool[];
}

export async function listCaptureIds(k: Kysely<DB>): Promise<number[]> {
  return (await k.selectFrom('capture').select('id').orderBy('id').execute()).map((r) => r.id);
}

/**
 * The one capture a single-capture reader (state, serve, card) reads: `wanted` when the store
 * holds it, else the store's only capture; several captures and no choice is a usage error.
 */
export function pickCapture(ids: number[], file: string, wanted?: number): number {
  if (ids.length === 0)
    throw new CapstateError('no-capture', `${file} holds no capture; load one first: capstate load CAPTURE --db ${shellWord(file)}`, {
      file,
    });
  if (wanted !== undefined) {
    if (!ids.includes(wanted))
      throw new CapstateError('no-such-capture', `no capture ${wanted} in ${file}; captures: ${ids.join(', ')}`, { file });
    return wanted;
  }
  if (ids.length === 1) return ids[0];
  throw new CapstateError('usage', `${file} holds ${ids.length} captures (${ids.join(', ')}); choose one with --capture ID`, { file }, 2);
}

/** The manifest of one stored capture. */
export async function readManifest(k: Kysely<DB>, captureId: number): Promise<Manifest> {
  const capture = await k
    .selectFrom('capture')
    .innerJoin('manifest', 'manifest.capture_id', 'capture.id')
    .selectAll('manifest')
    .select(['capture.path', 'capture.format'])
    .where('capture.id', '=', captureId)
    .executeTakeFirst();
  if (!capture)
    throw new CapstateError('no-such-capture', `no capture ${captureId} in the store; see capstate info`, { capture: captureId });
  const notes = await k.selectFrom('admission_note').select('note').where('capture_id', '=', captureId).orderBy('position').execute();
  const counts = await k
    .selectFrom('record')
    .select([(eb) => eb.fn.countAll<number>().as('records'), (eb) => eb.fn.count<number>('tool_id').as('admitted')])
    .where('capture_id', '=', captureId)
    .executeTakeFirstOrThrow();
  const tools = await k.selectFrom('tool').selectAll().where('capture_id', '=', captureId).orderBy('template').orderBy('method').execute();
  const recs = await k
    .selectFrom('record')
    .select(['tool_id', 'ordinal'])
    .where('capture_id', '=', captureId)
    .where('tool_id', 'is not', null)
    .orderBy('ordinal')
    .execute();
  const ordinals = new Map<number, number[]>();
  for (const r of recs) {
    const list = ordinals.get(r.tool_id!);
    if (list) list.push(r.ordinal);
    else ordinals.set(r.tool_id!, [r.ordinal]);
  }
  // DESC-4: the statuses come from their rule view, the one place that states them.
  const statusRows = await k
    .selectFrom('tool_statuses')
    .select(['tool_id', 'status'])
    .where('capture_id', '=', captureId)
    .orderBy('tool_id')
    .orderBy('status')
    .execute();
  const statuses = new Map<number, number[]>();
  for (const r of statusRows) {
    const list = statuses.get(r.tool_id);
    if (list) list.push(r.status);
    else statuses.set(r.tool_id, [r.status]);
  }
  const out: ManifestTool[] = tools.map((t) => ({
    name: t.name,
    method: t.method,
    template: t.template,
    root_path: t.root_path,
    is_query_post: t.is_query_post === 1,
    template_source: t.template_source,
    record_ordinals: ordinals.get(t.id) ?? [],
    statuses: statuses.get(t.id) ?? [],
  }));
  return {
    capture_id: captureId,
    capture_path: capture.path,
    admission: {
      decision: 'admitted',
      format: capture.format,
      subject_origin: capture.subject_origin,
      subject_source: capture.subject_source,
      records: Number(counts.records),
      admitted_records: Number(counts.admitted),
      notes: notes.map((n) => n.note),
    },
    api_base: capture.api_base,
    api_base_source: capture.api_base_source,
    override: capture.override_json === null ? null : JSON.parse(capture.override_json),
    template_rules: out.map((t) => ({ method: t.method, template: t.template, tool: t.name })),
    tools: out,
  };
}
