/**
 * OQ-7: which POST tools are queries (a read sent as POST): by their last static segment, an
 * RPC read verb or a read area (issue 18), or GraphQL documents that run queries only.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../store/types.js';
import type { Vocabulary } from '../store/vocabulary.js';
import { storedContent } from '../store/body-content.js';
import { parseExactJson } from '../json/exact.js';
import { isGraphqlQueryOnly, isGraphqlTemplate } from './graphql.js';
import { parseTemplate } from './paths.js';
import type { InferredTool } from './inferred.js';
import { chunks } from './lookups.js';
import type { Rec } from './records.js';

/**
 * OQ-7: a POST tool is a query by its last static segment (a query name or ending), or
 * GraphQL without mutations. Issue 18: RPC-style reads sent as POST are queries too — a last
 * static segment that is a method name starting with a read verb at a word boundary
 * (`getCurrentUser`, `GetNavigationMenu2`, `list_users`), or a static segment naming an area
 * of reads (`/queries/`, `/$rpc/`). The words are the vocabulary's `query_*` rows.
 */
export async function isQueryPost(k: Kysely<DB>, t: InferredTool, byId: Map<number, Rec>, vocabulary: Vocabulary): Promise<boolean> {
  const shape = parseTemplate(t.template);
  const statics = shape.parts.filter((p) => p.kind === 'static').map((p) => (p as { text: string }).text);
  const last = statics[statics.length - 1] ?? '';
  const words = vocabulary.queryWords;
  const lower = last.toLowerCase();
  if (statics.some((s) => words.areas.has(s.toLowerCase()))) return true;
  // gRPC-style `package.Service.Method`: the method is the part after the last dot.
  const method = last.slice(last.lastIndexOf('.') + 1);
  if (
    words.methodPrefixes.some(
      (p) => method.length > p.length && method.toLowerCase().startsWith(p) && /^[A-Z0-9_-]/.test(method.slice(p.length)),
    )
  )
    return true;
  if (!words.segments.has(lower) && !words.suffixes.some((s) => lower.endsWith(s))) return false;
  if (!isGraphqlTemplate(t.template)) return true;
  // GraphQL: a query POST only when every recorded document provably runs queries only.
  const bodies: unknown[] = [];
  for (const chunk of chunks(t.records.map((r) => byId.get(r.id)!.requestBodyId))) {
    const rows = await k.selectFrom('body').select(['kind', 'content', 'coding']).where('id', 'in', chunk).execute();
    for (const b of rows) {
      const content = storedContent(b.content, b.coding);
      if (b.kind === 'json') {
        const parsed = parseExactJson(String(content));
        bodies.push(parsed.ok ? parsed.value : null);
      } else bodies.push(b.kind === 'text' ? String(content) : null);
    }
  }
  return isGraphqlQueryOnly(bodies);
}
