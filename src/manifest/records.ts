/**
 * The capture's records as the manifest reads them (one SQL read of `record`, `body` and the
 * redirects' `Location` headers): the input of admission (OQ-2), parameters (OQ-1) and roots
 * (OQ-5, ES-7). Nothing here decides; it only reads.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../store/types.js';
import type { SubjectRecord } from './subject.js';
import { parsePath, type PathShape } from './paths.js';

/** One record, with its path parsed once. */
export interface Rec extends SubjectRecord {
  id: number;
  ordinal: number;
  method: string;
  origin: string;
  path: string;
  shape: PathShape;
  responseBodyId: number;
  requestBodyId: number;
  isJson: boolean;
}

/**
 * The capture's records as the manifest reads them, in ordinal order. A function of its own so
 * the query's rows are garbage once mapped: they would otherwise stay reachable for the whole
 * inference (38k records at 1 GB, tens of MB).
 */
export async function recordsOf(k: Kysely<DB>, captureId: number): Promise<Rec[]> {
  const rows = await k
    .selectFrom('record')
    .innerJoin('body', 'body.id', 'record.response_body_id')
    .select([
      'record.id',
      'record.ordinal',
      'record.method',
      'record.origin',
      'record.path',
      'record.url',
      'record.status',
      'record.resource_type',
      'record.page_id',
      'record.response_media_type',
      'record.transaction_id',
      'record.redirected_from_transaction_id',
      'record.response_body_id',
      'record.request_body_id',
      'body.kind',
    ])
    .where('record.capture_id', '=', captureId)
    .orderBy('record.ordinal')
    .execute();
  // Redirects are followed by their Location (OQ-2 revised); only 3xx answers need it.
  const locations = new Map<number, string>();
  const hops = await k
    .selectFrom('header')
    .innerJoin('record', 'record.id', 'header.record_id')
    .select(['header.record_id', 'header.value'])
    .where('record.capture_id', '=', captureId)
    .where('record.status', '>=', 300)
    .where('record.status', '<', 400)
    .where('header.side', '=', 'response')
    .where('header.source', '=', 'header')
    .where(sql<string>`lower(header.name)`, '=', 'location')
    .where('header.value', 'is not', null)
    .orderBy('header.record_id')
    .orderBy('header.position')
    .execute();
  for (const h of hops) if (!locations.has(h.record_id)) locations.set(h.record_id, h.value!);
  return rows.map((r) => ({
    id: r.id,
    ordinal: r.ordinal,
    method: r.method.toUpperCase(),
    origin: r.origin,
    path: r.path,
    shape: parsePath(r.path),
    responseBodyId: r.response_body_id,
    requestBodyId: r.request_body_id,
    isJson: r.kind === 'json',
    url: r.url,
    status: r.status,
    resourceType: r.resource_type,
    pageId: r.page_id,
    isHtml: /html/i.test(r.response_media_type ?? ''),
    location: locations.get(r.id) ?? null,
    transactionId: r.transaction_id,
    redirectedFromTransactionId: r.redirected_from_transaction_id,
  }));
}
