import { defineCommand } from 'citty';
import { readManifest, type Manifest } from '../manifest/read.js';
import { explainArg, jsonArg, out, printJson } from './common.js';
import { admissionWords, noteWords } from './state-words.js';
import { sourceArgs, withCaptures } from './source.js';

export default defineCommand({
  meta: {
    name: 'manifest',
    description:
      'Print the environment manifest: admission, template rules, and per tool its template, type root, query-POST flag, records and statuses',
  },
  args: { ...sourceArgs, ...jsonArg, ...explainArg },
  async run({ args: a, rawArgs }) {
    const manifests = await withCaptures(a, rawArgs, async (k, ids) => {
      const list: Manifest[] = [];
      for (const id of ids) list.push(await readManifest(k, id));
      return list;
    });
    if (a.json) return printJson({ ok: true, manifests });
    if (manifests.length === 0) return out('no captures yet: capstate load CAPTURE');
    out(manifests.map((m) => describe(m, a.explain)).join('\n\n'));
  },
});

/** Issue 46: plain words by default (state-words.ts); the exact terms with `--explain`. */
function describe(m: Manifest, explain = false): string {
  const a = m.admission;
  const lines = [
    `capture ${m.capture_id}: ${m.capture_path}`,
    admissionWords(a, explain),
    ...a.notes.map((n) => `  note: ${noteWords(n, explain)}`),
    `api base: ${m.api_base} (${m.api_base_source})`,
    `${m.tools.length} tool${m.tools.length === 1 ? '' : 's'}:`,
  ];
  const w = (f: (t: Manifest['tools'][number]) => string) => Math.max(...m.tools.map((t) => f(t).length));
  const wn = w((t) => t.name),
    wm = w((t) => t.method),
    wt = w((t) => t.template),
    wr = w((t) => t.root_path);
  for (const t of m.tools) {
    const ords =
      t.record_ordinals.length > 8 ? [...t.record_ordinals.slice(0, 8).map((o) => `#${o}`), '…'] : t.record_ordinals.map((o) => `#${o}`);
    lines.push(
      `  ${t.name.padEnd(wn)}  ${t.method.padEnd(wm)}  ${t.template.padEnd(wt)}  ${explain ? 'root' : 'type'} ${t.root_path.padEnd(wr)}  ` +
        `${t.is_query_post ? 'query POST  ' : ''}records ${ords.join(', ')}  statuses ${t.statuses.join(', ') || 'none'}` +
        `${t.template_source === 'override' ? '  (override)' : ''}`,
    );
  }
  return lines.join('\n');
}
