/**
 * Tool-call latency of the MCP server, in process (InMemoryTransport + a real Client), on
 * the bench's generated capture: the store `npm run bench` loaded (bench/out/h<MB>.sqlite
 * for each of BENCH_SIZES), generated and loaded here when missing.
 *
 * Env: BENCH_SIZES (each size in its own process, default 50,500), BENCH_SERVE_CALLS (default 2000),
 * BENCH_SERVE_POSTGRES (sizes served from a throwaway PostgreSQL as well, default 50; empty for none).
 * Prints the figures on stdout and writes bench/out/serve-results-h<MB>.json.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { closeServeContext, openServeContext, type ServeContext } from '../src/model/served/context.js';
import { openPostgresStore } from '../src/store/postgres-store.js';
import { temporaryReplica } from '../src/store/postgres-replica.js';
import { startPostgres } from './postgres-server.js';
import { isWriteTool, recordArguments, toolRecords } from '../src/model/served/records.js';
import { createServer } from '../src/mcp/server.js';
import { NODE_FLAGS } from '../src/cli/memory.js';
import { DECLINED_CODES } from '../src/model/served/provenance.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const OUT = join(ROOT, 'bench', 'out');
const CLI_JS = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const log = (msg: string) => process.stderr.write(msg + '\n');

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function ensureHar(mb: number): string {
  mkdirSync(OUT, { recursive: true });
  const har = join(OUT, `h${mb}.har`);
  if (!existsSync(har)) {
    log(`[serve] generating ${relative(ROOT, har)}…`);
    const g = spawnSync(process.execPath, [join(ROOT, 'dist', 'bench', 'gen-har.js'), String(mb), har], { stdio: 'inherit' });
    if (g.status !== 0) throw new Error('gen-har failed');
  }
  return har;
}

function ensureStore(mb: number): string {
  const db = join(OUT, `h${mb}.sqlite`);
  if (existsSync(db)) {
    // A store an older capstate loaded (a migration came since) is brought up to date first:
    // served as it is, the server would refuse it and the bench see only "Connection closed".
    const m = spawnSync(process.execPath, [...NODE_FLAGS, CLI_JS, 'migrate', '--db', db], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (m.status !== 0) throw new Error(`capstate migrate --db ${relative(ROOT, db)} failed`);
    return db;
  }
  const har = ensureHar(mb);
  log(`[serve] loading ${relative(ROOT, har)} → ${relative(ROOT, db)}…`);
  const l = spawnSync(process.execPath, [...NODE_FLAGS, CLI_JS, 'load', har, '--db', db, '--quiet'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (l.status !== 0) throw new Error('capstate load failed');
  return db;
}

/**
 * Issue 20: the capture loaded into a throwaway PostgreSQL, then served as `serve --db
 * postgres://…` serves it: from a private SQLite copy of its rows, made at start (counted in
 * the start-up time).
 */
async function fromPostgres(mb: number): Promise<{ db: string; open: () => Promise<ServeContext>; stop: () => void }> {
  const har = ensureHar(mb);
  const pg = startPostgres();
  const url = pg.url('serve');
  log(`[serve] loading ${relative(ROOT, har)} into PostgreSQL…`);
  const l = spawnSync(process.execPath, [...NODE_FLAGS, CLI_JS, 'load', har, '--db', url, '--quiet'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (l.status !== 0) {
    pg.stop();
    throw new Error('capstate load into PostgreSQL failed');
  }
  let replica: { file: string; cleanup: () => void } | null = null;
  return {
    db: `PostgreSQL (${relative(ROOT, har)})`,
    open: async () => {
      const store = await openPostgresStore(url);
      try {
        replica = await temporaryReplica(store, [1]);
      } finally {
        await store.close();
      }
      return openServeContext(replica.file);
    },
    stop: () => {
      replica?.cleanup();
      pg.stop();
    },
  };
}

/**
 * `capstate serve` as an MCP client starts it: the process spawned over stdio until its
 * tools/list answers (Node's start, the command's imports, the stored state opened, the
 * catalog built). The median of BENCH_SERVE_STARTS (default 3) runs.
 */
async function processStart(db: string): Promise<number> {
  const runs = Math.max(1, Number(process.env.BENCH_SERVE_STARTS ?? 3) | 0);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...NODE_FLAGS, CLI_JS, 'serve', '--db', db],
      stderr: 'ignore',
      cwd: ROOT,
    });
    const client = new Client({ name: 'capstate-bench', version: '1' });
    await client.connect(transport);
    await client.listTools();
    times.push(performance.now() - t0);
    await client.close();
  }
  return times.sort((x, y) => x - y)[Math.floor(times.length / 2)];
}

/** One size in this process (a child per size, so each peak RSS is its own). */
async function serveOne(mb: number, backend: 'sqlite' | 'postgres'): Promise<number> {
  const calls = Math.max(1, Number(process.env.BENCH_SERVE_CALLS ?? 2000) | 0);
  const pg = backend === 'postgres' ? await fromPostgres(mb) : null;
  try {
    return await serveFrom(mb, calls, pg?.db ?? ensureStore(mb), pg?.open ?? (() => openServeContext(ensureStore(mb))), backend);
  } finally {
    pg?.stop();
  }
}

async function serveFrom(mb: number, calls: number, db: string, open: () => Promise<ServeContext>, backend: string): Promise<number> {
  const processMs = backend === 'sqlite' ? await processStart(db) : null;
  const t0 = performance.now();
  const ctx = await open();
  const { server, catalog } = await createServer(ctx);
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'capstate-bench', version: '1' });
  await server.connect(b);
  await client.connect(a);
  const { tools } = await client.listTools();
  const startMs = performance.now() - t0;

  // One call per recorded request line of every served environment tool, cycled.
  const served = new Set(catalog.environmentTools.map((t) => t.name));
  const plan: { name: string; args: Record<string, unknown> }[] = [];
  for (const t of ctx.manifest.tools) {
    if (!served.has(t.name)) continue;
    const seen = new Set<string>();
    for (const r of await toolRecords(ctx, t.name)) {
      const args = recordArguments(r);
      const key = JSON.stringify([t.name, args]);
      if (!seen.has(key)) {
        seen.add(key);
        plan.push({ name: t.name, args });
      }
    }
  }
  if (plan.length === 0) throw new Error('no tool calls to make');

  const lat: number[] = [];
  let errors = 0;
  let declined = 0;
  let fromState = 0;
  // The first write call reads the write effects the load stored (issue 16, ES-41 extended); before, it ran check-effects.
  const writes = new Set(ctx.manifest.tools.filter((t) => isWriteTool(ctx, t)).map((t) => t.name));
  let firstWrite: { tool: string; ms: number } | null = null;
  for (let i = 0; i < calls; i++) {
    const c = plan[i % plan.length];
    const s = performance.now();
    const r = await client.callTool({ name: c.name, arguments: c.args });
    lat.push(performance.now() - s);
    if (!firstWrite && writes.has(c.name)) firstWrite = { tool: c.name, ms: lat[lat.length - 1] };
    // A decline (issue 44: the model says it cannot answer, e.g. a read after writes the capture
    // did not make) is an answer; only other errors mean serving broke.
    const code = (r.structuredContent as { code?: string } | undefined)?.code;
    if (r.isError && code !== undefined && DECLINED_CODES.has(code)) declined++;
    else if (r.isError) errors++;
    if ((r.structuredContent as { source?: string } | undefined)?.source === 'state') fromState++;
  }
  const sorted = [...lat].sort((x, y) => x - y);
  const sql: number[] = [];
  for (let i = 0; i < 200; i++) {
    const s = performance.now();
    await client.callTool({ name: 'query_store', arguments: { sql: 'select tool, status, records from tool_statuses', max_rows: 1000 } });
    sql.push(performance.now() - s);
  }
  sql.sort((x, y) => x - y);
  await client.close();
  await server.close();
  await closeServeContext(ctx);

  const result = {
    store: backend === 'sqlite' ? relative(ROOT, db) : db,
    backend,
    machine: { cpus: cpus().length, node: process.version },
    tools: tools.length,
    environment_tools: catalog.environmentTools.length,
    catalog_bytes: catalog.bytes,
    catalog_limitations: catalog.limitations,
    start_ms: startMs,
    process_start_ms: processMs,
    request_lines: plan.length,
    calls,
    errors,
    declined,
    from_state: fromState,
    peak_rss_mb: process.resourceUsage().maxRSS / 1000,
    call_ms: {
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted[sorted.length - 1],
      mean: lat.reduce((x, y) => x + y, 0) / lat.length,
    },
    query_store_ms: { p50: percentile(sql, 50), p99: percentile(sql, 99) },
    first_write_call_ms: firstWrite?.ms ?? null,
  };
  writeFileSync(join(OUT, `serve-results-h${mb}${backend === 'sqlite' ? '' : '-postgres'}.json`), JSON.stringify(result, null, 2) + '\n');
  const f = (x: number) => x.toFixed(2);
  process.stdout.write(
    [
      `serve bench on ${result.store}: ${result.tools} tools (${result.environment_tools} environment), catalog ${result.catalog_bytes} bytes, start + list ${f(startMs)} ms in process` +
        (processMs === null ? '' : `, ${f(processMs)} ms as a process (capstate serve over stdio until tools/list answers)`) +
        `, peak RSS ${result.peak_rss_mb.toFixed(0)} MB`,
      `tool calls (in process): ${calls} over ${plan.length} request lines (${fromState} answered from state, the rest replayed), ${declined} declined, ${errors} errors; p50 ${f(result.call_ms.p50)} ms, p99 ${f(result.call_ms.p99)} ms, max ${f(result.call_ms.max)} ms`,
      `query_store (tool_statuses): p50 ${f(result.query_store_ms.p50)} ms, p99 ${f(result.query_store_ms.p99)} ms`,
      firstWrite ? `first write call (${firstWrite.tool}): ${f(firstWrite.ms)} ms` : 'first write call: none (no write tool called)',
    ].join('\n') + '\n',
  );
  return errors ? 1 : 0;
}

/** Every size of BENCH_SIZES (default 50,500), each in a child process of its own. */
async function main(): Promise<number> {
  const one = process.env.BENCH_SERVE_SIZE;
  if (one) return serveOne(Number(one), process.env.BENCH_SERVE_BACKEND === 'postgres' ? 'postgres' : 'sqlite');
  let code = 0;
  const sizes = (list: string) => list.split(',').filter(Boolean).map(Number);
  const runs = [
    ...sizes(process.env.BENCH_SIZES ?? '50,500').map((mb) => ({ mb, backend: 'sqlite' })),
    ...sizes(process.env.BENCH_SERVE_POSTGRES ?? '50').map((mb) => ({ mb, backend: 'postgres' })),
  ];
  for (const { mb, backend } of runs) {
    const r = spawnSync(process.execPath, [...NODE_FLAGS, process.argv[1]], {
      stdio: 'inherit',
      env: { ...process.env, BENCH_SERVE_SIZE: String(mb), BENCH_SERVE_BACKEND: backend },
    });
    code ||= r.status ?? 1;
  }
  return code;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
