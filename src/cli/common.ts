/**
 * Shared CLI pieces: argument fragments, output helpers, and the one place that turns
 * errors into messages and exit codes (0 ok, 1 bad input or failed check, 2 usage).
 */
import type { ArgsDef } from 'citty';
import { CapstateError } from '../errors.js';
import { JSON_FORMAT_VERSION, toJson } from '../json/output.js';
import { DEFAULT_SQL_TIMEOUT_MS } from '../store/read-only-sql.js';
import { plainError, plainText } from '../model/plan/words.js';

/** Issue 20: `CAPSTATE_DB` names the store when --db is not given (a file, or a postgres:// URL). */
export const storeFromEnvironment = (): string | undefined => process.env.CAPSTATE_DB || undefined;

export const dbArg = {
  db: {
    type: 'string',
    alias: 'd',
    description: 'Store: a SQLite file, or a PostgreSQL URL (postgres://…); default $CAPSTATE_DB, else capstate.sqlite',
    default: storeFromEnvironment() ?? 'capstate.sqlite',
    valueHint: 'FILE|URL',
  },
} as const satisfies ArgsDef;

export const jsonArg = {
  json: { type: 'boolean', alias: 'j', description: 'Print one JSON document on stdout', default: false },
} as const satisfies ArgsDef;

/** Text output names the spec rules behind what it says only when asked (issue 19: plain words by default). */
export const explainArg = {
  explain: {
    type: 'boolean',
    description: 'Also name the rule behind each statement, by its ID (docs/rules.md says what each rule decides)',
    default: false,
  },
} as const satisfies ArgsDef;

/** Writes data to stdout. Progress and logs go through `log` to stderr. */
export function out(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : text + '\n');
}

export function log(text: string): void {
  process.stderr.write(`capstate: ${text}\n`);
}

export function printJson(doc: Record<string, unknown>): void {
  out(toJson({ format_version: JSON_FORMAT_VERSION, ...doc }));
}

/** A deadline flag in seconds (decimals allowed; 0: none), as milliseconds. */
export function parseTimeout(value: string | undefined, flag: string): number {
  if (value === undefined) return DEFAULT_SQL_TIMEOUT_MS;
  const s = Number(value);
  if (value.trim() === '' || !Number.isFinite(s) || s < 0)
    throw new CapstateError('usage', `${flag} takes a number of seconds (0: no limit)`, {}, 2);
  return Math.round(s * 1000);
}

/**
 * An SQLite error that says the store's pages are broken (a file truncated or overwritten),
 * met mid-command after the store opened: the store's fault, said so and naming it, not an
 * internal error with a stack (issue 42). `args`: the command's arguments, long flags.
 */
export function damagedStore(e: unknown, args: string[]): unknown {
  const code = String((e as { code?: unknown })?.code ?? '');
  if (!code.startsWith('SQLITE_CORRUPT') && code !== 'SQLITE_NOTADB') return e;
  const at = args.findIndex((a) => a === '--db' || a.startsWith('--db='));
  const file =
    at < 0 ? (storeFromEnvironment() ?? 'capstate.sqlite') : args[at].startsWith('--db=') ? args[at].slice('--db='.length) : args[at + 1];
  return new CapstateError(
    'damaged-store',
    `${file} is damaged (${(e as Error).message}): part of the file was lost or overwritten. Restore it from a copy, or load its captures into a new store (capstate load CAPTURE --db NEW.sqlite)`,
    { file },
  );
}

/** An error in one line of plain words, as stderr says it (no stack: that is for `internal`). */
export function errorMessage(e: unknown): string {
  if (e instanceof CapstateError) return `error: ${plainText(e.describe())}`;
  if (e instanceof Error && e.name === 'CLIError') return e.message;
  return `internal error (please report it): ${String((e as Error)?.message ?? e)}`;
}

/** Reports an error the way the user asked (`--json` or text) and returns the exit code. */
export function reportError(e: unknown, asJson: boolean): number {
  if (e instanceof CapstateError) {
    // Plain words (issue 19): the message without rule IDs; `--json` names them in `rules`.
    if (asJson) out(toJson({ format_version: JSON_FORMAT_VERSION, ...plainError(e.toJSON()) }));
    process.stderr.write(`capstate: ${errorMessage(e)}\n`);
    return e.exitCode;
  }
  if (e instanceof Error && e.name === 'CLIError') {
    process.stderr.write(`capstate: ${e.message}\n`);
    return 2;
  }
  const err = e as Error;
  if (asJson)
    out(toJson({ format_version: JSON_FORMAT_VERSION, ok: false, code: 'internal', message: String(err?.message ?? err), context: {} }));
  process.stderr.write(`capstate: internal error (please report it): ${err?.stack ?? err}\n`);
  return 1;
}
