/**
 * Reading the two sides of a comparison: an Evidence file (parsed by the one exact parser,
 * src/load/bodies.ts) or an inline Evidence object, admitted by the same rule as the loader
 * (BS-81, src/load/admission.ts).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { CapstateError } from '../errors.js';
import { admitRetainedScenario, type RetainedScenario } from '../load/admission.js';
import { parseExactJson, plainJson } from '../json/exact.js';
import { sha256Hex } from '../json/sha256.js';
import { FieldReader, type Obj } from '../load/fields.js';
import { ScenarioReader } from '../load/scenario.js';
import { parsePiece } from '../load/entries.js';

export interface StepIn {
  /** `null` for `initial_state`. */
  step_id: string | null;
  action: string | null;
  status: string | null;
  error: { code?: unknown; message?: unknown } | null;
  /** The step's `captures`, or null when the capture has none (older or hand-written Evidence). */
  captures: Obj | null;
}

export interface CaptureIn {
  side: 'before' | 'after';
  /** The file path, or `inline`. */
  source: string;
  /** SHA-256 of the file's bytes; null for an inline object. */
  sha256: string | null;
  admitted: RetainedScenario;
  browserMode: string | null;
  initial: StepIn | null;
  steps: StepIn[];
  events: Obj[];
  /** Event kinds the producer omitted (BS-39), from `omissions.by_kind`. */
  omittedKinds: string[];
  /** BS-36: transactions that lost events (`omissions.network_transactions`), and whether whole transactions were dropped beyond the limit. */
  networkOmissions: { transactions: { id: string; kinds: string[] }[]; beyondLimit: boolean };
}

/** Reads one side: a path to an Evidence file, or an Evidence object. */
export function readCapture(side: 'before' | 'after', input: unknown): CaptureIn {
  let root: unknown = input;
  let source = 'inline';
  let sha256: string | null = null;
  if (typeof input === 'string') {
    source = input;
    if (!existsSync(input) || !statSync(input).isFile())
      throw new CapstateError('no-such-file', `${input}: no such Evidence file (${side})`, { file: input, side });
    const bytes = readFileSync(input);
    sha256 = sha256Hex(bytes);
    const parsed = parseExactJson(bytes.toString('utf8'));
    if (!parsed.ok && parsed.reason === 'invalid-json') {
      // Broken JSON is reported as the loader reports it: the byte, line and column in the file.
      try {
        parsePiece(input, { path: [], bytes, offset: 0, keyCount: 0 });
      } catch (e) {
        if (e instanceof CapstateError) throw new CapstateError(e.code, e.message, { ...e.context, path: undefined, side });
        throw e;
      }
    }
    // The loader's code for a duplicate member name (src/load/entries.ts checkDuplicates); the message keeps the exact parser's detail.
    if (!parsed.ok)
      throw new CapstateError(
        parsed.reason === 'duplicate-key' ? 'duplicate-key' : 'bad-json',
        `${input}: not valid JSON (${parsed.reason}): ${parsed.detail}`,
        { file: input, side },
      );
    root = plainJson(parsed.value);
  }
  const file = source;
  const f = new FieldReader(file, undefined, []);
  if (root === null || typeof root !== 'object' || Array.isArray(root))
    throw new CapstateError('bad-evidence', `${side}: Evidence must be a JSON object (a file path or the Evidence itself)`, { file, side });
  const r = root as Obj;
  // The loader's format rule: a file with both cannot be told apart (ingest/load-captures.ts).
  if (r.log !== undefined && r.events !== undefined)
    throw new CapstateError('unknown-format', 'the file has both HAR "log" and scenario "events"; capstate cannot tell which it is', {
      file,
    });
  if (r.log !== undefined && r.events === undefined)
    throw new CapstateError(
      'not-scenario-evidence',
      `${side}: this is a HAR file; compare-web-captures compares browser scenario Evidence (capture-browser-scenario)`,
      { file, side },
    );
  // BS-81: the loader's admission rule, not a second one.
  const admitted = admitRetainedScenario(file, (k) => r[k]);
  const scenario = (r.scenario ?? {}) as Obj;
  const browser = scenario.browser && typeof scenario.browser === 'object' ? (scenario.browser as Obj) : null;
  const step = (v: unknown, path: (string | number)[], initial: boolean): StepIn => {
    const o = f.obj(v, path, initial ? '"initial_state"' : 'a step');
    const captures = o.captures === undefined || o.captures === null ? null : f.obj(o.captures, [...path, 'captures'], '"captures"');
    const err = o.error && typeof o.error === 'object' ? (o.error as StepIn['error']) : null;
    return {
      step_id: initial ? null : f.string(o, path, 'step_id', { required: true, nonEmpty: true }),
      action: initial ? 'initial-navigation' : f.string(o, path, 'action'),
      status: f.string(o, path, 'status'),
      error: err,
      captures,
    };
  };
  const steps = f.array(r, [], 'steps', { required: true }).map((s, i) => step(s, ['steps', i], false));
  const initial = r.initial_state === undefined || r.initial_state === null ? null : step(r.initial_state, ['initial_state'], true);
  const events = f.array(r, [], 'events').map((e, i) => {
    const o = f.obj(e, ['events', i], 'an event');
    f.string(o, ['events', i], 'kind', { required: true, nonEmpty: true });
    return o;
  });
  // BS-61/BS-81: the loader's event validation, not a second one: every event goes through
  // the reader `load` uses (fields, redirect links, content pointers, bodies), which throws
  // the same CapstateError `load` would. Bodies are checked, not kept.
  const reader = new ScenarioReader(file, () => 0);
  events.forEach((e, i) => reader.onEvent(i, e));
  reader.finish();
  const om = r.omissions && typeof r.omissions === 'object' ? (r.omissions as Obj) : {};
  const byKind = om.by_kind && typeof om.by_kind === 'object' ? Object.keys(om.by_kind as Obj) : [];
  const beyond = om.network_transaction_range ? ['request'] : [];
  return {
    side,
    source,
    sha256,
    admitted,
    browserMode: browser && typeof browser.mode === 'string' ? browser.mode : null,
    initial,
    steps,
    events,
    omittedKinds: [...new Set([...byKind, ...beyond])],
    networkOmissions: {
      transactions: (Array.isArray(om.network_transactions) ? (om.network_transactions as Obj[]) : [])
        .filter((r) => r && typeof r.transaction_id === 'string' && Array.isArray(r.omitted_kinds) && r.omitted_kinds.length > 0)
        .map((r) => ({ id: r.transaction_id as string, kinds: (r.omitted_kinds as unknown[]).map(String) })),
      beyondLimit: Boolean(om.network_transaction_range),
    },
  };
}
