/**
 * MCP tool hints (MCP-1), owned by the tool definition (MCP-2). OQ-38: `readOnlyHint` and
 * `idempotentHint` are always present (`false` when not true), `destructiveHint` only as
 * `true` for DELETE, `openWorldHint` always `false` (answers come from the capture, never
 * the network).
 */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint?: true;
  idempotentHint: boolean;
  openWorldHint: false;
}

/**
 * MCP-1's table: the hints of a tool with this method, query-POST flag (OQ-7) and whether
 * the method is safe (RFC 9110 §9.2.1; the store's vocabulary says which are, `isSafeMethod`).
 */
export function hintsFor(method: string, isQueryPost: boolean, safe: boolean): ToolHints {
  const m = method.toUpperCase();
  return {
    // MCP-1: safe methods and query POSTs read only.
    readOnlyHint: safe || (m === 'POST' && isQueryPost),
    ...(m === 'DELETE' ? { destructiveHint: true as const } : {}),
    // MCP-1 Reading: a query POST is not a safe method, so it is not idempotent.
    idempotentHint: safe || m === 'PUT' || m === 'DELETE',
    openWorldHint: false,
  };
}

/**
 * Issue 48: the hints of a GraphQL operation tool, by what the operation is rather than by
 * the endpoint's method (every operation is a POST), read off MCP-1's table: a query acts as
 * a safe read (the GraphQL spec's query is a read-only fetch), a mutation whose every root
 * field is a delete by the capture's conventions as DELETE, any other mutation as POST.
 */
export function operationHints(kind: 'query' | 'mutation', effects: string[]): ToolHints {
  if (kind === 'query') return hintsFor('GET', false, true);
  return effects.length > 0 && effects.every((e) => e === 'delete') ? hintsFor('DELETE', false, false) : hintsFor('POST', false, false);
}
