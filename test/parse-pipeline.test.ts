/**
 * A capture is parsed on the writer's thread below IN_THREAD_BELOW_BYTES and in a worker
 * thread above (src/load/pipeline.ts): both give the same items, and an error raised while
 * parsing keeps its code, message and place. The compiled pipeline is imported (`npm test`
 * builds first), since the worker runs dist/src/load/parse-worker.js.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ParseOut } from '../src/load/entries.js';
import { captureOf, root } from './helpers.js';

type Pipeline = typeof import('../src/load/pipeline.js');
const pipeline = async () => (await import(pathToFileURL(join(root, 'dist/src/load/pipeline.js')).href)) as Pipeline;

/** Every item `parsedCapture` yields, each as JSON (bytes as base64), or the error it ends with. */
async function parse(file: string, inThreadBelow: number): Promise<{ items: string[]; error?: unknown }> {
  const { parsedCapture } = await pipeline();
  const items: string[] = [];
  const parsed = parsedCapture(file, [], undefined, inThreadBelow);
  try {
    for await (const item of parsed.items as AsyncGenerator<ParseOut>)
      items.push(JSON.stringify(item, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v)));
    return { items };
  } catch (e) {
    const { code, message, context } = e as { code?: string; message: string; context?: unknown };
    return { items, error: { code, message, context } };
  } finally {
    await parsed.close();
  }
}

describe('the parse runs on the writer thread for a small capture, in a worker for a large one', () => {
  it('parses small captures on this thread by default: below 8 MB a worker costs more than it overlaps', async () => {
    expect((await pipeline()).IN_THREAD_BELOW_BYTES).toBe(8 * 1024 * 1024);
  });

  it.each(['json-server', 'redmine-rest', 'polly-js-compressed'])(
    '%s: the worker yields what this thread yields, item for item',
    async (name) => {
      const inThread = await parse(captureOf(name), Number.POSITIVE_INFINITY);
      const inWorker = await parse(captureOf(name), 0);
      expect(inThread.error).toBeUndefined();
      expect(inThread.items.length).toBeGreaterThan(0);
      expect(inWorker).toEqual(inThread);
    },
  );

  it('an error names the same file, record and field from either thread', async () => {
    const bad = join(root, 'examples', 'bad-input', 'bad.har');
    const inThread = await parse(bad, Number.POSITIVE_INFINITY);
    const inWorker = await parse(bad, 0);
    expect(inThread.error).toMatchObject({ context: expect.objectContaining({ record: 2 }) });
    expect(inWorker.error).toEqual(inThread.error);
  });
});
