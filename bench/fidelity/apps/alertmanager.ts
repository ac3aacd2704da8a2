/**
 * The fidelity benchmark's Alertmanager app: Debian bookworm's `prometheus-alertmanager` 0.25
 * (scripts/fidelity-alertmanager.sh installs it), its API v2 as a UI uses it.
 *
 * Each start is fresh: a config file and an empty storage directory in `work`, clustering off
 * (`--cluster.listen-address=`), 127.0.0.1 at a free port. The session page is served by
 * Alertmanager itself: Debian's build has `--web.ui-path` (the upstream binary embeds its UI
 * instead) and answers `/` with that directory's `index.html`, so session.html goes there as
 * `index.html` and the recorder opens `/`. No other file of the directory is served, hence
 * `sessionPath: '/'`; no proxy stands between the page and the API.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FidelityApp, RunningApp } from '../harness.js';

const BIN = process.env.FIDELITY_ALERTMANAGER ?? '/usr/bin/prometheus-alertmanager';

/**
 * Two receivers without integrations (nothing is sent anywhere), critical alerts routed to
 * `pager`, everything else to `default`, grouped by alert name; a critical alert inhibits the
 * warnings of the same instance.
 */
const CONFIG = `route:
  receiver: default
  group_by: [alertname]
  routes:
    - receiver: pager
      matchers: ['severity="critical"']
receivers:
  - name: default
  - name: pager
inhibit_rules:
  - source_matchers: ['severity="critical"']
    target_matchers: ['severity="warning"']
    equal: [instance]
`;

async function start(work: string): Promise<RunningApp> {
  // Imported here, not at the top: harness.ts imports this file for APPS.
  const { appDir, freePort, whenReady } = await import('../harness.js');
  const ui = join(work, 'ui');
  mkdirSync(ui, { recursive: true });
  mkdirSync(join(work, 'data'), { recursive: true });
  copyFileSync(join(appDir(alertmanager), 'session.html'), join(ui, 'index.html'));
  writeFileSync(join(work, 'alertmanager.yml'), CONFIG);
  const port = await freePort();
  const child = spawn(
    BIN,
    [
      `--config.file=${join(work, 'alertmanager.yml')}`,
      `--storage.path=${join(work, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
      `--web.ui-path=${ui}/`,
      '--log.level=warn',
    ],
    { cwd: work, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return whenReady(alertmanager, child, `http://127.0.0.1:${port}`, { hint: 'run scripts/fidelity-alertmanager.sh' });
}

export const alertmanager: FidelityApp = {
  name: 'alertmanager',
  about:
    "Alertmanager 0.25.0 (Debian bookworm's prometheus-alertmanager), API v2, fresh storage, clustering off, two receivers and an inhibit rule (bench/fidelity/apps/alertmanager.ts); page served as / from --web.ui-path",
  readyPath: '/-/ready',
  sessionPath: '/',
  start,
  isApiPath: (path) => path.startsWith('/api/v2/'),
  // Values the app draws from the clock: `updatedAt` (alerts and silences), a silence's
  // `startsAt` (moved to now when it lies in the past, as a UI's "now" does), an expired
  // silence's `endsAt` (set to now by DELETE), and `uptime` (the start time, /api/v2/status).
  // Alerts' `startsAt`/`endsAt` are the session's own, but share the names. Silence ids are
  // random UUIDs; record.ts renames the truth run's ids to the capture's, so they are compared.
  mask: { fields: ['updatedAt', 'startsAt', 'endsAt', 'uptime'] },
};
