import { closeSync, openSync, writeSync } from 'node:fs';
import { defineCommand } from 'citty';
import { stringifyExact } from '../json/exact.js';
import type { EnvironmentState } from '../state/index.js';
import type { ItemPlan, ListPlan } from '../model/plan/types.js';
import { readStoredState, storedStateOf, writeStoredStateDocument } from '../model/plan/stored.js';
import { explainArg, jsonArg, log, out } from './common.js';
import { plainText } from '../model/plan/words.js';
import { pickCapture } from '../manifest/read.js';
import { sourceArgs, withCaptures } from './source.js';
import type { Kysely } from 'kysely';
import type { DB } from '../store/types.js';
import { readVocabulary } from '../store/vocabulary.js';
import { learnReadConventions, type ReadConventions } from '../model/plan/conventions.js';
import { learnEmbedConventions, type EmbedConventions } from '../model/plan/embed-conventions.js';
import { relationWords } from '../model/plan/relations.js';
import { identityWords, planWords, stateHeader } from './state-words.js';
import { graphqlEndpointTools } from './graphql-summary.js';
import { closeServeContext, serveContextOn } from '../model/served/context.js';
import { kyselyFor, openStore } from '../store/open.js';
import { deleteCascade, type LearnedCascade } from '../model/served/delete-cascade.js';
import { nullFilterHabit, type NullFilterHabit } from '../model/served/null-filters.js';

export const stateArgs = {
  ...sourceArgs,
  out: { type: 'string', alias: 'o', description: 'Also write the JSON document to FILE (byte-stable)', valueHint: 'FILE' },
} as const;

/**
 * Prints the command's one capture's stored environment state (computed when it was
 * loaded; issue 13): the JSON document (`--json`, `--out`) or the human view. Nothing is
 * computed here: the document is a rendering of the state_* tables, written a row at a
 * time (issue 14), and a state that could not be computed is reported as that error.
 */
export async function printStoredState(
  a: Parameters<typeof withCaptures>[0],
  rawArgs: string[],
  opts: { json: boolean; out?: string; explain?: boolean },
): Promise<void> {
  await withCaptures(
    a,
    rawArgs,
    async (k, ids, db) => {
      const captureId = pickCapture(ids, a.db);
      // A stale or failed state is reported before anything is written (storedStateOf throws).
      const { sha256 } = await storedStateOf(k, captureId, a.db);
      if (opts.json || opts.out) {
        const fd = opts.out ? openSync(opts.out, 'w') : null;
        try {
          const written = await writeStoredStateDocument(k, captureId, a.db, (chunk) => {
            if (fd !== null) writeSync(fd, chunk);
            if (opts.json) process.stdout.write(chunk);
          });
          if (opts.out) log(`wrote ${opts.out} (sha256 ${written})`);
        } finally {
          if (fd !== null) closeSync(fd);
        }
      }
      // The human view shows the SHA-256 the load computed from the view's bytes.
      if (!opts.json) {
        const state = await readStoredState(k, captureId, a.db);
        const graphql = await graphqlEndpointTools(k, captureId);
        const habits = await habitsOf(db, a.db, captureId);
        out(
          describeState(state, sha256, { explain: opts.explain, conventions: await conventionsOf(k, captureId, state), graphql, habits }),
        );
      }
    },
    { one: true, state: true },
  );
}

export default defineCommand({
  meta: {
    name: 'state',
    description: "Print the environment-state view stored at load: types, entities, documents and each read tool's plan or reason",
  },
  args: { ...stateArgs, ...jsonArg, ...explainArg },
  async run({ args: a, rawArgs }) {
    await printStoredState(a, rawArgs, { json: a.json, out: a.out, explain: a.explain });
  },
});

/** Issue 16 (ES-41 extended), in plain words: which write tools take effect when served, and which replay. */
function writesLine(evidence: EnvironmentState['evidence'], explain: boolean): string {
  const marked = evidence.write_effects;
  if (!marked) return 'writes: not checked when this state was stored; serving checks them at the first write call';
  const n = marked.verified.length + marked.replayed.length;
  if (n === 0) return 'writes: the capture has no write tool';
  const listed = (xs: string[]) => (xs.length > 6 ? [...xs.slice(0, 6), '…'] : xs).join(', ');
  const parts = [
    `${marked.verified.length} of ${n} write tool${n === 1 ? '' : 's'} ${marked.verified.length === 1 ? 'takes' : 'take'} effect, checked against the capture's later reads` +
      (marked.verified.length ? ` (${listed(marked.verified.map((v) => `${v.tool}: ${v.effect}`))})` : ''),
  ];
  if (marked.replayed.length)
    parts.push(
      `${marked.replayed.length === 1 ? 'one replays its' : `${marked.replayed.length} replay their`} recorded answers (${listed(marked.replayed.map((r) => r.tool))})`,
    );
  // Issue 45 (write-route.ts): over HTTP, what they prove of their method writes other collections too.
  if (marked.verified.length)
    parts.push(`over HTTP a collection no tool writes is written as these are, by the same method${explain ? ' (api-write)' : ''}`);
  return `writes: ${parts.join('; ')}`;
}

/**
 * The human view: types with identity and entity counts, documents, each tool's plan or
 * reason. In plain words unless `explain`, which keeps the rule IDs the stored text cites.
 */
/** Issue 44: the API's read conventions as serving learns them (every read's query keys, the list plans). */
async function conventionsOf(k: Kysely<DB>, captureId: number, s: EnvironmentState): Promise<ReadConventions> {
  // The records' query strings (record-lines.ts alone reads the loader's query pairs per tool).
  const queries = await k
    .selectFrom('record')
    .select('query')
    .distinct()
    .where('capture_id', '=', captureId)
    .where('method', '=', 'GET')
    .where('query', 'is not', null)
    .execute();
  const keys = new Set(queries.flatMap((r) => [...new URLSearchParams(r.query ?? '').keys()]));
  const lists = s.plans.filter((p): p is ListPlan => p.kind === 'list');
  return learnReadConventions(lists, keys, await readVocabulary(k));
}

const CASCADE_WORDS = {
  cleared: 'clears the references to what it deleted (null)',
  deleted: 'deletes the entities naming what it deleted',
  kept: 'leaves the references to what it deleted as they were',
} as const;

/**
 * The habits serving learns from the capture's records, read on a serve context of its own over
 * the store (`file`, named `name` in messages); no private copy: nothing but these reads runs on it.
 */
async function habitsOf(
  file: string,
  name: string,
  captureId: number,
): Promise<{ cascade: LearnedCascade | null; nullFilter: NullFilterHabit | null }> {
  const sqlite = openStore(file);
  const ctx = { ...(await serveContextOn(sqlite, kyselyFor(sqlite), file, captureId)), storeName: name };
  try {
    return { cascade: await deleteCascade(ctx), nullFilter: await nullFilterHabit(ctx) };
  } finally {
    await closeServeContext(ctx);
  }
}

/** Issue 44: the conventions in words, each with the lists whose recorded lines proved it (with `--explain`, its name). */
function conventionLines(c: ReadConventions, explain: boolean): string[] {
  const named = (name: string, words: string, tools: Iterable<string>) =>
    `  ${words}${explain ? ` [${name}]` : ''}: proved by ${[...new Set(tools)].join(', ')}`;
  const out: string[] = [];
  if (c.filter.length)
    out.push(named('api-filter', `filters by any field name${c.any_of.length ? ' (a repeated key: any of its values)' : ''}`, c.filter));
  for (const [op, tools] of Object.entries(c.ops)) out.push(named('api-filter', `filters by a field's _${op} key`, tools ?? []));
  for (const [suffix, tools] of c.reference)
    out.push(
      named(
        'api-reference-filter',
        c.tree.length
          ? `filters by a reference's id as <field>${suffix}, the entity named and those under it (project${suffix}=1: project.id is 1 or a subproject's)`
          : `filters by a reference's id as <field>${suffix} (project${suffix}=1: project.id is 1)`,
        c.tree.length ? [...tools, ...c.tree] : tools,
      ),
    );
  if (c.sort.size)
    out.push(
      named(
        'api-sort',
        `sorts by ${[...c.sort.keys()].join(', ')}${c.multi_sort.length ? ' (several fields)' : ''}`,
        [...c.sort.values()].flat(),
      ),
    );
  if (c.window.size)
    out.push(
      named(
        'api-window',
        `pages by ${[...c.window.keys()].join(', ')}${c.window_headers ? ` (with ${c.window_headers.names.join(', ')} and page links)` : ''}`,
        [...c.window.values()].flat(),
      ),
    );
  return out;
}

export function describeState(
  s: EnvironmentState,
  sha256: string,
  opts: {
    explain?: boolean;
    conventions?: ReadConventions;
    graphql?: { name: string; template: string }[];
    habits?: { cascade: LearnedCascade | null; nullFilter: NullFilterHabit | null };
  } = {},
): string {
  const words = (text: string) => (opts.explain ? text : plainText(text));
  const explain = opts.explain === true;
  // Issue 46: plain words by default (state-words.ts); the exact terms with --explain.
  const lines = stateHeader(s, explain);
  lines.push(writesLine(s.evidence, explain));
  // Issue 48: a GraphQL endpoint's entities live in its own model, learned when it is served.
  for (const g of opts.graphql ?? [])
    lines.push(
      `graphql: ${g.name} (POST ${g.template}) is a GraphQL endpoint: serving answers it from its own model of the entities its answers show${explain ? ' (GQL-2..GQL-9)' : ''}, which this stored state does not hold; capstate check-effects says which of its mutations take effect`,
    );
  for (const l of s.limitations) lines.push(`limitation: ${words(l)}`);
  lines.push('', `${s.types.length} type${s.types.length === 1 ? '' : 's'}:`);
  for (const t of s.types) {
    const n = s.entities.filter((e) => e.collection === t.collection).length;
    const ids = t.initial_order.length > 6 ? [...t.initial_order.slice(0, 6), '…'] : t.initial_order;
    lines.push(
      `  ${t.collection}  ${t.root_path}  ${identityWords(t, explain)}  ${n} entit${n === 1 ? 'y' : 'ies'}` +
        (ids.length ? `: ${ids.join(', ')}` : ''),
    );
  }
  lines.push('', `${s.documents.length} document${s.documents.length === 1 ? '' : 's'}:`);
  for (const d of s.documents) {
    const text = stringifyExact(d.value);
    lines.push(`  ${d.path}${d.query ? '?' + d.query : ''}  (#${d.record_ordinal})  ${text.length > 80 ? text.slice(0, 77) + '…' : text}`);
  }
  lines.push('', `${s.plans.length} read tool${s.plans.length === 1 ? '' : 's'}:`);
  const w = Math.max(0, ...s.plans.map((p) => p.tool.length));
  for (const p of s.plans) {
    const what = planWords(p, explain, embeddedWords);
    lines.push(`  ${p.tool.padEnd(w)}  ${what}`);
  }
  const conventions = opts.conventions ? conventionLines(opts.conventions, opts.explain === true) : [];
  conventions.push(
    ...embedLines(learnEmbedConventions(s.plans.filter((p) => p.kind === 'item' || p.kind === 'list')), opts.explain === true),
  );
  // Issues 44/45: habits serving learns from the capture's records (null-filters.ts, delete-cascade.ts).
  const tag = (name: string) => (explain ? ` [${name}]` : '');
  const nf = opts.habits?.nullFilter;
  if (nf)
    conventions.push(
      `  a filter lists the entities whose field is null, whatever the value asked${tag('api-null-filter')}: shown by ${nf.tools.join(', ')}`,
    );
  const c = opts.habits?.cascade;
  if (c)
    conventions.push(
      `  a delete ${CASCADE_WORDS[c.cascade]}${tag('api-delete-cascade')}: shown by record${c.proof.length > 1 ? 's' : ''} #${c.proof.join(', #')}`,
    );
  if (conventions.length) lines.push('', 'read conventions of the API (serving applies them to every list and item):', ...conventions);
  lines.push('', `sha256 ${sha256}`);
  return lines.join('\n');
}

/** Issue 44: the embed conventions in words (embed-conventions.ts), each with the tools whose reads proved it. */
function embedLines(c: EmbedConventions, explain: boolean): string[] {
  const tag = explain ? ' [api-embed]' : '';
  const out: string[] = [];
  for (const [collection, list] of c.proven)
    for (const { relation: r, tools } of list)
      out.push(`  embeds ${r.param}=${r.member} in every read of ${collection} (${relationWords(r)})${tag}: proved by ${tools.join(', ')}`);
  for (const p of c.patterns)
    out.push(
      p.kind === 'children'
        ? `  embeds ${p.param}=<collection> in any read (the entities of that collection whose <one of this>${p.suffix} is its id)${tag}: proved by ${p.tools.join(', ')}`
        : `  embeds ${p.param}=<one> in any read (the entity its <one>${p.suffix} names)${tag}: proved by ${p.tools.join(', ')}`,
    );
  return out;
}

/** Issue 16: what a plan's reads embed, and how the model fills it (`_embed=comments by postId`), or that it replays. */
function embeddedWords(p: ItemPlan | ListPlan): string {
  return (p.embedded_members ?? [])
    .map((m) => `, ${m.param}=${m.member} ${m.relation ? `by ${m.relation.field}` : 'as recorded'}`)
    .join('');
}
