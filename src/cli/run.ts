/**
 * The capstate command line as a function: arguments in, exit code out (main.ts is the
 * process around it). Exit codes: 0 ok, 1 bad input or failed check, 2 usage.
 * stdout carries data only (`--json` is one document); progress and logs go to stderr.
 */
import { defineCommand, runCommand } from 'citty';
import { version } from './version.js';
import { damagedStore, errorMessage, reportError } from './common.js';
import { answerFirstRequest, mcpSession, servesStdio } from './mcp-startup.js';
import { writeUsage } from './help.js';
import { checkOptions, closestOption, expandShortFlags } from './strict-args.js';
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
    if (rawArgs.length > 2) {
      usageError('help takes one command name', 'capstate help');
      return 2;
    }
    if (!isCommand(rawArgs[1])) {
      usageError(unknownCommand([rawArgs[1]]), 'capstate help');
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
    usageError(unknownCommand(rawArgs.slice(0, end).filter((a) => !a.startsWith('-'))), 'capstate help');
    return 2;
  }
  const cmd = await commandLoaders[rawArgs[at]]();
  let rest = [...rawArgs.slice(0, at), ...rawArgs.slice(at + 1)];
  if (rest.includes('--help') || rest.includes('-h')) {
    await writeUsage(process.stdout, cmd, main);
    return 0;
  }
  mcpSession.started = false;
  try {
    // Short flags (`-j`, `-d FILE`, …) written out long before anything reads the arguments.
    rest = expandShortFlags(rest, (cmd.args ?? {}) as Record<string, never>);
    checkOptions(rawArgs[at], rest, (cmd.args ?? {}) as Record<string, never>);
    await runCommand(cmd, { rawArgs: rest });
    return 0;
  } catch (e) {
    const error = damagedStore(e, rest);
    const code = reportError(error, asJson || rest.slice(0, rest.includes('--') ? rest.indexOf('--') : rest.length).includes('--json'));
    // A usage error is its one line and where to look, as git and npm have it, not the whole help page.
    if (code === 2) process.stderr.write(`capstate: see ${whereToLook(rawArgs[at])}\n`);
    // An MCP client that started `serve` shows the failure itself, not "Connection closed" (mcp-startup.ts).
    if (rawArgs[at] === 'serve' && !mcpSession.started && servesStdio(rest) && !process.stdin.isTTY) {
      const look = code === 2 ? `; see ${whereToLook('serve')}` : '';
      await answerFirstRequest(`capstate serve: ${errorMessage(error)}${look}`, process.stdin, process.stdout);
    }
    return code;
  }
}

/** Where a command's options are described. */
const whereToLook = (command: string): string => `capstate help ${command} (or capstate ${command} --help)`;

function usageError(message: string, look: string): void {
  process.stderr.write(`capstate: ${message}\ncapstate: see ${look}\n`);
}

/**
 * What was wrong when no argument names a command: the command a typo was meant to be
 * (`staet`: did you mean 'state'?), else the commands there are.
 */
export function unknownCommand(words: string[]): string {
  if (words.length === 0) return `no command given; commands: ${commandNames.join(', ')}`;
  for (const w of words) {
    const near = closestOption(w, [...commandNames, 'help']);
    if (near) return `unknown command '${w}'; did you mean '${near}'?`;
  }
  return words.length === 1
    ? `unknown command '${words[0]}'; commands: ${commandNames.join(', ')}`
    : `no command among ${words.map((w) => `'${w}'`).join(', ')}; commands: ${commandNames.join(', ')}`;
}
