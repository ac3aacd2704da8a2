#!/usr/bin/env node
/**
 * The README's example outputs, generated (issue 19): each block between
 *
 *   <!-- example: capstate state fixtures/grafana/capture.har -->
 *   ```
 *   …output…
 *   ```
 *   <!-- /example -->
 *
 * is what the command prints, run with the built CLI (dist/src/cli/main.js) in a new
 * empty folder that sees the repository's `fixtures/`, `examples/` and `bench/` (so `--db demo.sqlite`
 * writes nowhere in the checkout). A marker may chain commands with `&&` (each must
 * succeed, their stdout is joined), end in `2>&1` (stderr too, the exit code may be
 * non-zero: for error examples) and in `| head -n N` (the first N lines, then `…`).
 * Volatile text is normalised so the output is the same on every machine and run: the
 * folder's and the checkout's absolute paths become `/…`, a load's time and rate
 * `… s (… MB/s)`.
 *
 *   node scripts/readme-examples.mjs            rewrite README.md
 *   node scripts/readme-examples.mjs --check    exit 1, naming each block, when README.md differs
 *   (--readme FILE: another file, for tests)
 *
 * A terminal session is generated the same way:
 *
 *   <!-- session -->
 *   ```
 *   $ node examples/items-app/server.mjs &        # http://127.0.0.1:3000
 *   $ capstate capture-browser-scenario examples/items-app/scenario.json --out items.json
 *   …output…
 *   ```
 *   <!-- /session -->
 *
 * Lines starting `$ ` are commands (capstate, node or curl), run in order in one new
 * folder; every other line is regenerated: what the command printed on stdout and stderr,
 * in the order a terminal shows them. A command ending in `&` runs in the background (its
 * output is not shown) until the block ends; the next command waits until the port it
 * names (`--http PORT` or `:PORT` in its comment) answers. Each command must succeed.
 *
 *   <!-- file: examples/items-app/scenario.json -->
 *
 * before a fenced block: the block is that file's text.
 *
 * `npm run docs:readme` builds first; test/readme-examples.test.ts runs the check.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cliPath = join(root, 'dist', 'src', 'cli', 'main.js');

const argv = process.argv.slice(2);
const check = argv.includes('--check');
const at = argv.indexOf('--readme');
const readme = at >= 0 ? resolve(argv[at + 1]) : join(root, 'README.md');
for (const [i, a] of argv.entries()) {
  if (a !== '--check' && a !== '--readme' && argv[i - 1] !== '--readme') {
    process.stderr.write(`readme-examples: unknown argument ${a}; usage: node scripts/readme-examples.mjs [--check] [--readme FILE]\n`);
    process.exit(2);
  }
}

const MARKER = /^<!-- example: (.+?) -->\n```[a-z]*\n([\s\S]*?)```\n<!-- \/example -->$/gm;
const SESSION = /^<!-- session -->\n(```[a-z]*)\n([\s\S]*?)```\n<!-- \/session -->$/gm;
const FILE = /^<!-- file: (\S+) -->\n(```[a-z]*)\n([\s\S]*?)```$/gm;

/** Shell-like words: spaces split, single and double quotes group (no expansion). */
function words(text) {
  const out = [];
  for (const m of text.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g))
    out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3]));
  return out;
}

/** One marker's command line, parsed: commands (each capstate's arguments), stderr wanted, head lines. */
function parse(line) {
  let rest = line.trim();
  let head = null;
  const h = /\s*\|\s*head -n (\d+)$/.exec(rest);
  if (h) {
    head = Number(h[1]);
    rest = rest.slice(0, h.index);
  }
  const withStderr = /\s+2>&1$/.test(rest);
  if (withStderr) rest = rest.replace(/\s+2>&1$/, '');
  const commands = rest.split(/\s+&&\s+/).map((c) => {
    const w = words(c);
    if (w[0] !== 'capstate') throw new Error(`example "${line}": each command starts with capstate`);
    return w.slice(1);
  });
  return { commands, withStderr, head };
}

// The same output on every machine: no colour, UTC, and no test-only budget override.
/** @type {NodeJS.ProcessEnv} */
const env = { ...process.env, NO_COLOR: '1', TZ: 'UTC', LC_ALL: 'C' };
delete env.CAPSTATE_STATE_BUDGET_BYTES;

/** A new empty folder that sees the repository's fixtures and examples. */
function workFolder() {
  const dir = mkdtempSync(join(tmpdir(), 'capstate-readme-'));
  for (const d of ['fixtures', 'examples', 'bench']) symlinkSync(join(root, d), join(dir, d));
  return dir;
}

/** What the marker's commands print, normalised. */
function run(line) {
  const { commands, withStderr, head } = parse(line);
  const dir = workFolder();
  try {
    let text = '';
    for (const [i, args] of commands.entries()) {
      const r = spawnSync(process.execPath, [cliPath, ...args], {
        cwd: dir,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        env,
      });
      const last = i === commands.length - 1;
      if (r.status !== 0 && !(withStderr && last))
        throw new Error(`example "${line}": capstate ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
      text += r.stdout + (withStderr ? r.stderr : '');
    }
    return normalise(text, [dir, realpathSync(dir), root, realpathSync(root)], head);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const PROGRAMS = {
  capstate: [process.execPath, cliPath],
  './capstate': [process.execPath, cliPath],
  node: [process.execPath],
  curl: ['curl'],
};

function program(text, what) {
  const w = words(text);
  const p = PROGRAMS[w[0]];
  if (!p) throw new Error(`session command "${what}": runs ${Object.keys(PROGRAMS).join(', ')} only`);
  return [p[0], [...p.slice(1), ...w.slice(1)]];
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Waits until something answers HTTP on the port (curl exits 7 while nothing listens). */
function waitForPort(port, what) {
  for (let i = 0; i < 200; i++) {
    if (spawnSync('curl', ['-s', '-o', '/dev/null', `http://127.0.0.1:${port}/`]).status !== 7) return;
    sleep(100);
  }
  throw new Error(`session command "${what}": nothing answered on port ${port} after 20 s`);
}

/** A session block's text: each `$ ` command line, then what it printed (normalised). */
function runSession(body) {
  const dir = workFolder();
  const background = [];
  const out = [];
  try {
    for (const line of body.replace(/\n$/, '').split('\n')) {
      if (!line.startsWith('$ ')) continue;
      out.push(line);
      const comment = /\s+#\s.*$/.exec(line);
      let command = (comment ? line.slice(0, comment.index) : line).slice(2).trim();
      const inBackground = command.endsWith('&');
      if (inBackground) command = command.slice(0, -1).trim();
      const [file, args] = program(command, line);
      if (inBackground) {
        const port = /--http (?:\S+:)?(\d+)/.exec(command)?.[1] ?? /:(\d+)/.exec(comment?.[0] ?? '')?.[1];
        if (!port)
          throw new Error(`session command "${line}": a background command names its port (--http PORT, or # http://127.0.0.1:PORT)`);
        background.push(spawn(file, args, { cwd: dir, env, stdio: 'ignore' }));
        waitForPort(port, line);
        continue;
      }
      // One file for stdout and stderr keeps a terminal's order.
      const log = join(dir, '.session-output');
      const fd = openSync(log, 'w');
      const r = spawnSync(file, args, { cwd: dir, env, stdio: ['ignore', fd, fd] });
      closeSync(fd);
      const text = readFileSync(log, 'utf8');
      if (r.status !== 0) throw new Error(`session command "${line}" exited ${r.status}: ${text}`);
      if (text !== '') out.push(normalise(text, [dir, realpathSync(dir), root, realpathSync(root)], null).replace(/\n$/, ''));
    }
    return out.join('\n') + '\n';
  } finally {
    for (const p of background) p.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

function normalise(text, places, head) {
  let t = text;
  for (const p of [...new Set(places)].sort((a, b) => b.length - a.length)) t = t.split(p).join('/…');
  t = t.replace(/\b\d+(?:\.\d+)? s \(\d+(?:\.\d+)? MB\/s\)/g, '… s (… MB/s)');
  let lines = t.replace(/\n+$/, '').split('\n');
  if (head !== null && lines.length > head) lines = [...lines.slice(0, head), '…'];
  return lines.join('\n') + '\n';
}

const before = readFileSync(readme, 'utf8');
const stale = [];
let count = 0;
let after;
try {
  after = before
    .replace(MARKER, (whole, line, shown) => {
      count++;
      const fence = /** @type {RegExpExecArray} */ (/^```[a-z]*/.exec(whole.split('\n')[1]))[0];
      const output = run(line);
      if (output !== shown) stale.push(line);
      return `<!-- example: ${line} -->\n${fence}\n${output}\`\`\`\n<!-- /example -->`;
    })
    .replace(SESSION, (_whole, fence, shown) => {
      count++;
      const output = runSession(shown);
      if (output !== shown) stale.push(`session: ${shown.split('\n').find((l) => l.startsWith('$ ')) ?? '(no command)'}`);
      return `<!-- session -->\n${fence}\n${output}\`\`\`\n<!-- /session -->`;
    })
    .replace(FILE, (_whole, file, fence, shown) => {
      count++;
      const text = readFileSync(join(root, file), 'utf8');
      if (text !== shown) stale.push(`file: ${file}`);
      return `<!-- file: ${file} -->\n${fence}\n${text}\`\`\``;
    });
} catch (e) {
  process.stderr.write(`readme-examples: ${/** @type {Error} */ (e).message}\n`);
  process.exit(1);
}
const opened = (before.match(/<!-- (?:example: |session -->|file: )/g) ?? []).length;
if (opened !== count) {
  process.stderr.write(
    `readme-examples: ${opened - count} marker(s) in ${readme} are not followed by one fenced block (and <!-- /example --> or <!-- /session -->)\n`,
  );
  process.exit(1);
}
if (check) {
  if (stale.length) {
    process.stderr.write(
      `readme-examples: ${stale.length} of ${count} example output(s) in ${readme} differ from what the commands print:\n` +
        stale.map((l) => `  ${l}\n`).join('') +
        'run: npm run docs:readme\n',
    );
    process.exit(1);
  }
  process.stdout.write(`readme-examples: ${count} example output(s) in ${readme} are current\n`);
} else {
  if (after !== before) writeFileSync(readme, after);
  process.stdout.write(
    `readme-examples: ${count} example output(s) ${stale.length ? `regenerated (${stale.length} changed)` : 'current'} in ${readme}\n`,
  );
}
