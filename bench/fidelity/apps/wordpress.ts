/**
 * WordPress as an app of the fidelity benchmark (bench/README.md, "Fidelity on held-out
 * requests"): Debian's wordpress 6.1 with MariaDB and PHP 8.2, prepared by
 * scripts/fidelity-wordpress.sh (a database, a config file Debian's wp-config.php loads, and a
 * seed dump). Each start drops the database, restores the seed into it and runs PHP's built-in
 * server on the REST API's fixed origin, so the capture and the truth start from the same state
 * and every link in their answers names the same host.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { appDir, root, whenReady, type FidelityApp, type RunningApp } from '../harness.js';

const SEED = process.env.CAPSTATE_WORDPRESS_SEED ?? '/var/lib/capstate-fidelity/wordpress-seed.sql';
/**
 * WP_HOME's port (scripts/fidelity-wordpress.sh's config reads the same variable): every `link`,
 * `guid` and `_links` href names it, so it is fixed, not drawn free, and the capture and the
 * truth must be recorded on the same one.
 */
const PORT = Number(process.env.CAPSTATE_WORDPRESS_PORT ?? 8391);
const DB = 'capstate_fidelity_wp';
/** The database user and password of scripts/fidelity-wordpress.sh: throwaway local values. */
const DB_ARGS = ['-u', 'capstate_wp', '-pcapstate-fidelity-wp'];
/**
 * The seeded admin's application password (a throwaway local value, set by
 * scripts/fidelity-wordpress.sh); session.html sends the same header.
 */
const AUTHORIZATION = `Basic ${Buffer.from('admin:capstateFidelity0000WpAp').toString('base64')}`;
const SESSION_PATH = '/capstate-fidelity-session.html';
/** A function: harness.ts imports this module before it has set `root`. */
const router = () => join(root, 'bench/fidelity/apps/wordpress-router.php');

function mysql(args: string[], input?: Buffer): void {
  const r = spawnSync('mysql', [...DB_ARGS, ...args], { input, stdio: ['pipe', 'ignore', 'pipe'] });
  if (r.error || r.status !== 0)
    throw new Error(
      `wordpress: mysql ${args.join(' ')} failed (${r.error?.message ?? r.stderr.toString().trim()}): is MariaDB running? run bash scripts/fidelity-wordpress.sh (as root)`,
    );
}

/** Fails loudly when the fixed port is taken (another run, or something else listening). */
function portFree(port: number): Promise<void> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', (e) => rej(new Error(`wordpress: 127.0.0.1:${port} is taken (${e.message}); set CAPSTATE_WORDPRESS_PORT for another`)));
    s.listen(port, '127.0.0.1', () => s.close(() => res()));
  });
}

async function start(work: string): Promise<RunningApp> {
  if (!existsSync(SEED)) throw new Error(`wordpress: no seed at ${SEED}: run bash scripts/fidelity-wordpress.sh (as root)`);
  mysql(['-e', `DROP DATABASE IF EXISTS \`${DB}\`; CREATE DATABASE \`${DB}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`]);
  mysql([DB], readFileSync(SEED));
  const page = join(work, 'session.html');
  copyFileSync(join(appDir(wordpress), 'session.html'), page);
  await portFree(PORT);
  const child = spawn(
    'php',
    ['-d', 'display_errors=0', '-d', 'log_errors=1', '-S', `127.0.0.1:${PORT}`, '-t', '/usr/share/wordpress', router()],
    {
      cwd: work,
      env: { ...process.env, CAPSTATE_WORDPRESS_PORT: String(PORT), CAPSTATE_WORDPRESS_SESSION: page, TZ: 'UTC' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  return whenReady(wordpress, child, `http://127.0.0.1:${PORT}`, { tries: 200, everyMs: 100, hint: 'apt-get install php-cli' });
}

export const wordpress: FidelityApp = {
  name: 'wordpress',
  about:
    "WordPress 6.1.9 (Debian bookworm's wordpress, MariaDB 10.11, PHP 8.2's built-in server), REST API /wp-json/wp/v2 with the admin's application password, seed built by scripts/fidelity-wordpress.sh, page served by the router on the same origin",
  readyPath: '/wp-json/wp/v2/types/post',
  // What two truth runs differ in: WordPress stamps `modified` (and `modified_gmt`) from the clock
  // on every update and trash, and a revision's `date`/`date_gmt` is when the update made it
  // (GET /posts/4/revisions). Seeded and created posts' dates are fixed (creates name theirs),
  // but the same names carry both, so all four are masked everywhere.
  mask: { fields: ['date', 'date_gmt', 'modified', 'modified_gmt'] },
  start,
  isApiPath: (path) => path.startsWith('/wp-json/'),
  sessionPath: SESSION_PATH,
  headers: { Authorization: AUTHORIZATION },
};
