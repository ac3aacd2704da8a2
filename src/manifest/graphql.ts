/**
 * OQ-7 for GraphQL endpoints: a POST /graphql tool is a query POST only when every
 * recorded request body is provably read-only (MCP-1 then gives it `readOnlyHint`).
 * Anything this module cannot read with confidence counts as a write — the safer side.
 */

import { parseTemplate } from './paths.js';

/**
 * OQ-7: a GraphQL endpoint's template — its last static segment is `graphql` (`/graphql`,
 * `/api/graphql`), as the query-POST rule reads it; serving's GraphQL model answers the same
 * tools (src/model/graphql/model.ts).
 */
export function isGraphqlTemplate(template: string): boolean {
  const statics = parseTemplate(template).parts.filter((p) => p.kind === 'static');
  const last = statics[statics.length - 1] as { text: string } | undefined;
  return last?.text.toLowerCase() === 'graphql';
}

type OperationType = 'query' | 'mutation' | 'subscription';

interface Operation {
  type: OperationType;
  /** null for anonymous operations, including the `{ … }` shorthand. */
  name: string | null;
}

/**
 * True only when every body is provably read-only: each operation that will run is a
 * `query` (or the `{ … }` shorthand). A body may be an object `{query, operationName?,
 * variables?, extensions?}`, an array of such objects (a batch), or a string (a raw
 * `application/graphql` body). Persisted queries without `query` text, unreadable
 * documents, documents with no operation, and an empty list are all false.
 */
export function isGraphqlQueryOnly(bodies: unknown[]): boolean {
  if (!Array.isArray(bodies) || bodies.length === 0) return false;
  return bodies.every(isReadOnlyBody);
}

function isReadOnlyBody(body: unknown): boolean {
  if (typeof body === 'string') return isReadOnlyRequest(body, undefined);
  if (Array.isArray(body)) return body.length > 0 && body.every((b) => isPlainObject(b) && isReadOnlyObject(b));
  if (isPlainObject(body)) return isReadOnlyObject(body);
  return false;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isReadOnlyObject(body: Record<string, unknown>): boolean {
  const { query, operationName } = body;
  // No query text (e.g. only `extensions.persistedQuery`): the operation is unknown.
  if (typeof query !== 'string') return false;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return false;
  return isReadOnlyRequest(query, operationName || undefined);
}

function isReadOnlyRequest(document: string, operationName: string | undefined): boolean {
  const ops = operations(document);
  if (ops === null || ops.length === 0) return false;
  if (operationName !== undefined) {
    const op = ops.find((o) => o.name === operationName);
    return op !== undefined && op.type === 'query';
  }
  return ops.every((o) => o.type === 'query');
}

/**
 * The top-level operation definitions of a GraphQL document, or null when the document
 * cannot be read (unterminated string, unbalanced brackets, an unexpected top-level
 * token). Comments and string literals are removed first, so `mutation` inside them
 * does not count; `fragment` definitions are skipped.
 */
export function operations(document: string): Operation[] | null {
  const tokens = tokenize(document);
  if (tokens === null) return null;
  const ops: Operation[] = [];
  let i = 0;
  /** Skips a balanced `{ … }` starting at tokens[i] === '{'; returns the index after it. */
  const skipBlock = (start: number): number | null => {
    let depth = 0;
    for (let j = start; j < tokens.length; j++) {
      if (tokens[j] === '{') depth++;
      else if (tokens[j] === '}' && --depth === 0) return j + 1;
    }
    return null;
  };
  /** From tokens[i], skips a definition header (name, variables, directives) up to its `{`. */
  const toSelectionSet = (start: number): number | null => {
    let parens = 0;
    for (let j = start; j < tokens.length; j++) {
      const t = tokens[j];
      if (t === '(') parens++;
      else if (t === ')') {
        if (--parens < 0) return null;
      } else if (t === '{' && parens === 0) return j;
      else if (t === '}' && parens === 0) return null;
    }
    return null;
  };
  while (i < tokens.length) {
    const t = tokens[i];
    let type: OperationType | null = null;
    let name: string | null = null;
    let open: number | null;
    if (t === '{') {
      type = 'query';
      open = i;
    } else if (t === 'query' || t === 'mutation' || t === 'subscription') {
      type = t;
      const next = tokens[i + 1];
      if (next !== undefined && NAME.test(next)) name = next;
      open = toSelectionSet(i + 1);
    } else if (t === 'fragment') {
      open = toSelectionSet(i + 1);
    } else {
      return null;
    }
    if (open === null) return null;
    const end = skipBlock(open);
    if (end === null) return null;
    if (type) ops.push({ type, name });
    i = end;
  }
  return ops;
}

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/**
 * Names, numbers and punctuators; comments, string literals (block strings too),
 * whitespace and commas dropped. Null on an unterminated string.
 */
function tokenize(src: string): string[] | null {
  const tokens: string[] = [];
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i];
    if (c === '#') {
      while (i < n && src[i] !== '\n' && src[i] !== '\r') i++;
    } else if (src.startsWith('"""', i)) {
      i += 3;
      for (;;) {
        if (i >= n) return null;
        if (src.startsWith('\\"""', i)) i += 4;
        else if (src.startsWith('"""', i)) {
          i += 3;
          break;
        } else i++;
      }
      tokens.push('<string>');
    } else if (c === '"') {
      i++;
      for (;;) {
        if (i >= n || src[i] === '\n' || src[i] === '\r') return null;
        if (src[i] === '\\') i += 2;
        else if (src[i] === '"') {
          i++;
          break;
        } else i++;
      }
      tokens.push('<string>');
    } else if (/[\s,\ufeff]/.test(c)) {
      i++;
    } else if (/[_A-Za-z]/.test(c)) {
      const start = i;
      while (i < n && /[_0-9A-Za-z]/.test(src[i])) i++;
      tokens.push(src.slice(start, i));
    } else if (/[-0-9]/.test(c)) {
      const start = i;
      i++;
      while (i < n && /[0-9A-Za-z_.+-]/.test(src[i])) i++;
      tokens.push(src.slice(start, i));
    } else if (src.startsWith('...', i)) {
      tokens.push('...');
      i += 3;
    } else {
      tokens.push(c);
      i++;
    }
  }
  return tokens;
}
