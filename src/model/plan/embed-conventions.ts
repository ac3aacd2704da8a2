/**
 * The API's embed conventions (issue 44, beside the read conventions of conventions.ts): a
 * relation the stored state verified on one read of the capture (relations.ts; learned per
 * tool by src/model/served/relations.ts) is the API's habit, not that tool's:
 *
 * - the same param and member mean the same relation on every read tool of the collection
 *   (`_embed=comments` proved on `/posts/1` embeds each post's comments in `/posts`);
 * - the param with another member means the same kind of relation by the same spelling of the
 *   field (`_embed` + `comments` by `postId` = singular(posts)+`Id` → `/users/2?_embed=posts`:
 *   the posts whose `userId` is 2, where the posts' reads show `userId`); `parent` relations
 *   (`_expand=post`) generalize only where a parent relation was proven with that param.
 *
 * A param no verified relation used is no convention; nor is a member some tool of the
 * collection names in a recorded read that no reading reproduced (the capture contradicts
 * it), nor one that is already a member of the collection's own entities. Answers these
 * conventions make say so (`convention: api-embed`; provenance.ts).
 */
import { candidates, namingSuffix, singular, type EmbeddedMembers, type Relation } from './relations.js';
import type { ItemPlan, ListPlan } from './types.js';

/** A relation's spelling as a habit: the param, the kind, what follows the singular word in the field (`Id`). */
export interface EmbedPattern {
  param: string;
  kind: Relation['kind'];
  suffix: string;
  tools: string[];
}

/** The embed conventions of one API, each with the tools whose recorded reads proved it. */
export interface EmbedConventions {
  /** Per collection, the relations some read tool of it verified (one per param and member). */
  proven: Map<string, { relation: Relation; tools: string[] }[]>;
  patterns: EmbedPattern[];
  /** `collection param=member` named by a recorded read that no reading reproduced, or proved two ways. */
  refused: Set<string>;
}

/** What one plan embeds: its own members, then those a convention gives it, keyed `param=member`. */
export interface WidenedEmbedded {
  members: EmbeddedMembers;
  borrowed: Map<string, { convention: 'api-embed'; tools: string[] }>;
}

const refusal = (collection: string, param: string, member: string) => `${collection} ${param}=${member}`;
export const embedKey = (m: { param: string; member: string }) => `${m.param}=${m.member}`;
const same = (a: Relation, b: Relation) => a.kind === b.kind && a.collection === b.collection && a.field === b.field;

/** Learns the API's embed conventions from the read plans' embedded members (`embedded_members`). */
export function learnEmbedConventions(plans: readonly (ItemPlan | ListPlan)[]): EmbedConventions {
  const out: EmbedConventions = { proven: new Map(), patterns: [], refused: new Set() };
  for (const plan of plans) {
    for (const m of plan.embedded_members ?? []) {
      const key = refusal(plan.collection, m.param, m.member);
      if (!m.relation) {
        out.refused.add(key);
        continue;
      }
      const r = m.relation;
      const list = out.proven.get(plan.collection) ?? [];
      const seen = list.find((p) => p.relation.param === r.param && p.relation.member === r.member);
      if (seen && !same(seen.relation, r)) out.refused.add(key);
      else if (seen) seen.tools.push(plan.tool);
      else list.push({ relation: r, tools: [plan.tool] });
      out.proven.set(plan.collection, list);
      // The word the field spells: the owner's (a post's comments by `postId`) or the parent's (`post`).
      const suffix = namingSuffix(r.field, r.kind === 'children' ? singular(plan.collection) : r.member);
      if (suffix === undefined) continue;
      const pattern = out.patterns.find((p) => p.param === r.param && p.kind === r.kind && p.suffix === suffix);
      if (pattern) {
        if (!pattern.tools.includes(plan.tool)) pattern.tools.push(plan.tool);
      } else out.patterns.push({ param: r.param, kind: r.kind, suffix, tools: [plan.tool] });
    }
  }
  for (const [collection, list] of out.proven)
    out.proven.set(
      collection,
      list.filter((p) => !out.refused.has(refusal(collection, p.relation.param, p.relation.member))),
    );
  return out;
}

/**
 * The members `plan` embeds: its own (learned or not), the relations another read tool of its
 * collection verified, and those the API's patterns give it over `collections` (whose members
 * are `fieldsOf(c)`, as their read plans show them), each found among relations.ts's candidates
 * by the proven spelling.
 */
export function widenEmbedded(
  plan: ItemPlan | ListPlan,
  conv: EmbedConventions,
  collections: readonly string[],
  fieldsOf: (collection: string) => string[],
): WidenedEmbedded {
  const members: EmbeddedMembers = [...(plan.embedded_members ?? [])];
  const borrowed = new Map<string, { convention: 'api-embed'; tools: string[] }>();
  const own = fieldsOf(plan.collection);
  const add = (relation: Relation, tools: string[]) => {
    if (members.some((m) => m.param === relation.param && m.member === relation.member)) return;
    if (conv.refused.has(refusal(plan.collection, relation.param, relation.member))) return;
    // A member the entities carry themselves: the capture cannot tell the relation's from theirs.
    if (own.includes(relation.member)) return;
    members.push({ param: relation.param, member: relation.member, relation });
    borrowed.set(embedKey(relation), { convention: 'api-embed', tools });
  };
  for (const p of conv.proven.get(plan.collection) ?? []) add(p.relation, p.tools);
  for (const pattern of conv.patterns) {
    // Children: a member naming a collection; parent: a member naming one entity of it.
    const names = collections.map((c) => (pattern.kind === 'children' ? c : singular(c)));
    for (const member of [...new Set(names)]) {
      const word = pattern.kind === 'children' ? singular(plan.collection) : member;
      const found = candidates({ param: pattern.param, member }, plan.collection, [...collections], fieldsOf).find(
        (c) => c.kind === pattern.kind && c.field === `${word}${pattern.suffix}`,
      );
      if (found) add(found, pattern.tools);
    }
  }
  return { members, borrowed };
}
