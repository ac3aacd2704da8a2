/**
 * A throwaway PostgreSQL (issue 20) for the tests and the benchmark: Debian's server binaries
 * (`postgresql`, which `npm run setup` installs), a cluster in a temporary directory with the C
 * locale (SQLite's text order), listening on a Unix socket in that directory only, stopped and
 * removed by `stop()`. initdb refuses to run as root, so under root the cluster belongs to the
 * `postgres` user the package creates.
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export interface Postgres {
  /** A capstate store URL for schema `schema` of the `postgres` database (created by the first load). */
  url(schema: string): string;
  /** Stops the server and removes its directory (call it from the test file's afterAll). */
  stop(): void;
  /** The socket directory (psql's `-h`) and port. */
  host: string;
  port: number;
  /** Runs `sql` (one or more statements) in `database`; throws with psql's message when it fails. */
  psql(database: string, sql: string): string;
  /** Runs `sql` in `database` and returns psql's exit status and stderr, for statements expected to fail. */
  psqlStatus(database: string, sql: string): { status: number; stderr: string };
  /** Runs a psql script on `database` (statements, `COPY … FROM STDIN` data, `\\echo`); returns its output. */
  script(database: string, text: string): string;
}

const PORT = 5432; // the socket is in a directory of its own, so no other server's port matters

function binDir(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0)
    throw new Error(
      'PostgreSQL server binaries not found under /usr/lib/postgresql: run `npm run setup` (it installs the Debian package postgresql)',
    );
  return join(base, versions[0], 'bin');
}

function run(cmd: string, args: string[], asPostgres: boolean, opts: SpawnSyncOptions = {}) {
  const [c, a] = asPostgres ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  const r = spawnSync(c, a, { encoding: 'utf8', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}\n${r.stderr}${r.stdout}`);
  return r;
}

/** Starts a cluster; the caller stops it (`afterAll(() => pg.stop())`). */
export function startPostgres(): Postgres {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'capstate-pg-'));
  const asPostgres = userInfo().uid === 0;
  if (asPostgres) {
    const pw = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    chownSync(dir, Number(pw.stdout.trim()), Number(gid.stdout.trim()));
    chmodSync(dir, 0o700);
  }
  const data = join(dir, 'data');
  run(
    join(bin, 'initdb'),
    ['-D', data, '-A', 'trust', '-U', 'capstate', '--locale=C', '-E', 'UTF8', '--no-sync', '--no-instructions'],
    asPostgres,
  );
  run(
    join(bin, 'pg_ctl'),
    ['-D', data, '-l', join(dir, 'log'), '-w', '-o', `-c listen_addresses='' -k ${dir} -p ${PORT} -c fsync=off`, 'start'],
    asPostgres,
  );
  const stop = () => {
    run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], asPostgres);
    rmSync(dir, { recursive: true, force: true });
  };
  const base = (database: string) => [
    '-h',
    dir,
    '-p',
    String(PORT),
    '-U',
    'capstate',
    '-d',
    database,
    '-X',
    '-q',
    '-v',
    'ON_ERROR_STOP=1',
    '-At',
    '-F',
    '\t',
  ];
  const psqlArgs = (database: string, sql: string) => [...base(database), '-c', sql];
  return {
    stop,
    host: dir,
    port: PORT,
    url: (schema) => `postgresql:///postgres?host=${encodeURIComponent(dir)}&port=${PORT}&user=capstate&options=-csearch_path%3D${schema}`,
    psql: (database, sql) => run('psql', psqlArgs(database, sql), false).stdout as string,
    script: (database, text) => run('psql', [...base(database), '-f', '-'], false, { input: text, maxBuffer: 1 << 28 }).stdout as string,
    psqlStatus: (database, sql) => {
      const r = spawnSync('psql', psqlArgs(database, sql), { encoding: 'utf8' });
      return { status: r.status ?? -1, stderr: r.stderr };
    },
  };
}
