/**
 * Issue 48: one GraphQL request as the model reads it — the document parsed by the reference
 * parser (graphql-js), the operation that runs, its variables, and the fields it selects at
 * each level with fragments spread and `@skip`/`@include` decided. Nothing here knows the
 * app's schema: a fragment's type condition is matched against the answer's `__typename`.
 */
import {
  Kind,
  parse,
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { canonicalJson } from '../../json/canonical.js';
import type { JsonValue } from '../../json/exact.js';

export type OperationKind = 'query' | 'mutation' | 'subscription';

export interface GqlRequest {
  kind: OperationKind;
  /** The operation's own name, or null when anonymous. */
  name: string | null;
  /** A stable name: the operation's own, else `query_post_author` from its root fields (issue 48). */
  stableName: string;
  operation: OperationDefinitionNode;
  fragments: Map<string, FragmentDefinitionNode>;
  variables: Record<string, JsonValue>;
  /** The document text as sent (error locations are read from it). */
  query: string;
}

/** A field as selected: where it goes in the answer, what it reads, with which arguments. */
export interface SelectedField {
  responseKey: string;
  name: string;
  args: Record<string, JsonValue>;
  /** `name` or `name({"id":"2"})`: one value per field and arguments (the key Apollo's cache uses). */
  storeKey: string;
  node: FieldNode;
}

/**
 * The GraphQL request in a POST body `{query, variables?, operationName?}`, or null when the
 * body is not one (a batch, a persisted query without text) or its document does not parse.
 */
export function readRequest(body: unknown): GqlRequest | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const { query, variables, operationName } = body as Record<string, unknown>;
  if (typeof query !== 'string') return null;
  let doc: DocumentNode;
  try {
    doc = parse(query);
  } catch {
    return null;
  }
  const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const wanted = typeof operationName === 'string' && operationName !== '' ? operationName : null;
  const operation = wanted === null ? (ops.length === 1 ? ops[0] : undefined) : ops.find((o) => o.name?.value === wanted);
  if (!operation) return null;
  const fragments = new Map(
    doc.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]),
  );
  const vars: Record<string, JsonValue> = {};
  if (variables && typeof variables === 'object' && !Array.isArray(variables)) Object.assign(vars, variables);
  // A variable the request leaves out takes its default from the document.
  for (const d of operation.variableDefinitions ?? [])
    if (!(d.variable.name.value in vars) && d.defaultValue) vars[d.variable.name.value] = valueOf(d.defaultValue, {});
  const name = operation.name?.value ?? null;
  const req: GqlRequest = {
    kind: operation.operation as OperationKind,
    name,
    stableName: '',
    operation,
    fragments,
    variables: vars,
    query,
  };
  req.stableName = name ?? `${req.kind}_${[...new Set(fieldsOf(req, operation.selectionSet, null).map((f) => f.name))].join('_')}`;
  return req;
}

/** A literal or variable argument value as JSON (an absent variable is null). */
export function valueOf(v: ValueNode, variables: Record<string, JsonValue>): JsonValue {
  switch (v.kind) {
    case Kind.VARIABLE:
      return variables[v.name.value] ?? null;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(v.value);
    case Kind.STRING:
    case Kind.ENUM:
      return v.value;
    case Kind.BOOLEAN:
      return v.value;
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return v.values.map((x) => valueOf(x, variables));
    case Kind.OBJECT:
      return Object.fromEntries(v.fields.map((f) => [f.name.value, valueOf(f.value, variables)]));
  }
}

function argsOf(args: readonly ArgumentNode[] | undefined, variables: Record<string, JsonValue>): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  // An argument given as an absent variable is left out, as the server leaves it out.
  for (const a of args ?? []) {
    if (a.value.kind === Kind.VARIABLE && !(a.value.name.value in variables)) continue;
    out[a.name.value] = valueOf(a.value, variables);
  }
  return out;
}

/** `name` with no arguments, else `name(` + the arguments' canonical JSON + `)`. */
export function storeKeyOf(name: string, args: Record<string, JsonValue>): string {
  return Object.keys(args).length === 0 ? name : `${name}(${canonicalJson(args)})`;
}

function included(
  node: { directives?: readonly { name: { value: string }; arguments?: readonly ArgumentNode[] }[] },
  vars: Record<string, JsonValue>,
): boolean {
  for (const d of node.directives ?? []) {
    const cond = d.arguments?.find((a) => a.name.value === 'if');
    const value = cond ? valueOf(cond.value, vars) : null;
    if (d.name.value === 'skip' && value === true) return false;
    if (d.name.value === 'include' && value === false) return false;
  }
  return true;
}

/** A fragment whose type condition the model cannot settle without the schema (an interface or a union). */
export class UnsettledFragment extends Error {
  constructor(readonly on: string) {
    super(`a fragment on ${on}, which is not a type the capture's answers name`);
  }
}

/**
 * The fields a selection set asks of an object whose `__typename` is `typename` (null: not
 * known, so every fragment applies), in the order they are asked, fragments spread; a response
 * key asked twice is one field (GraphQL merges them; their sub-selections are joined).
 * `isType` names the object types the capture showed: a fragment on another name (an interface
 * or union, which only the schema resolves) throws UnsettledFragment rather than guess.
 */
export function fieldsOf(
  req: GqlRequest,
  set: SelectionSetNode,
  typename: string | null,
  isType?: (name: string) => boolean,
): SelectedField[] {
  const out = new Map<string, SelectedField>();
  const applies = (on: string | undefined) => {
    if (on === undefined || typename === null || on === typename) return true;
    if (isType && !isType(on)) throw new UnsettledFragment(on);
    return false;
  };
  const visit = (s: SelectionSetNode) => {
    for (const sel of s.selections) {
      if (!included(sel, req.variables)) continue;
      if (sel.kind === Kind.FIELD) {
        const responseKey = sel.alias?.value ?? sel.name.value;
        const had = out.get(responseKey);
        if (had && had.node.selectionSet && sel.selectionSet) {
          had.node = {
            ...had.node,
            selectionSet: { ...had.node.selectionSet, selections: [...had.node.selectionSet.selections, ...sel.selectionSet.selections] },
          };
        } else if (!had) {
          const args = argsOf(sel.arguments, req.variables);
          out.set(responseKey, { responseKey, name: sel.name.value, args, storeKey: storeKeyOf(sel.name.value, args), node: sel });
        }
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        if (applies(sel.typeCondition?.name.value)) visit(sel.selectionSet);
      } else {
        const f = req.fragments.get(sel.name.value);
        if (f && applies(f.typeCondition.name.value)) visit(f.selectionSet);
      }
    }
  };
  visit(set);
  return [...out.values()];
}
