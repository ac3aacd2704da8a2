/**
 * What shell completion offers for capstate, read from the command table itself (issue 19),
 * so no shell's script can fall behind a command: each command's option spellings, and what
 * each option's value and each command's free arguments are. Files are offered by kind
 * (issue 46): a store is a `.sqlite` file, a capture a `.har`, `.har.gz`, Playwright `.zip`
 * or Evidence `.json`; a value such as an id or a number offers nothing. A boolean's `--no-`
 * form is accepted (strict-args.ts) but not offered: it would double every list.
 */
import type { ArgsDef, CommandDef } from 'citty';

// `any`: citty's CommandDef is generic over each command's args.
export type Commands = Record<string, CommandDef<any>>;

/** What a value or a free argument completes to. */
export type ValueKind = 'store' | 'capture' | 'store-or-capture' | 'json' | 'file' | 'dir' | 'shell' | 'command' | 'none';

/** The file name endings of each kind of file (folders are always offered, to walk into). */
export const SUFFIXES: Partial<Record<ValueKind, string[]>> = {
  store: ['.sqlite', '.sqlite3', '.db'],
  capture: ['.har', '.har.gz', '.zip', '.json'],
  'store-or-capture': ['.sqlite', '.sqlite3', '.db', '.har', '.har.gz', '.zip', '.json'],
  json: ['.json'],
};

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** Options whose value is a particular kind of file, by name (the hint alone says only FILE). */
const OPTION_KINDS: Record<string, ValueKind> = { db: 'store', manifest: 'json', policy: 'json' };

/** A value's kind from its hint, when its name does not settle it. */
function hintKind(hint: string | undefined): ValueKind {
  if (hint === undefined) return 'none';
  if (hint === 'DIR') return 'dir';
  // INPUT_JSON, POLICY_JSON: a JSON file; a bare JSON (`--view`) is the JSON itself.
  if (hint.endsWith('_JSON')) return 'json';
  if (hint === 'CAPTURE') return 'capture';
  if (hint === 'STORE|CAPTURE') return 'store-or-capture';
  if (hint.split('|').some((h) => h === 'FILE' || h === 'PATH')) return 'file';
  return 'none';
}

/** Free arguments by hint: compare-web-captures's A and B are Evidence files; SHELL names a shell. */
const POSITIONAL_KINDS: Record<string, ValueKind> = { A: 'json', B: 'json', SHELL: 'shell' };

export interface CompletionOption {
  /** `--db`, then its short spellings (`-d`). */
  spellings: string[];
  /** Whether it takes a value; if so, what the value completes to. */
  takesValue: boolean;
  kind: ValueKind;
  description: string;
}

export interface CommandWords {
  /** Every option spelling offered (`--db`, `-d`, `--help`, `-h`); no `--no-` forms. */
  options: string[];
  optionList: CompletionOption[];
  /** What the command's free arguments complete to. */
  positional: ValueKind;
  description: string;
}

/** The words one command completes, from its argument definitions. */
export function commandWords(args: ArgsDef, description = ''): CommandWords {
  const optionList: CompletionOption[] = [{ spellings: ['--help', '-h'], takesValue: false, kind: 'none', description: 'Show help' }];
  let positional: ValueKind = 'none';
  for (const [name, def] of Object.entries(args)) {
    const hint = (def as { valueHint?: string }).valueHint;
    if (def.type === 'positional') {
      if (positional === 'none')
        positional = hint !== undefined && Object.hasOwn(POSITIONAL_KINDS, hint) ? POSITIONAL_KINDS[hint] : hintKind(hint);
      continue;
    }
    const kebab = name.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
    const aliases = ([] as string[]).concat((def as { alias?: string | string[] }).alias ?? []);
    const takesValue = def.type === 'string' || def.type === 'enum';
    optionList.push({
      spellings: [`--${kebab}`, ...aliases.map((a) => (a.length === 1 ? `-${a}` : `--${a}`))],
      takesValue,
      kind: takesValue ? (OPTION_KINDS[kebab] ?? hintKind(hint)) : 'none',
      description: def.description ?? '',
    });
  }
  return { options: optionList.flatMap((o) => o.spellings), optionList, positional, description };
}

/** Every command's words, the command table's order kept. */
export function allWords(commands: Commands): [string, CommandWords][] {
  return Object.entries(commands).map(([name, cmd]) => {
    const meta = (cmd.meta ?? {}) as { description?: string };
    return [name, commandWords((cmd.args ?? {}) as ArgsDef, meta.description ?? '')];
  });
}

/** A description cut to its first clause, for shells that show one line per choice. */
export function shortDescription(text: string): string {
  const first = text.split(/; |: | \(|\. /)[0];
  return first.length > 70 ? first.slice(0, 69) + '…' : first;
}

/**
 * `cmd:--option` pairs grouped by what their value completes to (one `case` branch per kind in
 * the bash and zsh scripts), the options that take no value left out.
 */
export function valueCases(words: [string, CommandWords][]): Map<ValueKind, string[]> {
  const cases = new Map<ValueKind, string[]>();
  for (const [name, w] of words) {
    for (const o of w.optionList) {
      if (!o.takesValue) continue;
      const list = cases.get(o.kind) ?? [];
      list.push(...o.spellings.map((s) => `${name}:${s}`));
      cases.set(o.kind, list);
    }
  }
  return cases;
}
