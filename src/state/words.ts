/**
 * The environment state in plain words, for people (issue 19): what each read tool's plan
 * does, why a tool is answered from its records, what bounds a type's initial reads. Rule
 * IDs (`ES-8`, `OQ-19`, `DOC-5`, `§13`, `[#6]`) stay in the `--json` documents, which keep
 * the stored text as it is; text meant for reading goes through `plainText`.
 */
import type { Plan, Reason, StateType } from './types.js';

/**
 * A spec rule ID (`ES-37`, `OQ-19`, `DOC-5`, `BS-65`, `MCP-1`): only the spec's own prefixes,
 * so an app's own names (`PROJ-123`, `UTF-8`, `SHA-256`) are never taken for one.
 */
const RULE_ID = String.raw`(?:ES|BS|OQ|IDN|DOC|DESC|ACC|MCP)-\d+[a-z]?`;
/** A bracket or parenthesis holding only rule IDs, sections and issue refs: ` (ES-8/ES-9)`, ` [#6]`, ` (§13)`. */
const CITATION = new RegExp(String.raw`\s*[([](?:\s*(?:${RULE_ID}(?: as revised)?|§\s?\d+(?:\.\d+)*|#\d+)\s*(?:[/,;–]|\.\.|to|and|or)?\s*)+[)\]]`, 'g');
const SECTION = /\s*§\s?\d+(?:\.\d+)*/g;
const EVIDENCE = /;?\s*evidence ev_[A-Za-z0-9_]+/g;

/**
 * `text` without its rule citations: parenthesised or bracketed rule IDs, `§` sections,
 * `[#6]` references and `evidence ev_…` notes go (with the space before them); a rule ID
 * standing in a sentence ("ES-8 bounds it") becomes "a rule". Everything else, spacing
 * included, is left as it is, so tables and captured values keep their shape. For text
 * meant for people; `--json` keeps the IDs.
 */
export function plainText(text: string): string {
  return text
    .replace(CITATION, '')
    .replace(EVIDENCE, '')
    .replace(SECTION, '')
    .replace(new RegExp(String.raw`\b(?:${RULE_ID})(?:\s*(?:/|,|\.\.|–|to|and|or)\s*${RULE_ID})*\b`, 'g'), 'a rule');
}

/** Why a read tool is answered from its records (the closed reason vocabulary), in words. */
export const REASON_WORDS: Record<Reason, string> = {
  'body-unusable': 'its recorded responses have no usable JSON body',
  'rendered-oversize': 'its answer would be too large to render from the state',
  'no-identity': 'no field of its responses tells one entity from another',
  'path-varies': 'its initial reads ask for different paths, so no single document stands for it',
  'query-varies': 'its initial reads ask with different query strings, so no single document stands for it',
  'no-initial-record': 'none of its records comes before the first change to its type, so none shows the initial state',
  'fields-differ': 'rendering it from the state would not give back what was recorded',
  'membership-differs': 'its recorded lists hold other entities, or another order, than the state, and no filter, sort or page of their query explains it',
  'not-planned': 'tools that change data are answered from their records',
};

const at = (pointer: string) => (pointer ? `at ${pointer}` : 'as the whole body');

/** One sentence saying how a read tool is answered. */
export function planSentence(p: Plan): string {
  switch (p.kind) {
    case 'item':
      return `Answers one ${p.collection} entity from the state, shown ${at(p.entity_pointer)} of the response.`;
    case 'list':
      return `Answers the list of ${p.collection} from the state, ${at(p.list_pointer)} of the response, ` +
        (p.membership === 'all' ? 'with every entity of the type' : 'with the entities its records listed') +
        (p.counters.length ? `; counts kept in ${p.counters.join(', ')}` : '') + '.';
    case 'document':
      return `Answers ${p.path} with the document recorded in record #${p.record_ordinal}.`;
    case 'record':
      return `Replays its recorded responses: ${REASON_WORDS[p.reason] ?? p.reason} (${plainText(p.detail)}).`;
  }
}

/** What ends a type's initial reads, in words. */
export function boundSentence(t: StateType): string {
  if (!t.bound) return 'Nothing changes this type in the capture: every read of it shows the initial state.';
  const why = t.bound.rule === 'ES-8' ? `the first write under ${t.root_path}`
    : t.bound.rule === 'ES-9' ? 'a write elsewhere that creates entities of this type'
    : 'a write elsewhere after which its reads changed';
  return `Reads before record #${t.bound.write_ordinal} (${why}) show the initial state; later ones may show its changes.`;
}
