/**
 * The environment state in plain words, for people (issue 19): what each read tool's plan
 * does, why a tool is answered from its records, what bounds a type's initial reads. Rule
 * IDs (`ES-8`, `OQ-19`, `DOC-5`, `§13`, `[#6]`) stay in the `--json` documents, which keep
 * the stored text as it is; text meant for reading goes through `plainText`.
 */
import type { ListPlan, Plan, Reason, StateType } from './types.js';

/**
 * A spec rule ID (`ES-37`, `OQ-19`, `DOC-5`, `BS-65`, `MCP-1`): only the spec's own prefixes,
 * so an app's own names (`PROJ-123`, `UTF-8`, `SHA-256`) are never taken for one.
 */
const RULE_ID = String.raw`(?:ES|BS|OQ|IDN|DOC|DESC|ACC|MCP)-\d+[a-z]?`;
/** A bracket or parenthesis holding only rule IDs, sections and issue refs: ` (ES-8/ES-9)`, ` [#6]`, ` (§13)`. */
const CITATION = new RegExp(
  String.raw`\s*[([](?:\s*(?:${RULE_ID}(?: as revised)?|§\s?\d+(?:\.\d+)*|#\d+)\s*(?:[/,;–]|\.\.|to|and|or)?\s*)+[)\]]`,
  'g',
);
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
  return text.replace(CITATION, '').replace(EVIDENCE, '').replace(SECTION, '').replace(STANDING, 'a rule');
}

/**
 * A rule ID standing in a sentence ("ES-8 bounds it"), or a run of them; not one inside a
 * file name or path (`fixtures/ES-8.har`, `BS-12_case`), which is the user's own text.
 */
const NOT_IN_PATH_BEFORE = String.raw`(?<![\w.-]|(?<!${RULE_ID})/)`;
const NOT_IN_PATH_AFTER = String.raw`(?![\w-]|\.\w|/(?!${RULE_ID}))`;
const STANDING = new RegExp(
  String.raw`${NOT_IN_PATH_BEFORE}(?:${RULE_ID})(?:\s*(?:/|,|\.\.|–|to|and|or)\s*${RULE_ID})*${NOT_IN_PATH_AFTER}`,
  'g',
);
const CITED = new RegExp(
  String.raw`${NOT_IN_PATH_BEFORE}(${RULE_ID})(?:\s*(?:\.\.|–|to)\s*(${RULE_ID}))?${NOT_IN_PATH_AFTER}|§\s?(\d+(?:\.\d+)*)`,
  'g',
);

/**
 * The rules `text` cites, in order of first mention and each once: rule IDs (`ES-8`), a
 * range spelled out (`ES-12..ES-19` gives ES-12 to ES-19) and spec sections (`§13`). What
 * `plainText` takes out of a sentence, kept for a structured field (`rules` in MCP answers
 * and error documents).
 */
export function citedRules(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.replace(EVIDENCE, '').matchAll(CITED)) {
    if (m[3] !== undefined) {
      out.add(`§${m[3]}`);
      continue;
    }
    const [from, to] = [m[1], m[2]];
    const a = /^([A-Z]+)-(\d+)$/.exec(from),
      b = to ? /^([A-Z]+)-(\d+)$/.exec(to) : null;
    if (a && b && a[1] === b[1] && Number(b[2]) > Number(a[2]) && Number(b[2]) - Number(a[2]) <= 50) {
      for (let n = Number(a[2]); n <= Number(b[2]); n++) out.add(`${a[1]}-${n}`);
    } else {
      out.add(from);
      if (to) out.add(to);
    }
  }
  return [...out];
}

/** An error document for people and agents: its message in plain words, the rules it cited in `rules` (when it cited any). */
export function plainError<T extends { message: string; context: unknown }>(doc: T): T & { rules?: string[] } {
  const rules = citedRules(doc.message);
  const { context, ...head } = doc;
  return { ...head, message: plainText(doc.message), ...(rules.length ? { rules } : {}), context } as T & { rules?: string[] };
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
  'membership-differs':
    'its recorded lists hold other entities, or another order, than the state, and no filter, sort or page of their query explains it',
  'not-planned': 'tools that change data are answered from their records',
};

const at = (pointer: string) => (pointer ? `at ${pointer}` : 'as the whole body');

/**
 * Issue 44: what a list shows unless the call asks otherwise, as the state pass learned it: its
 * default filter, its default page size and the orders of its unsorted lines, in words.
 */
export function listHabits(p: ListPlan): string[] {
  const out: string[] = [];
  const d = p.default_filter;
  if (d)
    out.push(
      `only those whose ${d.field} is ${d.values.join(' or ')}${d.lifted_by.length ? ` (${d.lifted_by.join(' or ')} asks for others)` : ''}`,
    );
  if (p.default_size !== undefined) out.push(`pages of ${p.default_size}`);
  if (p.default_order?.length)
    out.push(
      `ordered by ${p.default_order.map((o) => `${o.field} ${o.direction === 'desc' ? 'descending' : 'ascending'}`).join(' and by ')}`,
    );
  return out;
}

/** The list's habits as a clause (`; unless asked, pages of 10; ordered by date descending`), or nothing. */
export function unlessAsked(p: ListPlan): string {
  const habits = listHabits(p);
  return habits.length ? `; unless asked, ${habits.join('; ')}` : '';
}

/** One sentence saying how a read tool is answered. */
export function planSentence(p: Plan): string {
  switch (p.kind) {
    case 'item':
      return `Answers one ${p.collection} entity from the state, shown ${at(p.entity_pointer)} of the response.`;
    case 'list':
      return (
        `Answers the list of ${p.collection} from the state, ${at(p.list_pointer)} of the response, ` +
        (p.membership === 'all' ? 'with every entity of the type' : 'with the entities its records listed') +
        (p.counters.length ? `; counts kept in ${p.counters.join(', ')}` : '') +
        listHabits(p)
          .map((h) => `; ${h}`)
          .join('') +
        '.'
      );
    case 'document':
      return `Answers ${p.path} with the document recorded in record #${p.record_ordinal}.`;
    case 'record':
      return `Replays its recorded responses: ${REASON_WORDS[p.reason] ?? p.reason} (${plainText(p.detail)}).`;
  }
}

/**
 * What ends a type's initial reads, in words. `boundIsRead`: the bound's record is a read
 * (issue 18: the first read showing an entity a 404 proved absent, with no recorded write between).
 */
export function boundSentence(t: StateType, boundIsRead = false): string {
  if (!t.bound) return 'Nothing changes this type in the capture: every read of it shows the initial state.';
  const why =
    t.bound.rule === 'ES-8'
      ? `the first write under ${t.root_path}`
      : t.bound.rule === 'ES-9'
        ? 'a write elsewhere that creates entities of this type'
        : boundIsRead
          ? 'the first read showing an entity an earlier read found absent: a write the capture did not record'
          : 'a write elsewhere after which its reads changed';
  return `Reads before record #${t.bound.write_ordinal} (${why}) show the initial state; later ones may show its changes.`;
}
