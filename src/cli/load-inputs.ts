/** The load inputs `load` and `manifest` share: `--manifest FILE`, repeatable `--sensitive VALUE` and `--redact`. */
import { readFileSync } from 'node:fs';
import type { ArgsDef } from 'citty';
import { CapstateError } from '../errors.js';
import { sha256Hex } from '../json/sha256.js';
import { canonicalOverride, parseOverride } from '../manifest/infer.js';
import type { LoadOptions } from '../ingest/load-captures.js';

export const loadInputArgs = {
  manifest: {
    type: 'string',
    description: 'Manifest override JSON: {"template_rules": [{"method", "template"}], "api_base", "subject_origin", "admit_origins"}',
    valueHint: 'FILE',
  },
  sensitive: {
    type: 'string',
    description: 'A literal that must not reach the store; a capture carrying it is rejected (repeatable)',
    valueHint: 'VALUE',
  },
  redact: {
    type: 'boolean',
    description: 'Store credentials in admitted URLs (user:password@, ?access_token=…) as [REDACTED] instead of refusing the capture',
  },
} as const satisfies ArgsDef;

/** citty keeps only the last of repeated options; collect every `--sensitive`. */
function allValues(rawArgs: string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const a = rawArgs[i];
    if (a === `--${name}`) {
      if (i + 1 >= rawArgs.length) throw new CapstateError('usage', `--${name} needs a value`, {}, 2);
      out.push(rawArgs[++i]);
    } else if (a.startsWith(`--${name}=`)) out.push(a.slice(name.length + 3));
  }
  return out;
}

export function loadInputs(
  args: { manifest?: string; redact?: boolean },
  rawArgs: string[],
): Pick<LoadOptions, 'manifest' | 'sensitive' | 'redact'> {
  const sensitive = allValues(rawArgs, 'sensitive');
  if (sensitive.some((s) => s.length < 4))
    throw new CapstateError('usage', '--sensitive values must be at least 4 characters (shorter ones match too much)', {}, 2);
  const redact = args.redact === true;
  if (!args.manifest) return { sensitive, redact };
  let text: string;
  try {
    text = readFileSync(args.manifest, 'utf8');
  } catch (e) {
    throw new CapstateError('no-such-file', `cannot read the manifest override: ${(e as Error).message}`, { file: args.manifest });
  }
  // The override is stored and compared in canonical form: reformatting the file changes nothing.
  const override = parseOverride(args.manifest, text);
  const json = canonicalOverride(override);
  return { sensitive, redact, manifest: { override, json, sha256: sha256Hex(json) } };
}
