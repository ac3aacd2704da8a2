import { defineCommand } from 'citty';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CapstateError } from '../errors.js';
import { loadCaptures } from '../load/index.js';
import { listCaptureIds, readManifest, type Manifest } from '../manifest/read.js';
import { kyselyFor, openStore } from '../store/open.js';
import { dbArg, jsonArg, log, out, printJson } from './common.js';
import { loadInputArgs, loadInputs } from './load-inputs.js';

export const args = {
  ...dbArg,
  ...jsonArg,
  ...loadInputArgs,
  capture: { type: 'string', description: 'Capture id in the store (default: every capture)', valueHint: 'ID' },
} as const;

export default defineCommand({
  meta: { name: 'manifest', description: 'Print the environment manifest: admission, template rules, and per tool its template, type root, query-POST flag, records and statuses' },
  args: { ...args, source: { type: 'positional', description: 'A capture file to load first (into a temporary store unless --db is given)', required: false, valueHint: 'CAPTURE' } },
  async run({ args: a, rawArgs }) {
    const explicitDb = rawArgs.some((r) => r === '--db' || r.startsWith('--db='));
    let db = a.db;
    let temp: string | null = null;
    let only: number | null = a.capture === undefined ? null : Number(a.capture);
    if (only !== null && !Number.isInteger(only)) throw new CapstateError('usage', '--capture takes a capture id (see capstate info)', {}, 2);
    try {
      if (a.source) {
        if (!explicitDb) {
          temp = mkdtempSync(join(tmpdir(), 'capstate-'));
          db = join(temp, 'capstate.sqlite');
        }
        const [loaded] = await loadCaptures({ db, files: [a.source], log, ...loadInputs(a, rawArgs) });
        only = loaded.capture_id;
      }
      const store = openStore(db);
      const k = kyselyFor(store);
      const manifests: Manifest[] = [];
      try {
        for (const id of only !== null ? [only] : await listCaptureIds(k)) manifests.push(await readManifest(k, id));
      } finally {
        await k.destroy();
      }
      if (a.json) return printJson({ ok: true, manifests });
      if (manifests.length === 0) return out('no captures yet: capstate load CAPTURE');
      out(manifests.map(describe).join('\n\n'));
    } finally {
      if (temp) rmSync(temp, { recursive: true, force: true });
    }
  },
});

function describe(m: Manifest): string {
  const a = m.admission;
  const lines = [
    `capture ${m.capture_id}: ${m.capture_path}`,
    `admitted: subject ${a.subject_origin} (from ${a.subject_source}), ${a.admitted_records} of ${a.records} records`,
    ...a.notes.map((n) => `  note: ${n}`),
    `api base: ${m.api_base} (${m.api_base_source})`,
    `${m.tools.length} tool${m.tools.length === 1 ? '' : 's'}:`,
  ];
  const w = (f: (t: Manifest['tools'][number]) => string) => Math.max(...m.tools.map((t) => f(t).length));
  const wn = w((t) => t.name), wm = w((t) => t.method), wt = w((t) => t.template), wr = w((t) => t.root_path);
  for (const t of m.tools) {
    const ords = t.record_ordinals.length > 8 ? [...t.record_ordinals.slice(0, 8).map((o) => `#${o}`), '…'] : t.record_ordinals.map((o) => `#${o}`);
    lines.push(`  ${t.name.padEnd(wn)}  ${t.method.padEnd(wm)}  ${t.template.padEnd(wt)}  root ${t.root_path.padEnd(wr)}  ` +
      `${t.is_query_post ? 'query POST  ' : ''}records ${ords.join(', ')}  statuses ${t.statuses.join(', ') || 'none'}` +
      `${t.template_source === 'override' ? '  (override)' : ''}`);
  }
  return lines.join('\n');
}
