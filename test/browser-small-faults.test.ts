/**
 * Small browser faults from issue 15: an aborted launch leaves no profile (BS-22), a
 * request step's redirect hop is in the Evidence with its Location (BS-50).
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { captureBrowserScenario } from '../src/browser/index.js';
import { CHROMIUM, describeBrowser } from './browser-app.js';
import { cliAsync, tempDir } from './helpers.js';

const dir = tempDir();

describeBrowser('BS-22 an aborted launch removes its profile', () => {
  it('BS-22 command_timeout_ms 1 (and a few more short ones): the capture fails and TMPDIR is left empty', async () => {
    for (const timeout of [1, 50, 400]) {
      const tmp = mkdtempSync(join(tmpdir(), 'capstate-abort-'));
      try {
        const file = join(dir, `abort-${timeout}.json`);
        writeFileSync(file, JSON.stringify({
          browser: { mode: 'launch', executable_path: CHROMIUM }, start_url: { url: 'http://127.0.0.1:1/' },
          command_timeout_ms: timeout, actions: [{ step_id: 's', action: 'wait_for_timeout', duration_ms: 10 }],
        }));
        const r = await cliAsync(['capture-browser-scenario', file], { env: { TMPDIR: tmp } });
        // 400 ms may be enough to launch on a fast machine: then the capture goes on and cleans up.
        if (timeout < 400) expect(r.status, r.stderr).toBe(1);
        expect(r.stderr).not.toMatch(/internal error/);
        expect(readdirSync(tmp), `command_timeout_ms ${timeout}: ${r.stderr}`).toEqual([]);
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    }
  }, 120_000);
});
