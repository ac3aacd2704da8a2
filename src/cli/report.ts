import { closeSync, existsSync, openSync, readSync, statSync, writeFileSync } from 'node:fs';
import { defineCommand } from 'citty';
import { pickCapture } from '../manifest/read.js';
import { readReportData } from '../report/data.js';
import { renderReport } from '../report/html.js';
import { log } from './common.js';
import { sourceArgs, withCaptures } from './source.js';

/** Whether `file` is an SQLite file (a store) rather than a capture to load. */
function isSqliteFile(file: string): boolean {
  if (!existsSync(file) || !statSync(file).isFile()) return false;
  const head = Buffer.alloc(16);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  return head.toString('latin1') === 'SQLite format 3\0';
}

export default defineCommand({
  meta: {
    name: 'report',
    description:
      "Write one self-contained HTML page about a capture: its timeline (each request by time and tool, writes, each type's bound, initial reads), " +
      'the types with their entities, the documents and how each read tool is answered. Reads the stored state; the page loads nothing from the network',
  },
  args: {
    ...sourceArgs,
    source: {
      type: 'positional',
      description: 'A store (.sqlite) to report on, or a capture file to load first (into a temporary store unless --db is given)',
      required: false,
      valueHint: 'STORE|CAPTURE',
    },
    out: {
      type: 'string',
      alias: 'o',
      description: 'The HTML file to write (default report.html; - for stdout)',
      default: 'report.html',
      valueHint: 'FILE',
    },
  },
  async run({ args: a, rawArgs }) {
    // A store given as the positional is the store to read, as --db would name it.
    const source = a.source && isSqliteFile(a.source) ? { ...a, db: a.source, source: undefined } : a;
    await withCaptures(
      source,
      rawArgs,
      async (k, ids) => {
        const captureId = pickCapture(ids, source.db);
        const html = renderReport(await readReportData(k, captureId, source.db));
        if (a.out === '-') {
          process.stdout.write(html);
          return;
        }
        writeFileSync(a.out, html);
        log(`wrote ${a.out} (${(Buffer.byteLength(html) / 1024).toFixed(0)} KiB; open it in a browser)`);
      },
      { one: true, state: true },
    );
  },
});
