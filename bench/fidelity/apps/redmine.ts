/**
 * Redmine as an app of the fidelity benchmark (bench/README.md, "Fidelity on held-out
 * requests"): Debian's redmine 5.0.x with SQLite, prepared by scripts/fidelity-redmine.sh (an
 * instance of its own, `capstate-fidelity`, and a seed database). Each start copies the seed
 * into the work directory and runs `bin/rails server` (WEBrick) on that copy, so the capture and
 * the truth start from the same state.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { appDir, freePort, whenReady, type FidelityApp, type RunningApp } from '../harness.js';

const REDMINE = '/usr/share/redmine';
const INSTANCE = 'capstate-fidelity';
const SEED = process.env.CAPSTATE_REDMINE_SEED ?? `/var/lib/redmine/${INSTANCE}/seed.sqlite3`;
/** The seeded admin's API key: a throwaway local value, set by scripts/fidelity-redmine.sh. */
const API_KEY = 'cafe0000f1de11700000000000000000000044aa';
/** Served from Redmine's own public/ directory, so the page and the API share an origin. */
const SESSION_FILE = 'capstate-fidelity-session.html';
const GEMS = '/usr/share/rubygems-integration/all/gems';

/**
 * WEBrick is installed (ruby-webrick) but not in Redmine's Gemfile, so `rails server -u webrick`
 * cannot load it under Bundler; its lib directory goes on Ruby's load path instead.
 */
function webrickLib(): string {
  const dir = existsSync(GEMS) ? readdirSync(GEMS).find((d) => /^webrick-\d/.test(d)) : undefined;
  if (!dir) throw new Error(`redmine: no webrick gem under ${GEMS} (apt-get install ruby-webrick)`);
  return join(GEMS, dir, 'lib');
}

async function start(work: string): Promise<RunningApp> {
  if (!existsSync(SEED)) throw new Error(`redmine: no seed at ${SEED}: run bash scripts/fidelity-redmine.sh (as root)`);
  const db = join(work, 'redmine.sqlite3');
  copyFileSync(SEED, db);
  copyFileSync(join(appDir(redmine), 'session.html'), join(REDMINE, 'public', SESSION_FILE));
  const port = await freePort();
  const child = spawn(
    join(REDMINE, 'bin/rails'),
    ['server', '-u', 'webrick', '-b', '127.0.0.1', '-p', String(port), '-e', 'production', '-P', join(work, 'server.pid')],
    {
      cwd: REDMINE,
      env: {
        ...process.env,
        REDMINE_INSTANCE: INSTANCE,
        CAPSTATE_FIDELITY_DB: db,
        RAILS_ENV: 'production',
        TZ: 'UTC',
        RUBYOPT: `-I${webrickLib()}`,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  // Rails boots in 3–10 s; polled for up to 90 s. WEBrick may ignore SIGTERM while it serves.
  return whenReady(redmine, child, `http://127.0.0.1:${port}`, { tries: 450, everyMs: 200, killAfterMs: 10_000 });
}

export const redmine: FidelityApp = {
  name: 'redmine',
  about:
    "Redmine 5.0.4 (Debian bookworm's redmine and redmine-sqlite, WEBrick), REST API with the admin's API key, seed built by scripts/fidelity-redmine.sh, page served from Redmine's public/ dir",
  readyPath: '/trackers.json',
  // Timestamps Redmine sets when the session creates, updates or closes an issue (the seed's
  // own are fixed, but the same names carry both), and a journal's time.
  mask: { fields: ['created_on', 'updated_on', 'closed_on'] },
  start,
  // Every REST request of the session ends in .json; the page and favicon.ico do not.
  isApiPath: (path) => path.endsWith('.json'),
  sessionPath: `/${SESSION_FILE}`,
  headers: { 'X-Redmine-API-Key': API_KEY },
};
