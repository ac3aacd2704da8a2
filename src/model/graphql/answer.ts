/**
 * @rule GQL-4
 * Issue 48: a GraphQL request answered from the session's entities — each root field by the
 * convention the capture proved for it (an item by id, a list or Relay connection with its
 * filters and window, a recorded value), exactly the selection set asked; mutations by their
 * checked convention (mutations.ts, verify.ts). What the model cannot answer it declines
 * (GqlDecline); it never guesses a field, a member or a cursor.
 */
import type { FieldNode } from 'graphql';
import type { JsonValue } from '../../json/exact.js';
import { fieldErrors, type NotFoundAnswer, type RootConvention } from './learn.js';
import { givenFields, type MutationConvention } from './mutations.js';
import { entityKey, idText, isPlainObject, Missing, render, type Entity, type NValue } from './normalize.js';
import { fieldsOf, UnsettledFragment, type GqlRequest, type SelectedField } from './request.js';
import { passes, type GqlSession } from './session.js';

/** The model cannot answer: why, in plain words, and the field it stopped at. */
export class GqlDecline extends Error {
  constructor(
    message: string,
    readonly field: string | null,
    /** A mutation's answer asked a field the model does not hold; its effect was taken (it is checked, and needs no answer to take). */
    readonly effectTaken = false,
  ) {
    super(message);
  }
}

export interface GqlAnswer {
  status: number;
  value: JsonValue;
  /** How each root field was answered, in plain words. */
  why: string[];
  /** Set when a convention, not the capture's own answer to this request, decided it. */
  convention?: string;
}

/** Answers `req` on `session`; throws GqlDecline. `trial`: mutations apply unchecked (verify.ts checks them so). */
export function answerGraphql(session: GqlSession, req: GqlRequest, trial = false): GqlAnswer {
  const l = session.learned;
  if (req.kind === 'subscription') throw new GqlDecline('a subscription is not answered by the model', null);
  const data: Record<string, JsonValue> = {};
  const errors: JsonValue[] = [];
  const why: string[] = [];
  let errorsFirst = false;
  let status = 200;
  // A mutation the model cannot answer in full leaves the entities as they were.
  const saved = req.kind === 'mutation' ? session.save() : null;
  for (const f of fieldsOf(req, req.operation.selectionSet, null)) {
    try {
      if (req.kind === 'mutation') {
        data[f.responseKey] = mutate(session, req, f, trial, why);
        continue;
      }
      const c = l.roots.get(f.name);
      const a = c ? rootAnswer(f, c) : undefined;
      if (a !== undefined && 'notFound' in a) {
        data[f.responseKey] = null;
        errors.push(...a.notFound.errors.map((e) => notFoundError(e, a.notFound.idAsked, a.id, f)));
        errorsFirst = a.notFound.errorsFirst && a.notFound.errors.length > 0;
        status = a.notFound.status;
        continue;
      }
      if (a !== undefined && 'value' in a) {
        data[f.responseKey] = a.value;
        continue;
      }
      const r = recordedValue(session, req, f, why, a?.unknown);
      data[f.responseKey] = r.value;
      if (r.errors.length) {
        errors.push(...r.errors);
        errorsFirst = r.errorsFirst;
      }
    } catch (e) {
      const effectTaken = saved !== null && e instanceof Missing;
      if (saved && !effectTaken) session.restore(saved);
      if (effectTaken) session.mutations++;
      if (e instanceof Missing) throw new GqlDecline(`${f.responseKey}: ${e.message}`, f.responseKey, effectTaken);
      if (e instanceof UnsettledFragment) throw new GqlDecline(`${f.responseKey}: ${e.message}; only the schema settles it`, f.responseKey);
      throw e;
    }
  }
  if (req.kind === 'mutation') session.mutations++;
  const value: Record<string, JsonValue> = errors.length ? (errorsFirst ? { errors, data } : { data, errors }) : { data };
  return { status, value, why, ...(why.some((w) => w.includes('convention')) ? { convention: 'graphql' } : {}) };
  function rootAnswer(
    f: SelectedField,
    c: RootConvention,
  ): { value: JsonValue } | { notFound: NotFoundAnswer; id: string } | { unknown: string } | undefined {
    if (c.typename && session.isStale(c.typename))
      throw new GqlDecline(`${f.responseKey}: this session changed ${c.typename} by a mutation the model did not apply`, f.responseKey);
    if (c.kind === 'item' && c.idArg && Object.keys(f.args).length === 1 && c.idArg in f.args) {
      const id = idText(f.args[c.idArg]);
      if (id === null) return undefined;
      const key = entityKey(c.typename!, id);
      if (session.entity(key)) {
        why.push(`${f.responseKey}: the ${c.typename} ${id} of the model`);
        return { value: renderIn(session, req, f.node.selectionSet, { __ref: key }) };
      }
      const nf = c.notFound ?? apiNotFound(session);
      if (nf && absent(session, c.typename!, id)) {
        why.push(
          `${f.responseKey}: the model holds no ${c.typename} ${id}: the app's not-found answer, as the capture shows it${c.notFound ? '' : ' for another item field'} (convention)`,
        );
        return { notFound: nf, id };
      }
      return {
        unknown: `${f.responseKey}: the capture never showed ${c.typename} ${id}, and no list of ${c.typename} it read whole says whether the app holds it`,
      };
    }
    if (c.kind === 'list' || c.kind === 'connection') {
      const filters = Object.entries(f.args).filter(([k]) => !l.words.isWindow(k));
      const members = session.members(c) ?? (filters.length === 0 ? knownWindow(f, c) : null);
      if (!members) return undefined;
      const refuted = filters.find(([k]) => filterRefuted(session, c, k));
      if (refuted)
        throw new GqlDecline(
          `${f.responseKey}: the capture's reads filtered by ${refuted[0]} do not match the members the model holds`,
          f.responseKey,
        );
      const kept = members.filter((id) => {
        const e = session.entity(entityKey(c.typename!, id))!;
        return filters.every(([k, v]) => {
          const p = passes(e, k, v);
          if (p === undefined)
            throw new GqlDecline(`${f.responseKey}: the model holds no field of ${c.typename} ${id} that ${k} filters on`, f.responseKey);
          return p;
        });
      });
      why.push(
        `${f.responseKey}: the model's list of ${c.typename}${filters.length ? ` where ${filters.map(([k]) => k).join(', ')} match` : ''}, in the places the capture showed`,
      );
      return { value: c.kind === 'list' ? listValue(f, c, kept) : connectionValue(f, c, kept) };
    }
    return undefined;
  }
  /**
   * An unfiltered list whose every position the capture did not show: the members of the
   * window asked, when the capture showed each of them at its place (session.listing), else null.
   */
  function knownWindow(f: SelectedField, c: RootConvention): string[] | null {
    let start = l.words.offset(f.args) ?? 0;
    if (c.kind === 'connection' && f.args.after != null) start = (c.cursors?.decode(f.args.after) ?? -2) + 1;
    const size = l.words.size(f.args);
    const listing = session.listing(c);
    if (!listing) {
      // A plain list of unknown length: a window inside the first places the capture showed.
      const prefix = c.kind === 'list' ? session.knownPrefix(c) : null;
      return prefix && size !== undefined && start >= 0 && start + size <= prefix.length ? prefix : null;
    }
    if (start < 0 || (c.kind === 'connection' && (f.args.last != null || f.args.before != null))) return null;
    const end = Math.min(listing.length, size === undefined ? listing.length : start + size);
    for (let i = start; i < end; i++) if (listing[i] === null) return null;
    // A place not shown stands in by an id no entity has; nothing renders it (it is outside the window).
    return listing.map((id, i) => id ?? `\u0000${i}`);
  }
  function listValue(f: SelectedField, c: RootConvention, ids: string[]): JsonValue {
    const start = l.words.offset(f.args) ?? 0;
    const size = l.words.size(f.args);
    const window = ids.slice(start, size === undefined ? undefined : start + size);
    return window.map((id) => renderIn(session, req, f.node.selectionSet, { __ref: entityKey(c.typename!, id) }));
  }
  function connectionValue(f: SelectedField, c: RootConvention, ids: string[]): JsonValue {
    if (f.args.last != null || f.args.before != null)
      throw new GqlDecline(`${f.responseKey}: backward paging (last/before) is not shown by the capture`, f.responseKey);
    let start = 0;
    if (f.args.after != null) {
      const n = c.cursors?.decode(f.args.after) ?? null;
      if (n === null) throw new GqlDecline(`${f.responseKey}: a cursor the model cannot read`, f.responseKey);
      start = n + 1;
    }
    const first = l.words.size(f.args);
    const end = Math.min(ids.length, first === undefined ? ids.length : start + first);
    const page = ids.slice(start, end);
    const cursor = (i: number): NValue | undefined => (c.cursors ? c.cursors.encode(start + i) : undefined);
    const edges = page.map((id, i) =>
      strip({ __typename: c.wrappers?.edge, cursor: cursor(i), node: { __ref: entityKey(c.typename!, id) } }),
    );
    const previous = start === 0 ? false : c.hasPrevious === 'start' ? true : c.hasPrevious === 'never' ? false : undefined;
    const pageInfo = strip({
      __typename: c.wrappers?.pageInfo,
      hasNextPage: end < ids.length,
      hasPreviousPage: previous,
      startCursor: page.length ? cursor(0) : undefined,
      endCursor: page.length ? cursor(page.length - 1) : undefined,
    });
    return renderIn(
      session,
      req,
      f.node.selectionSet,
      strip({ __typename: c.wrappers?.connection, edges, pageInfo, totalCount: ids.length }),
    );
  }
}

/** `v` as `set` asks it, over the session's entities; a null, or a value asked without a selection, as it is. */
function renderIn(s: GqlSession, req: GqlRequest, set: FieldNode['selectionSet'], v: NValue): JsonValue {
  return set && v !== null
    ? render(
        req,
        set,
        v,
        (k) => s.entity(k),
        (n) => s.learned.types.has(n),
      )
    : (v as JsonValue);
}

/** An object with its unknown (undefined) members left out, so rendering them declines. */
function strip(o: Record<string, NValue | undefined>): Record<string, NValue> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Record<string, NValue>;
}

/**
 * GQL-4 as the API's habit: an item field the capture never asked for a missing id answers as
 * the others did, when they all answered a plain null (an error's words name its own type).
 */
function apiNotFound(s: GqlSession): NotFoundAnswer | undefined {
  const seen = [...s.learned.roots.values()].flatMap((c) => (c.notFound ? [c.notFound] : []));
  return seen.length > 0 && seen.every((n) => n.errors.length === 0) ? seen[0] : undefined;
}

/** Whether the model knows an entity is not there: the session deleted it, or a complete list of its type never held it. */
function absent(s: GqlSession, typename: string, id: string): boolean {
  if (s.entity(entityKey(typename, id))) return false;
  if (s.learned.initial.has(entityKey(typename, id))) return true;
  for (const c of s.learned.roots.values()) {
    if (c.typename !== typename || (c.kind !== 'list' && c.kind !== 'connection')) continue;
    const members = s.members(c);
    // A complete list that holds every entity of the type the capture showed is the whole collection.
    if (members && s.ids(typename).every((x) => members.includes(x))) return true;
  }
  return false;
}

/** GQL-7: whether a filtered read the capture made disagrees with filtering the model's initial members. */
function filterRefuted(s: GqlSession, c: RootConvention, arg: string): boolean {
  const all: string[] = [];
  for (let i = 0; c.total !== null && i < c.total; i++) all.push(c.positions.get(i)!);
  for (const read of c.filteredReads) {
    if (!(arg in read.args)) continue;
    const got = all.filter((id) => {
      const e = s.learned.initial.get(entityKey(c.typename!, id));
      return !!e && Object.entries(read.args).every(([k, v]) => passes(e, k, v) === true);
    });
    const shown = got.slice(read.start, read.start + read.ids.length);
    if (shown.join('\u0000') !== read.ids.join('\u0000') || (read.total !== null && read.total !== got.length)) return true;
  }
  return false;
}

/** GQL-4: the app's not-found error for another id: its message naming this id, its location this field's. */
function notFoundError(e: JsonValue, asked: string, id: string, f: SelectedField): JsonValue {
  const out = atField(e, f) as Record<string, JsonValue> | null;
  if (!out || typeof out !== 'object' || Array.isArray(out) || typeof out.message !== 'string') return out;
  const escaped = asked.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return { ...out, message: out.message.replace(new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`, 'g'), id) };
}

/** A recorded error of a root field, moved to this request's field: its location and response key. */
function atField(e: JsonValue, f: SelectedField): JsonValue {
  if (!isPlainObject(e)) return e;
  const out: Record<string, JsonValue> = { ...e };
  if (Array.isArray(out.locations) && f.node.loc)
    out.locations = [{ line: f.node.loc.startToken.line, column: f.node.loc.startToken.column }];
  if (Array.isArray(out.path)) out.path = [f.responseKey, ...out.path.slice(1)];
  return out;
}

/** A root field the capture answered with these exact arguments, before any mutation of what it shows, and this session changed none of it. */
function recordedValue(
  s: GqlSession,
  req: GqlRequest,
  f: SelectedField,
  why: string[],
  unknown?: string,
): { value: JsonValue; errors: JsonValue[]; errorsFirst: boolean } {
  // After a write of another tool of the capture, or of this session, a recorded answer may be stale.
  const before = Math.min(s.learned.firstOtherWrite, s.otherWrites() > 0 ? -Infinity : Infinity);
  for (let i = s.learned.records.length - 1; i >= 0; i--) {
    const r = s.learned.records[i];
    if (r.req.kind !== 'query' || !r.root || !(f.storeKey in r.root) || r.ordinal >= before) continue;
    const types = new Set([...r.shown.values()].map((e) => e.typename));
    // A recorded null shows no entity: the field's own type still counts.
    const own = s.learned.roots.get(f.name)?.typename;
    if (own) types.add(own);
    if ([...types].some((t) => r.ordinal >= (s.learned.firstTouch.get(t) ?? Infinity) || s.touched(t) || s.isStale(t))) continue;
    // An answer that names no type may depend on any mutation: only one from before them all, in a session with none.
    if (types.size === 0 && (s.mutations > 0 || r.ordinal > (s.learned.mutationRecords[0]?.ordinal ?? Infinity))) continue;
    why.push(`${f.responseKey}: as the capture answered ${f.storeKey} (record #${r.ordinal})`);
    const v = r.root[f.storeKey];
    const value = renderIn(s, req, f.node.selectionSet, v);
    // The errors the app gave for that field come with it (a missing id's, `path` at the field).
    const key = fieldsOf(r.req, r.req.operation.selectionSet, null).find((x) => x.storeKey === f.storeKey)?.responseKey;
    const errors = fieldErrors(r.answer, key).map((e) => atField(e, f));
    return { value, errors, errorsFirst: Object.keys(r.answer ?? {})[0] === 'errors' };
  }
  throw new GqlDecline(
    unknown ??
      `${f.responseKey}: no convention of the capture answers ${f.storeKey}, and it never recorded that field with these arguments before a mutation`,
    f.responseKey,
  );
}

function mutate(s: GqlSession, req: GqlRequest, f: SelectedField, trial: boolean, why: string[]): JsonValue {
  const c = s.learned.mutations.get(f.name);
  if (!c) throw new GqlDecline(`${f.responseKey}: the capture shows no ${f.name} whose effect the model can take`, f.responseKey);
  if (!c.verified && !trial)
    throw new GqlDecline(
      `${f.responseKey}: ${f.name}'s effect is not checked by the capture's later reads${c.refuted ? ` (${c.refuted})` : ''}`,
      f.responseKey,
    );
  const t = c.typename;
  const show = (key: string) => (f.node.selectionSet ? renderIn(s, req, f.node.selectionSet, { __ref: key }) : null);
  const fields = (given: Record<string, JsonValue>): Record<string, NValue> => {
    const out: Record<string, NValue> = {};
    for (const [k, v] of Object.entries(given)) {
      const m = c.fieldMap[k];
      if (!m) throw new GqlDecline(`${f.responseKey}: the capture never showed what ${f.name}'s ${k} sets`, f.responseKey);
      if (m.refType) {
        const id = idText(v);
        if (id === null || !s.entity(entityKey(m.refType, id)))
          throw new GqlDecline(`${f.responseKey}: ${k} names no ${m.refType} the model holds`, f.responseKey);
        out[m.field] = { __ref: entityKey(m.refType, id) };
      } else out[m.field] = v;
    }
    return out;
  };
  if (c.kind === 'create') {
    const id = s.nextId(t);
    if (id === null) throw new GqlDecline(`${f.responseKey}: the ids of ${t} are not integers the model can count on from`, f.responseKey);
    const sample = [...s.learned.initial.values()].find((e) => e.typename === t)?.fields.id;
    const e: Entity = {
      typename: t,
      id,
      fields: {
        __typename: t,
        ...c.defaults,
        ...fields(givenFields(f.args, undefined).given),
        id: typeof sample === 'number' ? Number(id) : id,
      },
    };
    s.put(e, true);
    why.push(`${f.responseKey}: created ${t} ${id}${trial ? '' : ' (checked by the capture)'}`);
    return show(entityKey(t, id));
  }
  const id = idText(f.args[c.idArg!]);
  const key = id === null ? null : entityKey(t, id);
  const e = key ? s.entity(key) : undefined;
  if (!e || !key) {
    if (id !== null && c.missing !== undefined && absent(s, t, id)) {
      why.push(`${f.responseKey}: the model holds no ${t} ${id}: the app's answer for that, as the capture shows it`);
      return c.missing;
    }
    throw new GqlDecline(`${f.responseKey}: the model cannot tell whether ${t} ${id} is there`, f.responseKey);
  }
  if (c.kind === 'delete') {
    s.remove(t, id!);
    why.push(`${f.responseKey}: deleted ${t} ${id}`);
    return c.result === 'boolean' ? true : (f.args[c.idArg!] as JsonValue);
  }
  s.put({ ...e, fields: { ...e.fields, ...fields(givenFields(f.args, c.idArg).given) } }, false);
  why.push(`${f.responseKey}: updated ${t} ${id}, the given fields merged`);
  return show(key);
}

export type { MutationConvention };
