/**
 * Baseline: the loader's own splitter plus JSON.parse per entry, storing nothing.
 * This is the parse ceiling the load is compared against (~120 MB/s in perf-baselines.md):
 * whatever the loader does beyond it (validation, SQLite, members) shows up as the gap.
 *
 * Usage: node dist/bench/baseline.js FILE  → one JSON line {entries, bytes, bodyChars, ms}
 */
import { performance } from 'node:perf_hooks';
import { statSync } from 'node:fs';
import { splitJson } from '../src/load/split.js';

interface HarEntryLike {
  response?: { content?: { text?: unknown } };
}

async function main(): Promise<void> {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node dist/bench/baseline.js FILE\n');
    process.exit(2);
  }
  const t0 = performance.now();
  let entries = 0;
  let bodyChars = 0;
  for await (const piece of splitJson(file, { stream: [['log', 'entries']] })) {
    // Root members other than entries (version, creator, pages) arrive as pieces too.
    if (piece.path.length !== 3) continue;
    const entry = JSON.parse(piece.bytes.toString('utf8')) as HarEntryLike;
    // Touch the body so the work matches what a loader must at least do with each entry.
    const text = entry.response?.content?.text;
    if (typeof text === 'string') bodyChars += text.length;
    entries++;
  }
  const ms = performance.now() - t0;
  process.stdout.write(JSON.stringify({ entries, bytes: statSync(file).size, bodyChars, ms: Math.round(ms * 10) / 10 }) + '\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`baseline: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
