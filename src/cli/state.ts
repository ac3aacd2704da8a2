import { writeFileSync } from 'node:fs';
import { defineCommand } from 'citty';
import type { JsonValue } from '../load/bodies.js';
import { stringifyExact } from '../load/bodies.js';
import { environmentState, stateDocumentValue, type EnvironmentState } from '../state/index.js';
import { jsonArg, log, out } from './common.js';
import { pickCapture } from '../manifest/read.js';
import { sourceArgs, withCaptures } from './source.js';

export const stateArgs = {
  ...sourceArgs,
  out: { type: 'string', description: 'Also write the JSON document to FILE (byte-stable)', valueHint: 'FILE' },
} as const;

/** Computes the view for the command's one capture. */
export async function stateFor(a: Parameters<typeof withCaptures>[0], rawArgs: string[]): Promise<EnvironmentState> {
  return withCaptures(a, rawArgs, async (k, ids) => environmentState(k, pickCapture(ids, a.db)));
}

/**
 * The printed document: `format_version`, the view (OQ-36), and `sha256`, the SHA-256 of the
 * view's compact exact JSON. Two runs over the same store print the same bytes.
 */
export function emitState(state: EnvironmentState, opts: { json: boolean; out?: string }): void {
  // The view is serialised once for its digest; the document and the summary reuse it.
  const value = stateDocumentValue(state);
  const sha256 = value.sha256 as string;
  const doc = opts.json || opts.out ? stringifyExact(value as unknown as JsonValue, 2) + '\n' : '';
  if (opts.out) {
    writeFileSync(opts.out, doc);
    log(`wrote ${opts.out} (sha256 ${sha256})`);
  }
  if (opts.json) process.stdout.write(doc);
  else out(describeState(state, sha256));
}

export default defineCommand({
  meta: { name: 'state', description: 'Print the environment-state view: types, entities, documents and each read tool\'s plan or reason' },
  args: { ...stateArgs, ...jsonArg },
  async run({ args: a, rawArgs }) {
    emitState(await stateFor(a, rawArgs), { json: a.json, out: a.out });
  },
});

/** The human view: types with identity and entity counts, documents, each tool's plan or reason. */
export function describeState(s: EnvironmentState, sha256: string): string {
  const lines = [`environment state of capture ${s.capture_id} (timeline: ${s.timeline_order}; evidence: ${s.evidence.status}, ` +
    `${s.evidence.unknown.join(', ')} unknown)`];
  for (const l of s.limitations) lines.push(`limitation: ${l}`);
  lines.push('', `${s.types.length} type${s.types.length === 1 ? '' : 's'}:`);
  for (const t of s.types) {
    const n = s.entities.filter((e) => e.collection === t.collection).length;
    const ids = t.initial_order.length > 6 ? [...t.initial_order.slice(0, 6), '…'] : t.initial_order;
    lines.push(`  ${t.collection}  ${t.root_path}  identity ${t.identity} (${t.identity_source})  ${n} entit${n === 1 ? 'y' : 'ies'}` +
      (ids.length ? `: ${ids.join(', ')}` : ''));
  }
  lines.push('', `${s.documents.length} document${s.documents.length === 1 ? '' : 's'}:`);
  for (const d of s.documents) {
    const text = stringifyExact(d.value);
    lines.push(`  ${d.path}${d.query ? '?' + d.query : ''}  (#${d.record_ordinal})  ${text.length > 80 ? text.slice(0, 77) + '…' : text}`);
  }
  lines.push('', `${s.plans.length} read tool${s.plans.length === 1 ? '' : 's'}:`);
  const w = Math.max(0, ...s.plans.map((p) => p.tool.length));
  for (const p of s.plans) {
    const what = p.kind === 'record' ? `record view: ${p.reason} — ${p.detail}`
      : p.kind === 'document' ? `document ${p.path}`
      : p.kind === 'item' ? `item plan (${p.collection} at ${p.entity_pointer || 'the root'})`
      : `list plan (${p.collection} at ${p.list_pointer || 'the root'}, membership ${p.membership}` +
        `${p.counters.length ? `, counters ${p.counters.join(', ')}` : ''})`;
    lines.push(`  ${p.tool.padEnd(w)}  ${what}`);
  }
  lines.push('', `sha256 ${sha256}`);
  return lines.join('\n');
}
