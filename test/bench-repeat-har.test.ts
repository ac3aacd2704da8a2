/**
 * Issue 49's second bench shape (bench/gen-repeat-har.ts): one json-server session repeated to a
 * size. The bench's figures mean something only if the file is the same bytes every time and
 * a capture capstate loads as that one session, many times over.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateRepeatedHar } from '../bench/gen-repeat-har.js';
import { cli, root, tempDir } from './helpers.js';

describe('issue 49: the single-app bench capture', () => {
  it('is deterministic, a valid HAR of the session repeated later in time, and loads as one app', () => {
    const dir = tempDir();
    const a = generateRepeatedHar(root, join(dir, 'a.har'), 300_000);
    const b = generateRepeatedHar(root, join(dir, 'b.har'), 300_000);
    expect(b.sha256).toBe(a.sha256);
    expect(a.bytes).toBeGreaterThanOrEqual(300_000);
    const session = (
      JSON.parse(readFileSync(join(root, 'bench', 'fidelity', 'json-server-0.17', 'capture.har'), 'utf8')) as {
        log: { entries: unknown[] };
      }
    ).log.entries.length;
    expect(a.entries).toBe(session * a.repeats);
    const har = JSON.parse(readFileSync(join(dir, 'a.har'), 'utf8')) as { log: { entries: { startedDateTime: string }[] } };
    const times = har.log.entries.map((e) => Date.parse(e.startedDateTime));
    expect(times.every((t, i) => i === 0 || t >= times[i - 1])).toBe(true);
    const r = cli(['load', join(dir, 'a.har'), '--db', join(dir, 'a.sqlite'), '--quiet']);
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(cli(['manifest', '--db', join(dir, 'a.sqlite'), '--json']).stdout) as {
      manifests: { tools: { name: string }[] }[];
    };
    expect(doc.manifests).toHaveLength(1);
    expect(doc.manifests[0].tools.map((t) => t.name)).toContain('post_posts');
  });
});
