import { defineCommand } from 'citty';
import { CapstateError } from '../errors.js';
import { searchStore, type SearchHit } from '../store/search.js';
import { displayUrl, isPostgresUrl } from '../store/postgres-store.js';
import { dbArg, jsonArg, log, out, printJson } from './common.js';

const DEFAULT_LIMIT = 50;

export const args = {
  ...dbArg,
  ...jsonArg,
  limit: { type: 'string', description: `Show at most this many records (default ${DEFAULT_LIMIT})`, valueHint: 'N' },
  quiet: { type: 'boolean', alias: 'q', description: 'Say nothing on stderr while the search index is built', default: false },
} as const;

/** Captured text is someone else's: control characters (terminal escapes) print as spaces. */
const printable = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');

function hitLines(h: SearchHit, showCapture: boolean): string[] {
  const where = `${showCapture ? `capture ${h.capture_id} ` : ''}#${h.ordinal}`;
  return [`${where}  ${h.method} ${printable(h.url)}  (${h.status}; found in ${h.matched_in.join(', ')})`, `    ${printable(h.snippet)}`];
}

export default defineCommand({
  meta: {
    name: 'search',
    description:
      'Find the records whose URL, request body or response body contains all the words of TEXT, a word matching the words it begins (SQLite full-text search). ' +
      'The first search builds the search index inside the store (once; later searches add what later loads brought)',
  },
  args: {
    ...args,
    text: {
      type: 'positional',
      description: 'Words to find (all of them; a word with punctuation, like api.example.com, as a phrase)',
      required: true,
      valueHint: 'TEXT',
    },
  },
  async run({ args: a }) {
    const limit = a.limit === undefined ? DEFAULT_LIMIT : Number(a.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new CapstateError('usage', '--limit must be a positive integer', {}, 2);
    if (a.text.trim() === '') throw new CapstateError('usage', 'search needs some words to find: capstate search TEXT', {}, 2);
    const r = await searchStore(a.db, a.text, {
      limit,
      onIndex: (gap, ms) => {
        if (a.quiet) return;
        if (ms === undefined) {
          log(
            isPostgresUrl(a.db)
              ? `indexing the captures copied from ${displayUrl(a.db)} for this search (${gap.bodies} text bodies, ${gap.records} URLs)`
              : gap.created
                ? `building the search index in ${a.db} (first search on this store: ${gap.bodies} text bodies, ${gap.records} URLs; once, in its own transaction)`
                : `adding ${gap.bodies} text bodies and ${gap.records} URLs loaded since the last search to the search index`,
          );
        } else log(`search index ready (${(ms / 1000).toFixed(1)} s)`);
      },
    });
    if (a.json) return printJson({ ok: true, query: a.text, total: r.total, truncated: r.truncated, hits: r.hits });
    if (r.total === 0) return out(`no records contain ${JSON.stringify(a.text)}`);
    const showCapture = new Set(r.hits.map((h) => h.capture_id)).size > 1;
    const lines = r.hits.flatMap((h) => hitLines(h, showCapture));
    lines.push(
      r.truncated ? `(${r.hits.length} of ${r.total} records; --limit N shows more)` : `(${r.total} record${r.total === 1 ? '' : 's'})`,
    );
    out(lines.join('\n'));
  },
});
