/**
 * `capstate completion bash|zsh|fish` (issues 19 and 46): citty has no shell completion, so
 * each script is generated here from the command table (completion-words.ts) and cannot
 * fall behind it: every command, each command's options (long names and short flags; no
 * `--no-` forms), files by kind after the options that take one and as free arguments
 * (`.sqlite` after `--db`, `.har`, `.har.gz`, `.zip`, `.json` for a capture), and nothing
 * after a value that is not a file (an id, a number, a URL).
 */
import { defineCommand, type ArgsDef, type CommandDef } from 'citty';
import { CapstateError } from '../errors.js';
import { out } from './common.js';
import {
  allWords,
  type Commands,
  type CommandWords,
  SHELLS,
  shortDescription,
  SUFFIXES,
  valueCases,
  type ValueKind,
} from './completion-words.js';

export { commandWords } from './completion-words.js';

/** A shell word list in single quotes (option and command names only: letters, digits, `-`). */
const quoted = (words: string[]) => `'${words.join(' ')}'`;
const withoutDot = (suffixes: string[]) => suffixes.map((s) => s.slice(1));

/** What bash runs to complete a value or free argument of `kind` (`$cur` is the word). */
function bashAction(kind: ValueKind, commandNames: string[]): string {
  const suffixes = SUFFIXES[kind];
  if (suffixes) return `_capstate_files '${suffixes.join('|')}'`;
  if (kind === 'file') return "_capstate_files ''";
  if (kind === 'dir') return 'local IFS=$\'\\n\'; COMPREPLY=($(compgen -d -- "$cur"))';
  if (kind === 'shell') return `COMPREPLY=($(compgen -W ${quoted([...SHELLS])} -- "$cur"))`;
  if (kind === 'command') return `COMPREPLY=($(compgen -W ${quoted(commandNames)} -- "$cur"))`;
  return 'COMPREPLY=()';
}

/** What zsh runs for `kind`. */
function zshAction(kind: ValueKind, commandNames: string[]): string {
  const suffixes = SUFFIXES[kind];
  if (suffixes) {
    const names = withoutDot(suffixes);
    return `_files -g '*.${names.length > 1 ? `(${names.join('|')})` : names[0]}'`;
  }
  if (kind === 'file') return '_files';
  if (kind === 'dir') return '_files -/';
  if (kind === 'shell') return `compadd -- ${SHELLS.join(' ')}`;
  if (kind === 'command') return `compadd -- ${commandNames.join(' ')}`;
  return 'return 1';
}

/** The kinds of free argument, each with the commands that take it. */
function positionalCases(words: [string, CommandWords][]): Map<ValueKind, string[]> {
  const cases = new Map<ValueKind, string[]>([['command', ['help']]]);
  for (const [name, w] of words) cases.set(w.positional, [...(cases.get(w.positional) ?? []), name]);
  return cases;
}

/** The parts bash and zsh share: find the command, then the value, option or argument being completed. */
function caseScript(commands: Commands, shell: 'bash' | 'zsh'): string[] {
  const words = allWords(commands);
  const names = words.map(([n]) => n);
  const action = (kind: ValueKind) => (shell === 'bash' ? bashAction(kind, names) : zshAction(kind, names));
  const offer = (list: string[]) =>
    shell === 'bash' ? `COMPREPLY=($(compgen -W ${quoted(list)} -- "$cur"))` : `compadd -- ${list.join(' ')}`;
  const open = shell === 'bash' ? '' : '(';
  const lines = [
    shell === 'bash'
      ? // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template literal
        '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" cmd="" i'
      : // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template literal
        '  local cur="${words[CURRENT]}" prev="${words[CURRENT-1]}" cmd="" i',
    shell === 'bash' ? '  for ((i = 1; i < COMP_CWORD; i++)); do' : '  for ((i = 2; i < CURRENT; i++)); do',
    `    case "\${${shell === 'bash' ? 'COMP_WORDS' : 'words'}[i]}" in ${open}${[...names, 'help'].join('|')}) cmd="\${${shell === 'bash' ? 'COMP_WORDS' : 'words'}[i]}"; break ;; esac`,
    '  done',
    '  if [[ -z "$cmd" ]]; then',
    `    if [[ "$cur" == -* ]]; then ${offer(['--help', '-h', '--version', '-v'])}`,
    `    else ${offer([...names, 'help'])}; fi`,
    '    return',
    '  fi',
    '  # The value of an option that takes one: a file of its kind, a folder, or nothing to offer.',
    '  case "$cmd:$prev" in',
  ];
  for (const [kind, pairs] of valueCases(words)) {
    const then = action(kind);
    lines.push(`    ${open}${pairs.join('|')}) ${then.startsWith('return') ? then : `${then}; return`} ;;`);
  }
  lines.push('  esac', '  if [[ "$cur" == -* ]]; then', '    case "$cmd" in');
  for (const [name, w] of words) lines.push(`      ${open}${name}) ${offer(w.options)} ;;`);
  lines.push('    esac', '    return', '  fi', '  # A free argument: the files each command reads.', '  case "$cmd" in');
  for (const [kind, cmds] of positionalCases(words)) lines.push(`    ${open}${cmds.join('|')}) ${action(kind)} ;;`);
  lines.push('  esac');
  return lines;
}

/** The bash completion script (source it, or save it in bash-completion's folder as `capstate`). */
export function bashCompletion(commands: Commands): string {
  return [
    '# bash completion for capstate, written by `capstate completion bash` from its command table.',
    '# Use: source <(capstate completion bash), or save it as',
    '# ~/.local/share/bash-completion/completions/capstate',
    '_capstate_files() {',
    '  # Folders (to walk into) and the files whose names end in one of $1 (.a|.b); every file for an empty $1.',
    "  local IFS=$'\\n' restore",
    '  if [[ -z "$1" ]]; then COMPREPLY=($(compgen -f -- "$cur")); return; fi',
    '  restore=$(shopt -p extglob)',
    '  shopt -s extglob',
    '  COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X "!*@($1)" -- "$cur"))',
    '  eval "$restore"',
    '}',
    '_capstate() {',
    ...caseScript(commands, 'bash'),
    '}',
    // No bashdefault: a value with nothing to offer (an id, a number) offers no file names either.
    'complete -o filenames -F _capstate capstate',
  ].join('\n');
}

/** The zsh completion script (source it after compinit, or save it as `_capstate` in a folder on $fpath). */
export function zshCompletion(commands: Commands): string {
  return [
    '#compdef capstate',
    '# zsh completion for capstate, written by `capstate completion zsh` from its command table.',
    '# Use: source <(capstate completion zsh) after compinit, or save it as _capstate in a folder on $fpath',
    '_capstate() {',
    ...caseScript(commands, 'zsh'),
    '}',
    // Autoloaded from $fpath the file is the function's body; sourced, it registers the function.
    'if [[ "$funcstack[1]" = "_capstate" ]]; then _capstate "$@"; else compdef _capstate capstate; fi',
  ].join('\n');
}

/** A fish single-quoted string. */
const fishQuote = (text: string) => `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;

/** What fish offers for `kind` (`-a` arguments; empty for none). */
function fishArguments(kind: ValueKind, commandNames: string[]): string {
  const suffixes = SUFFIXES[kind];
  if (suffixes) return ` -a '(__capstate_files ${suffixes.join(' ')})'`;
  if (kind === 'file') return " -a '(__capstate_files)'";
  if (kind === 'dir') return " -a '(__fish_complete_directories)'";
  if (kind === 'shell') return ` -a ${fishQuote(SHELLS.join(' '))}`;
  if (kind === 'command') return ` -a ${fishQuote(commandNames.join(' '))}`;
  return '';
}

/** The fish completion script (source it, or save it as ~/.config/fish/completions/capstate.fish). */
export function fishCompletion(commands: Commands): string {
  const words = allWords(commands);
  const names = words.map(([n]) => n);
  const valueSpellings = new Set(words.flatMap(([, w]) => w.optionList.filter((o) => o.takesValue).flatMap((o) => o.spellings)));
  const lines = [
    '# fish completion for capstate, written by `capstate completion fish` from its command table.',
    '# Use: capstate completion fish | source, or save it as ~/.config/fish/completions/capstate.fish',
    'function __capstate_files --description "Folders, and the files whose names end in one of the arguments"',
    '    set -l token (commandline -ct)',
    '    for f in $token*',
    '        if test -d $f',
    "            printf '%s/\\n' $f",
    '        else if test (count $argv) -eq 0',
    '            echo $f',
    '        else',
    '            for s in $argv',
    '                if string match -q -- "*$s" $f',
    '                    echo $f',
    '                    break',
    '                end',
    '            end',
    '        end',
    '    end',
    'end',
    'function __capstate_free_argument --description "Whether the word being completed is an argument, not the value of an option"',
    `    not contains -- (commandline -opc)[-1] ${[...valueSpellings].join(' ')}`,
    'end',
    '# No file names unless an option or argument below asks for them.',
    'complete -c capstate -f',
    "complete -c capstate -n __fish_use_subcommand -l help -s h -d 'Show help'",
    "complete -c capstate -n __fish_use_subcommand -l version -s v -d 'Print the version'",
  ];
  for (const [name, w] of words)
    lines.push(`complete -c capstate -n __fish_use_subcommand -a ${name} -d ${fishQuote(shortDescription(w.description))}`);
  lines.push(`complete -c capstate -n __fish_use_subcommand -a help -d 'Show a command\\'s options'`);
  lines.push(`complete -c capstate -n '__fish_seen_subcommand_from help'${fishArguments('command', names)}`);
  for (const [name, w] of words) {
    const when = `-n '__fish_seen_subcommand_from ${name}'`;
    for (const o of w.optionList) {
      const spell = o.spellings.map((s) => (s.startsWith('--') ? `-l ${s.slice(2)}` : `-s ${s.slice(1)}`)).join(' ');
      // -x: only what fishArguments offers (no file names of every kind); -F: any file.
      const value = o.takesValue ? (o.kind === 'file' ? ' -r -F' : ` -x${fishArguments(o.kind, names)}`) : '';
      lines.push(`complete -c capstate ${when} ${spell}${value} -d ${fishQuote(shortDescription(o.description))}`);
    }
    const free = fishArguments(w.positional, names);
    if (free) lines.push(`complete -c capstate -n '__fish_seen_subcommand_from ${name}; and __capstate_free_argument'${free}`);
  }
  return lines.join('\n');
}

const SCRIPTS: Record<(typeof SHELLS)[number], (commands: Commands) => string> = {
  bash: bashCompletion,
  zsh: zshCompletion,
  fish: fishCompletion,
};

/** The `completion` command; `commands` is read when it runs, so it lists itself too. */
export function completionCommand(commands: () => Promise<Commands>): CommandDef<ArgsDef> {
  return defineCommand({
    meta: {
      name: 'completion',
      description:
        'Print a shell completion script: source <(capstate completion bash) (or zsh; for fish: capstate completion fish | source)',
    },
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
      out(SCRIPTS[a.shell as (typeof SHELLS)[number]](await commands()));
    },
  }) as CommandDef<ArgsDef>;
}
