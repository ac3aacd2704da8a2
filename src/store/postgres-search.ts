/**
 * `capstate search` on a PostgreSQL store (issue 20): the search itself is SQLite's FTS5 in a
 * private copy (search.ts), so its words, prefixes and snippets are the same on both back ends.
 * What the server decides is which captures to copy: only those with a record whose URL,
 * request body or response body may hold every word, not the whole store.
 *
 * "May hold" must include every record FTS5 finds. FTS5's default tokenizer (unicode61) splits
 * ASCII text into runs of letters and digits and folds their case, and a search word is a prefix
 * of a token; so a text FTS5 finds a word in holds that word as a substring, case folded. That
 * holds for ASCII only (unicode61 also folds other scripts' case and drops diacritics: "café"
 * is found by "cafe"), so a text with any other character may hold anything, and a query with
 * one copies every capture, as before.
 */
import type { PostgresStore } from './postgres-store.js';

/** The words FTS5's tokenizer makes of an ASCII query (letters and digits, lower case); null for another query. */
export function asciiTokens(text: string): string[] | null {
  if (/[^\x00-\x7f]/.test(text)) return null;
  const tokens = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return tokens.length > 0 ? [...new Set(tokens)] : null;
}

/**
 * The captures of `store` with a record that may hold every word of `text` in its URL, request
 * body or response body, in id order; null when any capture may (a query beyond ASCII).
 */
export async function capturesThatMayMatch(store: PostgresStore, text: string): Promise<number[] | null> {
  const tokens = asciiTokens(text);
  if (tokens === null) return null;
  // A text that is not ASCII, or one holding every token: one parameter, the tokens.
  const mayHold = (x: string) =>
    `(${x} ~ '[^\\x01-\\x7F]' or not exists (select 1 from unnest($1::text[]) t where strpos(lower(${x}), t) = 0))`;
  const r = await store.client.query(
    `
    with b as (select id from body where content is not null and ${mayHold('content')})
    select distinct capture_id from record r
    where r.request_body_id in (select id from b) or r.response_body_id in (select id from b) or ${mayHold('r.url')}
    order by capture_id`,
    [tokens],
  );
  return r.rows.map((row) => Number(row.capture_id));
}
