/** The command table: one file per command (STYLE §13). */
import type { CommandDef } from 'citty';
import load from './load.js';
import info from './info.js';
import sql from './sql.js';
import search from './search.js';
import report from './report.js';
import migrate from './migrate.js';
import manifest from './manifest.js';
import state from './state.js';
import inspectAnalysisView from './inspect-analysis-view.js';
import serve from './serve.js';
import card from './card.js';
import checkEffects from './check-effects.js';
import captureBrowserScenario from './capture-browser-scenario.js';
import compareWebCaptures from './compare-web-captures.js';
import { completionCommand } from './completion.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- citty's CommandDef is generic over each command's args
export const commands: Record<string, CommandDef<any>> = {
  load, info, manifest, state, 'inspect-analysis-view': inspectAnalysisView, sql, search, report, migrate, serve, card, 'check-effects': checkEffects,
  'capture-browser-scenario': captureBrowserScenario, 'compare-web-captures': compareWebCaptures,
  completion: completionCommand(() => commands),
};
