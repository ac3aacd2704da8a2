/**
 * The command table: one file per command (STYLE §13). Each command's module is imported
 * only when it runs (or when help or completion lists them all): a command's start-up pays
 * for its own modules, not for the MCP SDK, the PostgreSQL client or the browser's.
 */
import type { CommandDef } from 'citty';
import { completionCommand } from './completion.js';

// `any`: citty's CommandDef is generic over each command's args.
export type AnyCommand = CommandDef<any>;

const lazy = (load: () => Promise<{ default: AnyCommand }>) => async (): Promise<AnyCommand> => (await load()).default;

/** Each command by name, as a function that imports its module. */
export const commandLoaders: Record<string, () => Promise<AnyCommand>> = {
  load: lazy(() => import('./load.js')),
  info: lazy(() => import('./info.js')),
  manifest: lazy(() => import('./manifest.js')),
  state: lazy(() => import('./state.js')),
  'inspect-analysis-view': lazy(() => import('./inspect-analysis-view.js')),
  sql: lazy(() => import('./sql.js')),
  search: lazy(() => import('./search.js')),
  report: lazy(() => import('./report.js')),
  migrate: lazy(() => import('./migrate.js')),
  serve: lazy(() => import('./serve.js')),
  card: lazy(() => import('./card.js')),
  'check-effects': lazy(() => import('./check-effects.js')),
  record: lazy(() => import('./record.js')),
  'capture-browser-scenario': lazy(() => import('./capture-browser-scenario.js')),
  'compare-web-captures': lazy(() => import('./compare-web-captures.js')),
  export: lazy(() => import('./export.js')),
  completion: async () => completionCommand(loadCommands),
};

export const commandNames: readonly string[] = Object.keys(commandLoaders);

export const isCommand = (name: string): boolean => Object.hasOwn(commandLoaders, name);

/** Every command, imported (help, completion and tests read their options). */
export async function loadCommands(): Promise<Record<string, AnyCommand>> {
  const loaded = await Promise.all(commandNames.map((name) => commandLoaders[name]()));
  return Object.fromEntries(commandNames.map((name, i) => [name, loaded[i]]));
}
