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
 * the endpoint's method (every operation is a POST). A query reads only (the GraphQL spec's
 * query is a read-only fetch, so calling it again changes nothing); a mutation writes, and is
 * destructive and idempotent only when every root field of it is a delete by the capture's
 * conventions, as DELETE is in MCP-1's table.
 */
export function operationHints(kind: 'query' | 'mutation', effects: string[]): ToolHints {
  if (kind === 'query') return { readOnlyHint: true, idempotentHint: true, openWorldHint: false };
  const deletes = effects.length > 0 && effects.every((e) => e === 'delete');
  return {
    readOnlyHint: false,
    ...(deletes ? { destructiveHint: true as const } : {}),
    idempotentHint: deletes,
    openWorldHint: false,
  };
}
