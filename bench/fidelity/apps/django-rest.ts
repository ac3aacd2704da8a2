/**
 * A Django REST framework API as an app of the fidelity benchmark (bench/README.md, "Django REST
 * framework (django-rest)"): Debian's python3-django 3.2, python3-djangorestframework 3.14 and
 * python3-django-filters 23.1 (installed by scripts/fidelity-django-rest.sh), SQLite. The project
 * is kept in bench/fidelity/apps/django-rest/: a blog (authors, posts, comments, tags) served by
 * ModelViewSets on a DefaultRouter. Each start builds the seed into the work directory (`migrate`,
 * then `loaddata seed`: every value and date fixed) and runs Django's `runserver` on that file,
 * so the capture and the truth start from the same state.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { appDir, root, whenReady, type FidelityApp, type RunningApp } from '../harness.js';

/** Debian's interpreter, which sees Debian's Django packages (a python3 earlier on PATH may not). */
const PYTHON = process.env.CAPSTATE_DJANGO_PYTHON ?? '/usr/bin/python3';
/**
 * The port is fixed, not drawn free: a page's `next` and `previous` are absolute URLs DRF builds
 * from the request's Host, so the capture and the truth must be recorded on the same one.
 */
const PORT = Number(process.env.CAPSTATE_DJANGO_PORT ?? 8392);
const SESSION_PATH = '/capstate-fidelity-session.html';
/** A function: harness.ts imports this module before it has set `root`. */
const project = () => join(root, 'bench/fidelity/apps/django-rest');

function portFree(port: number): Promise<void> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', (e) => rej(new Error(`django-rest: 127.0.0.1:${port} is taken (${e.message}); set CAPSTATE_DJANGO_PORT for another`)));
    s.listen(port, '127.0.0.1', () => s.close(() => res()));
  });
}

async function start(work: string): Promise<RunningApp> {
  if (!existsSync(PYTHON)) throw new Error(`django-rest: no ${PYTHON}: run bash scripts/fidelity-django-rest.sh (as root)`);
  const page = join(work, 'session.html');
  copyFileSync(join(appDir(djangoRest), 'session.html'), page);
  const env = {
    ...process.env,
    CAPSTATE_DJANGO_DB: join(work, 'db.sqlite3'),
    CAPSTATE_DJANGO_SESSION: page,
    DJANGO_SETTINGS_MODULE: 'blogsite.settings',
    // No __pycache__ in the repository's project directory.
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONUNBUFFERED: '1',
    TZ: 'UTC',
  };
  for (const args of [
    ['migrate', '--noinput', '-v', '0'],
    ['loaddata', 'seed', '-v', '0'],
  ]) {
    const r = spawnSync(PYTHON, ['manage.py', ...args], { cwd: project(), env, stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.error || r.status !== 0)
      throw new Error(
        `django-rest: manage.py ${args[0]} failed (${r.error?.message ?? r.stderr.toString().trim().slice(-2000)}): run bash scripts/fidelity-django-rest.sh (as root)`,
      );
  }
  await portFree(PORT);
  const child = spawn(PYTHON, ['manage.py', 'runserver', `127.0.0.1:${PORT}`, '--noreload'], {
    cwd: project(),
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return whenReady(djangoRest, child, `http://127.0.0.1:${PORT}`, { tries: 200, everyMs: 100 });
}

export const djangoRest: FidelityApp = {
  name: 'django-rest',
  about:
    "a Django REST framework blog API (Debian bookworm's python3-django 3.2.25, python3-djangorestframework 3.14.0, python3-django-filters 23.1, SQLite, Django's runserver; project in bench/fidelity/apps/django-rest/), seed loaded from its fixture, page served by a view on the same origin",
  readyPath: '/api/',
  // What two truth runs differ in: Django stamps created_at on a create and updated_at on every
  // save (the seed's are fixed, but the same names carry both).
  mask: { fields: ['created_at', 'updated_at'] },
  start,
  isApiPath: (path) => path.startsWith('/api/'),
  sessionPath: SESSION_PATH,
};
