import { defineCommand } from 'citty';
import { loadCaptures, type LoadedCapture } from '../ingest/load-captures.js';
import { dbArg, jsonArg, log, out, printJson } from './common.js';
import { loadInputArgs, loadInputs } from './load-inputs.js';

/** Progress is shown for files over this size, at most twice a second. */
const PROGRESS_MIN_BYTES = 4 * 1024 * 1024;

export const args = {
  ...dbArg,
  ...jsonArg,
  ...loadInputArgs,
  quiet: { type: 'boolean', description: 'No progress on stderr', default: false },
} as const;

export default defineCommand({
  meta: { name: 'load', description: 'Load HAR 1.2 or scenario Evidence captures into the store (one transaction; all or nothing)' },
  args: { ...args, captures: { type: 'positional', description: 'Capture files: HAR (also .har.gz or a Playwright .zip) or scenario Evidence JSON; - reads standard input', required: true, valueHint: 'CAPTURE' } },
  async run({ args: a, rawArgs }) {
    const files = (a._ as string[]).length ? (a._ as string[]) : [a.captures as string];
    let last = 0;
    const results = await loadCaptures({
      db: a.db,
      files,
      log,
      ...loadInputs(a, rawArgs),
      onProgress: (p) => {
        if (a.quiet || p.bytesTotal < PROGRESS_MIN_BYTES) return;
        const now = Date.now();
        if (now - last < 500 && p.bytesRead < p.bytesTotal) return;
        last = now;
        const mb = (n: number) => (n / 1e6).toFixed(1);
        log(`${p.file}: ${mb(p.bytesRead)}/${mb(p.bytesTotal)} MB, ${p.records.toLocaleString('en-US')} records`);
      },
    });
    if (a.json) {
      printJson({ ok: true, db: a.db, captures: results });
      return;
    }
    for (const r of results) out(describe(r));
    out(`store: ${a.db}`);
  },
});

function describe(r: LoadedCapture): string {
  if (r.already_loaded) return `${r.file}: already loaded as capture ${r.capture_id}; nothing added`;
  const kinds = Object.entries(r.response_bodies_by_kind).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`).join(', ');
  const mbps = r.bytes / 1e6 / (r.duration_ms / 1000);
  return `${r.file}: capture ${r.capture_id} (${r.format}), ${r.records} records, response bodies ${kinds || 'none'}, ` +
    `${r.members.toLocaleString('en-US')} JSON members; ${(r.duration_ms / 1000).toFixed(2)} s (${mbps.toFixed(1)} MB/s)`;
}
