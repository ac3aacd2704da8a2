#!/usr/bin/env node
/**
 * The capstate CLI. Exit codes: 0 ok, 1 bad input or failed check, 2 usage.
 * stdout carries data only (`--json` is one document); progress and logs go to stderr.
 */
import { defineCommand, renderUsage, runCommand, showUsage } from 'citty';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../store/open.js';
import { reportError, warnUnknownFlags } from './common.js';
import { commands } from './commands.js';

const version = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;

const main = defineCommand({
  meta: {
    name: 'capstate',
    version,
    description: 'Recorded web-API traffic → a SQLite fact store (and, later, the app\'s backend state). ' +
      'Exit codes: 0 ok, 1 bad input or failed check, 2 usage.',
  },
  subCommands: commands,
});

async function run(rawArgs: string[]): Promise<number> {
  const asJson = rawArgs.includes('--json');
  const name = rawArgs.find((a) => !a.startsWith('-'));
  if (rawArgs.length === 0) { process.stderr.write((await renderUsage(main)) + '\n'); return 2; }
  if (rawArgs[0] === '--help' || rawArgs[0] === '-h') { await showUsage(main); return 0; }
  if (rawArgs[0] === '--version' || rawArgs[0] === '-v') { process.stdout.write(version + '\n'); return 0; }
  const cmd = name ? commands[name] : undefined;
  if (!cmd) {
    process.stderr.write(`capstate: unknown command ${JSON.stringify(name ?? rawArgs[0])}; commands: ${Object.keys(commands).join(', ')}\n`);
    return 2;
  }
  const rest = rawArgs.slice(rawArgs.indexOf(name!) + 1);
  if (rest.includes('--help') || rest.includes('-h')) { await showUsage(cmd, main); return 0; }
  try {
    warnUnknownFlags(rest, (cmd.args ?? {}) as Record<string, never>);
    await runCommand(cmd, { rawArgs: rest });
    return 0;
  } catch (e) {
    const code = reportError(e, asJson);
    if (code === 2) process.stderr.write((await renderUsage(cmd, main)) + '\n');
    return code;
  }
}

process.exitCode = await run(process.argv.slice(2));
