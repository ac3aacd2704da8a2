/**
 * The capstate command line as a function: arguments in, exit code out (main.ts is the
 * process around it). Exit codes: 0 ok, 1 bad input or failed check, 2 usage.
 * stdout carries data only (`--json` is one document); progress and logs go to stderr.
 */
import { defineCommand, runCommand } from 'citty';
import { version } from './version.js';
import { damagedStore, reportError } from './common.js';
import { writeUsage } from './help.js';
import { checkOptions, expandShortFlags } from './strict-args.js';
import { commandLoaders, commandNames, isCommand } from './commands.js';

const main = defineCommand({
  meta: {
    name: 'capstate',
    version,
    description:
      "Recorded web-API traffic → a SQLite fact store, the app's inferred backend state, and an MCP stand-in for it. " +
      "Exit codes: 0 ok, 1 bad input or failed check, 2 usage. `capstate help COMMAND` shows a command's options.",
  },
  // Resolved only to list them all (`capstate --help`): citty imports each command's module then.
  subCommands: commandLoaders,
});

/**
 * Runs one command line (the arguments after `capstate`) and returns its exit code. Output
 * goes to process.stdout and process.stderr; the caller sets the exit code (main.ts) or
 * captures both streams (test/cli-worker.mjs runs commands in process).
 */
export async function run(rawArgs: string[]): Promise<number> {
  const asJson = rawArgs.includes('--json');
  if (rawArgs.length === 0) {
    await writeUsage(process.stderr, main);
    return 2;
  }
  if (rawArgs[0] === '--help' || rawArgs[0] === '-h') {
    await writeUsage(process.stdout, main);
    return 0;
  }
  // `capstate help` and `capstate help COMMAND`, as git and npm have it.
  if (rawArgs[0] === 'help') {
    if (rawArgs.length === 1) {
      await writeUsage(process.stdout, main);
      return 0;
    }
    if (rawArgs.length > 2 || !isCommand(rawArgs[1])) {
      process.stderr.write(`capstate: help takes one command name; commands: ${commandNames.join(', ')}\n`);
      return 2;
    }
    await writeUsage(process.stdout, await commandLoaders[rawArgs[1]](), main);
    return 0;
  }
  if (rawArgs[0] === '--version' || rawArgs[0] === '-v') {
    process.stdout.write(version + '\n');
    return 0;
  }
  // The command is the first argument (before any `--`) that names one, so options may
  // come first: `capstate --db x.sqlite info`. Those options are passed to the command.
  const end = rawArgs.includes('--') ? rawArgs.indexOf('--') : rawArgs.length;
  const at = rawArgs.slice(0, end).findIndex(isCommand);
  if (at < 0) {
    const words = rawArgs.slice(0, end).filter((a) => !a.startsWith('-'));
    const what =
      words.length === 0
        ? `no command given`
        : words.length === 1
          ? `unknown command ${JSON.stringify(words[0])}`
          : `no command among ${words.map((w) => JSON.stringify(w)).join(', ')}`;
    process.stderr.write(`capstate: ${what}; commands: ${commandNames.join(', ')}\n`);
    return 2;
  }
  const cmd = await commandLoaders[rawArgs[at]]();
  let rest = [...rawArgs.slice(0, at), ...rawArgs.slice(at + 1)];
  if (rest.includes('--help') || rest.includes('-h')) {
    await writeUsage(process.stdout, cmd, main);
    return 0;
  }
  try {
    // Short flags (`-j`, `-d FILE`, …) written out long before anything reads the arguments.
    rest = expandShortFlags(rest, (cmd.args ?? {}) as Record<string, never>);
    checkOptions(rawArgs[at], rest, (cmd.args ?? {}) as Record<string, never>);
    await runCommand(cmd, { rawArgs: rest });
    return 0;
  } catch (e) {
    const code = reportError(
      damagedStore(e, rest),
      asJson || rest.slice(0, rest.includes('--') ? rest.indexOf('--') : rest.length).includes('--json'),
    );
    if (code === 2) await writeUsage(process.stderr, cmd, main);
    return code;
  }
}
