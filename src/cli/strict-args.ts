/**
 * Strict options (issue 19): citty accepts any flag, so a typo such as `--jsn` would
 * silently print text where a script wanted JSON. Every command's options are checked
 * here before it runs; an unknown one is a usage error (exit 2) naming the closest
 * option the command has.
 */
import type { ArgsDef } from 'citty';
import { CapstateError } from '../errors.js';

interface OptionNames {
  /** Long names (`json`, `max-rows`, `no-json`) and single-letter aliases. */
  known: Set<string>;
  /** Names whose option takes a value, so the next argument is that value, not a flag. */
  takesValue: Set<string>;
  /** The long names to suggest from (not the `no-` forms). */
  suggest: string[];
}

function optionNames(args: ArgsDef): OptionNames {
  const known = new Set<string>(['help', 'h']);
  const takesValue = new Set<string>();
  const suggest: string[] = ['help'];
  for (const [name, def] of Object.entries(args)) {
    if (def.type === 'positional') continue;
    const kebab = name.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
    const names = [name, kebab, ...([] as string[]).concat((def as { alias?: string | string[] }).alias ?? [])];
    for (const n of names) {
      known.add(n);
      if (def.type === 'string' || def.type === 'enum') takesValue.add(n);
    }
    if (def.type === 'boolean') known.add(`no-${name}`).add(`no-${kebab}`);
    suggest.push(kebab);
  }
  return { known, takesValue, suggest: [...new Set(suggest)] };
}

/**
 * Edit distance for the did-you-mean: Levenshtein with a swap of two neighbouring letters
 * counted as one edit (optimal string alignment), since `staet` for `state` is one slip.
 */
export function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) cur[j] = Math.min(cur[j], before[j - 2] + 1);
    }
    before = prev;
    prev = cur;
  }
  return prev[b.length];
}

/** The closest name (an option's, a command's), if it is close enough to be what was meant. */
export function closestOption(name: string, options: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const o of options) {
    const d = o.startsWith(name) || name.startsWith(o) ? Math.min(1, editDistance(name, o)) : editDistance(name, o);
    if (d < bestDistance) {
      best = o;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(name.length / 3)) ? best : undefined;
}

/**
 * Throws a usage error (exit 2) for the first option `command` does not define. Values of
 * options that take one (`--db -x.sqlite`), negative numbers and everything after `--`
 * are not options.
 */
export function checkOptions(command: string, rawArgs: string[], args: ArgsDef): void {
  const { known, takesValue, suggest } = optionNames(args);
  for (let i = 0; i < rawArgs.length; i++) {
    const raw = rawArgs[i];
    if (raw === '--') break;
    if (raw === '-' || !raw.startsWith('-') || /^-\d/.test(raw)) continue;
    const long = raw.startsWith('--');
    const name = (long ? raw.slice(2) : raw.slice(1)).split('=')[0];
    // `-abc` is three single-letter flags (as citty reads it).
    const names = long || name.length === 1 ? [name] : [...name];
    for (const n of names) {
      if (known.has(n)) continue;
      const flag = long ? `--${n}` : `-${n}`;
      const near = closestOption(n.replace(/^no-/, ''), suggest);
      throw new CapstateError(
        'unknown-option',
        `unknown option ${flag} for ${command}${near ? `; did you mean --${near}?` : ''}`,
        { option: flag, ...(near ? { suggestion: `--${near}` } : {}) },
        2,
      );
    }
    if (!raw.includes('=') && takesValue.has(names[names.length - 1])) i++;
  }
}

/**
 * `rawArgs` with each short flag the command defines written out long (issue 19: `-j` for
 * `--json`, `-d FILE` for `--db FILE`, `-q`, `-o FILE`; `-jq` is `--json --quiet`), so
 * every later reading of the arguments (citty, a command's own look at `--db`, the
 * `--json` error document) sees one spelling. A cluster holding a letter the command does
 * not define is left as it is for `checkOptions` to refuse; so is everything after `--`
 * and the value after an option that takes one.
 */
export function expandShortFlags(rawArgs: string[], args: ArgsDef): string[] {
  const long = new Map<string, { name: string; takesValue: boolean }>();
  const takesValue = new Set<string>();
  for (const [name, def] of Object.entries(args)) {
    if (def.type === 'positional') continue;
    const kebab = name.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
    const value = def.type === 'string' || def.type === 'enum';
    if (value) takesValue.add(name).add(kebab);
    for (const a of ([] as string[]).concat((def as { alias?: string | string[] }).alias ?? [])) {
      if (a.length === 1) {
        long.set(a, { name: kebab, takesValue: value });
        if (value) takesValue.add(a);
      }
    }
  }
  const out: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const raw = rawArgs[i];
    if (raw === '--') {
      out.push(...rawArgs.slice(i));
      break;
    }
    if (raw.startsWith('--')) {
      out.push(raw);
      if (!raw.includes('=') && takesValue.has(raw.slice(2)) && i + 1 < rawArgs.length) out.push(rawArgs[++i]);
      continue;
    }
    const m = /^-([A-Za-z]+)(=.*)?$/.exec(raw);
    const letters = m ? [...m[1]] : [];
    if (!m || !letters.every((l) => long.has(l)) || (m[2] !== undefined && !long.get(letters.at(-1)!)!.takesValue)) {
      out.push(raw);
      continue;
    }
    // A flag that takes a value ends its cluster (`-jd FILE`); `-dj FILE` would be read two ways.
    const early = letters.slice(0, -1).find((l) => long.get(l)!.takesValue);
    if (early) {
      throw new CapstateError(
        'usage',
        `-${early} takes a value, so it ends a group of short flags: write ${raw.replace(early, '')} -${early} ${long.get(early)!.name.toUpperCase()}, or -${early} on its own`,
        { option: `-${early}` },
        2,
      );
    }
    for (const l of letters) out.push(`--${long.get(l)!.name}`);
    if (m[2] !== undefined) out[out.length - 1] += m[2];
    else if (long.get(letters.at(-1)!)!.takesValue && i + 1 < rawArgs.length) out.push(rawArgs[++i]);
  }
  return out;
}
