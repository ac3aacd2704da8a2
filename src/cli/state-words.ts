/**
 * The words `capstate state` and `capstate manifest` print by default (issue 46). Users read
 * "evidence: inferred, authorization, response-semantics unknown", "record view:
 * body-unusable", "membership recorded", "type root" and "(issue 18)" and could not tell what
 * they meant. The default text says it in plain words; `--explain` prints the exact terms
 * (the rule vocabulary docs/rules.md explains), and `--json` is unchanged (a versioned promise).
 */
import type { EnvironmentState, ItemPlan, ListPlan, Plan, StateType } from '../model/plan/types.js';
import { plainText, REASON_WORDS, unlessAsked } from '../model/plan/words.js';

type Evidence = EnvironmentState['evidence'];

/** How the records were put in order, in words. */
const TIMELINE: Record<EnvironmentState['timeline_order'], string> = {
  'start-time': 'records in order of their start time',
  'record-order': 'records in the order the capture lists them',
};

/** What recorded traffic cannot tell (ES-41's `unknown`), in words. */
const UNKNOWN: Record<Evidence['unknown'][number], string> = {
  authorization: 'who may call what',
  'response-semantics': 'what the app means by its answers beyond what they show',
  'write-effects': 'what the writes do',
};

/** The state's first lines: what it is and how sure. `--explain`: the exact terms in one line. */
export function stateHeader(s: EnvironmentState, explain: boolean): string[] {
  if (explain)
    return [
      `environment state of capture ${s.capture_id} (timeline: ${s.timeline_order}; evidence: ${s.evidence.status}, ` +
        `${s.evidence.unknown.join(', ')} unknown)`,
    ];
  const lines = [`environment state of capture ${s.capture_id}, inferred from the recorded traffic (${TIMELINE[s.timeline_order]})`];
  if (s.evidence.unknown.length) lines.push(`not known from the traffic: ${s.evidence.unknown.map((u) => UNKNOWN[u] ?? u).join('; ')}`);
  return lines;
}

/** How a type's entities are told apart (IDN-1's sources), in words. */
const IDENTITY_FROM: Record<StateType['identity_source'], string> = {
  path: 'as in its item paths',
  name: 'its name says so',
  suffix: 'its name ends in id',
  member: 'unique in every listed item',
};

/** A type's identity: `keyed by id (as in its item paths)`; `--explain`: `identity id (path)`. */
export function identityWords(t: StateType, explain: boolean): string {
  return explain
    ? `identity ${t.identity} (${t.identity_source})`
    : `keyed by ${t.identity} (${IDENTITY_FROM[t.identity_source] ?? t.identity_source})`;
}

/**
 * How a read tool is answered. Plain: `a list of posts from the state (the whole body, every
 * entity)`, `replays its recorded answers: record #1 (/index.html) has no usable JSON body`.
 * `--explain`: `list plan (posts at the root, membership all)`, `record view: body-unusable — …`.
 * `extra` is what follows inside the parentheses (embedded members).
 */
export function planWords(p: Plan, explain: boolean, extra: (p: ItemPlan | ListPlan) => string): string {
  if (explain) {
    if (p.kind === 'record') return `record view: ${p.reason} — ${p.detail}`;
    if (p.kind === 'document') return `document ${p.path}`;
    if (p.kind === 'item') return `item plan (${p.collection} at ${p.entity_pointer || 'the root'}${extra(p)})`;
    return (
      `list plan (${p.collection} at ${p.list_pointer || 'the root'}, membership ${p.membership}` +
      `${p.counters.length ? `, counters ${p.counters.join(', ')}` : ''}${p.parent ? `, each {${p.parent.param}}'s by ${p.parent.field}` : ''}${extra(p)})`
    );
  }
  const at = (pointer: string) => (pointer ? `at ${pointer} in the answer` : 'the whole answer');
  // body-unusable's detail says it all (`record #1 (/index.html) has no usable JSON body`); no-initial-record's
  // reason does (its detail speaks of "the type's bound"); the others need the reason, then the detail.
  if (p.kind === 'record') {
    const why =
      p.reason === 'body-unusable'
        ? plainText(p.detail)
        : p.reason === 'no-initial-record'
          ? REASON_WORDS[p.reason]
          : `${REASON_WORDS[p.reason] ?? p.reason} (${plainText(p.detail)})`;
    return `replays its recorded answers: ${why}`;
  }
  if (p.kind === 'document') return `the document ${p.path} from the state`;
  if (p.kind === 'item') return `one ${p.collection} entity from the state (${at(p.entity_pointer)}${extra(p)})`;
  return (
    `a list of ${p.collection} from the state (${at(p.list_pointer)}, ` +
    `${p.membership === 'all' ? 'every entity' : 'the entities its records listed'}` +
    `${p.counters.length ? `, counts in ${p.counters.join(', ')}` : ''}` +
    `${p.page_envelope ? `, any page by ${p.page_envelope.keys.join('/')} in the envelope of #${p.page_envelope.record_ordinal}` : ''}` +
    `${p.parent ? `, those whose ${p.parent.field} is the {${p.parent.param}} in the path` : ''}` +
    `${unlessAsked(p)}${extra(p)})`
  );
}

/** Where the manifest found the app's origin (OQ-2's subject source), in words. */
const SUBJECT_FROM: Record<string, string> = {
  page: 'the page the capture names',
  document: "the app's HTML page",
  'start-url': "the scenario's start URL",
  'json-responses': 'where most JSON answers came from',
  'all-responses': 'where most answers came from',
  override: 'your --manifest override',
};

/** The manifest's admission line. Plain: `app http://localhost:3900 (from the app's HTML page); 16 of 16 records are its traffic`. */
export function admissionWords(
  a: { subject_origin: string | null; subject_source: string; admitted_records: number; records: number },
  explain: boolean,
): string {
  if (explain) return `admitted: subject ${a.subject_origin} (from ${a.subject_source}), ${a.admitted_records} of ${a.records} records`;
  return (
    `app ${a.subject_origin ?? '(none found)'} (from ${SUBJECT_FROM[a.subject_source] ?? a.subject_source}); ` +
    `${a.admitted_records} of ${a.records} records are its traffic and are used`
  );
}

/** A manifest note in plain words: no issue numbers or rule IDs, "type" for "type root", "used" for "admitted". */
export function noteWords(note: string, explain: boolean): string {
  if (explain) return note;
  return plainText(note)
    .replace(/\s*\(issue \d+\)/g, '')
    .replace(/\btype roots\b/g, 'types')
    .replace(/\btype root\b/g, 'type')
    .replace(/\bnot admitted\b/g, 'not used')
    .replace(/\badmitted\b/g, 'used');
}
