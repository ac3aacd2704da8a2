/**
 * JSON pointers (RFC 6901), the one escaper: a member name's `~` is written `~0` and its
 * `/` `~1`, and read back in the opposite order. Member rows, plans, reasons and answers
 * all spell pointers this way; SQL views that build pointers state the same rule in SQL
 * (see docs/decisions.md, "Layering"), and a Kysely query builds one with `sqlChildPointer`.
 */
import { sql, type RawBuilder } from 'kysely';

/** One member name as a pointer token. */
export function escapePointerToken(name: string): string {
  return name.includes('~') || name.includes('/') ? name.replace(/~/g, '~0').replace(/\//g, '~1') : name;
}

/** One pointer token as the member name (or array index) it stands for. */
export function unescapePointerToken(token: string): string {
  return token.includes('~') ? token.replace(/~1/g, '/').replace(/~0/g, '~') : token;
}

/** The pointer of member `name` (or index) under `parent`: `childPointer('/a', 'b/c')` is `/a/b~1c`. */
export function childPointer(parent: string, name: string | number): string {
  return `${parent}/${typeof name === 'number' ? name : escapePointerToken(name)}`;
}

/** The tokens of a pointer, unescaped (`''` is the root: no tokens); throws on a text that is not a pointer. */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`not a JSON pointer: ${pointer}`);
  return pointer.slice(1).split('/').map(unescapePointerToken);
}

/** The same in a query: the pointer of the member whose name is column `keyRef` under the container pointer in column `parentRef`. */
export function sqlChildPointer(parentRef: string, keyRef: string): RawBuilder<string> {
  return sql<string>`${sql.ref(parentRef)} || '/' || replace(replace(${sql.ref(keyRef)}, '~', '~0'), '/', '~1')`;
}
