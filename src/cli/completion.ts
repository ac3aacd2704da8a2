/**
 * `capstate completion bash` (issue 19): citty has no shell completion, so the script is
 * generated here from the command table itself — every command, each command's options
 * (long names, `--no-` forms of booleans, short flags) — and cannot fall behind it.
 * Options that take a file or folder complete paths; other values complete nothing.
 */
import { defineCommand, type ArgsDef, type CommandDef } from 'citty';
import { CapstateError } from '../errors.js';
import { out } from './common.js';

// `any`: citty's CommandDef is generic over each command's args.
type Commands = Record<string, CommandDef<any>>;

const SHELLS = ['bash'] as const;

interface CommandWords {
  /** Every option spelling the command accepts (`--db`, `-d`, `--no-json`, `--help`). */
  options: string[];
  /** Spellings of options whose value is a path (FILE, DIR), and of those whose value is anything else. */
  paths: string[];
  dirs: string[];
  values: string[];
}

/** The words one command completes, from its argument definitions. */
export function commandWords(args: ArgsDef): CommandWords {
  const w: CommandWords = { options: ['--help', '-h'], paths: [], dirs: [], values: [] };
  for (const [name, def] of Object.entries(args)) {
    if (def.type === 'positional') continue;
    const kebab = name.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
    const spellings = [
      `--${kebab}`,
      ...([] as string[]).concat((def as { alias?: string | string[] }).alias ?? []).map((a) => (a.length === 1 ? `-${a}` : `--${a}`)),
    ];
    w.options.push(...spellings);
    if (def.type === 'boolean') w.options.push(`--no-${kebab}`);
    if (def.type === 'string' || def.type === 'enum') {
      const hint = (def as { valueHint?: string }).valueHint;
      // A value that may be a file (FILE, FILE|URL) completes paths.
      (hint?.split('|').includes('FILE') ? w.paths : hint === 'DIR' ? w.dirs : w.values).push(...spellings);
    }
  }
  return w;
}

const bashCase = (spellings: string[]) => spellings.join('|');
/** A bash word list (option names and command names only: letters, digits, `-`). */
const quoted = (words: string[]) => `'${words.join(' ')}'`;

/** The bash completion script for `commands` (source it, or put it in bash-completion's folder as `capstate`). */
export function bashCompletion(commands: Commands): string {
  const names = [...Object.keys(commands), 'help'];
  const lines = [
    '# bash completion for capstate, written by `capstate completion bash` from its command table.',
    '# Use: source <(capstate completion bash), or save it as',
    '# ~/.local/share/bash-completion/completions/capstate',
    '_capstate() {',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash parameter expansion, not a template literal
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" cmd="" i',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    `    case "\${COMP_WORDS[i]}" in ${bashCase(names)}) cmd="\${COMP_WORDS[i]}"; break ;; esac`,
    '  done',
    '  if [[ -z "$cmd" ]]; then',
    `    if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W '--help -h --version -v' -- "$cur"))`,
    `    else COMPREPLY=($(compgen -W ${quoted(names)} -- "$cur")); fi`,
    '    return',
    '  fi',
    '  local opts="" paths="" dirs="" values=""',
    '  case "$cmd" in',
  ];
  for (const [name, cmd] of Object.entries(commands)) {
    const w = commandWords((cmd.args ?? {}) as ArgsDef);
    lines.push(`    ${name}) opts=${quoted(w.options)}; paths=${quoted(w.paths)}; dirs=${quoted(w.dirs)}; values=${quoted(w.values)} ;;`);
  }
  lines.push(
    `    help) COMPREPLY=($(compgen -W ${quoted(Object.keys(commands))} -- "$cur")); return ;;`,
    '  esac',
    '  # The value of an option that takes one: a path, a folder, or nothing to offer.',
    '  if [[ " $paths " == *" $prev "* ]]; then COMPREPLY=($(compgen -f -- "$cur")); return; fi',
    '  if [[ " $dirs " == *" $prev "* ]]; then COMPREPLY=($(compgen -d -- "$cur")); return; fi',
    '  if [[ " $values " == *" $prev "* ]]; then COMPREPLY=(); return; fi',
    '  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur"))',
    '  else COMPREPLY=($(compgen -f -- "$cur")); fi',
    '}',
    'complete -o filenames -o bashdefault -F _capstate capstate',
  );
  return lines.join('\n') + '\n';
}

/** The `completion` command; `commands` is read when it runs, so it lists itself too. */
export function completionCommand(commands: () => Promise<Commands>): CommandDef<ArgsDef> {
  return defineCommand({
    meta: { name: 'completion', description: 'Print a shell completion script: source <(capstate completion bash)' },
    args: { shell: { type: 'positional', description: `The shell (${SHELLS.join(', ')})`, required: true, valueHint: 'SHELL' } },
    async run({ args: a }) {
      if (!SHELLS.includes(a.shell as never)) {
        throw new CapstateError(
          'usage',
          `no completion for ${JSON.stringify(a.shell)}: capstate writes completion for ${SHELLS.join(', ')}`,
          {},
          2,
        );
      }
      out(bashCompletion(await commands()));
    },
  }) as CommandDef<ArgsDef>;
}
